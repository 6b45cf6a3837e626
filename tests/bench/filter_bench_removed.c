/*
 * bench_filter's masked construct in a file of its own, so that a file rule
 * (exclude file filter_bench_removed.c) removes it and no other.
 */
#include "bench_clock.h"

extern volatile long ot_bench_sink;

double ot_bench_masked_removed(long n)
{
    double t = 0;
    #pragma omp parallel num_threads(1)
    {
        double t0 = bench_now_ns();
        for (long i = 0; i < n; i++) {
            #pragma omp masked
            ot_bench_sink = i;
        }
        t = bench_now_ns() - t0;
    }
    return t;
}

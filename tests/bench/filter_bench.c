/*
 * bench_filter: what a filtered region costs (issue 14, docs/filters.md):
 * ns per user region begin+end and per host OpenMP masked construct, one
 * kept and one the filter removes, against an empty loop of the same shape.
 * Run by run_filter.sh untraced and under `offtrace record --filter` with
 *   exclude region filtered
 *   exclude file filter_bench_removed.c
 * so one run gives traced, filtered and (the other run) untraced numbers.
 * Minimum of ROUNDS rounds of N iterations.
 *   usage: bench_filter [N [ROUNDS]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "offtrace/offtrace_user.h"

volatile long ot_bench_sink;
double ot_bench_masked_removed(long n); /* filter_bench_removed.c */

static double empty_loop(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++)
        ot_bench_sink = i;
    return bench_now_ns() - t0;
}

static double kept_regions(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        OFFTRACE_USER_REGION_BEGIN(r, "kept");
        ot_bench_sink = i;
        OFFTRACE_USER_REGION_END(r);
    }
    return bench_now_ns() - t0;
}

static double filtered_regions(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        OFFTRACE_USER_REGION_BEGIN(r, "filtered");
        ot_bench_sink = i;
        OFFTRACE_USER_REGION_END(r);
    }
    return bench_now_ns() - t0;
}

static double masked_kept(long n)
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

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_filter [N [ROUNDS]]\n");
        return 2;
    }
    offtrace_user_init();
    double best[5] = {1e300, 1e300, 1e300, 1e300, 1e300};
    for (int r = 0; r < rounds; r++) {
        double t[5] = {empty_loop(n), kept_regions(n), filtered_regions(n), masked_kept(n),
                       ot_bench_masked_removed(n)};
        for (int i = 0; i < 5; i++)
            if (t[i] < best[i])
                best[i] = t[i];
    }
    printf("empty loop          %7.2f ns\n", best[0] / n);
    printf("region kept         %7.2f ns (begin+end, minus the empty loop)\n", (best[1] - best[0]) / n);
    printf("region filtered     %7.2f ns\n", (best[2] - best[0]) / n);
    printf("masked kept         %7.2f ns (construct, minus the empty loop)\n", (best[3] - best[0]) / n);
    printf("masked filtered     %7.2f ns\n", (best[4] - best[0]) / n);
    return 0;
}

/*
 * The clock the issue 14 benches (user API, NVTX, filters, measurement
 * control) time their loops with: one definition instead of one per bench.
 * Each bench keeps its own timed loops, because the loop's body is what it
 * measures and should stand in the bench where it is read.
 */
#ifndef OT_BENCH_CLOCK_H
#define OT_BENCH_CLOCK_H

#include <time.h>

/* Monotonic nanoseconds, as a double (differences of a few ns over runs of seconds). */
static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#endif

/*
 * bench_user_api: what the user API costs a program: ns per region
 * begin+end (a static handle, the macros), the same with recording switched
 * off (offtrace_user_measurement_off), per named region begin+end, per event
 * begin+end and per value, against an empty loop of the same shape. The
 * calls go through libofftrace-user.so as in any program (PLT, no
 * inlining). Minimum of ROUNDS rounds of N iterations. Run it plain for the
 * untraced cost and under `offtrace record` for the traced one
 * (tests/bench/run_user_api.sh does both and puts them side by side).
 *   usage: bench_user_api [N [ROUNDS]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"
#include "offtrace/offtrace_user.h"

static volatile long sink;

static double empty_loop(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++)
        sink = i;
    return bench_now_ns() - t0;
}

static double static_regions(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        OFFTRACE_USER_REGION_BEGIN(r, "r");
        sink = i;
        OFFTRACE_USER_REGION_END(r);
    }
    return bench_now_ns() - t0;
}

static double named_regions(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        offtrace_user_region_begin_named("named");
        sink = i;
        offtrace_user_region_end_named("named");
    }
    return bench_now_ns() - t0;
}

/* Recording switched off around the loop: what a region costs in a part of the
 * run the user left out (the switch itself is outside the timing). */
static double static_regions_off(long n)
{
    offtrace_user_measurement_off();
    double t = static_regions(n);
    offtrace_user_measurement_on();
    return t;
}

static offtrace_user_id ev, val;

static double events(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        offtrace_user_event_begin(ev);
        sink = i;
        offtrace_user_event_end(ev);
    }
    return bench_now_ns() - t0;
}

static double values(long n)
{
    double t0 = bench_now_ns();
    for (long i = 0; i < n; i++) {
        sink = i;
        offtrace_user_value_int64(val, i);
    }
    return bench_now_ns() - t0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_user_api [N [ROUNDS]]\n");
        return 2;
    }
    offtrace_user_init();
    if (offtrace_user_event_create("ev", &ev) || offtrace_user_value_create("val", OFFTRACE_USER_INT64, &val))
        return 1;
    struct { const char *name; double (*run)(long); double best; } cases[] = {
        {"empty loop", empty_loop, 0},
        {"region begin+end (static handle)", static_regions, 0},
        {"region begin+end (measurement off)", static_regions_off, 0},
        {"region begin+end (named)", named_regions, 0},
        {"event begin+end", events, 0},
        {"value (int64)", values, 0},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    for (int r = 0; r < rounds; r++)
        for (int c = 0; c < ncases; c++) {
            double t = cases[c].run(n) / (double)n;
            if (r == 0 || t < cases[c].best)
                cases[c].best = t;
        }
    printf("traced: %d, %ld iterations, minimum of %d rounds\n", offtrace_user_is_traced(), n, rounds);
    for (int c = 0; c < ncases; c++)
        printf("%-34s %7.2f ns/iteration, %+7.2f ns over the empty loop\n", cases[c].name, cases[c].best,
               cases[c].best - cases[0].best);
    printf("dropped: %llu\n", (unsigned long long)offtrace_user_dropped());
    return 0;
}

/*
 * filter_regions: user regions and host OpenMP constructs of known number,
 * for filters (issue 14, docs/filters.md; tests/test_filter_recording.c).
 *
 *   filter_regions [rounds]      (default 3; OMP_NUM_THREADS threads)
 *
 * Each round, on the initial thread: a user region "setup" around a
 * parallel region with a static loop ("smooth"), then a user region
 * "solve" around a second parallel region with a dynamic loop and an
 * explicit barrier, then a target region. Each construct sits on its own
 * source line, so file:line rules can pick one. Prints one line per round,
 * the same traced or not, filtered or not.
 */
#include <stdio.h>
#include <stdlib.h>

#include "offtrace/offtrace_user.h"

#define N 2048

static double a[N], b[N];

static void smooth(void)
{
    #pragma omp parallel
    {
        #pragma omp for schedule(static)
        for (int i = 1; i < N - 1; i++)
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
    }
}

static void solve(void)
{
    #pragma omp parallel
    {
        #pragma omp for schedule(dynamic, 256)
        for (int i = 0; i < N; i++)
            a[i] = 0.5 * b[i] + 1.0;
        #pragma omp barrier
    }
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    if (rounds < 1 || rounds > 1000) {
        fprintf(stderr, "filter_regions: rounds must be 1..1000\n");
        return 2;
    }
    offtrace_user_init();
    for (int i = 0; i < N; i++)
        a[i] = (double)(i % 13);
    for (int r = 0; r < rounds; r++) {
        OFFTRACE_USER_REGION_BEGIN(setup, "setup");
        smooth();
        OFFTRACE_USER_REGION_END(setup);
        OFFTRACE_USER_REGION_BEGIN(solve_region, "solve");
        solve();
        OFFTRACE_USER_REGION_END(solve_region);
        double sum = 0;
        #pragma omp target map(tofrom: a) map(tofrom: sum)
        for (int i = 0; i < N; i++)
            sum += a[i];
        printf("round %d: %.3f\n", r, sum);
    }
    return 0;
}

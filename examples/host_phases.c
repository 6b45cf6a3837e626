/*
 * host_phases: host OpenMP phases around offloaded work, each made to show
 * (or, balanced, not to show) one host OpenMP finding of `offtrace report`.
 *
 *   host_phases skewed|balanced [ROUNDS]      (default 4 rounds)
 *
 * Each round:
 *   1. a `schedule(static)` loop whose first quarter of iterations costs
 *      ten times the rest (skewed): the thread given that quarter works far
 *      longer than the others (finding "load imbalance in a loop", the slow
 *      range being that quarter); balanced: every iteration costs the same;
 *   2. a parallel region where one thread (`masked`) does the work and the
 *      others wait at the barrier after it (finding "barrier wait
 *      dominates"); balanced: the same work shared by a loop;
 *   3. a `target` region, then a host phase, then a second `target` region:
 *      skewed: the host phase runs on one thread outside any parallel
 *      region while the device idles (finding "host work serialises the
 *      offload"); balanced: no host phase between them.
 * It prints one line per round, the same for every run and thread count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4000
#define WORK 6000

/* Some arithmetic the compiler cannot drop: \p rounds steps from \p seed. */
static double spin(double seed, long rounds)
{
    double x = seed;
    for (long k = 0; k < rounds; k++)
        x = x * 0.999999 + 1e-7 * (double)(k & 7);
    return x;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "skewed") != 0 && strcmp(argv[1], "balanced") != 0)) {
        fprintf(stderr, "usage: host_phases skewed|balanced [ROUNDS 1..100]\n");
        return 2;
    }
    int skewed = strcmp(argv[1], "skewed") == 0;
    long rounds = argc > 2 ? strtol(argv[2], NULL, 10) : 4;
    if (rounds < 1 || rounds > 100) {
        fprintf(stderr, "usage: host_phases skewed|balanced [ROUNDS 1..100]\n");
        return 2;
    }
    static double a[N], b[N];
    for (long round = 0; round < rounds; round++) {
        double shared_sum = 0, device_sum = 0, host_sum = 0;
        /* 1. the loop */
#pragma omp parallel for schedule(static) /* finding: loop imbalance */
        for (int i = 0; i < N; i++)
            a[i] = spin(i, skewed && i < N / 4 ? 20 * WORK / 4 : WORK / 4);
        /* 2. one thread works, the others wait */
#pragma omp parallel /* finding: barrier wait */
        {
            if (skewed) {
#pragma omp masked
                for (int i = 0; i < N; i++)
                    b[i] = spin(a[i], WORK);
            } else {
#pragma omp for schedule(static)
                for (int i = 0; i < N; i++)
                    b[i] = spin(a[i], WORK);
            }
#pragma omp barrier
#pragma omp for schedule(static) reduction(+ : shared_sum)
            for (int i = 0; i < N; i++)
                shared_sum += b[i];
        }
        /* 3. target, host phase, target */
#pragma omp target map(to : b[0:N]) map(tofrom : device_sum) /* finding: host serial (after) */
        for (int i = 0; i < N; i++)
            device_sum += b[i];
        if (skewed)
            for (int i = 0; i < N; i++)
                host_sum += spin(b[i], WORK);
#pragma omp target map(tofrom : device_sum) /* finding: host serial (before) */
        device_sum *= 0.5;
        printf("round %ld: %.6f %.6f %.3f\n", round, shared_sum, device_sum, host_sum > 0 ? 1.0 : 0.0);
    }
    return 0;
}

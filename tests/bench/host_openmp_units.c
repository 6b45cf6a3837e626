/*
 * bench_host_openmp_units: the time of one unit of host OpenMP, for the
 * overhead of recording the program's own host OpenMP (docs/performance.md,
 * "Host OpenMP", run by tests/bench/run_host_openmp.sh under each tool).
 *
 *   bench_host_openmp_units parallel N   N empty parallel regions
 *   bench_host_openmp_units chunk N      one schedule(dynamic, 1) loop of N
 *                                        iterations with an empty body
 *   bench_host_openmp_units task N       N explicit tasks with an empty body,
 *                                        created by one thread of the team
 *                                        (single) and run by any
 *   bench_host_openmp_units lock N       N omp_set_lock/omp_unset_lock pairs
 *                                        on one thread (uncontended)
 *   bench_host_openmp_units critical N   N empty critical sections on one
 *                                        thread (uncontended)
 *   bench_host_openmp_units late N       N/2 empty parallel regions of one
 *                                        thread (a serial phase whose own
 *                                        OpenMP is recorded), then N/2 of the
 *                                        whole team: its worker threads start
 *                                        there, not before the timed part
 * Prints "ns_per_unit X" (CLOCK_MONOTONIC around the N units).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "parallel") && strcmp(argv[1], "chunk") && strcmp(argv[1], "task") &&
                      strcmp(argv[1], "lock") && strcmp(argv[1], "critical") && strcmp(argv[1], "late"))) {
        fprintf(stderr, "usage: %s parallel|chunk|task|lock|critical|late N\n", argv[0]);
        return 2;
    }
    long n = atol(argv[2]);
    volatile long sink = 0;
    int late = !strcmp(argv[1], "late");
    if (!late) {
#pragma omp parallel /* the team exists before the timed part */
        sink += omp_get_thread_num();
    }
    double start = now_ns();
    if (late) {
        for (long i = 0; i < n / 2; i++) {
#pragma omp parallel num_threads(1)
            sink += omp_get_thread_num();
        }
        for (long i = n / 2; i < n; i++) {
#pragma omp parallel
            sink += omp_get_thread_num();
        }
    } else if (!strcmp(argv[1], "parallel")) {
        for (long i = 0; i < n; i++) {
#pragma omp parallel
            sink += omp_get_thread_num(); /* not `+= 0`: clang drops that region */
        }
    } else if (!strcmp(argv[1], "task")) { /* explicit tasks: create + run */
#pragma omp parallel
#pragma omp single
        for (long i = 0; i < n; i++) {
#pragma omp task
            __asm__ volatile("" ::: "memory"); /* an empty body the compiler keeps */
        }
    } else if (!strcmp(argv[1], "lock")) { /* mutual exclusion (level all): one lock pair a unit */
        omp_lock_t lock;
        omp_init_lock(&lock);
        start = now_ns();
        for (long i = 0; i < n; i++) {
            omp_set_lock(&lock);
            sink += i & 1;
            omp_unset_lock(&lock);
        }
        omp_destroy_lock(&lock);
    } else if (!strcmp(argv[1], "critical")) {
        for (long i = 0; i < n; i++) {
#pragma omp critical
            sink += i & 1;
        }
    } else {
#pragma omp parallel for schedule(dynamic, 1)
        for (long i = 0; i < n; i++)
            sink += i & 1;
    }
    double ns = (now_ns() - start) / (double)n;
    printf("ns_per_unit %.1f (sink %ld)\n", ns, (long)sink);
    return 0;
}

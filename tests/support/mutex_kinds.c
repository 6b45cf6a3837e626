/*
 * mutex_kinds: every kind of OpenMP mutual exclusion, each thread doing a
 * number of each that depends only on its thread number, so that two runs
 * (one under offtrace, one under the tests' counting tool) agree per thread
 * (tests/test_host_locks.c).
 *
 *   mutex_kinds [ROUNDS [interleaved]]      (default 3)
 *
 * Thread i, per round: 2 + i lock pairs on a shared lock, 1 + i critical
 * sections, a nest lock set 1 + i levels deep, an omp_test_lock on its own
 * lock (succeeds) and, for i > 0, one on a lock thread 0 holds (fails);
 * every thread runs the ordered iterations of a `static, 1` loop over 4 *
 * threads iterations, and flushes once. Locks are initialised and
 * destroyed each round. Then a target region (the host-offload device: its
 * body runs on host threads through the same libomp) takes a critical
 * section and a lock on each of its threads: the kernel's mutual exclusion,
 * which is not the program's host OpenMP and must not appear on host
 * threads. Prints one line per round and one for the target.
 *
 * With `interleaved`, each thread then also takes two locks and releases
 * them in the order it took them (set a, set b, unset a, unset b), whose
 * hold regions cannot nest.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static omp_nest_lock_t nest;

static int deep(int levels)
{
    omp_set_nest_lock(&nest);
    int n = 1 + (levels > 1 ? deep(levels - 1) : 0);
    omp_unset_nest_lock(&nest);
    return n;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    for (int round = 0; round < rounds; round++) {
        long sum = 0, ordered_sum = 0, levels = 0, tests = 0;
        omp_lock_t shared, held;
        omp_init_lock(&shared);
        omp_init_lock(&held);
        omp_init_nest_lock(&nest);
#pragma omp parallel reduction(+ : levels, tests)
        {
            int me = omp_get_thread_num(), team = omp_get_num_threads();
            for (int k = 0; k < 2 + me; k++) {
                omp_set_lock(&shared);
                sum += k;
                omp_unset_lock(&shared);
            }
            for (int k = 0; k < 1 + me; k++) {
#pragma omp critical
                sum += k;
            }
            levels += deep(1 + me);
            omp_lock_t own;
            omp_init_lock(&own);
            if (omp_test_lock(&own)) {
                tests++;
                omp_unset_lock(&own);
            }
            omp_destroy_lock(&own);
            if (me == 0)
                omp_set_lock(&held);
#pragma omp barrier
            if (me > 0 && omp_test_lock(&held))
                omp_unset_lock(&held); /* never: thread 0 holds it */
#pragma omp barrier
            if (me == 0)
                omp_unset_lock(&held);
#pragma omp for ordered schedule(static, 1)
            for (int i = 0; i < 4 * team; i++) {
#pragma omp ordered
                ordered_sum += i;
            }
#pragma omp flush
        }
        omp_destroy_nest_lock(&nest);
        omp_destroy_lock(&held);
        omp_destroy_lock(&shared);
        printf("round %d: sum %ld, ordered %ld, levels %ld, tests %ld\n", round, sum, ordered_sum, levels, tests);
    }
    if (argc > 2 && !strcmp(argv[2], "interleaved")) {
        omp_lock_t a, b;
        omp_init_lock(&a);
        omp_init_lock(&b);
#pragma omp parallel
        {
            omp_set_lock(&a);
            omp_set_lock(&b);
            omp_unset_lock(&a);
            omp_unset_lock(&b);
        }
        omp_destroy_lock(&b);
        omp_destroy_lock(&a);
        printf("interleaved\n");
    }
    long in_kernel = 0;
#pragma omp target parallel num_threads(2) map(tofrom : in_kernel)
    {
        omp_lock_t kernel_lock;
        omp_init_lock(&kernel_lock);
        omp_set_lock(&kernel_lock);
        omp_unset_lock(&kernel_lock);
        omp_destroy_lock(&kernel_lock);
#pragma omp critical
        in_kernel++;
    }
    printf("target: %ld critical sections\n", in_kernel);
    return 0;
}

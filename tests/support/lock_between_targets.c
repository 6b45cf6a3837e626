/*
 * lock_between_targets: between two target regions, the encountering thread
 * waits for a lock that another thread of its team holds for a few
 * milliseconds (finding 8 of `offtrace report`, "host work serialises the
 * offload", when the host waits for a lock: tests/test_report.c).
 *
 *   lock_between_targets [ROUNDS] [HOLD_US]      (defaults 4 and 3000)
 *
 * Each round: a target region; a parallel region of 2 threads where thread
 * 1 takes the lock before a barrier and keeps it HOLD_US microseconds,
 * while thread 0 (the encountering thread) waits for it after the barrier;
 * a second target region. Prints one line (the same every run).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    int hold_us = argc > 2 ? atoi(argv[2]) : 3000;
    if (rounds < 1 || hold_us < 0) {
        fprintf(stderr, "usage: lock_between_targets [ROUNDS > 0] [HOLD_US >= 0]\n");
        return 2;
    }
    static double a[1000];
    omp_lock_t lock;
    omp_init_lock(&lock);
    for (int round = 0; round < rounds; round++) {
#pragma omp target map(tofrom : a)
        for (int i = 0; i < 1000; i++)
            a[i] += i;
#pragma omp parallel num_threads(2)
        {
            int me = omp_get_thread_num();
            if (me == 1)
                omp_set_lock(&lock);
#pragma omp barrier
            if (me == 1) {
                usleep((useconds_t)hold_us);
                omp_unset_lock(&lock);
            } else {
                omp_set_lock(&lock); /* the wait between the two targets */
                omp_unset_lock(&lock);
            }
        }
#pragma omp target map(tofrom : a)
        for (int i = 0; i < 1000; i++)
            a[i] -= i;
    }
    omp_destroy_lock(&lock);
    printf("%d rounds, a[999] = %g\n", rounds, a[999]);
    return 0;
}

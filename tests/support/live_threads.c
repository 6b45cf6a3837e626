/*
 * live_threads MODE N: threads that start after the live conversion of
 * `offtrace record -b 64K` has begun (tests/test_live_conversion.c). The
 * main thread first runs N target regions alone (enough records for the
 * attempt to begin on its stream), then what MODE says, then N more:
 *   team      20 parallel regions of 3 threads, each thread a target region
 *             in each (their streams start late, and add device items);
 *   ended     3 pthreads, each 200 target regions, joined before the main
 *             thread goes on (threads that end early);
 *   host      400 parallel regions of 3 threads with a barrier and a
 *             worksharing loop (host OpenMP records on late worker streams,
 *             --host-openmp=all);
 *   critical  400 parallel regions of 3 threads, each thread in a critical
 *             section (lock events over the threads, --host-openmp=all);
 *   worker_locks  the same, but only the workers enter the critical section
 *             (lock events on late threads only, none on the main thread);
 *   tasks     a parallel region of 3 threads whose single thread makes 40
 *             explicit tasks with dependences (--host-openmp=all).
 * Prints the sum, which the modes do not change.
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long targets(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) {
#pragma omp target map(tofrom: s)
        s++;
    }
    return s;
}

static void *ending_thread(void *arg)
{
    *(long *)arg = targets(200);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "team";
    long n = argc > 2 ? atol(argv[2]) : 2000, s = targets(n), more = 0;
    if (!strcmp(mode, "team")) {
        for (int step = 0; step < 20; step++) {
#pragma omp parallel num_threads(3) reduction(+: more)
            more += targets(1);
        }
    } else if (!strcmp(mode, "ended")) {
        pthread_t t[3];
        long got[3] = {0};
        for (int i = 0; i < 3; i++)
            if (pthread_create(&t[i], NULL, ending_thread, &got[i]) != 0)
                return 1;
        for (int i = 0; i < 3; i++) {
            pthread_join(t[i], NULL);
            more += got[i];
        }
    } else if (!strcmp(mode, "host")) {
        for (int step = 0; step < 400; step++) {
#pragma omp parallel num_threads(3) reduction(+: more)
            {
#pragma omp barrier
#pragma omp for schedule(static)
                for (int i = 0; i < 6; i++)
                    more += i & 1;
            }
        }
    } else if (!strcmp(mode, "critical")) {
        for (int step = 0; step < 400; step++) {
#pragma omp parallel num_threads(3)
#pragma omp critical
            more++;
        }
    } else if (!strcmp(mode, "worker_locks")) {
        for (int step = 0; step < 400; step++) {
#pragma omp parallel num_threads(3)
            if (omp_get_thread_num() != 0) {
#pragma omp critical
                more++;
            }
        }
    } else if (!strcmp(mode, "tasks")) {
        long cells[4] = {0};
#pragma omp parallel num_threads(3)
#pragma omp single
        for (int t = 0; t < 40; t++) {
#pragma omp task depend(inout: cells[t % 4]) shared(cells)
            cells[t % 4]++;
        }
        for (int i = 0; i < 4; i++)
            more += cells[i];
    }
    s += targets(n);
    printf("s=%ld more=%ld\n", s, more);
    return 0;
}

/* Preloaded by tests/bench/run_cg_margin.sh (CLOCK=cpu): omp_get_wtime
 * answers the calling thread's CPU time instead of wall time, so that a
 * program that times itself with omp_get_wtime (example_cg's solver) reports
 * what its own thread spent, page faults and system calls included, without
 * the waits a loaded machine adds to wall time. Work done for the program on
 * another thread is not in it. */
#include <time.h>

double omp_get_wtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * team_shapes [ROUNDS]: host parallel regions whose team size changes from
 * one to the next (1 to 4 threads in turn) and, every third round, a
 * nested parallel region inside each thread's implicit task, so that a
 * thread's implicit tasks do not keep one team size and one thread number:
 * the converter leaves those out only where they repeat on a location
 * (docs/host-openmp.md "An implicit task's team size and thread number"),
 * and tests/test_host_openmp.c compares their sums with the runtime's. A
 * team of four runs a dynamic loop after each, so that the run has loop
 * chunks to check too.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 24;
    long sum = 0;
    omp_set_max_active_levels(2);
    for (int r = 0; r < rounds; r++) {
        int team = 1 + r % 4;
#pragma omp parallel num_threads(team) reduction(+ : sum)
        {
            sum += omp_get_thread_num();
            if (r % 3 == 0) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
                sum += omp_get_thread_num() + omp_get_level();
            }
        }
        /* the loop in a team of one size: the checker matches a loop's instances by their order per thread */
#pragma omp parallel for num_threads(4) schedule(dynamic, 3) reduction(+ : sum)
        for (int i = 0; i < 50; i++)
            sum += i;
    }
    printf("%ld\n", sum);
    return 0;
}

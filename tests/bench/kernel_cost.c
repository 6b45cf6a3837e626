/*
 * bench_kernel_cost: many small kernels shaped like CG's (a `target teams
 * distribute parallel for` update and a dot product with a reduction, data
 * already on the device), timed around the loop in wall-clock time and in
 * the process's CPU time (every thread: the OpenMP workers and offtrace's
 * helper threads included).
 *
 * Why CPU time too: on a loaded machine a team that spin-waits for a
 * preempted thread makes wall-clock time swing by several times the cost
 * being measured. With one thread (OMP_NUM_THREADS=1) no thread waits for
 * another, and CPU time counts only work done, which load leaves nearly
 * alone. With a team of several, the loop is also timed in batches of
 * BATCH kernels and the fastest batch reported: a batch during which no
 * thread of the team was preempted (tests/bench/run_kernel_cost.sh). A
 * batch of 1000 CG kernels spans several milliseconds, so it holds its share
 * of what offtrace does at most once a millisecond (flushes, sync pairs).
 * The line ends with the loop's CPU time split into user and system
 * (getrusage, every thread): device detail's cost is partly the kernel's,
 * the pages of the record files (issue 18, third round).
 *   usage: bench_kernel_cost [ELEMENTS [KERNELS [BATCH]]]   (defaults 4096 20000 1000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>


static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The process's CPU time in user and in kernel mode (every thread): device
 * detail's cost is partly the kernel's (the pages of the record files). */
static void user_and_system(double *user, double *system)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    *user = u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6;
    *system = u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, kernels = argc > 2 ? atoi(argv[2]) : 20000;
    int batch_kernels = argc > 3 ? atoi(argv[3]) : 1000;
    if (n < 1 || kernels < 2 || batch_kernels < 2 || batch_kernels % 2 || batch_kernels > kernels) {
        fprintf(stderr, "usage: %s [ELEMENTS>=1 [KERNELS>=2 [BATCH: even, 2..KERNELS]]]\n", argv[0]);
        return 2;
    }
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), s = 0.0;
    if (!x || !y)
        return 1;
    for (int i = 0; i < n; i++)
        x[i] = y[i] = 1.0;
    double wall = 0.0, cpu = 0.0, fastest = 1e30, user = 0.0, system = 0.0;
#pragma omp target data map(to : x[0 : n]) map(tofrom : y[0 : n])
    {
        for (int warm = 0; warm < 2; warm++) { /* the first pass pays the runtime's start-up */
            double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID), u0, s0, u1, s1;
            user_and_system(&u0, &s0);
            double batch = w0;
            for (int k = 0; k < kernels / 2; k++) {
                if (k % (batch_kernels / 2) == 0 && k) {
                    double t = seconds(CLOCK_MONOTONIC);
                    if (warm && t - batch < fastest)
                        fastest = t - batch;
                    batch = t;
                }
                double a = 1e-9;
#pragma omp target teams distribute parallel for
                for (int i = 0; i < n; i++)
                    y[i] += a * x[i];
                double d = 0.0;
#pragma omp target teams distribute parallel for reduction(+ : d) map(tofrom : d)
                for (int i = 0; i < n; i++)
                    d += x[i] * y[i];
                s += d;
            }
            wall = seconds(CLOCK_MONOTONIC) - w0;
            cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
            user_and_system(&u1, &s1);
            user = u1 - u0;
            system = s1 - s0;
        }
    }
    printf("kernel_cost: %d kernels of %d elements: wall %.6f s cpu %.6f s fastest %.3f us per kernel in a batch of %d "
           "(check %.3e) user %.6f s system %.6f s\n", kernels / 2 * 2, n, wall, cpu, fastest * 1e6 / batch_kernels, batch_kernels, s,
           user, system);
    free(x);
    free(y);
    return 0;
}

/* Forks a child that runs its own target region and leaves through exit();
 * the parent runs two regions before the fork and one after. The child also
 * runs a `target update`, which the parent never does. A tracer must
 * keep the parent's trace intact and count only the parent's regions. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void one_region(double *a, int n)
{
#pragma omp target map(tofrom : a[0:n])
    for (int i = 0; i < n; i++)
        a[i] += 1.0;
}

int main(void)
{
    double a[256] = {0};
    one_region(a, 256);
    one_region(a, 256);
    pid_t pid = fork();
    if (pid == 0) {
        /* A construct the parent never runs: if it shows up in the parent's
         * trace, the child wrote into it. */
#pragma omp target update to(a[0:256])
        one_region(a, 256);
        exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    one_region(a, 256);
    printf("%g\n", a[0]);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

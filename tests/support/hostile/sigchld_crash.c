/* sigchld_crash: ignores SIGCHLD (children are reaped by the kernel, waitpid fails with ECHILD),
   offloads 10 regions, then dies of SIGSEGV */
#include <signal.h>
#include <stdio.h>
static double a[8];
int main(void)
{
    signal(SIGCHLD, SIG_IGN);
    for (int i = 0; i < 10; i++) {
#pragma omp target map(tofrom: a)
        a[0] += 1;
    }
    printf("a=%g\n", a[0]);
    fflush(stdout);
    volatile int *z = 0;
    *z = 1;
    return 0;
}

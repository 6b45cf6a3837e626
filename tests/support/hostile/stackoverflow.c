/* stackoverflow: offloads 10 regions, prints, then recurses until the stack overflows (SIGSEGV) */
#include <stdio.h>
static double a[8];
static int deep(int n)
{
    volatile char pad[4096];
    pad[0] = (char)n;
    return deep(n + 1) + pad[0];
}
int main(void)
{
    for (int i = 0; i < 10; i++) {
#pragma omp target map(tofrom: a)
        a[0] += 1;
    }
    printf("a=%g\n", a[0]);
    fflush(stdout);
    return deep(0);
}

/*
 * live_phases MODE N: N target regions (enough records for the live
 * conversion of `offtrace record -b 64K` to begin: tests/test_live_conversion.c),
 * then what MODE says: plain (nothing), enter_exit (a target enter/exit data
 * pair), tasks (explicit host tasks), segv or abort (the program dies).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    long n = argc > 2 ? atol(argv[2]) : 2000, s = 0;
    for (long i = 0; i < n; i++) {
#pragma omp target map(tofrom: s)
        s++;
    }
    if (!strcmp(mode, "enter_exit")) {
        double v[64] = {0};
#pragma omp target enter data map(to: v)
#pragma omp target map(tofrom: s)
        s++;
#pragma omp target exit data map(from: v)
    } else if (!strcmp(mode, "tasks")) {
#pragma omp parallel num_threads(2)
#pragma omp single
        for (int t = 0; t < 8; t++) {
#pragma omp task shared(s)
            {
#pragma omp atomic
                s++;
            }
        }
    } else if (!strcmp(mode, "segv")) {
        printf("s=%ld, crashing\n", s);
        fflush(stdout);
        int *volatile p = NULL;
        *p = 42;
    } else if (!strcmp(mode, "abort")) {
        printf("s=%ld, aborting\n", s);
        fflush(stdout);
        abort();
    }
    printf("s=%ld\n", s);
    return 0;
}

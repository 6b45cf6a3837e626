/*
 * live_phases MODE N: N target regions (enough records for the live
 * conversion of `offtrace record -b 64K` to begin: tests/test_live_conversion.c),
 * then what MODE says: plain (nothing), enter_exit (a target enter/exit data
 * pair), tasks (explicit host tasks), segv or abort (the program dies).
 * Two modes put the N regions in data regions: data_region (an enter/exit
 * data pair around all of them, and one around every 500th), split_data (the
 * enter data in one function, its exit data in another, as an init and a
 * finalize function do: one data region, host/convert/host_pass.c), and
 * enter_only (an enter data no exit data ends: its region stays open to the
 * thread's end).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double resident[64];

static void map_resident(void)
{
#pragma omp target enter data map(to: resident)
}

static void unmap_resident(void)
{
#pragma omp target exit data map(from: resident)
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    long n = argc > 2 ? atol(argv[2]) : 2000, s = 0;
    int in_data_regions = !strcmp(mode, "data_region"), split = !strcmp(mode, "split_data");
    int enter_only = !strcmp(mode, "enter_only");
    double w[16] = {0};
    if (in_data_regions) {
#pragma omp target enter data map(to: w)
    } else if (split || enter_only) {
        map_resident();
    }
    for (long i = 0; i < n; i++) {
        if (in_data_regions && i % 500 == 0) {
#pragma omp target enter data map(alloc: s)
#pragma omp target map(tofrom: s)
            s++;
#pragma omp target exit data map(from: s)
            continue;
        }
#pragma omp target map(tofrom: s)
        s++;
    }
    if (in_data_regions) {
#pragma omp target exit data map(from: w)
    } else if (split) {
        unmap_resident();
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

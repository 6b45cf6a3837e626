/*
 * control_bench: the cost of one empty target region and one empty host
 * parallel region (1 thread: a team of 2 on a busy 2-core machine measures the
 * scheduler, not the callbacks) with offtrace's recording on, off
 * (omp_control_tool pause), or without any tool (docs/performance.md,
 * "Measurement control (issue 14)"; run_measurement_control.sh).
 *
 *   control_bench on|off REGIONS
 *
 * Prints "target_ns=N parallel_ns=N": the mean per region over REGIONS,
 * after a warm-up that also initialises the runtime and the device.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"

int main(int argc, char **argv)
{
    long regions = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    if (argc != 3 || (strcmp(argv[1], "on") && strcmp(argv[1], "off")) || regions < 1) {
        fprintf(stderr, "usage: control_bench on|off REGIONS\n");
        return 2;
    }
    int x = 0;
    static long members; /* the team's threads, counted: the region cannot be dropped */
    for (int i = 0; i < 100; i++) { /* warm-up: runtime, device, image, threads */
#pragma omp target map(tofrom : x)
        x++;
#pragma omp parallel num_threads(1)
        __atomic_fetch_add(&members, 1, __ATOMIC_RELAXED);
    }
    if (!strcmp(argv[1], "off"))
        omp_control_tool(omp_control_tool_pause, 0, NULL);
    double t0 = bench_now_ns();
    for (long i = 0; i < regions; i++) {
#pragma omp target map(tofrom : x)
        x++;
    }
    double t1 = bench_now_ns();
    for (long i = 0; i < regions; i++) {
#pragma omp parallel num_threads(1)
        __atomic_fetch_add(&members, 1, __ATOMIC_RELAXED);
    }
    double t2 = bench_now_ns();
    printf("target_ns=%.0f parallel_ns=%.0f members=%ld\n", (t1 - t0) / regions, (t2 - t1) / regions,
           members / (regions + 100));
    return 0;
}

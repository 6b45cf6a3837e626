/*
 * control_windows: a program that switches offtrace's recording on and off
 * with OpenMP's own omp_control_tool, in windows whose contents are known.
 *
 *   control_windows windows   the windows below
 *   control_windows inside    a pause asked for inside a parallel region
 *                             and inside a target region (refused), then
 *                             outside them (done); later
 *                             end, and a start after it (refused)
 *
 * windows: window 0 runs before any switch (omp_control_tool only reaches
 * a tool once the runtime is initialised: its first parallel region or
 * target construct); then windows 1..5 alternate on (odd) and off (even),
 * window 5 being on again. Window w holds targets(w) target regions
 * (`target teams distribute parallel for`) and parallels(w) host parallel
 * regions of 2 threads:
 *
 *   window      0   1   2   3   4   5
 *   switch      -   on  off on  off on
 *   targets     1   1   2   3   4   1
 *   parallels   1   2   3   4   5   2
 *
 * So a run started paused records targets 1+3+1 = 5 and parallel regions
 * 2+4+2 = 8; a run started on also window 0's. The program prints every
 * omp_control_tool answer, the same for every run under the same tool.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#define N 256
#define WINDOWS 6

static const int targets[WINDOWS] = {1, 1, 2, 3, 4, 1};
static const int parallels[WINDOWS] = {1, 2, 3, 4, 5, 2};

static double a[N];

static void one_target(void)
{
#pragma omp target teams distribute parallel for map(tofrom : a)
    for (int i = 0; i < N; i++)
        a[i] = a[i] * 0.5 + 1.0;
}

static void one_parallel(void)
{
    double sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
    sum += omp_get_thread_num() + 1;
    a[0] += sum;
}

static void window(int w)
{
    for (int i = 0; i < targets[w]; i++)
        one_target();
    for (int i = 0; i < parallels[w]; i++)
        one_parallel();
}

static int windows(void)
{
    printf("before the runtime starts: %d\n", omp_control_tool(omp_control_tool_flush, 0, NULL));
    window(0);
    for (int w = 1; w < WINDOWS; w++) {
        int on = w % 2 == 1;
        int answer = omp_control_tool(on ? omp_control_tool_start : omp_control_tool_pause, 0, NULL);
        printf("window %d: %s -> %d\n", w, on ? "start" : "pause", answer);
        window(w);
    }
    printf("flush -> %d\n", omp_control_tool(omp_control_tool_flush, 0, NULL));
    printf("command 64 -> %d\n", omp_control_tool(64, 0, NULL)); /* a tool's own command (none: offtrace's 2) */
    printf("a[1] = %.6f\n", a[1]);
    return 0;
}

static int inside(void)
{
    window(0);
    int refused = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp masked
        refused = omp_control_tool(omp_control_tool_pause, 0, NULL);
    }
    printf("pause inside a parallel region -> %d\n", refused);
    refused = 0;
#pragma omp target map(tofrom : refused) /* on the host-offload device the kernel runs in this process */
    refused = omp_control_tool(omp_control_tool_pause, 0, NULL);
    printf("pause inside a target region -> %d\n", refused);
    printf("pause outside -> %d\n", omp_control_tool(omp_control_tool_pause, 0, NULL));
    window(1); /* not recorded */
    printf("start -> %d\n", omp_control_tool(omp_control_tool_start, 0, NULL));
    window(0);
    printf("end -> %d\n", omp_control_tool(omp_control_tool_end, 0, NULL));
    printf("start after end -> %d\n", omp_control_tool(omp_control_tool_start, 0, NULL));
    window(0); /* not recorded: end is for good */
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "windows"))
        return windows();
    if (argc == 2 && !strcmp(argv[1], "inside"))
        return inside();
    fprintf(stderr, "usage: control_windows windows|inside\n");
    return 2;
}

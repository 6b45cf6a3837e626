/*
 * bench_host_record: the host library's recording path alone, without an
 * OpenMP runtime around it, so that its cost per event can be told apart
 * from libomp's and libomptarget's (which dominate, and vary, in a target
 * region benchmark).
 *
 * It loads libofftrace.so as the runtime would (ompt_start_tool, then the
 * tool's initializer with a lookup whose ompt_set_callback keeps the
 * callbacks), then calls the real data-op callback N times, begin and end
 * alternating, timing with the TSC and CLOCK_MONOTONIC. Recording goes to a
 * real session directory (OFFTRACE_OUTPUT); the archive is written at exit
 * as usual, outside the timed part.
 * With a fourth argument `openmp` it calls the work callback instead (a
 * host worksharing construct, begin and end alternating: the path of every
 * host OpenMP record, OFFTRACE_HOST_OPENMP=regions or loops).
 *   usage: bench_host_record LIBOFFTRACE [EVENTS [ROUNDS [openmp]]]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

typedef ompt_start_tool_result_t *(*start_tool_fn)(unsigned int omp_version, const char *runtime_version);

static ompt_callback_target_data_op_emi_t data_op;
static ompt_callback_work_t work;

static ompt_set_result_t keep_callback(ompt_callbacks_t event, ompt_callback_t fn)
{
    if (event == ompt_callback_target_data_op_emi)
        data_op = (ompt_callback_target_data_op_emi_t)fn;
    if (event == ompt_callback_work)
        work = (ompt_callback_work_t)fn;
    return ompt_set_always;
}

static ompt_interface_fn_t lookup(const char *name)
{
    return strcmp(name, "ompt_set_callback") == 0 ? (ompt_interface_fn_t)keep_callback : NULL;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s LIBOFFTRACE [EVENTS [ROUNDS]]\n", argv[0]);
        return 2;
    }
    long events = argc > 2 ? atol(argv[2]) : 200000;
    int rounds = argc > 3 ? atoi(argv[3]) : 15;
    int openmp = argc > 4 && !strcmp(argv[4], "openmp");
    void *lib = dlopen(argv[1], RTLD_NOW);
    start_tool_fn start = lib ? (start_tool_fn)dlsym(lib, "ompt_start_tool") : NULL;
    ompt_start_tool_result_t *tool = start ? start(201811, "bench") : NULL;
    ompt_data_t tool_data = {0};
    if (!tool || !tool->initialize(lookup, 0, &tool_data) || !data_op || (openmp && !work)) {
        fprintf(stderr, "bench: cannot start %s as an OMPT tool (is OFFTRACE_OUTPUT set?)\n", argv[1]);
        return 1;
    }
    ompt_data_t target_task = {0}, target = {.value = 1};
    double *ns = malloc(rounds * sizeof *ns), *ticks = malloc(rounds * sizeof *ticks);
    static char host[64], device[64];
    for (int r = 0; r < rounds; r++) {
        double t0 = now_ns();
        unsigned long long c0 = __rdtsc();
        for (long i = 0; openmp && i < events / 2; i++) {
            work(ompt_work_loop_dynamic, ompt_scope_begin, &target, &target_task, 100, (void *)main);
            work(ompt_work_loop_dynamic, ompt_scope_end, &target, &target_task, 0, (void *)main);
        }
        for (long i = 0; !openmp && i < events / 2; i++) {
            ompt_id_t op = 0;
            data_op(ompt_scope_begin, &target_task, &target, &op, ompt_target_data_transfer_to_device, host, 4,
                    device, 0, 64, (void *)main);
            data_op(ompt_scope_end, &target_task, &target, &op, ompt_target_data_transfer_to_device, host, 4,
                    device, 0, 64, (void *)main);
        }
        unsigned long long c1 = __rdtsc();
        double t1 = now_ns();
        ns[r] = (t1 - t0) / (double)(events / 2 * 2);
        ticks[r] = (double)(c1 - c0) / (double)(events / 2 * 2);
    }
    qsort(ns, rounds, sizeof *ns, by_value);
    qsort(ticks, rounds, sizeof *ticks, by_value);
    printf("| measure | median | min |\n|---|---|---|\n");
    printf("| ns per recorded host event | %.1f | %.1f |\n", ns[rounds / 2], ns[0]);
    printf("| TSC ticks per recorded host event | %.1f | %.1f |\n", ticks[rounds / 2], ticks[0]);
    printf("\n%ld events per round, %d rounds\n", events, rounds);
    tool->finalize(&tool_data);
    return 0;
}

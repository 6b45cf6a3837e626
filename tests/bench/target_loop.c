/*
 * Benchmark kernel: one OpenMP operation in a loop. Prints the mean wall time
 * per operation in ns for the timed part (after a warm-up of 1000 operations
 * that initialises the device and the thread team).
 *
 *   bench_target_loop [ITERATIONS]          empty `target map(tofrom: 64 B)`
 *   bench_target_loop OP [ITERATIONS]       OP is one of:
 *     map64           empty `target map(tofrom: 64 B)` region
 *     target_in_data  `target` without map clauses inside `target data`
 *     update          `target update to(64 B)` inside `target data`
 *     enter_exit      `target enter data map(to: 64 B)` + `target exit data map(from: 64 B)`
 *     parallel        an empty host `parallel` region
 *     task            a task (created by one thread, run by the team) + its share of a taskwait
 *     barrier         a barrier in a host `parallel` region
 *     tsc             prints the TSC rate in MHz (rdtsc against CLOCK_MONOTONIC over 200 ms)
 *     stages          map64 regions in blocks of 250, the recording's stage switched
 *                     between blocks (OMP_TOOL_LIBRARIES=libofftrace_bench_stages.so):
 *                     prints ns per region for stages 1, 2, 3 and the whole recording,
 *                     each the median of its blocks. One process, so machine noise
 *                     slower than a block hits every stage alike.
 *     stages_kernel   the same for a CG-sized kernel: `target teams distribute parallel
 *                     for` over 8 Ki doubles already on the device (a working set
 *                     that competes with the recording for the caches), blocks of 50
 * Exit status 0 when the operations left the expected result.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define WARMUP 1000

static char payload[64];

static int map64(long n)
{
    memset(payload, 0, sizeof payload);
    for (int i = 0; i < WARMUP; i++) {
#pragma omp target map(tofrom : payload)
        payload[0]++;
    }
    double start = now_ns();
    for (long i = 0; i < n; i++) {
#pragma omp target map(tofrom : payload)
        payload[0]++;
    }
    double elapsed = now_ns() - start;
    printf("%.1f\n", elapsed / n);
    return payload[0] == (char)(WARMUP + n) ? 0 : 1;
}

static int target_in_data(long n)
{
    double elapsed = 0;
    memset(payload, 0, sizeof payload);
#pragma omp target data map(tofrom : payload)
    {
        for (int i = 0; i < WARMUP; i++) {
#pragma omp target /* payload is present: no transfer, no map clause */
            payload[0]++;
        }
        double start = now_ns();
        for (long i = 0; i < n; i++) {
#pragma omp target
            payload[0]++;
        }
        elapsed = now_ns() - start;
    }
    printf("%.1f\n", elapsed / n);
    return payload[0] == (char)(WARMUP + n) ? 0 : 1;
}

static int update(long n)
{
    double elapsed = 0;
    memset(payload, 0, sizeof payload);
#pragma omp target data map(alloc : payload)
    {
        for (int i = 0; i < WARMUP; i++) {
            payload[0] = (char)i;
#pragma omp target update to(payload)
        }
        double start = now_ns();
        for (long i = 0; i < n; i++) {
            payload[0] = (char)i;
#pragma omp target update to(payload)
        }
        elapsed = now_ns() - start;
        payload[0] = 0;
#pragma omp target update from(payload)
    }
    printf("%.1f\n", elapsed / n);
    return payload[0] == (char)(n - 1) ? 0 : 1;
}

static int enter_exit(long n)
{
    memset(payload, 0, sizeof payload);
    for (int i = 0; i < WARMUP; i++) {
#pragma omp target enter data map(to : payload)
#pragma omp target exit data map(from : payload)
    }
    double start = now_ns();
    for (long i = 0; i < n; i++) {
        payload[1] = (char)i;
#pragma omp target enter data map(to : payload)
#pragma omp target exit data map(from : payload)
    }
    double elapsed = now_ns() - start;
    printf("%.1f\n", elapsed / n);
    return payload[1] == (char)(n - 1) ? 0 : 1;
}

static int parallel(long n)
{
    long count = 0;
    for (int i = 0; i < WARMUP; i++) {
#pragma omp parallel
        {
#pragma omp master
            count++;
        }
    }
    double start = now_ns();
    for (long i = 0; i < n; i++) {
#pragma omp parallel
        {
#pragma omp master
            count++;
        }
    }
    double elapsed = now_ns() - start;
    printf("%.1f\n", elapsed / n);
    return count == WARMUP + n ? 0 : 1;
}

static int task(long n)
{
    long count = 0;
    double elapsed = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < WARMUP; i++) {
#pragma omp task shared(count)
            {
#pragma omp atomic
                count++;
            }
        }
#pragma omp taskwait
        double start = now_ns();
        for (long i = 0; i < n; i++) {
#pragma omp task shared(count)
            {
#pragma omp atomic
                count++;
            }
        }
#pragma omp taskwait
        elapsed = now_ns() - start;
    }
    printf("%.1f\n", elapsed / n);
    return count == WARMUP + n ? 0 : 1;
}

static int barrier(long n)
{
    double elapsed = 0;
    int threads = 0;
#pragma omp parallel
    {
        for (int i = 0; i < WARMUP; i++) {
#pragma omp barrier
        }
        double start = now_ns();
        for (long i = 0; i < n; i++) {
#pragma omp barrier
        }
#pragma omp master
        {
            elapsed = now_ns() - start;
            threads = 1;
        }
    }
    printf("%.1f\n", elapsed / n);
    return threads == 1 ? 0 : 1;
}

#define STAGE_BLOCK 250
#define STAGES 4 /* 1, 2, 3, then 0: the whole recording */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define KERNEL_ELEMENTS 8192
static double kernel_data[KERNEL_ELEMENTS];

/* One region of the kind being measured. */
static void stage_region(int kernel)
{
    if (!kernel) {
#pragma omp target map(tofrom : payload)
        payload[0]++;
        return;
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < KERNEL_ELEMENTS; i++)
        kernel_data[i] = kernel_data[i] * 0.5 + 1.0;
}

static int stages(long n, int kernel)
{
    /* The runtime loaded the tool with local symbols: find it by its path. */
    const char *tool = getenv("OMP_TOOL_LIBRARIES");
    void *lib = tool ? dlopen(tool, RTLD_NOW | RTLD_NOLOAD) : NULL;
    void (*set_stage)(int) = lib ? (void (*)(int))dlsym(lib, "offtrace_bench_set_stage") : NULL;
    if (!set_stage) {
        fprintf(stderr, "stages: run with OMP_TOOL_LIBRARIES=.../libofftrace_bench_stages.so\n");
        return 2;
    }
    static const int stage_of[STAGES] = {1, 2, 3, 0};
    int block = kernel ? STAGE_BLOCK / 5 : STAGE_BLOCK;
    long blocks = n / block / STAGES + 1;
    double *ns[STAGES];
    for (int s = 0; s < STAGES; s++)
        ns[s] = calloc(blocks, sizeof *ns[s]);
    memset(payload, 0, sizeof payload);
#pragma omp target data map(tofrom : kernel_data)
    {
        for (int i = 0; i < WARMUP / 10; i++)
            stage_region(kernel);
        for (long b = 0; b < blocks; b++)
            for (int k = 0; k < STAGES; k++) {
                int s = (int)((k + b) % STAGES); /* rotate which stage follows which */
                set_stage(stage_of[s]);
                double start = now_ns();
                for (int i = 0; i < block; i++)
                    stage_region(kernel);
                ns[s][b] = (now_ns() - start) / block;
            }
    }
    set_stage(0);
    for (int s = 0; s < STAGES; s++) {
        qsort(ns[s], blocks, sizeof *ns[s], by_value);
        printf("%s%.1f", s ? " " : "", ns[s][blocks / 2]);
    }
    printf("\n");
    return 0;
}

static int tsc(void)
{
    double t0 = now_ns();
    unsigned long long c0 = __rdtsc();
    while (now_ns() - t0 < 2e8)
        ;
    unsigned long long c1 = __rdtsc();
    double t1 = now_ns();
    printf("%.1f\n", (double)(c1 - c0) / (t1 - t0) * 1e3);
    return 0;
}

int main(int argc, char **argv)
{
    const char *op = "map64";
    int arg = 1;
    if (argc > 1 && (argv[1][0] < '0' || argv[1][0] > '9')) {
        op = argv[1];
        arg = 2;
    }
    long n = argc > arg ? atol(argv[arg]) : 200000;
    if (n < 1)
        n = 1;
    if (!strcmp(op, "map64"))
        return map64(n);
    if (!strcmp(op, "target_in_data"))
        return target_in_data(n);
    if (!strcmp(op, "update"))
        return update(n);
    if (!strcmp(op, "enter_exit"))
        return enter_exit(n);
    if (!strcmp(op, "parallel"))
        return parallel(n);
    if (!strcmp(op, "task"))
        return task(n);
    if (!strcmp(op, "barrier"))
        return barrier(n);
    if (!strcmp(op, "tsc"))
        return tsc();
    if (!strcmp(op, "stages"))
        return stages(n, 0);
    if (!strcmp(op, "stages_kernel"))
        return stages(n, 1);
    fprintf(stderr, "usage: %s [map64|target_in_data|update|enter_exit|parallel|task|barrier|tsc|stages|stages_kernel] [ITERATIONS]\n",
            argv[0]);
    return 2;
}

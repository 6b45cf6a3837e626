/*
 * The map capture's own cost per empty mapped region (issue 15): calls
 * __tgt_target_kernel as clang-19 does for `target map(tofrom: payload)`
 * (KernelArgsTy version 3, one entry of 64 bytes, its name), against
 * capture_stub.c in place of libomptarget. Run with and without
 * LD_PRELOAD=libofftrace-capture.so (run_capture.sh): the difference is
 * what the capture adds per region, without libomptarget's and the
 * machine's noise. Prints ns per region.
 *   usage: bench_capture [ITERATIONS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int __tgt_target_kernel(void *loc, int64_t device, int32_t teams, int32_t thread_limit, void *host_ptr, void *args);

typedef struct kernel_args { /* LLVM 19's KernelArgsTy, version 3 */
    uint32_t version, count;
    void **bases, **begins;
    int64_t *sizes, *types;
    void **names, **mappers;
    uint64_t tripcount, flags;
    uint32_t teams[3], threads[3], dynamic_memory;
} kernel_args;

typedef struct ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} ident;

static char payload[64];

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    static ident loc = {0, 2, 0, 27, ";capture_bench.c;main;40;1;;"};
    void *bases[] = {payload}, *names[] = {";payload;capture_bench.c;30;13;;"};
    int64_t sizes[] = {sizeof payload}, types[] = {0x23};
    kernel_args k = {3, 1, bases, bases, sizes, types, names, NULL, 0, 0, {1, 0, 0}, {1, 0, 0}, 0};
    for (long i = 0; i < 10000; i++)
        __tgt_target_kernel(&loc, -1, -1, 0, payload, &k);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++)
        __tgt_target_kernel(&loc, -1, -1, 0, payload, &k);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.2f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}

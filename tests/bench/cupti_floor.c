/*
 * The floor of device detail on an NVIDIA GPU (not a test): CUPTI alone,
 * with the activity kinds offtrace's CUPTI backend enables, its records
 * thrown away. Preloaded beside offtrace's host library (host-only), it
 * gives what CUPTI's own tracing costs the program; offtrace's device
 * detail minus this is offtrace's own part (the OMPT device callbacks, the
 * correlation push/pop, flushes, clock sync pairs, translation, recording).
 * tests/bench/run_cg.sh configurations cupti-floor and cupti-kernels.
 *
 * OFFTRACE_BENCH_CUPTI_KINDS=kernels enables only CONCURRENT_KERNEL (the
 * cost of timing kernels alone); unset: every kind the backend enables
 * (device/cupti/cupti_backend.c, wanted_kinds and DRIVER).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#define FLOOR_BUFFER_SIZE (1u << 20)

static void CUPTIAPI on_buffer_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, FLOOR_BUFFER_SIZE);
    *size = *buffer ? FLOOR_BUFFER_SIZE : 0;
    *max_records = 0;
}

static void CUPTIAPI on_buffer_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                        size_t valid_size)
{
    free(buffer);
}

__attribute__((constructor)) static void cupti_floor_start(void)
{
    static const CUpti_ActivityKind all[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_DRIVER,
    };
    const char *kinds = getenv("OFFTRACE_BENCH_CUPTI_KINDS");
    size_t n = kinds && strcmp(kinds, "kernels") == 0 ? 1 : sizeof all / sizeof all[0];
    if (cuptiActivityRegisterCallbacks(on_buffer_request, on_buffer_complete) != CUPTI_SUCCESS)
        return;
    for (size_t i = 0; i < n; i++) {
        CUptiResult r = cuptiActivityEnable(all[i]);
        if (r != CUPTI_SUCCESS || getenv("OFFTRACE_BENCH_CUPTI_VERBOSE"))
            fprintf(stderr, "cupti floor: kind %d: %d\n", (int)all[i], (int)r);
    }
}

/*
 * live_nvtx N: N target regions, each inside the NVTX range "step" (a
 * payload: its number), the main thread named; past the half, messages, a
 * domain and a start/end range first met while the program runs: for the
 * live conversion of `offtrace record -b 64K` (tests/test_live_conversion.c),
 * which reads nvtx.defs again when a record names a text or domain defined
 * after its start.
 */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000, s = 0;
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "solver");
    nvtxDomainHandle_t late = NULL;
    for (long i = 0; i < n; i++) {
        nvtxEventAttributes_t a = {0};
        a.version = NVTX_VERSION;
        a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "step";
        a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
        a.payload.llValue = i;
        nvtxRangePushEx(&a);
#pragma omp target map(tofrom: s)
        s++;
        if (i >= n / 2) {
            if (!late)
                late = nvtxDomainCreateA("late domain");
            nvtxDomainRangePushEx(late, &a);
            nvtxRangeId_t r = nvtxRangeStartA(i % 2 ? "odd" : "even");
            nvtxMarkA("late mark");
            nvtxRangeEnd(r);
            nvtxDomainRangePop(late);
        }
        nvtxRangePop();
    }
    printf("s=%ld\n", s);
    return 0;
}

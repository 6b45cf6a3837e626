/*
 * The cost of an NVTX v3 push/pop pair (docs/performance.md, "NVTX (issue
 * 14)"): PAIRS pairs of nvtxRangePushA("solve")/nvtxRangePop, then PAIRS of
 * nvtxRangePushEx with colour, category and payload, then PAIRS
 * nvtxRangePushA of a text that changes every call (the cache's miss path:
 * 64 distinct texts in a rotating buffer). Prints ns per pair for each.
 * Untraced NVTX is a no-op (a call through a pointer that returns);
 * tests/bench/run_nvtx.sh runs it untraced and under `offtrace record`,
 * interleaved, and prints medians.
 * Usage: bench_nvtx [pairs]
 */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_clock.h"

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 200000;
    if (pairs <= 0)
        pairs = 200000;
    int threads = 0;
#pragma omp parallel num_threads(1) /* starts libomp, so the recorder, before the timed part */
    threads = 1;
    for (int i = 0; i < 1000; i++) { /* warm up: NVTX's init, the thread's stream, the text table */
        nvtxRangePushA("solve");
        nvtxRangePop();
    }
    double t0 = bench_now_ns();
    for (long i = 0; i < pairs; i++) {
        nvtxRangePushA("solve");
        nvtxRangePop();
    }
    double t1 = bench_now_ns();
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = 3;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xFF00FF00u;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "assemble";
    for (long i = 0; i < pairs; i++) {
        a.payload.llValue = i;
        nvtxRangePushEx(&a);
        nvtxRangePop();
    }
    double t2 = bench_now_ns();
    char text[32] = "step 00";
    for (long i = 0; i < pairs; i++) {
        text[5] = (char)('0' + (i >> 3) % 8);
        text[6] = (char)('0' + i % 8);
        nvtxRangePushA(text); /* one pointer, another text: a cache miss every call */
        nvtxRangePop();
    }
    double t3 = bench_now_ns();
    printf("pushA_pop_ns %.1f\npushEx_pop_ns %.1f\npushA_changing_text_ns %.1f\n", (t1 - t0) / pairs,
           (t2 - t1) / pairs, (t3 - t2) / pairs);
    return threads == 1 ? 0 : 1;
}

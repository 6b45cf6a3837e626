/*
 * nvtx_phases: a program annotated for Nsight with NVTX v3 (header-only,
 * linked with -ldl only), whose ranges offtrace records through NVTX's
 * injection interface (docs/nvtx.md). Known contents, for
 * tests/test_nvtx_recording.c:
 *
 *  - "main" pushed before any OpenMP construct, popped at the end;
 *  - STEPS times: "step" (push, Ex: colour 0xFF00FF00, category 1 named
 *    "compute", int64 payload = the step), inside it "solver: assemble" (a
 *    registered string in domain "solver", double payload step + 0.5,
 *    category 2 of that domain named "matrix") around one target region,
 *    then a mark "checkpoint";
 *  - "io" started and ended on the initial thread (uint32 payload 7), and a
 *    mark in domain "solver" with a float payload 1.5 and an int32 payload
 *    range "tail" (-3) with a uint64 payload mark (uint64 max);
 *  - a parallel region of 2 threads, each pushing and popping "worker";
 *    "handoff" started on the initial thread before it and ended by thread 1
 *    inside it;
 *  - the initial thread named "driver", thread 1 "helper" (nvtxNameOsThreadA);
 *  - bad input: a pop without push, an end of an id never handed out, a push
 *    of NULL (and its pop), a wide-character mark.
 *
 * The output is the same with and without offtrace (NVTX is a no-op then).
 */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STEPS 3
#define N 4096

static nvtxEventAttributes_t attributes(uint32_t argb, uint32_t category)
{
    nvtxEventAttributes_t a = {0};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.category = category;
    a.colorType = argb ? NVTX_COLOR_ARGB : NVTX_COLOR_UNKNOWN;
    a.color = argb;
    return a;
}

int main(void)
{
    static double x[N];
    double sum = 0;
    nvtxRangePushA("main");
    nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "driver");
    nvtxNameCategoryA(1, "compute");
    nvtxDomainHandle_t solver = nvtxDomainCreateA("solver");
    nvtxDomainNameCategoryA(solver, 2, "matrix");
    nvtxStringHandle_t assemble = nvtxDomainRegisterStringA(solver, "assemble");
    for (int step = 0; step < STEPS; step++) {
        nvtxEventAttributes_t a = attributes(0xFF00FF00u, 1);
        a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
        a.payload.llValue = step;
        a.messageType = NVTX_MESSAGE_TYPE_ASCII;
        a.message.ascii = "step";
        nvtxRangePushEx(&a);
        nvtxEventAttributes_t b = attributes(0, 2);
        b.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
        b.payload.dValue = step + 0.5;
        b.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        b.message.registered = assemble;
        nvtxDomainRangePushEx(solver, &b);
#pragma omp target map(tofrom : x[0:N])
        for (int i = 0; i < N; i++)
            x[i] += i * 0.5;
        nvtxDomainRangePop(solver);
        nvtxMarkA("checkpoint");
        nvtxRangePop();
    }
    nvtxEventAttributes_t io = attributes(0xFF0000FFu, 0);
    io.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT32;
    io.payload.uiValue = 7;
    io.messageType = NVTX_MESSAGE_TYPE_ASCII;
    io.message.ascii = "io";
    nvtxRangeId_t r = nvtxRangeStartEx(&io);
    for (int i = 0; i < N; i++)
        sum += x[i];
    nvtxRangeEnd(r);
    nvtxEventAttributes_t m = attributes(0, 0);
    m.payloadType = NVTX_PAYLOAD_TYPE_FLOAT;
    m.payload.fValue = 1.5f;
    m.messageType = NVTX_MESSAGE_TYPE_ASCII;
    m.message.ascii = "converged";
    nvtxDomainMarkEx(solver, &m);
    nvtxEventAttributes_t t = attributes(0, 0);
    t.payloadType = NVTX_PAYLOAD_TYPE_INT32;
    t.payload.iValue = -3;
    t.messageType = NVTX_MESSAGE_TYPE_ASCII;
    t.message.ascii = "tail";
    nvtxRangePushEx(&t);
    nvtxEventAttributes_t u = attributes(0, 0);
    u.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
    u.payload.ullValue = UINT64_MAX;
    u.messageType = NVTX_MESSAGE_TYPE_ASCII;
    u.message.ascii = "big";
    nvtxMarkEx(&u);
    nvtxRangePop();
    nvtxRangeId_t handoff = nvtxRangeStartA("handoff");
#pragma omp parallel num_threads(2) reduction(+ : sum)
    {
        nvtxRangePushA("worker");
        sum += 1;
        nvtxRangePop();
#pragma omp barrier
        if (omp_get_thread_num() == 1) {
            nvtxNameOsThreadA((uint32_t)syscall(SYS_gettid), "helper");
            nvtxRangeEnd(handoff);
        }
    }
    /* bad input: nothing crashes, each is counted */
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangeEnd(987654321u);
    nvtxRangePushA(NULL);
    nvtxRangePop();
    nvtxMarkW(L"wide");
    printf("nvtx_phases: sum = %.1f\n", sum);
    return 0;
}

#include "clock.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

int ot_clock_use_tsc;

/* The TSC is only a clock if it ticks at a constant rate in every P- and
 * C-state (CPUID 0x80000007 EDX bit 8, "invariant TSC"). */
int ot_clock_tsc_is_invariant(void)
{
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
    return (edx >> 8) & 1u;
#else
    return 0;
#endif
}

void ot_clock_init(void)
{
    ot_clock_use_tsc = ot_clock_tsc_is_invariant();
}

ot_clock_pair ot_clock_pair_take(void)
{
    struct timespec rt;
    uint64_t before = ot_clock_monotonic_ns();
    uint64_t ticks = ot_clock_ticks();
    uint64_t after = ot_clock_monotonic_ns();
    clock_gettime(CLOCK_REALTIME, &rt);
    ot_clock_pair p;
    p.ticks = ticks;
    p.monotonic_ns = before + (after - before) / 2;
    p.realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
    return p;
}

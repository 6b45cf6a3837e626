#include "tsc_clock.h"

#include <errno.h>
#include <time.h>


static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A TSC read bracketed by two clock reads, the tightest of a few: a read
 * that was preempted would put the point microseconds off, and over a 1 ms
 * calibration every 10 ns of error is 10 ppm of rate. */
ot_tsc_point ot_tsc_clock_point(void)
{
    ot_tsc_point best = {0, 0};
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t before = monotonic_ns();
        uint64_t ticks = ot_tsc_read();
        uint64_t after = monotonic_ns();
        if (after - before < best_width) {
            best_width = after - before;
            best = (ot_tsc_point){ticks, before + (after - before) / 2};
        }
    }
    return best;
}

int ot_tsc_clock_calibrate(ot_tsc_clock *c, uint64_t span_ns)
{
    return ot_tsc_clock_calibrate_since(c, ot_tsc_clock_point(), span_ns);
}

int ot_tsc_clock_calibrate_since(ot_tsc_clock *c, ot_tsc_point a, uint64_t span_ns)
{
    while (monotonic_ns() - a.ns < span_ns)
        ;
    ot_tsc_point b = ot_tsc_clock_point();
    if (b.ticks <= a.ticks || b.ns <= a.ns)
        return -ENOTSUP;
    unsigned __int128 mult = ((unsigned __int128)(b.ns - a.ns) << 32) / (b.ticks - a.ticks);
    /* 10 MHz .. 100 GHz: anything else is not a usable counter. */
    if (mult < ((unsigned __int128)1 << 32) / 100 || mult > ((unsigned __int128)100 << 32))
        return -ENOTSUP;
    *c = (ot_tsc_clock){b.ticks, b.ns, (uint64_t)mult};
    return 0;
}

/**
 * \file tsc_clock.h
 * \brief A nanosecond clock from the CPU's time-stamp counter, calibrated
 *        once against CLOCK_MONOTONIC.
 *
 * Why: every host-offload device event reads the device clock, and
 * clock_gettime costs about 20 ns of a 40 ns record here; rdtsc plus one
 * multiply costs a few. The rate is measured over about a millisecond, so it
 * is off CLOCK_MONOTONIC's by some tens of ppm; that is harmless because the
 * (host, device) sync pairs read this same clock and the converter maps
 * device time through neighbouring pairs (offset and drift, sync/devsync.h).
 *
 *   ns = base_ns + (ticks - base_ticks) * mult / 2^32
 */
#ifndef OT_DEVICE_TSC_CLOCK_H
#define OT_DEVICE_TSC_CLOCK_H

#include <stdint.h>

typedef struct ot_tsc_clock {
    uint64_t base_ticks; /**< TSC at the calibration's end */
    uint64_t base_ns;    /**< CLOCK_MONOTONIC then */
    uint64_t mult;       /**< ns per tick, times 2^32 */
} ot_tsc_clock;

/** \brief A (TSC, CLOCK_MONOTONIC) point: the tightest of a few reads. */
typedef struct ot_tsc_point {
    uint64_t ticks, ns;
} ot_tsc_point;

/** \brief The calibration's first point, taken now. */
ot_tsc_point ot_tsc_clock_point(void);

/**
 * \brief Measure the TSC rate against CLOCK_MONOTONIC from \p start until
 *        at least \p span_ns after it (spinning for what is left of it;
 *        none when that much time has passed) and anchor the clock at the end.
 * \return 0, or -ENOTSUP when there is no TSC or its rate is implausible.
 */
int ot_tsc_clock_calibrate_since(ot_tsc_clock *c, ot_tsc_point start, uint64_t span_ns);

/** \brief ot_tsc_clock_calibrate_since from now: spins \p span_ns. */
int ot_tsc_clock_calibrate(ot_tsc_clock *c, uint64_t span_ns);

/** \brief The TSC now (0 where there is none). */
static inline uint64_t ot_tsc_read(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

/** \brief \p ticks in CLOCK_MONOTONIC-like ns. Signed, so that a read a few
 *         ticks before base_ticks on another core does not wrap. */
static inline uint64_t ot_tsc_clock_ns(const ot_tsc_clock *c, uint64_t ticks)
{
    __int128 delta = (__int128)(int64_t)(ticks - c->base_ticks) * (__int128)c->mult;
    return c->base_ns + (uint64_t)(int64_t)(delta >> 32);
}

#endif /* OT_DEVICE_TSC_CLOCK_H */

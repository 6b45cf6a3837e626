/**
 * \file device_clock.h
 * \brief The host-offload device's clock in ns: the TSC calibrated against
 *        CLOCK_MONOTONIC where it is invariant (tsc_clock.h), else
 *        CLOCK_MONOTONIC itself; CLOCK_MONOTONIC skewed by the
 *        OFFTRACE_TEST_DEVICE_CLOCK test knob when that is set.
 *
 * A host-offload device shares the host's clock, which would hide every
 * mistake of the time synchronisation. The knob makes this clock read
 *   true + offset_ns + true * drift_ppm / 1e6 + u,  u uniform in [-jitter_ns, jitter_ns]
 * so that tests (and outside checks) can see the sync undo a skew. The skew
 * is defined against CLOCK_MONOTONIC ("true"), so with the knob set the
 * clock stays on CLOCK_MONOTONIC whatever the TSC offers.
 */
#ifndef OT_DEVICE_CLOCK_H
#define OT_DEVICE_CLOCK_H

#include <stdint.h>

#include "device_config.h" /* ot_clock_skew, ot_clock_skew_parse */
#include "tsc_clock.h"

/** \brief Use \p skew from now on (NULL: no skew). Call before recording starts. */
void ot_device_clock_set_skew(const ot_clock_skew *skew);

/**
 * \brief Read the TSC from now on while no skew is set, if it is invariant;
 *        calibrates it the first time: from now to the first read, at least
 *        1 ms (the first read waits out what is left of it). Call before
 *        recording starts.
 * \return 1 when the TSC is used, 0 when the clock stays on CLOCK_MONOTONIC.
 */
int ot_device_clock_use_tsc(void);

/** \brief Read CLOCK_MONOTONIC from now on, as without an invariant TSC. */
void ot_device_clock_use_monotonic(void);

/** \brief What ot_device_clock_now reads now: "tsc", "monotonic" or "skewed monotonic". */
const char *ot_device_clock_source(void);

/** 1 while ot_device_clock_now reads the TSC (wanted, calibrated, no
 *  skew): the one flag its fast path tests. Set by device_clock.c only. */
extern int ot_device_clock_reads_tsc;
/** The TSC's calibration, valid while ot_device_clock_reads_tsc is 1. */
extern ot_tsc_clock ot_device_clock_tsc;

/** \brief ot_device_clock_now's slow path: CLOCK_MONOTONIC, the skew, or
 *         the calibration's end at the first read. */
uint64_t ot_device_clock_now_slow(void);

/**
 * \brief The device clock now, in ns.
 *
 * Inline (issue 18): every device record and team arrival reads it, about
 * eight times per host-offload kernel at the default detail, and the call
 * with its frame cost as much as the read and the multiply.
 */
static inline uint64_t ot_device_clock_now(void)
{
    if (__builtin_expect(__atomic_load_n(&ot_device_clock_reads_tsc, __ATOMIC_ACQUIRE), 1))
        return ot_tsc_clock_ns(&ot_device_clock_tsc, ot_tsc_read());
    return ot_device_clock_now_slow();
}

/** \brief Apply the configured skew to a true CLOCK_MONOTONIC time (jitter included). */
uint64_t ot_device_clock_skewed(uint64_t true_ns);

#endif /* OT_DEVICE_CLOCK_H */

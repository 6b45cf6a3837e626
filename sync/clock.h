/**
 * \file clock.h
 * \brief The host timestamp source of the recorder.
 *
 * Why not clock_gettime: on the reference machine CLOCK_MONOTONIC costs 33 ns
 * a call and an offload region fires 12 callbacks, which alone would eat the
 * 0.4 us overhead budget. An invariant TSC read costs about 16 ns. Ticks are
 * turned into CLOCK_MONOTONIC nanoseconds after the run, from (ticks, ns)
 * pairs taken now and then (ot_clock_pair) and a time map (timemap.h).
 * Without an invariant TSC the "ticks" are CLOCK_MONOTONIC nanoseconds and
 * the map is the identity.
 */
#ifndef OT_SYNC_CLOCK_H
#define OT_SYNC_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/** A sync point between the tick counter and the system clocks. */
typedef struct ot_clock_pair {
    uint64_t ticks;       /**< ot_clock_ticks() at the midpoint */
    uint64_t monotonic_ns;/**< CLOCK_MONOTONIC */
    uint64_t realtime_ns; /**< CLOCK_REALTIME, ns since 1970 */
} ot_clock_pair;

extern int ot_clock_use_tsc; /**< set once by ot_clock_init, read-only after */

/** \brief 1 when the CPU's TSC is invariant (a clock in every P- and C-state). */
int ot_clock_tsc_is_invariant(void);

/** \brief Pick the tick source; call once before any ot_clock_ticks(). */
void ot_clock_init(void);

/** \brief CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t ot_clock_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** \brief The hot-path timestamp: TSC ticks, or monotonic ns as fallback. */
static inline uint64_t ot_clock_ticks(void)
{
#if defined(__x86_64__)
    if (ot_clock_use_tsc)
        return __rdtsc();
#endif
    return ot_clock_monotonic_ns();
}

/**
 * \brief Take a sync point: the tick read is bracketed by the two clock reads
 *        so its error is at most half their distance.
 */
ot_clock_pair ot_clock_pair_take(void);

#endif /* OT_SYNC_CLOCK_H */

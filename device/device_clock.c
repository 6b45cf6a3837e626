#define _GNU_SOURCE
#include "device_clock.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "tsc_clock.h"

static int skewed;
static ot_clock_skew skew;
static int tsc_wanted, tsc_ready;
static ot_tsc_clock tsc;
/* The one flag the hot path tests: TSC wanted, calibrated, and no skew. */
static int read_tsc;

static void choose_source(void)
{
    read_tsc = tsc_wanted && tsc_ready && !skewed;
}

void ot_device_clock_set_skew(const ot_clock_skew *s)
{
    skewed = s != NULL;
    if (s)
        skew = *s;
    choose_source();
}

int ot_device_clock_use_tsc(void)
{
    static int calibrated;
    if (!calibrated) {
        calibrated = 1;
        /* 1 ms: a rate within some tens of ppm, which the sync pairs absorb,
         * for a start-up cost nobody notices. */
        tsc_ready = ot_clock_tsc_is_invariant() && ot_tsc_clock_calibrate(&tsc, 1000000) == 0;
    }
    tsc_wanted = 1;
    choose_source();
    return tsc_ready;
}

void ot_device_clock_use_monotonic(void)
{
    tsc_wanted = 0;
    choose_source();
}

const char *ot_device_clock_source(void)
{
    return read_tsc ? "tsc" : skewed ? "skewed monotonic" : "monotonic";
}

/* Per-thread xorshift: jitter must not need a lock or a shared cache line. */
static uint64_t next_random(void)
{
    static __thread uint64_t state;
    if (!state)
        state = (uint64_t)(uintptr_t)&state * 0x9E3779B97F4A7C15ull | 1;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

uint64_t ot_device_clock_skewed(uint64_t true_ns)
{
    /* Divide (not multiply by 1e-6, which is inexact) and round, so that the
     * documented formula holds to the nanosecond. */
    int64_t drifted = llround((double)true_ns * skew.drift_ppm / 1e6);
    int64_t jitter = 0;
    if (skew.jitter_ns)
        jitter = (int64_t)(next_random() % (2 * skew.jitter_ns + 1)) - (int64_t)skew.jitter_ns;
    return (uint64_t)((int64_t)true_ns + skew.offset_ns + drifted + jitter);
}

uint64_t ot_device_clock_now(void)
{
    if (__builtin_expect(read_tsc, 1))
        return ot_tsc_clock_ns(&tsc, ot_tsc_read());
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return __builtin_expect(skewed, 0) ? ot_device_clock_skewed(ns) : ns;
}

#define _GNU_SOURCE
#include "device_clock.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "tsc_clock.h"

static int skewed;
static ot_clock_skew skew;
static int tsc_wanted, tsc_ready;
ot_tsc_clock ot_device_clock_tsc;
/* The one flag the hot path tests: TSC wanted, calibrated, and no skew. */
int ot_device_clock_reads_tsc;
/* The calibration's first point, taken when the library is loaded (the
 * collector is preloaded: the program's libraries load after it, the
 * runtime starts, and only then the collector opens); its end comes with
 * the first read, normally long after 1 ms: nobody waits for it. */
static int calibrating; /* atomic */
static ot_tsc_point calibration_start, point_at_load;
static pthread_mutex_t calibration_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((constructor)) static void take_point_at_load(void)
{
    if (ot_clock_tsc_is_invariant())
        point_at_load = ot_tsc_clock_point();
}

static void choose_source(void)
{
    int calibrated = !__atomic_load_n(&calibrating, __ATOMIC_ACQUIRE);
    __atomic_store_n(&ot_device_clock_reads_tsc, tsc_wanted && tsc_ready && calibrated && !skewed, __ATOMIC_RELEASE);
}

/* 1 ms: a rate within some tens of ppm, which the sync pairs absorb. */
static void finish_calibration(void)
{
    pthread_mutex_lock(&calibration_lock);
    if (calibrating) {
        tsc_ready = ot_tsc_clock_calibrate_since(&ot_device_clock_tsc, calibration_start, 1000000) == 0;
        __atomic_store_n(&calibrating, 0, __ATOMIC_RELEASE);
        choose_source();
    }
    pthread_mutex_unlock(&calibration_lock);
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
    static int started;
    if (!started) {
        started = 1;
        if (ot_clock_tsc_is_invariant()) {
            calibration_start = point_at_load.ns ? point_at_load : ot_tsc_clock_point();
            tsc_ready = 1; /* unless the calibration's end finds an implausible rate */
            __atomic_store_n(&calibrating, 1, __ATOMIC_RELEASE);
        }
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
    if (tsc_wanted && !skewed && __atomic_load_n(&calibrating, __ATOMIC_ACQUIRE))
        finish_calibration();
    return ot_device_clock_reads_tsc ? "tsc" : skewed ? "skewed monotonic" : "monotonic";
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

uint64_t ot_device_clock_now_slow(void)
{
    if (tsc_wanted && !skewed && __atomic_load_n(&calibrating, __ATOMIC_ACQUIRE)) { /* the first read */
        finish_calibration();
        return ot_device_clock_now();
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return __builtin_expect(skewed, 0) ? ot_device_clock_skewed(ns) : ns;
}

/**
 * \file measurement.c
 * \brief Measurement control (measurement.h): the on/off state, its raw
 *        MEASUREMENT records, the flush.
 *
 * Why a plain global and not a per-thread flag: a switch is process-wide
 * (Score-P's and omp_control_tool's meaning), and a relaxed load of one
 * shared, almost never written line costs the callbacks nothing measurable
 * (docs/performance.md, "Measurement control"). Switches are serialised by
 * a mutex so that the raw records of two racing switches agree with the
 * state each left behind.
 */
#define _GNU_SOURCE
#include "measurement.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>

#include "clock.h"
#include "stream.h"

#define OT_EXPORT __attribute__((visibility("default")))

int ot_measurement_state = 1;

static pthread_mutex_t switch_lock = PTHREAD_MUTEX_INITIALIZER;
static ot_measurement_region_probe region_probe;
static int ended; /* omp_control_tool_end: no switch on after it */

/* The switch as a record of the calling thread's stream; subkind 1 on, 0
 * off. */
static void put_switch(int on)
{
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve();
    offtrace_raw_record r = {
        .time = now,
        .subkind = (uint8_t)on,
        .endpoint = (uint8_t)(on ? OFFTRACE_RAW_END : OFFTRACE_RAW_BEGIN), /* the off window: BEGIN at off */
        .event = OFFTRACE_RAW_MEASUREMENT,
    };
    ot_stream_store(slot, &r);
}

/* A start paused is a switch off at the start, on the initialising thread
 * (normally the one that switches on again): its window is balanced. */
void ot_measurement_init(ot_measurement_region_probe probe, int start_on)
{
    region_probe = probe;
    if (!start_on) {
        put_switch(0);
        __atomic_store_n(&ot_measurement_state, 0, __ATOMIC_RELAXED);
    }
}

OT_EXPORT int ot_measurement_set(int on)
{
    on = on ? 1 : 0;
    const char *region = NULL;
    if (region_probe && region_probe(&region)) {
        fprintf(stderr, "offtrace: measurement %s refused inside a %s region; switch outside parallel and target "
                        "regions\n", on ? "on" : "off", region ? region : "parallel");
        return -EBUSY;
    }
    pthread_mutex_lock(&switch_lock);
    int rc = 0;
    if (ended && on) {
        rc = -EBUSY;
    } else if (__atomic_load_n(&ot_measurement_state, __ATOMIC_RELAXED) != on) {
        if (!on)
            put_switch(0); /* recorded before the switch: the record is in the window it opens */
        __atomic_store_n(&ot_measurement_state, on, __ATOMIC_RELAXED);
        if (on)
            put_switch(1);
    }
    pthread_mutex_unlock(&switch_lock);
    return rc;
}

OT_EXPORT int ot_measurement_is_on(void)
{
    return ot_measurement_recording();
}

OT_EXPORT int ot_measurement_flush(void)
{
    ot_stream *s = ot_stream_current;
    if (!s || !s->end)
        return 0;
    size_t chunk = ot_the_session.chunk_bytes;
    if (msync((char *)s->end - chunk, chunk, MS_SYNC) != 0)
        return -errno;
    return 0;
}

int ot_measurement_end(void)
{
    int rc = ot_measurement_set(0);
    if (rc == 0) {
        pthread_mutex_lock(&switch_lock);
        ended = 1;
        pthread_mutex_unlock(&switch_lock);
        rc = ot_measurement_flush();
    }
    return rc;
}

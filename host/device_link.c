/**
 * \file device_link.c
 * \brief Host side of the collector interface; see device_link.h.
 *
 * Sync points go into the calling thread's record stream (a SYNC record), so
 * they are ordered with the target records they belong to and survive a
 * crash like every other record. Delivered device records go to the
 * device's sink (device_sink.h).
 */
#define _GNU_SOURCE
#include "device_link.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "device_sink.h"
#include "offtrace/collector.h"
#include "offtrace/raw_format.h"
#include "session.h"
#include "stream.h"

#define MAX_LINKED OT_SINK_MAX_DEVICES

uint64_t ot_device_link_attached;
uint64_t ot_device_link_wants_operations;

/* Until a device wants the host OpenMP events, forwarding them does
 * nothing: the callbacks that forward may then be registered at any time
 * (today once such a device attaches; with host records, at start-up). */
static void no_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
}
static void no_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
}
static void no_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
}
static void no_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                    uint64_t count, const void *codeptr)
{
}
static void no_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr)
{
}
static void no_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task, int flags,
                           int has_dependences, const void *codeptr)
{
}
static void no_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
}

int ot_device_link_forwards_openmp;

static int no_device_work(void)
{
    return 0;
}

offtrace_collector_openmp ot_device_link_openmp = {
    .parallel_begin = no_parallel_begin,
    .parallel_end = no_parallel_end,
    .implicit_task = no_implicit_task,
    .work = no_work,
    .sync_region = no_sync_region,
    .task_create = no_task_create,
    .task_schedule = no_task_schedule,
    .in_device_work = no_device_work,
};

static const offtrace_collector *collector;

static void deliver(void *context, int num, const offtrace_device_record *records, size_t count)
{
    ot_device_sink_append(num, records, count);
}

void ot_device_link_open(void)
{
    offtrace_collector_entry_fn entry =
        (offtrace_collector_entry_fn)dlsym(RTLD_DEFAULT, OFFTRACE_COLLECTOR_ENTRY_NAME);
    if (!entry) {
        /* `offtrace record --host-only` runs at verbosity 0: the user chose this. */
        if (ot_the_session.verbose)
            fprintf(stderr, "offtrace: no device collector preloaded (LD_PRELOAD=.../libofftrace-device.so); "
                            "tracing without device detail\n");
        return;
    }
    const offtrace_collector *c = entry(OFFTRACE_COLLECTOR_INTERFACE_VERSION);
    if (!c || c->interface_version != OFFTRACE_COLLECTOR_INTERFACE_VERSION ||
        c->record_size != sizeof(offtrace_device_record)) {
        fprintf(stderr, "offtrace: the preloaded device collector speaks interface version %u, this library %u; "
                        "tracing without device detail\n",
                c ? c->interface_version : 0u, OFFTRACE_COLLECTOR_INTERFACE_VERSION);
        return;
    }
    const offtrace_collector_openmp *o = &c->openmp;
    if (!o->parallel_begin || !o->parallel_end || !o->implicit_task || !o->work || !o->sync_region ||
        !o->task_create || !o->task_schedule || !o->in_device_work) {
        fprintf(stderr, "offtrace: the preloaded device collector (%s) lacks handlers of host OpenMP events; "
                        "tracing without device detail\n", c->name ? c->name : "?");
        return;
    }
    offtrace_collector_host host = {
        .interface_version = OFFTRACE_COLLECTOR_INTERFACE_VERSION,
        .deliver = deliver,
        .verbose = ot_the_session.verbose,
    };
    if (c->open(&host) != 0)
        return; /* the collector has said why */
    collector = c;
}

/* A (host, device) clock pair: host ticks halfway through the device read.
 * A read that took long (the thread was preempted, a page fault) leaves the
 * device time anywhere inside a wide window, so the tightest of up to three
 * tries is kept, and its width goes with it for the converter to judge. */
#define SYNC_TRIES 3
#define SYNC_TIGHT_TICKS 1024u /* a few hundred ns on a GHz-class clock */

static void take_sync_point(int num, uint64_t target_id, uint8_t reason)
{
    uint64_t best_width = UINT64_MAX, best_middle = 0, best_device = 0;
    for (int i = 0; i < SYNC_TRIES && best_width > SYNC_TIGHT_TICKS; i++) {
        uint64_t before = ot_clock_ticks();
        uint64_t device_time = collector->device_time(num);
        uint64_t after = ot_clock_ticks();
        if (after - before < best_width) {
            best_width = after - before;
            best_middle = before + (after - before) / 2;
            best_device = device_time;
        }
    }
    offtrace_raw_record *slot = ot_stream_reserve();
    offtrace_raw_record r = {
        .time = best_middle,
        .target_id = target_id,
        .bytes = best_device,
        .src_addr = best_width,
        .dst_device = (int16_t)num,
        .subkind = reason,
        .event = OFFTRACE_RAW_SYNC,
    };
    ot_stream_store(slot, &r);
}

/* Target begin and end take a sync pair, and target end flushes, at most
 * once per PACE_TICKS per device (about a millisecond on a GHz-class TSC,
 * exactly one on the CLOCK_MONOTONIC fallback): a fine kernel of 10 us then
 * pays neither on most launches (issue 18), while the map still has a pair
 * at least every millisecond of target activity (devsync.h interpolates
 * between them: its error is the pairs' own, however far apart they are)
 * and a device thread's buffer holds at most a millisecond of records
 * (far below OFFTRACE_DEVICE_BUFFER_SIZE) besides the current region's. */
#define PACE_TICKS (1u << 20)
static uint64_t last_sync[MAX_LINKED], last_flush[MAX_LINKED]; /* atomic: ot_clock_ticks() */

/* Whether the paced action whose last time is \p last is due at \p now;
 * one thread of those asking at once gets it. */
static int due(uint64_t *last, uint64_t now)
{
    uint64_t before = __atomic_load_n(last, __ATOMIC_RELAXED);
    return now - before >= PACE_TICKS &&
           __atomic_compare_exchange_n(last, &before, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

int ot_device_link_present(void)
{
    return collector != NULL;
}

int ot_device_link_attach(int num, const char *type, ompt_device_t *device, ompt_function_lookup_t lookup)
{
    if (!collector || num < 0 || num >= MAX_LINKED)
        return 0;
    offtrace_collector_device_info info = {0};
    int rc = collector->attach(num, type, device, lookup, &info);
    if (rc != 0) {
        if (ot_the_session.verbose)
            fprintf(stderr, "offtrace: device %d (%s): %s; no device detail for it\n", num, type ? type : "?",
                    rc == -ENOTSUP ? "no collector backend serves it" : strerror(-rc));
        return 0;
    }
    ot_device_sink_set_backend(num, info.backend);
    __atomic_fetch_or(&ot_device_link_attached, 1ull << num, __ATOMIC_RELEASE);
    if (info.wants_operations)
        __atomic_fetch_or(&ot_device_link_wants_operations, 1ull << num, __ATOMIC_RELEASE);
    take_sync_point(num, 0, OFFTRACE_RAW_SYNC_ATTACH);
    if (!info.wants_host_openmp)
        return 0;
    ot_device_link_openmp = collector->openmp;
    __atomic_store_n(&ot_device_link_forwards_openmp, 1, __ATOMIC_RELEASE);
    return 1;
}

void ot_device_link_target_begin(int num, uint64_t target_id, int kind, uint64_t now)
{
    collector->target_begin(num, target_id, kind);
    if (due(&last_sync[num], now))
        take_sync_point(num, target_id, OFFTRACE_RAW_SYNC_TARGET_BEGIN);
}

void ot_device_link_target_end(int num, uint64_t target_id, int kind, uint64_t now)
{
    collector->target_end(num, target_id, kind);
    if (due(&last_sync[num], now))
        take_sync_point(num, target_id, OFFTRACE_RAW_SYNC_TARGET_END);
    if (due(&last_flush[num], now))
        collector->flush(num);
}

void ot_device_link_operation_begin(int num, uint64_t target_id, uint64_t op_id)
{
    collector->operation_begin(num, target_id, op_id);
}

void ot_device_link_operation_end(int num, uint64_t op_id)
{
    collector->operation_end(num, op_id);
}

void ot_device_link_finish_device(int num)
{
    /* The bit is taken first and atomically: the exit path (another thread,
     * or later) finishes only devices still attached, each exactly once. */
    if (!collector || num < 0 || num >= MAX_LINKED ||
        !(__atomic_fetch_and(&ot_device_link_attached, ~(1ull << num), __ATOMIC_ACQ_REL) >> num & 1u))
        return;
    collector->flush(num);
    take_sync_point(num, 0, OFFTRACE_RAW_SYNC_DETACH);
    collector->detach(num);
}

void ot_device_link_finish(void)
{
    if (!collector)
        return;
    for (int num = 0; num < MAX_LINKED; num++)
        ot_device_link_finish_device(num);
    collector->close();
    ot_device_sink_close_all();
    collector = NULL;
}

void ot_device_link_forget(void)
{
    ot_device_link_attached = 0;
    ot_device_link_wants_operations = 0;
}

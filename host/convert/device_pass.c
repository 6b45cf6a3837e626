/**
 * \file device_pass.c
 * \brief Write what the device collector recorded: one location per device
 *        thread (or device stream), its regions placed on the host timeline.
 *
 * Device times go to host time through the device's sync map (sync/devsync).
 * Each record belongs to a host target region (its target_id) and is kept
 * inside it: a time the map puts outside (clock read jitter, or a team
 * worker that reports leaving its last barrier only when it is woken for the
 * next parallel region) is clamped to the region's edge and counted. A
 * record naming a target region the host never recorded is dropped and
 * counted (only damage makes one). Time
 * never goes back on a location; an END that does not close the innermost
 * open region is dropped and counted, and regions still open at the end are
 * closed at the location's last time and counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"

#define MAX_NESTING 64
#define NO_THREAD UINT32_MAX

typedef struct location_key {
    uint32_t thread;
    uint8_t stream;
    size_t count;
    size_t *indices; /* a slice of the sorted index array */
} location_key;

typedef struct open_region {
    uint8_t kind, subkind;
    OTF2_RegionRef region;
} open_region;

static const offtrace_device_record *sort_base;

static uint8_t is_stream(const offtrace_device_record *r)
{
    return (r->flags & OFFTRACE_DEVICE_FLAG_STREAM) ? 1 : 0;
}

static int by_location(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const offtrace_device_record *x = &sort_base[i], *y = &sort_base[j];
    if (is_stream(x) != is_stream(y))
        return is_stream(x) - is_stream(y);
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return i < j ? -1 : i > j; /* keep each location's records in file order */
}

/* Records of one thread are spread over the file by flush; gather each
 * location's record indices, keeping their order. Sorting (not a search per
 * record) keeps a file of many locations, damaged or not, n log n. */
static int partition(const ot_raw_device_stream *ds, size_t **all, location_key **keys, size_t *n)
{
    if (!ds->count)
        return 0;
    size_t *order = malloc(ds->count * sizeof *order);
    if (!order)
        return -ENOMEM;
    for (size_t i = 0; i < ds->count; i++)
        order[i] = i;
    sort_base = ds->records;
    qsort(order, ds->count, sizeof *order, by_location);
    *all = order;
    size_t capacity = 0;
    for (size_t i = 0; i < ds->count; i++) {
        const offtrace_device_record *r = &ds->records[order[i]];
        location_key *last = *n ? &(*keys)[*n - 1] : NULL;
        if (last && last->thread == r->thread && last->stream == is_stream(r)) {
            last->count++;
            continue;
        }
        if (*n == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            location_key *k = realloc(*keys, capacity * sizeof *k);
            if (!k)
                return -ENOMEM;
            *keys = k;
        }
        (*keys)[(*n)++] = (location_key){r->thread, is_stream(r), 1, &order[i]};
    }
    return 0;
}

/* Device queues (CUPTI, OMPT tracing) may hand an activity over in a later
 * delivery than a younger one of the same queue: order each queue by time.
 * Device threads are already in order (one writer each). */

static int by_time(const void *a, const void *b)
{
    const offtrace_device_record *x = &sort_base[*(const size_t *)a], *y = &sort_base[*(const size_t *)b];
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    /* stable: keep delivery order among equal times (a BEGIN before its END) */
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void order_queue(const ot_raw_device_stream *ds, location_key *k)
{
    sort_base = ds->records;
    qsort(k->indices, k->count, sizeof *k->indices, by_time);
}

/* Host time of a record; -1 when it names a target region the host never
 * recorded (a damaged record: its time could lie anywhere). */
static int place(converter *c, const device_state *d, const offtrace_device_record *r, uint64_t last,
                 uint64_t *at)
{
    uint64_t t = ot_devsync_to_host(d->sync, r->time), begin, end;
    if (ot_target_spans_get(c->spans, r->target_id, &begin, &end) == 0) {
        if (t < begin || t > end)
            c->device_clamped++;
        t = t < begin ? begin : t > end ? end : t;
    } else if (r->target_id != 0) {
        return -1;
    }
    *at = t < last ? last : t;
    return 0;
}

static void write_lost(converter *c, OTF2_EvtWriter *w, const offtrace_device_record *r, uint64_t t)
{
    OTF2_RegionRef region = ot_device_region(c->device_regions, r);
    c->device_lost += r->value;
    OTF2_EvtWriter_Enter(w, NULL, t, region);
    OTF2_EvtWriter_Leave(w, NULL, t, region);
}

static void write_location(converter *c, const device_state *d, const ot_raw_device_stream *ds,
                           const location_key *k, OTF2_EvtWriter *w)
{
    open_region open[MAX_NESTING];
    size_t depth = 0;
    uint64_t last = 0;
    for (size_t i = 0; i < k->count; i++) {
        const offtrace_device_record *r = &ds->records[k->indices[i]];
        uint64_t t;
        if (place(c, d, r, last, &t) != 0) {
            c->device_records_of_unknown_targets++;
            continue;
        }
        last = t;
        ot_tw_cover(c->tw, t);
        if (r->endpoint == OFFTRACE_DEVICE_BEGIN && depth < MAX_NESTING) {
            open[depth] = (open_region){r->kind, r->subkind, ot_device_region(c->device_regions, r)};
            OTF2_EvtWriter_Enter(w, NULL, t, open[depth++].region);
        } else if (r->endpoint == OFFTRACE_DEVICE_END && depth && open[depth - 1].kind == r->kind &&
                   open[depth - 1].subkind == r->subkind) {
            OTF2_EvtWriter_Leave(w, NULL, t, open[--depth].region);
        } else if (r->kind == OFFTRACE_DEVICE_LOST) {
            write_lost(c, w, r, t);
        } else {
            c->device_unmatched++;
        }
    }
    c->device_open_at_end += depth;
    while (depth)
        OTF2_EvtWriter_Leave(w, NULL, last, open[--depth].region);
}

/* A device thread's location id carries its number (docs/trace-model.md);
 * a queue's carries its ordinal on the device. 16 bits each: a location that
 * does not fit, or whose id a second file of the same device already took,
 * gets none, and its records are counted. */
static OTF2_EvtWriter *add_location(converter *c, device_state *d, const location_key *k)
{
    char name[96];
    uint64_t id, number = k->stream ? d->queue_locations : k->thread;
    if (number > 0xFFFF)
        return NULL;
    if (k->stream) {
        snprintf(name, sizeof name, "device %d queue %u", d->num, k->thread);
        id = 3ull << 32 | (uint64_t)(d->num & 0xFFFF) << 16 | number;
    } else {
        snprintf(name, sizeof name, "device %d thread %u", d->num, k->thread);
        id = 2ull << 32 | (uint64_t)(d->num & 0xFFFF) << 16 | number;
    }
    if (ot_tw_has_location(c->tw, id))
        return NULL;
    OTF2_EvtWriter *w = ot_tw_add_location(c->tw, id, name, k->stream ? OT_LOC_DEVICE_STREAM : OT_LOC_DEVICE_THREAD,
                                           d->num, 0, NULL);
    if (w && k->stream)
        d->queue_locations++;
    return w;
}

int ot_cv_device_records(converter *c, const ot_raw_device_stream *ds)
{
    c->device_records += ds->count;
    c->device_lost += ds->header.lost_records + ds->torn_records;
    device_state *d = ot_cv_device(c, ds->header.device_num);
    if (!d || !d->used || !d->sync) {
        c->device_records_without_device += ds->count;
        return 0;
    }
    location_key *keys = NULL;
    size_t n = 0, *order = NULL;
    int rc = partition(ds, &order, &keys, &n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (keys[i].thread == NO_THREAD) { /* losses of threads that had no buffer */
            for (size_t j = 0; j < keys[i].count; j++)
                c->device_lost += ds->records[keys[i].indices[j]].value;
            continue;
        }
        if (keys[i].stream)
            order_queue(ds, &keys[i]);
        OTF2_EvtWriter *w = add_location(c, d, &keys[i]);
        if (!w) {
            c->device_records_without_location += keys[i].count;
            continue;
        }
        c->device_locations++;
        write_location(c, d, ds, &keys[i], w);
        ot_tw_end_location(c->tw, w);
    }
    free(order);
    free(keys);
    return rc;
}

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
 *
 * Memory does not grow with the file: a first pass gathers the file's
 * locations (device threads and queues; a handful); then, for each batch of
 * LOCATIONS_AT_ONCE of them, a pass writes their records, device threads as
 * they come (each is in order in the file), queues through a sort by time
 * (external_sort.h). Only a damaged file has so many locations that it is
 * read more than twice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "external_sort.h"

#define MAX_NESTING 64
#define NO_THREAD UINT32_MAX
/* Locations written by one pass over the file: each holds an OTF2 writer
 * (up to 1 MiB of events) while the pass runs. */
#define LOCATIONS_AT_ONCE 64

/* A location of the file: a device thread or a queue, and its records. */
typedef struct location_key {
    uint32_t thread;
    uint8_t stream;
    uint64_t records;
} location_key;

typedef struct open_region {
    uint8_t kind, subkind;
    OTF2_RegionRef region;
} open_region;

/* A location being written: its writer and the regions open on it. */
typedef struct location_state {
    OTF2_EvtWriter *writer; /* NULL: no location (its records are counted) */
    open_region open[MAX_NESTING];
    size_t depth;
    uint64_t last;
    /* A queue's kernel BEGIN waits for its END (the next record of the
     * queue: activities on one queue do not overlap) so that its Enter
     * carries the whole launch configuration, which the collector splits
     * over the two records (collector.h). */
    offtrace_device_record held;
    uint64_t held_at;
    int holding;
    OTF2_AttributeList *attributes; /* made at the first activity with detail */
    const ot_timemap *clock_map;    /* the device's clock map (NULL: none, the identity) */
    ot_timemap_hint clock;          /* its segment this location's records are in */
    /* The target region this location's last record was placed in (0: none): a location's records come in runs
     * of one region (issue 18, twelfth round: its look-up was 28 instructions a record). The host pass has put
     * every span before the device pass runs (convert.c), so a span found stays what it is. */
    uint64_t span_id, span_begin, span_end;
} location_state;

/* A queue record on its way through the sort: queues are ordered by time,
 * equal times in file order. */
typedef struct queued {
    offtrace_device_record r;
    uint64_t index;
    size_t location;
} queued;

static uint8_t is_stream(const offtrace_device_record *r)
{
    return (r->flags & OFFTRACE_DEVICE_FLAG_STREAM) ? 1 : 0;
}

static int by_location(const void *a, const void *b)
{
    const location_key *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream - y->stream;
    return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int by_time(const void *a, const void *b)
{
    const queued *x = a, *y = b;
    if (x->r.time != y->r.time)
        return x->r.time < y->r.time ? -1 : 1;
    /* stable: keep delivery order among equal times (a BEGIN before its END) */
    return x->index < y->index ? -1 : x->index > y->index;
}

/* ---- the file's locations ---- */

typedef struct location_set {
    location_key *keys; /* sorted by (queue?, number) once gathered */
    size_t count, capacity;
    size_t *slots;      /* while gathering: open addressing to keys, SIZE_MAX empty */
    size_t slot_capacity;
    size_t last;        /* the one found last: a location's records come in runs */
} location_set;

static uint64_t key_hash(uint32_t thread, uint8_t stream)
{
    return ((uint64_t)thread << 1 | stream) * 0x9E3779B97F4A7C15ull >> 20;
}

static int slots_grow(location_set *set)
{
    size_t capacity = set->slot_capacity ? set->slot_capacity * 2 : 64;
    size_t *slots = malloc(capacity * sizeof *slots);
    if (!slots)
        return -ENOMEM;
    memset(slots, 0xFF, capacity * sizeof *slots);
    for (size_t i = 0; i < set->count; i++) {
        size_t j = key_hash(set->keys[i].thread, set->keys[i].stream) & (capacity - 1);
        while (slots[j] != SIZE_MAX)
            j = (j + 1) & (capacity - 1);
        slots[j] = i;
    }
    free(set->slots);
    set->slots = slots;
    set->slot_capacity = capacity;
    return 0;
}

/* Count \p r in its location's records (the location new if need be);
 * *at: the location's index. */
static int gather_one(location_set *set, const offtrace_device_record *r, size_t *at)
{
    if ((set->count + 1) * 2 > set->slot_capacity && slots_grow(set) != 0)
        return -ENOMEM;
    size_t j = key_hash(r->thread, is_stream(r)) & (set->slot_capacity - 1);
    for (; set->slots[j] != SIZE_MAX; j = (j + 1) & (set->slot_capacity - 1)) {
        location_key *k = &set->keys[set->slots[j]];
        if (k->thread == r->thread && k->stream == is_stream(r)) {
            k->records++;
            *at = set->slots[j];
            return 0;
        }
    }
    if (set->count == set->capacity) {
        size_t grown = set->capacity ? set->capacity * 2 : 16;
        location_key *more = realloc(set->keys, grown * sizeof *more);
        if (!more)
            return -ENOMEM;
        set->keys = more;
        set->capacity = grown;
    }
    set->keys[set->count] = (location_key){r->thread, is_stream(r), 1};
    *at = set->slots[j] = set->count++;
    return 0;
}

/* The first pass: every location of the file and its number of records. */
static int gather_locations(const ot_raw_device_stream *ds, location_set *set)
{
    ot_raw_device_cursor cur;
    if (ot_raw_device_cursor_open(&cur, ds) != 0)
        return -ENOMEM;
    int rc = 0;
    /* the location of the record before (run: its index): a thread's records come in runs */
    size_t index, run = SIZE_MAX;
    uint32_t run_thread = 0;
    uint8_t run_stream = 0;
    for (const offtrace_device_record *r; rc == 0 && (r = ot_raw_device_cursor_next(&cur, &index));) {
        if (run != SIZE_MAX && r->thread == run_thread && is_stream(r) == run_stream) {
            set->keys[run].records++;
            continue;
        }
        rc = gather_one(set, r, &run);
        run_thread = r->thread;
        run_stream = is_stream(r);
    }
    ot_raw_device_cursor_close(&cur);
    free(set->slots);
    set->slots = NULL;
    if (set->count)
        qsort(set->keys, set->count, sizeof *set->keys, by_location);
    return rc;
}

/* Index of a record's location, SIZE_MAX if the first pass did not see it. */
static size_t location_of(location_set *set, const offtrace_device_record *r)
{
    location_key key = {r->thread, is_stream(r), 0};
    if (set->count && !by_location(&set->keys[set->last], &key))
        return set->last;
    const location_key *found = bsearch(&key, set->keys, set->count, sizeof key, by_location);
    if (!found)
        return SIZE_MAX;
    return set->last = (size_t)(found - set->keys);
}

/* ---- writing ---- */

/* Host time of a record; -1 when it names a target region the host never
 * recorded (a damaged record, or the host's records of it were lost: its
 * time could lie anywhere), -2 when its location has already gone past the
 * end of its target region (the host's records were lost and the region
 * closed early): it cannot be shown inside its region; -3 when its kernel
 * was launched while recording was off (left out by design). */
static int place(converter *c, location_state *l, const offtrace_device_record *r, uint64_t *at)
{
    /* ot_devsync_to_host_hinted, inline */
    uint64_t t = l->clock_map ? ot_timemap_apply_quickly(l->clock_map, r->time, &l->clock) : r->time;
    uint64_t begin = 0, end = UINT64_MAX, last = l->last;
    if (r->target_id == OT_CV_TARGET_ID_WHILE_OFF) /* launched while recording was off (measurement.h) */
        return -3;
    int found = r->target_id == l->span_id && r->target_id;
    if (found) {
        begin = l->span_begin;
        end = l->span_end;
    } else if ((found = ot_target_spans_get(c->spans, r->target_id, &begin, &end) == 0)) {
        l->span_id = r->target_id;
        l->span_begin = begin;
        l->span_end = end;
    }
    if (found) {
        if (t < begin || t > end)
            c->device_clamped++;
        if (t < begin && begin - t > c->device_clamped_max_before_ns)
            c->device_clamped_max_before_ns = begin - t;
        if (t > end && t - end > c->device_clamped_max_after_ns)
            c->device_clamped_max_after_ns = t - end;
        t = t < begin ? begin : t > end ? end : t;
    } else if (r->target_id != 0) {
        return -1;
    }
    *at = t < last ? last : t;
    return *at > end ? -2 : 0;
}

static void write_lost(converter *c, OTF2_EvtWriter *w, const offtrace_device_record *r, uint64_t t)
{
    OTF2_RegionRef region = ot_device_region(c->device_regions, r);
    c->device_lost += r->value;
    ot_tw_enter(w, NULL, t, region);
    ot_tw_leave(w, NULL, t, region);
}

/* ---- device activity detail (issue 17): attributes on the Enter ---- */

static void add_string(converter *c, OTF2_AttributeList *a, OTF2_AttributeRef ref, const char *text)
{
    OTF2_AttributeList_AddStringRef(a, ref, ot_tw_string(c->tw, text));
}

/* The attributes of an activity whose BEGIN is \p begin (and END \p end,
 * NULL where unknown); NULL when it has none. The host operation that
 * caused it (its launch, its data op) goes without the collector's submit
 * bit: it is the id the host's launch or data op carries (host_pass.c). */
static OTF2_AttributeList *activity_detail(converter *c, location_state *l, const offtrace_device_record *begin,
                                           const offtrace_device_record *end)
{
    int copy = begin->kind == OFFTRACE_DEVICE_MEMCPY || begin->kind == OFFTRACE_DEVICE_MEMSET;
    int kernel = begin->kind == OFFTRACE_DEVICE_KERNEL && (begin->value || (end && (end->value || end->codeptr)));
    uint64_t op = begin->op_id & ~OFFTRACE_OPERATION_SUBMIT_BIT;
    if (!(begin->flags & OFFTRACE_DEVICE_FLAG_STREAM) || !((copy && begin->value) || kernel || op))
        return NULL;
    if (!l->attributes && !(l->attributes = OTF2_AttributeList_New()))
        return NULL;
    OTF2_AttributeList *a = l->attributes;
    char text[64];
    if (op)
        OTF2_AttributeList_AddUint64(a, OFFTRACE_ACTIVITY_ATTR_HOST_OPERATION, op);
    if (copy) {
        if (begin->value)
            OTF2_AttributeList_AddUint64(a, OFFTRACE_ACTIVITY_ATTR_BYTES, begin->value);
        return a;
    }
    if (!kernel)
        return a;
    if (begin->value) {
        snprintf(text, sizeof text, "%llux%llux%llu", (unsigned long long)(begin->value & 0xffffffffu),
                 (unsigned long long)(begin->value >> 32 & 0xffffu), (unsigned long long)(begin->value >> 48));
        add_string(c, a, OFFTRACE_ACTIVITY_ATTR_GRID, text);
    }
    if (end && end->value) {
        snprintf(text, sizeof text, "%llux%llux%llu", (unsigned long long)(end->value & 0xffffu),
                 (unsigned long long)(end->value >> 16 & 0xffffu), (unsigned long long)(end->value >> 32 & 0xffffu));
        add_string(c, a, OFFTRACE_ACTIVITY_ATTR_BLOCK, text);
        OTF2_AttributeList_AddUint32(a, OFFTRACE_ACTIVITY_ATTR_REGISTERS, (uint32_t)(end->value >> 48));
    }
    if (end && end->codeptr)
        OTF2_AttributeList_AddUint32(a, OFFTRACE_ACTIVITY_ATTR_SHARED_MEMORY,
                                     end->codeptr > UINT32_MAX ? UINT32_MAX : (uint32_t)end->codeptr);
    return a;
}

/* A team summary (collector.h, OFFTRACE_DEVICE_FLAG_SUMMARY) as the
 * attributes of its region's Leave; NULL when \p end is no summary. */
static OTF2_AttributeList *team_summary(location_state *l, const offtrace_device_record *end)
{
    if (end->kind != OFFTRACE_DEVICE_PARALLEL || !(end->flags & OFFTRACE_DEVICE_FLAG_SUMMARY))
        return NULL;
    if (!l->attributes && !(l->attributes = OTF2_AttributeList_New()))
        return NULL;
    uint32_t threads = offtrace_team_summary_threads(end->value);
    uint64_t sum = offtrace_team_summary_sum(end->value);
    OTF2_AttributeList_AddUint32(l->attributes, OFFTRACE_TEAM_ATTR_THREADS, threads);
    OTF2_AttributeList_AddUint64(l->attributes, OFFTRACE_TEAM_ATTR_EARLIEST_ARRIVAL, end->op_id);
    OTF2_AttributeList_AddUint64(l->attributes, OFFTRACE_TEAM_ATTR_MEAN_ARRIVAL, threads ? sum / threads : 0);
    OTF2_AttributeList_AddUint64(l->attributes, OFFTRACE_TEAM_ATTR_LATEST_ARRIVAL, end->codeptr);
    return l->attributes;
}

/* The held kernel's Enter, with what its END (\p end, NULL: none came) adds. */
static void release_held(converter *c, location_state *l, const offtrace_device_record *end)
{
    l->holding = 0;
    ot_tw_enter(l->writer, activity_detail(c, l, &l->held, end), l->held_at, l->open[l->depth - 1].region);
}

static void write_record(converter *c, location_state *l, const offtrace_device_record *r)
{
    uint64_t t;
    if (l->holding)
        release_held(c, l, r->endpoint == OFFTRACE_DEVICE_END && r->kind == l->held.kind ? r : NULL);
    int placed = place(c, l, r, &t);
    if (placed != 0) {
        if (placed == -3)
            c->device_records_while_off++;
        else if (placed == -1)
            c->device_records_of_unknown_targets++;
        else
            c->device_records_outside_target++;
        return;
    }
    l->last = t;
    ot_tw_cover(c->tw, t);
    OTF2_EvtWriter *w = l->writer;
    if (r->endpoint == OFFTRACE_DEVICE_BEGIN && l->depth < MAX_NESTING) {
        l->open[l->depth] = (open_region){r->kind, r->subkind, ot_device_region(c->device_regions, r)};
        if (r->kind == OFFTRACE_DEVICE_KERNEL && (r->flags & OFFTRACE_DEVICE_FLAG_STREAM)) {
            l->held = *r;
            l->held_at = t;
            l->holding = 1;
            l->depth++;
            return;
        }
        ot_tw_enter(w, activity_detail(c, l, r, NULL), t, l->open[l->depth++].region);
    } else if (r->endpoint == OFFTRACE_DEVICE_END && l->depth && l->open[l->depth - 1].kind == r->kind &&
               l->open[l->depth - 1].subkind == r->subkind) {
        ot_tw_leave(w, team_summary(l, r), t, l->open[--l->depth].region);
    } else if (r->kind == OFFTRACE_DEVICE_LOST) {
        write_lost(c, w, r, t);
    } else {
        c->device_unmatched++;
    }
}

/* Regions still open at the end close at the location's last time. */
static void end_location(converter *c, location_state *l)
{
    if (l->holding)
        release_held(c, l, NULL);
    if (l->attributes)
        OTF2_AttributeList_Delete(l->attributes);
    c->device_open_at_end += l->depth;
    while (l->depth)
        ot_tw_leave(l->writer, NULL, l->last, l->open[--l->depth].region);
    ot_tw_end_location(c->tw, l->writer);
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
    offtrace_location_role role = k->stream ? OFFTRACE_LOC_DEVICE_QUEUE : OFFTRACE_LOC_DEVICE_THREAD;
    if (k->stream)
        snprintf(name, sizeof name, "device %d queue %u", d->num, k->thread);
    else
        snprintf(name, sizeof name, "device %d thread %u", d->num, k->thread);
    id = offtrace_location_id(role, d->num, (uint32_t)number);
    if (ot_tw_has_location(c->tw, id))
        return NULL;
    OTF2_EvtWriter *w = ot_tw_add_location(c->tw, id, name, role, d->num, 0, NULL);
    if (w && k->stream)
        d->queue_locations++;
    return w;
}

/* One batch of locations, [first, first + n): create them in (queue?,
 * number) order (queue ordinals follow it), then write their records in one
 * pass over the file. */
static int write_batch(converter *c, device_state *d, const ot_raw_device_stream *ds, location_set *set,
                       size_t first, size_t n, location_state *states)
{
    memset(states, 0, n * sizeof *states);
    for (size_t i = 0; i < n; i++) {
        states[i].clock_map = ot_devsync_map(d->sync);
        const location_key *k = &set->keys[first + i];
        if (k->thread == NO_THREAD) /* losses of threads that had no buffer */
            continue;
        if (!(states[i].writer = add_location(c, d, k)))
            c->device_records_without_location += k->records;
        else
            c->device_locations++;
    }
    ot_external_sort *queues = ot_es_new(c->dir, sizeof(queued), by_time);
    ot_raw_device_cursor cur;
    if (!queues || ot_raw_device_cursor_open(&cur, ds) != 0) {
        ot_es_free(queues);
        return -ENOMEM;
    }
    int rc = 0;
    size_t index;
    for (const offtrace_device_record *r; rc == 0 && (r = ot_raw_device_cursor_next(&cur, &index));) {
        size_t at = location_of(set, r);
        if (at < first || at - first >= n) /* another batch's, or not seen in the first pass (the file changed) */
            continue;
        location_state *l = &states[at - first];
        if (set->keys[at].thread == NO_THREAD) {
            c->device_lost += r->value;
        } else if (l->writer && set->keys[at].stream) {
            queued q = {*r, index, at - first};
            rc = ot_es_add(queues, &q);
        } else if (l->writer) {
            write_record(c, l, r);
        }
    }
    ot_raw_device_cursor_close(&cur);
    if (rc == 0)
        rc = ot_es_finish(queues);
    for (const queued *q; rc == 0 && (q = ot_es_next(queues));)
        write_record(c, &states[q->location], &q->r);
    if (rc == 0)
        rc = ot_es_error(queues);
    ot_es_free(queues);
    for (size_t i = 0; i < n; i++)
        if (states[i].writer)
            end_location(c, &states[i]);
    return rc;
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
    location_set set = {0};
    location_state *states = malloc(LOCATIONS_AT_ONCE * sizeof *states);
    int rc = states ? gather_locations(ds, &set) : -ENOMEM;
    for (size_t first = 0; rc == 0 && first < set.count; first += LOCATIONS_AT_ONCE)
        rc = write_batch(c, d, ds, &set, first,
                         set.count - first < LOCATIONS_AT_ONCE ? set.count - first : LOCATIONS_AT_ONCE, states);
    free(states);
    free(set.keys);
    free(set.slots);
    return rc;
}

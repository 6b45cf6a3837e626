#include "device_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "external_sort.h"

/* below OFFTRACE_RDMA_LOCATION_NUMBER: a stream never takes the RDMA row's id */
#define MAX_STREAMS 64

/* seq: the order of arrival, so that equal times keep it (as a stable sort would).
 * op: a kernel launch's host operation (0: none), written on its Enter. */
typedef struct interval {
    uint64_t begin, end, seq, op;
    OTF2_RegionRef region;
} interval;

typedef struct memory_change {
    uint64_t time;
    int64_t delta;
    uint64_t seq;
} memory_change;

/* Each kind of event is sorted in bounded memory (external_sort.h): a long
 * trace's kernels and transfers go to a scratch file beside the archive. */
struct ot_device_timeline {
    int num;
    uint64_t seq;
    ot_external_sort *kernels, *transfers, *memory;
    interval *open; /* transfers drawn nested, innermost last */
    size_t open_capacity;
};

/* Earlier begin first; for equal begins the longer interval first, so that
 * it becomes the parent of the shorter one. */
static int by_begin(const void *pa, const void *pb)
{
    const interval *a = pa, *b = pb;
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int by_time(const void *pa, const void *pb)
{
    const memory_change *a = pa, *b = pb;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

ot_device_timeline *ot_dt_new(int num, const char *scratch_dir)
{
    ot_device_timeline *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->num = num;
    d->kernels = ot_es_new(scratch_dir, sizeof(interval), by_begin);
    d->transfers = ot_es_new(scratch_dir, sizeof(interval), by_begin);
    d->memory = ot_es_new(scratch_dir, sizeof(memory_change), by_time);
    if (!d->kernels || !d->transfers || !d->memory) {
        ot_dt_free(d);
        return NULL;
    }
    return d;
}

static int add_interval(ot_device_timeline *d, ot_external_sort *sort, uint64_t begin, uint64_t end,
                        OTF2_RegionRef region, uint64_t op)
{
    interval i = {begin, end < begin ? begin : end, d->seq++, op, region};
    return ot_es_add(sort, &i);
}

int ot_dt_add_kernel(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region, uint64_t op)
{
    return add_interval(d, d->kernels, begin, end, region, op);
}

int ot_dt_add_transfer(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region)
{
    return add_interval(d, d->transfers, begin, end, region, 0);
}

int ot_dt_add_memory(ot_device_timeline *d, uint64_t time, int64_t delta)
{
    memory_change m = {time, delta, d->seq++};
    return ot_es_add(d->memory, &m);
}

static void enter(ot_trace_writer *w, OTF2_EvtWriter *ew, uint64_t t, OTF2_RegionRef r)
{
    ot_tw_enter(ew, NULL, t, r);
    ot_tw_cover(w, t);
}

/* A kernel launch's Enter carries its host operation: the device's own
 * record of the kernel (a queue activity, device_pass.c) carries the same,
 * so that a reader pairs the launch with the execution exactly. */
static void enter_launch(ot_trace_writer *w, OTF2_EvtWriter *ew, OTF2_AttributeList *a, const interval *k,
                         uint64_t t)
{
    if (a && k->op)
        OTF2_AttributeList_AddUint64(a, OFFTRACE_ACTIVITY_ATTR_HOST_OPERATION, k->op);
    ot_tw_enter(ew, a && k->op ? a : NULL, t, k->region);
    ot_tw_cover(w, t);
}

static void leave(ot_trace_writer *w, OTF2_EvtWriter *ew, uint64_t t, OTF2_RegionRef r)
{
    ot_tw_leave(ew, NULL, t, r);
    ot_tw_cover(w, t);
}


/* First-fit onto streams whose previous kernel has ended. Past MAX_STREAMS
 * concurrent kernels the last stream takes the kernel, clipped to start when
 * that stream's previous kernel ends, to keep nesting valid. */
static int write_kernels(ot_device_timeline *d, ot_trace_writer *w)
{
    OTF2_EvtWriter *writers[MAX_STREAMS] = {0};
    uint64_t last_end[MAX_STREAMS] = {0};
    unsigned used = 0;
    OTF2_AttributeList *attributes = OTF2_AttributeList_New(); /* NULL: launches go without their operation */
    int rc = ot_es_finish(d->kernels);
    for (const interval *k; rc == 0;) {
        k = ot_es_next(d->kernels);
        unsigned s = 0;
        while (k && s < used && last_end[s] > k->begin)
            s++;
        /* no kernels: stream 0 exists, empty, so the group is valid */
        if ((k || used == 0) && s == used && used < MAX_STREAMS) {
            char name[64];
            snprintf(name, sizeof name, "device %d stream %u", d->num, used);
            writers[used] = ot_tw_add_location(w, offtrace_location_id(OFFTRACE_LOC_KERNEL_STREAM, d->num, used), name,
                                               OFFTRACE_LOC_KERNEL_STREAM, d->num, 0, NULL);
            if (!writers[used]) {
                rc = -ENOMEM;
                break;
            }
            used++;
        }
        if (!k)
            break;
        if (s >= used)
            s = used - 1;
        uint64_t begin = k->begin < last_end[s] ? last_end[s] : k->begin;
        uint64_t end = k->end < begin ? begin : k->end;
        enter_launch(w, writers[s], attributes, k, begin);
        leave(w, writers[s], end, k->region);
        last_end[s] = end;
    }
    if (attributes)
        OTF2_AttributeList_Delete(attributes);
    for (unsigned s = 0; s < used; s++)
        ot_tw_end_location(w, writers[s]);
    return rc ? rc : ot_es_error(d->kernels);
}

/* The memory changes up to \p until, as the running total. */
static void write_memory_until(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *ew,
                               const memory_change **next, uint64_t until, uint64_t *in_use)
{
    OTF2_Type type = OTF2_TYPE_UINT64;
    while (*next && (*next)->time <= until) {
        int64_t v = (int64_t)*in_use + (*next)->delta;
        *in_use = v < 0 ? 0 : (uint64_t)v;
        OTF2_MetricValue value = {.unsigned_int = *in_use};
        OTF2_EvtWriter_Metric(ew, NULL, (*next)->time, ot_tw_memory_metric(w), 1, &type, &value);
        ot_tw_cover(w, (*next)->time);
        *next = ot_es_next(d->memory);
    }
}

static interval *push_open(ot_device_timeline *d, size_t depth)
{
    if (depth == d->open_capacity) {
        size_t grown = d->open_capacity ? d->open_capacity * 2 : 64;
        interval *more = realloc(d->open, grown * sizeof *more);
        if (!more)
            return NULL;
        d->open = more;
        d->open_capacity = grown;
    }
    return &d->open[depth];
}

int ot_dt_write(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, uint64_t *clipped)
{
    int rc = write_kernels(d, w);
    if (rc == 0)
        rc = ot_es_finish(d->transfers);
    if (rc == 0)
        rc = ot_es_finish(d->memory);
    if (rc)
        return rc;
    const memory_change *next_memory = ot_es_next(d->memory);
    size_t depth = 0;
    uint64_t in_use = 0;
    for (;;) {
        const interval *t = ot_es_next(d->transfers);
        uint64_t now = t ? t->begin : UINT64_MAX;
        while (depth && d->open[depth - 1].end <= now) {
            write_memory_until(d, w, rdma, &next_memory, d->open[depth - 1].end, &in_use);
            leave(w, rdma, d->open[depth - 1].end, d->open[depth - 1].region);
            depth--;
        }
        write_memory_until(d, w, rdma, &next_memory, now, &in_use);
        if (!t)
            break;
        interval cur = *t;
        if (depth && cur.end > d->open[depth - 1].end) {
            cur.end = d->open[depth - 1].end;
            (*clipped)++;
        }
        interval *o = push_open(d, depth);
        if (!o)
            return -ENOMEM;
        enter(w, rdma, cur.begin, cur.region);
        *o = cur;
        depth++;
    }
    ot_tw_end_location(w, rdma);
    rc = ot_es_error(d->transfers);
    return rc ? rc : ot_es_error(d->memory);
}

void ot_dt_free(ot_device_timeline *d)
{
    if (!d)
        return;
    ot_es_free(d->kernels);
    ot_es_free(d->transfers);
    ot_es_free(d->memory);
    free(d->open);
    free(d);
}

#include "device_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* What has been written, the same state whichever way the items came
 * (as they came, or sorted by ot_dt_write): the kernel streams, the
 * transfers in flight, the memory in use, and the last item of each kind
 * written, against which an item written as it comes is checked. */
typedef struct written {
    OTF2_EvtWriter *streams[MAX_STREAMS];
    uint64_t stream_end[MAX_STREAMS];
    unsigned streams_used;
    OTF2_AttributeList *attributes; /* NULL: launches go without their operation */
    interval *open; /* transfers drawn nested, innermost last */
    size_t depth, open_capacity;
    uint64_t in_use;
    interval last_kernel, last_transfer;
    uint64_t last_memory;
    int have_kernel, have_transfer, have_memory;
    uint64_t clipped;
} written;

/* Items written as they come wait here first, in order, for the ones
 * that may still come before them: an operation begun on its thread before
 * others and ended after them (a nested data operation, which the recorder
 * allows) comes after them, a few items late. A later one than this makes
 * the conversion start again, sorting. */
#define WINDOW 64u
#define RING 128u /* a power of two above WINDOW: the newest goes in before the first goes out */

/* An item of the RDMA location: a transfer, or a memory change at t.begin
 * (its seq in t.seq), by time. */
typedef struct rdma_item {
    interval t;
    int64_t delta;
    int memory;
} rdma_item;

typedef struct kernel_window {
    interval items[RING];
    unsigned first, count;
} kernel_window;

typedef struct rdma_window {
    rdma_item items[RING];
    unsigned first, count;
} rdma_window;

/* Each kind of event is sorted in bounded memory (external_sort.h) unless
 * it can be written as it comes: a long trace's kernels and transfers go to
 * a scratch file beside the archive. */
struct ot_device_timeline {
    int num;
    uint64_t seq;
    ot_external_sort *kernels, *transfers, *memory;
    ot_trace_writer *w; /* ot_dt_source's: items may be written as they come */
    OTF2_EvtWriter *rdma;
    int last_source; /* no later source adds items */
    int sorting;     /* an item went to the sorts: every later one goes there too */
    int out_of_order; /* an item came before one written already: start again, sorting */
    int error;        /* the first error writing an item as it came (the passes go on), for ot_dt_write */
    uint64_t as_they_came, sorted;
    kernel_window *kernel_window; /* made when the first item is written as it comes */
    rdma_window *rdma_window;
    written out;
};

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

/* Memory change first where the times are equal: the order write_sorted_rdma
 * merges the two sorts in. */
static int rdma_order(const rdma_item *a, const rdma_item *b)
{
    if (a->t.begin != b->t.begin)
        return a->t.begin < b->t.begin ? -1 : 1;
    if (a->memory != b->memory)
        return a->memory ? -1 : 1;
    if (a->memory)
        return a->t.seq < b->t.seq ? -1 : a->t.seq > b->t.seq;
    return by_begin(&a->t, &b->t);
}

/* Put an item in its place in a window (after every waiting one, one
 * comparison, for items in order), and take the first. */
#define WINDOW_PUT(w, item, order)                                                                                    \
    do {                                                                                                              \
        unsigned i_ = (w)->count++;                                                                                   \
        for (; i_ > 0 && order((item), &(w)->items[((w)->first + i_ - 1) & (RING - 1)]) < 0; i_--)                     \
            (w)->items[((w)->first + i_) & (RING - 1)] = (w)->items[((w)->first + i_ - 1) & (RING - 1)];                \
        (w)->items[((w)->first + i_) & (RING - 1)] = *(item);                                                         \
    } while (0)

static const interval *kernel_take(kernel_window *w)
{
    if (!w || !w->count)
        return NULL;
    const interval *first = &w->items[w->first];
    w->first = (w->first + 1) & (RING - 1);
    w->count--;
    return first;
}

static const rdma_item *rdma_take(rdma_window *w)
{
    if (!w || !w->count)
        return NULL;
    const rdma_item *first = &w->items[w->first];
    w->first = (w->first + 1) & (RING - 1);
    w->count--;
    return first;
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

void ot_dt_source(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, int last)
{
    d->w = w;
    d->rdma = rdma;
    d->last_source = last;
}

void ot_dt_counts(const ot_device_timeline *d, uint64_t *as_they_came, uint64_t *sorted)
{
    *as_they_came = d->as_they_came;
    *sorted = d->sorted;
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

/* ---- writing, in the order the sort gives ---- */

/* Stream \p s's event writer, opened now; its location is defined by
 * define_streams, after every kernel, where it always was. */
static int open_stream(ot_device_timeline *d, ot_trace_writer *w, unsigned s)
{
    written *o = &d->out;
    o->streams[s] = ot_tw_location_writer_ahead(w, offtrace_location_id(OFFTRACE_LOC_KERNEL_STREAM, d->num, s));
    if (!o->streams[s])
        return -ENOMEM;
    o->streams_used = s + 1;
    return 0;
}

/* An item before one written already: the archive cannot be the sorted one. */
static int out_of_order(ot_device_timeline *d)
{
    d->out_of_order = 1;
    return 0;
}

/* First-fit onto streams whose previous kernel has ended. Past MAX_STREAMS
 * concurrent kernels the last stream takes the kernel, clipped to start when
 * that stream's previous kernel ends, to keep nesting valid. The kernels come
 * in by_begin order. */
static int write_kernel(ot_device_timeline *d, ot_trace_writer *w, const interval *k)
{
    written *o = &d->out;
    if (o->have_kernel && by_begin(k, &o->last_kernel) < 0)
        return out_of_order(d);
    o->last_kernel = *k;
    o->have_kernel = 1;
    unsigned s = 0;
    while (s < o->streams_used && o->stream_end[s] > k->begin)
        s++;
    if (s == o->streams_used && s < MAX_STREAMS) {
        int rc = open_stream(d, w, s);
        if (rc)
            return rc;
        if (s == 0 && !o->attributes)
            o->attributes = OTF2_AttributeList_New();
    }
    if (s >= o->streams_used)
        s = o->streams_used - 1;
    uint64_t begin = k->begin < o->stream_end[s] ? o->stream_end[s] : k->begin;
    uint64_t end = k->end < begin ? begin : k->end;
    enter_launch(w, o->streams[s], o->attributes, k, begin);
    leave(w, o->streams[s], end, k->region);
    o->stream_end[s] = end;
    return 0;
}

/* The transfers in flight that end before \p t (\p before_or_at: or at it) leave. */
static void leave_transfers_until(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, uint64_t t,
                                  int before_or_at)
{
    written *o = &d->out;
    while (o->depth && (o->open[o->depth - 1].end < t || (before_or_at && o->open[o->depth - 1].end == t))) {
        leave(w, rdma, o->open[o->depth - 1].end, o->open[o->depth - 1].region);
        o->depth--;
    }
}

/* The RDMA location's events are the transfers and the memory changes
 * merged by time, a memory change first where their times are equal; a
 * transfer in flight leaves after the memory changes up to its end and
 * before a transfer that starts at its end or later. */
static int write_memory(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, const memory_change *m)
{
    written *o = &d->out;
    if ((o->have_memory && m->time < o->last_memory) || (o->have_transfer && m->time <= o->last_transfer.begin))
        return out_of_order(d);
    o->last_memory = m->time;
    o->have_memory = 1;
    leave_transfers_until(d, w, rdma, m->time, 0);
    int64_t v = (int64_t)o->in_use + m->delta;
    o->in_use = v < 0 ? 0 : (uint64_t)v;
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue value = {.unsigned_int = o->in_use};
    OTF2_EvtWriter_Metric(rdma, NULL, m->time, ot_tw_memory_metric(w), 1, &type, &value);
    ot_tw_cover(w, m->time);
    return 0;
}

static int write_transfer(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, const interval *t)
{
    written *o = &d->out;
    if ((o->have_transfer && by_begin(t, &o->last_transfer) < 0) || (o->have_memory && t->begin < o->last_memory))
        return out_of_order(d);
    o->last_transfer = *t;
    o->have_transfer = 1;
    leave_transfers_until(d, w, rdma, t->begin, 1);
    interval cur = *t;
    if (o->depth && cur.end > o->open[o->depth - 1].end) {
        cur.end = o->open[o->depth - 1].end;
        o->clipped++;
    }
    if (o->depth == o->open_capacity) {
        size_t grown = o->open_capacity ? o->open_capacity * 2 : 64;
        interval *more = realloc(o->open, grown * sizeof *more);
        if (!more)
            return -ENOMEM;
        o->open = more;
        o->open_capacity = grown;
    }
    enter(w, rdma, cur.begin, cur.region);
    o->open[o->depth++] = cur;
    return 0;
}

/* ---- adding ---- */

/* Whether an item may be written as it comes: no later source adds any, and
 * none went to the sort. */
static int as_it_comes(ot_device_timeline *d)
{
    if (d->w && d->last_source && !d->sorting)
        return 1;
    d->sorting = 1;
    return 0;
}

/* An item written as it came; after one out of order nothing more is
 * written (the conversion starts again, sorting), and an error waits for
 * ot_dt_write. */
static int written_as_it_came(ot_device_timeline *d, int rc)
{
    if (rc && !d->error)
        d->error = rc;
    if (rc == 0 && !d->out_of_order)
        d->as_they_came++;
    return rc;
}

static int write_rdma_item(ot_device_timeline *d, const rdma_item *item)
{
    if (!item->memory)
        return write_transfer(d, d->w, d->rdma, &item->t);
    memory_change m = {item->t.begin, item->delta, item->t.seq};
    return write_memory(d, d->w, d->rdma, &m);
}

int ot_dt_add_kernel(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region, uint64_t op)
{
    interval i = {begin, end < begin ? begin : end, d->seq++, op, region};
    if (d->out_of_order || d->error)
        return d->error;
    if (!as_it_comes(d)) {
        d->sorted++;
        return ot_es_add(d->kernels, &i);
    }
    if (!d->kernel_window && !(d->kernel_window = calloc(1, sizeof *d->kernel_window)))
        return written_as_it_came(d, -ENOMEM);
    WINDOW_PUT(d->kernel_window, &i, by_begin);
    int rc = d->kernel_window->count > WINDOW ? write_kernel(d, d->w, kernel_take(d->kernel_window)) : 0;
    return written_as_it_came(d, rc);
}

static int add_rdma_item(ot_device_timeline *d, const rdma_item *item)
{
    if (!d->rdma_window && !(d->rdma_window = calloc(1, sizeof *d->rdma_window)))
        return written_as_it_came(d, -ENOMEM);
    WINDOW_PUT(d->rdma_window, item, rdma_order);
    int rc = d->rdma_window->count > WINDOW ? write_rdma_item(d, rdma_take(d->rdma_window)) : 0;
    return written_as_it_came(d, rc);
}

int ot_dt_add_transfer(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region)
{
    interval i = {begin, end < begin ? begin : end, d->seq++, 0, region};
    if (d->out_of_order || d->error)
        return d->error;
    if (!as_it_comes(d)) {
        d->sorted++;
        return ot_es_add(d->transfers, &i);
    }
    return add_rdma_item(d, &(rdma_item){.t = i, .memory = 0});
}

int ot_dt_add_memory(ot_device_timeline *d, uint64_t time, int64_t delta)
{
    memory_change m = {time, delta, d->seq++};
    if (d->out_of_order || d->error)
        return d->error;
    if (!as_it_comes(d)) {
        d->sorted++;
        return ot_es_add(d->memory, &m);
    }
    return add_rdma_item(d, &(rdma_item){.t = {.begin = m.time, .seq = m.seq}, .delta = delta, .memory = 1});
}

/* ---- the end ---- */

/* The kernel streams' locations, defined in their order after every
 * kernel is written (no kernels: stream 0 exists, empty, so the group is
 * valid), and ended. */
static int define_streams(ot_device_timeline *d, ot_trace_writer *w)
{
    written *o = &d->out;
    if (!o->streams_used && open_stream(d, w, 0) != 0)
        return -ENOMEM;
    int rc = 0;
    for (unsigned s = 0; s < o->streams_used; s++) {
        char name[64];
        snprintf(name, sizeof name, "device %d stream %u", d->num, s);
        if (!ot_tw_add_location(w, offtrace_location_id(OFFTRACE_LOC_KERNEL_STREAM, d->num, s), name,
                                OFFTRACE_LOC_KERNEL_STREAM, d->num, 0, NULL))
            rc = -ENOMEM;
    }
    for (unsigned s = 0; s < o->streams_used; s++)
        ot_tw_end_location(w, o->streams[s]);
    return rc;
}

static int write_sorted_kernels(ot_device_timeline *d, ot_trace_writer *w)
{
    int rc = 0;
    for (const interval *k; rc == 0 && !d->out_of_order && (k = kernel_take(d->kernel_window));)
        rc = write_kernel(d, w, k); /* those written as they came, first (none when sorted) */
    rc = rc ? rc : ot_es_finish(d->kernels);
    for (const interval *k; rc == 0 && !d->out_of_order && (k = ot_es_next(d->kernels));)
        rc = write_kernel(d, w, k);
    return rc ? rc : ot_es_error(d->kernels);
}

static int write_sorted_rdma(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma)
{
    int rc = 0;
    for (const rdma_item *i; rc == 0 && !d->out_of_order && (i = rdma_take(d->rdma_window));)
        rc = write_rdma_item(d, i);
    rc = rc ? rc : ot_es_finish(d->transfers);
    if (rc == 0)
        rc = ot_es_finish(d->memory);
    const interval *t = rc ? NULL : ot_es_next(d->transfers);
    const memory_change *m = rc ? NULL : ot_es_next(d->memory);
    while (rc == 0 && !d->out_of_order && (t || m)) {
        if (m && (!t || m->time <= t->begin)) {
            rc = write_memory(d, w, rdma, m);
            m = ot_es_next(d->memory);
        } else {
            rc = write_transfer(d, w, rdma, t);
            t = ot_es_next(d->transfers);
        }
    }
    rc = rc ? rc : ot_es_error(d->transfers);
    return rc ? rc : ot_es_error(d->memory);
}

int ot_dt_write(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, uint64_t *clipped)
{
    int rc = d->error;
    if (rc == 0 && !d->out_of_order)
        rc = write_sorted_kernels(d, w);
    if (rc == 0 && !d->out_of_order)
        rc = define_streams(d, w);
    if (rc == 0 && !d->out_of_order)
        rc = write_sorted_rdma(d, w, rdma);
    if (rc == 0 && d->out_of_order)
        return OT_DT_START_AGAIN_SORTED;
    if (rc)
        return rc;
    leave_transfers_until(d, w, rdma, UINT64_MAX, 1);
    ot_tw_end_location(w, rdma);
    *clipped += d->out.clipped;
    return 0;
}

void ot_dt_free(ot_device_timeline *d)
{
    if (!d)
        return;
    ot_es_free(d->kernels);
    ot_es_free(d->transfers);
    ot_es_free(d->memory);
    if (d->out.attributes)
        OTF2_AttributeList_Delete(d->out.attributes);
    free(d->out.open);
    free(d->kernel_window);
    free(d->rdma_window);
    free(d);
}

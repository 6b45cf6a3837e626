#include "device_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_STREAMS 64

typedef struct interval {
    uint64_t begin, end;
    OTF2_RegionRef region;
} interval;

typedef struct memory_change {
    uint64_t time;
    int64_t delta;
} memory_change;

typedef struct vector {
    void *items;
    size_t count, capacity, item_size;
} vector;

struct ot_device_timeline {
    int num;
    vector kernels, transfers, memory;
};

static void *vector_push(vector *v)
{
    if (v->count == v->capacity) {
        size_t cap = v->capacity ? v->capacity * 2 : 64;
        void *p = realloc(v->items, cap * v->item_size);
        if (!p)
            return NULL;
        v->items = p;
        v->capacity = cap;
    }
    return (char *)v->items + v->item_size * v->count++;
}

/* k < MAX_STREAMS, so a stream never takes the RDMA location's 0xFFFF. */
uint64_t ot_dt_stream_location(int num, unsigned k)
{
    return (1ull << 32) | ((uint64_t)(uint16_t)num << 16) | (k & 0xFFFFu);
}

uint64_t ot_dt_rdma_location(int num)
{
    return (1ull << 32) | ((uint64_t)(uint16_t)num << 16) | 0xFFFFu;
}

ot_device_timeline *ot_dt_new(int num)
{
    ot_device_timeline *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->num = num;
    d->kernels.item_size = d->transfers.item_size = sizeof(interval);
    d->memory.item_size = sizeof(memory_change);
    return d;
}

static int add_interval(vector *v, uint64_t begin, uint64_t end, OTF2_RegionRef region)
{
    interval *i = vector_push(v);
    if (!i)
        return -ENOMEM;
    *i = (interval){begin, end < begin ? begin : end, region};
    return 0;
}

int ot_dt_add_kernel(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region)
{
    return add_interval(&d->kernels, begin, end, region);
}

int ot_dt_add_transfer(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region)
{
    return add_interval(&d->transfers, begin, end, region);
}

int ot_dt_add_memory(ot_device_timeline *d, uint64_t time, int64_t delta)
{
    memory_change *m = vector_push(&d->memory);
    if (!m)
        return -ENOMEM;
    *m = (memory_change){time, delta};
    return 0;
}

/* Earlier begin first; for equal begins the longer interval first, so that
 * it becomes the parent of the shorter one. */
static int by_begin(const void *pa, const void *pb)
{
    const interval *a = pa, *b = pb;
    if (a->begin != b->begin)
        return a->begin < b->begin ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end;
}

static int by_time(const void *pa, const void *pb)
{
    const memory_change *a = pa, *b = pb;
    return a->time < b->time ? -1 : a->time > b->time;
}

static void enter(ot_trace_writer *w, OTF2_EvtWriter *ew, uint64_t t, OTF2_RegionRef r)
{
    OTF2_EvtWriter_Enter(ew, NULL, t, r);
    ot_tw_cover(w, t);
}

static void leave(ot_trace_writer *w, OTF2_EvtWriter *ew, uint64_t t, OTF2_RegionRef r)
{
    OTF2_EvtWriter_Leave(ew, NULL, t, r);
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
    interval *k = d->kernels.items;
    qsort(k, d->kernels.count, sizeof *k, by_begin);
    for (size_t i = 0; i < d->kernels.count || used == 0; i++) {
        unsigned s = 0;
        while (s < used && last_end[s] > (i < d->kernels.count ? k[i].begin : 0))
            s++;
        if (s == used && used < MAX_STREAMS) {
            char name[64];
            snprintf(name, sizeof name, "device %d stream %u", d->num, used);
            writers[used] = ot_tw_add_location(w, ot_dt_stream_location(d->num, used), name,
                                               OT_LOC_DEVICE_STREAM, d->num, 0, NULL);
            if (!writers[used])
                return -ENOMEM;
            used++;
        }
        if (i >= d->kernels.count)
            break; /* no kernels: stream 0 exists, empty, so the group is valid */
        if (s >= used)
            s = used - 1;
        uint64_t begin = k[i].begin < last_end[s] ? last_end[s] : k[i].begin;
        uint64_t end = k[i].end < begin ? begin : k[i].end;
        enter(w, writers[s], begin, k[i].region);
        leave(w, writers[s], end, k[i].region);
        last_end[s] = end;
    }
    for (unsigned s = 0; s < used; s++)
        ot_tw_end_location(w, writers[s]);
    return 0;
}

static void write_memory_until(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *ew, size_t *next,
                               uint64_t until, uint64_t *in_use)
{
    memory_change *m = d->memory.items;
    OTF2_Type type = OTF2_TYPE_UINT64;
    while (*next < d->memory.count && m[*next].time <= until) {
        int64_t v = (int64_t)*in_use + m[*next].delta;
        *in_use = v < 0 ? 0 : (uint64_t)v;
        OTF2_MetricValue value = {.unsigned_int = *in_use};
        OTF2_EvtWriter_Metric(ew, NULL, m[*next].time, ot_tw_memory_metric(w), 1, &type, &value);
        ot_tw_cover(w, m[*next].time);
        (*next)++;
    }
}

int ot_dt_write(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, uint64_t *clipped)
{
    int rc = write_kernels(d, w);
    if (rc)
        return rc;
    interval *t = d->transfers.items;
    qsort(t, d->transfers.count, sizeof *t, by_begin);
    qsort(d->memory.items, d->memory.count, sizeof(memory_change), by_time);
    interval *open = malloc((d->transfers.count + 1) * sizeof *open);
    if (!open)
        return -ENOMEM;
    size_t depth = 0, next_memory = 0;
    uint64_t in_use = 0;
    for (size_t i = 0; i <= d->transfers.count; i++) {
        uint64_t now = i < d->transfers.count ? t[i].begin : UINT64_MAX;
        while (depth && open[depth - 1].end <= now) {
            write_memory_until(d, w, rdma, &next_memory, open[depth - 1].end, &in_use);
            leave(w, rdma, open[depth - 1].end, open[depth - 1].region);
            depth--;
        }
        write_memory_until(d, w, rdma, &next_memory, now, &in_use);
        if (i == d->transfers.count)
            break;
        interval cur = t[i];
        if (depth && cur.end > open[depth - 1].end) {
            cur.end = open[depth - 1].end;
            (*clipped)++;
        }
        enter(w, rdma, cur.begin, cur.region);
        open[depth++] = cur;
    }
    free(open);
    ot_tw_end_location(w, rdma);
    return 0;
}

void ot_dt_free(ot_device_timeline *d)
{
    if (!d)
        return;
    free(d->kernels.items);
    free(d->transfers.items);
    free(d->memory.items);
    free(d);
}

/* CUPTI activity records -> offtrace device records; see cupti_translate.h. */
#include "cupti_translate.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* correlationId -> host op id, direct-mapped. CUPTI hands out correlation
 * ids in increasing order, so an entry is only overwritten 64K API calls
 * later, long after its activity has normally been read. */
#define CORR_SIZE (1u << 16)

/* op id -> (target id, slot): 4096 sets of 4 ways, 400 KiB. */
#define OP_SETS (1u << 12)
#define OP_WAYS 4u

/* What drain starts with, so that LOST records always fit. */
#define OUT_MIN 1024u

typedef struct corr_entry {
    uint64_t external_id;
    uint32_t correlation;
    uint32_t used;
} corr_entry;

/* Written by host threads while drain may read it, hence atomics: op_id
 * doubles as a sequence word (0 while the fields change). */
typedef struct op_entry {
    _Atomic uint64_t op_id;
    _Atomic uint64_t target_id;
    _Atomic int slot;
} op_entry;

typedef struct op_set {
    _Atomic unsigned next; /* round robin: the way written longest ago goes first */
    op_entry way[OP_WAYS];
} op_set;

/* One kernel, copy or memset waiting for the drain. */
typedef struct pending {
    uint64_t start, end, bytes;
    uint64_t grid, block, shared; /* a kernel's launch configuration (collector.h) */
    uint64_t op_id, target_id; /* filled by the join */
    uint32_t correlation, cuda_device, stream, seq;
    uint8_t kind, subkind, untimed;
    int slot; /* -1 until the join finds the device */
} pending;

struct ot_cupti_tr {
    op_set *ops; /* the only part used without the caller's lock */
    corr_entry *corr;
    pending *pend;
    size_t npend, pend_cap;
    offtrace_device_record *out;
    size_t out_cap;
    int ndev;
    int omp_device[OT_CUPTI_MAX_DEVICES];
    unsigned char live[OT_CUPTI_MAX_DEVICES];
    int learned[OT_CUPTI_MAX_DEVICES]; /* CUDA ordinal -> slot, -1 unknown */
    uint64_t lost[OT_CUPTI_MAX_DEVICES];
    uint64_t lost_unattributed;
    ot_cupti_stats stats;
};

ot_cupti_tr *ot_cupti_tr_new(void)
{
    ot_cupti_tr *tr = calloc(1, sizeof *tr);
    if (!tr)
        return NULL;
    tr->ops = calloc(OP_SETS, sizeof *tr->ops);
    tr->corr = calloc(CORR_SIZE, sizeof *tr->corr);
    tr->out = malloc(OUT_MIN * sizeof *tr->out);
    if (!tr->ops || !tr->corr || !tr->out) {
        ot_cupti_tr_free(tr);
        return NULL;
    }
    tr->out_cap = OUT_MIN;
    for (int i = 0; i < OT_CUPTI_MAX_DEVICES; i++)
        tr->learned[i] = -1;
    return tr;
}

void ot_cupti_tr_free(ot_cupti_tr *tr)
{
    if (!tr)
        return;
    free(tr->ops);
    free(tr->corr);
    free(tr->pend);
    free(tr->out);
    free(tr);
}

int ot_cupti_tr_add_device(ot_cupti_tr *tr, int omp_device)
{
    for (int s = 0; s < tr->ndev; s++) {
        if (tr->omp_device[s] == omp_device) {
            tr->live[s] = 1;
            return s;
        }
    }
    if (tr->ndev == OT_CUPTI_MAX_DEVICES)
        return -ENOSPC;
    int s = tr->ndev++;
    tr->omp_device[s] = omp_device;
    tr->live[s] = 1;
    return s;
}

void ot_cupti_tr_remove_device(ot_cupti_tr *tr, int slot)
{
    if (slot < 0 || slot >= tr->ndev)
        return;
    tr->live[slot] = 0;
    tr->lost_unattributed += tr->lost[slot];
    tr->lost[slot] = 0;
}

/* ---- host operations (lock-free) ---- */

/* splitmix64's finaliser: host op ids are thread bits | counter, so their
 * low bits alone would put every thread's n-th op in the same set. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void ot_cupti_tr_op_begin(ot_cupti_tr *tr, uint64_t op_id, uint64_t target_id, int slot)
{
    if (op_id == 0)
        return;
    op_set *set = &tr->ops[mix(op_id) & (OP_SETS - 1)];
    unsigned w = atomic_fetch_add_explicit(&set->next, 1, memory_order_relaxed) % OP_WAYS;
    op_entry *e = &set->way[w];
    atomic_store_explicit(&e->op_id, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&e->target_id, target_id, memory_order_relaxed);
    atomic_store_explicit(&e->slot, slot, memory_order_relaxed);
    atomic_store_explicit(&e->op_id, op_id, memory_order_release);
}

/* Reads an entry only if op_id was the same before and after the fields. */
static int op_find(ot_cupti_tr *tr, uint64_t op_id, uint64_t *target_id, int *slot)
{
    op_set *set = &tr->ops[mix(op_id) & (OP_SETS - 1)];
    for (unsigned w = 0; w < OP_WAYS; w++) {
        op_entry *e = &set->way[w];
        if (atomic_load_explicit(&e->op_id, memory_order_acquire) != op_id)
            continue;
        uint64_t t = atomic_load_explicit(&e->target_id, memory_order_relaxed);
        int s = atomic_load_explicit(&e->slot, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&e->op_id, memory_order_relaxed) != op_id)
            continue;
        *target_id = t;
        *slot = s;
        return 1;
    }
    return 0;
}

/* ---- taking records in ---- */

uint8_t ot_cupti_copy_direction(uint8_t copy_kind)
{
    switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return OFFTRACE_COPY_HOST_TO_DEVICE;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return OFFTRACE_COPY_DEVICE_TO_HOST;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
        return OFFTRACE_COPY_DEVICE_TO_DEVICE;
    default:
        return OFFTRACE_COPY_OTHER;
    }
}

static int grow_pending(ot_cupti_tr *tr)
{
    if (tr->pend_cap >= OT_CUPTI_PENDING_MAX)
        return 0;
    size_t cap = tr->pend_cap ? 2 * tr->pend_cap : 1024;
    pending *p = realloc(tr->pend, cap * sizeof *p);
    if (!p)
        return 0;
    tr->pend = p;
    tr->pend_cap = cap;
    return 1;
}

/* An activity without both timestamps cannot be placed on a timeline: it is
 * kept only to be counted as lost on its device. */
static int keep(ot_cupti_tr *tr, pending p)
{
    tr->stats.activities++;
    if (tr->npend == tr->pend_cap && !grow_pending(tr)) {
        tr->lost_unattributed++;
        return 1;
    }
    p.seq = (uint32_t)tr->npend;
    p.slot = -1;
    p.untimed = p.start == 0 || p.end < p.start;
    tr->pend[tr->npend++] = p;
    return 1;
}

static int take_kernel(ot_cupti_tr *tr, const CUpti_ActivityKernel10 *k)
{
    return keep(tr, (pending){.kind = OFFTRACE_DEVICE_KERNEL, .start = k->start, .end = k->end,
                              .cuda_device = k->deviceId, .stream = k->streamId,
                              .correlation = k->correlationId,
                              .grid = offtrace_kernel_grid((uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ),
                              .block = offtrace_kernel_block((uint32_t)k->blockX, (uint32_t)k->blockY,
                                                             (uint32_t)k->blockZ, k->registersPerThread),
                              .shared = (uint64_t)(uint32_t)k->staticSharedMemory +
                                        (uint64_t)(uint32_t)k->dynamicSharedMemory});
}

static int take_memcpy(ot_cupti_tr *tr, const CUpti_ActivityMemcpy6 *m)
{
    return keep(tr, (pending){.kind = OFFTRACE_DEVICE_MEMCPY, .subkind = ot_cupti_copy_direction(m->copyKind),
                              .start = m->start, .end = m->end, .bytes = m->bytes,
                              .cuda_device = m->deviceId, .stream = m->streamId,
                              .correlation = m->correlationId});
}

static int take_peer_copy(ot_cupti_tr *tr, const CUpti_ActivityMemcpyPtoP4 *m)
{
    return keep(tr, (pending){.kind = OFFTRACE_DEVICE_MEMCPY, .subkind = OFFTRACE_COPY_DEVICE_TO_DEVICE,
                              .start = m->start, .end = m->end, .bytes = m->bytes,
                              .cuda_device = m->deviceId, .stream = m->streamId,
                              .correlation = m->correlationId});
}

static int take_memset(ot_cupti_tr *tr, const CUpti_ActivityMemset4 *m)
{
    return keep(tr, (pending){.kind = OFFTRACE_DEVICE_MEMSET, .start = m->start, .end = m->end,
                              .bytes = m->bytes, .cuda_device = m->deviceId, .stream = m->streamId,
                              .correlation = m->correlationId});
}

/* Other tools (OpenACC, profilers) may push their own kinds; theirs are not ours. */
static int take_correlation(ot_cupti_tr *tr, const CUpti_ActivityExternalCorrelation *c)
{
    if (c->externalKind != OT_CUPTI_EXTERNAL_KIND) {
        tr->stats.ignored++;
        return 0;
    }
    corr_entry *e = &tr->corr[c->correlationId & (CORR_SIZE - 1)];
    e->correlation = c->correlationId;
    e->external_id = c->externalId;
    e->used = 1;
    tr->stats.correlations++;
    return 1;
}

int ot_cupti_tr_record(ot_cupti_tr *tr, const CUpti_Activity *record)
{
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return take_kernel(tr, (const CUpti_ActivityKernel10 *)record);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return take_memcpy(tr, (const CUpti_ActivityMemcpy6 *)record);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        return take_peer_copy(tr, (const CUpti_ActivityMemcpyPtoP4 *)record);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return take_memset(tr, (const CUpti_ActivityMemset4 *)record);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        return take_correlation(tr, (const CUpti_ActivityExternalCorrelation *)record);
    default:
        tr->stats.ignored++;
        return 0;
    }
}

/* CUPTI knows each kind's record size; the walk stops at the end of the
 * valid bytes or at a record it cannot read (incomplete). */
long ot_cupti_tr_buffer(ot_cupti_tr *tr, uint8_t *buffer, size_t valid_size)
{
    if (!buffer || valid_size == 0)
        return 0;
    CUpti_Activity *record = NULL;
    long n = 0;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
        ot_cupti_tr_record(tr, record);
        n++;
    }
    return n;
}

void ot_cupti_tr_add_lost(ot_cupti_tr *tr, uint64_t count)
{
    tr->lost_unattributed += count;
}

/* ---- the join and the drain ---- */

static int slot_live(const ot_cupti_tr *tr, int slot)
{
    return slot >= 0 && slot < tr->ndev && tr->live[slot];
}

/* The external correlation gives the op id; the op gives the target and the
 * device, and so which OpenMP device this CUDA ordinal is. */
static void join(ot_cupti_tr *tr, pending *p)
{
    const corr_entry *e = &tr->corr[p->correlation & (CORR_SIZE - 1)];
    if (!e->used || e->correlation != p->correlation)
        return;
    p->op_id = e->external_id;
    int slot;
    if (!op_find(tr, p->op_id, &p->target_id, &slot) || !slot_live(tr, slot))
        return;
    p->slot = slot;
    if (p->cuda_device < OT_CUPTI_MAX_DEVICES)
        tr->learned[p->cuda_device] = slot;
}

/* For activities no op vouches for: what was learned, else attach order,
 * unless that slot is already known to be another CUDA device. */
static int guess_slot(const ot_cupti_tr *tr, uint32_t cuda_device)
{
    if (cuda_device >= OT_CUPTI_MAX_DEVICES)
        return -1;
    int s = tr->learned[cuda_device];
    if (s >= 0)
        return slot_live(tr, s) ? s : -1;
    if (!slot_live(tr, (int)cuda_device))
        return -1;
    for (int other = 0; other < OT_CUPTI_MAX_DEVICES; other++)
        if (tr->learned[other] == (int)cuda_device)
            return -1;
    return (int)cuda_device;
}

/* Two passes, so that an activity early in the flush profits from what a
 * later one teaches about its device. */
static void resolve(ot_cupti_tr *tr)
{
    for (size_t i = 0; i < tr->npend; i++)
        join(tr, &tr->pend[i]);
    for (size_t i = 0; i < tr->npend; i++) {
        pending *p = &tr->pend[i];
        if (p->slot < 0)
            p->slot = guess_slot(tr, p->cuda_device);
        if (p->slot < 0)
            tr->stats.unmapped++;
    }
}

static int by_slot_stream_time(const void *a, const void *b)
{
    const pending *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Past this the pending activities cannot be written out; they become a
 * count rather than vanish. */
static void reserve_out(ot_cupti_tr *tr)
{
    size_t need = 2 * tr->npend + 1;
    if (need <= tr->out_cap)
        return;
    offtrace_device_record *out = realloc(tr->out, need * sizeof *out);
    if (out) {
        tr->out = out;
        tr->out_cap = need;
        return;
    }
    for (size_t i = 0; i < tr->npend; i++)
        if (tr->pend[i].slot >= 0)
            tr->lost[tr->pend[i].slot]++;
    tr->npend = 0;
}

static void put_pair(offtrace_device_record *out, const pending *p)
{
    offtrace_device_record r = {
        .time = p->start, .target_id = p->target_id, .op_id = p->op_id, .value = p->bytes,
        .thread = p->stream, .kind = p->kind, .subkind = p->subkind,
        .endpoint = OFFTRACE_DEVICE_BEGIN, .flags = OFFTRACE_DEVICE_FLAG_STREAM,
    };
    if (p->kind == OFFTRACE_DEVICE_KERNEL)
        r.value = p->grid;
    out[0] = r;
    r.time = p->end;
    r.endpoint = OFFTRACE_DEVICE_END;
    if (p->kind == OFFTRACE_DEVICE_KERNEL) {
        r.value = p->block;
        r.codeptr = p->shared;
    }
    out[1] = r;
}

/* Writes the records of \p slot (its activities start at *next) into out. */
static size_t build_slot(ot_cupti_tr *tr, int slot, size_t *next, uint64_t now)
{
    size_t n = 0, i = *next;
    for (; i < tr->npend && tr->pend[i].slot == slot; i++) {
        const pending *p = &tr->pend[i];
        if (p->untimed) {
            tr->lost[slot]++;
            continue;
        }
        if (p->op_id == 0)
            tr->stats.uncorrelated++;
        put_pair(tr->out + n, p);
        n += 2;
    }
    *next = i;
    if (tr->lost[slot]) {
        tr->out[n++] = (offtrace_device_record){.time = now, .value = tr->lost[slot],
                                                .kind = OFFTRACE_DEVICE_LOST,
                                                .endpoint = OFFTRACE_DEVICE_POINT};
        tr->stats.lost += tr->lost[slot];
        tr->lost[slot] = 0;
    }
    return n;
}

static void attribute_lost(ot_cupti_tr *tr)
{
    if (!tr->lost_unattributed)
        return;
    for (int s = 0; s < tr->ndev; s++) {
        if (tr->live[s]) {
            tr->lost[s] += tr->lost_unattributed;
            tr->lost_unattributed = 0;
            return;
        }
    }
}

long ot_cupti_tr_drain(ot_cupti_tr *tr, uint64_t now, ot_cupti_emit_fn emit, void *ctx)
{
    resolve(tr);
    if (tr->npend) /* pend is NULL before the first activity */
        qsort(tr->pend, tr->npend, sizeof *tr->pend, by_slot_stream_time);
    reserve_out(tr);
    attribute_lost(tr);
    size_t next = 0;
    while (next < tr->npend && tr->pend[next].slot < 0)
        next++; /* unmapped: sorted first, counted by resolve */
    long total = 0;
    for (int slot = 0; slot < tr->ndev; slot++) {
        if (!tr->live[slot])
            continue;
        size_t n = build_slot(tr, slot, &next, now);
        if (n) {
            emit(ctx, slot, tr->omp_device[slot], tr->out, n);
            total += (long)n;
        }
    }
    tr->npend = 0;
    tr->stats.delivered += (uint64_t)total;
    return total;
}

ot_cupti_stats ot_cupti_tr_stats(const ot_cupti_tr *tr)
{
    return tr->stats;
}

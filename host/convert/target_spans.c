#define _GNU_SOURCE
#include "target_spans.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spill_file.h"

/* Host threads with blocks of their own; ids of more (damage) are kept in memory. */
#define MAX_OWNERS 4096

typedef struct span { uint64_t id, begin, end; } span;

/* A block on disk: one owner's spans, ids increasing. */
typedef struct block {
    uint64_t owner, first, last, offset;
    uint32_t count;
} block;

/* A host thread (the high bits of its ids) and the block it is filling. */
typedef struct owner {
    uint64_t owner, last_id, used_at;
    span *buffer; /* NULL while it fills none */
    uint32_t count;
} owner;

typedef struct cached {
    size_t block; /* SIZE_MAX: empty */
    span *spans;
} cached;

struct ot_target_spans {
    char *dir;
    ot_spill_file *file;
    owner *owners;
    size_t owner_count, owner_capacity, last_owner, buffers_held;
    uint64_t clock;
    block *blocks;
    size_t block_count, block_capacity;
    int blocks_sorted;
    cached cache[OT_SPANS_CACHED_BLOCKS];
    /* ids out of order: open addressing on the id, 0 = empty slot */
    span *slots;
    size_t capacity, used;
    /* Where the last look-up found its span (near: the block read, or the
     * block still being filled; NULL: none): a device location's records
     * name one target region in runs (every record of a kernel's team) and
     * then the next one, the same span or the next of that block, where the
     * full look-up (the owner, the blocks' index, a search of the block)
     * was the device pass's largest cost (issue 18, eleventh round).
     * Forgotten at every put, and whenever the full look-up runs (it may
     * read another block into the same memory). */
    const span *near;
    size_t near_count, near_at;
};

ot_target_spans *ot_target_spans_new(const char *scratch_dir)
{
    ot_target_spans *t = calloc(1, sizeof *t);
    if (!t || !(t->dir = strdup(scratch_dir))) {
        free(t);
        return NULL;
    }
    for (size_t i = 0; i < OT_SPANS_CACHED_BLOCKS; i++)
        t->cache[i].block = SIZE_MAX;
    t->blocks_sorted = 1;
    return t;
}

/* ---- ids out of order: in memory ---- */

static span *find(span *slots, size_t capacity, uint64_t id)
{
    size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull >> 17) & (capacity - 1);
    while (slots[i].id && slots[i].id != id)
        i = (i + 1) & (capacity - 1);
    return &slots[i];
}

static int grow(ot_target_spans *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : 1024;
    span *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i].id)
            *find(slots, capacity, t->slots[i].id) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return 0;
}

static int put_out_of_order(ot_target_spans *t, uint64_t id, uint64_t begin, uint64_t end)
{
    if ((t->used + 1) * 2 > t->capacity && grow(t) != 0)
        return -ENOMEM;
    span *s = find(t->slots, t->capacity, id);
    if (!s->id)
        t->used++;
    *s = (span){id, begin, end};
    return 0;
}

/* ---- ids in order: blocks on disk ---- */

static int write_block(ot_target_spans *t, owner *o)
{
    if (!o->count)
        return 0;
    if (!t->file && !(t->file = ot_spill_open(t->dir)))
        return -errno;
    if (t->block_count == t->block_capacity) {
        size_t grown = t->block_capacity ? t->block_capacity * 2 : 64;
        block *more = realloc(t->blocks, grown * sizeof *more);
        if (!more)
            return -ENOMEM;
        t->blocks = more;
        t->block_capacity = grown;
    }
    block b = {o->owner, o->buffer[0].id, o->buffer[o->count - 1].id, ot_spill_size(t->file), o->count};
    int rc = ot_spill_append(t->file, o->buffer, o->count * sizeof *o->buffer);
    if (rc)
        return rc;
    t->blocks[t->block_count++] = b;
    t->blocks_sorted = 0;
    o->count = 0;
    return 0;
}

static owner *find_owner(ot_target_spans *t, uint64_t key)
{
    if (t->owner_count && t->owners[t->last_owner].owner == key)
        return &t->owners[t->last_owner];
    for (size_t i = 0; i < t->owner_count; i++)
        if (t->owners[i].owner == key) {
            t->last_owner = i;
            return &t->owners[i];
        }
    return NULL;
}

/* The owner of \p key, new if need be; NULL past MAX_OWNERS (only damaged
 * ids have that many) or on ENOMEM. */
static owner *owner_of(ot_target_spans *t, uint64_t key)
{
    owner *o = find_owner(t, key);
    if (o || t->owner_count == MAX_OWNERS)
        return o;
    if (t->owner_count == t->owner_capacity) {
        size_t grown = t->owner_capacity ? t->owner_capacity * 2 : 16;
        owner *more = realloc(t->owners, grown * sizeof *more);
        if (!more)
            return NULL;
        t->owners = more;
        t->owner_capacity = grown;
    }
    t->last_owner = t->owner_count;
    t->owners[t->owner_count] = (owner){.owner = key};
    return &t->owners[t->owner_count++];
}

/* A block to fill for \p o: past OT_SPANS_OPEN_BLOCKS, the one used longest
 * ago goes to disk and gives its memory. */
static int hold_buffer(ot_target_spans *t, owner *o)
{
    if (o->buffer)
        return 0;
    if (t->buffers_held == OT_SPANS_OPEN_BLOCKS) {
        owner *oldest = NULL;
        for (size_t i = 0; i < t->owner_count; i++)
            if (t->owners[i].buffer && (!oldest || t->owners[i].used_at < oldest->used_at))
                oldest = &t->owners[i];
        int rc = write_block(t, oldest);
        if (rc)
            return rc;
        free(oldest->buffer);
        oldest->buffer = NULL;
        t->buffers_held--;
    }
    if (!(o->buffer = malloc(OT_SPANS_BLOCK * sizeof *o->buffer)))
        return -ENOMEM;
    t->buffers_held++;
    return 0;
}

int ot_target_spans_put(ot_target_spans *t, uint64_t id, uint64_t begin, uint64_t end)
{
    if (!id)
        return 0;
    t->near = NULL;
    owner *o = owner_of(t, id >> 40);
    if (!o || id <= o->last_id)
        return put_out_of_order(t, id, begin, end);
    int rc = hold_buffer(t, o);
    if (rc)
        return rc;
    o->buffer[o->count++] = (span){id, begin, end};
    o->last_id = id;
    o->used_at = ++t->clock;
    return o->count == OT_SPANS_BLOCK ? write_block(t, o) : 0;
}

static const span *search(const span *s, size_t n, uint64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && s[lo].id == id ? &s[lo] : NULL;
}

static int by_owner_and_first(const void *a, const void *b)
{
    const block *x = a, *y = b;
    if (x->owner != y->owner)
        return x->owner < y->owner ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* The block that may hold \p id: the last one of its owner starting at or before it. */
static size_t block_of(ot_target_spans *t, uint64_t key, uint64_t id)
{
    if (!t->blocks_sorted) {
        qsort(t->blocks, t->block_count, sizeof *t->blocks, by_owner_and_first);
        t->blocks_sorted = 1;
        for (size_t i = 0; i < OT_SPANS_CACHED_BLOCKS; i++)
            t->cache[i].block = SIZE_MAX; /* block numbers changed */
    }
    size_t lo = 0, hi = t->block_count;
    while (lo < hi) { /* first block after (key, id) */
        size_t mid = lo + (hi - lo) / 2;
        const block *b = &t->blocks[mid];
        if (b->owner < key || (b->owner == key && b->first <= id))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return SIZE_MAX;
    const block *b = &t->blocks[lo - 1];
    return b->owner == key && id <= b->last ? lo - 1 : SIZE_MAX;
}

static int read_block(ot_target_spans *t, size_t index, const span **spans)
{
    cached *c = &t->cache[index % OT_SPANS_CACHED_BLOCKS];
    if (c->block != index) {
        if (!c->spans && !(c->spans = malloc(OT_SPANS_BLOCK * sizeof *c->spans)))
            return -ENOMEM;
        const block *b = &t->blocks[index];
        c->block = SIZE_MAX;
        int rc = ot_spill_read(t->file, b->offset, c->spans, b->count * sizeof *c->spans);
        if (rc)
            return rc;
        c->block = index;
    }
    *spans = c->spans;
    return 0;
}

/* The span of \p id if it lies where the last look-up found its span:
 * that span, the next, or another of the same block; NULL if not (the
 * full look-up decides). */
static const span *nearby(ot_target_spans *t, uint64_t id)
{
    const span *a = t->near;
    size_t n = t->near_count, i = t->near_at;
    if (a[i].id == id)
        return &a[i];
    if (i + 1 < n && a[i + 1].id == id) {
        t->near_at = i + 1;
        return &a[i + 1];
    }
    if (id < a[0].id || id > a[n - 1].id)
        return NULL;
    const span *s = search(a, n, id);
    if (s)
        t->near_at = (size_t)(s - a);
    return s;
}

static void remember_near(ot_target_spans *t, const span *spans, size_t count, const span *s)
{
    t->near = spans;
    t->near_count = count;
    t->near_at = (size_t)(s - spans);
}

/* The look-up that may read a block: the owner, the blocks' index, a search. */
static __attribute__((noinline)) int get_far(ot_target_spans *t, uint64_t id, const span **found)
{
    const span *s = NULL;
    t->near = NULL;
    owner *o = find_owner(t, id >> 40);
    if (o && o->count /* a block still being filled */ && id >= o->buffer[0].id &&
        (s = search(o->buffer, o->count, id)))
        remember_near(t, o->buffer, o->count, s);
    size_t index = !s && o ? block_of(t, id >> 40, id) : SIZE_MAX;
    const span *spans;
    if (index != SIZE_MAX) {
        int rc = read_block(t, index, &spans);
        if (rc)
            return rc;
        if ((s = search(spans, t->blocks[index].count, id)))
            remember_near(t, spans, t->blocks[index].count, s);
    }
    *found = s;
    return 0;
}

int ot_target_spans_get(ot_target_spans *t, uint64_t id, uint64_t *begin, uint64_t *end)
{
    if (!id)
        return -ENOENT;
    const span *s = t->capacity ? find(t->slots, t->capacity, id) : NULL;
    if (s && !s->id)
        s = NULL;
    if (!s && t->near)
        s = nearby(t, id);
    if (!s) {
        int rc = get_far(t, id, &s);
        if (rc)
            return rc;
    }
    if (!s)
        return -ENOENT;
    *begin = s->begin;
    *end = s->end;
    return 0;
}

void ot_target_spans_free(ot_target_spans *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->owner_count; i++)
        free(t->owners[i].buffer);
    for (size_t i = 0; i < OT_SPANS_CACHED_BLOCKS; i++)
        free(t->cache[i].spans);
    free(t->owners);
    free(t->blocks);
    free(t->slots);
    ot_spill_close(t->file);
    free(t->dir);
    free(t);
}

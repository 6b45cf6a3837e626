#include "external_sort.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spill_file.h"

/* Items read from a run at once while merging. */
#define READ_ITEMS 256u

typedef struct run {
    uint64_t offset, count, read; /* where it lies, its items, items read into the buffer so far */
    unsigned char *buffer;
    size_t pos, len;
} run;

/* A waiting item out of order: its key (ot_es_add_keyed), the run it goes
 * to (its low 32 bits: the heap only ever holds run_now and run_now + 1, so
 * the difference decides) and the slot that holds it. The heap moves these
 * 16 bytes, never the items, and sifts by moving a hole rather than
 * swapping: the same comparisons, so the same order (ties included), as
 * swapping whole entries. */
#define NO_SLOT UINT32_MAX

typedef struct heap_node {
    uint64_t key;
    uint32_t run, slot;
} heap_node;

struct ot_external_sort {
    char *dir;
    size_t item_size;
    ot_es_compare compare;
    uint64_t count;
    int error, finished;
    /* Waiting to go out, OT_ES_MEMORY_ITEMS at most in all: items that came
     * in order (the usual case) wait in a first-in first-out ring, in
     * order; the others in slots, ordered by a heap of nodes tagged with
     * their run. */
    unsigned char *ring;
    uint64_t *ring_keys;   /* NULL until an item with a key other than 0 comes */
    size_t ring_head, ring_count;
    unsigned char *slots;  /* OT_ES_MEMORY_ITEMS items, slot_size bytes apart */
    size_t slot_size;
    heap_node *heap;       /* heap_memory + 1: see sift_down */
    heap_node *heap_memory;
    size_t heap_count;
    uint32_t free_slot;    /* slots emptied by the heap, reused first: each holds the next one's index */
    size_t slots_used;     /* slots past slots_used were never used */
    /* out: a run being written, or (nothing on disk) the reader */
    uint64_t run_now;        /* the run that items go out to */
    int have_last;           /* s->out holds the item that went out last */
    uint64_t out_key;        /* and this its key */
    ot_spill_file *file;
    run *runs;
    size_t run_count, run_capacity;
    /* merging: a heap of run indices by their current item */
    size_t *merge, merge_count;
    unsigned char *out;
};

static unsigned char *slot_item(const ot_external_sort *s, uint32_t slot)
{
    return s->slots + (size_t)slot * s->slot_size;
}

static size_t ring_index(const ot_external_sort *s, size_t i)
{
    return (s->ring_head + i) % OT_ES_MEMORY_ITEMS;
}

static uint64_t ring_key(const ot_external_sort *s, size_t i)
{
    return s->ring_keys ? s->ring_keys[ring_index(s, i)] : 0;
}

static unsigned char *ring_item(const ot_external_sort *s, size_t i)
{
    return s->ring + ring_index(s, i) * s->item_size;
}

/* compare(a, b) < 0, asked of the keys first (they order what they tell apart) */
static int item_less(const ot_external_sort *s, uint64_t key_a, const void *a, uint64_t key_b, const void *b)
{
    if (key_a != key_b)
        return key_a < key_b;
    return s->compare(a, b) < 0;
}

static inline __attribute__((always_inline)) int node_less(const ot_external_sort *s, heap_node a, heap_node b)
{
    if (__builtin_expect(a.run == b.run && a.key != b.key, 1)) /* the usual case, without a branch on the order */
        return a.key < b.key;
    if (a.run != b.run)
        return (int32_t)(a.run - b.run) < 0;
    return s->compare(slot_item(s, a.slot), slot_item(s, b.slot)) < 0;
}

static void sift_up(ot_external_sort *s, size_t i)
{
    heap_node moving = s->heap[i];
    while (i && node_less(s, moving, s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = moving;
}

/* Fill the hole at \p top with heap[top], the heap below it being whole:
 * the hole first goes down to a leaf, each time to the smaller child (the
 * right one only if strictly smaller), then the moving node comes up from
 * there while the node above it is not less than it. It ends where the
 * textbook's descent stops (the first node on that path not less than it:
 * the path only grows), so the heap is the same, ties included, with about
 * half the comparisons (the moving node, from the bottom, seldom climbs) and
 * none in the descent that decides whether to stop. */
static void sift_down(ot_external_sort *s, size_t top)
{
    heap_node *heap = s->heap;
    size_t count = s->heap_count, i = top;
    heap_node moving = heap[top];
    for (size_t l; (l = 2 * i + 1) < count;) {
        __builtin_prefetch(&heap[4 * i + 3]); /* the four grandchildren: one cache line (heap_memory + 1) */
        size_t m = l + (l + 1 < count && node_less(s, heap[l + 1], heap[l]));
        heap[i] = heap[m];
        i = m;
    }
    while (i > top && !node_less(s, heap[(i - 1) / 2], moving)) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = moving;
}

ot_external_sort *ot_es_new(const char *dir, size_t item_size, ot_es_compare compare)
{
    ot_external_sort *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->item_size = item_size;
    s->slot_size = item_size > sizeof(uint32_t) ? item_size : sizeof(uint32_t);
    s->free_slot = NO_SLOT;
    s->compare = compare;
    s->dir = strdup(dir);
    s->out = malloc(item_size);
    if (!s->dir || !s->out) {
        ot_es_free(s);
        return NULL;
    }
    return s;
}

uint64_t ot_es_count(const ot_external_sort *s)
{
    return s->count;
}

int ot_es_error(const ot_external_sort *s)
{
    return s->error;
}

static void free_heap(ot_external_sort *s)
{
    free(s->slots);
    free(s->heap_memory);
    s->slots = NULL;
    s->heap = s->heap_memory = NULL;
}

/* Take the smallest waiting item into s->out; its run in *run. 0 when none waits. */
static int take_smallest(ot_external_sort *s, uint64_t *run)
{
    const heap_node *top = s->heap_count ? &s->heap[0] : NULL;
    /* ring items belong to run_now, ahead of any later run's */
    int from_ring = s->ring_count &&
                    (!top || top->run != (uint32_t)s->run_now ||
                     item_less(s, ring_key(s, 0), ring_item(s, 0), top->key,
                               slot_item(s, top->slot)));
    if (from_ring) {
        memcpy(s->out, ring_item(s, 0), s->item_size);
        s->out_key = ring_key(s, 0);
        s->ring_head = (s->ring_head + 1) % OT_ES_MEMORY_ITEMS;
        s->ring_count--;
        *run = s->run_now;
        return 1;
    }
    if (!top)
        return 0;
    *run = s->run_now + (uint32_t)(top->run - (uint32_t)s->run_now);
    memcpy(s->out, slot_item(s, top->slot), s->item_size);
    s->out_key = top->key;
    memcpy(slot_item(s, top->slot), &s->free_slot, sizeof s->free_slot);
    s->free_slot = top->slot;
    if (--s->heap_count) {
        s->heap[0] = s->heap[s->heap_count];
        sift_down(s, 0);
    }
    return 1;
}

/* Send the smallest waiting item out: to the file (a new run when it
 * belongs to the next one), or to the reader. */
static int send_smallest(ot_external_sort *s)
{
    uint64_t r;
    if (!take_smallest(s, &r))
        return 0;
    if (r != s->run_now || (s->file && !s->run_count)) {
        s->run_now = r;
        if (s->file) {
            if (s->run_count == s->run_capacity) {
                size_t grown = s->run_capacity ? s->run_capacity * 2 : 16;
                run *more = realloc(s->runs, grown * sizeof *more);
                if (!more)
                    return -ENOMEM;
                s->runs = more;
                s->run_capacity = grown;
            }
            s->runs[s->run_count++] = (run){.offset = ot_spill_size(s->file)};
        }
    }
    if (s->file) {
        int rc = ot_spill_append(s->file, s->out, s->item_size);
        if (rc)
            return rc;
        s->runs[s->run_count - 1].count++;
    }
    s->have_last = 1;
    return 1;
}

static void free_ring(ot_external_sort *s)
{
    free(s->ring);
    free(s->ring_keys);
    s->ring = NULL;
    s->ring_keys = NULL;
}

static int allocate_ring(ot_external_sort *s)
{
    s->ring = malloc(OT_ES_MEMORY_ITEMS * s->item_size);
    return s->ring ? 0 : -ENOMEM;
}

/* Keys for the ring's items, from the first key other than 0 on: the items
 * already there had key 0. (Not calloc: its pages are touched as the ring
 * fills, not all at once.) */
static int allocate_ring_keys(ot_external_sort *s)
{
    if (!(s->ring_keys = malloc(OT_ES_MEMORY_ITEMS * sizeof *s->ring_keys)))
        return -ENOMEM;
    for (size_t i = 0; i < s->ring_count; i++)
        s->ring_keys[ring_index(s, i)] = 0;
    return 0;
}

static int allocate_heap(ot_external_sort *s)
{
    s->slots = malloc(OT_ES_MEMORY_ITEMS * s->slot_size);
    s->heap_memory = aligned_alloc(64, (OT_ES_MEMORY_ITEMS + 4) * sizeof *s->heap);
    s->heap = s->heap_memory ? s->heap_memory + 1 : NULL;
    if (s->slots && s->heap)
        return 0;
    free_heap(s);
    return -ENOMEM;
}

int ot_es_add(ot_external_sort *s, const void *item)
{
    return ot_es_add_keyed(s, item, 0);
}

int ot_es_add_keyed(ot_external_sort *s, const void *item, uint64_t key)
{
    if (s->error)
        return s->error;
    if (s->ring_count + s->heap_count == OT_ES_MEMORY_ITEMS) {
        if (!s->file && !(s->file = ot_spill_open(s->dir)))
            return s->error = -errno;
        int rc = send_smallest(s);
        if (rc < 0)
            return s->error = rc;
    }
    /* An item before the one that went out last cannot join its run: the next one takes it. */
    int joins = !s->have_last || !item_less(s, key, item, s->out_key, s->out);
    if (joins && (!s->ring_count || !item_less(s, key, item, ring_key(s, s->ring_count - 1),
                                               ring_item(s, s->ring_count - 1)))) {
        if (!s->ring && allocate_ring(s) != 0)
            return s->error = -ENOMEM;
        if (key && !s->ring_keys && allocate_ring_keys(s) != 0)
            return s->error = -ENOMEM;
        if (s->ring_keys)
            s->ring_keys[ring_index(s, s->ring_count)] = key;
        memcpy(ring_item(s, s->ring_count++), item, s->item_size);
    } else {
        if (!s->slots && allocate_heap(s) != 0)
            return s->error = -ENOMEM;
        uint32_t slot = s->free_slot;
        if (slot != NO_SLOT)
            memcpy(&s->free_slot, slot_item(s, slot), sizeof s->free_slot);
        else
            slot = (uint32_t)s->slots_used++;
        memcpy(slot_item(s, slot), item, s->item_size);
        s->heap[s->heap_count++] = (heap_node){key, (uint32_t)(s->run_now + (joins ? 0 : 1)), slot};
        sift_up(s, s->heap_count - 1);
    }
    s->count++;
    return 0;
}

static int fill(ot_external_sort *s, run *r)
{
    uint64_t left = r->count - r->read;
    size_t n = left < READ_ITEMS ? (size_t)left : READ_ITEMS;
    int rc = n ? ot_spill_read(s->file, r->offset + r->read * s->item_size, r->buffer, n * s->item_size) : 0;
    r->read += n;
    r->pos = 0;
    r->len = rc ? 0 : n;
    return rc;
}

static int run_less(const ot_external_sort *s, size_t a, size_t b)
{
    const run *x = &s->runs[a], *y = &s->runs[b];
    int c = s->compare(x->buffer + x->pos * s->item_size, y->buffer + y->pos * s->item_size);
    return c < 0 || (c == 0 && a < b);
}

static void merge_sift_down(ot_external_sort *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->merge_count && run_less(s, s->merge[l], s->merge[m]))
            m = l;
        if (r < s->merge_count && run_less(s, s->merge[r], s->merge[m]))
            m = r;
        if (m == i)
            return;
        size_t t = s->merge[i];
        s->merge[i] = s->merge[m];
        s->merge[m] = t;
        i = m;
    }
}

int ot_es_finish(ot_external_sort *s)
{
    s->finished = 1;
    if (s->error || !s->file) /* nothing on disk: the reader takes the waiting items in order */
        return s->error;
    int rc;
    while ((rc = send_smallest(s)) > 0)
        ;
    if (rc < 0)
        return s->error = rc;
    free_heap(s);
    free_ring(s);
    s->merge = malloc((s->run_count ? s->run_count : 1) * sizeof *s->merge);
    if (!s->merge)
        return s->error = -ENOMEM;
    for (size_t i = 0; i < s->run_count; i++) {
        run *r = &s->runs[i];
        if (!(r->buffer = malloc(READ_ITEMS * s->item_size)))
            return s->error = -ENOMEM;
        rc = fill(s, r);
        if (rc)
            return s->error = rc;
        if (r->len)
            s->merge[s->merge_count++] = i;
    }
    for (size_t i = s->merge_count / 2 + 1; i-- > 0;)
        merge_sift_down(s, i);
    return 0;
}

const void *ot_es_next(ot_external_sort *s)
{
    if (!s->finished || s->error)
        return NULL;
    if (!s->file) {
        int rc = send_smallest(s);
        if (rc < 0)
            s->error = rc;
        return rc > 0 ? s->out : NULL;
    }
    if (!s->merge_count)
        return NULL;
    run *r = &s->runs[s->merge[0]];
    memcpy(s->out, r->buffer + r->pos * s->item_size, s->item_size);
    if (++r->pos == r->len) {
        int rc = fill(s, r);
        if (rc) {
            s->error = rc;
            return NULL;
        }
        if (!r->len) {
            free(r->buffer);
            r->buffer = NULL;
            s->merge[0] = s->merge[--s->merge_count];
        }
    }
    if (s->merge_count)
        merge_sift_down(s, 0);
    return s->out;
}

void ot_es_free(ot_external_sort *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->run_count; i++)
        free(s->runs[i].buffer);
    free(s->runs);
    free(s->merge);
    ot_spill_close(s->file);
    free_ring(s);
    free_heap(s);
    free(s->out);
    free(s->dir);
    free(s);
}

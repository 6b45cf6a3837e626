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

struct ot_external_sort {
    char *dir;
    size_t item_size, entry_size; /* an entry: the run it goes to, then the item */
    ot_es_compare compare;
    uint64_t count;
    int error, finished;
    /* Waiting to go out, OT_ES_MEMORY_ITEMS at most in all: items that came
     * in order (the usual case) wait in a first-in first-out ring, in
     * order; the others in a heap of entries tagged with their run. */
    unsigned char *ring;
    size_t ring_head, ring_count;
    unsigned char *entries;
    size_t entry_count;
    unsigned char *swap;
    /* out: a run being written, or (nothing on disk) the reader */
    uint64_t run_now;        /* the run that items go out to */
    int have_last;
    unsigned char *last_out; /* the item that went out last */
    ot_spill_file *file;
    run *runs;
    size_t run_count, run_capacity;
    /* merging: a heap of run indices by their current item */
    size_t *merge, merge_count;
    unsigned char *out;
};

static uint64_t entry_run(const ot_external_sort *s, const unsigned char *e)
{
    uint64_t r;
    memcpy(&r, e, sizeof r);
    return r;
}

static unsigned char *entry(const ot_external_sort *s, size_t i)
{
    return s->entries + i * s->entry_size;
}

static unsigned char *ring_item(const ot_external_sort *s, size_t i)
{
    return s->ring + ((s->ring_head + i) % OT_ES_MEMORY_ITEMS) * s->item_size;
}

static int entry_less(const ot_external_sort *s, const unsigned char *a, const unsigned char *b)
{
    uint64_t ra = entry_run(s, a), rb = entry_run(s, b);
    if (ra != rb)
        return ra < rb;
    return s->compare(a + sizeof(uint64_t), b + sizeof(uint64_t)) < 0;
}

static void entry_swap(ot_external_sort *s, size_t i, size_t j)
{
    memcpy(s->swap, entry(s, i), s->entry_size);
    memcpy(entry(s, i), entry(s, j), s->entry_size);
    memcpy(entry(s, j), s->swap, s->entry_size);
}

static void sift_up(ot_external_sort *s, size_t i)
{
    while (i && entry_less(s, entry(s, i), entry(s, (i - 1) / 2))) {
        entry_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(ot_external_sort *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->entry_count && entry_less(s, entry(s, l), entry(s, m)))
            m = l;
        if (r < s->entry_count && entry_less(s, entry(s, r), entry(s, m)))
            m = r;
        if (m == i)
            return;
        entry_swap(s, i, m);
        i = m;
    }
}

ot_external_sort *ot_es_new(const char *dir, size_t item_size, ot_es_compare compare)
{
    ot_external_sort *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->item_size = item_size;
    s->entry_size = (sizeof(uint64_t) + item_size + 7) / 8 * 8;
    s->compare = compare;
    s->dir = strdup(dir);
    s->swap = malloc(s->entry_size);
    s->last_out = malloc(item_size);
    s->out = malloc(item_size);
    if (!s->dir || !s->swap || !s->last_out || !s->out) {
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

/* Take the smallest waiting item into s->out; its run in *run. 0 when none waits. */
static int take_smallest(ot_external_sort *s, uint64_t *run)
{
    const unsigned char *top = s->entry_count ? entry(s, 0) : NULL;
    /* ring items belong to run_now, ahead of any later run's */
    int from_ring = s->ring_count &&
                    (!top || entry_run(s, top) > s->run_now ||
                     s->compare(ring_item(s, 0), top + sizeof(uint64_t)) < 0);
    if (from_ring) {
        memcpy(s->out, ring_item(s, 0), s->item_size);
        s->ring_head = (s->ring_head + 1) % OT_ES_MEMORY_ITEMS;
        s->ring_count--;
        *run = s->run_now;
        return 1;
    }
    if (!top)
        return 0;
    *run = entry_run(s, top);
    memcpy(s->out, top + sizeof(uint64_t), s->item_size);
    if (--s->entry_count) {
        memcpy(entry(s, 0), entry(s, s->entry_count), s->entry_size);
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
    memcpy(s->last_out, s->out, s->item_size);
    s->have_last = 1;
    return 1;
}

int ot_es_add(ot_external_sort *s, const void *item)
{
    if (s->error)
        return s->error;
    if (s->ring_count + s->entry_count == OT_ES_MEMORY_ITEMS) {
        if (!s->file && !(s->file = ot_spill_open(s->dir)))
            return s->error = -errno;
        int rc = send_smallest(s);
        if (rc < 0)
            return s->error = rc;
    }
    /* An item before the one that went out last cannot join its run: the next one takes it. */
    int joins = !s->have_last || s->compare(item, s->last_out) >= 0;
    if (joins && (!s->ring_count || s->compare(item, ring_item(s, s->ring_count - 1)) >= 0)) {
        if (!s->ring && !(s->ring = malloc(OT_ES_MEMORY_ITEMS * s->item_size)))
            return s->error = -ENOMEM;
        memcpy(ring_item(s, s->ring_count++), item, s->item_size);
    } else {
        if (!s->entries && !(s->entries = malloc(OT_ES_MEMORY_ITEMS * s->entry_size)))
            return s->error = -ENOMEM;
        uint64_t r = s->run_now + (joins ? 0 : 1);
        unsigned char *e = entry(s, s->entry_count++);
        memset(e, 0, s->entry_size);
        memcpy(e, &r, sizeof r);
        memcpy(e + sizeof(uint64_t), item, s->item_size);
        sift_up(s, s->entry_count - 1);
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
    free(s->entries);
    free(s->ring);
    s->entries = s->ring = NULL;
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
    free(s->ring);
    free(s->entries);
    free(s->swap);
    free(s->last_out);
    free(s->out);
    free(s->dir);
    free(s);
}

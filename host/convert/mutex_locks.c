/**
 * \file mutex_locks.c
 * \brief Lock ids and acquisition orders over all host threads (mutex_locks.h).
 *
 * One pass reads every host stream's acquisitions (OMP_MUTEX_ACQUIRED, and
 * the end_time of an OMP_MUTEX COMPLETE record) into a scratch file, each
 * thread's together in stream order, as numbered_acquisition entries whose
 * order is still 0, and keeps the set of wait ids. A thread's acquisitions
 * come in time order in its stream, so a merge of the threads' runs by time
 * (ties by thread) meets each lock's acquisitions in their order: a counter
 * per lock numbers them, and each run's window goes back to the file where
 * it was read (issue 18, eleventh round: the two external sorts that did
 * this before, by lock and then by thread, were a third of a lock archive's
 * conversion). A stream whose acquisitions go back in time (only a damaged
 * one) makes the merge wrong, so then the file goes through those two sorts
 * (external_sort.h) instead. The thread being converted reads its run front
 * to back as its acquisitions come.
 */
#include "mutex_locks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "external_sort.h"
#include "spill_file.h"

typedef struct acquisition {
    uint64_t wait_id, time;
    uint32_t thread;
} acquisition;

typedef struct numbered_acquisition {
    uint64_t time, wait_id;
    uint32_t thread, order;
} numbered_acquisition;

typedef struct thread_run {
    uint32_t thread;
    uint64_t first, count; /* its numbered acquisitions in the scratch file */
} thread_run;

#define ORDER_WINDOW 1024u /* numbered acquisitions read at a time by the thread converted */
#define MERGE_WINDOW 256u  /* per thread while numbering */

struct ot_mutex_locks {
    ot_spill_file *orders; /* numbered_acquisition, each thread's run by time, wait id */
    uint64_t order_count;
    thread_run *runs; /* one per thread with acquisitions, by thread */
    size_t run_count;
    /* the thread being read: window of orders[window_first, window_first + window_len) */
    numbered_acquisition window[ORDER_WINDOW];
    uint64_t window_first, position, thread_end;
    uint64_t last_time, last_wait_id; /* the last question asked */
    size_t window_len;
    uint32_t window_thread;
    int window_valid;
    uint64_t *wait_ids; /* every wait id any mutex record names, sorted, unique: its index + 1 is its lock id */
    size_t wait_id_count;
    int failed;
};

static int by_acquisition(const void *a, const void *b)
{
    const acquisition *x = a, *y = b;
    if (x->wait_id != y->wait_id)
        return x->wait_id < y->wait_id ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static int by_thread_time(const numbered_acquisition *x, uint32_t thread, uint64_t time, uint64_t wait_id)
{
    if (x->thread != thread)
        return x->thread < thread ? -1 : 1;
    if (x->time != time)
        return x->time < time ? -1 : 1;
    return (x->wait_id > wait_id) - (x->wait_id < wait_id);
}

static int by_thread(const void *a, const void *b)
{
    const numbered_acquisition *y = b;
    return by_thread_time(a, y->thread, y->time, y->wait_id);
}

static int by_run_thread(const void *a, const void *b)
{
    const thread_run *x = a, *y = b;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int names_a_lock(const offtrace_raw_record *r)
{
    return r->event == OFFTRACE_RAW_OMP_MUTEX || r->event == OFFTRACE_RAW_OMP_MUTEX_ACQUIRED ||
           r->event == OFFTRACE_RAW_OMP_NEST_LOCK || r->event == OFFTRACE_RAW_OMP_LOCK_INIT ||
           r->event == OFFTRACE_RAW_OMP_LOCK_DESTROY;
}

static int grow(void **items, size_t *capacity, size_t used, size_t size)
{
    if (used < *capacity)
        return 0;
    size_t grown = *capacity ? *capacity * 2 : 256;
    void *more = realloc(*items, grown * size);
    if (!more)
        return -ENOMEM;
    *items = more;
    *capacity = grown;
    return 0;
}

/* ---- the wait ids: a set while reading, then sorted ---- */

/* Open addressing; 0 is the empty slot, so a wait id 0 is a flag of its own.
 * Memory: a few words per distinct lock, as the sorted list. */
typedef struct wait_id_set {
    uint64_t *slots;
    size_t capacity, count; /* capacity: a power of two */
    int has_zero;
} wait_id_set;

static size_t slot_of(uint64_t id, size_t capacity)
{
    uint64_t h = id * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ h >> 29) & (capacity - 1);
}

static void set_put(uint64_t *slots, size_t capacity, uint64_t id)
{
    size_t j = slot_of(id, capacity);
    while (slots[j] && slots[j] != id)
        j = (j + 1) & (capacity - 1);
    slots[j] = id;
}

static int set_add(wait_id_set *s, uint64_t id)
{
    if (!id) {
        s->has_zero = 1;
        return 0;
    }
    if (s->capacity) { /* the usual case: known */
        for (size_t j = slot_of(id, s->capacity); s->slots[j]; j = (j + 1) & (s->capacity - 1))
            if (s->slots[j] == id)
                return 0;
    }
    if ((s->count + 1) * 2 > s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 64;
        uint64_t *slots = calloc(capacity, sizeof *slots);
        if (!slots)
            return -ENOMEM;
        for (size_t i = 0; i < s->capacity; i++)
            if (s->slots[i])
                set_put(slots, capacity, s->slots[i]);
        free(s->slots);
        s->slots = slots;
        s->capacity = capacity;
    }
    set_put(s->slots, s->capacity, id);
    s->count++;
    return 0;
}

/* The set's ids into l->wait_ids, sorted. */
static int keep_sorted(ot_mutex_locks *l, const wait_id_set *s)
{
    l->wait_ids = malloc((s->count + 1) * sizeof *l->wait_ids);
    if (!l->wait_ids)
        return -ENOMEM;
    if (s->has_zero)
        l->wait_ids[l->wait_id_count++] = 0;
    for (size_t i = 0; i < s->capacity; i++)
        if (s->slots[i])
            l->wait_ids[l->wait_id_count++] = s->slots[i];
    qsort(l->wait_ids, l->wait_id_count, sizeof *l->wait_ids, by_value);
    return 0;
}

/* ---- building the table ---- */

/* Every stream's acquisitions into l->orders, a run per thread (*in_order: 0
 * when one goes back in time), every wait id into \p ids. */
static int collect(converter *c, ot_mutex_locks *l, wait_id_set *ids, int *in_order)
{
    size_t run_capacity = 0;
    *in_order = 1;
    for (size_t s = 0; s < c->rec.stream_count; s++) {
        ot_raw_cursor cur;
        if (ot_raw_cursor_open(&cur, &c->rec.streams[s]) != 0)
            return -ENOMEM;
        uint32_t thread = c->rec.streams[s].header.thread_index;
        uint64_t first = l->order_count;
        numbered_acquisition last = {0};
        uint64_t last_named = 0;
        int rc = 0, named = 0;
        for (const offtrace_raw_record *r; !rc && (r = ot_raw_cursor_next(&cur));) {
            if (!names_a_lock(r))
                continue;
            int completed = r->event == OFFTRACE_RAW_OMP_MUTEX && r->endpoint == OFFTRACE_RAW_COMPLETE;
            if (r->event == OFFTRACE_RAW_OMP_MUTEX_ACQUIRED || completed) {
                numbered_acquisition n = {completed ? r->end_time : r->time, r->src_addr, thread, 0};
                if (l->order_count > first && by_thread_time(&last, thread, n.time, n.wait_id) > 0)
                    *in_order = 0;
                if (!(rc = ot_spill_append(l->orders, &n, sizeof n))) {
                    l->order_count++;
                    last = n;
                }
            }
            if (!rc && (r->src_addr != last_named || !named)) { /* an acquire and its release name one lock */
                rc = set_add(ids, r->src_addr);
                last_named = r->src_addr;
                named = 1;
            }
        }
        ot_raw_cursor_close(&cur);
        if (!rc && l->order_count > first &&
            !(rc = grow((void **)&l->runs, &run_capacity, l->run_count, sizeof *l->runs)))
            l->runs[l->run_count++] = (thread_run){thread, first, l->order_count - first};
        if (rc)
            return rc;
    }
    /* raw_reader.c keeps one stream per thread index */
    qsort(l->runs, l->run_count, sizeof *l->runs, by_run_thread);
    return 0;
}

/* One thread's run while numbering: the window read, at file index window_first. */
typedef struct merge_run {
    uint64_t window_first, end;
    size_t pos, len;
    uint32_t thread;
    numbered_acquisition window[MERGE_WINDOW];
} merge_run;

static int fill(ot_spill_file *f, merge_run *m)
{
    uint64_t left = m->end - m->window_first;
    m->len = left < MERGE_WINDOW ? (size_t)left : MERGE_WINDOW;
    m->pos = 0;
    return ot_spill_read(f, m->window_first * sizeof *m->window, m->window, m->len * sizeof *m->window);
}

static int run_before(const merge_run *a, const merge_run *b)
{
    const numbered_acquisition *x = &a->window[a->pos], *y = &b->window[b->pos];
    return x->time != y->time ? x->time < y->time : a->thread < b->thread;
}

static void sift_down(merge_run **heap, size_t count, size_t i)
{
    for (;;) {
        size_t least = i, left = 2 * i + 1, right = left + 1;
        if (left < count && run_before(heap[left], heap[least]))
            least = left;
        if (right < count && run_before(heap[right], heap[least]))
            least = right;
        if (least == i)
            return;
        merge_run *t = heap[i];
        heap[i] = heap[least];
        heap[least] = t;
        i = least;
    }
}

/* Number the acquisitions in the file in place: the threads' runs merged by time, then thread. */
static int number_in_place(ot_mutex_locks *l)
{
    merge_run *runs = calloc(l->run_count + 1, sizeof *runs);
    merge_run **heap = malloc((l->run_count + 1) * sizeof *heap);
    uint32_t *counts = calloc(l->wait_id_count + 1, sizeof *counts); /* acquisitions numbered so far, by lock id */
    int rc = runs && heap && counts ? 0 : -ENOMEM;
    size_t heap_count = 0;
    for (size_t i = 0; !rc && i < l->run_count; i++) {
        runs[i] = (merge_run){.window_first = l->runs[i].first,
                              .end = l->runs[i].first + l->runs[i].count,
                              .thread = l->runs[i].thread};
        if (!(rc = fill(l->orders, &runs[i])))
            heap[heap_count++] = &runs[i];
    }
    for (size_t i = heap_count / 2; i-- > 0;)
        sift_down(heap, heap_count, i);
    while (!rc && heap_count) {
        merge_run *m = heap[0];
        numbered_acquisition *n = &m->window[m->pos];
        n->order = ++counts[ot_mutex_lock_id(l, n->wait_id)];
        if (++m->pos == m->len) { /* the window is numbered: back to the file, and the next */
            rc = ot_spill_write(l->orders, m->window_first * sizeof *m->window, m->window, m->len * sizeof *m->window);
            m->window_first += m->len;
            if (!rc && m->window_first < m->end)
                rc = fill(l->orders, m);
            else
                heap[0] = heap[--heap_count];
        }
        sift_down(heap, heap_count, 0);
    }
    free(counts);
    free(heap);
    free(runs);
    return rc;
}

/* ---- the sorts, for a stream that goes back in time ---- */

/* Number each lock's acquisitions (sorted by lock and time) into \p by_thread_sort. */
static int number(ot_external_sort *by_lock, ot_external_sort *by_thread_sort)
{
    int rc = ot_es_finish(by_lock);
    uint64_t previous_lock = 0;
    uint32_t order = 0;
    const acquisition *a;
    while (!rc && (a = ot_es_next(by_lock))) {
        order = order && a->wait_id == previous_lock ? order + 1 : 1;
        previous_lock = a->wait_id;
        rc = ot_es_add(by_thread_sort, &(numbered_acquisition){a->time, a->wait_id, a->thread, order});
    }
    return rc ? rc : ot_es_error(by_lock);
}

/* The numbered acquisitions, by thread, into a new scratch file, and each thread's run. */
static int write_orders(ot_mutex_locks *l, ot_external_sort *by_thread_sort, const char *dir)
{
    int rc = ot_es_finish(by_thread_sort);
    ot_spill_close(l->orders);
    l->order_count = 0;
    l->run_count = 0;
    if (!rc && !(l->orders = ot_spill_open(dir)))
        rc = -errno;
    size_t run_capacity = 0;
    const numbered_acquisition *n;
    while (!rc && (n = ot_es_next(by_thread_sort))) {
        if ((!l->run_count || l->runs[l->run_count - 1].thread != n->thread) &&
            !(rc = grow((void **)&l->runs, &run_capacity, l->run_count, sizeof *l->runs)))
            l->runs[l->run_count++] = (thread_run){n->thread, l->order_count, 0};
        if (!rc && !(rc = ot_spill_append(l->orders, n, sizeof *n))) {
            l->order_count++;
            l->runs[l->run_count - 1].count++;
        }
    }
    return rc ? rc : ot_es_error(by_thread_sort);
}

/* The file's acquisitions through a sort by lock and time (numbering them), then by thread and time. */
static int number_by_sorting(ot_mutex_locks *l, const char *dir)
{
    ot_external_sort *by_lock = ot_es_new(dir, sizeof(acquisition), by_acquisition);
    ot_external_sort *by_thread_sort = ot_es_new(dir, sizeof(numbered_acquisition), by_thread);
    int rc = by_lock && by_thread_sort ? 0 : -ENOMEM;
    numbered_acquisition window[MERGE_WINDOW];
    for (uint64_t i = 0; !rc && i < l->order_count; i += MERGE_WINDOW) {
        size_t len = l->order_count - i < MERGE_WINDOW ? (size_t)(l->order_count - i) : MERGE_WINDOW;
        rc = ot_spill_read(l->orders, i * sizeof *window, window, len * sizeof *window);
        for (size_t j = 0; !rc && j < len; j++)
            rc = ot_es_add(by_lock, &(acquisition){window[j].wait_id, window[j].time, window[j].thread});
    }
    if (!rc)
        rc = number(by_lock, by_thread_sort);
    ot_es_free(by_lock);
    if (!rc)
        rc = write_orders(l, by_thread_sort, dir);
    ot_es_free(by_thread_sort);
    return rc;
}

static ot_mutex_locks *locks_build(converter *c)
{
    ot_mutex_locks *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    wait_id_set ids = {0};
    int in_order = 1, rc = (l->orders = ot_spill_open(c->dir)) ? 0 : -errno;
    if (!rc)
        rc = collect(c, l, &ids, &in_order);
    if (!rc)
        rc = keep_sorted(l, &ids);
    free(ids.slots);
    if (!rc)
        rc = in_order ? number_in_place(l) : number_by_sorting(l, c->dir);
    l->failed = rc != 0;
    return l;
}

/* What the questions see when the table could not be built (out of memory)
 * or a live conversion asks: every id and order 0, and no second attempt
 * per record. */
static ot_mutex_locks no_locks = {.failed = 1};

void ot_mutex_locks_free(ot_mutex_locks *l)
{
    if (!l || l == &no_locks)
        return;
    ot_spill_close(l->orders);
    free(l->runs);
    free(l->wait_ids);
    free(l);
}

ot_mutex_locks *ot_mutex_locks_of(converter *c)
{
    if (c->live) { /* other streams are still being written, the first is read as it goes: the attempt is
                    * dropped (convert_live.c), and the table is built by the conversion after the end */
        c->live_unsupported = 1;
        return &no_locks;
    }
    if (!c->mutex_locks && !(c->mutex_locks = locks_build(c)))
        c->mutex_locks = &no_locks;
    return c->mutex_locks;
}

/* ---- the questions ---- */

uint32_t ot_mutex_lock_id(const ot_mutex_locks *l, uint64_t wait_id)
{
    if (!l)
        return 0;
    size_t lo = 0, hi = l->wait_id_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->wait_ids[mid] < wait_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->wait_id_count && l->wait_ids[lo] == wait_id ? (uint32_t)(lo + 1) : 0;
}

/* Read from \p thread's first numbered acquisition again. */
static int rewind_thread(ot_mutex_locks *l, uint32_t thread)
{
    size_t lo = 0, hi = l->run_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->runs[mid].thread < thread)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == l->run_count || l->runs[lo].thread != thread)
        return -ENOENT;
    l->window_thread = thread;
    l->position = l->runs[lo].first;
    l->thread_end = l->runs[lo].first + l->runs[lo].count;
    l->window_first = l->position;
    l->window_len = 0;
    l->window_valid = 1;
    return 0;
}

/* The numbered acquisition at l->position (of the thread read), or NULL past its last. */
static const numbered_acquisition *at_position(ot_mutex_locks *l)
{
    if (l->position >= l->thread_end)
        return NULL;
    if (l->position < l->window_first || l->position >= l->window_first + l->window_len) {
        uint64_t left = l->thread_end - l->position;
        size_t len = left < ORDER_WINDOW ? (size_t)left : ORDER_WINDOW;
        if (ot_spill_read(l->orders, l->position * sizeof *l->window, l->window, len * sizeof *l->window) != 0) {
            l->window_valid = 0;
            return NULL;
        }
        l->window_first = l->position;
        l->window_len = len;
    }
    return &l->window[l->position - l->window_first];
}

/* Asked in time order per thread, it reads on where the last question
 * stopped (at the first numbered acquisition not before it); asked out of
 * order or for another thread, it starts over at the thread's first one. */
uint32_t ot_mutex_acquisition_order(ot_mutex_locks *l, uint64_t wait_id, uint64_t time, uint32_t thread)
{
    if (!l || l->failed)
        return 0;
    int before_last = time < l->last_time || (time == l->last_time && wait_id < l->last_wait_id);
    if ((!l->window_valid || l->window_thread != thread || before_last) && rewind_thread(l, thread) != 0)
        return 0;
    l->last_time = time;
    l->last_wait_id = wait_id;
    const numbered_acquisition *n;
    int cmp = -1;
    while ((n = at_position(l)) && (cmp = by_thread_time(n, thread, time, wait_id)) < 0)
        l->position++;
    return n && cmp == 0 ? n->order : 0;
}

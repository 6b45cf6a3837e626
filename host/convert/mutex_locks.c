/**
 * \file mutex_locks.c
 * \brief Lock ids and acquisition orders over all host threads (mutex_locks.h).
 *
 * One pass reads every host stream's acquisitions (OMP_MUTEX_ACQUIRED, and
 * the end_time of an OMP_MUTEX COMPLETE record) into a scratch file, each
 * thread's together in stream order, as 16-byte numbered_acquisition
 * entries (time, the wait id's key in order of first meeting, order still
 * 0), and keeps each wait id's key in a hash table; the keys then become
 * lock ids, the wait ids' ranks. A thread's acquisitions come in time order
 * in its stream, so a merge of the threads' runs by time (ties by thread)
 * meets each lock's acquisitions in their order: a counter per lock numbers
 * them, the key becomes the lock id, and each run's window goes back to the
 * file where it was read (issue 18, eleventh round: the two external sorts
 * that did this before, by lock and then by thread, were half of a lock
 * archive's conversion once host_mutex.c named its regions from the memo).
 * A stream whose acquisitions go back in time (only a damaged one) makes
 * the merge wrong, so then the runs go through those two sorts
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

/* In the scratch file: a thread's acquisition, by time and lock in its run.
 * lock: while the runs are read, the wait id's key in order of first
 * meeting; once numbered, its lock id (the wait id's rank). */
typedef struct numbered_acquisition {
    uint64_t time;
    uint32_t lock, order;
} numbered_acquisition;

typedef struct thread_run {
    uint32_t thread;
    uint64_t first, count; /* its numbered acquisitions in the scratch file */
} thread_run;

/* A wait id and its key: its place in order of first meeting, then (ranked) its lock id. */
typedef struct lock_slot {
    uint64_t wait_id;
    uint32_t key, used;
} lock_slot;

#define ORDER_WINDOW 1024u /* numbered acquisitions read at a time by the thread converted */
#define MERGE_WINDOW 512u  /* per thread while numbering */

struct ot_mutex_locks {
    ot_spill_file *orders; /* numbered_acquisition, each thread's run by time, lock */
    uint64_t order_count;
    thread_run *runs; /* one per thread with acquisitions, by thread */
    size_t run_count;
    /* the thread being read: window of orders[window_first, window_first + window_len) */
    numbered_acquisition window[ORDER_WINDOW];
    uint64_t window_first, position, thread_end;
    uint64_t last_time; /* the last question asked */
    uint32_t last_lock;
    size_t window_len;
    uint32_t window_thread;
    int window_valid;
    /* every wait id any mutex record names (open addressing; memory: a few words per distinct lock) */
    lock_slot *locks;
    size_t lock_capacity, lock_count; /* capacity: a power of two */
    int ranked;                       /* the keys are lock ids */
    int failed;
};

static int by_run_thread(const void *a, const void *b)
{
    const thread_run *x = a, *y = b;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static int names_a_lock(const offtrace_raw_record *r)
{
    return r->event == OFFTRACE_RAW_OMP_MUTEX || r->event == OFFTRACE_RAW_OMP_MUTEX_ACQUIRED ||
           r->event == OFFTRACE_RAW_OMP_NEST_LOCK || r->event == OFFTRACE_RAW_OMP_LOCK_INIT ||
           r->event == OFFTRACE_RAW_OMP_LOCK_DESTROY;
}

/* ---- the wait ids ---- */

static size_t slot_of(uint64_t id, size_t capacity)
{
    uint64_t h = id * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ h >> 29) & (capacity - 1);
}

static const lock_slot *find_lock(const ot_mutex_locks *l, uint64_t wait_id)
{
    if (!l->lock_capacity)
        return NULL;
    for (size_t j = slot_of(wait_id, l->lock_capacity);; j = (j + 1) & (l->lock_capacity - 1)) {
        const lock_slot *s = &l->locks[j];
        if (!s->used)
            return NULL;
        if (s->wait_id == wait_id)
            return s;
    }
}

static void put_lock(lock_slot *slots, size_t capacity, const lock_slot *entry)
{
    size_t j = slot_of(entry->wait_id, capacity);
    while (slots[j].used)
        j = (j + 1) & (capacity - 1);
    slots[j] = *entry;
}

/* The key of \p wait_id, a new one (the next in order of meeting) if it is new. */
static int key_of(ot_mutex_locks *l, uint64_t wait_id, uint32_t *key)
{
    const lock_slot *known = find_lock(l, wait_id);
    if (known) {
        *key = known->key;
        return 0;
    }
    if ((l->lock_count + 1) * 2 > l->lock_capacity) {
        size_t capacity = l->lock_capacity ? l->lock_capacity * 2 : 64;
        lock_slot *slots = calloc(capacity, sizeof *slots);
        if (!slots)
            return -ENOMEM;
        for (size_t i = 0; i < l->lock_capacity; i++)
            if (l->locks[i].used)
                put_lock(slots, capacity, &l->locks[i]);
        free(l->locks);
        l->locks = slots;
        l->lock_capacity = capacity;
    }
    *key = (uint32_t)l->lock_count++;
    put_lock(l->locks, l->lock_capacity, &(lock_slot){wait_id, *key, 1});
    return 0;
}

static int by_wait_id(const void *a, const void *b)
{
    const lock_slot *x = *(const lock_slot *const *)a, *y = *(const lock_slot *const *)b;
    return (x->wait_id > y->wait_id) - (x->wait_id < y->wait_id);
}

/* Each wait id's key becomes its lock id (its rank, from 1); *lock_of_key: the lock id of each former key. */
static int rank(ot_mutex_locks *l, uint32_t **lock_of_key)
{
    lock_slot **sorted = malloc((l->lock_count + 1) * sizeof *sorted);
    *lock_of_key = malloc((l->lock_count + 1) * sizeof **lock_of_key);
    if (!sorted || !*lock_of_key) {
        free(sorted);
        return -ENOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < l->lock_capacity; i++)
        if (l->locks[i].used)
            sorted[n++] = &l->locks[i];
    qsort(sorted, n, sizeof *sorted, by_wait_id);
    for (size_t i = 0; i < n; i++) {
        (*lock_of_key)[sorted[i]->key] = (uint32_t)(i + 1);
        sorted[i]->key = (uint32_t)(i + 1);
    }
    free(sorted);
    l->ranked = 1;
    return 0;
}

/* ---- building the table ---- */

/* Every stream's acquisitions into l->orders, a run per thread (*in_order: 0
 * when one goes back in time), every wait id a key. */
static int collect(converter *c, ot_mutex_locks *l, int *in_order)
{
    *in_order = 1;
    if (!(l->runs = malloc((c->rec.stream_count + 1) * sizeof *l->runs))) /* a run per stream at most */
        return -ENOMEM;
    for (size_t s = 0; s < c->rec.stream_count; s++) {
        ot_raw_cursor cur;
        if (ot_raw_cursor_open(&cur, &c->rec.streams[s]) != 0)
            return -ENOMEM;
        uint64_t first = l->order_count, last_time = 0, last_wait_id = 0, named = 0;
        uint32_t key = 0;
        int rc = 0, have_named = 0;
        for (const offtrace_raw_record *r; !rc && (r = ot_raw_cursor_next(&cur));) {
            if (!names_a_lock(r))
                continue;
            if ((r->src_addr != named || !have_named) && !(rc = key_of(l, r->src_addr, &key))) {
                named = r->src_addr; /* an acquire, its acquired and its release name one lock */
                have_named = 1;
            }
            int completed = r->event == OFFTRACE_RAW_OMP_MUTEX && r->endpoint == OFFTRACE_RAW_COMPLETE;
            if (rc || !(r->event == OFFTRACE_RAW_OMP_MUTEX_ACQUIRED || completed))
                continue;
            uint64_t time = completed ? r->end_time : r->time;
            if (l->order_count > first && (time < last_time || (time == last_time && r->src_addr < last_wait_id)))
                *in_order = 0;
            if (!(rc = ot_spill_append(l->orders, &(numbered_acquisition){time, key, 0}, sizeof(numbered_acquisition)))) {
                l->order_count++;
                last_time = time;
                last_wait_id = r->src_addr;
            }
        }
        ot_raw_cursor_close(&cur);
        if (!rc && l->order_count > first)
            l->runs[l->run_count++] = (thread_run){c->rec.streams[s].header.thread_index, first, l->order_count - first};
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
    uint64_t x = a->window[a->pos].time, y = b->window[b->pos].time;
    return x != y ? x < y : a->thread < b->thread;
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

/* Number the acquisitions in the file in place: the threads' runs merged by time, then thread; each key becomes
 * its lock id. */
static int number_in_place(ot_mutex_locks *l, const uint32_t *lock_of_key)
{
    merge_run *runs = calloc(l->run_count + 1, sizeof *runs);
    merge_run **heap = malloc((l->run_count + 1) * sizeof *heap);
    uint32_t *counts = calloc(l->lock_count + 1, sizeof *counts); /* acquisitions numbered so far, by lock id */
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
        n->lock = lock_of_key[n->lock];
        n->order = ++counts[n->lock];
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

typedef struct sorted_acquisition {
    uint64_t time;
    uint32_t lock, thread, order;
} sorted_acquisition;

static int by_lock_time_thread(const void *a, const void *b)
{
    const sorted_acquisition *x = a, *y = b;
    if (x->lock != y->lock)
        return x->lock < y->lock ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static int by_thread_time_lock(const void *a, const void *b)
{
    const sorted_acquisition *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->lock > y->lock) - (x->lock < y->lock);
}

/* The runs' acquisitions into \p by_lock, each key its lock id. */
static int add_runs(ot_mutex_locks *l, const uint32_t *lock_of_key, ot_external_sort *by_lock)
{
    numbered_acquisition window[MERGE_WINDOW];
    int rc = 0;
    for (size_t t = 0; !rc && t < l->run_count; t++)
        for (uint64_t i = 0; !rc && i < l->runs[t].count; i += MERGE_WINDOW) {
            uint64_t left = l->runs[t].count - i;
            size_t len = left < MERGE_WINDOW ? (size_t)left : MERGE_WINDOW;
            rc = ot_spill_read(l->orders, (l->runs[t].first + i) * sizeof *window, window, len * sizeof *window);
            for (size_t j = 0; !rc && j < len; j++)
                rc = ot_es_add(by_lock, &(sorted_acquisition){window[j].time, lock_of_key[window[j].lock],
                                                              l->runs[t].thread, 0});
        }
    return rc;
}

/* Number each lock's acquisitions (sorted by lock and time) into \p by_thread_sort. */
static int number(ot_external_sort *by_lock, ot_external_sort *by_thread_sort)
{
    int rc = ot_es_finish(by_lock);
    uint32_t previous_lock = 0, order = 0;
    const sorted_acquisition *a;
    while (!rc && (a = ot_es_next(by_lock))) {
        order = order && a->lock == previous_lock ? order + 1 : 1;
        previous_lock = a->lock;
        rc = ot_es_add(by_thread_sort, &(sorted_acquisition){a->time, a->lock, a->thread, order});
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
    const sorted_acquisition *n; /* the runs' threads again, each a run: l->runs has room for them */
    while (!rc && (n = ot_es_next(by_thread_sort))) {
        if (!l->run_count || l->runs[l->run_count - 1].thread != n->thread)
            l->runs[l->run_count++] = (thread_run){n->thread, l->order_count, 0};
        if (!rc && !(rc = ot_spill_append(l->orders, &(numbered_acquisition){n->time, n->lock, n->order},
                                          sizeof(numbered_acquisition)))) {
            l->order_count++;
            l->runs[l->run_count - 1].count++;
        }
    }
    return rc ? rc : ot_es_error(by_thread_sort);
}

/* The runs through a sort by lock and time (numbering them), then by thread and time. */
static int number_by_sorting(ot_mutex_locks *l, const uint32_t *lock_of_key, const char *dir)
{
    ot_external_sort *by_lock = ot_es_new(dir, sizeof(sorted_acquisition), by_lock_time_thread);
    ot_external_sort *by_thread_sort = ot_es_new(dir, sizeof(sorted_acquisition), by_thread_time_lock);
    int rc = by_lock && by_thread_sort ? 0 : -ENOMEM;
    if (!rc)
        rc = add_runs(l, lock_of_key, by_lock);
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
    uint32_t *lock_of_key = NULL;
    int in_order = 1, rc = (l->orders = ot_spill_open(c->dir)) ? 0 : -errno;
    if (!rc)
        rc = collect(c, l, &in_order);
    if (!rc)
        rc = rank(l, &lock_of_key);
    if (!rc)
        rc = in_order ? number_in_place(l, lock_of_key) : number_by_sorting(l, lock_of_key, c->dir);
    free(lock_of_key);
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
    free(l->locks);
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
    const lock_slot *s = l && l->ranked ? find_lock(l, wait_id) : NULL;
    return s ? s->key : 0;
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
uint32_t ot_mutex_acquisition_order(ot_mutex_locks *l, uint32_t lock, uint64_t time, uint32_t thread)
{
    if (!l || !lock || l->failed)
        return 0;
    int before_last = time < l->last_time || (time == l->last_time && lock < l->last_lock);
    if ((!l->window_valid || l->window_thread != thread || before_last) && rewind_thread(l, thread) != 0)
        return 0;
    l->last_time = time;
    l->last_lock = lock;
    const numbered_acquisition *n;
    while ((n = at_position(l)) && (n->time < time || (n->time == time && n->lock < lock)))
        l->position++;
    return n && n->time == time && n->lock == lock ? n->order : 0;
}

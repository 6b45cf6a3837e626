/**
 * \file stream_helpers.c
 * \brief The recorder's two helper threads: the preparer, which maps and
 *        populates chunks before the program's threads need them and
 *        unmaps the chunks they filled, and the writer, which writes completed chunks to disk past half the memory
 *        budget. Both start when first needed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/mman.h>

#include "session.h"
#include "stream.h"
#include "stream_internal.h"

static sem_t preparer_wakeup, writer_wakeup;
static pthread_t preparer, writer;
static int preparer_running, writer_running, helpers_stop; /* atomic */
static int helpers_allowed, writer_allowed; /* set once at start-up */
static pthread_mutex_t helpers_lock = PTHREAD_MUTEX_INITIALIZER;
static void *preparer_main(void *unused);
static void *writer_main(void *unused);

/* The helper threads start when first needed, not with the program: a
 * program whose records fit a thread's first chunk never has them (an idle
 * extra thread still cost CG 0.5-0.9 ms of its 13 ms solver on this 2-core
 * machine, run_cg.sh-style measurement, 25 rounds, twice). Called from slow
 * paths only. */
static int start_helper(int *running, pthread_t *thread, void *(*main)(void *))
{
    if (__atomic_load_n(running, __ATOMIC_ACQUIRE))
        return 1;
    pthread_mutex_lock(&helpers_lock);
    if (!*running && !__atomic_load_n(&helpers_stop, __ATOMIC_ACQUIRE)) {
        /* Signals stay with the program's threads: the helper starts with all blocked. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        if (pthread_create(thread, NULL, main, NULL) == 0)
            __atomic_store_n(running, 1, __ATOMIC_RELEASE);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    pthread_mutex_unlock(&helpers_lock);
    return __atomic_load_n(running, __ATOMIC_ACQUIRE);
}

static int preparer_available(void)
{
    return helpers_allowed && start_helper(&preparer_running, &preparer, preparer_main);
}

/* A bounded queue of address ranges under its own lock, for the preparer:
 * the owners put, the preparer (or a writer) takes. */
#define RANGE_QUEUE 64
typedef struct range_queue {
    pthread_mutex_t lock;
    unsigned head, tail, size; /* size <= RANGE_QUEUE */
    struct { void *addr; size_t len; } ranges[RANGE_QUEUE];
} range_queue;

/* 1 when the queue took the range, 0 when it is full. */
static int range_put(range_queue *q, void *addr, size_t len)
{
    pthread_mutex_lock(&q->lock);
    int taken = q->head - q->tail < q->size;
    if (taken) {
        q->ranges[q->head % q->size].addr = addr;
        q->ranges[q->head % q->size].len = len;
        q->head++;
    }
    pthread_mutex_unlock(&q->lock);
    return taken;
}

/* 1 and the oldest range, 0 when the queue is empty. */
static int range_take(range_queue *q, void **addr, size_t *len)
{
    pthread_mutex_lock(&q->lock);
    int any = q->tail != q->head;
    if (any) {
        *addr = q->ranges[q->tail % q->size].addr;
        *len = q->ranges[q->tail % q->size].len;
        q->tail++;
    }
    pthread_mutex_unlock(&q->lock);
    return any;
}

/* Ranges being written already (a thread's first chunk, a device file's
 * chunk) that the preparer populates ahead of their writer. A full queue
 * drops a request: populating only saves faults. */
static range_queue populate_queue = {.lock = PTHREAD_MUTEX_INITIALIZER, .size = 32};

void ot_stream_populate_later(void *addr, size_t len, int start)
{
    if (!(start ? preparer_available() : __atomic_load_n(&preparer_running, __ATOMIC_ACQUIRE)))
        return;
    range_put(&populate_queue, addr, len);
    sem_post(&preparer_wakeup);
}

/* A range may have been unmapped since it was asked for: madvise then
 * fails, or populates whatever is mapped there now, which changes no data. */
static void populate_requested(void)
{
    void *addr;
    size_t len;
    while (range_take(&populate_queue, &addr, &len))
        ot_pages_populate(addr, len, 0);
}

/* Chunks their owners filled, for the preparer to unmap. Unmapping a
 * filled 1 MiB chunk of a shared file mapping costs 0.2-0.25 ms on the
 * reference VM (the kernel walks its 256 page table entries and marks each
 * page dirty: unmap_page_range, block_dirty_folio), about 100 ns of every
 * empty mapped target region and 15 ns of every record when the owner paid
 * it at its chunk switch (perf, issue 18, tenth round). A full queue hands
 * the chunk back to its owner. */
static range_queue unmap_queue = {.lock = PTHREAD_MUTEX_INITIALIZER, .size = RANGE_QUEUE};
/* Held while chunks are taken from the queue and unmapped, so that
 * ot_helpers_unmap_pending also waits for one the preparer has taken. The
 * owners never take it. */
static pthread_mutex_t unmapping_lock = PTHREAD_MUTEX_INITIALIZER;

int ot_helpers_unmap_later(void *addr, size_t len)
{
    if (!__atomic_load_n(&preparer_running, __ATOMIC_ACQUIRE) || __atomic_load_n(&helpers_stop, __ATOMIC_ACQUIRE))
        return 0;
    if (!range_put(&unmap_queue, addr, len))
        return 0;
    sem_post(&preparer_wakeup);
    return 1;
}

void ot_helpers_unmap_pending(void)
{
    void *addr;
    size_t len;
    pthread_mutex_lock(&unmapping_lock);
    while (range_take(&unmap_queue, &addr, &len))
        munmap(addr, len);
    pthread_mutex_unlock(&unmapping_lock);
}

static void *preparer_main(void *unused)
{
    while (!__atomic_load_n(&helpers_stop, __ATOMIC_ACQUIRE)) {
        while (sem_wait(&preparer_wakeup) != 0 && errno == EINTR)
            ;
        populate_requested();
        ot_stream *const *streams;
        unsigned n = ot_streams_registered(&streams);
        for (unsigned i = 0; i < n; i++) {
            ot_stream *s = __atomic_load_n(&streams[i], __ATOMIC_ACQUIRE);
            if (!s || !__atomic_exchange_n(&s->wants_chunk, 0, __ATOMIC_ACQ_REL))
                continue;
            /* Over budget the owner maps its next chunk itself, after a flush. */
            if (ot_budget_over(ot_the_session.chunk_bytes))
                continue;
            int error; /* the owner tries again itself, and counts what it loses */
            pthread_mutex_lock(s->lock);
            if (!s->prepared)
                s->prepared = ot_chunk_map_locked(s, 1, &s->prepared_offset, &error);
            pthread_mutex_unlock(s->lock);
        }
        ot_helpers_unmap_pending(); /* after the chunks an owner may wait for */
    }
    return NULL;
}

/* The background writer: past half the budget, write out what every stream
 * has completed, until under the mark again or nothing is left to write. */
static void *writer_main(void *unused)
{
    while (!__atomic_load_n(&helpers_stop, __ATOMIC_ACQUIRE)) {
        while (sem_wait(&writer_wakeup) != 0 && errno == EINTR)
            ;
        uint64_t wrote;
        do {
            wrote = 0;
            ot_stream *const *streams;
            unsigned n = ot_streams_registered(&streams);
            for (unsigned i = 0; i < n && ot_budget_past_writeback_mark(); i++) {
                ot_stream *s = __atomic_load_n(&streams[i], __ATOMIC_ACQUIRE);
                uint64_t from, bytes = s ? ot_chunk_claim_unwritten(s, &from) : 0;
                if (!bytes)
                    continue;
                ot_chunk_write_range(s, from, bytes);
                wrote += bytes;
                /* In raw/counters: the converter runs in another process. */
                __atomic_fetch_add(&ot_the_session.counters->background_writebacks, 1, __ATOMIC_RELAXED);
                __atomic_fetch_add(&ot_the_session.counters->background_writeback_bytes, bytes, __ATOMIC_RELAXED);
            }
        } while (wrote && ot_budget_past_writeback_mark() && !__atomic_load_n(&helpers_stop, __ATOMIC_ACQUIRE));
    }
    return NULL;
}

int ot_stream_start_preparer(int writeback)
{
    if (sem_init(&preparer_wakeup, 0, 0) != 0 || sem_init(&writer_wakeup, 0, 0) != 0)
        return -errno;
    helpers_allowed = 1;
    writer_allowed = writeback;
    return 0;
}

void ot_stream_stop_preparer(void)
{
    pthread_mutex_lock(&helpers_lock); /* no helper starts from now on */
    __atomic_store_n(&helpers_stop, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&helpers_lock);
    if (preparer_running) {
        sem_post(&preparer_wakeup);
        pthread_join(preparer, NULL);
        preparer_running = 0;
    }
    ot_helpers_unmap_pending(); /* what the preparer had not reached */
    if (writer_running) {
        sem_post(&writer_wakeup);
        pthread_join(writer, NULL);
        writer_running = 0;
    }
}

void ot_helpers_request_chunk(ot_stream *s)
{
    if (!preparer_available())
        return;
    __atomic_store_n(&s->wants_chunk, 1, __ATOMIC_RELEASE);
    sem_post(&preparer_wakeup);
}

void ot_helpers_wake_writer(void)
{
    if (writer_allowed && start_helper(&writer_running, &writer, writer_main))
        sem_post(&writer_wakeup);
}

#define _GNU_SOURCE
#include "stream.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "session.h"
#include "stream_internal.h"

OT_TLS ot_stream *ot_stream_current;
OT_TLS uint32_t ot_thread_kind;
int ot_recording;

/* Streams are never freed while the process runs: a stream whose thread
 * has ended still owns its header mapping, which the exit path reads. */

#define MAX_PREPARED_STREAMS 1024

static ot_stream *all_streams[MAX_PREPARED_STREAMS];
static unsigned stream_count;          /* atomic */

unsigned ot_streams_registered(ot_stream *const **list)
{
    *list = all_streams;
    return __atomic_load_n(&stream_count, __ATOMIC_ACQUIRE);
}

/* The memory budget (OFFTRACE_MEMORY_BUDGET): bytes of trace data held in
 * memory, mapped chunks plus completed chunks not yet written to disk. Only
 * slow paths touch it.
 *
 * Why a background writer: a thread that finds the budget exhausted must
 * write its records to disk itself, inside an OpenMP call of the program
 * (60 ms for 64 MiB on the reference machine's disk). Once half the budget
 * is held, the writer thread writes completed chunks out and drops them from
 * the page cache, so program threads meet an exhausted budget only when the
 * disk cannot keep up. Traces under half the budget never touch the disk
 * before the program ends. */
static uint64_t held_bytes;      /* atomic */
static uint64_t flush_count;     /* atomic */

int ot_budget_over(size_t extra)
{
    return __atomic_load_n(&held_bytes, __ATOMIC_RELAXED) + extra > ot_the_session.memory_budget;
}

int ot_budget_past_writeback_mark(void)
{
    return __atomic_load_n(&held_bytes, __ATOMIC_RELAXED) > ot_the_session.memory_budget / 2;
}


/* Make every page of a shared file mapping present and writable now,
 * here, instead of a write fault per page in a callback later (on ext4 a
 * first store into a page of a shared mapping costs several µs).
 * MADV_POPULATE_WRITE (Linux 5.14) does it in one call without touching the
 * data; without it, and only where nobody writes yet (\p may_store), a store
 * of 0 into each page's first event byte leaves those slots uncommitted. */
void ot_pages_populate(void *p, size_t len, int may_store)
{
    if (madvise(p, len, MADV_POPULATE_WRITE) == 0 || !may_store)
        return;
    for (size_t page = 0; page < len; page += 4096)
        ((volatile offtrace_raw_record *)((char *)p + page))->event = OFFTRACE_RAW_NONE;
}

/* The stream's file, opened by name for one use and checked to be the file
 * the stream created: offtrace holds no descriptor while the program runs
 * (a program that closes every descriptor it did not open, then opens its
 * own files on the same numbers, must never have offtrace's records mapped
 * into them). */
static int open_stream_file(ot_stream *s, int flags)
{
    char name[32];
    snprintf(name, sizeof name, "thread-%u.rec", s->header->thread_index);
    return ot_session_open_file(name, flags, &s->file);
}

/* Allocate [offset, offset + bytes) of the open file \p fd and map it.
 * Blocks are allocated first (this also grows the file): on a full disk a
 * store into a page nothing backs would raise SIGBUS in the program; this
 * fails instead, and the records are counted lost. The descriptor is checked
 * again before it is used: a program thread may have closed it and opened a
 * file of its own on the same number meanwhile. */
static void *allocate_and_map(int fd, const ot_file_id *file, uint64_t offset, size_t bytes, int *error)
{
    int rc = ot_session_file_is(fd, file) ? -posix_fallocate(fd, (off_t)offset, (off_t)bytes) : -ESTALE;
    void *p = MAP_FAILED;
    if (!rc && !ot_session_file_is(fd, file))
        rc = -ESTALE;
    if (!rc && (p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset)) == MAP_FAILED)
        rc = -errno;
    *error = rc;
    return rc ? NULL : p;
}

/* Extend the file and map its next chunk; called with s->lock held. */
offtrace_raw_record *ot_chunk_map_locked(ot_stream *s, int touch, uint64_t *offset_out, int *error)
{
    size_t chunk = ot_the_session.chunk_bytes;
    uint64_t offset = s->file_bytes;
    *error = ot_session_reserve_bytes(chunk);
    if (*error)
        return NULL;
    int fd = open_stream_file(s, O_RDWR);
    void *p = fd < 0 ? NULL : allocate_and_map(fd, &s->file, offset, chunk, error);
    if (fd < 0)
        *error = fd;
    else
        close(fd);
    if (!p) {
        ot_session_unreserve_bytes(chunk);
        return NULL;
    }
    __atomic_fetch_add(&held_bytes, chunk, __ATOMIC_RELAXED);
    s->file_bytes = offset + chunk;
    *offset_out = offset;
    if (touch)
        ot_pages_populate(p, chunk, 1);
    return p;
}

/* Take the stream's completed chunks that nobody has written yet; whoever
 * claims a range writes it, so the owner and the writer never both do. */
uint64_t ot_chunk_claim_unwritten(ot_stream *s, uint64_t *from)
{
    pthread_mutex_lock(s->lock);
    *from = s->clean_end;
    uint64_t bytes = s->completed_end - s->clean_end;
    s->clean_end = s->completed_end;
    pthread_mutex_unlock(s->lock);
    return bytes;
}

/* Write a claimed range to disk and drop it from the page cache. The pages
 * are counted free even if the write failed: the kernel keeps retrying them,
 * and a budget that never recovers would stall every later chunk switch. */
void ot_chunk_write_range(ot_stream *s, uint64_t from, uint64_t bytes)
{
    ot_helpers_unmap_pending();
    int fd = open_stream_file(s, O_RDONLY);
    if (fd >= 0 && sync_file_range(fd, (off_t)from, (off_t)bytes, SYNC_FILE_RANGE_WAIT_BEFORE |
                                   SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) == 0 &&
        ot_session_file_is(fd, &s->file))
        posix_fadvise(fd, (off_t)from, (off_t)bytes, POSIX_FADV_DONTNEED);
    if (fd >= 0)
        close(fd);
    __atomic_fetch_sub(&held_bytes, bytes, __ATOMIC_RELAXED);
}

/* Over budget: write this thread's completed chunks to disk now and drop
 * them from the page cache, between two FLUSH records so that the trace
 * shows what it cost. Called right after a switch, so the new chunk has
 * room for both records. */
static void put_flush_record(ot_stream *s, uint8_t endpoint, uint64_t id, uint64_t bytes)
{
    offtrace_raw_record r = {.time = ot_clock_ticks(), .id = id, .bytes = bytes, .endpoint = endpoint,
                             .event = OFFTRACE_RAW_FLUSH};
    ot_stream_store(s->next++, &r);
}

static void flush_to_disk(ot_stream *s)
{
    uint64_t from, bytes = ot_chunk_claim_unwritten(s, &from);
    if (!bytes)
        return; /* the writer has it in hand */
    uint64_t id = s->id_base | ++s->id_counter;
    put_flush_record(s, OFFTRACE_RAW_BEGIN, id, 0);
    ot_chunk_write_range(s, from, bytes);
    __atomic_fetch_add(&flush_count, 1, __ATOMIC_RELAXED);
    put_flush_record(s, OFFTRACE_RAW_END, id, bytes);
}

uint64_t ot_stream_flushes(void)
{
    return __atomic_load_n(&flush_count, __ATOMIC_RELAXED);
}

/* Switch to the prepared chunk, or map one now if none is ready. */
static int map_next_chunk(ot_stream *s)
{
    size_t chunk = ot_the_session.chunk_bytes;
    uint64_t offset = 0;
    int error = 0;
    pthread_mutex_lock(s->lock);
    offtrace_raw_record *p = s->prepared;
    int populated = p != NULL;
    if (p)
        offset = s->prepared_offset;
    else
        p = ot_chunk_map_locked(s, 0, &offset, &error);
    s->prepared = NULL;
    pthread_mutex_unlock(s->lock);
    if (!p)
        return error;
    if (!populated) { /* a thread's first chunk, or the preparer fell behind */
        /* No read-around: the first fault into a fresh chunk would otherwise
         * bring the whole chunk into the page cache at once (the disk's
         * read-ahead, 8 MiB on the reference VM: 0.3 ms for a 1 MiB chunk,
         * in the callback, even for a program that writes one page of it).
         * Each page then faults alone, about 1.5 µs dearer, and the owner
         * faults a quarter of the chunk at most: the preparer is asked for
         * the rest when the fast path reaches it (ot_stream_reserve_slow). */
        madvise(p, chunk, MADV_RANDOM);
        ot_stream_populate_later(p, chunk, 0);
    }
    s->unpopulated = populated ? NULL : p;
    /* The filled chunk is unmapped by the preparer where one runs (0.2 ms
     * of the kernel's time per chunk, stream_helpers.c), by the owner where
     * none does or past the writeback mark. Unmapped before it is written
     * back either way (ot_chunk_write_range waits for the preparer's):
     * pages still mapped would stay in memory after the write. */
    if (s->end) {
        void *filled = (char *)s->end - chunk;
        if (ot_budget_past_writeback_mark() || !ot_helpers_unmap_later(filled, chunk))
            munmap(filled, chunk);
    }
    s->next = p;
    s->end = (offtrace_raw_record *)((char *)p + chunk);
    /* The next chunk is asked for only a quarter into this one: a program
     * whose records fit one chunk then never has a second one mapped and
     * touched (0.3 ms of the other core's time, which a 2-core machine's
     * OpenMP team wants), and a busy one still gives the preparer three
     * quarters of a chunk to be ready. */
    s->limit = s->next + chunk / sizeof *s->next / 4;
    pthread_mutex_lock(s->lock);
    s->completed_end = offset; /* every chunk before the new one is full */
    if (!s->clean_end)
        s->clean_end = offset; /* the header page is not the budget's */
    pthread_mutex_unlock(s->lock);
    if (ot_budget_over(0))
        flush_to_disk(s);
    else if (ot_budget_past_writeback_mark())
        ot_helpers_wake_writer();
    ot_session_clock_pair();
    return 0;
}

/* Streams of threads that ended, for the next thread to take over: a
 * program that starts thousands of short-lived threads one after another
 * then uses a few streams (and trace locations), not thousands, and their
 * prepared chunks are reused instead of piling up. */
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static ot_stream *free_streams;

static ot_stream *take_free_stream(void)
{
    pthread_mutex_lock(&free_lock);
    ot_stream *s = free_streams;
    if (s)
        free_streams = s->next_free;
    pthread_mutex_unlock(&free_lock);
    return s;
}

static void give_back_stream(ot_stream *s)
{
    pthread_mutex_lock(&free_lock);
    s->next_free = free_streams;
    free_streams = s;
    pthread_mutex_unlock(&free_lock);
}

static void remove_stream_file(uint32_t index)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/thread-%u.rec", ot_the_session.raw_dir, index);
    unlink(path);
}

/* A new stream file: its header page allocated (a sparse page would raise
 * SIGBUS at the first store on a full disk), mapped, the descriptor closed. */
static ot_stream *stream_create(int *error)
{
    ot_session *ses = &ot_the_session;
    ot_session_rate_pair(1); /* no record before the pair that gives the tick rate (session.h) */
    ot_stream *s = calloc(1, sizeof *s);
    if (!s) {
        *error = -ENOMEM;
        return NULL;
    }
    uint32_t index = __atomic_fetch_add(&ses->next_thread_index, 1, __ATOMIC_RELAXED);
    char name[32];
    snprintf(name, sizeof name, "thread-%u.rec", index);
    *error = ot_session_reserve_bytes(OFFTRACE_RAW_HEADER_SIZE);
    if (*error) {
        free(s);
        return NULL;
    }
    int fd = ot_session_open_file(name, O_RDWR | O_CREAT | O_EXCL, &s->file);
    s->header = fd < 0 ? NULL : allocate_and_map(fd, &s->file, 0, OFFTRACE_RAW_HEADER_SIZE, error);
    if (fd < 0)
        *error = fd;
    else
        close(fd);
    s->lock = s->header ? malloc(sizeof(pthread_mutex_t)) : NULL;
    if (!s->lock) {
        if (s->header) {
            munmap(s->header, OFFTRACE_RAW_HEADER_SIZE);
            *error = -ENOMEM;
        }
        if (fd >= 0)
            remove_stream_file(index);
        ot_session_unreserve_bytes(OFFTRACE_RAW_HEADER_SIZE);
        free(s);
        return NULL;
    }
    pthread_mutex_init(s->lock, NULL);
    s->pending = &s->header->pending;
    offtrace_raw_stream_header *h = s->header;
    memcpy(h->magic, OFFTRACE_RAW_MAGIC, sizeof h->magic);
    h->version = OFFTRACE_RAW_VERSION;
    h->record_size = sizeof(offtrace_raw_record);
    h->thread_index = index;
    h->thread_kind = ot_thread_kind;
    h->os_tid = (int32_t)syscall(SYS_gettid);
    h->is_process_main = h->os_tid == (int32_t)getpid();
    h->chunk_bytes = ot_the_session.chunk_bytes;
    s->file_bytes = OFFTRACE_RAW_HEADER_SIZE;
    s->id_base = (uint64_t)(index + 1) << 40;
    unsigned slot = __atomic_fetch_add(&stream_count, 1, __ATOMIC_ACQ_REL);
    if (slot < MAX_PREPARED_STREAMS)
        __atomic_store_n(&all_streams[slot], s, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&stream_count, MAX_PREPARED_STREAMS, __ATOMIC_RELEASE);
    return s;
}

/* Slow path: first record of a thread, or a full chunk. Saves errno because
 * it runs inside the program's OpenMP calls. */
static ot_stream orphan; /* its scratch slot catches records of threads without a stream */

/* Ids of operations whose records were lost because their thread has no
 * stream: never 0 and never a stream's id (those are (index + 1) << 40 |
 * counter), so device records of such a target region name a region the
 * converter does not know, and are counted, instead of naming "no region"
 * and being drawn outside every target region. */
uint64_t ot_stream_orphan_id(void)
{
    static uint64_t orphan_ids; /* atomic */
    return 1ull << 63 | __atomic_add_fetch(&orphan_ids, 1, __ATOMIC_RELAXED);
}

/* A thread that could not get a stream tries again every 256 records, not
 * at every callback: a full disk or descriptor table must not make each
 * callback a system call. */
static OT_TLS unsigned records_without_stream;
static OT_TLS unsigned without_stream_cause;

/* The calling thread's stream: its own, one a finished thread left, or a
 * new one. NULL when not recording (before start, after the end, in a forked
 * child: not part of this recording, so not counted as lost either) or when
 * no stream can be had (counted, by cause). */
static ot_stream *current_stream(void)
{
    if (!__atomic_load_n(&ot_recording, __ATOMIC_ACQUIRE))
        return NULL;
    ot_stream *s = ot_stream_current;
    if (!s && (s = take_free_stream()))
        ot_stream_current = s;
    if (!s && records_without_stream % 256 == 0) {
        int error = 0;
        if ((s = stream_create(&error)))
            ot_stream_current = s;
        else
            without_stream_cause = ot_session_loss_cause(error);
    }
    if (s) {
        records_without_stream = 0;
        return s;
    }
    records_without_stream++;
    ot_session_count_lost(without_stream_cause, 1);
    __atomic_fetch_add(&ot_the_session.counters->lost_without_stream, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* No chunk could be had (the disk is full): the record is lost, counted in
 * the header, and the gap remembered for the LOST record written when
 * recording resumes. Mapping is retried every 256 losses, not every record:
 * a full disk must not make every callback a system call. */
static void count_lost(ot_stream *s, int error)
{
    if (!s->gap_lost)
        s->gap_start = ot_clock_ticks();
    if (error) /* a failed try: its cause holds until the next try */
        s->header->lost_cause = ot_session_loss_cause(error);
    s->gap_lost++;
    __atomic_fetch_add(&s->header->lost_records, 1, __ATOMIC_RELAXED);
    ot_session_count_lost(s->header->lost_cause, 1);
}

static void put_lost_record(ot_stream *s)
{
    offtrace_raw_record r = {.time = s->gap_start, .end_time = ot_clock_ticks(), .bytes = s->gap_lost,
                             .subkind = (uint8_t)s->header->lost_cause, .endpoint = OFFTRACE_RAW_COMPLETE,
                             .event = OFFTRACE_RAW_LOST};
    ot_stream_store(s->next++, &r);
    s->gap_lost = 0;
    s->header->lost_cause = OFFTRACE_RAW_LOSS_NONE;
}

offtrace_raw_record *ot_stream_reserve_host_openmp_slow(void)
{
    int saved_errno = errno;
    struct rlimit limit;
    int scarce = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < OT_STREAM_SCARCE_DESCRIPTORS;
    errno = saved_errno;
    if (!scarce || !__atomic_load_n(&ot_recording, __ATOMIC_ACQUIRE))
        return ot_stream_reserve();
    ot_session_count_lost(OFFTRACE_RAW_LOSS_DESCRIPTOR, 1);
    __atomic_fetch_add(&ot_the_session.counters->lost_without_stream, 1, __ATOMIC_RELAXED);
    return &orphan.scratch;
}

offtrace_raw_record *ot_stream_reserve_slow(void)
{
    int saved_errno = errno;
    offtrace_raw_record *slot = &orphan.scratch;
    ot_stream *s = current_stream();
    int error = 0;
    if (s && s->next && s->next < s->end) { /* a quarter into the chunk, or room left by another thread */
        if (s->limit != s->end) {
            s->limit = s->end;
            if (s->unpopulated) /* the owner faulted its quarter: the rest is the preparer's */
                ot_stream_populate_later(s->next, (size_t)((char *)s->end - (char *)s->next), 1);
            s->unpopulated = NULL;
            ot_helpers_request_chunk(s);
        }
        slot = s->next++;
    } else if (s && s->gap_lost % 256 == 0 && (error = map_next_chunk(s)) == 0) {
        if (s->gap_lost)
            put_lost_record(s);
        slot = s->next++;
    } else if (s) {
        count_lost(s, error);
    }
    errno = saved_errno;
    return slot;
}

offtrace_raw_record *ot_stream_pending_slow(void)
{
    int saved_errno = errno;
    ot_stream *s = current_stream();
    if (!s) {
        errno = saved_errno;
        return &orphan.scratch;
    }
    offtrace_raw_record *p = s->pending;
    if (p->event != OFFTRACE_RAW_NONE) { /* an operation inside an operation */
        ot_stream_store(ot_stream_reserve(), p);
        __atomic_store_n(&p->event, OFFTRACE_RAW_NONE, __ATOMIC_RELEASE);
    }
    errno = saved_errno;
    return p;
}

/* Why the first stream's first chunk is made and partly populated here:
 * faulted in by its writer, a fresh page of a shared file mapping costs
 * several µs in the callback that first stores into it (2-4 µs on ext4 on
 * the reference VM; CG's main thread wrote 141 pages of its first chunk
 * inside its timed solver). Called when the thread that started OpenMP
 * begins (tool.c), before any record of the program's: populating costs the
 * same per page as faulting, but before the program's own work instead of
 * inside its first target regions. Only the process's first stream: a
 * thread that starts later takes an ended thread's stream, or makes its own
 * at its first record (a program of many short-lived threads must not
 * populate a quarter chunk per thread). Only the first quarter: a program
 * that writes less pays no more than it did, and the rest goes to the
 * preparer if the records reach it. */
void ot_stream_prepare_current(void)
{
    if (ot_stream_current || __atomic_load_n(&stream_count, __ATOMIC_ACQUIRE) ||
        !__atomic_load_n(&ot_recording, __ATOMIC_ACQUIRE) || !ot_session_rate_known())
        return;
    int saved_errno = errno;
    int error = 0;
    ot_stream *s = stream_create(&error);
    if (s) {
        ot_stream_current = s;
        if (map_next_chunk(s) == 0) {
            ot_pages_populate(s->next, (size_t)((char *)s->limit - (char *)s->next), 1);
            s->unpopulated = s->limit;
        }
    }
    errno = saved_errno;
}

void ot_stream_close_current(void)
{
    ot_stream *s = ot_stream_current;
    if (!s)
        return;
    /* The thread lets go of the stream before another may take it (a late
     * callback on this thread then takes a stream of its own). The chunk
     * stays mapped: the next thread goes on writing where this one stopped,
     * so short-lived threads neither waste chunks nor leave gaps. The mutex
     * of the free list orders this thread's last record before the next
     * thread's first. */
    ot_stream_current = NULL;
    give_back_stream(s);
}

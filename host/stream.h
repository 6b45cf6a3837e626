/**
 * \file stream.h
 * \brief Per-thread record streams: the recorder's hot path.
 *
 * Who writes: each stream has one writer, its own thread, so reserving a
 * slot is a pointer bump with no atomic and no lock. Who reads: the
 * converter, only after the writers have finished or died. Ordering: a
 * record's `event` byte is stored last with release semantics
 * (ot_stream_store), so a reader that sees a non-zero event sees the whole
 * record.
 *
 * Slots live in a file-backed shared mapping (one chunk of
 * OFFTRACE_BUFFER_SIZE at a time), so records survive the death of the
 * process. When a chunk is full the slow path maps the next one; only if that
 * fails are records lost, and then they are counted in the stream header and,
 * by cause, in the session's counters. No descriptor of the file stays open:
 * it is opened by name to allocate and map a chunk, and closed at once.
 */
#ifndef OT_HOST_STREAM_H
#define OT_HOST_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/raw_format.h"
#include "session.h"

typedef struct ot_stream {
    /* Hot fields first: the callbacks touch only these. */
    offtrace_raw_record *next;   /**< next free slot */
    offtrace_raw_record *limit;  /**< where the fast path stops: a quarter into the
                                      chunk until the next one is asked for, then end */
    offtrace_raw_record *end;    /**< end of the mapped chunk */
    offtrace_raw_record *pending;/**< &header->pending */
    offtrace_raw_stream_header *header;
    uint64_t id_base;            /**< thread index << 40: ids unique without atomics */
    uint64_t id_counter;
    ot_file_id file;             /**< the stream file, opened by name for each use (no descriptor is held) */
    uint64_t file_bytes;         /**< bytes of the file mapped so far */
    /* Chunk preparation (slow path, under `lock`): the preparer thread maps
     * and pre-faults the next chunk so that the owner never takes a page
     * fault on a fresh page inside a callback. */
    void *lock;                  /**< pthread_mutex_t, kept opaque here */
    offtrace_raw_record *prepared; /**< next chunk, mapped and touched, or NULL */
    int wants_chunk;             /**< atomic: ask the preparer for a chunk */
    uint64_t prepared_offset;    /**< file offset of `prepared` */
    struct ot_stream *next_free; /**< in the list of streams whose thread ended */
    /* Writeback (under `lock`): chunks before completed_end are full and
     * unmapped; those before clean_end are on disk and out of memory, or
     * claimed by whoever is writing them. */
    uint64_t completed_end;
    uint64_t clean_end;
    /* Owner only: where the current chunk's pages stop being populated
     * (NULL: all of it is), for the preparer to do the rest. */
    offtrace_raw_record *unpopulated;
    /* Owner only: records lost since gap_start, while no chunk can be had. */
    uint64_t gap_start, gap_lost;
    offtrace_raw_record scratch __attribute__((aligned(64))); /**< written when no slot can be had */
} ot_stream;

#define OT_TLS __thread __attribute__((tls_model("initial-exec")))

extern OT_TLS ot_stream *ot_stream_current;
extern OT_TLS uint32_t ot_thread_kind; /**< from the OMPT thread_begin callback */
extern int ot_recording;                 /**< 1 while records are taken */

/** \brief Slow path: create the thread's stream or map its next chunk. */
offtrace_raw_record *ot_stream_reserve_slow(void);

/** \brief Whether the fast path of ot_stream_reserve has a slot in \p s (NULL: no stream). */
static inline int ot_stream_has_room(const ot_stream *s)
{
    return s != 0 && s->next < s->limit;
}

/** \brief ot_stream_reserve's fast path, where the caller has seen room in
 *         \p s (ot_stream_has_room), the calling thread's stream. */
static inline offtrace_raw_record *ot_stream_reserve_in(ot_stream *s)
{
    __builtin_prefetch(s->next + 8, 1, 3);
    return s->next++;
}

/**
 * \brief A slot for one record; never NULL.
 *
 * The line 8 slots on (more than the 7 records of an empty mapped target
 * region) is fetched for writing now: a record's store otherwise waits for
 * its fresh line, since the hardware prefetcher does not follow a stream of
 * a few stores among the runtime's own memory traffic. Measured inside
 * target regions (tests/bench/run_stages.sh): the stream's share fell from
 * about 157 to 86 ns per region. Past the chunk's end the prefetch is a
 * no-op: it never faults.
 */
static inline offtrace_raw_record *ot_stream_reserve(void)
{
    ot_stream *s = ot_stream_current;
    if (__builtin_expect(ot_stream_has_room(s), 1))
        return ot_stream_reserve_in(s);
    return ot_stream_reserve_slow();
}

/** \brief Slow path: a stream for the thread, or a nested operation. */
offtrace_raw_record *ot_stream_pending_slow(void);

/** Below this soft RLIMIT_NOFILE a thread's host OpenMP records do not
 *  create its stream (ot_stream_reserve_host_openmp). */
#define OT_STREAM_SCARCE_DESCRIPTORS 64

/** \brief Slow path of ot_stream_reserve_host_openmp: the thread has no stream. */
offtrace_raw_record *ot_stream_reserve_host_openmp_slow(void);

/**
 * \brief ot_stream_reserve for a host OpenMP record (tool.c).
 *
 * Why apart: a thread's first host OpenMP record comes earlier than its
 * first offload record (a team's threads start before any of them offloads),
 * often while another thread has libomptarget load the device image, which
 * opens a file of its own. Under a descriptor limit that leaves one or two
 * descriptors free, offtrace's open of the new stream file can take the one
 * libomptarget needs and make the program fail. So when the soft limit is
 * below OT_STREAM_SCARCE_DESCRIPTORS the record does not create a stream:
 * it is counted lost (cause: descriptor) until the thread's first offload
 * record creates the stream where it always did.
 */
static inline offtrace_raw_record *ot_stream_reserve_host_openmp(void)
{
    if (__builtin_expect(ot_stream_current != 0, 1))
        return ot_stream_reserve();
    return ot_stream_reserve_host_openmp_slow();
}

/**
 * \brief Where to keep the begin of a DATA_OP or SUBMIT until its end: the
 *        stream header's pending slot, emptied first if an operation is
 *        still pending there (it goes into the stream as a BEGIN record).
 *
 * Why: writing the begin to the hot header line and the whole operation
 * once at its end halves the fresh cache lines an operation costs (and the
 * raw bytes: 7 records per empty mapped region instead of 12).
 */
static inline offtrace_raw_record *ot_stream_pending_slot(void)
{
    ot_stream *s = ot_stream_current;
    if (__builtin_expect(s != 0 && s->pending->event == OFFTRACE_RAW_NONE, 1))
        return s->pending;
    return ot_stream_pending_slow();
}

/** \brief An id for an operation of a thread without a stream (slow path). */
uint64_t ot_stream_orphan_id(void);

/** \brief A fresh operation id of the stream \p s (the calling thread's, not NULL), unique in the process. */
static inline uint64_t ot_stream_next_id(ot_stream *s)
{
    return s->id_base | ++s->id_counter;
}

/** \brief A fresh operation id, unique in the process. */
static inline uint64_t ot_stream_new_id(void)
{
    ot_stream *s = ot_stream_current;
    if (__builtin_expect(s == 0, 0))
        return ot_stream_orphan_id(); /* the record went to the orphan slot and is counted lost */
    return ot_stream_next_id(s);
}

/**
 * \brief Store a record built on the stack into its slot and publish it:
 *        the fields first, the event byte last with release ordering.
 *
 * (Non-temporal stores were tried and cost 6 us more per target region on
 * the reference machine: the slot's line was last touched by the preparer
 * thread on another core.)
 */
static inline void ot_stream_store(offtrace_raw_record *slot, const offtrace_raw_record *rec)
{
    __builtin_memcpy(slot, rec, offsetof(offtrace_raw_record, event));
    __atomic_store_n(&slot->event, rec->event, __ATOMIC_RELEASE);
}

/**
 * \brief Write the end of a DATA_OP or SUBMIT. \p end is the record of the
 *        end callback (time = now, endpoint END); when its begin is the
 *        pending one it becomes one COMPLETE record, else it is written as
 *        it is.
 */
static inline void ot_stream_put_end(offtrace_raw_record *end)
{
    ot_stream *s = ot_stream_current;
    offtrace_raw_record *p = s ? s->pending : 0;
    int whole = p && p->event == end->event && p->id == end->id;
    offtrace_raw_record *slot = ot_stream_reserve(); /* the same stream: s exists */
    if (whole) {
        end->end_time = end->time;
        end->time = p->time;
        end->endpoint = OFFTRACE_RAW_COMPLETE;
    }
    ot_stream_store(slot, end);
    if (whole)
        __atomic_store_n(&p->event, OFFTRACE_RAW_NONE, __ATOMIC_RELEASE);
}

/** \brief Whether the end of the operation \p event with id \p id finds
 *         its begin pending in \p s (ot_stream_put_end's COMPLETE case)
 *         and the stream has room for the record (s not NULL). */
static inline int ot_stream_end_completes(const ot_stream *s, uint8_t event, uint64_t id)
{
    return ot_stream_has_room(s) && s->pending->event == event && s->pending->id == id;
}

/** \brief ot_stream_put_end where ot_stream_end_completes said so: the
 *         COMPLETE record, written without a call. */
static inline void ot_stream_put_complete(ot_stream *s, offtrace_raw_record *end)
{
    offtrace_raw_record *p = s->pending;
    offtrace_raw_record *slot = ot_stream_reserve_in(s);
    end->end_time = end->time;
    end->time = p->time;
    end->endpoint = OFFTRACE_RAW_COMPLETE;
    ot_stream_store(slot, end);
    __atomic_store_n(&p->event, OFFTRACE_RAW_NONE, __ATOMIC_RELEASE);
}

/** \brief Thread end: give the calling thread's stream, chunk and all, to
 *         the next thread that needs one (records stay in the file). */
/**
 * \brief Give the calling thread the process's first stream and its first
 *        chunk now, before the program's first record, with the chunk's
 *        first quarter (what the fast path writes before its next slow path)
 *        populated: the program's first records then take no page faults
 *        (stream.c). Nothing happens when any stream exists, when not
 *        recording, or before the tick rate's pair (it would wait for it
 *        here); whatever fails is left to the first record, which tries
 *        again and counts its loss.
 */
void ot_stream_prepare_current(void);

void ot_stream_close_current(void);

/** \brief How many times a thread flushed its records to disk (memory budget). */
uint64_t ot_stream_flushes(void);

/**
 * \brief Ask the preparer thread to make [addr, addr+len) of a shared file
 *        mapping present and writable while its owner starts writing at
 *        the front (no data is changed). \p start: start the preparer if it
 *        is not running yet; otherwise, without it, do nothing.
 */
void ot_stream_populate_later(void *addr, size_t len, int start);

/**
 * \brief Allow the chunk preparer and the background writer (once, at tool
 *        start-up); each thread starts when first needed. \p writeback 0
 *        leaves the writer out (OFFTRACE_BACKGROUND_WRITEBACK=off: every
 *        write to disk is then a flush on a program thread).
 */
int ot_stream_start_preparer(int writeback);

/** \brief Stop and join both helper threads (at exit, before conversion). */
void ot_stream_stop_preparer(void);

#endif

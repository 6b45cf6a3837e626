/**
 * \file raw_reader.h
 * \brief Read a recording directory (`<dir>/raw/`, see raw_format.h) back:
 *        the thread streams, the clock pairs, the device list.
 */
#ifndef OT_CONVERT_RAW_READER_H
#define OT_CONVERT_RAW_READER_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/collector.h"
#include "offtrace/raw_format.h"
#include "timemap.h"

/**
 * One thread's stream file. Its records are not held in memory (a long run
 * writes gigabytes): every pass walks them in order through a cursor's
 * fixed window (ot_raw_cursor), so the conversion's memory does not grow
 * with the trace.
 */
/**
 * A stream still being written (issue 18, sixth round: `record` converts
 * while the program runs, convert_live.c): how far a pass may read it. A
 * cursor that has read all it may asks \p wait_more, which blocks until it
 * may read more and returns the file record index it may read up to (the
 * end of the chunks the writer has left, whose times the clock map covers),
 * or OT_RAW_LIVE_ENDED once the program has ended: the stream's header is
 * read again (its pending begin and losses) and the pass goes on as over a
 * finished recording. Before each read and each wait the cursor asks
 * \p hand_over whether its pass must stop where it is, to be taken on by
 * another thread (the program has ended: record's own thread goes on at
 * normal priority, which the live thread, made SCHED_IDLE, cannot get back
 * without the right to raise its priority); the pass then sees the end of
 * its records for now, the cursor is left as it was (`handed_over`), and
 * the thread that takes it on clears `handed_over` and reads on.
 */
typedef struct ot_raw_live_gate {
    uint64_t (*wait_more)(void *context, uint64_t allowed);
    int (*hand_over)(void *context);
    void *context;
} ot_raw_live_gate;

#define OT_RAW_LIVE_ENDED UINT64_MAX

typedef struct ot_raw_stream {
    offtrace_raw_stream_header header;
    const ot_raw_live_gate *live; /**< NULL: a finished recording's stream (every stream but a live one) */
    char *path;
    /* Known once the stream has been read through (issue 18): by
     * ot_raw_count, or by the first pass that reached its end when it was
     * opened without counting (ot_raw_open). A pass that looks for kinds a
     * stream lacks skips it instead of reading it once more. A recording
     * still being written (convert --force) may commit more later: every
     * pass after that first read stops where it stopped. */
    int counted; /**< count, with_pending and the kinds below are known */
    size_t count; /**< records every pass yields: the committed records, + the pending begin */
    int with_pending; /**< the header's pending begin is yielded last */
    uint64_t events_seen[4];    /**< bit e: a record whose event byte is e */
    uint64_t target_kinds_seen; /**< bit k: a TARGET record of ompt_target_t k (all bits: one of k >= 64) */
    size_t records_at_most; /**< before it is counted: the records its file's allocated bytes can hold */
} ot_raw_stream;

/** \brief Whether \p s (counted) holds a record of event byte \p event. */
static inline int ot_raw_stream_has(const ot_raw_stream *s, uint8_t event)
{
    return (int)(s->events_seen[event >> 6] >> (event & 63) & 1);
}

/** \brief Note a record's kind in what its stream is known to hold (the
 *         counting pass; raw_reader.c and ot_raw_cursor_next). */
static inline void ot_raw_stream_note_kind(ot_raw_stream *s, const offtrace_raw_record *r)
{
    s->events_seen[r->event >> 6] |= 1ull << (r->event & 63);
    if (r->event == OFFTRACE_RAW_TARGET)
        s->target_kinds_seen |= r->subkind < 64 ? 1ull << r->subkind : UINT64_MAX;
}

/** One pass over a stream's records; see ot_raw_cursor_open. */
typedef struct ot_raw_cursor {
    ot_raw_stream *stream;
    int fd;
    offtrace_raw_record *window; /**< room for OT_RAW_WINDOW_RECORDS records */
    size_t window_len, window_pos;
    size_t window_want;          /**< records the next read asks for: grows to OT_RAW_WINDOW_RECORDS */
    uint64_t window_first;       /**< file record index of window[0] */
    uint64_t index, max, per_chunk; /**< next file record, records the file has room for, records per chunk */
    size_t yielded, limit;       /**< committed records yielded so far, and at most */
    int pending_done;
    /* reading an uncounted stream through: what it learns about it */
    int counting;
    struct { uint64_t id; uint8_t event; } last[8]; /**< the last committed records' ids and kinds, a ring */
    const ot_raw_live_gate *live; /**< the stream's, until the program ended: max is what it allows */
    const uint64_t *stop_kinds; /**< NULL, or bit e: end the pass before a record of event byte e */
    int stopped;                /**< it ended there */
    int handed_over;            /**< its live gate stopped it where it is, for another thread (the gate above) */
    /* ot_raw_cursor_next's own (issue 18, eighth round): the window position below which the window, max and
     * limit let it yield without looking at them (0 until its first call the whole way, which sets it), the
     * kinds it does not yield itself (NONE, and the stop kinds: 1 at their event byte, a byte each so that its
     * test of every record is one load; issue 18, eleventh round), and where in the window the records it
     * yielded since the last call the whole way begin: a counting pass notes their kinds and the last of them
     * there, not per record. */
    size_t fast_end, unfolded_from;
    uint8_t slow_kind[256];
} ot_raw_cursor;

/** Records a cursor reads at once (64 B each): the memory a pass needs. */
#define OT_RAW_WINDOW_RECORDS 16384u
/** A stream's first read: a short program's whole stream, without reading
 *  the rest of its first chunk (zeros); each later read is 4 times larger,
 *  up to OT_RAW_WINDOW_RECORDS. */
#define OT_RAW_FIRST_WINDOW_RECORDS 256u
/** Records a device cursor reads at once (48 B each: 192 KiB, in L2 while
 *  the pass reads them; OT_RAW_WINDOW_RECORDS' 768 KiB faulted 192 pages in
 *  at a device file's first pass: issue 18, eleventh round). */
#ifndef OT_RAW_DEVICE_WINDOW_RECORDS
#define OT_RAW_DEVICE_WINDOW_RECORDS 4096u
#endif
#ifndef OT_RAW_CURSOR_WINDOW_RECORDS
#define OT_RAW_CURSOR_WINDOW_RECORDS 2048u
#endif

typedef struct ot_raw_device {
    int num;
    char kind[64];
} ot_raw_device;

/** What the device collector delivered for one device (device-<N>.rec);
 *  its records are read by passes (ot_raw_device_cursor), not held. */
typedef struct ot_raw_device_stream {
    offtrace_raw_device_header header;
    char *path;
    size_t count;          /**< records, the zero tail (never written) left out */
    uint64_t torn_records; /**< a record cut short at the end of the file (death mid-write) */
} ot_raw_device_stream;

/** One pass over a device file's records, in file order. */
typedef struct ot_raw_device_cursor {
    int fd;
    offtrace_device_record *window; /**< OT_RAW_WINDOW_RECORDS records read at once */
    size_t window_len, window_pos, next, count; /**< next: index of the next record to read */
} ot_raw_device_cursor;

/** Why a stream or device file was not used. */
enum ot_raw_ignored {
    OT_RAW_IGNORED_OTHER_VERSION,    /**< written by another format version */
    OT_RAW_IGNORED_DAMAGED,          /**< header or size that no writer produces */
    OT_RAW_IGNORED_NOT_REGULAR_FILE, /**< a FIFO, directory, device or symbolic link: never read */
    OT_RAW_IGNORED_DUPLICATE_THREAD, /**< a second stream with one thread index */
    OT_RAW_IGNORED_UNREADABLE,       /**< could not be opened or read */
    OT_RAW_IGNORED_CAUSES
};

typedef struct ot_raw_recording {
    ot_raw_stream *streams;
    size_t stream_count;
    ot_raw_device *devices;
    size_t device_count;
    int host_device;          /**< omp_get_initial_device(), -1 if unknown */
    ot_timemap *ticks_to_ns;  /**< host ticks -> CLOCK_MONOTONIC ns */
    int64_t realtime_offset_ns; /**< realtime - monotonic at the first pair */
    char **maps_files;        /**< paths of maps.<n>, oldest first */
    size_t maps_count;
    uint64_t damaged_clock_pairs; /**< clock.pairs lines that are not three numbers below 2^62 */
    uint64_t lost_records;    /**< sum over stream headers */
    uint64_t ignored_streams; /**< stream and device files not used, all causes */
    uint64_t ignored[OT_RAW_IGNORED_CAUSES]; /**< the same by cause */
    size_t stream_files;      /**< thread-*.rec names found, used or not */
    ot_raw_device_stream *device_streams;
    size_t device_stream_count;
    offtrace_raw_counters counters; /**< raw/counters (all zero when missing or of another format) */
} ot_raw_recording;

/**
 * \brief Load `<raw_dir>`: ot_raw_open, then ot_raw_count without a visitor.
 * \param err one-line message on failure.
 * \return 0, -ENOENT when the directory is not a recording, -EINVAL when it is
 *         unusable (e.g. no clock pairs), -ENOMEM.
 */
int ot_raw_load(const char *raw_dir, ot_raw_recording *rec, char *err, size_t err_size);

/**
 * \brief Open `<raw_dir>` without reading the streams' records: their
 *        headers are checked (and duplicates dropped), their counts are not
 *        known yet (ot_raw_stream::counted is 0). Errors as ot_raw_load.
 */
int ot_raw_open(const char *raw_dir, ot_raw_recording *rec, char *err, size_t err_size);

/**
 * \brief Read `<raw_dir>/clock.pairs` again, its complete lines, while the
 *        program still appends to it (issue 18, sixth round): when the
 *        pairs read before are its first ones and it has more, \p rec's
 *        map becomes the longer one (the values of its earlier segments
 *        unchanged).
 * \return 1 when the map grew, 0 when it did not, -EPROTO when the file no
 *         longer begins with the pairs read before, -EIO, -ENOMEM.
 */
int ot_raw_clock_reload(const char *raw_dir, ot_raw_recording *rec);

/** What ot_raw_count hands each record to: nonzero stops the counting and is returned. */
typedef int (*ot_raw_visitor)(void *context, const ot_raw_stream *s, const offtrace_raw_record *r);

/**
 * \brief Read every stream that is not counted yet through once, in stream
 *        order, counting it and noting its kinds; each record a later pass
 *        will yield goes to \p visit on the way (NULL: none), so that a
 *        caller's first look at the records costs no pass of its own.
 * \return 0, -ENOMEM, or what \p visit returned.
 */
int ot_raw_count(ot_raw_recording *rec, ot_raw_visitor visit, void *context);

/**
 * \brief Whether one of the first \p records committed records of \p s
 *        (at most those a pass yields; the pending begin not among them)
 *        has its event byte's bit in \p kinds (4 words, bit e of word
 *        e / 64), or is a TARGET record whose ompt_target_t kind k has bit
 *        k in \p target_kinds. \p s is left as it was (not counted by this
 *        look).
 * \return 1, 0, or -ENOMEM.
 */
int ot_raw_stream_probe(ot_raw_stream *s, size_t records, const uint64_t *kinds, uint64_t target_kinds);

/**
 * \brief Start a pass over \p s: its committed records in the order the
 *        thread wrote them (a chunk up to its first uncommitted slot; an
 *        empty chunk ends the stream), at most the number counted (a live
 *        recording, `convert --force`, goes on committing), then the pending
 *        begin when the thread died inside an operation. A file that can no
 *        longer be read, or no longer is the stream that was loaded, yields
 *        no records of its own. On a stream not counted yet, the pass that
 *        reaches its end counts it (ot_raw_stream::counted).
 * \return 0 or -ENOMEM.
 */
int ot_raw_cursor_open(ot_raw_cursor *cur, ot_raw_stream *s);

/**
 * \brief End the pass before the first record whose event byte has its bit
 *        in \p kinds (4 words, bit e of word e / 64), and note it
 *        (ot_raw_cursor::stopped): a pass that can go on only while the
 *        stream holds none of them. \p kinds must outlive the pass.
 */
void ot_raw_cursor_stop_at(ot_raw_cursor *cur, const uint64_t *kinds);

/** \brief ot_raw_cursor_next's every case (raw_reader.c): a window to read,
 *         a chunk's end, the stream's end, counting, a stop kind, and the
 *         first call. */
const offtrace_raw_record *ot_raw_cursor_next_slowly(ot_raw_cursor *cur);

/** \brief The next record, valid until the next call; NULL at the end.
 *
 * Inline for the case of nearly every record of a pass: the next committed
 * record already in the window, not one to stop at (issue 18,
 * fifth round: the call was 2 % of a host pass). Anything else, and any
 * record that is not plainly committed, goes the whole way. */
static inline const offtrace_raw_record *ot_raw_cursor_next(ot_raw_cursor *cur)
{
    if (__builtin_expect(cur->window_pos < cur->fast_end, 1)) {
        const offtrace_raw_record *r = &cur->window[cur->window_pos];
        /* not committed, or a kind to stop at: the whole function stops there, from the same place */
        if (__builtin_expect(!cur->slow_kind[r->event], 1)) {
            cur->index++;
            cur->window_pos++;
            cur->yielded++;
            return r;
        }
    }
    return ot_raw_cursor_next_slowly(cur);
}

/** \brief End a pass (also one that did not reach the end). */
void ot_raw_cursor_close(ot_raw_cursor *cur);

/**
 * \brief Start a pass over \p ds's records (at most the number counted at
 *        load). A file that can no longer be read yields none.
 * \return 0 or -ENOMEM.
 */
int ot_raw_device_cursor_open(ot_raw_device_cursor *cur, const ot_raw_device_stream *ds);

/** \brief Read the cursor's next window (ot_raw_device_cursor_next's slow path). \return records read, 0 at the end. */
size_t ot_raw_device_cursor_refill(ot_raw_device_cursor *cur);

/** \brief The next record and its index in the file, valid until the next call; NULL at the end. Inline: a call
 *         per record was a tenth of a device pass's own instructions (issue 18, eleventh round). */
static inline const offtrace_device_record *ot_raw_device_cursor_next(ot_raw_device_cursor *cur, size_t *index)
{
    if (__builtin_expect(cur->window_pos == cur->window_len, 0) && !ot_raw_device_cursor_refill(cur))
        return NULL;
    *index = cur->next++;
    return &cur->window[cur->window_pos++];
}

/** \brief End a pass. */
void ot_raw_device_cursor_close(ot_raw_device_cursor *cur);

/** \brief Release everything ot_raw_load allocated. */
void ot_raw_free(ot_raw_recording *rec);

#endif

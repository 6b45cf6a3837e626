/**
 * \file raw_format.h
 * \brief The raw event stream: what the in-process recorders write and the
 *        converter reads.
 *
 * A recording session is a directory `<out>/raw/` holding one stream file per
 * host thread that did anything (`thread-<index>.rec`), a clock file
 * (`clock.pairs`), a device list (`devices.txt`), snapshots of the process
 * memory map (`maps.<n>`), the session's counters (`counters`, see
 * offtrace_raw_counters), a status file (`status`) and, when the program
 * used the user API, the definitions of its ids (`user.defs`, below).
 *
 * Every byte the recorder stores through a mapping is allocated on disk
 * (posix_fallocate) before the mapping is made: a store into a page a full
 * file system cannot back would kill the program with SIGBUS. The recorder
 * holds no descriptor while the program runs: files are opened by path for
 * one use (never on 0-2, close-on-exec, checked to be the file meant), so a
 * program that closes or reuses descriptors cannot reach offtrace's files.
 *
 * Stream files are written through shared file mappings, so every committed
 * record is in the page cache the moment it is written: a program that dies
 * by a signal or `_exit` leaves all of its records behind, and `offtrace
 * record` converts them after the fact.
 *
 * Concurrency: a stream file has exactly one writer, its thread. A record is
 * committed by storing its `event` byte last with release ordering; a slot
 * whose `event` is 0 has never been committed. Readers (the converter, after
 * the writers are done or dead) stop at the first uncommitted slot of a chunk.
 *
 * Versioning: readers refuse a stream whose `version` differs from
 * OFFTRACE_RAW_VERSION or whose `record_size` differs from
 * sizeof(offtrace_raw_record).
 */
#ifndef OFFTRACE_RAW_FORMAT_H
#define OFFTRACE_RAW_FORMAT_H

#include <stdint.h>

#define OFFTRACE_RAW_VERSION 11u /* 11: team summaries in device files (issue 18); 10: MPI (issue 16); 9: map entries (issue 15); 8 is NVTX's (issue 14) */
#define OFFTRACE_RAW_MAGIC "OTRAWv1"     /**< 8 bytes with the NUL */
#define OFFTRACE_RAW_HEADER_SIZE 4096u   /**< the header occupies one page */

/** Event classes carried by a raw record (the `event` byte). */
#define OFFTRACE_RAW_EVENTS(X)                                                   \
    X(TARGET, 1)     /* target construct begin/end; subkind = ompt_target_t */   \
    X(DATA_OP, 2)    /* data operation begin/end; subkind = ompt_target_data_op_t */ \
    X(SUBMIT, 3)     /* kernel submission begin/end; bytes = requested teams */ \
    X(SYNC, 4)       /* clock sync point; bytes = device clock, see below */ \
    X(FLUSH, 5)      /* the thread wrote its buffered records to disk (memory budget) */ \
    X(LOST, 6)       /* records the thread could not store; subkind = enum offtrace_raw_loss_cause */ \
    X(OMP_PARALLEL, 7)      /* host parallel region begin/end; bytes = requested team size */ \
    X(OMP_IMPLICIT_TASK, 8) /* host implicit task begin/end; bytes = actual team size, src_addr = thread number */ \
    X(OMP_WORK, 9)          /* host worksharing begin/end; subkind = ompt_work_t, bytes = count */ \
    X(OMP_CHUNK, 10)        /* a chunk handed to the thread; subkind = ompt_dispatch_t, src_addr = start, bytes = iterations */ \
    X(OMP_SYNC, 11)         /* host sync region begin/end; subkind = ompt_sync_region_t */ \
    X(OMP_SYNC_WAIT, 12)    /* the waiting part of a host sync region; subkind = ompt_sync_region_t */ \
    X(OMP_MASKED, 13)       /* host masked region begin/end (the thread that executes it) */ \
    X(OMP_TASK_CREATE, 14)  /* an explicit task created; id = task, target_id = parent, bytes = ompt flags */ \
    X(OMP_TASK_SCHEDULE, 15) /* a task switch; id = prior task, target_id = next task, subkind = ompt_task_status_t */ \
    X(OMP_TASK_DEPENDENCES, 16) /* one depend clause item; id = task, src_addr = variable, subkind = type */ \
    X(OMP_TASK_DEPENDENCE, 17)  /* a resolved edge; id = the sink task, target_id = its predecessor */ \
    /* mutual exclusion, cancellation, flush (issue 13; level all) */ \
    X(OMP_MUTEX, 20)          /* acquire (BEGIN) / released (END) of a lock, critical, ordered; subkind = ompt_mutex_t */ \
    X(OMP_MUTEX_ACQUIRED, 21) /* the acquire's wait is over; subkind = ompt_mutex_t */ \
    X(OMP_NEST_LOCK, 22)      /* a nest lock set (BEGIN) / unset (END) by its owner */ \
    X(OMP_LOCK_INIT, 23)      /* a lock initialised; subkind = ompt_mutex_t */ \
    X(OMP_LOCK_DESTROY, 24)   /* a lock destroyed; subkind = ompt_mutex_t */ \
    X(OMP_CANCEL, 25)         /* cancellation activated, detected or a task discarded; bytes = ompt_cancel_flag_t bits */ \
    X(OMP_FLUSH, 26)          /* a flush */ \
    /* the program's own words, through libofftrace-user.so (issue 14); id = the user id, see user.defs */ \
    X(USER_REGION, 30)        /* user region begin/end on the calling thread */ \
    X(USER_EVENT, 31)         /* user event begin/end on the calling thread */ \
    X(USER_VALUE, 32)         /* a user value: BEGIN, bytes = its bits (int64, uint64 or double, as defined) */ \
    /* NVTX v3 through its injection interface (issue 14; kinds 33-39); see nvtx.defs */ \
    X(NVTX_RANGE, 33)         /* push (BEGIN) / pop (END) on the calling thread, per domain */ \
    X(NVTX_START_END, 34)     /* start (BEGIN) / end (END) of a range by id, on any thread */ \
    X(NVTX_MARK, 35)          /* a mark: BEGIN */ \
    X(NVTX_PROBLEM, 36)       /* bad or unsupported input, or calls before recording: BEGIN, subkind = cause, bytes = count */ \
    /* measurement control (issue 14; kinds 40-44) */ \
    X(MEASUREMENT, 40)        /* recording switched: BEGIN subkind 0 = off (a window opens), END subkind 1 = on */ \
    /* MPI calls through libofftrace-mpi.so's PMPI wrappers (issue 16, kinds 50-59; fields below) */ \
    X(MPI_CALL, 50)           /* a wrapped call: COMPLETE, or BEGIN/END around the records below */ \
    X(MPI_SEND, 51)           /* a blocking send, before it: BEGIN */ \
    X(MPI_RECV, 52)           /* a blocking receive completed: BEGIN */ \
    X(MPI_ISEND, 53)          /* a non-blocking send started: BEGIN */ \
    X(MPI_IRECV_REQUEST, 54)  /* a non-blocking receive started: BEGIN */ \
    X(MPI_REQUEST_DONE, 55)   /* a non-blocking request completed: BEGIN */ \
    X(MPI_REQUEST_TEST, 56)   /* a request's first test that found it not complete: BEGIN */ \
    X(MPI_COLLECTIVE, 57)     /* a collective: BEGIN before it, END after */ \
    X(MPI_COMM, 58)           /* a communicator made or freed: BEGIN */ \
    X(MPI_CLOCK, 59)          /* this rank's clock against rank 0's at MPI_Init and MPI_Finalize: BEGIN */

enum offtrace_raw_event {
    OFFTRACE_RAW_NONE = 0,
#define OFFTRACE_RAW_ENUM(name, value) OFFTRACE_RAW_##name = value,
    OFFTRACE_RAW_EVENTS(OFFTRACE_RAW_ENUM)
#undef OFFTRACE_RAW_ENUM
};

/** Endpoints, as OMPT's ompt_scope_endpoint_t, plus COMPLETE: one record for
 *  a whole operation (`time` = its begin, `end_time` = its end). */
enum offtrace_raw_endpoint {
    OFFTRACE_RAW_BEGIN = 1,
    OFFTRACE_RAW_END = 2,
    OFFTRACE_RAW_COMPLETE = 3,
};

/** Bits of a record's `flags`. */
enum offtrace_raw_flag {
    OFFTRACE_RAW_FLAG_IN_CONSTRUCT = 1, /**< DATA_OP/SUBMIT inside a target construct (else: device memory API) */
    /** Reserved (no kind sets it yet): the next slot of the stream is this
     *  record's continuation, 56 payload bytes, committed before this one
     *  (docs/architecture.md, "Room for what comes next"). Readers of this
     *  version never see it set. */
    OFFTRACE_RAW_FLAG_PAYLOAD = 2,
};

/**
 * One fixed-size record: 64 bytes, one cache line. `event` is written last.
 *
 * Field use by event:
 *  - TARGET:  id = target region id; dst_device = its device; codeptr.
 *  - DATA_OP: id = host op id; target_id = enclosing target region id or 0;
 *             src/dst address and device; bytes; codeptr.
 *  - SUBMIT:  target_id; bytes = requested number of teams (the device is
 *             the enclosing target's).
 *  DATA_OP and SUBMIT are normally written once, at their end, as COMPLETE
 *  records: the fields of the end callback, `time` = the begin, `end_time`
 *  (in place of target_id; the enclosing target is the thread's innermost
 *  open one) = the end. Their begin waits meanwhile in the stream header's
 *  `pending` slot, which a crash leaves behind for the converter. An
 *  operation that begins while another is pending (nesting) pushes the
 *  pending one into the stream as a BEGIN record, and ends with an END
 *  record.
 *  - FLUSH:   begin/end of writing a thread's records to disk because the
 *             memory budget was exceeded; bytes (end) = bytes written.
 *  - LOST:    COMPLETE, written when recording resumes after records could
 *             not be stored: time = the first loss, end_time = the resumption,
 *             bytes = records lost, subkind = the cause of the first loss.
 *             (The header's lost_records counts them all, including a loss
 *             that lasted to the end; that one's cause is the header's
 *             lost_cause.)
 *  - OMP_*:   the program's own host OpenMP (not the OpenMP a host-offload
 *             kernel runs, which the device collector records): BEGIN/END
 *             records paired last-in first-out per thread and kind (id 0),
 *             codeptr = the construct; OMP_PARALLEL subkind 1 = a league
 *             (teams), bytes = requested threads; OMP_IMPLICIT_TASK bytes =
 *             actual team size, src_addr = the thread's number in the team;
 *             OMP_WORK subkind = ompt_work_t, bytes = the count at begin
 *             (a loop's trip count); OMP_SYNC and OMP_SYNC_WAIT subkind =
 *             ompt_sync_region_t; OMP_CHUNK is one BEGIN record per chunk,
 *             subkind = ompt_dispatch_t, src_addr = first logical iteration
 *             (for a section: the section's code address), bytes = iterations;
 *             the chunk lasts until the thread's next chunk or the end of the
 *             worksharing construct around it.
 *  - OMP_TASK_*: explicit tasks (level all), one BEGIN record per
 *             callback, point events. A task's id (`id` of its
 *             OMP_TASK_CREATE) is the creating thread's stream id (thread
 *             index + 1 in bits 40 and up, the thread's own counter below),
 *             made without synchronisation and kept in the task's
 *             ompt_data_t; 0 names an implicit task. OMP_TASK_CREATE:
 *             target_id = the parent (encountering) task, codeptr = the
 *             creation site, bytes = ompt_task_flag_t bits (explicit,
 *             undeferred, final, untied, mergeable, target, taskwait),
 *             subkind 1 = it has dependences. OMP_TASK_SCHEDULE, on the
 *             thread that switches: id = the prior task, subkind =
 *             ompt_task_status_t (how its period ended), target_id = the
 *             task that runs next. OMP_TASK_DEPENDENCES: one per depend
 *             item, right after the creation: src_addr = the variable,
 *             subkind = ompt_dependence_type_t, bytes = the item count.
 *             OMP_TASK_DEPENDENCE: an edge the runtime resolved at the
 *             sink's creation: id = sink, target_id = the source task.
 *  - OMP_MUTEX, OMP_MUTEX_ACQUIRED, OMP_NEST_LOCK, OMP_LOCK_INIT,
 *             OMP_LOCK_DESTROY, OMP_CANCEL, OMP_FLUSH (level all): one record
 *             per callback, src_addr = the wait id (the lock's or critical's
 *             address) and codeptr = the call site for every mutex kind.
 *             OMP_MUTEX BEGIN is mutex_acquire (bytes = the hint, dst_addr =
 *             the implementation), its END mutex_released (libomp reports an
 *             omp_test_lock's release as kind lock); OMP_MUTEX_ACQUIRED ends
 *             the wait (none follows a failed omp_test_lock, nor the inner
 *             set of a nest lock by its owner, which OMP_NEST_LOCK BEGIN
 *             follows instead, and whose unset is OMP_NEST_LOCK END, not a
 *             release). An acquired that comes while the acquire's record is
 *             still the stream's last (the usual case: a waiting thread
 *             records nothing) turns that record into COMPLETE, end_time =
 *             the acquired, instead. So the wait (acquire to acquired) and
 *             the hold (acquired to END) come from two records (three at
 *             most), paired at conversion per thread and wait id.
 *             OMP_LOCK_INIT (bytes = hint, dst_addr = implementation) and
 *             OMP_LOCK_DESTROY, OMP_CANCEL (bytes = the flags) and OMP_FLUSH
 *             are single BEGIN records: instants.
 *  - USER_REGION, USER_EVENT (BEGIN/END), USER_VALUE (BEGIN): calls of the
 *             user API (include/offtrace/offtrace_user.h) on the thread that
 *             made them; id = the user id (regions, events and values share
 *             one id space, dense from 1), bytes = a value's bits. What an id
 *             names is in `user.defs` (below), written before its first use.
 *  - NVTX_RANGE, NVTX_START_END, NVTX_MARK: NVTX v3 calls of the program
 *             (host/nvtx_injection.c) on the thread that made them:
 *             dst_addr = the message's text id (nvtx.defs; 0: none),
 *             target_id = the domain id (0: NVTX's default domain),
 *             codeptr = the category, bytes = the payload's bits (an integer
 *             sign-extended to 64 bits, a float widened to double), subkind
 *             = NVTX's payload type (0: none), src_addr = bit 32 set when an
 *             ARGB colour is given, in bits 0-31. NVTX_RANGE END (a pop)
 *             carries only the domain; NVTX_START_END: id = the range id the
 *             program got (the starting thread's token in bits 40-62, its
 *             count below), its END only the id, on the ending thread (one
 *             ended on another thread is also in nvtx.defs). NVTX_PROBLEM: subkind = enum
 *             offtrace_raw_nvtx_problem, bytes = how many.
 *  - SYNC:    a (host, device) clock pair: time = host ticks halfway through
 *             the device clock read, src_addr = how many host ticks the read
 *             took (its uncertainty), bytes = the device clock, dst_device =
 *             the device, subkind = enum offtrace_raw_sync_reason, target_id
 *             = the target region at whose begin/end it was taken, or 0.
 *  - MEASUREMENT: a switch of recording (measurement control, issue 14) on
 *             the switching thread: BEGIN (subkind 0) when it goes off, END
 *             (subkind 1) when it goes on again; the pair bounds a window
 *             whose events were not recorded. A start paused is a BEGIN at
 *             the tool's initialisation. A target construct begun while off
 *             has no record and gives the device collector the target id
 *             UINT64_MAX, whose device records the converter leaves out.
 *  - MPI_*:   issue 16, docs/mpi.md; written by libofftrace-mpi.so on the
 *             thread that called MPI. A communicator is named by its job-wide
 *             id (OFFTRACE_RAW_MPI_COMM_*; derived ones as `mpi.comms` says),
 *             a peer by its rank in that communicator, bytes are count *
 *             MPI_Type_size. MPI_CALL: subkind = the call number
 *             (offtrace/mpi_calls.h), codeptr = the caller; COMPLETE for a
 *             call that records nothing else, else BEGIN ... END around its
 *             other records. MPI_SEND: id = comm, src_addr = destination
 *             rank, dst_addr = tag, bytes. MPI_RECV: id = comm, src_addr =
 *             source rank (from the status), dst_addr = tag (from the
 *             status), bytes (MPI_Get_count). MPI_ISEND: as MPI_SEND plus
 *             target_id = the request id (a per-process counter from 1).
 *             MPI_IRECV_REQUEST: id = comm, target_id = the request id.
 *             MPI_REQUEST_DONE: target_id = the request id, subkind = enum
 *             offtrace_raw_mpi_done; for a receive also id = comm, src_addr
 *             = source, dst_addr = tag, bytes. MPI_REQUEST_TEST: target_id.
 *             MPI_COLLECTIVE: BEGIN carries nothing; END: id = comm,
 *             subkind = the operation (OFFTRACE_RAW_MPI_COLL_*, OTF2's
 *             values), src_addr = the root's rank (OFFTRACE_RAW_MPI_NO_ROOT:
 *             none), bytes = bytes this rank sent, dst_addr = bytes it
 *             received (Score-P's rules, docs/mpi.md). MPI_COMM: id = the
 *             communicator, subkind = enum offtrace_raw_mpi_comm_op, bytes =
 *             its size, src_addr = this rank's rank in it, target_id = the
 *             communicator it was made from (OFFTRACE_RAW_MPI_COMM_UNKNOWN:
 *             none). MPI_CLOCK: subkind = enum offtrace_raw_mpi_clock_phase,
 *             id = 1 when this rank shares rank 0's boot (one clock: offset
 *             0 by rule, not measured), bytes = the offset in ns (int64 bits)
 *             to add to this rank's CLOCK_MONOTONIC ns to get rank 0's,
 *             src_addr = the fastest round trip in ns, dst_addr = rank 0's
 *             CLOCK_MONOTONIC ns at the measurement (the same line goes to
 *             `mpi.clock`).
 */
typedef struct offtrace_raw_record {
    uint64_t time;       /**< host clock ticks, see clock.pairs */
    uint64_t id;         /**< operation id, unique within the process */
    union {
        uint64_t target_id; /**< enclosing target region id, 0 if none */
        uint64_t end_time;  /**< COMPLETE records: host ticks at the end */
    };
    uint64_t codeptr;    /**< return address in the user's code */
    uint64_t bytes;      /**< bytes moved or allocated (see above) */
    uint64_t src_addr;
    uint64_t dst_addr;
    int16_t src_device;  /**< OpenMP device number; the host is omp_get_initial_device() */
    int16_t dst_device;  /**< for TARGET: the device the construct is for */
    uint8_t subkind;     /**< ompt_target_t or ompt_target_data_op_t */
    uint8_t endpoint;    /**< enum offtrace_raw_endpoint */
    uint8_t flags;       /**< enum offtrace_raw_flag bits */
    uint8_t event;       /**< enum offtrace_raw_event; written last (commit) */
} offtrace_raw_record;

_Static_assert(sizeof(offtrace_raw_record) == 64, "raw record must be 64 bytes");

/** Why a SYNC record was taken (its `subkind`). */
enum offtrace_raw_sync_reason {
    OFFTRACE_RAW_SYNC_ATTACH = 1,
    OFFTRACE_RAW_SYNC_TARGET_BEGIN = 2,
    OFFTRACE_RAW_SYNC_TARGET_END = 3,
    OFFTRACE_RAW_SYNC_DETACH = 4,
};

/** Thread kinds in the stream header (values of ompt_thread_t, 0 = unknown). */
enum offtrace_raw_thread_kind {
    OFFTRACE_RAW_THREAD_UNKNOWN = 0,
    OFFTRACE_RAW_THREAD_INITIAL = 1,
    OFFTRACE_RAW_THREAD_WORKER = 2,
    OFFTRACE_RAW_THREAD_OTHER = 3,
};

/**
 * Header at offset 0 of every stream file; records start at
 * OFFTRACE_RAW_HEADER_SIZE. `lost_records` is updated by the writer with
 * relaxed atomic adds and read after the writer is gone.
 */
typedef struct offtrace_raw_stream_header {
    char magic[8];
    uint32_t version;
    uint32_t record_size;
    uint32_t thread_index;  /**< 0 for the first thread that recorded, then 1, 2, ... */
    uint32_t thread_kind;   /**< enum offtrace_raw_thread_kind */
    int32_t os_tid;
    int32_t is_process_main; /**< 1 when os_tid == pid */
    uint64_t lost_records;  /**< records this thread could not store */
    uint64_t chunk_bytes;   /**< size of each mapped chunk */
    uint32_t lost_cause;    /**< enum offtrace_raw_loss_cause of the loss going on, 0 when none */
    uint32_t reserved;
    /** The begin of the DATA_OP or SUBMIT in progress (event 0: none), kept
     *  here, on a line that stays in cache, until its end writes it out as a
     *  COMPLETE record. Left set only by a thread that died in between. */
    offtrace_raw_record pending __attribute__((aligned(64)));
} offtrace_raw_stream_header;

/**
 * Device records: `device-<N>.rec` holds what the device collector handed
 * over for device N (offtrace/collector.h), as flushes delivered them: this
 * header, then offtrace_device_record after offtrace_device_record, written
 * into the file in batches (host/device_sink.c), so what was written
 * survives the death of the process; a zero tail (kind 0, left by recorders
 * that mapped the file) is no record. Records of
 * one device thread or stream appear in the order they happened; records of
 * different threads interleave by flush.
 */
#define OFFTRACE_RAW_DEVICE_MAGIC "OTDEVv1" /**< 8 bytes with the NUL */

typedef struct offtrace_raw_device_header {
    char magic[8];
    uint32_t version;       /**< OFFTRACE_RAW_VERSION */
    uint32_t record_size;   /**< sizeof(offtrace_device_record) */
    int32_t device_num;
    uint32_t reserved;
    uint64_t lost_records;  /**< records the host could not write (updated at exit) */
    char backend[32];       /**< the collector backend that served the device */
} offtrace_raw_device_header;

_Static_assert(sizeof(offtrace_raw_device_header) == 64, "device file header must be 64 bytes");

/** Why records were lost (LOST records' subkind, the stream header's
 *  lost_cause, the index of offtrace_raw_counters.lost). */
enum offtrace_raw_loss_cause {
    OFFTRACE_RAW_LOSS_NONE = 0,
    OFFTRACE_RAW_LOSS_DISK_FULL = 1,   /**< no space on the output file system (ENOSPC, EDQUOT) */
    OFFTRACE_RAW_LOSS_SIZE_LIMIT = 2,  /**< the recording reached OFFTRACE_MAX_RECORDING_SIZE */
    OFFTRACE_RAW_LOSS_DESCRIPTOR = 3,  /**< no file descriptor to be had (EMFILE, ENFILE), or the
                                            one opened was closed and reused by the program meanwhile */
    OFFTRACE_RAW_LOSS_OTHER = 4,       /**< any other failure to open, allocate or map a file */
    OFFTRACE_RAW_LOSS_CAUSES = 5,
};

/**
 * `counters`: one page, allocated and mapped when the session opens, updated
 * by the recording process with relaxed atomic adds and read by the
 * converter (in another process, possibly after the recorder died).
 *
 * Host records lost: lost[cause] for every cause; their sum is the stream
 * headers' lost_records plus lost_without_stream (records of threads that
 * could not get a stream file at all, so no header counts them).
 */
#define OFFTRACE_RAW_COUNTERS_MAGIC "OTCNTv1" /**< 8 bytes with the NUL */
#define OFFTRACE_RAW_COUNTERS_SIZE 4096u

typedef struct offtrace_raw_counters {
    char magic[8];
    uint32_t version;               /**< OFFTRACE_RAW_VERSION */
    uint32_t size;                  /**< sizeof(offtrace_raw_counters) */
    uint64_t lost[8];               /**< host records lost, by enum offtrace_raw_loss_cause */
    uint64_t lost_without_stream;   /**< of those, records of threads without a stream file */
    uint64_t background_writebacks; /**< writes the background writer did (memory budget) */
    uint64_t background_writeback_bytes; /**< and the bytes they wrote */
    uint64_t max_size;              /**< the size limit in force, bytes (UINT64_MAX: none) */
    uint64_t allocated_bytes;       /**< bytes of record files allocated so far (what the limit bounds) */
    uint64_t size_limit_reached;    /**< 1 once an allocation was refused by the limit */
} offtrace_raw_counters;

_Static_assert(sizeof(offtrace_raw_counters) <= OFFTRACE_RAW_COUNTERS_SIZE, "counters must fit their page");

/** One line of clock.pairs: "<ticks> <monotonic_ns> <realtime_ns>\n". */

/**
 * `user.defs`: what the user ids of USER_* records name, one definition per
 * id, appended (one write() each, O_APPEND) the first time the program uses
 * the id: "<id> <kind> <line> <name bytes> <file bytes> " then the name's and
 * the file's bytes and "\n"; kind = 1 region, 2 event, 3 int64 value,
 * 4 uint64 value, 5 double value (user/user_recorder.h); file bytes 0: none.
 * Lengths, not quoting: a name may hold any byte but NUL.
 */
#define OFFTRACE_RAW_USER_DEFS "user.defs"
#define OFFTRACE_RAW_USER_NAME_MAX 1024u /**< longer names and files are cut there */


/**
 * `filter` (issue 14, docs/filters.md): written when OFFTRACE_FILTER names
 * a filter file. This header (OFFTRACE_RAW_FILTER_HEADER_SIZE bytes,
 * mapped shared while the program runs), then the filter file's text
 * (text_bytes). `rejected` 1: the file could not be read or parsed,
 * `problem` says why and nothing was filtered. Removed events are counted
 * per thread without atomics: a thread takes a slot the first time it
 * removes one (next_slot, an atomic add); threads past the last slot add
 * atomically into `shared`. The converter sums slots and shared.
 */
#define OFFTRACE_RAW_FILTER "filter"
#define OFFTRACE_RAW_FILTER_MAGIC "OTFLTv1" /**< 8 bytes with the NUL */
#define OFFTRACE_RAW_FILTER_HEADER_SIZE 8192u
#define OFFTRACE_RAW_FILTER_SLOTS 80u

/** What a removed event was (index of a slot's `removed`). */
enum offtrace_raw_filtered_kind {
    OFFTRACE_RAW_FILTERED_USER_REGION = 0, /**< a user region, begin and end */
    OFFTRACE_RAW_FILTERED_USER_EVENT = 1,  /**< a user event's begin or end */
    OFFTRACE_RAW_FILTERED_USER_VALUE = 2,  /**< a user value */
    OFFTRACE_RAW_FILTERED_OPENMP = 3,      /**< a host OpenMP construct, begin and end */
    OFFTRACE_RAW_FILTERED_NVTX = 4,        /**< an NVTX range (begin and end) or mark */
    OFFTRACE_RAW_FILTERED_KINDS = 5,
};

typedef struct offtrace_raw_filter_slot {
    uint64_t removed[8]; /**< by enum offtrace_raw_filtered_kind; one cache line per thread */
} offtrace_raw_filter_slot;

typedef struct offtrace_raw_filter {
    char magic[8];
    uint32_t version;        /**< OFFTRACE_RAW_VERSION */
    uint32_t size;           /**< sizeof(offtrace_raw_filter) */
    uint32_t rejected;       /**< 1: not applied (problem says why) */
    uint32_t text_bytes;     /**< bytes of the filter file after the header */
    uint32_t next_slot;      /**< slots taken so far (may pass OFFTRACE_RAW_FILTER_SLOTS) */
    uint32_t reserved;
    char path[1024];         /**< the filter file, as given */
    char problem[1536];      /**< "FILE:LINE: what is wrong" when rejected */
    offtrace_raw_filter_slot shared __attribute__((aligned(64)));
    offtrace_raw_filter_slot slot[OFFTRACE_RAW_FILTER_SLOTS];
} offtrace_raw_filter;

_Static_assert(sizeof(offtrace_raw_filter) <= OFFTRACE_RAW_FILTER_HEADER_SIZE, "filter header must fit");
/**
 * `nvtx.defs`: what the text ids, domain ids and categories of NVTX_*
 * records name, appended (one write() each, O_APPEND) when the program first
 * uses a text, creates a domain or names a category: "<id> <kind> <domain>
 * <category> <text bytes> " then the text's bytes and "\n"; kind = enum
 * offtrace_raw_nvtx_def (a text: id = its text id; a domain: id = domain =
 * its id; a category: id = category = its number, in its domain). A category
 * named twice takes its last name.
 */
#define OFFTRACE_RAW_NVTX_DEFS "nvtx.defs"
#define OFFTRACE_RAW_NVTX_TEXT_MAX 1024u /**< longer texts are cut there */

enum offtrace_raw_nvtx_def {
    OFFTRACE_RAW_NVTX_DEF_STRING = 1,
    OFFTRACE_RAW_NVTX_DEF_DOMAIN = 2,
    OFFTRACE_RAW_NVTX_DEF_CATEGORY = 3,
    /** a start/end range ended on another thread than it began: id 0, the
     *  text "<range id> <host ticks of the end>" (its END record is on the
     *  ending thread's stream too) */
    OFFTRACE_RAW_NVTX_DEF_END_ELSEWHERE = 4,
    /** nvtxNameOsThreadA: id = the OS thread id, the text its name (the last one wins) */
    OFFTRACE_RAW_NVTX_DEF_THREAD_NAME = 5,
};

/** Causes of NVTX_PROBLEM records (their subkind). */
enum offtrace_raw_nvtx_problem {
    OFFTRACE_RAW_NVTX_POP_WITHOUT_PUSH = 1,  /**< a pop on a thread and domain with no push open */
    OFFTRACE_RAW_NVTX_UNKNOWN_RANGE = 2,     /**< an end of a range id never handed out */
    OFFTRACE_RAW_NVTX_NULL_MESSAGE = 3,      /**< a NULL message, name or attribute structure */
    OFFTRACE_RAW_NVTX_UNSUPPORTED = 4,       /**< a wide-character message or an unknown message type */
    OFFTRACE_RAW_NVTX_BEFORE_RECORDING = 5,  /**< calls made before recording started (bytes = how many) */
    OFFTRACE_RAW_NVTX_PROBLEMS = 6,
};

/**
 * Map entries (issue 15, docs/variables.md). With the map capture
 * (include/offtrace/capture.h) in the process, the records of an offload
 * construct say which map entry each data operation belongs to, without a
 * byte more per record:
 *  - TARGET (BEGIN and END): flags OFFTRACE_RAW_FLAG_MAP_ENTRY; codeptr =
 *    the program's own call site (the capture's return address, where
 *    OMPT's codeptr_ra points into libomptarget); bytes = the construct's
 *    map site (0: none), defined in `map-sites.defs`.
 *  - DATA_OP in such a construct: flags OFFTRACE_RAW_FLAG_MAP_ENTRY;
 *    codeptr (OMPT's, a libomptarget address, of no use) = the map
 *    reference below. Deletes name the device address only: their entry
 *    is left unknown here and found at conversion from the allocation.
 * A map reference: bits 32-63 the map site of the entry (0: none), bit 31
 * set for a pointer fix-up (the 8-byte store of a device pointer into the
 * entry's device copy, libomptarget's own transfer), bits 0-30 the entry's
 * index in the site (OFFTRACE_RAW_MAP_NO_ENTRY: no entry matched).
 */
#define OFFTRACE_RAW_FLAG_MAP_ENTRY 4u
#define OFFTRACE_RAW_MAP_FIXUP (1ull << 31)
#define OFFTRACE_RAW_MAP_NO_ENTRY 0x7FFFFFFFull
#define OFFTRACE_RAW_MAP_REF(site, index) ((uint64_t)(site) << 32 | (uint64_t)(index))
#define OFFTRACE_RAW_MAP_REF_SITE(ref) ((uint32_t)((ref) >> 32))
#define OFFTRACE_RAW_MAP_REF_INDEX(ref) ((uint32_t)((ref) & OFFTRACE_RAW_MAP_NO_ENTRY))

/**
 * `map-sites.defs`: one line per map site, appended (one write() each,
 * O_APPEND) the first time a thread meets it: a site is one construct's
 * (ident_t, names array, types array, entry count), or one component a
 * user-defined mapper pushed (its name and type, count 1). The line:
 * "<site> <entries> <psource bytes> <psource>" then per entry
 * " <type bits, hex> <name bytes> <name>" and "\n"; name bytes -1: the
 * program passed no name (built without debug info). psource is clang's
 * ";file;function;line;col;;", the names ";expr;file;line;col;;"; both
 * are copied as found, cut at OFFTRACE_RAW_MAP_NAME_MAX bytes, and parsed
 * by the converter. Entries past OFFTRACE_RAW_MAP_ENTRIES_MAX are left out.
 */
#define OFFTRACE_RAW_MAP_DEFS "map-sites.defs" /* not maps.*: those are the memory map snapshots */
#define OFFTRACE_RAW_MAP_NAME_MAX 1024u
#define OFFTRACE_RAW_MAP_ENTRIES_MAX 1024u

/* ---- MPI (issue 16, docs/mpi.md): written by libofftrace-mpi.so ---- */

/** Communicator ids every rank gives alike; derived communicators get a
 *  64-bit id with bit 63 set, the same on every member (mpi.comms). */
#define OFFTRACE_RAW_MPI_COMM_WORLD 0ull
#define OFFTRACE_RAW_MPI_COMM_SELF 1ull
#define OFFTRACE_RAW_MPI_COMM_UNKNOWN UINT64_MAX /**< a handle the wrappers never saw made */
#define OFFTRACE_RAW_MPI_NO_ROOT 0xFFFFFFFFull   /**< a collective without a root */

/** How a request ended (MPI_REQUEST_DONE's subkind). */
enum offtrace_raw_mpi_done {
    OFFTRACE_RAW_MPI_DONE_ISEND = 1,
    OFFTRACE_RAW_MPI_DONE_IRECV = 2,
    OFFTRACE_RAW_MPI_DONE_CANCELLED = 3,
};

/** What happened to a communicator (MPI_COMM's subkind). */
enum offtrace_raw_mpi_comm_op {
    OFFTRACE_RAW_MPI_COMM_OP_WORLD = 1, /**< MPI_COMM_WORLD, at MPI_Init */
    OFFTRACE_RAW_MPI_COMM_OP_DUP = 2,
    OFFTRACE_RAW_MPI_COMM_OP_SPLIT = 3, /**< MPI_Comm_split and MPI_Comm_split_type */
    OFFTRACE_RAW_MPI_COMM_OP_CREATE = 4,
    OFFTRACE_RAW_MPI_COMM_OP_FREE = 5,
};

/** When the clock was compared (MPI_CLOCK's subkind). */
enum offtrace_raw_mpi_clock_phase {
    OFFTRACE_RAW_MPI_CLOCK_INIT = 1,
    OFFTRACE_RAW_MPI_CLOCK_FINALIZE = 2,
};

/** Collective operations (MPI_COLLECTIVE END's subkind): OTF2_CollectiveOp's
 *  values, so that the converter passes them on (it checks they agree). */
#define OFFTRACE_RAW_MPI_COLLECTIVE_OPS(X) \
    X(BARRIER, 0) X(BCAST, 1) X(GATHER, 2) X(GATHERV, 3) X(SCATTER, 4) X(SCATTERV, 5) X(ALLGATHER, 6) \
    X(ALLGATHERV, 7) X(ALLTOALL, 8) X(ALLTOALLV, 9) X(ALLTOALLW, 10) X(ALLREDUCE, 11) X(REDUCE, 12) \
    X(REDUCE_SCATTER, 13) X(SCAN, 14) X(EXSCAN, 15) X(REDUCE_SCATTER_BLOCK, 16)

enum offtrace_raw_mpi_collective_op {
#define OFFTRACE_RAW_MPI_COLL_ENUM(op, value) OFFTRACE_RAW_MPI_COLL_##op = value,
    OFFTRACE_RAW_MPI_COLLECTIVE_OPS(OFFTRACE_RAW_MPI_COLL_ENUM)
#undef OFFTRACE_RAW_MPI_COLL_ENUM
    OFFTRACE_RAW_MPI_COLL_NONE = 255,
};

/**
 * The MPI files of a rank's raw/ (text, one line each, appended with one
 * write()):
 *  - `mpi.rank`: "<rank> <size> <job id> <hostname> <boot id>\n", written
 *    at MPI_Init (job id "-" when the launcher gave none).
 *  - `mpi.comms`: "<id> <parent id> <size> <world rank of member 0> ...
 *    <world rank of member size-1>\n" per derived communicator this rank
 *    is a member of (every member writes it; MPI_COMM_WORLD and
 *    MPI_COMM_SELF are implicit).
 *  - `mpi.clock`: "<init|finalize> <local ns> <offset ns> <round trip ns>
 *    <same boot 0|1>\n" per MPI_CLOCK record: rank 0's time = local +
 *    offset, in CLOCK_MONOTONIC ns of the recorder's clock pairs.
 */
#define OFFTRACE_RAW_MPI_RANK_FILE "mpi.rank"
#define OFFTRACE_RAW_MPI_COMMS_FILE "mpi.comms"
#define OFFTRACE_RAW_MPI_CLOCK_FILE "mpi.clock"

#endif /* OFFTRACE_RAW_FORMAT_H */

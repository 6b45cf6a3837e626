/**
 * \file collector.h
 * \brief The collector interface: the only way the host library and the
 *        device-side collector (libofftrace-device.so) talk to each other.
 *
 * The collector is a separate shared library, preloaded into the traced
 * program (`offtrace record` does it; by hand: `LD_PRELOAD=libofftrace-device.so`
 * next to `OMP_TOOL_LIBRARIES=libofftrace.so`). It records what happens on
 * each device into per-device buffers of fixed-size records stamped with the
 * device's own clock, and hands complete buffers to the host when asked to
 * flush. It knows nothing of OTF2 or of the host library's internals; the
 * host knows nothing of the collector's backends.
 *
 * Discovery and versioning: the collector exports one symbol,
 * OFFTRACE_COLLECTOR_ENTRY_NAME, a function of type offtrace_collector_entry_fn.
 * The host looks it up with dlsym(RTLD_DEFAULT, ...), calls it with the
 * interface version it was built for, and uses the returned table only if
 * the table's `interface_version` and `record_size` equal its own. The first
 * three fields of the table (interface_version, record_size, name) keep
 * their place in every version, so that either side can read the other's
 * version. A missing collector or one of another version is reported once
 * on stderr and tracing goes on without device detail; the collector's open
 * refuses a host of another version the same way (-EINVAL, one line).
 *
 * Version 4 (this one) adds the team summary (OFFTRACE_DEVICE_FLAG_SUMMARY on
 * a PARALLEL END record) that the host-offload backend writes at the
 * OFFTRACE_DEVICE_DETAIL levels below `threads`: the fields of such an END
 * mean something else than before, so a host of version 3 must not read it.
 *
 * Version 3 adds openmp.in_device_work: the host library records
 * the program's own host OpenMP and asks the collector which events belong
 * to device work (the OpenMP a host-offload kernel runs on host threads),
 * so that each event is recorded once, by one of them.
 *
 * Version 2: the host library registers every callback of the
 * host OpenMP runtime itself. Version 1 gave the collector the host's OMPT
 * lookup so that its host-offload backend could register the runtime's
 * parallel, implicit-task, work, sync-region and task callbacks; in version
 * 2 the host forwards those events through `openmp` (below), so that the
 * host library can record host OpenMP events from the same callbacks.
 *
 * Call sequence, all made by the host library:
 *   open (once) -> attach (per device, at device initialisation)
 *   -> { target_begin -> [operation_begin/operation_end]* -> target_end
 *        -> flush }* -> flush -> detach (per device) -> close (once).
 * device_time may be called at any point between attach and detach.
 * The `openmp` entries are called from the first attach whose device info
 * has wants_host_openmp set until the process ends (also after close, on
 * threads the program still runs: the entries must stay safe to call).
 *
 * Threads: target_begin/target_end/operation_* are called on the thread that
 * encounters the construct (a hidden helper thread for `nowait`), possibly
 * on several threads at once for the same device. flush may run concurrently
 * with recording on the device's threads: the collector only hands over
 * records that are complete. The deliver callback may be called from flush
 * or from a thread of the device runtime (CUPTI's buffer completion); the
 * host makes it safe to call from any thread.
 *
 * A backend whose runtime flushes every device at once (CUPTI) may deliver
 * records of other devices during flush(n); each record is delivered once.
 *
 * Loss: records that cannot be buffered (the per-device-thread budget is
 * exhausted) are counted and reported in an OFFTRACE_DEVICE_LOST record at
 * the next flush of that device; nothing is dropped without a count.
 *
 * Error rule: functions returning int return 0 on success and a negative
 * errno value on failure.
 */
#ifndef OFFTRACE_COLLECTOR_H
#define OFFTRACE_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include <omp-tools.h>

#define OFFTRACE_COLLECTOR_INTERFACE_VERSION 4u

/** The one symbol the collector exports. */
#define OFFTRACE_COLLECTOR_ENTRY_NAME "offtrace_collector_interface"

/** What a device record describes (the `kind` field). */
#define OFFTRACE_DEVICE_KINDS(X)                                                             \
    /* OpenMP executing on the device (host-offload backend), one thread per `thread`: */    \
    X(PARALLEL, 1)      /* parallel region on its encountering thread; BEGIN value = */      \
                        /* requested team size, subkind 1 = league of teams; an END with */  \
                        /* OFFTRACE_DEVICE_FLAG_SUMMARY carries its team's summary: */        \
                        /* offtrace_team_summary below */                                     \
    X(IMPLICIT_TASK, 2) /* a thread's implicit task; value = team size, aux = thread num */  \
    X(WORK, 3)          /* worksharing; subkind = ompt_work_t, value = iteration count */     \
    X(SYNC, 4)          /* barrier/taskwait/taskgroup; subkind = ompt_sync_region_t */        \
    X(TASK, 5)          /* an explicit task executing; codeptr = where it was created */      \
    /* Device activity (CUPTI, OMPT device tracing), `thread` = stream/queue: */              \
    X(KERNEL, 16)       /* kernel execution; op_id = host submit op that launched it; its */  \
                        /* launch configuration where known (else 0): BEGIN value = grid, */ \
                        /* END value = block and registers (offtrace_kernel_grid/_block), */ \
                        /* END codeptr = shared memory per block in bytes */                  \
    X(MEMCPY, 17)       /* copy; subkind = enum offtrace_device_copy, value = bytes */        \
    X(MEMSET, 18)       /* memset; value = bytes */                                           \
    /* Bookkeeping: */                                                                        \
    X(LOST, 32)         /* value = records this device thread could not buffer since the */  \
                        /* last flush; time = when the loss was reported */

enum offtrace_device_kind {
#define OFFTRACE_DEVICE_KIND_ENUM(name, value) OFFTRACE_DEVICE_##name = value,
    OFFTRACE_DEVICE_KINDS(OFFTRACE_DEVICE_KIND_ENUM)
#undef OFFTRACE_DEVICE_KIND_ENUM
};

/** In an operation id the host gives operation_begin/operation_end: the
 *  operation is a kernel submit, not a data operation. Activities a launch
 *  causes beside its kernel (the runtime's copies of reduction or argument
 *  buffers) are told from the copies of the program's maps by it. */
#define OFFTRACE_OPERATION_SUBMIT_BIT (1ull << 63)

/** \brief A KERNEL BEGIN record's value: the grid, x in bits 0-31, y in 32-47, z in 48-63. */
static inline uint64_t offtrace_kernel_grid(uint32_t x, uint32_t y, uint32_t z)
{
    return (uint64_t)x | (uint64_t)(y & 0xffffu) << 32 | (uint64_t)(z & 0xffffu) << 48;
}

/** \brief A KERNEL END record's value: the block, x, y, z and registers per thread, 16 bits each. */
static inline uint64_t offtrace_kernel_block(uint32_t x, uint32_t y, uint32_t z, uint32_t registers)
{
    return (uint64_t)(x & 0xffffu) | (uint64_t)(y & 0xffffu) << 16 | (uint64_t)(z & 0xffffu) << 32 |
           (uint64_t)(registers & 0xffffu) << 48;
}

/** Copy directions of OFFTRACE_DEVICE_MEMCPY (the `subkind` field). */
enum offtrace_device_copy {
    OFFTRACE_COPY_OTHER = 0,
    OFFTRACE_COPY_HOST_TO_DEVICE = 1,
    OFFTRACE_COPY_DEVICE_TO_HOST = 2,
    OFFTRACE_COPY_DEVICE_TO_DEVICE = 3,
};

/** Endpoints (the `endpoint` field); LOST uses OFFTRACE_DEVICE_POINT. */
enum offtrace_device_endpoint {
    OFFTRACE_DEVICE_BEGIN = 1,
    OFFTRACE_DEVICE_END = 2,
    OFFTRACE_DEVICE_POINT = 3,
};

/** Flags (the `flags` field). */
enum offtrace_device_flags {
    /** `thread` names a stream or queue of the device, not a device thread. */
    OFFTRACE_DEVICE_FLAG_STREAM = 1u << 0,
    /** A PARALLEL END that summarises its team (OFFTRACE_DEVICE_DETAIL=teams):
     *  value = offtrace_team_summary(threads, sum), op_id = the earliest and
     *  codeptr = the latest arrival. A thread's arrival is the time from the
     *  region's begin (its BEGIN record) to the thread's arrival at the
     *  region's closing barrier (its implicit task's end where the region
     *  has no barrier), in device clock units; the team's barrier wait,
     *  summed over its threads, is threads * latest - sum. */
    OFFTRACE_DEVICE_FLAG_SUMMARY = 1u << 1,
};

/** Most threads and largest arrival sum a team summary holds (each saturates). */
#define OFFTRACE_TEAM_SUMMARY_MAX_THREADS 0xffffu
#define OFFTRACE_TEAM_SUMMARY_MAX_SUM ((1ull << 48) - 1)

/** \brief A team summary's value: threads in bits 48-63, the sum of their arrivals in bits 0-47 (each saturated). */
static inline uint64_t offtrace_team_summary(uint64_t threads, uint64_t arrival_sum)
{
    if (threads > OFFTRACE_TEAM_SUMMARY_MAX_THREADS)
        threads = OFFTRACE_TEAM_SUMMARY_MAX_THREADS;
    if (arrival_sum > OFFTRACE_TEAM_SUMMARY_MAX_SUM)
        arrival_sum = OFFTRACE_TEAM_SUMMARY_MAX_SUM;
    return threads << 48 | arrival_sum;
}

/** \brief The threads of a team summary's value. */
static inline uint32_t offtrace_team_summary_threads(uint64_t value)
{
    return (uint32_t)(value >> 48);
}

/** \brief The sum of arrivals of a team summary's value. */
static inline uint64_t offtrace_team_summary_sum(uint64_t value)
{
    return value & OFFTRACE_TEAM_SUMMARY_MAX_SUM;
}

/**
 * One device record: 48 bytes, fixed size. Activity backends emit a BEGIN
 * and an END record per activity so that every kind reads the same way.
 * Records of one device thread are delivered in the order they happened;
 * records of one stream or queue are in order within one delivery (a
 * runtime may complete an older activity in a later buffer), so readers
 * order each queue by time.
 */
typedef struct offtrace_device_record {
    uint64_t time;      /**< device clock (the clock of device_time) */
    uint64_t target_id; /**< host target region id given to target_begin; 0 unknown */
    uint64_t op_id;     /**< host operation id (operation_begin) that caused it; 0 none;
                             with OFFTRACE_OPERATION_SUBMIT_BIT: a kernel launch */
    uint64_t codeptr;   /**< code address of the construct (host address space); 0 unknown */
    uint64_t value;     /**< kind-specific, see OFFTRACE_DEVICE_KINDS */
    uint32_t thread;    /**< device thread (0, 1, ... per device) or stream number */
    uint8_t kind;       /**< enum offtrace_device_kind */
    uint8_t subkind;
    uint8_t endpoint;   /**< enum offtrace_device_endpoint */
    uint8_t flags;      /**< enum offtrace_device_flags */
} offtrace_device_record;

_Static_assert(sizeof(offtrace_device_record) == 48, "device record must be 48 bytes");

/**
 * \brief Receives complete records of one device (called by the collector).
 * \param host_context the `context` of offtrace_collector_host
 * \param device_num   OpenMP device number
 * \param records      \p count records; valid only during the call
 */
typedef void (*offtrace_collector_deliver_fn)(void *host_context, int device_num,
                                              const offtrace_device_record *records, size_t count);

/** What the host gives the collector at open. */
typedef struct offtrace_collector_host {
    uint32_t interface_version;      /**< OFFTRACE_COLLECTOR_INTERFACE_VERSION */
    void *context;                   /**< passed back to deliver */
    offtrace_collector_deliver_fn deliver;
    int verbose;                     /**< OFFTRACE_VERBOSE */
} offtrace_collector_host;

/** What the collector says about a device it attached. */
typedef struct offtrace_collector_device_info {
    const char *backend;    /**< "host-offload", "cupti", "ompt-trace" (static string) */
    /** 1 when the backend needs operation_begin/operation_end around every
     *  submit and data operation (CUPTI correlation); 0 spares the host the calls. */
    int wants_operations;
    /** 1 when the device runs its OpenMP code on the host's own runtime
     *  (host-offload), so that the backend needs the host runtime's OpenMP
     *  events (offtrace_collector_openmp). The host registers those
     *  callbacks only once a device wants them: a trace without such a
     *  device keeps the runtime's fast paths. */
    int wants_host_openmp;
} offtrace_collector_device_info;

/**
 * The host OpenMP runtime's events the collector may need, with the OMPT
 * callbacks' own types and arguments: the host library's callback for the
 * event calls the entry with the arguments libomp gave it, unchanged, on
 * the same thread. These events carry no device number: a backend tells
 * device work from host work by its own per-thread state (set in
 * target_begin, carried to a parallel region's workers through
 * parallel_data).
 *
 * Per-region state: the collector owns the `value` of the parallel_data of
 * parallel_begin (read again by implicit_task and parallel_end) and of the
 * new_task data of task_create (read again by task_schedule); the host
 * library neither reads nor writes them, but for one case: at
 * OFFTRACE_HOST_OPENMP=all it stores its own id, after the forward, in the
 * new_task data of a task created outside device work (where the
 * collector stores 0). Every other ompt_data_t is the host's, read-only here.
 */
typedef struct offtrace_collector_openmp {
    ompt_callback_parallel_begin_t parallel_begin;
    ompt_callback_parallel_end_t parallel_end;
    ompt_callback_implicit_task_t implicit_task;
    ompt_callback_work_t work;
    ompt_callback_sync_region_t sync_region;
    ompt_callback_task_create_t task_create;
    ompt_callback_task_schedule_t task_schedule;
    /** \brief 1 when the calling thread is doing device work now (its
     *  events are the collector's), 0 when its OpenMP is the program's own
     *  on the host. The host asks after forwarding a begin (an implicit
     *  task's begin may make a team worker take up device work) and before
     *  forwarding an end (its end may give it up). Async-signal-safe: one
     *  thread-local load. */
    int (*in_device_work)(void);
} offtrace_collector_openmp;

/** The function table the collector returns. Every entry is non-NULL. */
typedef struct offtrace_collector {
    uint32_t interface_version; /**< OFFTRACE_COLLECTOR_INTERFACE_VERSION of the collector */
    uint32_t record_size;       /**< sizeof(offtrace_device_record) of the collector */
    const char *name;           /**< for messages, e.g. "libofftrace-device 0.1.0" */

    /** \brief Start the collector. \return 0, or -EINVAL for another interface version. */
    int (*open)(const offtrace_collector_host *host);

    /**
     * \brief Attach device \p device_num (from ompt_callback_device_initialize).
     * \param device_type the runtime's name for the device ("generic-64bit", "CUDA", ...)
     * \param device      the runtime's device handle
     * \param device_lookup the device's OMPT lookup (may return NULL for everything)
     * \param info        filled on success
     * \return 0, or -ENOTSUP when no backend serves this device (no device detail),
     *         or another negative errno.
     */
    int (*attach)(int device_num, const char *device_type, ompt_device_t *device,
                  ompt_function_lookup_t device_lookup, offtrace_collector_device_info *info);

    /** \brief A target construct of kind \p kind (ompt_target_t) begins on \p device_num. */
    void (*target_begin)(int device_num, uint64_t target_id, int kind);

    /** \brief The construct \p target_id ends: its device work is complete. */
    void (*target_end)(int device_num, uint64_t target_id, int kind);

    /** \brief A host operation (submit or data op) \p op_id begins; only if wants_operations. */
    void (*operation_begin)(int device_num, uint64_t target_id, uint64_t op_id);

    /** \brief The host operation \p op_id ends; only if wants_operations. */
    void (*operation_end)(int device_num, uint64_t op_id);

    /** \brief The device clock now (the clock of record times): ns for the
     *  host-offload and CUPTI backends, the runtime's device time units for
     *  OMPT device tracing. The host maps it linearly (offset and drift), so
     *  only linearity matters. */
    uint64_t (*device_time)(int device_num);

    /**
     * \brief Hand every complete record of \p device_num to deliver.
     * \return the number of records delivered, or a negative errno.
     */
    long (*flush)(int device_num);

    /** \brief Flush and stop recording \p device_num. */
    void (*detach)(int device_num);

    /** \brief Release everything (after every detach). */
    void (*close)(void);

    /** Host OpenMP events, forwarded from the first attach whose device
     *  info says wants_host_openmp on (see the call sequence above). Every
     *  entry is non-NULL (the host checks before open). */
    offtrace_collector_openmp openmp;
} offtrace_collector;

/**
 * \brief The collector's entry point.
 * \param host_interface_version the version the host was built for
 * \return the collector's table (never NULL); the caller checks its versions.
 */
typedef const offtrace_collector *(*offtrace_collector_entry_fn)(uint32_t host_interface_version);

/** Environment variables the collector reads. */
/**
 * OFFTRACE_DEVICE_BUFFER_SIZE: memory each device thread may hold between
 * flushes (128K .. 1G in the size grammar of util/byte_size.h; default
 * 4M). Past it, records are counted as lost.
 *
 * OFFTRACE_DEVICE_DETAIL=kernels|teams|threads (host-offload backend; default
 * teams): what the OpenMP inside a host-offload kernel records.
 *   kernels: the kernel's outermost region (its league of teams, or the
 *            parallel region of a `target parallel`) on the thread that ran it;
 *   teams:   also every parallel region in it (each team), with a summary of
 *            its threads (OFFTRACE_DEVICE_FLAG_SUMMARY);
 *   threads: every thread's implicit tasks, loops, barriers and tasks.
 *
 * OFFTRACE_TEST_DEVICE_CLOCK=offset_ns:drift_ppm:jitter_ns (test knob,
 * host-offload backend only): the device clock reads
 *   true + offset_ns + true * drift_ppm / 1e6 + u,  u uniform in [-jitter_ns, jitter_ns],
 * where true is CLOCK_MONOTONIC in ns. Used to check clock synchronisation
 * on a device that otherwise shares the host's clock.
 */

#endif /* OFFTRACE_COLLECTOR_H */

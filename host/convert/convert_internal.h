/**
 * \file convert_internal.h
 * \brief State shared by the conversion's orchestration (convert.c) and its
 *        per-host-thread pass (host_pass.c).
 */
#ifndef OT_CONVERT_INTERNAL_H
#define OT_CONVERT_INTERNAL_H

#include <omp-tools.h>
#include <stdint.h>

#include "defs_reread.h"
#include "devsync.h"
#include "device_regions.h"
#include "device_timeline.h"
#include "mpi_pass.h"
#include "target_spans.h"
#include "raw_reader.h"
#include "symbolize.h"
#include "trace_writer.h"

#define MAX_DEVICES 64
/* Locations a device is expected to need at most (threads, queues, its two
 * rows), for sizing OTF2's definition chunks. Only records listing every
 * location need 10 bytes per location, and we write none, so more
 * locations than this still convert. */
#define OT_CV_MAX_DEVICE_LOCATIONS 1024

/** Clock pairs whose device read took longer than this are not used. */
#define OT_CV_SYNC_MAX_WIDTH_NS 1000u
/** The target id the recorder gives the device collector for a target
 *  construct begun while recording was off (host/measurement.h). */
#define OT_CV_TARGET_ID_WHILE_OFF UINT64_MAX

/** A device allocation still in use: deletes report 0 bytes, so the size
 * is looked up here. */
typedef struct ot_cv_alloc {
    uint64_t addr, bytes;
    int32_t device;
    uint8_t state;
} ot_cv_alloc;

/* One offload device as the conversion sees it. */
typedef struct device_state {
    int num;
    int used;
    ot_device_timeline *timeline;
    OTF2_EvtWriter *rdma;
    uint32_t rdma_rank;
    ot_devsync *sync;       /**< device clock -> host ns (NULL: no sync pair) */
    uint32_t queue_locations; /**< queue locations created so far (their ordinals) */
} device_state;

typedef struct converter {
    const char *dir;          /**< the recording's directory: the archive and scratch files go there */
    ot_raw_recording rec;
    ot_symbolizer *sym;
    ot_trace_writer *tw;
    device_state devices[MAX_DEVICES];
    size_t device_count;
    /* device memory: (device, address) -> bytes, for deletes that report 0 */
    ot_cv_alloc *allocs;
    size_t alloc_capacity, alloc_used; /* used = live + forgotten slots */
    uint64_t unfinished, unmatched, clipped;
    uint64_t data_regions_without_exit; /* enter-data regions no exit-data ended (host_pass.c) */
    uint64_t records_of_unshown_devices; /**< records of devices past MAX_DEVICES */
    uint64_t buffer_flushes;             /**< FLUSH regions (memory budget exceeded) */
    uint64_t damaged_records;            /**< host records no recorder writes (unknown event or endpoint) */
    uint64_t unusable_maps;              /**< maps snapshots the symbolizer could not use */
    /* device detail (device_pass.c) */
    ot_target_spans *spans;           /**< host span of every target region */
    ot_device_regions *device_regions;
    uint64_t device_records, device_lost, device_clamped, device_unmatched, device_open_at_end;
    /* how far outside its target region the farthest clamped device event
     * lay, before and after it (ns): a bound on the clock sync's error */
    uint64_t device_clamped_max_before_ns, device_clamped_max_after_ns;
    int operations_paired; /* launches and data ops carry their host operation (convert.c, issue 17) */
    uint64_t device_records_without_device, device_locations, sync_points, sync_points_imprecise;
    uint64_t device_records_without_location; /**< thread/queue number past 16 bits, or its id taken */
    uint64_t device_records_of_unknown_targets; /**< naming a target region the host never recorded */
    uint64_t device_records_outside_target; /**< their location already past their target region's end */
    /* measurement control (issue 14) */
    uint64_t measurement_off_switches;  /**< MEASUREMENT BEGIN records: recording went off */
    uint64_t measurement_off_ns;        /**< time in off windows, summed over the switching threads */
    uint64_t device_records_while_off;  /**< device records of kernels launched while recording was off */
    struct ot_host_task_table *tasks; /**< explicit tasks by id (host_tasks.c); NULL: none */
    struct ot_mutex_locks *mutex_locks; /**< lock ids and acquisition orders (host_mutex.c), from the first mutex record */
    struct ot_user_defs *user;          /**< user ids' definitions (user_pass.c); NULL: none */
    uint64_t user_defs_damaged;         /**< user.defs ended in a damaged definition (1) */
    ot_defs_read user_defs_read;        /**< user.defs as read so far (a live conversion reads it again) */
    uint64_t user_records_undefined;    /**< USER_* records of ids user.defs does not define as their kind */
    uint64_t user_calls_dropped;        /**< calls the user API library refused (raw/user.dropped) */
    /* NVTX (issue 14, nvtx_pass.c) */
    struct ot_nvtx_defs *nvtx;          /**< nvtx.defs; NULL: the program made no NVTX definition */
    ot_defs_read nvtx_defs_read;        /**< nvtx.defs as read so far (a live conversion reads it again) */
    char nvtx_thread_name_used[128];    /**< live: the first thread's NVTX name ("NAME: ") as its pass began */
    uint64_t nvtx_records;              /**< NVTX ranges and marks converted (begin records) */
    uint64_t nvtx_problems[OFFTRACE_RAW_NVTX_PROBLEMS]; /**< NVTX_PROBLEM counts by cause */
    uint64_t nvtx_unmatched;            /**< pops and ends with no begin on their thread */
    size_t nvtx_pending;                /**< start/end ranges of the thread in conversion to close (nvtx_pass.c) */
    struct ot_map_sites *maps;          /**< map sites and what deletes free (map_names.c, issue 15) */
    /* MPI (issue 16, mpi_pass.c) */
    uint32_t *mpi_regions;              /**< region of each call number (OTF2_RegionRef; UINT32_MAX: none yet) */
    uint64_t mpi_calls;                 /**< MPI calls written as regions */
    uint64_t mpi_records_not_converted; /**< MPI records of no event: on a communicator not defined, damaged */
    uint64_t mpi_events;                /**< OTF2 MPI events written (messages, requests, collectives) */
    uint64_t mpi_definitions;           /**< MPI_COMM and MPI_CLOCK records: definitions, not events */
    uint64_t mpi_comms_damaged;         /**< lines of raw/mpi.comms that define nothing */
    uint64_t mpi_collective_begin;      /**< the open collective's begin (ns), UINT64_MAX: none */
    /* this rank's clock against rank 0's (raw/mpi.clock): at mpi_clock_at[i]
     * (this rank's ns) rank 0's time is that + mpi_clock_offset[i]; 0 points:
     * no correction (rank 0, one machine, no MPI) */
    int mpi_clock_points;
    uint64_t mpi_clock_at[2];
    int64_t mpi_clock_offset[2];
    size_t mpi_collective_stream;       /**< on this stream */
    struct ot_region_memo *regions;     /**< regions named before, by recipe and inputs (region_memo.h, issue 18) */
    /* the memo's entries found last, 8 sets of two, the newest first (host_pass.c memo_find; issue 18, seventh
     * and eleventh rounds): a run of records asks for the same few regions again and again. head 0: empty */
    struct { uint64_t head, a, b; uint32_t value; } memo_recent[16];
    /* the clock map's segment of the last record (issue 18): ot_cv_to_ns
     * takes a const converter, the hint changes through the pointer */
    ot_timemap_hint ticks_hint_storage, *ticks_hint;
    /* the kinds whose records name a device (ot_cv_meet_device), and an
     * explicit task's creation or schedule, which the task bookkeeping must
     * see of every stream before the first one is written (issue 18) */
    uint64_t device_kinds[4], task_kinds[4];
    int64_t last_met_device; /**< 1 + the device the last device record named and met, 0: none
                                (issue 18, fifth round: most records name the device the one before did) */
    /* the archive (issue 18, sixth round: a live conversion writes it aside, convert_live.c) */
    char archive_dir[4200];
    size_t max_locations;        /**< what the writer was opened for (OTF2's definition chunks) */
    struct ot_write_counts *counts; /**< what was written, once closed, for the caller (opts->counts) */
    int live;                    /**< converting while the program runs: its first stream is still written */
    int live_unsupported;        /**< live: the first stream holds what only the conversion after the end can
                                      write (a lock's id and acquisition order need every stream whole) */
    struct thread_pass *handed_over; /**< a live pass its gate stopped at the program's end, for
                                          ot_cv_host_thread_go_on on record's own thread */
    int read_once; /**< streams are written as they are first read: none holds a task record or an enter-data
                        construct, or the pass gives up (the data region pairing skips a stream not yet counted) */
    int sort_device_items; /**< every device timeline sorts its items (issue 18, sixth round: else written as they
                                come where no later stream adds any, device_timeline.h) */
    int device_items_last_source; /**< the stream being written is the last that may add device items */
} converter;

/** ot_cv_finish: the attempt read once met what needs the counting pass
 *  (CONVERT_AGAIN), or a device item came out of order after others were
 *  written as they came (CONVERT_AGAIN_SORTED: every device sorts); convert again */
enum { CONVERT_AGAIN = 1, CONVERT_AGAIN_SORTED = 2 };

struct ot_convert_options;
struct timespec;

/**
 * \brief The conversion's phases (convert.c), for ot_convert_directory and
 *        the live conversion (convert_live.c): ot_cv_start opens the
 *        recording and the archive (in \p archive_dir, NULL: where
 *        ot_convert_directory puts it); ot_cv_write_and_close writes the
 *        host streams from \p first on and everything after them;
 *        ot_cv_finish hands the counts over, removes raw/ after success
 *        (or the archive after a failure) and frees \p c. Each returns 0
 *        or a negative errno (ot_cv_finish also CONVERT_AGAIN).
 */
int ot_cv_start(converter *c, const char *dir, const char *archive_dir, const struct ot_convert_options *opts,
                int may_read_once, char *msg, size_t msg_size);
int ot_cv_write_and_close(converter *c, const struct ot_convert_options *opts, size_t first,
                          const struct timespec *t0, char *msg, size_t msg_size);
int ot_cv_finish(converter *c, const struct ot_convert_options *opts, int rc, char *msg, size_t msg_size);

/** \brief Whether a recording's device files name the host operations behind their activity (issue 17). */
int ot_cv_operations_paired(const ot_raw_recording *rec);

/** \brief The most locations an archive of \p rec may define: its host
 *         threads, and for each device and the host its device locations. */
size_t ot_cv_max_locations(const ot_raw_recording *rec);

/** \brief Free a converter whatever phase it reached (an open archive abandoned). */
void ot_cv_free(converter *c);

/** \brief Host ticks to host ns. Inline: every record's time goes through
 *         it (issue 18, seventh round). */
static inline uint64_t ot_cv_to_ns(const converter *c, uint64_t ticks)
{
    uint64_t ns = ot_timemap_apply_quickly(c->rec.ticks_to_ns, ticks, c->ticks_hint);
    return __builtin_expect(c->mpi_clock_points != 0, 0) ? ot_mpi_on_rank0_clock(c, ns) : ns;
}

/** \brief The state of device \p num (created on first use); NULL past MAX_DEVICES. */
device_state *ot_cv_device(converter *c, int num);

/** \brief Tell device \p d's timeline where its items come from now
 *         (ot_dt_source): at each stream, and for a timeline made during a
 *         stream's pass, right after ot_dt_new (else it sorts them all). */
void ot_cv_tell_device_timeline(converter *c, device_state *d);

/** \brief Tell every device timeline where its items come from while
 *         stream \p i is written (as they come from the last stream that
 *         may add any on, device_timeline.h). */
void ot_cv_tell_device_timelines(converter *c, size_t i);

/**
 * \brief Meet the device a record of c->device_kinds names: the first
 *        time, give it its accelerator group, timeline and RDMA location
 *        (issue 18, sixth round: where the conversion first meets it, not
 *        after a counting pass). Records of devices past MAX_DEVICES are
 *        counted. Call for each such record of every stream, in stream
 *        order, before the record is converted (host_pass.c: in its
 *        dispatch's TARGET and DATA_OP branches, the catalogue's kinds that
 *        name a device, so that other records pay no test; a kind given a
 *        device field there needs its branch to call it too).
 * \return 0 or -ENOMEM.
 */
int ot_cv_meet_device(converter *c, const offtrace_raw_record *r);

/** \brief The offload device a data operation touches. */
int ot_cv_op_device(const converter *c, const offtrace_raw_record *r);

/** \brief Remember an allocation; forget one and return its size (0 if unknown). */
int ot_cv_alloc_remember(converter *c, int device, uint64_t addr, uint64_t bytes);
uint64_t ot_cv_alloc_forget(converter *c, int device, uint64_t addr);

/**
 * \brief Write one host thread's events and hand its device-side events to
 *        the device timelines.
 * \return 0 or a negative errno.
 */
int ot_cv_host_thread(converter *c, ot_raw_stream *stream);

/** ot_cv_host_thread's answer when a live stream's gate stopped the pass
 *  where it was (raw_reader.h: the program ended): the pass waits in
 *  c->handed_over for ot_cv_host_thread_go_on, on another thread. */
#define OT_CV_HANDED_OVER 1

/**
 * \brief Go on with the pass ot_cv_host_thread handed over, from where it
 *        stopped, to the stream's end (issue 18, sixth round: on record's
 *        own thread, at its priority, not the live thread's SCHED_IDLE).
 * \return 0 or a negative errno, as ot_cv_host_thread.
 */
int ot_cv_host_thread_go_on(converter *c);

/** \brief Free a pass handed over and not gone on with (the attempt dropped). */
void ot_cv_host_thread_drop(converter *c);

/**
 * \brief Write one device's collector records on device-thread locations.
 *        Needs the host pass done (target spans) and the device's sync map.
 * \return 0 or a negative errno.
 */
int ot_cv_device_records(converter *c, const ot_raw_device_stream *ds);

#endif

/**
 * \file session.h
 * \brief The recording directory of one traced process: where streams,
 *        clock pairs, the device list and memory-map snapshots go.
 *
 * Everything here is slow path (start-up, thread start, chunk roll-over,
 * device start-up, exit) and may take the session mutex or make syscalls.
 */
#ifndef OT_HOST_SESSION_H
#define OT_HOST_SESSION_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "offtrace/raw_format.h"

/** \brief Process-wide recording state; one per traced process. */
typedef struct ot_session {
    char dir[4096];      /**< output directory (absolute) */
    int job_rank;        /**< without the CLI, one rank of an MPI job: its rank (dir is <job>/rank.N); else -1 */
    char raw_dir[4200];  /**< <dir>/raw */
    size_t chunk_bytes;
    size_t memory_budget;
    int verbose;
    int keep_raw;        /**< OFFTRACE_KEEP_RAW */
    int background_writeback; /**< OFFTRACE_BACKGROUND_WRITEBACK */
    offtrace_raw_counters *counters; /**< raw/counters, mapped (a private page until the session opens) */
    unsigned maps_snapshots;
    uint32_t next_thread_index; /**< atomic */
} ot_session;

extern ot_session ot_the_session;

/**
 * \brief Choose and create the output directory and its raw/ folder.
 * \param err one-line message on failure.
 * \return 0 or a negative errno.
 */
int ot_session_open(const ot_config *cfg, char *err, size_t err_size);

/** \brief Which file a descriptor is: offtrace checks it before each use. */
typedef struct ot_file_id {
    uint64_t dev, ino;
} ot_file_id;

/**
 * \brief Open raw/\p name for one use. offtrace keeps no descriptor while
 *        the program runs: a program may close every descriptor it did not
 *        open, or reuse its number, at any time.
 *
 * The descriptor is close-on-exec and never 0, 1 or 2 (one that lands there,
 * because the program runs with stdout closed, is moved up: the program's
 * own printf must never reach an offtrace file). With \p id: a zero id is
 * set to the file opened; a non-zero one must match it (else -ESTALE: the
 * path now names another file).
 * \return the descriptor, or a negative errno.
 */
int ot_session_open_file(const char *name, int flags, ot_file_id *id);

/**
 * \brief 1 when \p fd is still the file \p id names: checked right before
 *        a descriptor is used to map or grow a file, because another thread
 *        of the program may have closed it and opened one of its own files
 *        on the same number in between.
 */
int ot_session_file_is(int fd, const ot_file_id *id);

/** \brief The loss cause (enum offtrace_raw_loss_cause) for a negative errno. */
unsigned ot_session_loss_cause(int error);

/** What ot_session_reserve_bytes returns past the size limit. */
#define OT_SIZE_LIMIT_REACHED (-ECANCELED)

/**
 * \brief Count \p bytes of record files against OFFTRACE_MAX_RECORDING_SIZE
 *        before allocating them. The first refusal says so in one line.
 * \return 0, or OT_SIZE_LIMIT_REACHED (nothing counted).
 */
int ot_session_reserve_bytes(uint64_t bytes);

/** \brief Give back bytes reserved for an allocation that failed. */
void ot_session_unreserve_bytes(uint64_t bytes);

/** \brief Count \p records lost for \p cause in the session's counters. */
static inline void ot_session_count_lost(unsigned cause, uint64_t records)
{
    __atomic_fetch_add(&ot_the_session.counters->lost[cause], records, __ATOMIC_RELAXED);
}

/** \brief Append a (ticks, monotonic, realtime) sync point to clock.pairs. */
void ot_session_clock_pair(void);

/**
 * \brief The pair that gives the tick rate, a millisecond or more after the
 *        first pair, so that a recording whose program dies before any other
 *        pair still converts with the right rate. Taken once: now when that
 *        much time has passed since the first pair (OpenMP's own start-up or
 *        a device collector's calibration took it), else only with \p wait,
 *        after waiting out the rest; nothing when a later pair gave the rate
 *        already. tool_initialize asks without waiting, a thread's first
 *        record (stream.c) with: no record exists before the rate pair.
 */
void ot_session_rate_pair(int wait);

/** \brief 1 once the pair that gives the tick rate is taken (a thread's first record waits for no pair then). */
int ot_session_rate_known(void);

/** \brief Note an initialised offload device and its kind (devices.txt). */
void ot_session_add_device(int device_num, const char *kind);

/** \brief Copy /proc/self/maps to raw/maps.<n> for the symbolizer. */
void ot_session_snapshot_maps(void);

/** \brief Write raw/status: "recording", "finalizing" or a failure text. */
void ot_session_set_status(const char *status);

#endif

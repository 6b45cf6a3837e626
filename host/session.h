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

#include <stddef.h>
#include <stdint.h>

#include "config.h"

/** \brief Process-wide recording state; one per traced process. */
typedef struct ot_session {
    char dir[4096];      /**< output directory (absolute) */
    char raw_dir[4200];  /**< <dir>/raw */
    size_t chunk_bytes;
    size_t memory_budget;
    int verbose;
    int keep_raw;        /**< OFFTRACE_KEEP_RAW */
    int background_writeback; /**< OFFTRACE_BACKGROUND_WRITEBACK */
    int pairs_fd;        /**< clock.pairs, O_APPEND */
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

/** \brief Append a (ticks, monotonic, realtime) sync point to clock.pairs. */
void ot_session_clock_pair(void);

/** \brief Note an initialised offload device and its kind (devices.txt). */
void ot_session_add_device(int device_num, const char *kind);

/** \brief Copy /proc/self/maps to raw/maps.<n> for the symbolizer. */
void ot_session_snapshot_maps(void);

/** \brief Write raw/status: "recording", "finalizing" or a failure text. */
void ot_session_set_status(const char *status);

#endif

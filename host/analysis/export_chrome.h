/**
 * \file export_chrome.h
 * \brief An offtrace archive as Chrome trace-event JSON (the "JSON Object
 *        Format"), which Perfetto (ui.perfetto.dev) opens.
 *
 * One process for the host and one per device ("device 0 generic-64bit"),
 * one thread per location; complete events ("X") for regions and kernels,
 * flow arrows from the host thread's put/get to the transfer on the device's
 * RDMA row, counter events for "device memory in use". In an MPI job's
 * archive one process per rank, MPI messages as flow arrows from the send
 * to the receive and collectives as args of their MPI call. docs/export.md
 * describes the mapping.
 *
 * Streaming: events are written as the archive is read. A region becomes
 * one "X" event when the reader (trace_read.h) hands over its instance at
 * its Leave; nothing the export keeps grows with the number of events. The
 * "X" events are therefore not sorted by "ts"; both viewers sort on load.
 */
#ifndef OT_ANALYSIS_EXPORT_CHROME_H
#define OT_ANALYSIS_EXPORT_CHROME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_read.h"

/** What an export wrote (also in the JSON's "otherData"). */
typedef struct ot_export_chrome_stats {
    uint64_t events;      /**< archive events read */
    uint64_t slices;      /**< "X" events */
    uint64_t flows;       /**< transfer arrows (one "s" and one "f" each) */
    uint64_t counters;    /**< "C" events */
    uint64_t unfinished;  /**< regions never left, written up to the archive's last event */
    uint64_t unmatched;   /**< Enters deeper than the nesting limit (left out with their Leaves) */
    /* an MPI job (issue 16) */
    uint64_t message_flows;     /**< MPI messages as flow arrows (one "s" and one "f" each) */
    uint64_t messages_left_out; /**< MPI messages whose send or receive is not in the archive: no arrow */
    uint64_t collectives;       /**< ranks' parts in collectives, as args of their MPI call's slice */
} ot_export_chrome_stats;

/** Regions nested deeper than this on one location are not exported (damaged archives): the reader's limit. */
#define OT_EXPORT_MAX_DEPTH OT_TR_MAX_DEPTH

/**
 * \brief Write `<dir>/traces.otf2` (or an anchor file path) to \p out as
 *        Chrome trace JSON. \p out is flushed, not closed.
 * \param stats if not NULL, filled in.
 * \return 0; or a negative errno with a one-line message in \p err:
 *         -ENOENT / -EINVAL as ot_trace_read (no archive, damaged), -EIO
 *         (writing \p out failed), -ENOMEM. On failure \p out holds a
 *         partial document, which the caller discards.
 */
int ot_export_chrome(const char *dir, FILE *out, ot_export_chrome_stats *stats, char *err, size_t err_size);

#endif /* OT_ANALYSIS_EXPORT_CHROME_H */

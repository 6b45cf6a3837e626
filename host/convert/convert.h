/**
 * \file convert.h
 * \brief Turn a recording directory (`<dir>/raw/`) into the OTF2 archive
 *        `<dir>/traces.otf2`, then remove the raw files.
 *
 * Runs in `offtrace record` after the program ended, or in `offtrace
 * convert` (which a program traced without the CLI runs as a helper process
 * at its exit or crash); never inside the traced program. A half-written archive from an
 * interrupted earlier attempt is replaced.
 */
#ifndef OT_CONVERT_CONVERT_H
#define OT_CONVERT_CONVERT_H

#include <stddef.h>
#include <stdint.h>

typedef struct ot_convert_options {
    const char *reason;   /**< why the recording is partial (e.g. "killed by SIGSEGV"), NULL if complete */
    int keep_raw;         /**< leave raw/ in place after success, its status "converted" */
    /** After success, raw/ is only set aside (renamed, so no reader or converter sees it any more), for
     *  the caller to remove with ot_convert_remove_raw_aside while it does something else: freeing the
     *  stream files' blocks can take milliseconds of waiting on the file system's journal. On failure
     *  raw/ stays either way. */
    int caller_removes_raw;
    int64_t progress_after_ns; /**< progress on a terminal stderr past this; 0: a second (tests: less) */
    /** Not NULL: where the counts of what was written go (write_counts.h), for the summary without reading
     *  the events back (summary.h ot_summary_of_written); the caller frees them (ot_write_counts_free).
     *  NULL there when there are none: the conversion failed, or it wrote a job's part (whose summary is
     *  the merged job's). */
    struct ot_write_counts **counts;
    /** Every device item (kernel, transfer, memory change) goes through the device timeline's sort, as
     *  before issue 18's sixth round, instead of being written as it comes where it can: the same archive
     *  (tests compare the two). */
    int sort_device_items;
    /** Not NULL: how the device items were written (tests), by the attempt that wrote the archive. */
    struct ot_convert_device_items {
        uint64_t as_they_came; /**< written as they came, without a sort */
        uint64_t sorted;       /**< through the sort */
        int started_again;     /**< one came out of order after others were written: converted again, sorting */
    } *device_items;
} ot_convert_options;  /* the recorder's counts (losses by cause, writebacks) are in raw/counters */

/**
 * \brief Convert `<dir>/raw` into `<dir>/traces.otf2`; when \p dir is rank
 *        N's directory of an MPI job (`<job>/rank.N`, job.h), into rank N's
 *        part `<dir>/part/traces.otf2` (location ids with the rank's bits,
 *        trace_writer.h ot_tw_set_job_part). The job's finish after it is
 *        convert_job.h's.
 * \param msg one-line message on failure.
 * \return 0, -ENOENT when there is no recording, or another negative errno.
 */
int ot_convert_directory(const char *dir, const ot_convert_options *opts, char *msg, size_t msg_size);

/**
 * \brief Remove what a successful conversion of `<dir>/raw` by this process
 *        set aside (ot_convert_options.caller_removes_raw); nothing if it
 *        removed raw/ itself.
 */
void ot_convert_remove_raw_aside(const char *dir);

#endif

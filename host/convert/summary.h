/**
 * \file summary.h
 * \brief Count what is in an offtrace archive, read back through the one
 *        archive reader (trace_read.h, OTF2's reader underneath): the numbers
 *        `offtrace record` and `offtrace info` print. Streaming: memory does
 *        not grow with the number of events.
 */
#ifndef OT_CONVERT_SUMMARY_H
#define OT_CONVERT_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

enum { OT_CONSTRUCT_TARGET, OT_CONSTRUCT_ENTER_DATA, OT_CONSTRUCT_EXIT_DATA, OT_CONSTRUCT_UPDATE,
       OT_CONSTRUCT_DATA_REGION, OT_CONSTRUCT_KINDS };

typedef struct ot_summary {
    uint64_t constructs[OT_CONSTRUCT_KINDS]; /**< region instances per construct kind */
    uint64_t kernels;                          /**< region instances on kernel streams */
    uint64_t host_parallel, host_work, host_chunks, host_sync; /**< the program's own host OpenMP instances */
    uint64_t host_tasks, host_acquisitions; /**< explicit tasks created; lock, critical, ordered acquires */
    uint64_t h2d_count, h2d_bytes;             /**< RmaPut */
    uint64_t d2h_count, d2h_bytes;             /**< RmaGet */
    uint64_t events, host_threads, devices, device_streams;
    uint64_t lost_records, unfinished;
    uint64_t device_records, device_locations, lost_device_records, device_clamped; /**< device detail */
    uint64_t device_threads, device_queues;  /**< device detail's rows: OpenMP threads, activity queues */
    uint64_t unshown_device_records; /**< records of devices past the converter's limit */
    uint64_t data_regions_without_exit; /**< data regions no exit data ended: open to their thread's end */
    uint64_t buffer_flushes;         /**< flushes forced by the memory budget */
    uint64_t background_writeback_bytes; /**< written by the background writer */
    uint64_t lost_by_cause[4];       /**< disk full, size limit, no descriptor, other errors */
    uint64_t max_recording_size;     /**< OFFTRACE_MAX_RECORDING_SIZE in force, 0 if none */
    int size_limit_reached;
    uint64_t ignored_streams;        /**< stream/device files not converted, and by cause: */
    uint64_t ignored_other_version, ignored_damaged, ignored_not_regular, ignored_duplicate, ignored_unreadable;
    uint64_t device_records_without_location; /**< device thread/queue numbers past 16 bits, or found twice */
    uint64_t device_records_of_unknown_targets; /**< naming a target region the host did not record */
    uint64_t device_records_outside_target;     /**< that could not be placed inside their target region */
    uint64_t device_records_without_device;   /**< of a device with no host activity or no clock pairs */
    uint64_t damaged_records;                 /**< host records of no kind the recorder writes */
    uint64_t unusable_maps;                   /**< maps snapshots the symbolizer could not read */
    uint64_t damaged_clock_pairs;             /**< clock.pairs lines that could not be used */
    uint64_t sites, sites_without_line;       /**< construct regions named by a code site, and those of them
                                                   with no source line (no -g) */
    char site_without_line[64];               /**< one of those sites ("main+0x215"), for the hint */
    uint64_t measurement_off_switches; /**< times recording was switched off (measurement control) */
    uint64_t measurement_off_ns;       /**< time it stayed off, summed over the switching threads */
    uint64_t device_records_while_off; /**< device records of kernels launched while off, left out */
    uint64_t user_calls_dropped;       /**< calls the user API refused (the program's mistakes) */
    double duration_s, conversion_s;
    uint64_t archive_bytes;
    double conversion_live_s; /**< record's conversion while the program ran (convert_live.h), 0: none */
    uint64_t conversion_live_records; /**< records it converted before the program ended */
    char partial[256];                         /**< "no" or the reason */
    char creator[128];
    /* Filter (docs/filters.md): path "" when the run had none. */
    char filter[1024];
    char filter_status[1600];          /**< "applied" or "rejected: FILE:LINE: ..." */
    uint64_t filter_removed_user;      /**< user regions, events, values and NVTX ranges removed */
    uint64_t filter_removed_openmp;    /**< host OpenMP constructs removed */
    /* NVTX (issue 14, docs/nvtx.md) */
    uint64_t nvtx_events;                      /**< NVTX ranges and marks in the archive */
    uint64_t nvtx_pops_without_push, nvtx_unknown_ends, nvtx_null_messages, nvtx_unsupported,
        nvtx_before_recording, nvtx_unmatched; /**< NVTX calls counted, not recorded */
    /* Variable names (issue 15, docs/variables.md): data ops of constructs */
    uint64_t map_named;                /**< with their variable's name */
    uint64_t map_without_debug_info;   /**< whose program has no names (no -g) */
    uint64_t map_not_captured;         /**< of constructs the map capture did not see (not preloaded) */
} ot_summary;

/**
 * \brief Summarise `<dir>/traces.otf2`.
 * \param err one-line message on failure (ot_trace_read's).
 * \return 0, or ot_trace_read's negative errno: -ENOENT (no archive), -EINVAL
 *         (damaged or not OTF2), -EPROTO (another producer's), -ENOMEM.
 */
int ot_summary_read(const char *dir, ot_summary *out, char *err, size_t err_size);

/**
 * \brief Summarise the archive the converter has just written in \p dir
 *        from its definitions read back (locations, regions and their
 *        classes, properties: what ot_summary_read reads first) and the
 *        writer's counts of its events (write_counts.h) instead of the events
 *        themselves: the same summary as ot_summary_read's, field for field,
 *        counted by the same rules, for the cost of the definitions only.
 * \return 0, ot_trace_read's negative errno, or -EINVAL when the counts do
 *         not fit the archive (a location or region it does not define, or
 *         counts incomplete for want of memory): then use ot_summary_read.
 */
struct ot_write_counts;
int ot_summary_of_written(const char *dir, const struct ot_write_counts *counts, ot_summary *out, char *err,
                          size_t err_size);

/** \brief The summary of an archive just converted: ot_summary_of_written
 *         when there are \p counts and they fit, else ot_summary_read. */
int ot_summary_after_conversion(const char *dir, const struct ot_write_counts *counts, ot_summary *out, char *err,
                                size_t err_size);

/**
 * \brief Device events moved to their target region's edge beyond what is
 *        normal: 2 per target region and device thread are (the host-offload
 *        worker reports the end of its implicit task and of its last barrier
 *        only when it is woken for the next target, tens of microseconds to a
 *        millisecond after its target ended); more means the device clock
 *        mapping put events outside their region. 0 when only the normal ones.
 */
uint64_t ot_summary_misplaced_device_events(const ot_summary *s);

/** \brief Print the human summary (a few aligned lines, in plain words; what
 *         is normal is left out). */
void ot_summary_print(const ot_summary *s, const char *dir, FILE *to);

#endif

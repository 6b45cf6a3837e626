/**
 * \file write_counts.h
 * \brief What the trace writer wrote, counted as it was written: region
 *        Enters per location and region, puts and gets with their bytes.
 *        With the archive's definitions read back these give the summary
 *        (summary.h ot_summary_of_written) without reading the events back.
 *
 * Counted in trace_writer.c's event writers (ot_tw_enter, ot_tw_leave,
 * ot_tw_rma_put, ot_tw_rma_get), only for events OTF2 accepted. An Enter
 * nested deeper than OT_WRITE_COUNTS_MAX_DEPTH on its location is not
 * counted: the archive reader does not deliver those (trace_read.h
 * OT_TR_MAX_DEPTH, the same number, checked where both are seen), and the
 * summary must say what a reader of the archive finds.
 */
#ifndef OT_CONVERT_WRITE_COUNTS_H
#define OT_CONVERT_WRITE_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define OT_WRITE_COUNTS_MAX_DEPTH 1024

/** One location's counts. */
typedef struct ot_location_counts {
    uint64_t location;          /**< its id as written in the archive (a job part's rank bits included) */
    uint64_t *enters;           /**< Enters per OTF2 region ref, `regions` of them */
    uint32_t regions;
    uint32_t depth;             /**< regions open now (Enters less Leaves) */
    uint64_t puts, put_bytes;   /**< RmaPut: host to device */
    uint64_t gets, get_bytes;   /**< RmaGet: device to host */
    int incomplete;             /**< out of memory while counting: the counts miss Enters */
} ot_location_counts;

typedef struct ot_write_counts {
    ot_location_counts **locations; /**< in the order they were created */
    size_t location_count, capacity;
} ot_write_counts;

/** \brief Release counts handed out by ot_tw_take_counts (NULL is fine). */
void ot_write_counts_free(ot_write_counts *counts);

#endif

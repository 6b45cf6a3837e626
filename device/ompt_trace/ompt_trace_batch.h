/**
 * \file ompt_trace_batch.h
 * \brief Translated records waiting for their delivery, and the stable sort
 *        by time that puts them in the order they happened.
 *
 * The runtime hands back records in an order of its own (typically by
 * completion, so a long kernel's BEGIN comes after the copies it overlaps),
 * while the collector interface wants each stream's records in time order.
 * The backend collects the records of every buffer completed until the next
 * delivery here and sorts them at delivery.
 *
 * Not thread-safe: the caller serialises access.
 */
#ifndef OT_DEVICE_OMPT_TRACE_BATCH_H
#define OT_DEVICE_OMPT_TRACE_BATCH_H

#include <stddef.h>

#include "offtrace/collector.h"

typedef struct ot_ompt_batch {
    offtrace_device_record *records; /**< NULL while empty and never grown */
    size_t count;
    size_t capacity;
} ot_ompt_batch;

/** \brief An empty batch (no allocation). */
void ot_ompt_batch_init(ot_ompt_batch *b);

/**
 * \brief Append \p n records, growing the batch as needed.
 * \return 0, or -ENOMEM (nothing appended; the caller counts them as lost).
 */
int ot_ompt_batch_add(ot_ompt_batch *b, const offtrace_device_record *records, size_t n);

/**
 * \brief Sort \p n records by time; records with equal times keep their
 *        order, so a zero-length activity's BEGIN stays before its END.
 */
void ot_ompt_sort_by_time(offtrace_device_record *records, size_t n);

/** \brief Free the records and leave an empty batch. */
void ot_ompt_batch_free(ot_ompt_batch *b);

#endif /* OT_DEVICE_OMPT_TRACE_BATCH_H */

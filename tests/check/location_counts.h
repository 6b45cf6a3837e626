/**
 * \file location_counts.h
 * \brief Test-side count of each location's events, read with OTF2's own
 *        per-location readers (not offtrace's trace_read), for comparing an
 *        export with its archive location by location.
 */
#ifndef OT_TEST_LOCATION_COUNTS_H
#define OT_TEST_LOCATION_COUNTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct location_count {
    uint64_t id;
    char name[256];
    uint64_t enters, leaves;
    uint64_t transfer_enters;   /**< Enters of "transfer ..." regions (RDMA rows) */
    uint64_t rma_ops;           /**< RmaPut + RmaGet issued here */
    uint64_t metrics;
} location_count;

/**
 * \brief Count the events of every location of `<dir>/traces.otf2`.
 * \return 0 with a malloc'd array in *out (definition order) and its length
 *         in *n; -1 when the archive cannot be read.
 */
int location_counts(const char *dir, location_count **out, size_t *n);

#endif

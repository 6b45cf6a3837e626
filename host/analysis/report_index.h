/**
 * \file report_index.h
 * \brief A small hash map from 64-bit keys to row numbers, for the report's
 *        tables (kernels per device, transfer sites). It holds one entry per
 *        distinct key, so its size follows the archive's definitions, not its
 *        events.
 */
#ifndef OT_ANALYSIS_REPORT_INDEX_H
#define OT_ANALYSIS_REPORT_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct rp_index {
    uint64_t *keys;
    int32_t *rows;  /**< -1 marks an empty slot */
    size_t cap, used;
} rp_index;

/** \brief The row of \p key, or -1. */
int32_t rp_index_get(const rp_index *ix, uint64_t key);

/** \brief Remember \p key -> \p row (row >= 0). \return 0, or -1 when out of memory. */
int rp_index_put(rp_index *ix, uint64_t key, int32_t row);

void rp_index_free(rp_index *ix);

#endif

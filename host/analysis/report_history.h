/**
 * \file report_history.h
 * \brief The bounded memory of host ranges that findings 1 (repeated
 *        upload) and 2 (round trip) need: for each recently transferred
 *        (device, host address, bytes) range, how many construct instances
 *        in a row uploaded it, and whether it was last copied back.
 *
 * Bound: RP_HISTORY_SETS sets of RP_HISTORY_WAYS ranges (8192 in all), the
 * least recently used range of a set replaced by a new one. A program that
 * cycles through more distinct ranges than that between two copies of one
 * range loses that range's history (counted as evictions): findings can
 * then be missed, never invented. Every operation is O(ways).
 *
 * The history credits what it sees to the sites' evidence
 * (ot_rp_evidence) directly; transfer times arrive later, at completion, so
 * an upload returns an rp_credit that the completion hands back.
 */
#ifndef OT_ANALYSIS_REPORT_HISTORY_H
#define OT_ANALYSIS_REPORT_HISTORY_H

#include <stdint.h>

#include "report.h"

#define RP_HISTORY_SETS 1024
#define RP_HISTORY_WAYS 8

typedef struct rp_history rp_history;

typedef struct rp_range_key {
    uint64_t host, bytes;
    int device;
} rp_range_key;

/** What the completion of an upload must still add (its time). */
typedef struct rp_credit {
    int32_t repeat_site;  /**< a redundant upload credited to this site, or -1 */
    int32_t trip_site;    /**< the re-upload of a round trip whose copy back was at this site, or -1 */
    int second;           /**< the 2nd upload of a run: keep its time until the run reaches 3 */
} rp_credit;

rp_history *rp_history_new(void);
void rp_history_free(rp_history *h);

/**
 * \brief A host->device copy of \p k by construct instance \p instance of
 *        \p site at time \p t. Credits counts and bytes; fills \p credit.
 */
void rp_history_upload(rp_history *h, ot_report *r, const rp_range_key *k, int32_t site, uint64_t instance,
                       uint64_t t, rp_credit *credit);

/** \brief A device->host copy of \p k by \p site: ends the range's upload run. */
void rp_history_download(rp_history *h, const rp_range_key *k, int32_t site, uint64_t t);

/**
 * \brief The copy of \p k (direction \p to_device) by \p site completed at
 *        \p t after \p ns: credits the times the findings put at stake.
 */
void rp_history_complete(rp_history *h, ot_report *r, const rp_range_key *k, int to_device, int32_t site,
                         uint64_t ns, uint64_t t, const rp_credit *credit);

/** \brief Ranges replaced while they still had history. */
uint64_t rp_history_evictions(const rp_history *h);

#endif

/**
 * \file report_ranks.h
 * \brief The report of an MPI job's archive (issue 16): one row per rank,
 *        the imbalance across ranks, and devices named by rank.
 *
 * Only an archive with more than one rank has a Ranks table (r->ranks,
 * r->rank_count > 0); an archive of one process reads and prints exactly as
 * before. A rank's kernels and transfers are its devices' (the reader keys
 * devices by (rank, device number) and resolves each put/get through its
 * window, so a transfer counts on its own rank's device); its host and
 * offload times come from its host threads' events.
 */
#ifndef OT_ANALYSIS_REPORT_RANKS_H
#define OT_ANALYSIS_REPORT_RANKS_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "trace_read.h"

/** What the job's archive says of a rank (OFFTRACE::PARTIAL_RANKS, the merge's `ranks` lines). */
typedef enum ot_rp_rank_state { OT_RP_RANK_COMPLETE, OT_RP_RANK_PARTIAL, OT_RP_RANK_MISSING } ot_rp_rank_state;

/** One rank of a job. */
typedef struct ot_rp_rank {
    uint32_t rank;
    ot_rp_rank_state state;
    char reason[160];                /**< why partial or missing ("killed by SIGTERM", "no part"), or "" */
    uint64_t host_ns;                /**< its host threads' first to last event */
    uint64_t inside_ns;              /**< time some host thread of it was inside an offload construct */
    uint64_t devices, kernels, kernel_ns;
    uint64_t transfers[2], bytes[2], transfer_ns[2]; /**< by OT_RP_H2D / OT_RP_D2H, over its devices */
    /* while reading */
    uint64_t first, last, inside_since;
    uint32_t threads_inside;
} ot_rp_rank;

/** Imbalance across the ranks that are not missing: max / mean (1.0: balanced; 0 when the mean is 0). */
typedef struct ot_rp_imbalance {
    double offload, transfer;
    uint32_t offload_rank, transfer_rank; /**< the rank with the maximum */
} ot_rp_imbalance;

struct rp_state;

/** \brief Set up after the definitions: each device's rank and number; the ranks' rows of a job.
 *  \return 0 or -ENOMEM. */
int rp_ranks_begin(struct rp_state *s, const ot_tr_archive *a);
/** \brief An event at \p t on host thread \p loc (its rank's host time). */
void rp_rank_time(struct rp_state *s, const ot_tr_location *loc, uint64_t t);
/** \brief A construct instance begins (\p begins 1) or ends (0) at \p t on host thread \p loc. */
void rp_rank_construct(struct rp_state *s, const ot_tr_location *loc, uint64_t t, int begins);
/** \brief After the read (devices final): the ranks' device sums. */
void rp_ranks_wrap_up(struct rp_state *s);

/** \brief The imbalance of \p r's ranks. */
ot_rp_imbalance ot_report_imbalance(const ot_report *r);

/** \brief A device's name in tables: "0" in one process, "rank 1 device 0" in a job. */
const char *ot_report_device_label(const ot_report *r, int device, char *buf, size_t size);

/** \brief The Ranks table (text) / the "ranks" member (JSON, with its trailing ",\n"); nothing for one process. */
void ot_report_print_ranks_text(const ot_report *r, FILE *to);
void ot_report_print_ranks_json(const ot_report *r, FILE *to);

/** \brief A device in prose: "device 0" in one process, "rank 1 device 0" in a job. */
const char *ot_report_device_name(const ot_report *r, int device, char *buf, size_t size);

/** \brief A device in a narrow table column ("dev": 3 wide, "0"; a job's "r:dev": 6 wide, "1:0"), and that width. */
const char *ot_report_device_short(const ot_report *r, int device, char *buf, size_t size);
int ot_report_device_short_width(const ot_report *r);

/** \brief The JSON fields naming a device: `"device": N, ` in one process, `"rank": R, "device": N, ` in a job. */
void ot_report_device_json(const ot_report *r, int device, FILE *to);

#endif

/**
 * \file report_mpi.h
 * \brief The MPI calls of an archive (issue 16, docs/report.md "MPI calls"):
 *        one row per MPI function and each rank's time in MPI.
 *
 * An MPI call is a region of catalogue class MPI_P2P, MPI_COLLECTIVE or
 * MPI_OTHER on a host thread (libofftrace-mpi.so names it after its
 * function). An archive without one has no table (r->mpi NULL) and reads and
 * prints exactly as before.
 */
#ifndef OT_ANALYSIS_REPORT_MPI_H
#define OT_ANALYSIS_REPORT_MPI_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "trace_read.h"

/** One MPI function: its calls that ended (a call left open at the end counts in its rank's time only). */
typedef struct ot_rp_mpi_call {
    char *name;                     /**< "MPI_Allreduce" */
    uint64_t count, total_ns, max_ns;
    uint64_t bytes_sent, bytes_received; /**< by its messages' sides (a receive in the call it completed in) and
                                              its collectives */
    size_t at;                      /**< its place in the order */
} ot_rp_mpi_call;

/** \brief 1 when \p region is an MPI call (its catalogue class is one of the MPI_* call classes). */
int rp_mpi_call(const ot_tr_region *region);
/** \brief Bytes sent / received by an instance of MPI call \p region (a message's side, a collective).
 *  \return 0 or -ENOMEM. */
int rp_mpi_bytes(ot_report *r, const ot_tr_region *region, uint64_t sent, uint64_t received);
/** \brief An MPI call enters (\p begins 1) or leaves (0) on host thread \p loc.  \return 0 or -ENOMEM. */
int rp_mpi_span(ot_report *r, const ot_tr_location *loc, const ot_tr_span *span, int begins);

/** \brief The MPI functions, by total time (ties by name); \p n gets their number. NULL when none. */
const ot_rp_mpi_call *const *ot_report_mpi_calls(const ot_report *r, size_t *n);
/** \brief Time rank \p rank had some host thread inside an MPI call (0 for a rank without one). */
uint64_t ot_report_mpi_rank_ns(const ot_report *r, uint32_t rank);

/** \brief The "MPI calls" table (text) / the "mpi_calls" member (JSON, with its trailing ",\n"); nothing
 *  without MPI calls. */
void ot_report_print_mpi_text(const ot_report *r, const ot_rp_options *o, FILE *to);
void ot_report_print_mpi_json(const ot_report *r, const ot_rp_options *o, FILE *to);

/** \brief Frees r->mpi. */
void ot_report_mpi_free(ot_report *r);

#endif

/**
 * \file report_mpi_waits.h
 * \brief Waiting in MPI (issue 16, docs/mpi.md "Waiting in MPI"): the
 *        instances of waiting of each kind (late sender, late receiver,
 *        wait at an N-to-N collective), their sums per rank, the largest
 *        ten, and per rank the part of its waiting in which its devices
 *        ran nothing. report_findings.c judges them.
 *
 * Built from trace_read's paired messages and collectives (no matching of
 * its own but that of one collective's members, the k-th N-to-N collective
 * of each member of a communicator) and from the device activity the
 * report already follows. Memory: per rank and per location, plus the
 * collectives some members have ended and others not (bounded).
 */
#ifndef OT_ANALYSIS_REPORT_MPI_WAITS_H
#define OT_ANALYSIS_REPORT_MPI_WAITS_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "trace_read.h"

/** Blocking sends of at least this many bytes are judged for a late receiver (below it MPI sends eagerly:
 *  the send returns without its receive). Fixed (issue 16's decision), documented in docs/mpi.md. */
#define OT_RP_LATE_RECEIVER_BYTES 65536u
/** The largest waits the report lists. */
#define OT_RP_MPI_WAITS 10

typedef enum ot_rp_wait_kind {
    OT_RP_WAIT_LATE_SENDER,    /**< a call completing a receive waits for its send to begin */
    OT_RP_WAIT_LATE_RECEIVER,  /**< a large blocking send waits for its receive to be posted */
    OT_RP_WAIT_COLLECTIVE,     /**< a member of an N-to-N collective waits for the last to come */
    OT_RP_WAIT_KINDS
} ot_rp_wait_kind;

/** One instance of waiting: one MPI call of one rank. */
typedef struct ot_rp_mpi_wait {
    ot_rp_wait_kind kind;
    uint32_t rank;
    char call[40];             /**< its MPI function ("MPI_Waitall") */
    uint32_t partner;          /**< the rank waited for: the sender, the receiver, the last member to come */
    char comm[40];             /**< a collective's communicator ("MPI_COMM_WORLD"), else "" */
    uint64_t at_ns;            /**< the call's begin, from the archive's first event */
    uint64_t wait_ns;
} ot_rp_mpi_wait;

struct rp_state;

/** \brief Set up for \p a (ranks, locations). \return 0 or -ENOMEM. */
int rp_mpi_waits_begin(ot_report *r, const ot_tr_archive *a);
/** \brief A paired (or unmatched) message; a collective of one rank. \return 0 or -ENOMEM. */
int rp_mpi_message(ot_report *r, const ot_tr_message *m);
int rp_mpi_collective(ot_report *r, const ot_tr_location *loc, const ot_tr_collective *c);
/** \brief MPI call \p serial of \p loc ended: its late-sender wait is complete. */
void rp_mpi_call_end(ot_report *r, const ot_tr_location *loc, uint64_t serial);
/** \brief A kernel or transfer of device key \p device starts or ends at \p t. */
void rp_mpi_device_activity(ot_report *r, int device, uint64_t t, int starts);
/** \brief After the last event: what is pending is settled; the reader's counts kept. */
void rp_mpi_waits_end(ot_report *r, const ot_tr_archive *a);

/** \brief The largest waits, largest first (\p n gets their number, at most OT_RP_MPI_WAITS). */
const ot_rp_mpi_wait *ot_report_mpi_waits(const ot_report *r, size_t *n);
/** \brief Ranks the sums below are kept for (0: no MPI waits were judged). */
uint32_t ot_report_mpi_wait_ranks(const ot_report *r);
/** \brief Rank \p rank's waiting of kind \p kind: its total and its instances. */
uint64_t ot_report_mpi_wait_ns(const ot_report *r, uint32_t rank, ot_rp_wait_kind kind);
uint64_t ot_report_mpi_wait_count(const ot_report *r, uint32_t rank, ot_rp_wait_kind kind);
/** \brief Rank \p rank's waiting of all kinds, and the part of it in which none of its devices ran a kernel or a
 *  transfer (exact unless its devices changed state more than 128 times within one wait: then a lower bound). */
uint64_t ot_report_mpi_waiting_ns(const ot_report *r, uint32_t rank);
uint64_t ot_report_mpi_idle_ns(const ot_report *r, uint32_t rank);
/** \brief Messages: paired, without a partner, received before their send began (trace_read's counts). */
uint64_t ot_report_mpi_messages(const ot_report *r);
uint64_t ot_report_mpi_unmatched(const ot_report *r);
uint64_t ot_report_mpi_clock_violations(const ot_report *r);

/** \brief The "Largest waits in MPI" table (text) / the "mpi_waits" member (JSON, with its ",\n"). */
void ot_report_print_mpi_waits_text(const ot_report *r, FILE *to);
void ot_report_print_mpi_waits_json(const ot_report *r, FILE *to);
/** \brief The messages line of the Ranks section (text) / its "mpi_messages" member (JSON, with ",\n"). */
void ot_report_print_mpi_messages_text(const ot_report *r, FILE *to);
void ot_report_print_mpi_messages_json(const ot_report *r, FILE *to);
/** \brief A wait kind's id in JSON ("late_sender") and words ("late sender"). */
const char *ot_report_wait_kind_id(ot_rp_wait_kind k);
const char *ot_report_wait_kind_name(ot_rp_wait_kind k);

void ot_report_mpi_waits_free(ot_report *r);

#endif

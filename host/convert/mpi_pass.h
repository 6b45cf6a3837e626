/**
 * \file mpi_pass.h
 * \brief Conversion of the MPI records of libofftrace-mpi.so (issue 16,
 *        docs/mpi.md): each MPI call a region named after its function
 *        ("MPI_Send", paradigm MPI, the role of offtrace/mpi_calls.h) on the
 *        thread that called it.
 *
 * Messages, requests and collectives become OTF2's MPI events (MpiSend,
 * MpiRecv, MpiIsend, MpiIsendComplete, MpiIrecvRequest, MpiIrecv,
 * MpiRequestTest, MpiRequestCancelled, MpiCollectiveBegin/End) inside the
 * call's region, on the communicators raw/mpi.rank and raw/mpi.comms
 * define (ot_tw_mpi_world, ot_tw_mpi_add_comm). A record on a communicator
 * the rank never defined (one made by a call not wrapped) is counted in
 * OFFTRACE::MPI_RECORDS_NOT_CONVERTED, not written.
 */
#ifndef OT_CONVERT_MPI_PASS_H
#define OT_CONVERT_MPI_PASS_H

#include <stdint.h>

#include "offtrace/raw_format.h"

struct converter;
struct thread_pass;

/** \brief Read raw/mpi.rank and raw/mpi.comms of \p raw_dir into the
 *         archive's communicator definitions; nothing when the program
 *         never called MPI_Init under the wrappers. */
void ot_mpi_defs_load(struct converter *c, const char *raw_dir);

/** \brief \p ns of this rank's clock on rank 0's clock (raw/mpi.clock: the
 *         offset interpolated between MPI_Init's and MPI_Finalize's
 *         measurement, MPI_Init's alone when Finalize never came; outside
 *         them the nearest). Only when c->mpi_clock_points. */
uint64_t ot_mpi_on_rank0_clock(const struct converter *c, uint64_t ns);

/** \brief One MPI_* record of the thread of \p p at \p t (ns). */
void ot_mpi_convert(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t);

/** \brief The archive's MPI properties (none when the program made no MPI record). */
void ot_mpi_properties(struct converter *c);

void ot_mpi_free(struct converter *c);

#endif

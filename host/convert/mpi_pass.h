/**
 * \file mpi_pass.h
 * \brief Conversion of the MPI records of libofftrace-mpi.so (issue 16,
 *        docs/mpi.md): each MPI call a region named after its function
 *        ("MPI_Send", paradigm MPI, the role of offtrace/mpi_calls.h) on the
 *        thread that called it.
 *
 * The messages, requests and collectives (OTF2's MpiSend ... events),
 * communicators and clock offsets are not written yet (issue 16 part 3b):
 * they are counted, and the count is the archive property
 * OFFTRACE::MPI_RECORDS_NOT_CONVERTED, so that an archive of an MPI program
 * is valid and says what it leaves out.
 */
#ifndef OT_CONVERT_MPI_PASS_H
#define OT_CONVERT_MPI_PASS_H

#include <stdint.h>

#include "offtrace/raw_format.h"

struct converter;
struct thread_pass;

/** \brief One MPI_* record of the thread of \p p at \p t (ns). */
void ot_mpi_convert(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t);

/** \brief The archive's MPI properties (none when the program made no MPI record). */
void ot_mpi_properties(struct converter *c);

void ot_mpi_free(struct converter *c);

#endif

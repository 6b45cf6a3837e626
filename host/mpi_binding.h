/**
 * \file mpi_binding.h
 * \brief libofftrace.so's side of MPI recording (issue 16): the table of
 *        host/mpi/mpi_recorder.h, attached to libofftrace-mpi.so when the
 *        program has it preloaded or linked, whose slots write MPI_* records
 *        to the calling thread's stream and the `raw/mpi.*` files.
 */
#ifndef OT_MPI_BINDING_H
#define OT_MPI_BINDING_H

/** \brief At tool initialize, once recording is on: find
 *  offtrace_mpi_attach_recorder_ in the process (no library: nothing to do)
 *  and attach the recorder's table. */
void ot_mpi_binding_attach(void);

/** \brief At finalize: detach, so later MPI calls record nothing. */
void ot_mpi_binding_detach(void);

#endif

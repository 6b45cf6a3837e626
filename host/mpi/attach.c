/**
 * \file attach.c
 * \brief libofftrace-mpi.so's end of the binding (mpi_recorder.h): the
 *        recorder pointer every wrapper loads, and the recursion guard.
 */
#include "mpi_internal.h"

const ot_mpi_recorder *ot_mpi_recorder_now;
__thread int ot_mpi_inside __attribute__((tls_model("initial-exec")));

/* Exported: the one symbol of this library besides the MPI_* wrappers. */
__attribute__((visibility("default"))) int offtrace_mpi_attach_recorder_(const ot_mpi_recorder *recorder)
{
    if (recorder && (recorder->abi != OT_MPI_RECORDER_ABI || recorder->size < sizeof(ot_mpi_recorder)))
        return -1;
    if (recorder)
        ot_mpi_requests_prepare();
    __atomic_store_n(&ot_mpi_recorder_now, recorder, __ATOMIC_RELEASE);
    if (recorder)
        ot_mpi_attached_late(recorder);
    return OT_MPI_RECORDER_ABI;
}

/*
 * mpi_abort: a job that ends by MPI_Abort (tests/test_mpi_recording.c).
 * Two ranks exchange one message, then rank 1 calls MPI_Abort(3) while
 * rank 0 waits in MPI_Barrier (which never completes: mpirun kills it).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, value = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp target map(tofrom : value)
    value += 1;
    if (rank == 0)
        MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fflush(stdout);
    if (rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}

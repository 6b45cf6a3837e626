/*
 * mpi_late_receiver: a blocking send that waits for its receive
 * (tests/test_report_mpi_waits.c). Rank 0 sends 1 MiB to rank 1 with
 * MPI_Send three times; rank 1 sleeps 100 ms before each MPI_Recv. A message
 * that large goes by rendezvous (Open MPI's eager limit is far below it),
 * so each MPI_Send returns only after its receive was posted: rank 0 waits
 * about 100 ms per send, a late receiver. One target region makes it an
 * OpenMP program (offtrace records through the OpenMP runtime).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BYTES (1 << 20)
#define SENDS 3

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, value = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp target map(tofrom : value)
    value += 1;
    char *buffer = calloc(BYTES, 1);
    for (int i = 0; i < SENDS && buffer; i++) {
        if (rank == 0)
            MPI_Send(buffer, BYTES, MPI_CHAR, 1, 5, MPI_COMM_WORLD);
        else if (rank == 1) {
            struct timespec pause = {0, 100 * 1000 * 1000};
            nanosleep(&pause, NULL);
            MPI_Recv(buffer, BYTES, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    free(buffer);
    printf("mpi_late_receiver: rank %d done (%d)\n", rank, value);
    MPI_Finalize();
    return 0;
}

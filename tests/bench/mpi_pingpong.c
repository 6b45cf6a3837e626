/*
 * bench_mpi_pingpong: the cost of MPI recording on the fastest MPI calls
 * (docs/performance.md, "MPI recording (issue 16)"): ranks 0 and 1 bounce a
 * message of 8 B and of 64 KiB back and forth (MPI_Send / MPI_Recv), and
 * rank 0 prints the one-way latency (half a round trip), the best of ROUNDS
 * rounds of N round trips. Run by tests/bench/run_mpi_pingpong.sh without
 * offtrace and under `offtrace record` with libofftrace-mpi.so preloaded.
 * Linked with the OpenMP runtime, whose tool start brings the recorder in.
 *   mpirun -np 2 bench_mpi_pingpong [N [ROUNDS]]
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double one_way_us(int rank, char *buf, int bytes, int n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / n / 2 * 1e6;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10000, rounds = argc > 2 ? atoi(argv[2]) : 5;
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static char buf[65536];
    const int sizes[] = {8, 65536};
    for (int s = 0; s < 2; s++) {
        double best = 1e30;
        for (int r = 0; r < rounds; r++) {
            double us = one_way_us(rank, buf, sizes[s], sizes[s] > 8 ? n / 5 : n);
            best = us < best ? us : best;
        }
        if (rank == 0)
            printf("pingpong %6d B: %.3f us one way (threads %d)\n", sizes[s], best, omp_get_max_threads());
    }
    MPI_Finalize();
    return 0;
}

/*
 * mpi_threads: MPI from two OpenMP threads at once (MPI_THREAD_MULTIPLE),
 * for tests/test_mpi_recording.c. Two ranks; on each, threads 0 and 1
 * exchange ITER messages of 16 ints with the other rank's same thread
 * (their own tag; MPI_Irecv, MPI_Isend, MPI_Waitall), then thread 0 starts
 * a receive that thread 1 completes (MPI_Wait on a request another thread
 * started). Prints the count of what it asked MPI to do:
 *   MPICOUNT rank=R sends=S bytes_sent=B recvs=N bytes_recv=B coll=0 coll_sent=0 coll_recv=0
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define ITER 50

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size != 2) {
        fprintf(stderr, "mpi_threads: needs 2 ranks and MPI_THREAD_MULTIPLE (got %d ranks, level %d)\n", size,
                provided);
        MPI_Finalize();
        return 2;
    }
    int partner = 1 - rank;
    long sends = 0, recvs = 0;
    MPI_Request handed_over;
    int x = 0, y = rank;
#pragma omp parallel num_threads(2) reduction(+ : sends, recvs)
    {
        int t = omp_get_thread_num();
        int out[16], in[16];
        for (int i = 0; i < 16; i++)
            out[i] = rank * 100 + t;
        for (int i = 0; i < ITER; i++) {
            MPI_Request r[2];
            MPI_Irecv(in, 16, MPI_INT, partner, t, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(out, 16, MPI_INT, partner, t, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            sends++;
            recvs++;
        }
        if (t == 0) {
            MPI_Irecv(&x, 1, MPI_INT, partner, 99, MPI_COMM_WORLD, &handed_over);
            recvs++;
        }
#pragma omp barrier
        if (t == 1) {
            MPI_Send(&y, 1, MPI_INT, partner, 99, MPI_COMM_WORLD);
            MPI_Wait(&handed_over, MPI_STATUS_IGNORE);
            sends++;
        }
    }
    if (x != partner)
        fprintf(stderr, "mpi_threads: rank %d got %d from rank %d\n", rank, x, partner);
    long bytes = 16 * (long)sizeof(int) * ITER * 2 + (long)sizeof(int);
    printf("MPICOUNT rank=%d sends=%ld bytes_sent=%ld recvs=%ld bytes_recv=%ld coll=0 coll_sent=0 coll_recv=0\n", rank,
           sends, bytes, recvs, bytes);
    MPI_Finalize();
    return x == partner ? 0 : 1;
}

/*
 * example_mpi_reduce - collectives, a communicator split and blocking
 * point-to-point around offloaded partial sums (issue 16, docs/mpi.md).
 *
 * Each rank offloads the sum of its slice of 1..N (`target teams`
 * reduction); rank 0 gathers the total with MPI_Reduce and hands it back
 * with MPI_Bcast; MPI_Comm_split parts the ranks into even and odd, whose
 * MPI_Allreduce sums each half; every even rank sends its half-sum to the
 * odd rank after it with MPI_Send / MPI_Recv, and the ranks pass a token
 * round the ring with MPI_Sendrecv. Then the split communicator is freed.
 *
 * Usage: example_mpi_reduce [n]   (default 1000000)
 *
 * Every rank prints what it asked MPI to do (the tests' independent count):
 *   MPICOUNT rank=R sends=S bytes_sent=B recvs=N bytes_recv=B coll=C coll_sent=X coll_recv=Y comms=M
 * with the collective bytes by the rules of docs/mpi.md.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct counts {
  long sends, bytes_sent, recvs, bytes_recv, coll, coll_sent, coll_recv, comms;
} counts;

static double partial_sum(long first, long last) {
  double sum = 0.0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(tofrom : sum)
  for (long i = first; i <= last; i++)
    sum += (double)i;
  return sum;
}

int main(int argc, char **argv) {
  long total_n = argc > 1 ? atol(argv[1]) : 1000000;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  counts n = {0};
  const long d = (long)sizeof(double);

  long per = total_n / size;
  long first = rank * per + 1, last = rank == size - 1 ? total_n : (rank + 1) * per;
  double mine = partial_sum(first, last), total = 0.0;

  MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  n.coll++;
  n.coll_sent += d;
  n.coll_recv += rank == 0 ? size * d : 0;

  MPI_Bcast(&total, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  n.coll++;
  n.coll_sent += rank == 0 ? size * d : 0;
  n.coll_recv += d;

  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  n.comms++;
  int half_size;
  MPI_Comm_size(half, &half_size);
  double half_sum = 0.0;
  MPI_Allreduce(&mine, &half_sum, 1, MPI_DOUBLE, MPI_SUM, half);
  n.coll++;
  n.coll_sent += half_size * d;
  n.coll_recv += half_size * d;

  if (rank % 2 == 0 && rank + 1 < size) {
    MPI_Send(&half_sum, 1, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD);
    n.sends++;
    n.bytes_sent += d;
  } else if (rank % 2 == 1) {
    double even_sum;
    MPI_Recv(&even_sum, 1, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    n.recvs++;
    n.bytes_recv += d;
    if (rank == 1)
      printf("mpi_reduce: even ranks sum %.0f, odd ranks %.0f\n", even_sum, half_sum);
  }

  long token[4] = {rank, rank, rank, rank}, got[4];
  MPI_Status status;
  MPI_Sendrecv(token, 4, MPI_LONG, (rank + 1) % size, 9, got, 4, MPI_LONG, (rank + size - 1) % size, 9,
               MPI_COMM_WORLD, &status);
  n.sends++;
  n.bytes_sent += 4 * (long)sizeof(long);
  n.recvs++;
  n.bytes_recv += 4 * (long)sizeof(long);

  MPI_Comm_free(&half);
  if (rank == 0)
    printf("mpi_reduce: %d ranks, sum of 1..%ld = %.0f, token from rank %ld\n", size, total_n, total, got[0]);
  printf("MPICOUNT rank=%d sends=%ld bytes_sent=%ld recvs=%ld bytes_recv=%ld coll=%ld coll_sent=%ld coll_recv=%ld "
         "comms=%ld\n",
         rank, n.sends, n.bytes_sent, n.recvs, n.bytes_recv, n.coll, n.coll_sent, n.coll_recv, n.comms);
  MPI_Finalize();
  return 0;
}

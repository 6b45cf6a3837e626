/*
 * example_mpi_devices - ranks that share the devices of a node, and ranks
 * that offload nothing (issue 16, docs/mpi.md).
 *
 * Rank R uses device R % omp_get_num_devices(); only even ranks offload
 * (a scaled vector on their device), odd ranks compute on the host. Every
 * rank sends its result to rank 0: rank 0 posts MPI_Irecv for each and
 * polls them with MPI_Test until done (the others use MPI_Isend and
 * MPI_Wait), then MPI_Gather collects the device each rank used and
 * MPI_Barrier ends the run.
 *
 * Usage: example_mpi_devices [n]   (default 100000)
 *
 * Every rank prints what it asked MPI to do (the tests' independent count):
 *   MPICOUNT rank=R sends=S bytes_sent=B recvs=N bytes_recv=B coll=C coll_sent=X coll_recv=Y device=D
 * with D = the device it offloaded to, -1 when it offloaded nothing.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct counts {
  long sends, bytes_sent, recvs, bytes_recv, coll, coll_sent, coll_recv;
} counts;

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  counts c = {0};
  const long d = (long)sizeof(double);

  double *x = malloc((size_t)n * sizeof *x);
  for (int i = 0; i < n; i++)
    x[i] = (double)(i % 100);
  int devices = omp_get_num_devices();
  int device = rank % 2 == 0 && devices > 0 ? rank % devices : -1;
  double sum = 0.0;
  if (device >= 0) {
#pragma omp target teams distribute parallel for reduction(+ : sum) device(device) map(to : x[0 : n]) map(tofrom : sum)
    for (int i = 0; i < n; i++)
      sum += 2.0 * x[i];
  } else {
    for (int i = 0; i < n; i++)
      sum += 2.0 * x[i];
  }

  if (rank == 0) {
    double *sums = malloc((size_t)size * sizeof *sums);
    MPI_Request *req = malloc((size_t)size * sizeof *req);
    sums[0] = sum;
    req[0] = MPI_REQUEST_NULL;
    for (int r = 1; r < size; r++) {
      MPI_Irecv(&sums[r], 1, MPI_DOUBLE, r, 3, MPI_COMM_WORLD, &req[r]);
      c.recvs++;
      c.bytes_recv += d;
    }
    for (int r = 1; r < size; r++)
      for (int done = 0; !done;)
        MPI_Test(&req[r], &done, MPI_STATUS_IGNORE);
    double all = 0.0;
    for (int r = 0; r < size; r++)
      all += sums[r];
    printf("mpi_devices: %d ranks, %d devices, total %.0f\n", size, devices, all);
    free(sums);
    free(req);
  } else {
    MPI_Request req;
    MPI_Isend(&sum, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    c.sends++;
    c.bytes_sent += d;
  }

  int *used = rank == 0 ? malloc((size_t)size * sizeof *used) : NULL;
  MPI_Gather(&device, 1, MPI_INT, used, 1, MPI_INT, 0, MPI_COMM_WORLD);
  c.coll++;
  c.coll_sent += (long)sizeof(int);
  c.coll_recv += rank == 0 ? size * (long)sizeof(int) : 0;
  if (rank == 0) {
    printf("mpi_devices: devices used:");
    for (int r = 0; r < size; r++)
      printf(" %d", used[r]);
    printf("\n");
    free(used);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  c.coll++;
  free(x);
  printf("MPICOUNT rank=%d sends=%ld bytes_sent=%ld recvs=%ld bytes_recv=%ld coll=%ld coll_sent=%ld coll_recv=%ld "
         "device=%d\n",
         rank, c.sends, c.bytes_sent, c.recvs, c.bytes_recv, c.coll, c.coll_sent, c.coll_recv, device);
  MPI_Finalize();
  return 0;
}

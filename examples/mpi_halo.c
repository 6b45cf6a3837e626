/*
 * example_mpi_halo - a 1-D heat equation split over MPI ranks, each rank's
 * part on its own device (issue 16, docs/mpi.md).
 *
 * The ranks start the steps together (MPI_Barrier once their data is on
 * their devices). Each step: a `target teams` stencil on the rank's cells, the boundary
 * cells pulled back (`target update from`), exchanged with the neighbours
 * (MPI_Isend / MPI_Irecv / MPI_Waitall; the ends of the line have
 * MPI_PROC_NULL as neighbour, which is no message), pushed to the device
 * again (`target update to`), and the residual summed over all ranks
 * (MPI_Allreduce). Rank 0 computes each step three times over (same
 * result, three times the time): the others wait for it, which the
 * report's late-sender and idle-device findings are to see.
 *
 * Usage: example_mpi_halo [steps]   (default 20)
 *
 * Every rank prints one line counting what it asked MPI to do, as the
 * tests' independent count:
 *   MPICOUNT rank=R sends=S bytes_sent=B recvs=N bytes_recv=B coll=C coll_sent=X coll_recv=Y
 * (collective bytes by the rules of docs/mpi.md: an Allreduce of one
 * double sends and receives size * 8 bytes).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS (1 << 21) /* per rank: enough work that rank 0's two extra stencils a step (milliseconds
                          * on the host plugin) stand out from the noise of MPI on a loaded machine */
#define HALO 16    /* cells exchanged with each neighbour per step */

static double u[CELLS + 2 * HALO], unew[CELLS + 2 * HALO];

typedef struct counts {
  long sends, bytes_sent, recvs, bytes_recv, coll, coll_sent, coll_recv;
} counts;

static void stencil(void) {
#pragma omp target teams distribute parallel for
  for (int i = HALO; i < CELLS + HALO; i++)
    unew[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* The change of this step, and unew copied into u (on the device). */
static double advance(void) {
  double change = 0.0;
#pragma omp target teams distribute parallel for reduction(+ : change)
  for (int i = HALO; i < CELLS + HALO; i++) {
    double d = unew[i] - u[i];
    change += d * d;
    u[i] = unew[i];
  }
  return change;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 20;
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  int neighbours = (left != MPI_PROC_NULL) + (right != MPI_PROC_NULL);
  counts n = {0};

  for (int i = 0; i < CELLS + 2 * HALO; i++) /* a hot spot in the middle of the whole line */
    u[i] = unew[i] = (rank == size / 2 && i == CELLS / 2) ? 1000.0 : 0.0;

  double residual = 0.0;
#pragma omp target enter data map(to : u, unew)
  /* The steps start together: a rank whose start (its device's set-up) took longer waits here, not in the
   * first exchange. */
  MPI_Barrier(MPI_COMM_WORLD);
  n.coll++;
  for (int s = 0; s < steps; s++) {
    for (int again = 0; again < (rank == 0 ? 3 : 1); again++)
      stencil();
    double change = advance();

#pragma omp target update from(u[HALO : HALO])
#pragma omp target update from(u[CELLS : HALO])
    MPI_Request req[4];
    MPI_Irecv(&u[0], HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[CELLS + HALO], HALO, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[HALO], HALO, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[CELLS], HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    n.sends += neighbours;
    n.bytes_sent += neighbours * HALO * (long)sizeof(double);
    n.recvs += neighbours;
    n.bytes_recv += neighbours * HALO * (long)sizeof(double);
#pragma omp target update to(u[0 : HALO])
#pragma omp target update to(u[CELLS + HALO : HALO])

    MPI_Allreduce(&change, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    n.coll++;
    n.coll_sent += size * (long)sizeof(double);
    n.coll_recv += size * (long)sizeof(double);
  }
#pragma omp target exit data map(from : u) map(release : unew)

  double local = 0.0, total = 0.0;
  for (int i = HALO; i < CELLS + HALO; i++)
    local += u[i];
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  n.coll++;
  n.coll_sent += sizeof(double); /* every rank hands its block to the root */
  n.coll_recv += rank == 0 ? size * (long)sizeof(double) : 0;
  if (rank == 0)
    printf("mpi_halo: %d ranks, %d steps, heat %.6f, last residual %.6e\n", size, steps, total, residual);
  printf("MPICOUNT rank=%d sends=%ld bytes_sent=%ld recvs=%ld bytes_recv=%ld coll=%ld coll_sent=%ld coll_recv=%ld\n",
         rank, n.sends, n.bytes_sent, n.recvs, n.bytes_recv, n.coll, n.coll_sent, n.coll_recv);
  MPI_Finalize();
  return 0;
}

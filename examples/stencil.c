/*
 * example_stencil - 2D Jacobi relaxation kept resident on the device.
 *
 * Offload pattern: a `target data` region holds both grids on the device for
 * the whole run.  Every CHECK_EVERY sweeps the host pulls the grid back with
 * `target update from(...)` to print a checksum; halfway through, the host
 * changes the boundary condition and pushes the grid to the device again
 * with `target update to(...)`.
 */
#include <stdio.h>

#define N 64 /* grid points per side, including the fixed boundary */
#define SWEEPS 40
#define CHECK_EVERY 10

static double u[N * N], unew[N * N];

static void sweep(const double *src, double *dst) {
#pragma omp target teams distribute parallel for collapse(2)
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      dst[i * N + j] = 0.25 * (src[(i - 1) * N + j] + src[(i + 1) * N + j] +
                               src[i * N + j - 1] + src[i * N + j + 1]);
}

static double checksum(void) {
  double s = 0.0;
  for (int i = 0; i < N * N; i++)
    s += u[i];
  return s;
}

int main(void) {
  /* Hot top edge (1.0), everything else 0. */
  for (int j = 0; j < N; j++)
    u[j] = unew[j] = 1.0;

#pragma omp target data map(tofrom : u) map(to : unew)
  {
    for (int s = 1; s <= SWEEPS; s++) {
      /* Two half-sweeps per step, so the result always ends in u. */
      sweep(u, unew);
      sweep(unew, u);

      if (s % CHECK_EVERY == 0) {
#pragma omp target update from(u)
        printf("stencil: sweep %2d checksum %.6f\n", s, checksum());
      }
      if (s == SWEEPS / 2) {
        /* New boundary condition: the bottom edge gets hot as well. */
        for (int j = 0; j < N; j++)
          u[(N - 1) * N + j] = 1.0;
#pragma omp target update to(u)
        /* unew needs the same boundary; refresh just its bottom row. */
#pragma omp target teams distribute parallel for
        for (int j = 0; j < N; j++)
          unew[(N - 1) * N + j] = u[(N - 1) * N + j];
      }
    }
  }
  printf("stencil: final checksum %.6f\n", checksum());
  return 0;
}

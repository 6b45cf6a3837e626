/*
 * example_transfer_mistakes - a 1D diffusion written with every transfer
 * and launch mistake `offtrace report` looks for, each at a marked line.
 * example_transfer_done_right (transfer_done_right.c) computes the same
 * numbers without them; the tests check that the report's findings fire
 * here, at these lines, and stay silent there.
 *
 * The field u diffuses with a coefficient per point (coef, never changed)
 * and gets heat from NSRC point sources (src) in every step. The host reads
 * u only at the end.
 *
 *   MISTAKE 1, repeated upload: every step's flux kernel maps coef `to`,
 *     so the same 32 MiB go to the device again in every step.
 *   MISTAKE 2, round trip: both kernels of a step map u `tofrom`, so u
 *     comes back to the host after each kernel and goes out again before
 *     the next one, though the host does not look at it until the end.
 *   MISTAKE 3, tiny transfers: the sources go to the device with one
 *     `target update` per value (8 bytes each).
 *   MISTAKE 4, kernels shorter than their launch: each source is added by
 *     a target region of its own, with one statement of work.
 *   MISTAKE 5, device idle while the host waits: the 32 MiB flux scratch is
 *     allocated and freed in every step; freeing it costs the host
 *     milliseconds during which the device has nothing to do (on a GPU,
 *     cudaMalloc/cudaFree in a loop do the same).
 *
 * Usage: example_transfer_mistakes [steps]   (default 4)
 */
#include <stdio.h>
#include <stdlib.h>

#define N (4L * 1024 * 1024) /* points: 32 MiB per array, above malloc's mmap threshold */
#define NSRC 32
#define DT 0.1

static double u[N], coef[N], src[NSRC];

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 4;
  double *flux = malloc(N * sizeof *flux);
  if (steps < 1 || !flux) {
    fprintf(stderr, "usage: %s [steps>=1]\n", argv[0]);
    return 2;
  }
  for (long i = 0; i < N; i++) {
    u[i] = (i / 1024) % 2;
    coef[i] = 0.1 + 0.1 * (double)(i % 3);
  }
  for (int k = 0; k < NSRC; k++)
    src[k] = 1.0 + k;

#pragma omp target enter data map(alloc : src[0 : NSRC])
  for (int k = 0; k < NSRC; k++) {
#pragma omp target update to(src[k : 1]) /* MISTAKE 3: one tiny transfer per value */
  }

  for (int s = 0; s < steps; s++) {
#pragma omp target enter data map(alloc : flux[0 : N]) /* MISTAKE 5: allocated in every step */
#pragma omp target teams distribute parallel for map(to : coef[0 : N]) map(tofrom : u[0 : N]) /* MISTAKES 1, 2 */
    for (long i = 0; i < N; i++)
      flux[i] = i < N - 1 ? coef[i] * (u[i + 1] - u[i]) : 0.0;
#pragma omp target teams distribute parallel for map(tofrom : u[0 : N]) /* MISTAKE 2 again */
    for (long i = 0; i < N; i++)
      u[i] += DT * (flux[i] - (i ? flux[i - 1] : 0.0));
#pragma omp target exit data map(delete : flux[0 : N]) /* MISTAKE 5: freed in every step */
    for (int k = 0; k < NSRC; k++) {
      long at = k * (N / NSRC);
#pragma omp target map(tofrom : u[at : 1]) /* MISTAKE 4: one tiny kernel per source */
      u[at] += DT * src[k];
    }
  }
#pragma omp target exit data map(delete : src[0 : NSRC])

  double sum = 0.0;
  for (long i = 0; i < N; i++)
    sum += u[i];
  printf("transfer_mistakes: steps=%d sum(u)=%.6f u[0]=%.6f\n", steps, sum, u[0]);
  free(flux);
  return 0;
}

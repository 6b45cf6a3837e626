/*
 * example_transfer_done_right - the diffusion of transfer_mistakes.c, with
 * the same result, written the way `offtrace report` has nothing to say
 * about:
 *
 *   - one `target data` region keeps coef, src, u and the flux scratch on
 *     the device for the whole run: coef and src travel once, u comes back
 *     once at the end, the scratch is allocated once (no repeated uploads,
 *     no round trips, no allocation in the loop);
 *   - the sources travel with the region's map clause, in one transfer;
 *   - they are added in the update kernel, not in kernels of their own.
 *
 * Usage: example_transfer_done_right [steps]   (default 4)
 */
#include <stdio.h>
#include <stdlib.h>

#define N (4L * 1024 * 1024)
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

#pragma omp target data map(to : coef[0 : N], src[0 : NSRC]) map(tofrom : u[0 : N]) map(alloc : flux[0 : N])
  {
    for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for
      for (long i = 0; i < N; i++)
        flux[i] = i < N - 1 ? coef[i] * (u[i + 1] - u[i]) : 0.0;
#pragma omp target teams distribute parallel for
      for (long i = 0; i < N; i++) {
        u[i] += DT * (flux[i] - (i ? flux[i - 1] : 0.0));
        if (i % (N / NSRC) == 0) /* the same order of additions as one region per source */
          u[i] += DT * src[i / (N / NSRC)];
      }
    }
  }

  double sum = 0.0;
  for (long i = 0; i < N; i++)
    sum += u[i];
  printf("transfer_done_right: steps=%d sum(u)=%.6f u[0]=%.6f\n", steps, sum, u[0]);
  free(flux);
  return 0;
}

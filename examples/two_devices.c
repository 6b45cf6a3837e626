/*
 * example_two_devices - splitting work across two offload devices.
 *
 * The array is cut in two halves; device(0) and device(1) each get their own
 * `target data` region with their half, run a kernel on it, and device(1)
 * additionally gets a `target update` round trip.  With LLVM's host
 * offloading plugin there are 4 (generic-64bit) devices, so this runs
 * without any accelerator.
 */
#include <omp.h>
#include <stdio.h>

#define N 4096
#define HALF (N / 2)

static double v[N];

int main(void) {
  if (omp_get_num_devices() < 2) {
    fprintf(stderr, "two_devices: need at least 2 offload devices, have %d\n",
            omp_get_num_devices());
    return 1;
  }
  for (int i = 0; i < N; i++)
    v[i] = (double)i;

  double *lo = v, *hi = v + HALF;

#pragma omp target data map(tofrom : lo[0 : HALF]) device(0)
  {
#pragma omp target teams distribute parallel for device(0)
    for (int i = 0; i < HALF; i++)
      lo[i] += 1.0;
  }

#pragma omp target data map(tofrom : hi[0 : HALF]) device(1)
  {
#pragma omp target teams distribute parallel for device(1)
    for (int i = 0; i < HALF; i++)
      hi[i] *= 2.0;
#pragma omp target update from(hi[0 : HALF]) device(1)
    hi[0] = -1.0; /* host edit, pushed back to device 1 */
#pragma omp target update to(hi[0 : HALF]) device(1)
#pragma omp target teams distribute parallel for device(1)
    for (int i = 0; i < HALF; i++)
      hi[i] += 1.0;
  }

  int ok = v[1] == 2.0 && v[HALF] == 0.0 && v[HALF + 1] == 2.0 * (HALF + 1) + 1.0;
  printf("two_devices: v[1]=%.1f v[%d]=%.1f v[%d]=%.1f %s\n", v[1], HALF,
         v[HALF], HALF + 1, v[HALF + 1], ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

/*
 * example_enter_exit - unstructured data mapping and the device memory API.
 *
 * Offload pattern, part 1: `target enter data` maps one array with
 * map(to:) and allocates another with map(alloc:); several `target`
 * constructs then use the resident data; `target exit data` brings the
 * result back with map(from:) and drops the input with map(delete:).
 *
 * Part 2: raw device memory, outside any construct: omp_target_alloc,
 * omp_target_memcpy host->device, a kernel on the device pointer
 * (is_device_ptr), omp_target_memcpy device->host, omp_target_free.
 */
#include <omp.h>
#include <stdio.h>

#define N 2048

static double a[N], b[N], h[N];

int main(void) {
  int dev = omp_get_default_device();
  int host = omp_get_initial_device();

  for (int i = 0; i < N; i++)
    a[i] = (double)i;

  /* Part 1: enter data / several targets / exit data. */
#pragma omp target enter data map(to : a) map(alloc : b)

#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    b[i] = 2.0 * a[i];

#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    b[i] += 1.0;

#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    a[i] = -1.0; /* device copy only: deleted below, never copied back */

#pragma omp target exit data map(from : b) map(delete : a)

  /* Part 2: device memory API. */
  for (int i = 0; i < N; i++)
    h[i] = 1.0;
  double *d = omp_target_alloc(N * sizeof(double), dev);
  if (!d) {
    fprintf(stderr, "omp_target_alloc failed\n");
    return 1;
  }
  omp_target_memcpy(d, h, N * sizeof(double), 0, 0, dev, host);

#pragma omp target teams distribute parallel for is_device_ptr(d) device(dev)
  for (int i = 0; i < N; i++)
    d[i] *= 3.0;

  omp_target_memcpy(h, d, N * sizeof(double), 0, 0, host, dev);
  omp_target_free(d, dev);

  int ok = b[10] == 21.0 && a[10] == 10.0 && h[10] == 3.0;
  printf("enter_exit: b[10]=%.1f a[10]=%.1f h[10]=%.1f %s\n", b[10], a[10],
         h[10], ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

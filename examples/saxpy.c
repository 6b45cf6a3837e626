/*
 * example_saxpy - the simplest offload pattern: a self-contained `target`
 * construct with its own map clauses, repeated a few times.
 *
 * Each repetition maps x to the device (alloc + host-to-device copy), maps y
 * both ways (alloc + copy in + copy out), runs one kernel and releases both
 * buffers again: nothing stays resident between repetitions.
 */
#include <stdio.h>

#define N 4096
#define REPS 4

static float x[N], y[N];

int main(void) {
  const float a = 2.0f;
  for (int i = 0; i < N; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }

  for (int rep = 0; rep < REPS; rep++) {
#pragma omp target teams distribute parallel for map(to : x) map(tofrom : y)
    for (int i = 0; i < N; i++)
      y[i] = a * x[i] + y[i];
  }

  /* y[i] = 1 + REPS * a * i */
  double sum = 0.0;
  for (int i = 0; i < N; i++)
    sum += y[i];
  printf("saxpy: n=%d reps=%d y[1]=%.1f sum(y)=%.1f\n", N, REPS, y[1], sum);
  return y[1] == 1.0f + REPS * a ? 0 : 1;
}

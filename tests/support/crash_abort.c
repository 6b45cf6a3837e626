/*
 * crash_abort - runs two target regions with transfers, then abort()s.
 * Used by the tests to check that a trace survives SIGABRT.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1024

static double v[N];

int main(void) {
  for (int i = 0; i < N; i++)
    v[i] = (double)i;
  for (int rep = 0; rep < 2; rep++) {
#pragma omp target teams distribute parallel for map(tofrom : v)
    for (int i = 0; i < N; i++)
      v[i] += 1.0;
  }
  printf("crash_abort: v[1]=%.1f, aborting\n", v[1]);
  fflush(stdout);
  abort();
}

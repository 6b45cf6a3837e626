/*
 * crash_segv - runs a few target regions, then writes through a NULL
 * pointer (SIGSEGV).  Used by the tests to check that a trace survives a
 * segmentation fault.
 */
#include <stdio.h>

#define N 1024

static double v[N];

int main(void) {
  for (int rep = 0; rep < 3; rep++) {
#pragma omp target teams distribute parallel for map(tofrom : v)
    for (int i = 0; i < N; i++)
      v[i] += 1.0;
  }
  printf("crash_segv: v[0]=%.1f, crashing\n", v[0]);
  fflush(stdout);
  /* volatile: the compiler cannot prove the pointer is NULL, so it emits a
   * real store instead of a trap instruction. */
  int *volatile p = NULL;
  *p = 42;
  return 0;
}

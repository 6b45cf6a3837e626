/*
 * example_nowait - asynchronous offload with `target nowait` and task
 * dependences, joined by `taskwait`.
 *
 * Two independent chains (on a and on b) run concurrently; a final target
 * depends on both.  Every target that touches an array is ordered after the
 * previous one through depend clauses, so the mapping (and thus the number
 * of allocations and transfers) is the same in every run.
 *
 *   a: init_a -> scale_a --\
 *                           +-> c = a + b
 *   b: init_b -> scale_b --/
 */
#include <stdio.h>

#define N 1024

static double a[N], b[N], c[N];

int main(void) {
#pragma omp target nowait map(from : a) depend(out : a)
  for (int i = 0; i < N; i++)
    a[i] = (double)i;

#pragma omp target nowait map(from : b) depend(out : b)
  for (int i = 0; i < N; i++)
    b[i] = 1.0;

#pragma omp target nowait map(tofrom : a) depend(inout : a)
  for (int i = 0; i < N; i++)
    a[i] *= 2.0;

#pragma omp target nowait map(tofrom : b) depend(inout : b)
  for (int i = 0; i < N; i++)
    b[i] *= 3.0;

#pragma omp target nowait map(to : a, b) map(from : c) depend(in : a, b) depend(out : c)
  for (int i = 0; i < N; i++)
    c[i] = a[i] + b[i];

#pragma omp taskwait

  int ok = c[10] == 23.0;
  printf("nowait: c[10]=%.1f %s\n", c[10], ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

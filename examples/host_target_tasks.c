/*
 * example_host_target_tasks - host tasks and `target nowait` tasks ordered
 * by `depend` clauses: in each round a slow host task fills the input
 * (out: in), a kernel waits for it (target nowait depend(in: in)
 * depend(out: out)), and a host task consumes the kernel's result (depend
 * in: out). The kernel starts late because of the host task: the edge
 * host task -> target task is what the trace must show.
 *
 * Usage: example_host_target_tasks [rounds [host_us]]   (defaults: 3 20000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 8192

static void spin_us(long us)
{
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do
    clock_gettime(CLOCK_MONOTONIC, &now);
  while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  long host_us = argc > 2 ? atol(argv[2]) : 20000;
  if (rounds < 1 || host_us < 0) {
    fprintf(stderr, "usage: %s [rounds>=1 [host_us>=0]]\n", argv[0]);
    return 2;
  }
  static double in[N], out[N];
  double check = 0.0;
  /* The device and libomp's hidden helper threads start at the first
   * `target nowait` (tens of milliseconds, more under a tracer): done once
   * here, so that each round's kernel waits for its host task only. */
#pragma omp target nowait map(to : in[0 : 1])
  in[0] = 0.0;
#pragma omp taskwait
#pragma omp parallel num_threads(2)
#pragma omp single
  for (int r = 0; r < rounds; r++) {
#pragma omp task depend(out : in) firstprivate(r)
    {
      spin_us(host_us); /* the slow host phase the kernel waits for */
      for (int i = 0; i < N; i++)
        in[i] = i + r;
    }
#pragma omp target nowait map(to : in) map(from : out) depend(in : in) depend(out : out)
    for (int i = 0; i < N; i++)
      out[i] = 2.0 * in[i];
#pragma omp task depend(in : out) shared(check)
    for (int i = 0; i < N; i++)
      check += out[i];
#pragma omp taskwait
  }
  printf("rounds %d check %.1f\n", rounds, check);
  return 0;
}

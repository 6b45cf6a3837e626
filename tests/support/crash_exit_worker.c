/*
 * crash_exit_worker - runs a few target regions, then calls _exit(3) from
 * an OpenMP worker thread (omp_get_thread_num() == 1) of a parallel region,
 * while the primary thread waits in the region's barrier.  No atexit
 * handlers, destructors or OMPT finalize run.  Exit status: 3.
 */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 1024

static double v[N];

int main(void) {
  for (int rep = 0; rep < 3; rep++) {
#pragma omp target teams distribute parallel for map(tofrom : v)
    for (int i = 0; i < N; i++)
      v[i] += 1.0;
  }
  printf("crash_exit_worker: v[0]=%.1f, exiting from a worker\n", v[0]);
  fflush(stdout);

#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1)
      _exit(3);
  }
  /* Only reached if the runtime gave us a single thread. */
  fprintf(stderr, "crash_exit_worker: no worker thread was started\n");
  return 1;
}

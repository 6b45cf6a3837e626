/*
 * example_device_tasks - OpenMP doing real work inside target regions:
 * a parallel loop, explicit tasks with a taskwait, a single and an explicit
 * barrier, all executing on the device. The target regions are spread over
 * time (the host pauses between them), so that a run of a few seconds holds
 * only a few hundred of them: the workload the clock-synchronisation tests
 * use, with a skewed device clock, to check device events against the truth.
 *
 * Usage: example_device_tasks [regions [pause_us [rounds]]]   (defaults: 20 1000 1)
 * `rounds` repeats the parallel region inside each target region: many
 * rounds make one region produce many device events between two flushes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 4096

int main(int argc, char **argv) {
  int regions = argc > 1 ? atoi(argv[1]) : 20;
  int pause_us = argc > 2 ? atoi(argv[2]) : 1000;
  int rounds = argc > 3 ? atoi(argv[3]) : 1;
  if (regions < 1 || pause_us < 0 || rounds < 1) {
    fprintf(stderr, "usage: %s [regions>=1 [pause_us>=0 [rounds>=1]]]\n", argv[0]);
    return 2;
  }
  static double a[N];
  double total = 0.0;
  for (int r = 0; r < regions; r++) {
    double sum = 0.0;
#pragma omp target map(tofrom : a, sum)
    for (int round = 0; round < rounds; round++) {
#pragma omp parallel num_threads(2)
      {
#pragma omp for reduction(+ : sum)
        for (int i = 0; i < N; i++) {
          a[i] += 0.5 * i;
          sum += a[i];
        }
#pragma omp single
        {
          for (int t = 0; t < 4; t++) {
#pragma omp task firstprivate(t)
            a[t] += t;
          }
#pragma omp taskwait
        }
#pragma omp barrier
      }
    }
    total += sum;
    if (pause_us)
      usleep((useconds_t)pause_us);
  }
  printf("regions %d total %.1f\n", regions, total);
  return 0;
}

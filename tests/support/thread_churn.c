/*
 * thread_churn N: starts N threads one after another, each running one
 * target region and ending. A tracer must not keep a buffer, a file or a
 * trace location per thread that has ended.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static void *work(void *arg) {
  int v = (int)(long)arg, out = 0;
#pragma omp target map(tofrom: out)
  out = v + 1;
  return (void *)(long)out;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  long sum = 0;
  for (int i = 0; i < n; i++) {
    pthread_t t; void *r;
    pthread_create(&t, NULL, work, (void *)(long)i);
    pthread_join(t, &r);
    sum += (long)r;
  }
  printf("threads %d sum %ld\n", n, sum);
  return 0;
}

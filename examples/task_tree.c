/*
 * example_task_tree - a task-parallel recursive sum over a binary tree of
 * ranges, with a cutoff that is deliberately too fine: below `cutoff`
 * elements a range is summed in place, above it each half becomes a task,
 * so with the default cutoff most tasks do a few dozen additions, less than
 * what creating and scheduling them costs (the "tasks finer than their
 * overhead" the report should find).
 *
 * After the tree, one task of each kind the runtime reports by flag
 * (undeferred `if(0)`, `final`, `untied`, `mergeable`), a chain of tasks
 * ordered by `depend` clauses in a taskgroup, and a `taskwait depend`:
 * the workload of tests/test_host_tasks.c.
 *
 * Usage: example_task_tree [elements [cutoff [rounds]]]   (defaults: 200000 64 1)
 */
#include <stdio.h>
#include <stdlib.h>

static long sum_range(const int *v, long lo, long hi, long cutoff)
{
  if (hi - lo <= cutoff) {
    long s = 0;
    for (long i = lo; i < hi; i++)
      s += v[i];
    return s;
  }
  long mid = lo + (hi - lo) / 2, left = 0, right = 0;
#pragma omp task shared(left)
  left = sum_range(v, lo, mid, cutoff);
#pragma omp task shared(right)
  right = sum_range(v, mid, hi, cutoff);
#pragma omp taskwait
  return left + right;
}

/* One task of each flag, a dependence chain, a taskwait with depend. */
static long flavours(const int *v)
{
  long a = 0, b = 0, c = 0, d = 0, e = 0, chain = 0;
#pragma omp task if (0) shared(a)
  a = v[0];
#pragma omp task final(1) shared(b)
  b = v[1];
#pragma omp task untied shared(c)
  c = v[2];
#pragma omp task mergeable shared(d)
  d = v[3];
#pragma omp taskgroup
  {
#pragma omp task depend(out : chain) shared(chain)
    chain = 1;
#pragma omp task depend(inout : chain) shared(chain)
    chain *= 10;
#pragma omp task depend(in : chain) shared(chain, e)
    e = chain + 1;
  }
#pragma omp task depend(out : e) shared(e)
  e += 1;
#pragma omp taskwait depend(in : e)
#pragma omp taskwait
  return a + b + c + d + e;
}

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 200000;
  long cutoff = argc > 2 ? atol(argv[2]) : 64;
  int rounds = argc > 3 ? atoi(argv[3]) : 1;
  if (n < 4 || cutoff < 1 || rounds < 1) {
    fprintf(stderr, "usage: %s [elements>=4 [cutoff>=1 [rounds>=1]]]\n", argv[0]);
    return 2;
  }
  int *v = malloc(n * sizeof *v);
  if (!v)
    return 1;
  for (long i = 0; i < n; i++)
    v[i] = (int)(i % 7);
  long total = 0, extra = 0;
  for (int r = 0; r < rounds; r++) {
#pragma omp parallel
#pragma omp single
    {
      total = sum_range(v, 0, n, cutoff);
      extra = flavours(v);
    }
  }
  printf("sum %ld (%ld elements, cutoff %ld, %d rounds) flavours %ld\n", total, n, cutoff, rounds, extra);
  free(v);
  return 0;
}

/*
 * example_cg - Conjugate Gradient on the 2D Laplacian (5-point stencil,
 * CSR storage), in the style of Dietrich et al.'s CG on the Xeon Phi.
 *
 * Offload pattern: ONE `target data` region around the whole solver.  The
 * matrix and vectors are mapped once; every iteration then launches several
 * small `target teams distribute parallel for` kernels (sparse matrix-vector
 * product, two dot products with a reduction, three vector updates) that
 * find their data already present on the device.  Only the reduction
 * scalars travel between host and device inside the loop.
 *
 * Usage: example_cg [grid_n [iterations [host]]]   (defaults: 32 50; `host`:
 * a host phase per iteration, see main).  grid_n*grid_n unknowns, a fixed
 * iteration count: the number of kernels and transfers is deterministic. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* y = A*x for a CSR matrix A with `rows` rows. */
static void spmv(int rows, const int *rowptr, const int *col, const double *val,
                 const double *x, double *y) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < rows; i++) {
    double s = 0.0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
      s += val[k] * x[col[k]];
    y[i] = s;
  }
}

static double dot(int n, const double *a, const double *b) {
  double s = 0.0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(tofrom : s)
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* y = y + alpha * x */
static void axpy(int n, double alpha, const double *x, double *y) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    y[i] += alpha * x[i];
}

/* y = x + beta * y */
static void xpay(int n, const double *x, double beta, double *y) {
#pragma omp target teams distribute parallel for
  for (int i = 0; i < n; i++)
    y[i] = x[i] + beta * y[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 32, iters = argc > 2 ? atoi(argv[2]) : 50;
  int host_phase = argc > 3 && strcmp(argv[3], "host") == 0;
  if (n < 2 || iters < 1 || (argc > 3 && !host_phase) || argc > 4) {
    fprintf(stderr, "usage: %s [grid_n>=2 [iterations>=1 [host]]]\n", argv[0]);
    return 2;
  }
  int rows = n * n;
  int nnz = 5 * rows - 4 * n; /* 5 entries per row minus the missing borders */

  int *rowptr = malloc((rows + 1) * sizeof *rowptr);
  int *col = malloc(nnz * sizeof *col);
  double *val = malloc(nnz * sizeof *val);
  double *b = malloc(rows * sizeof *b);
  double *x = malloc(rows * sizeof *x);
  double *r = malloc(rows * sizeof *r);
  double *p = malloc(rows * sizeof *p);
  double *Ap = malloc(rows * sizeof *Ap);
  if (!rowptr || !col || !val || !b || !x || !r || !p || !Ap) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }

  /* Assemble the 2D Laplacian on the host. */
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int row = i * n + j;
      rowptr[row] = k;
      if (i > 0)     { col[k] = row - n; val[k++] = -1.0; }
      if (j > 0)     { col[k] = row - 1; val[k++] = -1.0; }
      col[k] = row; val[k++] = 4.0;
      if (j < n - 1) { col[k] = row + 1; val[k++] = -1.0; }
      if (i < n - 1) { col[k] = row + n; val[k++] = -1.0; }
    }
  rowptr[rows] = k;
  for (int i = 0; i < rows; i++) {
    b[i] = 1.0;
    x[i] = 0.0;
  }

  double rr0 = 0.0, rr = 0.0, rmax = 0.0;
  double t0 = omp_get_wtime();
#pragma omp target data map(to : rowptr[0 : rows + 1], col[0 : nnz], val[0 : nnz], b[0 : rows]) \
                        map(tofrom : x[0 : rows]) map(alloc : r[0 : rows], p[0 : rows], Ap[0 : rows])
  {
    /* x0 = 0, so r0 = b and p0 = r0. */
#pragma omp target teams distribute parallel for
    for (int i = 0; i < rows; i++) {
      r[i] = b[i];
      p[i] = b[i];
    }
    rr0 = rr = dot(rows, r, r);

    for (int it = 0; it < iters; it++) {
      spmv(rows, rowptr, col, val, p, Ap);
      double pAp = dot(rows, p, Ap);
      double alpha = pAp != 0.0 ? rr / pAp : 0.0;
      axpy(rows, alpha, p, x);
      axpy(rows, -alpha, Ap, r);
      double rr_new = dot(rows, r, r);
      double beta = rr != 0.0 ? rr_new / rr : 0.0;
      xpay(rows, r, beta, p);
      rr = rr_new;
      if (host_phase) {
        /* The host phase (third argument `host`): the residual comes back and
         * a host `parallel for` computes its largest entry, the max-norm a
         * solver would check for convergence. It measures what recording the
         * host's OpenMP costs in an offload program whose host works between
         * kernels (tests/bench/run_host_openmp_programs.sh); without the
         * argument the program does what it always did (tests count its
         * kernels, transfers and source lines). */
#pragma omp target update from(r[0 : rows])
        double m = 0.0;
#pragma omp parallel for reduction(max : m)
        for (int i = 0; i < rows; i++)
          m = fmax(m, fabs(r[i]));
        rmax = m;
      }
    }
  } /* x comes back here */
  double solve_s = omp_get_wtime() - t0;

  double xsum = 0.0;
  for (int i = 0; i < rows; i++)
    xsum += x[i];
  printf("cg: n=%d unknowns=%d nnz=%d iterations=%d\n", n, rows, nnz, iters);
  printf("cg: residual %.6e (relative %.6e), sum(x) %.6f\n", sqrt(rr),
         sqrt(rr / rr0), xsum);
  if (host_phase)
    printf("cg: host phase, max |r| %.6e\n", rmax);
  printf("cg: solver %.6f s\n", solve_s);

  free(rowptr); free(col); free(val); free(b);
  free(x); free(r); free(p); free(Ap);
  return 0;
}

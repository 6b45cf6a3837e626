/*
 * map_names - every kind of map a program makes, with known names, types
 * and lines, for tests/test_map_names.c (issue 15). Each construct's line is
 * printed ("LINE <what> <line>") so the test compares the archive with what
 * the program declares rather than with numbers of its own. Built twice:
 * with -g (names) and with -g0 (names unknown, types and lines still known).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
#define SITE(what) printf("LINE %s %d\n", what, __LINE__ + 1)

struct vec {
    int len;
    double *data;
};
#pragma omp declare mapper(struct vec v) map(v, v.data[0:v.len])

struct particle {
    double *pos;
    int n;
};

static double table[64]; /* used in a target region without a map clause: mapped tofrom implicitly */

int main(void)
{
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *w = malloc(N * sizeof *w);
    double alpha = 2.0, sum = 0.0;
    struct vec s = {16, malloc(16 * sizeof(double))};
    for (int i = 0; i < N; i++)
        x[i] = i, y[i] = 0, w[i] = 1;
    for (int i = 0; i < 16; i++)
        s.data[i] = i;

    SITE("enter");
#pragma omp target enter data map(to: x[0:N]) map(alloc: y[0:N])
    SITE("target");
#pragma omp target map(present, to: x[0:N]) map(always, from: y[0:N]) map(tofrom: sum)
    for (int i = 0; i < N; i++) {
        y[i] = alpha * x[i];
        sum += y[i];
    }
    SITE("update");
#pragma omp target update from(y[0:N / 2])
    SITE("mapper");
#pragma omp target map(tofrom: s)
    for (int i = 0; i < s.len; i++)
        s.data[i] += 1.0;
    struct particle p = {malloc(16 * sizeof(double)), 16};
    for (int i = 0; i < 16; i++)
        p.pos[i] = i;
    SITE("member");
#pragma omp target map(tofrom: p, p.pos[0:16])
    for (int i = 0; i < p.n; i++)
        p.pos[i] *= 2.0;
    SITE("implicit");
#pragma omp target
    for (int i = 0; i < 64; i++)
        table[i] += i;
    SITE("nowait");
#pragma omp target map(tofrom: w[0:N]) nowait
    for (int i = 0; i < N; i++)
        w[i] += 1.0;
#pragma omp taskwait
    SITE("nowait_update");
#pragma omp target update to(y[0:64]) nowait
#pragma omp taskwait
    SITE("exit");
#pragma omp target exit data map(release: x[0:N]) map(delete: y[0:N])
    SITE("zero");
#pragma omp target map(to: x[0:0])
    {
        (void)x;
    }
    int other = omp_get_num_devices() > 1 ? 1 : 0;
    SITE("device1");
#pragma omp target map(tofrom: y[0:64]) device(other)
    for (int i = 0; i < 64; i++)
        y[i] += 1.0;
    SITE("api");
    void *d = omp_target_alloc(256, 0);
    omp_target_memcpy(d, x, 256, 0, 0, 0, omp_get_initial_device());
    omp_target_free(d, 0);
    printf("sum=%g y[10]=%g data[3]=%g table[3]=%g w[5]=%g pos[3]=%g\n", sum, y[10], s.data[3], table[3],
           w[5], p.pos[3]);
    return 0;
}

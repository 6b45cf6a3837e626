/*
 * implicit_maps - a table the program never names in a map clause: a
 * global array read by a kernel inside a time loop. OpenMP maps it
 * implicitly, `tofrom`, at every target region: 32 KiB to the device and
 * back around each of the STEPS kernels, although the kernels only read it
 * (MISTAKE). The field is kept on the device with `target data`, as it
 * should be. offtrace report names `weights` in its finding "implicit maps
 * that cost" and the clause that fixes it (docs/report.md).
 *
 * Usage: implicit_maps [steps]   (default 50)
 */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 16)
#define W 4096

static double weights[W]; /* used in the kernel, named in no map clause */

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 50;
    if (steps < 1) {
        fprintf(stderr, "usage: %s [steps>=1]\n", argv[0]);
        return 2;
    }
    double *field = malloc(N * sizeof *field);
    if (!field)
        return 1;
    for (int i = 0; i < N; i++)
        field[i] = 1.0;
    for (int k = 0; k < W; k++)
        weights[k] = 1.0 / (1 + k);

#pragma omp target data map(tofrom : field[0 : N])
    for (int s = 0; s < steps; s++) {
#pragma omp target teams distribute parallel for /* MISTAKE: weights mapped tofrom implicitly, every step */
        for (int i = 0; i < N; i++)
            field[i] = 0.5 * field[i] + weights[i % W];
    }

    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += field[i];
    printf("implicit_maps: %d steps, sum %.6f\n", steps, sum);
    free(field);
    return 0;
}

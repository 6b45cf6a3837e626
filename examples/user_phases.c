/*
 * user_phases: a program that names its own phases with offtrace's user API
 * (include/offtrace/offtrace_user.h). Each of STEPS steps assembles a vector
 * on the host, then solves on the device: a target region inside the user
 * region "solve". An event "halo" spans the copy back, and a counter
 * "residual" (a double) and "iterations" (an int64) are written once per step.
 *
 * It links libofftrace-user.so only, and prints the same lines traced or not.
 *
 *   user_phases [steps]     (default 4; prints one line per step and a sum)
 */
#include <stdio.h>
#include <stdlib.h>

#include "offtrace/offtrace_user.h"

#define N 4096

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 4;
    if (steps < 1 || steps > 1000) {
        fprintf(stderr, "user_phases: steps must be 1..1000\n");
        return 2;
    }
    offtrace_user_init(); /* the recorder attaches now, when traced */

    offtrace_user_id halo, residual, iterations;
    if (offtrace_user_event_create("halo", &halo) ||
        offtrace_user_value_create("residual", OFFTRACE_USER_DOUBLE, &residual) ||
        offtrace_user_value_create("iterations", OFFTRACE_USER_INT64, &iterations)) {
        fprintf(stderr, "user_phases: the user API refused a name\n");
        return 1;
    }

    static double x[N], y[N];
    double total = 0;
    for (int step = 0; step < steps; step++) {
        OFFTRACE_USER_REGION_BEGIN(assemble, "assemble");
        for (int i = 0; i < N; i++)
            x[i] = (double)(i % 17) + step;
        OFFTRACE_USER_REGION_END(assemble);

        OFFTRACE_USER_REGION_BEGIN(solve, "solve");
        #pragma omp target teams distribute parallel for map(to: x) map(from: y)
        for (int i = 0; i < N; i++)
            y[i] = 2.0 * x[i] + 1.0;
        offtrace_user_event_begin(halo);
        double sum = 0;
        for (int i = 0; i < N; i++)
            sum += y[i];
        offtrace_user_event_end(halo);
        OFFTRACE_USER_REGION_END(solve);

        offtrace_user_value_double(residual, 1.0 / (step + 1));
        offtrace_user_value_int64(iterations, step + 1);
        printf("step %d: sum %.1f\n", step, sum);
        total += sum;
    }
    printf("total %.1f\n", total);
    return 0;
}

/*
 * Benchmark kernel: an empty `target map(tofrom: 64 bytes)` region in a
 * loop. Prints the mean wall time per region in ns for the timed part (after
 * a warm-up that initialises the device).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? atol(argv[1]) : 200000;
    char payload[64] = {0};
    for (int i = 0; i < 1000; i++) {
#pragma omp target map(tofrom : payload)
        payload[0]++;
    }
    double start = now_ns();
    for (long i = 0; i < iterations; i++) {
#pragma omp target map(tofrom : payload)
        payload[0]++;
    }
    double elapsed = now_ns() - start;
    printf("%.1f\n", elapsed / iterations);
    return payload[0] == (char)(1000 + iterations) ? 0 : 1;
}

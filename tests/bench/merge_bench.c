/*
 * The job merge's time (issue 16, docs/performance.md "The job merge"):
 * `bench_merge N [REPEATS [RECORDING]]` makes a job of N ranks in a scratch
 * directory and times ot_merge_job alone, REPEATS times (default 5), and
 * prints the median and the fastest. The parts are synthetic
 * (check/synthetic_parts.h) or, with RECORDING (an `offtrace record`
 * directory), a copy of that recording per rank with its rank in the
 * location ids (check/shifted_part.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check/shifted_part.h"
#include "check/synthetic_parts.h"
#include "merge.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int make_job(const char *job, int ranks, const char *recording)
{
    char cmd[8500];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", job);
    if (system(cmd) || write_job_file(job, "bench", ranks))
        return -1;
    for (int r = 0; r < ranks; r++) {
        if (!recording) {
            if (write_synthetic_part(job, r, NULL))
                return -1;
            continue;
        }
        char copy[4200];
        snprintf(copy, sizeof copy, "%s/copy.%d", job, r);
        snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", recording, copy);
        if (system(cmd) || make_shifted_part(copy, job, r))
            return -1;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", copy);
        if (system(cmd))
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: bench_merge RANKS [REPEATS [RECORDING]]\n");
        return 2;
    }
    int ranks = atoi(argv[1]), repeats = argc > 2 ? atoi(argv[2]) : 5;
    const char *recording = argc > 3 ? argv[3] : NULL;
    if (repeats < 1 || repeats > 1000)
        repeats = 5;
    char job[4096];
    snprintf(job, sizeof job, "%s/offtrace-merge-bench.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", getpid());
    double *seconds = calloc((size_t)repeats, sizeof *seconds);
    for (int i = 0; seconds && i < repeats; i++) {
        if (make_job(job, ranks, recording)) {
            fprintf(stderr, "bench_merge: cannot make the job's parts in %s\n", job);
            return 1;
        }
        char why[512];
        double t0 = now();
        int rc = ot_merge_job(job, why, sizeof why);
        seconds[i] = now() - t0;
        if (rc) {
            fprintf(stderr, "%s\n", why);
            return 1;
        }
    }
    qsort(seconds, (size_t)repeats, sizeof *seconds, by_value);
    printf("ranks %d parts %s: merge median %.2f ms, fastest %.2f ms (%d runs)\n", ranks,
           recording ? recording : "synthetic", seconds[repeats / 2] * 1e3, seconds[0] * 1e3, repeats);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", job);
    free(seconds);
    return system(cmd) ? 1 : 0;
}

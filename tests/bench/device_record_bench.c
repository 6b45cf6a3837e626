/*
 * bench_device_record: the device collector's own costs, without an OpenMP
 * runtime around them, so that they can be told apart from libomp's.
 *
 * The host-offload backend is attached through the collector's real table;
 * the benchmark then calls the table's `openmp.work` entry (what the host
 * library's work callback forwards to) on a thread that is in device work,
 * and flushes into the host library's real device sink (raw/device-0.rec in
 * a scratch directory).
 *
 * Prints: ns per recorded device event, ns per record for a flush, ns for a
 * flush of an empty buffer right after a full one (the fixed cost at each
 * target end, caches as a flush leaves them), the same averaged over 1000
 * empty flushes in a row (warm caches, timer cost spread), and ns for one
 * device_time read (each sync pair makes one to three).
 *   usage: bench_device_record [EVENTS [ROUNDS]]
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "device_sink.h"
#include "offtrace/collector.h"
#include "session.h"

#define WARM_FLUSHES 1000
#define TIME_READS 10000

static void deliver(void *context, int num, const offtrace_device_record *records, size_t count)
{
    ot_device_sink_append(num, records, count);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long events = argc > 1 ? atol(argv[1]) : 20000;
    int rounds = argc > 2 ? atoi(argv[2]) : 25;
    char dir[] = "/tmp/offtrace-bench-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    snprintf(ot_the_session.raw_dir, sizeof ot_the_session.raw_dir, "%s", dir);
    /* The work events it records are kept at the full level only (issue 18). */
    setenv("OFFTRACE_DEVICE_DETAIL", "threads", 1);
    const offtrace_collector *c = ot_dev_collector_table();
    offtrace_collector_host host = {.interface_version = OFFTRACE_COLLECTOR_INTERFACE_VERSION, .deliver = deliver};
    offtrace_collector_device_info info;
    ompt_callback_work_t work_callback = c->openmp.work;
    if (c->open(&host) || c->attach(0, "generic-64bit", NULL, NULL, &info) || !info.wants_host_openmp) {
        fprintf(stderr, "bench: cannot attach the host-offload backend\n");
        return 1;
    }
    ompt_data_t parallel = {0}, task = {0};
    double *record_ns = malloc(rounds * sizeof *record_ns), *flush_ns = malloc(rounds * sizeof *flush_ns);
    double *empty_ns = malloc(rounds * sizeof *empty_ns), *warm_ns = malloc(rounds * sizeof *warm_ns);
    double *time_ns = malloc(rounds * sizeof *time_ns);
    for (int r = 0; r < rounds; r++) {
        c->target_begin(0, 1000 + r, ompt_target);
        double t0 = now_ns();
        for (long i = 0; i < events / 2; i++) {
            work_callback(ompt_work_loop_static, ompt_scope_begin, &parallel, &task, 100, (void *)main);
            work_callback(ompt_work_loop_static, ompt_scope_end, &parallel, &task, 0, (void *)main);
        }
        double t1 = now_ns();
        c->target_end(0, 1000 + r, ompt_target);
        double t2 = now_ns();
        long flushed = c->flush(0);
        double t3 = now_ns();
        c->flush(0);
        double t4 = now_ns();
        if (flushed != events / 2 * 2) {
            fprintf(stderr, "bench: flushed %ld of %ld records\n", flushed, events);
            return 1;
        }
        record_ns[r] = (t1 - t0) / (double)flushed;
        flush_ns[r] = (t3 - t2) / (double)flushed;
        empty_ns[r] = t4 - t3;
        for (int i = 0; i < WARM_FLUSHES; i++)
            c->flush(0);
        double t5 = now_ns();
        warm_ns[r] = (t5 - t4) / WARM_FLUSHES;
        uint64_t sum = 0;
        for (int i = 0; i < TIME_READS; i++)
            sum += c->device_time(0);
        time_ns[r] = (now_ns() - t5) / TIME_READS;
        if (!sum)
            return 1;
    }
    qsort(record_ns, rounds, sizeof *record_ns, by_value);
    qsort(flush_ns, rounds, sizeof *flush_ns, by_value);
    qsort(empty_ns, rounds, sizeof *empty_ns, by_value);
    qsort(warm_ns, rounds, sizeof *warm_ns, by_value);
    qsort(time_ns, rounds, sizeof *time_ns, by_value);
    printf("| measure | median | min |\n|---|---|---|\n");
    printf("| record one device event (callback, clock, 48-byte store) | %.1f ns | %.1f ns |\n",
           record_ns[rounds / 2], record_ns[0]);
    printf("| flush, per record (drain + copy into raw/device-N.rec) | %.1f ns | %.1f ns |\n", flush_ns[rounds / 2],
           flush_ns[0]);
    printf("| flush with nothing to hand over (per target end) | %.0f ns | %.0f ns |\n", empty_ns[rounds / 2],
           empty_ns[0]);
    printf("| the same, %d in a row (mean) | %.1f ns | %.1f ns |\n", WARM_FLUSHES, warm_ns[rounds / 2], warm_ns[0]);
    printf("| device_time (one read of a sync pair) | %.1f ns | %.1f ns |\n", time_ns[rounds / 2], time_ns[0]);
    printf("\n%ld events per round, %d rounds\n", events, rounds);
    c->close();
    ot_device_sink_close_all();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : 1;
}

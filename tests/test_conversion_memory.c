/*
 * Issue 10, case 15: the conversion's memory does not grow with the trace.
 * The same program recorded with 20,000 and with 120,000 target regions
 * (OFFTRACE_KEEP_RAW, so the raw records stay to be converted again): the
 * peak resident memory of `offtrace convert` on the longer one is within a
 * few MiB of the shorter one's, and the longer one's archive is valid and
 * complete. The same for a lock-heavy program at OFFTRACE_HOST_OPENMP=all
 * (every lock acquisition numbered among its lock's acquisitions): 20,000
 * and 500,000 histogram items, about 20,000 and 500,000 acquisitions. And
 * for explicit tasks at that level (what each task's periods need of its
 * creation): one and ten rounds of example_task_tree, about 20,000 and
 * 200,000 tasks.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/run.h"

TestSuite(conversion_memory, .timeout = 180);

#define SHORT_RUN "20000"
#define LONG_RUN "120000"
/* What the longer run may add: 100,000 more regions are 2.2 million more
 * events (the old converter grew by 86 MB); the converter's buffers do not
 * depend on them. */
#define MAX_GROWTH_KB (8 * 1024)

static void record_locks(const char *dir, const char *items)
{
    char *env[] = {"OFFTRACE_MEMORY_BUDGET=256K", "OFFTRACE_KEEP_RAW=1", "OFFTRACE_HOST_OPENMP=all",
                   "OMP_NUM_THREADS=2", NULL};
    char *args[] = {(char *)items, "1", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "example_lock_histogram", args, &err), 0, "record failed:\n%s", err);
    free(err);
}

static void record_tasks(const char *dir, const char *rounds)
{
    char *env[] = {"OFFTRACE_MEMORY_BUDGET=256K", "OFFTRACE_KEEP_RAW=1", "OFFTRACE_HOST_OPENMP=all",
                   "OMP_NUM_THREADS=2", NULL};
    char *args[] = {"10000", "1", (char *)rounds, NULL}; /* 10,000 elements, cutoff 1: 20,007 tasks a round */
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "example_task_tree", args, &err), 0, "record failed:\n%s", err);
    free(err);
}

static void record_many(const char *dir, const char *regions)
{
    char *env[] = {"OFFTRACE_MEMORY_BUDGET=256K", "OFFTRACE_KEEP_RAW=1", NULL};
    char *args[] = {(char *)regions, NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, "--host-only", env, "hostile_many", args, &err), 0, "record failed:\n%s", err);
    free(err);
}

/* `offtrace convert --keep-raw DIR`; returns its peak resident memory in KiB. */
static long convert_peak_kb(const char *dir)
{
    char cli[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(cli, cli, "convert", "--keep-raw", dir, (char *)NULL);
        _exit(127);
    }
    int status;
    struct rusage usage;
    cr_assert_eq(wait4(pid, &status, 0, &usage), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "convert %s failed (status %#x)", dir, status);
    return usage.ru_maxrss;
}

static void check_archive(const char *dir, uint64_t regions)
{
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "otf2-print rejects %s: %s", dir, message);
    free(message);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s: %s", dir, f.first_problem);
    cr_assert_eq(f.target, regions, "%s: %llu target regions", dir, (unsigned long long)f.target);
    cr_assert_eq(f.kernels, regions, "%s: %llu kernels", dir, (unsigned long long)f.kernels);
}

static void remove_recording(const char *dir)
{
    char *argv[] = {"rm", "-rf", (char *)dir, NULL};
    run_result r;
    if (run_command(argv, NULL, NULL, &r) == 0)
        run_free(&r);
}

Test(conversion_memory, peak_memory_does_not_grow_with_the_trace)
{
    char shorter[512], longer[512];
    scratch_path(shorter, sizeof shorter, "memory-short");
    scratch_path(longer, sizeof longer, "memory-long");
    record_many(shorter, SHORT_RUN);
    record_many(longer, LONG_RUN);
    long short_kb = convert_peak_kb(shorter), long_kb = convert_peak_kb(longer);
    check_archive(longer, strtoull(LONG_RUN, NULL, 10));
    cr_log_info("offtrace convert peak RSS: %ld KiB for %s regions, %ld KiB for %s", short_kb, SHORT_RUN, long_kb,
                LONG_RUN);
    cr_assert_lt(long_kb - short_kb, MAX_GROWTH_KB,
                 "the conversion's memory grows with the trace: %ld KiB for %s target regions, %ld KiB for %s",
                 short_kb, SHORT_RUN, long_kb, LONG_RUN);
    remove_recording(shorter);
    remove_recording(longer);
}

/* Convert both recordings; the longer one's archive must pass otf2-print and
 * its conversion peak stay within MAX_GROWTH_KB of the shorter one's. */
static void expect_flat_conversion(char *shorter, char *longer, const char *what)
{
    long short_kb = convert_peak_kb(shorter), long_kb = convert_peak_kb(longer);
    char *message = NULL;
    cr_assert_eq(otf2_print_check(longer, &message), 0, "otf2-print rejects %s: %s", longer, message);
    free(message);
    cr_log_info("offtrace convert peak RSS, %s: %ld KiB shorter, %ld KiB longer", what, short_kb, long_kb);
    cr_assert_lt(long_kb - short_kb, MAX_GROWTH_KB, "%s grow with the trace: %ld KiB shorter, %ld KiB longer", what,
                 short_kb, long_kb);
    remove_recording(shorter);
    remove_recording(longer);
}

/* The in-memory table took about 24 bytes per acquisition, doubled while it
 * grew: 480,000 more acquisitions were 20 MB more (the scratch files and
 * OTF2 buffers of the longer one add about 3 MB). */
Test(conversion_memory, lock_orders_do_not_grow_with_the_acquisitions)
{
    char shorter[512], longer[512];
    scratch_path(shorter, sizeof shorter, "locks-short");
    scratch_path(longer, sizeof longer, "locks-long");
    record_locks(shorter, "20000");
    record_locks(longer, "500000");
    expect_flat_conversion(shorter, longer, "lock orders (20000 and 500000 items)");
}

/* A table of every task took about 100 bytes per task, doubled while it
 * grew: 180,000 more tasks were 17 MB more (the scratch files and OTF2
 * buffers of the longer one add about 3 MB). */
Test(conversion_memory, tasks_do_not_grow_with_their_number)
{
    char shorter[512], longer[512];
    scratch_path(shorter, sizeof shorter, "tasks-short");
    scratch_path(longer, sizeof longer, "tasks-long");
    record_tasks(shorter, "1");
    record_tasks(longer, "10");
    expect_flat_conversion(shorter, longer, "tasks (1 and 10 rounds of 20,007)");
}

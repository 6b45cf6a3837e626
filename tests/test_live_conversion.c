/*
 * Issue 18, sixth round: `offtrace record` converts while the program runs
 * (host/convert/convert_live.h). The archive it leaves must be the one the
 * conversion after the program's end writes from the same recording: the
 * same traces.def and the same files under traces/, byte for byte (the
 * anchor's trace id and CONVERSION_SECONDS differ by design). Each program
 * here is recorded with -b 64K (many chunk switches) and its raw records
 * kept; its archive is set aside and the recording converted again with
 * ot_convert_directory, the conversion record runs without the live one.
 *
 * Whether the live attempt was kept is read from record's summary ("...
 * records before, while it ran"): kept for a single-threaded offload
 * program (at normal priority, OFFTRACE_TEST_LIVE_NOT_IDLE, so that the
 * work before the end does not depend on the machine's load; at SCHED_IDLE
 * as users run it, either); dropped by design for a program that dies (its recording is not
 * complete), one with explicit tasks (they need the counting pass); kept
 * for programs with data regions (seventh round: written in one pass, a
 * region no exit data ends included), user regions and NVTX ranges (their
 * definitions read again as the program makes them); either for the 2-thread host OpenMP program (its
 * second stream is written after the end); kept for threads that start after
 * the attempt began (eighth round: tests/support/live_threads.c, a team that
 * offloads, threads that end before the program, host OpenMP on late workers);
 * dropped for lock events (a lock's id and order need every stream whole).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check/run.h"
#include "convert.h"

TestSuite(live_conversion, .timeout = 300);

enum { DROPPED = 0, KEPT = 1, EITHER = -1 };

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    char *text = NULL;
    size_t got = 0, cap = 0;
    for (;;) {
        if (got == cap) {
            cap = cap ? cap * 2 : 65536;
            text = realloc(text, cap);
            cr_assert_not_null(text);
        }
        size_t n = fread(text + got, 1, cap - got, f);
        if (!n)
            break;
        got += n;
    }
    fclose(f);
    *size = got;
    return text;
}

static void same_file(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    cr_assert(na == nb && !memcmp(x, y, na), "%s (%zu bytes) and %s (%zu bytes) differ", a, na, b, nb);
    free(x);
    free(y);
}

/* Every file of \p a's traces/ is in \p b's, the same; as many files. */
static void same_traces(const char *a, const char *b)
{
    char da[4300], db[4300];
    snprintf(da, sizeof da, "%s/traces", a);
    snprintf(db, sizeof db, "%s/traces", b);
    size_t count[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        DIR *d = opendir(side ? db : da);
        cr_assert_not_null(d);
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            count[side]++;
            if (side == 0) {
                char pa[4600], pb[4600];
                snprintf(pa, sizeof pa, "%s/%s", da, e->d_name);
                snprintf(pb, sizeof pb, "%s/%s", db, e->d_name);
                same_file(pa, pb);
            }
        }
        closedir(d);
    }
    cr_assert_eq(count[0], count[1], "%zu files in %s, %zu in %s", count[0], da, count[1], db);
}

/* Record \p program under the live conversion, then convert again after
 * the end and compare. \return the records the attempt converted before
 * the end (0 when it was dropped). */
static uint64_t live_against_after_the_end(const char *name, const char *option, const char *program,
                                           char *const args[], int expect, const char *reason, int not_idle,
                                           const char *summary_says)
{
    char dir[4096], aside[4200], cli[4096], prog[4096];
    scratch_path(dir, sizeof dir, name);
    snprintf(aside, sizeof aside, "%s.live", dir);
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *argv[32] = {cli, "record", "-b", "64K", "-o", dir};
    int n = 6;
    if (option)
        argv[n++] = (char *)option;
    argv[n++] = "--";
    argv[n++] = prog;
    for (int i = 0; args && args[i]; i++)
        argv[n++] = args[i];
    /* at SCHED_IDLE the thread may get no CPU before the end while other tests load both cores */
    char *env[] = {"OFFTRACE_KEEP_RAW=1", "OMP_NUM_THREADS=2", not_idle ? "OFFTRACE_TEST_LIVE_NOT_IDLE=1" : NULL, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    const char *line = strstr(r.err, "records before, while it ran");
    int kept = line != NULL;
    uint64_t records = 0;
    if (kept) { /* "... (0.012 s and 12345 records before, while it ran" */
        const char *p = line;
        while (p > r.err && p[-1] == ' ')
            p--;
        while (p > r.err && p[-1] >= '0' && p[-1] <= '9')
            p--;
        records = strtoull(p, NULL, 10);
    }
    if (expect != EITHER)
        cr_assert_eq(kept, expect, "%s: the live attempt was %s: %s", name, kept ? "kept" : "dropped", r.err);
    cr_log_info("%s: live attempt %s, %" PRIu64 " records before the end", name, kept ? "kept" : "dropped", records);
    if (summary_says) /* what the program did, as record's summary counts it from the archive */
        cr_assert(strstr(r.err, summary_says), "%s: no '%s' in: %s", name, summary_says, r.err);
    run_free(&r);

    mkdir(aside, 0777);
    const char *parts[] = {"traces", "traces.def", "traces.otf2"};
    for (int i = 0; i < 3; i++) {
        char from[4400], to[4400];
        snprintf(from, sizeof from, "%s/%s", dir, parts[i]);
        snprintf(to, sizeof to, "%s/%s", aside, parts[i]);
        cr_assert_eq(rename(from, to), 0, "%s: no %s", name, from);
    }
    char msg[1024] = "";
    ot_convert_options opts = {.reason = reason, .keep_raw = 1};
    cr_assert_eq(ot_convert_directory(dir, &opts, msg, sizeof msg), 0, "%s", msg);
    char def_a[4400], def_b[4400];
    snprintf(def_a, sizeof def_a, "%s/traces.def", dir);
    snprintf(def_b, sizeof def_b, "%s/traces.def", aside);
    same_file(def_a, def_b);
    same_traces(dir, aside);
    return records;
}

Test(live_conversion, a_single_threaded_offload_program_converts_live_to_the_same_archive)
{
    char *args[] = {"20000", NULL};
    uint64_t records = live_against_after_the_end("live-offload", NULL, "hostile_many", args, KEPT, NULL, 1, NULL);
    cr_assert_gt(records, 3 * 1024, "at least 3 chunks of 64 KiB converted before the program ended");
    /* as users run it: kept on a quiet machine; on a loaded one the idle thread may not even begin */
    live_against_after_the_end("live-offload-idle", NULL, "hostile_many", args, EITHER, NULL, 0, NULL);
}

Test(live_conversion, a_two_thread_host_openmp_program_gives_the_same_archive)
{
    char *args[] = {"parallel", "20000", NULL};
    live_against_after_the_end("live-host-openmp", "--host-openmp=all", "bench_host_openmp_units", args, EITHER,
                               NULL, 0, NULL);
}

Test(live_conversion, a_program_that_dies_falls_back)
{
    char *args[] = {"segv", "3000", NULL};
    live_against_after_the_end("live-segv", NULL, "live_phases", args, DROPPED, "the program was killed by SIGSEGV", 0,
                               NULL);
    char *abort_args[] = {"abort", "3000", NULL};
    live_against_after_the_end("live-abort", NULL, "live_phases", abort_args, DROPPED,
                               "the program was killed by SIGABRT", 0, NULL);
}

Test(live_conversion, enter_exit_data_converts_live_to_the_same_archive)
{
    char *args[] = {"enter_exit", "20000", NULL};
    live_against_after_the_end("live-enter-exit", NULL, "live_phases", args, KEPT, NULL, 1,
                               "20001 target, 1 enter data, 1 exit data, 0 update, 1 data regions\n");
}

/* The typical offload program: its work inside a data region that ends at
 * the program's end, and data regions inside. */
Test(live_conversion, data_regions_around_the_work_convert_live_to_the_same_archive)
{
    char *args[] = {"data_region", "20000", NULL};
    /* the region around the work and one around every 500th of the 20000 regions (20000: long enough that
     * the live thread begins with both cores busy, ctest -j2 and the other tests of this suite) */
    uint64_t records = live_against_after_the_end("live-data-region", NULL, "live_phases", args, KEPT, NULL, 1,
                                                  "20000 target, 41 enter data, 41 exit data, 0 update, 41 data regions\n");
    cr_assert_gt(records, 3 * 1024, "converted inside the open data region, before the program ended");
}

/* Its enter data in one function, its exit data in another (an init and
 * a finalize): one data region, ended by the exit (host_pass.c), live as
 * after the end. */
Test(live_conversion, a_data_region_across_functions_converts_live_to_the_same_archive)
{
    char *args[] = {"split_data", "20000", NULL};
    live_against_after_the_end("live-split-data", NULL, "live_phases", args, KEPT, NULL, 1,
                               "20000 target, 1 enter data, 1 exit data, 0 update, 1 data regions\n");
}

/* An enter data no exit data ends: its region stays open to the thread's
 * end and is counted (host_pass.c), live as after the end. */
Test(live_conversion, a_data_region_no_exit_ends_converts_live_to_the_same_archive)
{
    char *args[] = {"enter_only", "20000", NULL};
    live_against_after_the_end("live-enter-only", NULL, "live_phases", args, KEPT, NULL, 1,
                               "20000 target, 1 enter data, 0 exit data, 0 update, 1 data regions (1 open to the "
                               "thread's end");
}

/* User regions, a value and an event, ids defined before and after the
 * attempt began (user.defs read again: convert_live.c). */
Test(live_conversion, user_regions_defined_while_it_runs_convert_live_to_the_same_archive)
{
    char *args[] = {"20000", NULL}; /* long enough that the live thread gets to work with both cores busy (ctest -j2) */
    uint64_t records = live_against_after_the_end("live-user", NULL, "live_user", args, KEPT, NULL, 1, NULL);
    cr_assert_gt(records, 3 * 1024, "converted before the program ended");
}

#ifdef OFFTRACE_TEST_LIVE_NVTX
/* NVTX ranges, marks and a start/end range on the main thread, texts and a
 * domain defined before and after the attempt began (nvtx.defs read again:
 * convert_live.c), the thread named with nvtxNameOsThreadA. */
Test(live_conversion, nvtx_ranges_defined_while_it_runs_convert_live_to_the_same_archive)
{
    char *args[] = {"20000", NULL}; /* long enough that the live thread gets to work with both cores busy (ctest -j2) */
    uint64_t records = live_against_after_the_end("live-nvtx", NULL, "live_nvtx", args, KEPT, NULL, 1, NULL);
    cr_assert_gt(records, 3 * 1024, "converted before the program ended");
}
#endif

/* Threads that start after the attempt began (issue 18, eighth round): their
 * streams are written after the end, live_threads MODE 20000 between two runs
 * of 20000 regions on the main thread (long enough that the live thread gets
 * to work with both cores busy). */
static void threads_started_late(const char *name, const char *mode, const char *option, const char *summary_says)
{
    char *args[] = {(char *)mode, "20000", NULL};
    uint64_t records = live_against_after_the_end(name, option, "live_threads", args, KEPT, NULL, 1, summary_says);
    cr_assert_gt(records, 3 * 1024, "%s: converted before the program ended", name);
}

/* A team of 3 threads each offloading in 20 parallel regions: their device
 * items come between the main thread's (the main thread's go to the sort
 * once another stream exists, convert_live.c). */
Test(live_conversion, a_team_started_late_converts_live_to_the_same_archive)
{
    threads_started_late("live-team", "team", NULL, "40060 target, 0 enter data");
}

/* Three threads, each 200 target regions, ended and joined before the main
 * thread's last 20000. */
Test(live_conversion, threads_that_end_early_convert_live_to_the_same_archive)
{
    threads_started_late("live-ended", "ended", NULL, "40600 target, 0 enter data");
}

/* Host OpenMP on worker threads started late: parallel regions, barriers,
 * a worksharing loop (--host-openmp=all). */
Test(live_conversion, host_openmp_workers_started_late_convert_live_to_the_same_archive)
{
    threads_started_late("live-host-late", "host", "--host-openmp=all", "400 parallel regions");
}

/* Lock events: a lock's id and its acquisitions' order are numbered over
 * every stream whole (host_mutex.c), which a pass while the program runs
 * cannot read: the attempt is dropped (before the eighth round it read the
 * streams as they were, and its archive could differ). */
Test(live_conversion, lock_events_fall_back)
{
    char *args[] = {"critical", "3000", NULL};
    live_against_after_the_end("live-critical", "--host-openmp=all", "live_threads", args, DROPPED, NULL, 1,
                               "1200 lock acquisitions");
}

/* Lock events on late worker threads only: the main thread's pass needs no
 * lock table, the workers' streams are written after the end with the table
 * built from every stream whole, as the conversion after the end builds it. */
Test(live_conversion, lock_events_on_late_workers_only_convert_live_to_the_same_archive)
{
    threads_started_late("live-worker-locks", "worker_locks", "--host-openmp=all", "800 lock acquisitions");
}

Test(live_conversion, explicit_tasks_fall_back)
{
    char *args[] = {"tasks", "3000", NULL};
    live_against_after_the_end("live-tasks", "--host-openmp=all", "live_phases", args, DROPPED, NULL, 0, NULL);
    char *late[] = {"tasks", "3000", NULL}; /* with dependences, on threads started after the attempt began */
    live_against_after_the_end("live-tasks-late", "--host-openmp=all", "live_threads", late, DROPPED, NULL, 1, NULL);
}

Test(live_conversion, the_knob_turns_it_off)
{
    char dir[4096], cli[4096], prog[4096];
    scratch_path(dir, sizeof dir, "live-off");
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/hostile_many", OFFTRACE_BIN_DIR);
    char *argv[] = {cli, "record", "-b", "64K", "-o", dir, "--", prog, "20000", NULL};
    char *env[] = {"OFFTRACE_LIVE_CONVERSION=off", NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_assert(strstr(r.err, "writing the archive, outside the program"), "%s", r.err);
    cr_assert(!strstr(r.err, "while it ran"), "%s", r.err);
    run_free(&r);
}

/*
 * The program's own host OpenMP (issue 13, step 1): parallel regions,
 * implicit tasks, worksharing constructs, loop chunks with their bounds,
 * barriers with their waiting part, masked; compared with what the runtime
 * reports to an independent counting tool (tests/support/ompt_host_counter.c)
 * in a separate run of the same program, read back with OTF2's reader
 * (tests/check/host_openmp_check.c); the levels of OFFTRACE_HOST_OPENMP.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/host_openmp_check.h"
#include "check/run.h"

typedef struct counts {
    unsigned long long parallel, implicit_tasks, loops, loop_trip, chunks, chunk_iterations, sections, singles,
        masked, barriers, waits, targets, targets_in_parallel, team_size_sum, thread_number_sum;
    unsigned long long thread_implicit_tasks[HOST_CHECK_MAX_THREADS], thread_barriers[HOST_CHECK_MAX_THREADS];
    unsigned threads;
} counts;

/* The team size of every run (both runs of a comparison alike). */
static char threads_env[32] = "OMP_NUM_THREADS=2";

static int descending(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x < y) - (x > y);
}

/* What the runtime reports: the program under the counting tool. */
static void runtime_counts(const char *program, char *const args[], counts *c)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-host-counter.so", OFFTRACE_LIB_DIR);
    char *argv[8] = {prog};
    for (int i = 0; args && args[i] && i < 6; i++)
        argv[i + 1] = args[i];
    char *env[] = {tool, threads_env, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", program, r.err);
    memset(c, 0, sizeof *c);
    const char *line = strstr(r.err, "HOST_COUNTS ");
    cr_assert_not_null(line, "the counting tool wrote nothing: %s", r.err);
    cr_assert_eq(sscanf(line,
                        "HOST_COUNTS parallel=%llu implicit_tasks=%llu loops=%llu loop_trip=%llu chunks=%llu "
                        "chunk_iterations=%llu sections=%llu singles=%llu masked=%llu barriers=%llu waits=%llu "
                        "targets=%llu targets_in_parallel=%llu",
                        &c->parallel, &c->implicit_tasks, &c->loops, &c->loop_trip, &c->chunks,
                        &c->chunk_iterations, &c->sections, &c->singles, &c->masked, &c->barriers, &c->waits,
                        &c->targets, &c->targets_in_parallel),
                 13, "%s", line);
    const char *teams = strstr(r.err, "HOST_TEAMS ");
    cr_assert_not_null(teams, "the counting tool wrote no HOST_TEAMS line: %s", r.err);
    cr_assert_eq(sscanf(teams, "HOST_TEAMS team_size_sum=%llu thread_number_sum=%llu", &c->team_size_sum,
                        &c->thread_number_sum),
                 2, "%s", teams);
    for (const char *t = r.err; (t = strstr(t, "HOST_THREAD ")) && c->threads < HOST_CHECK_MAX_THREADS; t++) {
        unsigned long long tasks, barriers;
        cr_assert_eq(sscanf(t, "HOST_THREAD implicit_tasks=%llu barriers=%llu", &tasks, &barriers), 2);
        if (!tasks)
            continue;
        c->thread_implicit_tasks[c->threads] = tasks;
        c->thread_barriers[c->threads++] = barriers;
    }
    run_free(&r);
}

/* `offtrace record -o DIR PROGRAM args` with threads_env and \p level
 * (NULL: the default); returns the run (the caller frees it). */
static run_result record_with(const char *dir, const char *level, const char *option, const char *program,
                              char *const args[])
{
    char cli[4096], prog[4096], lv[128];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *argv[16] = {cli, "record", "-o", (char *)dir};
    int n = 4;
    char *words = option ? strdupa(option) : NULL, *save = NULL; /* "--host-openmp regions": option and value */
    for (char *word = words ? strtok_r(words, " ", &save) : NULL; word; word = strtok_r(NULL, " ", &save))
        argv[n++] = word;
    argv[n++] = prog;
    for (int i = 0; args && args[i] && i < 9; i++)
        argv[n++] = args[i];
    snprintf(lv, sizeof lv, "OFFTRACE_HOST_OPENMP=%s", level ? level : "");
    char *env[] = {threads_env, level ? lv : NULL, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s failed: %s", program, r.err);
    return r;
}

static run_result record(const char *dir, const char *level, const char *program, char *const args[])
{
    return record_with(dir, level, NULL, program, args);
}

static void archive_counts(const char *dir, counts *c, host_openmp_facts *h)
{
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0, "cannot read %s", dir);
    cr_assert_eq(archive_violations(&f), 0, "%s: %s", dir, f.first_problem);
    cr_assert_eq(host_openmp_check(dir, h), 0, "cannot read %s", dir);
    cr_assert_eq(h->unmatched + h->time_reversals + h->chunks_outside_loop + h->chunks_without_iterations +
                     h->implicit_tasks_without_team + h->waits_outside_sync,
                 0,
                 "%s: %s", dir, h->first_problem);
    memset(c, 0, sizeof *c);
    c->parallel = h->parallel, c->implicit_tasks = h->implicit_tasks, c->loops = h->loops;
    c->loop_trip = h->loop_trip, c->chunks = h->chunks, c->chunk_iterations = h->chunk_iterations;
    c->sections = h->sections, c->singles = h->singles, c->masked = h->masked, c->barriers = h->barriers;
    c->waits = h->waits, c->targets = h->targets, c->targets_in_parallel = h->targets_in_parallel;
    c->team_size_sum = h->team_size_sum, c->thread_number_sum = h->thread_number_sum;
    c->threads = h->threads;
    for (unsigned i = 0; i < h->threads; i++) {
        c->thread_implicit_tasks[i] = h->thread_implicit_tasks[i];
        c->thread_barriers[i] = h->thread_barriers[i];
    }
}

#define SAME(field) \
    cr_expect_eq(got.field, want.field, "%s: " #field " %llu in the archive, %llu reported by the runtime", program, \
                 got.field, want.field)

static void per_thread_equals(const char *program, counts *got, counts *want);

/* \p nested: the program's teams nest, so which of the runtime's threads serve an inner team differs from run
 * to run (the per-thread counts, and how many threads ran implicit tasks, are not compared). */
static void compare_with_the_runtime(const char *program, char *const args[], int nested)
{
    counts want, got;
    runtime_counts(program, args, &want);
    cr_assert_gt(want.parallel, 0, "%s: the runtime reported no host parallel region", program);
    char dir[4096];
    scratch_path(dir, sizeof dir, "host-openmp-counts");
    run_result r = record(dir, NULL, program, args);
    run_free(&r);
    host_openmp_facts h;
    archive_counts(dir, &got, &h);
    SAME(parallel);
    SAME(implicit_tasks);
    SAME(loops);
    SAME(loop_trip);
    SAME(chunks);
    SAME(chunk_iterations);
    SAME(sections);
    SAME(singles);
    SAME(masked);
    SAME(barriers);
    SAME(waits);
    SAME(targets);
    SAME(targets_in_parallel);
    SAME(team_size_sum); /* every implicit task's, carried or left out at the usual (docs/host-openmp.md) */
    SAME(thread_number_sum);
    if (!nested)
        per_thread_equals(program, &got, &want);
    /* every reported chunk is inside its loop, and each loop instance's
     * chunks, over all threads, cover its iteration space exactly */
    cr_expect_gt(h.loop_instances_with_chunks, 0, "%s: no loop instance has chunks", program);
    cr_expect_eq(h.loop_instances_miscovered, 0, "%s: %s", program, h.first_problem);
}

static void host_openmp_equals_the_runtimes(const char *program, char *const args[])
{
    compare_with_the_runtime(program, args, 0);
}

/* per thread: which location is which thread differs between runs, so sorted */
static void per_thread_equals(const char *program, counts *got_in, counts *want_in)
{
    counts got = *got_in, want = *want_in;
    cr_assert_eq(got.threads, want.threads, "%s: %u threads ran implicit tasks, the runtime says %u", program,
                 got.threads, want.threads);
    qsort(got.thread_implicit_tasks, got.threads, sizeof got.thread_implicit_tasks[0], descending);
    qsort(want.thread_implicit_tasks, want.threads, sizeof want.thread_implicit_tasks[0], descending);
    qsort(got.thread_barriers, got.threads, sizeof got.thread_barriers[0], descending);
    qsort(want.thread_barriers, want.threads, sizeof want.thread_barriers[0], descending);
    for (unsigned i = 0; i < got.threads; i++) {
        cr_expect_eq(got.thread_implicit_tasks[i], want.thread_implicit_tasks[i]);
        cr_expect_eq(got.thread_barriers[i], want.thread_barriers[i]);
    }
}

/* A bucket sort with skewed buckets: static, dynamic and guided loops, single,
 * sections, masked, an explicit barrier, and a target region inside the
 * parallel region, three rounds. */
Test(host_openmp, bucket_sort_equals_the_runtimes, .timeout = 120)
{
    host_openmp_equals_the_runtimes("example_bucket_sort", (char *[]){"20000", "3", NULL});
}

/* One thread (serialised regions: no barrier callbacks, no chunk of a static
 * loop, a dynamic loop as one chunk) and more threads than cores. */
Test(host_openmp, bucket_sort_equals_the_runtimes_at_1_and_5_threads, .timeout = 120)
{
    strcpy(threads_env, "OMP_NUM_THREADS=1");
    host_openmp_equals_the_runtimes("example_bucket_sort", (char *[]){"5000", "2", NULL});
    strcpy(threads_env, "OMP_NUM_THREADS=5");
    host_openmp_equals_the_runtimes("example_bucket_sort", (char *[]){"5000", "2", NULL});
}

/* Teams of changing sizes and nested teams: a thread's implicit tasks change their team size and thread
 * number, which the archive carries where they change and leaves out where they repeat (issue 18). */
Test(host_openmp, changing_and_nested_teams_equal_the_runtimes, .timeout = 120)
{
    strcpy(threads_env, "OMP_NUM_THREADS=4");
    compare_with_the_runtime("team_shapes", (char *[]){"24", NULL}, 1);
}

/* The offload examples too: their host OpenMP (if any) is recorded and their
 * kernels' OpenMP is not (it is on device threads, or, without the device
 * collector, nowhere), with and without device detail. */
Test(host_openmp, offload_examples_record_no_kernel_openmp_on_host_threads, .timeout = 120)
{
    const char *programs[] = {"example_cg", "example_stencil", "example_saxpy", "example_bucket_sort", "example_nowait",
                              "example_device_tasks", "example_enter_exit", "example_two_devices"};
    for (size_t i = 0; i < 2 * sizeof programs / sizeof programs[0]; i++) {
        counts want, got;
        const char *program = programs[i / 2];
        runtime_counts(program, NULL, &want);
        char dir[4096];
        scratch_path(dir, sizeof dir, "host-openmp-offload");
        run_result r = record_with(dir, NULL, i % 2 ? "--host-only" : NULL, program, NULL);
        run_free(&r);
        host_openmp_facts h;
        archive_counts(dir, &got, &h);
        SAME(parallel);
        SAME(implicit_tasks);
        SAME(loops);
        SAME(chunks);
        SAME(barriers);
        SAME(targets);
        SAME(targets_in_parallel);
    }
}

/* off: nothing of the host's OpenMP; regions (here by record's option):
 * constructs but no chunks; loops (any case): chunks too. */
Test(host_openmp, levels_record_what_they_say, .timeout = 120)
{
    char *const args[] = {"20000", "1", NULL};
    char dir[4096];
    host_openmp_facts h;
    counts c;

    scratch_path(dir, sizeof dir, "host-openmp-off");
    run_result r = record(dir, "off", "example_bucket_sort", args);
    run_free(&r);
    archive_counts(dir, &c, &h);
    cr_expect_eq(h.parallel + h.implicit_tasks + h.loops + h.chunks + h.barriers + h.masked, 0);
    cr_expect_eq(h.targets, 1);

    scratch_path(dir, sizeof dir, "host-openmp-regions");
    r = record_with(dir, NULL, "--host-openmp regions", "example_bucket_sort", args);
    run_free(&r);
    archive_counts(dir, &c, &h);
    cr_expect_eq(h.parallel, 1);
    cr_expect_eq(h.implicit_tasks, 2);
    cr_expect_eq(h.loops, 2 * 4);
    cr_expect_eq(h.chunks, 0);
    cr_expect_gt(h.waits, 0);
    cr_expect_eq(h.targets_in_parallel, 1);

    scratch_path(dir, sizeof dir, "host-openmp-loops");
    r = record(dir, "LOOPS", "example_bucket_sort", args);
    run_free(&r);
    archive_counts(dir, &c, &h);
    cr_expect_gt(h.chunks, 0);
    cr_expect_eq(h.loop_instances_miscovered, 0, "%s", h.first_problem);
}

/* A bad level: one line naming the variable and the accepted values; the
 * program runs as without offtrace, traced at the default level (loops). */
Test(host_openmp, bad_level_is_said_once_and_the_default_recorded, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "host-openmp-bad-level");
    run_result r = record(dir, "chunks please", "example_bucket_sort", (char *[]){"20000", "1", NULL});
    char *line = strstr(r.err, "OFFTRACE_HOST_OPENMP");
    cr_assert_not_null(line, "%s", r.err);
    cr_expect_null(strstr(line + 1, "OFFTRACE_HOST_OPENMP"), "said more than once: %s", r.err);
    cr_expect(strstr(r.err, "offtrace: OFFTRACE_HOST_OPENMP='chunks please' is not valid (accepted: off, regions, "
                            "loops, all); recording at the default, loops\n"),
              "%s", r.err);
    cr_expect(strstr(r.out, "round 0: 20000 keys, bucket 0 holds"), "%s", r.out);
    cr_expect(strstr(r.err, "offtrace: host OpenMP      1 parallel region; on all threads 12 worksharing, "),
              "record's summary does not count the host OpenMP: %s", r.err);
    run_free(&r);
    host_openmp_facts h;
    counts c;
    archive_counts(dir, &c, &h);
    cr_expect_gt(h.chunks, 0);
}

/* report, view, export and info read the new classes through the catalogue:
 * they run on an archive full of them, and export carries them. */
Test(host_openmp, every_verb_reads_host_openmp, .timeout = 120)
{
    char dir[4096], html[4200], json[4200];
    scratch_path(dir, sizeof dir, "host-openmp-verbs");
    run_result r = record(dir, NULL, "example_bucket_sort", (char *[]){"20000", "1", NULL});
    run_free(&r);
    snprintf(html, sizeof html, "%s.html", dir);
    snprintf(json, sizeof json, "%s.json", dir);
    const char *verbs[][5] = {{"report", dir, NULL}, {"view", dir, "-o", html, NULL},
                              {"export", dir, "-o", json, NULL}, {"info", dir, NULL}};
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        cr_assert_eq(run_offtrace(&r, verbs[i][0], verbs[i][1], verbs[i][2], verbs[i][3], NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "offtrace %s: %s", verbs[i][0], r.err);
        run_free(&r);
    }
    FILE *f = fopen(json, "r");
    cr_assert_not_null(f);
    char *text = NULL;
    size_t size = 0;
    cr_assert_gt(getdelim(&text, &size, 0, f), 0);
    fclose(f);
    cr_expect(strstr(text, "\"cat\":\"openmp.loop\""), "no host OpenMP loop slice in the export");
    cr_expect(strstr(text, "loop (dynamic) @bucket_sort.c:"), "the dynamic loop is not in the export");
    free(text);
}

/*
 * End to end with the device collector: what ran on the device appears on
 * device-thread locations, inside the right host target regions, with the
 * device clock skewed too; the reconstructed times match the truth; losses
 * are counted exactly; a missing or foreign collector leaves a host-only
 * trace.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/run.h"
#include "offtrace/collector.h"
#include "offtrace/event_catalogue.h"
#include "offtrace/raw_format.h"

#define DEVICE_THREAD_LOCATION(dev, thread) offtrace_location_id(OFFTRACE_LOC_DEVICE_THREAD, dev, thread)

/* `offtrace record -o DIR [options] PROGRAM args` with extra environment;
 * returns stderr (the summary), which the caller frees. */
static char *record(const char *dir, const char *option, char *const env[], const char *program, ...)
{
    char cli[4096], prog[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *argv[16] = {cli, "record", "-o", (char *)dir};
    int n = 4;
    if (option)
        argv[n++] = (char *)option;
    argv[n++] = prog;
    va_list ap;
    va_start(ap, program);
    for (char *a; n < 15 && (a = va_arg(ap, char *));)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s failed: %s", program, r.err);
    char *err = r.err;
    r.err = NULL;
    run_free(&r);
    return err;
}

static uint64_t property(const char *dir, const char *name)
{
    uint64_t n = 0;
    cr_assert_eq(archive_property(dir, name, &n), 0, "no property %s in %s", name, dir);
    return n;
}

static void check_archive(const char *dir, archive_facts *f)
{
    cr_assert_eq(archive_check(dir, f), 0, "cannot read %s", dir);
    cr_assert_eq(archive_violations(f), 0, "%s: %s", dir, f->first_problem);
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "otf2-print rejects %s: %s", dir, message ? message : "");
    free(message);
}

/* The full level (every thread's events), which the tests below check
 * against the runtime's own counts; the default level is `teams`. */
static char full_level[] = "OFFTRACE_DEVICE_DETAIL=threads";

/* Under every kernel: teams/parallel, loops and barriers on device threads,
 * all inside host target regions, nothing unmatched or dropped. */
static void expect_device_detail(const char *dir, const archive_facts *f, uint64_t kernels)
{
    cr_assert_eq(f->kernels, kernels);
    cr_assert_geq(f->device_threads, 1);
    cr_assert_eq(f->targets_without_device_parallel, 0, "%llu target regions without device detail",
                 (unsigned long long)f->targets_without_device_parallel);
    cr_assert_geq(f->device_parallel, kernels);
    cr_assert_geq(f->device_loops, kernels);
    cr_assert_geq(f->device_barriers, kernels);
    cr_assert_geq(f->device_implicit_tasks, kernels);
    cr_assert_eq(property(dir, "OFFTRACE::LOST_DEVICE_RECORDS"), 0);
    cr_assert_eq(property(dir, "OFFTRACE::UNMATCHED_DEVICE_END_RECORDS"), 0);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_RECORDS_WITHOUT_DEVICE"), 0);
    /* Attach and detach at least; target begins and ends take theirs at
     * most once a millisecond (device_link.c), which the tests against
     * the truth below check for precision. */
    cr_assert_geq(property(dir, "OFFTRACE::CLOCK_SYNC_POINTS"), 2);
}

Test(device, cg_shows_device_openmp_under_every_kernel, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "device-cg");
    free(record(dir, NULL, (char *[]){full_level, NULL}, "example_cg", NULL));
    archive_facts f;
    check_archive(dir, &f);
    expect_device_detail(dir, &f, 302);
}

Test(device, stencil_shows_device_openmp_under_every_kernel, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "device-stencil");
    free(record(dir, NULL, (char *[]){full_level, NULL}, "example_stencil", NULL));
    archive_facts f;
    check_archive(dir, &f);
    expect_device_detail(dir, &f, 81);
}

Test(device, tasks_singles_and_barriers_on_the_device, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "device-tasks");
    free(record(dir, NULL, (char *[]){full_level, NULL}, "example_device_tasks", "5", "0", NULL));
    archive_facts f;
    check_archive(dir, &f);
    expect_device_detail(dir, &f, 5);
    cr_assert_eq(f.device_tasks, 5 * 4, "4 explicit tasks per region, got %llu", (unsigned long long)f.device_tasks);
    cr_assert_eq(f.device_threads, 2);
}

/* What the runtime itself reports about the OpenMP inside target regions:
 * \p program run under the independent counting tool (tests/support/
 * ompt_counter.c, OFFTRACE_TEST_COUNTER_OPENMP=1), its second line read back. */
typedef struct openmp_counts {
    unsigned long long parallel, implicit_tasks, loops, barriers, tasks;
} openmp_counts;

static void runtime_openmp_counts(const char *program, char *const args[], openmp_counts *c)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-counter.so", OFFTRACE_LIB_DIR);
    char *argv[8] = {prog};
    for (int i = 0; args && args[i] && i < 6; i++)
        argv[i + 1] = args[i];
    char *env[] = {tool, "OFFTRACE_TEST_COUNTER_OPENMP=1", "OFFTRACE_TEST_COUNTER_OUT=", NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", program, r.err);
    const char *line = strstr(r.err, "OMPT_OPENMP_COUNTS ");
    cr_assert_not_null(line, "the counting tool wrote no OpenMP counts: %s", r.err);
    cr_assert_eq(sscanf(line, "OMPT_OPENMP_COUNTS parallel=%llu implicit_tasks=%llu loops=%llu barriers=%llu tasks=%llu",
                        &c->parallel, &c->implicit_tasks, &c->loops, &c->barriers, &c->tasks),
                 5, "%s", line);
    run_free(&r);
}

/* The host library forwards the host runtime's OpenMP events to the
 * collector (interface v2): every parallel region, implicit task, loop,
 * barrier and task that the runtime reports inside target regions is on a
 * device thread of the archive, no more, no fewer. */
static void device_openmp_equals_the_runtimes(const char *program, char *const args[])
{
    openmp_counts want;
    runtime_openmp_counts(program, args, &want);
    cr_assert_gt(want.parallel, 0, "%s: the runtime reported no parallel region in a target region", program);
    char dir[4096];
    scratch_path(dir, sizeof dir, "device-openmp-counts");
    free(record(dir, NULL, (char *[]){full_level, NULL}, program, args && args[0] ? args[0] : NULL,
                args && args[0] ? args[1] : NULL, NULL));
    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(f.device_parallel, want.parallel, "%s: parallel %llu, runtime %llu", program,
                 (unsigned long long)f.device_parallel, want.parallel);
    cr_expect_eq(f.device_implicit_tasks, want.implicit_tasks, "%s: implicit tasks %llu, runtime %llu", program,
                 (unsigned long long)f.device_implicit_tasks, want.implicit_tasks);
    cr_expect_eq(f.device_loops, want.loops, "%s: loops %llu, runtime %llu", program,
                 (unsigned long long)f.device_loops, want.loops);
    cr_expect_eq(f.device_barriers, want.barriers, "%s: barriers %llu, runtime %llu", program,
                 (unsigned long long)f.device_barriers, want.barriers);
    cr_expect_eq(f.device_tasks, want.tasks, "%s: tasks %llu, runtime %llu", program,
                 (unsigned long long)f.device_tasks, want.tasks);
}

Test(device, device_openmp_counts_equal_the_runtimes, .timeout = 180)
{
    device_openmp_equals_the_runtimes("example_cg", NULL);
    device_openmp_equals_the_runtimes("example_stencil", NULL);
    device_openmp_equals_the_runtimes("example_device_tasks", (char *[]){"5", "0", NULL});
}

Test(device, skewed_device_clock_stays_inside_target_regions, .timeout = 120)
{
    const char *skews[] = {"OFFTRACE_TEST_DEVICE_CLOCK=5000000000:200:200",
                           "OFFTRACE_TEST_DEVICE_CLOCK=-3000000000:-200:200"};
    for (size_t i = 0; i < 2; i++) {
        char dir[4096];
        scratch_path(dir, sizeof dir, "device-cg-skewed");
        char *env[] = {(char *)skews[i], full_level, NULL};
        free(record(dir, NULL, env, "example_cg", NULL));
        archive_facts f;
        check_archive(dir, &f);
        expect_device_detail(dir, &f, 302);
    }
}

/* ---- the levels of OFFTRACE_DEVICE_DETAIL (issue 18) ---- */

static offtrace_device_record *read_device_file(const char *dir, int device, size_t *count);

/* `kernels`: one region per kernel (its league), nothing per thread; every
 * target region still has its device region inside it. */
Test(device, kernels_level_has_one_region_per_kernel, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "device-cg-kernels");
    free(record(dir, "--device-detail=kernels", NULL, "example_cg", NULL));
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.kernels, 302);
    cr_assert_eq(f.targets_without_device_parallel, 0);
    cr_assert_eq(f.device_parallel, 302, "one league per kernel, got %llu", (unsigned long long)f.device_parallel);
    cr_assert_eq(f.device_implicit_tasks + f.device_loops + f.device_barriers + f.device_tasks, 0);
    cr_assert_eq(property(dir, "OFFTRACE::UNMATCHED_DEVICE_END_RECORDS"), 0);
    cr_assert_eq(property(dir, "OFFTRACE::LOST_DEVICE_RECORDS"), 0);
}

/* `teams` (the default): every parallel region the runtime reports inside
 * target regions, no per-thread event, in every example with device OpenMP. */
Test(device, teams_level_has_every_parallel_region_the_runtime_reports, .timeout = 180)
{
    const char *programs[] = {"example_cg", "example_stencil", "example_device_tasks"};
    char *const args[][3] = {{NULL}, {NULL}, {"5", "0", NULL}};
    for (size_t i = 0; i < 3; i++) {
        openmp_counts want;
        runtime_openmp_counts(programs[i], args[i][0] ? (char *const *)args[i] : NULL, &want);
        char dir[4096];
        scratch_path(dir, sizeof dir, "device-teams");
        free(record(dir, NULL, NULL, programs[i], args[i][0], args[i][0] ? args[i][1] : NULL, NULL));
        archive_facts f;
        check_archive(dir, &f);
        cr_assert_eq(f.targets_without_device_parallel, 0, "%s", programs[i]);
        cr_assert_eq(f.device_parallel, want.parallel, "%s: parallel %llu, runtime %llu", programs[i],
                     (unsigned long long)f.device_parallel, want.parallel);
        cr_assert_eq(f.device_implicit_tasks + f.device_loops + f.device_barriers + f.device_tasks, 0, "%s",
                     programs[i]);
        cr_assert_eq(property(dir, "OFFTRACE::UNMATCHED_DEVICE_END_RECORDS"), 0);
        cr_assert_eq(property(dir, "OFFTRACE::LOST_DEVICE_RECORDS"), 0);
    }
}

/* What one run's raw device records say about its teams. */
typedef struct team_facts {
    uint64_t summaries, summarised_threads; /* teams level: summaries and their threads */
    uint64_t team_regions, member_tasks;    /* threads level: non-league regions, non-initial implicit tasks */
    uint64_t initial_tasks;                 /* threads level: initial tasks (one per team of a league) */
} team_facts;

/* The summaries of \p dir (teams level), each checked against itself and
 * its region: at least one thread, no more than requested, earliest <= mean
 * <= latest, latest within the region. */
static void read_summaries(const char *dir, team_facts *t)
{
    size_t n;
    offtrace_device_record *r = read_device_file(dir, 0, &n);
    const offtrace_device_record *open[64][16]; /* per device thread: its open PARALLEL BEGINs */
    size_t depth[64] = {0};
    for (size_t i = 0; i < n; i++) {
        if (r[i].kind == OFFTRACE_DEVICE_LOST)
            continue;
        cr_assert_eq(r[i].kind, OFFTRACE_DEVICE_PARALLEL, "teams level: record %zu of kind %u", i, r[i].kind);
        cr_assert_lt(r[i].thread, 64);
        size_t *d = &depth[r[i].thread];
        if (r[i].endpoint == OFFTRACE_DEVICE_BEGIN) {
            cr_assert_lt(*d, 16);
            open[r[i].thread][(*d)++] = &r[i];
            continue;
        }
        cr_assert_gt(*d, 0, "record %zu: an END without its BEGIN", i);
        const offtrace_device_record *begin = open[r[i].thread][--*d];
        if (!(r[i].flags & OFFTRACE_DEVICE_FLAG_SUMMARY)) {
            cr_assert_eq(begin->subkind, 1, "record %zu: a team's region without its summary", i);
            continue;
        }
        uint32_t threads = offtrace_team_summary_threads(r[i].value);
        uint64_t mean = offtrace_team_summary_sum(r[i].value) / (threads ? threads : 1);
        cr_assert_geq(threads, 1, "record %zu: a summary of no thread", i);
        cr_assert_leq(threads, begin->value, "record %zu: %u threads, %llu requested", i, threads,
                      (unsigned long long)begin->value);
        cr_assert(r[i].op_id <= mean && mean <= r[i].codeptr, "record %zu: earliest %llu mean %llu latest %llu", i,
                  (unsigned long long)r[i].op_id, (unsigned long long)mean, (unsigned long long)r[i].codeptr);
        cr_assert_leq(r[i].codeptr, r[i].time - begin->time, "record %zu: the latest arrival is after the region", i);
        t->summaries++;
        t->summarised_threads += threads;
    }
    free(r);
}

static void count_teams(const char *dir, team_facts *t)
{
    size_t n;
    offtrace_device_record *r = read_device_file(dir, 0, &n);
    for (size_t i = 0; i < n; i++) {
        if (r[i].endpoint != OFFTRACE_DEVICE_BEGIN)
            continue;
        if (r[i].kind == OFFTRACE_DEVICE_PARALLEL && r[i].subkind == 0)
            t->team_regions++;
        if (r[i].kind == OFFTRACE_DEVICE_IMPLICIT_TASK)
            *(r[i].subkind ? &t->initial_tasks : &t->member_tasks) += 1;
    }
    free(r);
}

/* The same deterministic program at `teams` and at `threads`: one summary
 * per team region, its threads those whose implicit tasks the full level
 * shows, and both equal to what the runtime itself reported. */
Test(device, team_summaries_agree_with_every_thread_and_the_runtime, .timeout = 180)
{
    openmp_counts want;
    runtime_openmp_counts("example_cg", NULL, &want);
    char teams[4096], threads[4096], keep[] = "OFFTRACE_KEEP_RAW=1";
    scratch_path(teams, sizeof teams, "device-summary-teams");
    scratch_path(threads, sizeof threads, "device-summary-threads");
    free(record(teams, "--device-detail=teams", (char *[]){keep, NULL}, "example_cg", NULL));
    free(record(threads, "--device-detail=threads", (char *[]){keep, NULL}, "example_cg", NULL));
    team_facts t = {0};
    read_summaries(teams, &t);
    count_teams(threads, &t);
    cr_assert_gt(t.summaries, 0);
    cr_assert_eq(t.summaries, t.team_regions, "%llu summaries, %llu team regions at the full level",
                 (unsigned long long)t.summaries, (unsigned long long)t.team_regions);
    cr_assert_eq(t.summarised_threads, t.member_tasks, "%llu threads summarised, %llu implicit tasks",
                 (unsigned long long)t.summarised_threads, (unsigned long long)t.member_tasks);
    cr_assert_eq(t.summarised_threads + t.initial_tasks, want.implicit_tasks,
                 "%llu threads + %llu initial tasks, the runtime %llu implicit tasks",
                 (unsigned long long)t.summarised_threads, (unsigned long long)t.initial_tasks, want.implicit_tasks);
    archive_facts f;
    check_archive(teams, &f);
    cr_assert_eq(f.kernels, 302);
}

/* A team of 70 threads: past the summary's 64 slots of their own, threads
 * add into shared totals; the summary still counts every thread the full
 * level shows, and each of CG's team regions got all 70. */
Test(device, team_summaries_of_teams_larger_than_the_slots, .timeout = 180)
{
    char teams[4096], threads[4096], keep[] = "OFFTRACE_KEEP_RAW=1";
    /* libomp gives a team of a league at most as many threads as both teams limits allow */
    char *env[] = {keep, "OMP_NUM_THREADS=70", "OMP_TEAMS_THREAD_LIMIT=70", "KMP_TEAMS_THREAD_LIMIT=70",
                   "OMP_WAIT_POLICY=passive", NULL};
    scratch_path(teams, sizeof teams, "device-summary-70-teams");
    scratch_path(threads, sizeof threads, "device-summary-70-threads");
    free(record(teams, "--device-detail=teams", env, "example_cg", "8", "2", NULL));
    free(record(threads, "--device-detail=threads", env, "example_cg", "8", "2", NULL));
    team_facts t = {0};
    read_summaries(teams, &t);
    count_teams(threads, &t);
    cr_assert_eq(t.summaries, t.team_regions);
    cr_assert_eq(t.summarised_threads, t.member_tasks, "%llu threads summarised, %llu implicit tasks",
                 (unsigned long long)t.summarised_threads, (unsigned long long)t.member_tasks);
    /* 14 kernels, each with an outer region of its master alone and the loop's team of 70 */
    cr_assert_eq(t.summarised_threads, 14 * (1 + 70), "%llu threads", (unsigned long long)t.summarised_threads);
}

/* ---- clock synchronisation against the truth ---- */

typedef struct skew {
    double offset_ns, drift_ppm;
} skew;

static offtrace_device_record *read_device_file(const char *dir, int device, size_t *count)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/raw/device-%d.rec", dir, device);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "no %s (OFFTRACE_KEEP_RAW=1 keeps it)", path);
    offtrace_raw_device_header h;
    cr_assert_eq(fread(&h, sizeof h, 1, f), 1);
    cr_assert_eq(h.record_size, sizeof(offtrace_device_record));
    fseek(f, 0, SEEK_END);
    size_t n = ((size_t)ftell(f) - sizeof h) / sizeof(offtrace_device_record);
    offtrace_device_record *r = malloc(n * sizeof *r);
    fseek(f, sizeof h, SEEK_SET);
    cr_assert_eq(fread(r, sizeof *r, n, f), n);
    fclose(f);
    *count = n;
    return r;
}

/* The knob's clock is true + offset + true * drift (+ jitter): invert it. */
static double true_time(const skew *s, uint64_t device_time)
{
    return ((double)device_time - s->offset_ns) / (1.0 + s->drift_ppm * 1e-6);
}

typedef struct truth_stats {
    size_t events, within, late_ends;
    double worst;
} truth_stats;

/* Device records of one thread map one to one, in order, onto the events of
 * its location. Each event must be within 1 us of the truth, except a team
 * worker's last barrier end and implicit-task end, which the runtime reports
 * only when the worker is next woken, after its target region: those are
 * placed at the region's end, earlier than the truth. */
static void compare_thread(const char *dir, const offtrace_device_record *r, size_t n, uint32_t thread,
                           const skew *s, truth_stats *st)
{
    uint64_t *times;
    size_t ntimes;
    cr_assert_eq(archive_location_times(dir, DEVICE_THREAD_LOCATION(0, thread), &times, &ntimes), 0);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (r[i].thread != thread || r[i].kind == OFFTRACE_DEVICE_LOST)
            continue;
        cr_assert_lt(k, ntimes, "thread %u: more records than events", thread);
        double diff = (double)times[k++] - true_time(s, r[i].time);
        st->events++;
        if (fabs(diff) <= 1000.0) {
            st->within++;
            st->worst = fmax(st->worst, fabs(diff));
            continue;
        }
        int late_end = r[i].endpoint == OFFTRACE_DEVICE_END && diff < 0 &&
                       (r[i].kind == OFFTRACE_DEVICE_SYNC || r[i].kind == OFFTRACE_DEVICE_IMPLICIT_TASK);
        cr_assert(late_end, "thread %u record %zu (kind %u endpoint %u) is %.0f ns off the truth", thread, i,
                  r[i].kind, r[i].endpoint, diff);
        st->late_ends++;
    }
    free(times);
}

static void check_against_truth(const char *knob, const skew *s)
{
    char dir[4096], keep[] = "OFFTRACE_KEEP_RAW=1";
    scratch_path(dir, sizeof dir, "device-truth");
    char *env[] = {(char *)knob, keep, full_level, NULL};
    /* 150 target regions 20 ms apart: a run of about 3 s. */
    free(record(dir, NULL, env, "example_device_tasks", "150", "20000", NULL));
    archive_facts f;
    check_archive(dir, &f);
    expect_device_detail(dir, &f, 150);
    size_t n;
    offtrace_device_record *r = read_device_file(dir, 0, &n);
    truth_stats st = {0};
    for (uint32_t thread = 0; thread < f.device_threads; thread++)
        compare_thread(dir, r, n, thread, s, &st);
    free(r);
    cr_assert_geq(st.events, 150 * 40);
    /* Only a worker's two late events per region may be placed early. */
    cr_assert_leq(st.late_ends, 2 * 150);
    cr_log_info("%s: %zu events, %zu within 1 us (worst %.0f ns), %zu late worker ends", knob, st.events,
                st.within, st.worst, st.late_ends);
}

Test(device, sync_undoes_seconds_of_offset_and_200ppm_drift, .timeout = 120)
{
    skew s = {5e9, 200};
    check_against_truth("OFFTRACE_TEST_DEVICE_CLOCK=5000000000:200:200", &s);
}

Test(device, sync_undoes_negative_offset_and_drift, .timeout = 120)
{
    skew s = {-3e9, -200};
    check_against_truth("OFFTRACE_TEST_DEVICE_CLOCK=-3000000000:-200:200", &s);
}

/* ---- losses, absence, refusal ---- */

Test(device, full_buffers_are_counted_exactly, .timeout = 120)
{
    /* 300 parallel regions in each of 2 target regions: far more records
     * between two flushes than two 64 KiB blocks hold. */
    char roomy[4096], tight[4096], small[] = "OFFTRACE_DEVICE_BUFFER_SIZE=128K";
    scratch_path(roomy, sizeof roomy, "device-roomy");
    scratch_path(tight, sizeof tight, "device-tight");
    free(record(roomy, NULL, (char *[]){full_level, NULL}, "example_device_tasks", "2", "0", "300", NULL));
    char *env[] = {small, full_level, NULL};
    char *summary = record(tight, NULL, env, "example_device_tasks", "2", "0", "300", NULL);
    archive_facts f;
    cr_assert_eq(archive_check(tight, &f), 0);
    uint64_t all = property(roomy, "OFFTRACE::DEVICE_RECORDS");
    uint64_t kept = property(tight, "OFFTRACE::DEVICE_RECORDS");
    uint64_t lost = property(tight, "OFFTRACE::LOST_DEVICE_RECORDS");
    cr_assert_eq(property(roomy, "OFFTRACE::LOST_DEVICE_RECORDS"), 0);
    cr_assert_gt(lost, 0);
    cr_assert_gt(f.device_lost_markers, 0, "the loss is not marked in the trace");
    /* Every record is either kept or counted; the markers are records too. */
    cr_assert_eq(kept - f.device_lost_markers + lost, all, "kept %llu markers %llu lost %llu all %llu",
                 (unsigned long long)kept, (unsigned long long)f.device_lost_markers, (unsigned long long)lost,
                 (unsigned long long)all);
    char line[128];
    snprintf(line, sizeof line, "LOST             %llu device records", (unsigned long long)lost);
    cr_assert_not_null(strstr(summary, line), "summary does not say %s: %s", line, summary);
    free(summary);
}

Test(device, host_only_has_no_device_threads, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "device-host-only");
    free(record(dir, "--host-only", NULL, "example_cg", NULL));
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.kernels, 302);
    cr_assert_eq(f.device_threads, 0);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_RECORDS"), 0);
}

/* LD_PRELOAD cannot name a path with spaces (the build tree may be under
 * one): a link to \p lib in a private directory under /tmp. */
static void preloadable(const char *lib, char link_dir[64], char link[128])
{
    snprintf(link_dir, 64, "/tmp/offtrace-test-XXXXXX");
    cr_assert_not_null(mkdtemp(link_dir));
    snprintf(link, 128, "%s/preloaded.so", link_dir);
    cr_assert_eq(symlink(lib, link), 0, "%s", strerror(errno));
}

/* \p lib (in the build's lib directory) preloaded as the collector must be
 * refused in one line that says \p said, and the trace made without device detail. */
static void collector_is_refused_once(const char *lib_name, const char *said_text)
{
    char dir[4096], preload[4200], lib[4200], link_dir[64], link[128];
    scratch_path(dir, sizeof dir, "device-other-version");
    snprintf(lib, sizeof lib, "%s/%s", OFFTRACE_LIB_DIR, lib_name);
    preloadable(lib, link_dir, link);
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", link);
    char *env[] = {preload, NULL};
    char *err = record(dir, "--host-only", env, "example_cg", NULL);
    unlink(link);
    rmdir(link_dir);
    const char *said = strstr(err, said_text);
    cr_assert_not_null(said, "no message about the version: %s", err);
    cr_assert_null(strstr(said + 1, said_text), "said more than once: %s", err);
    free(err);
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.kernels, 302);
    cr_assert_eq(f.device_threads, 0);
}

Test(device, collector_of_another_version_is_refused_once, .timeout = 120)
{
    collector_is_refused_once("libofftrace-test-other-collector.so", "interface version 999");
}

/* A collector of interface v1 registered the host runtime's OpenMP
 * callbacks itself; the host library of v2 owns them, so it is refused. */
Test(device, collector_of_interface_v1_is_refused_once, .timeout = 120)
{
    char said[128];
    snprintf(said, sizeof said, "speaks interface version 1, this library %u", OFFTRACE_COLLECTOR_INTERFACE_VERSION);
    collector_is_refused_once("libofftrace-test-v1-collector.so", said);
}

/* The other direction: the real collector refuses a host of interface v1
 * (which would give it a v1 host structure) at open, in one line, and
 * attaches nothing. */
Test(device, collector_refuses_a_host_of_interface_v1, .init = cr_redirect_stderr)
{
    void *lib = dlopen(OFFTRACE_LIB_DIR "/libofftrace-device.so", RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s", dlerror());
    offtrace_collector_entry_fn entry = (offtrace_collector_entry_fn)dlsym(lib, OFFTRACE_COLLECTOR_ENTRY_NAME);
    cr_assert_not_null(entry, "%s", dlerror());
    const offtrace_collector *c = entry(1);
    cr_assert_eq(c->interface_version, OFFTRACE_COLLECTOR_INTERFACE_VERSION);
    offtrace_collector_host v1_host = {.interface_version = 1};
    cr_assert_eq(c->open(&v1_host), -EINVAL);
    fflush(stderr);
    char said[160];
    snprintf(said, sizeof said, "offtrace: the device collector speaks interface version %u, the host library 1; "
             "no device detail\n", OFFTRACE_COLLECTOR_INTERFACE_VERSION);
    cr_assert_stderr_eq_str(said);
}

Test(device, missing_collector_is_said_once_without_the_cli, .timeout = 120)
{
    char dir[4096], out[4200], tool[4200], prog[4200];
    scratch_path(dir, sizeof dir, "device-missing");
    snprintf(out, sizeof out, "OFFTRACE_OUTPUT=%s", dir);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace.so", OFFTRACE_LIB_DIR);
    snprintf(prog, sizeof prog, "%s/example_cg", OFFTRACE_BIN_DIR);
    char *argv[] = {prog, NULL};
    char *env[] = {out, tool, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    const char *said = strstr(r.err, "no device collector preloaded");
    cr_assert_not_null(said, "not said: %s", r.err);
    cr_assert_null(strstr(said + 1, "no device collector preloaded"), "said more than once: %s", r.err);
    run_free(&r);
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.kernels, 302);
    cr_assert_eq(f.device_threads, 0);
}

static size_t preload_links(void)
{
    glob_t g;
    size_t n = glob("/tmp/offtrace-preload-*", 0, NULL, &g) == 0 ? g.gl_pathc : 0;
    globfree(&g);
    return n;
}

/* An installation under a path with spaces: `offtrace record` still
 * preloads the collector (through a link; LD_PRELOAD splits at spaces), and
 * removes the link when the program has ended. */
Test(device, a_collector_under_a_path_with_spaces_is_preloaded, .timeout = 120)
{
    char root[4096], dir[4200], cmd[20000], cli[4300], prog[4300];
    scratch_path(root, sizeof root, "install with spaces");
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/bin' '%s/lib' && cp '%s/offtrace' '%s/bin/' && "
             "cp '%s/libofftrace.so' '%s/libofftrace-device.so' '%s/libofftrace-symbolize.so' '%s/lib/'",
             root, root, OFFTRACE_BIN_DIR, root, OFFTRACE_LIB_DIR, OFFTRACE_LIB_DIR, OFFTRACE_LIB_DIR, root);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(dir, sizeof dir, "%s/trace", root);
    snprintf(cli, sizeof cli, "%s/bin/offtrace", root);
    snprintf(prog, sizeof prog, "%s/example_cg", OFFTRACE_BIN_DIR);
    char *argv[] = {cli, "record", "--device-detail=threads", "-o", dir, "--", prog, NULL};
    size_t links_before = preload_links();
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "record failed: %s", r.err);
    cr_assert_null(strstr(r.err, "cannot be preloaded"), "%s", r.err);
    run_free(&r);
    archive_facts f;
    check_archive(dir, &f);
    expect_device_detail(dir, &f, 302);
    cr_assert_eq(preload_links(), links_before, "a preload link was left in /tmp");
}

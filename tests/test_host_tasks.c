/*
 * The program's explicit tasks (issue 13, step 2; level all): creations with
 * their flags, periods on the threads that ran them, completions, depend
 * items and dependence edges, including edges from host tasks to the
 * target tasks of `target nowait`; compared with what the runtime reports
 * to an independent counting tool (tests/support/ompt_host_counter.c,
 * TASK_COUNTS) in a separate run of the same program, read back with OTF2's
 * reader (tests/check/host_tasks_check.c). Which thread runs which task,
 * and so the edges (an edge exists only while its predecessor is not done)
 * and where periods begin, vary between two runs with more than one
 * thread: those are compared on one thread, where the schedule is the
 * same in every run, and checked for what must hold on two.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/host_openmp_check.h"
#include "check/host_tasks_check.h"
#include "check/run.h"

typedef struct task_counts {
    unsigned long long creates, undeferred, final, untied, mergeable, target, taskwait, completes, periods,
        period_ends, periods_in_taskwait, depend_items, edges, edges_host_to_target;
    unsigned long long thread_periods[TASK_CHECK_MAX_THREADS];
    unsigned threads;
} task_counts;

/* What the runtime reports: the program under the counting tool. */
static void runtime_counts(const char *threads, const char *program, char *const args[], task_counts *c)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-host-counter.so", OFFTRACE_LIB_DIR);
    char *argv[8] = {prog};
    for (int i = 0; args && args[i] && i < 6; i++)
        argv[i + 1] = args[i];
    char *env[] = {tool, (char *)threads, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", program, r.err);
    memset(c, 0, sizeof *c);
    const char *line = strstr(r.err, "TASK_COUNTS ");
    cr_assert_not_null(line, "the counting tool wrote no task counts: %s", r.err);
    cr_assert_eq(sscanf(line,
                        "TASK_COUNTS creates=%llu undeferred=%llu final=%llu untied=%llu mergeable=%llu target=%llu "
                        "taskwait=%llu completes=%llu periods=%llu period_ends=%llu periods_in_taskwait=%llu "
                        "depend_items=%llu edges=%llu edges_host_to_target=%llu",
                        &c->creates, &c->undeferred, &c->final, &c->untied, &c->mergeable, &c->target, &c->taskwait,
                        &c->completes, &c->periods, &c->period_ends, &c->periods_in_taskwait, &c->depend_items,
                        &c->edges, &c->edges_host_to_target),
                 14, "%s", line);
    for (const char *t = r.err; (t = strstr(t, "TASK_THREAD ")) && c->threads < TASK_CHECK_MAX_THREADS; t++)
        cr_assert_eq(sscanf(t, "TASK_THREAD periods=%llu", &c->thread_periods[c->threads++]), 1);
    run_free(&r);
}

/* `offtrace record [options] -o DIR PROGRAM args` at \p level. */
static void record(const char *dir, const char *threads, const char *level, const char *option, const char *program,
                   char *const args[])
{
    char cli[4096], prog[4096], lv[128];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *argv[16] = {cli, "record", "-o", (char *)dir};
    int n = 4;
    if (option)
        argv[n++] = (char *)option;
    argv[n++] = prog;
    for (int i = 0; args && args[i] && i < 9; i++)
        argv[n++] = args[i];
    snprintf(lv, sizeof lv, "OFFTRACE_HOST_OPENMP=%s", level);
    char *env[] = {(char *)threads, lv, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s failed: %s", program, r.err);
    run_free(&r);
}

/* The archive's tasks, after its structure checks. */
static void archive_counts(const char *dir, task_counts *c, host_tasks_facts *h)
{
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0, "cannot read %s", dir);
    cr_assert_eq(archive_violations(&f), 0, "%s: %s", dir, f.first_problem);
    char *message = NULL;
    int printed = otf2_print_check(dir, &message);
    cr_expect_eq(printed, 0, "otf2-print -Werror %s: %s", dir, message ? message : "");
    free(message);
    host_openmp_facts o;
    cr_assert_eq(host_openmp_check(dir, &o), 0, "cannot read %s", dir);
    cr_assert_eq(o.unmatched + o.time_reversals + o.chunks_outside_loop + o.chunks_without_iterations +
                     o.waits_outside_sync,
                 0, "%s: %s", dir, o.first_problem);
    cr_assert_eq(host_tasks_check(dir, h), 0, "cannot read %s", dir);
    cr_assert_eq(h->unmatched + h->time_reversals, 0, "%s: %s", dir, h->first_problem);
    c->creates = h->creates, c->undeferred = h->undeferred, c->final = h->final, c->untied = h->untied;
    c->mergeable = h->mergeable, c->target = h->target, c->taskwait = h->taskwait, c->completes = h->completes;
    c->periods = h->periods, c->period_ends = h->period_ends, c->periods_in_taskwait = h->periods_in_taskwait;
    c->depend_items = h->depend_items, c->edges = h->edges, c->edges_host_to_target = h->edges_host_to_target;
    c->threads = h->threads;
    memcpy(c->thread_periods, h->thread_periods, sizeof c->thread_periods);
}

#define SAME(field) \
    cr_expect_eq(got.field, want.field, "%s: " #field " %llu in the archive, %llu reported by the runtime", program, \
                 got.field, want.field)

/* What holds of every archive: each task created (but a taskwait's) completes
 * exactly once, every period is left, everything named was created, and
 * OTF2's task events count the same creations and completions. */
static void tasks_hold_together(const char *program, const task_counts *got, const host_tasks_facts *h)
{
    cr_expect_eq(h->not_completed_once + h->periods_of_unknown + h->edges_of_unknown, 0, "%s: %s", program,
                 h->first_problem);
    cr_expect_eq(got->periods, got->period_ends, "%s: %llu periods entered, %llu left", program, got->periods,
                 got->period_ends);
    cr_expect_eq(got->completes, got->creates - got->taskwait);
    cr_expect_geq(got->periods, got->creates - got->taskwait, "%s: a task never ran", program);
    /* OTF2's task events say the same */
    cr_expect_eq(h->otf2_creates, got->creates, "%s: %llu ThreadTaskCreate for %llu tasks", program,
                 (unsigned long long)h->otf2_creates, got->creates);
    cr_expect_eq(h->otf2_completes, got->completes, "%s: %llu ThreadTaskComplete for %llu completions", program,
                 (unsigned long long)h->otf2_completes, got->completes);
    cr_expect_geq(h->otf2_switches_to_explicit, got->periods, "%s: fewer ThreadTaskSwitch than periods", program);
}

/* One thread: the schedule is the same in every run, so everything equals
 * the runtime's, per thread, edges and periods inside taskwaits included
 * (a serialised team runs a task when it is created, so a dependence finds
 * its predecessor done: no edge; the edges are target_tasks_wait_for_host_tasks's). */
Test(host_tasks, tree_equals_the_runtimes_on_one_thread, .timeout = 120)
{
    const char *program = "example_task_tree", *threads = "OMP_NUM_THREADS=1";
    char *const args[] = {"20000", "64", "2", NULL};
    task_counts want, got;
    host_tasks_facts h;
    runtime_counts(threads, program, args, &want);
    cr_assert_gt(want.creates, 1000);
    char dir[4096];
    scratch_path(dir, sizeof dir, "host-tasks-one");
    record(dir, threads, "all", NULL, program, args);
    archive_counts(dir, &got, &h);
    tasks_hold_together(program, &got, &h);
    SAME(creates);
    SAME(undeferred);
    SAME(final);
    SAME(untied);
    SAME(mergeable);
    SAME(taskwait);
    SAME(completes);
    SAME(periods);
    SAME(period_ends);
    SAME(periods_in_taskwait);
    SAME(depend_items);
    SAME(edges);
    cr_expect_gt(got.periods_in_taskwait, 0);
    cr_assert_eq(got.threads, want.threads);
    for (unsigned i = 0; i < got.threads; i++)
        cr_expect_eq(got.thread_periods[i], want.thread_periods[i]);
}

/* Two threads: what does not depend on the schedule equals the runtime's;
 * the rest holds together, per thread the periods add up. */
Test(host_tasks, tree_equals_the_runtimes_on_two_threads, .timeout = 120)
{
    const char *program = "example_task_tree", *threads = "OMP_NUM_THREADS=2";
    char *const args[] = {"20000", "64", "2", NULL};
    task_counts want, got;
    host_tasks_facts h;
    runtime_counts(threads, program, args, &want);
    char dir[4096];
    scratch_path(dir, sizeof dir, "host-tasks-two");
    record(dir, threads, "all", NULL, program, args);
    archive_counts(dir, &got, &h);
    tasks_hold_together(program, &got, &h);
    SAME(creates);
    SAME(undeferred);
    SAME(final);
    SAME(untied);
    SAME(mergeable);
    SAME(taskwait);
    SAME(completes);
    SAME(depend_items);
    unsigned long long sum = 0;
    for (unsigned i = 0; i < got.threads; i++)
        sum += got.thread_periods[i];
    cr_expect_eq(sum, got.periods);
    cr_expect_leq(got.threads, 2);
    /* the tree's tasks run in their parents' taskwaits, inside them in the archive */
    cr_expect_gt(got.periods_in_taskwait, want.creates / 4, "%s: %llu periods inside a taskwait or taskgroup", program,
                 got.periods_in_taskwait);
}

/* Host tasks and `target nowait depend`: the slow host task is still
 * running when the target task is created (100 ms), so every round has the
 * edge host task -> target task, in the runtime's run and in offtrace's;
 * with the device collector and without (--host-only). */
Test(host_tasks, target_tasks_wait_for_host_tasks, .timeout = 120)
{
    const char *program = "example_host_target_tasks", *threads = "OMP_NUM_THREADS=2";
    char *const args[] = {"3", "100000", NULL};
    task_counts want, got;
    host_tasks_facts h;
    runtime_counts(threads, program, args, &want);
    cr_assert_eq(want.edges_host_to_target, 3, "the runtime reported %llu edges to target tasks",
                 want.edges_host_to_target);
    for (int host_only = 0; host_only < 2; host_only++) {
        char dir[4096];
        scratch_path(dir, sizeof dir, host_only ? "host-tasks-target-host-only" : "host-tasks-target");
        record(dir, threads, "all", host_only ? "--host-only" : NULL, program, args);
        archive_counts(dir, &got, &h);
        tasks_hold_together(program, &got, &h);
        SAME(creates);
        SAME(target);
        SAME(untied);
        SAME(completes);
        SAME(depend_items);
        SAME(edges_host_to_target);
    }
}

/* Below all, nothing of the tasks is recorded, and the rest is as before. */
Test(host_tasks, loops_records_no_task, .timeout = 120)
{
    char *const args[] = {"20000", "64", "1", NULL};
    const char *levels[] = {"loops", "regions", "off"};
    for (size_t i = 0; i < 3; i++) {
        char dir[4096];
        task_counts got;
        host_tasks_facts h;
        scratch_path(dir, sizeof dir, "host-tasks-loops");
        record(dir, "OMP_NUM_THREADS=2", levels[i], NULL, "example_task_tree", args);
        archive_counts(dir, &got, &h);
        cr_expect_eq(got.creates + got.periods + got.depend_items + got.edges + h.otf2_creates, 0, "tasks recorded at %s",
                     levels[i]);
        host_openmp_facts o;
        cr_assert_eq(host_openmp_check(dir, &o), 0);
        cr_expect_eq(o.parallel, i < 2 ? 1 : 0, "at %s", levels[i]);
    }
}

/* Tasks a kernel creates are the kernel's (the device collector's device
 * threads, or nowhere with --host-only), never the program's: the device
 * tasks example's tasks all run inside target regions; the nowait
 * example's target tasks are the program's. */
Test(host_tasks, kernel_tasks_are_not_the_programs, .timeout = 120)
{
    const char *programs[] = {"example_device_tasks", "example_nowait"};
    for (size_t i = 0; i < 4; i++) {
        const char *program = programs[i / 2];
        task_counts want, got;
        host_tasks_facts h;
        runtime_counts("OMP_NUM_THREADS=2", program, NULL, &want);
        char dir[4096];
        scratch_path(dir, sizeof dir, "host-tasks-kernel");
        record(dir, "OMP_NUM_THREADS=2", "all", i % 2 ? "--host-only" : NULL, program, NULL);
        archive_counts(dir, &got, &h);
        tasks_hold_together(program, &got, &h);
        SAME(creates);
        SAME(target);
        SAME(completes);
        SAME(depend_items);
    }
}

/* The file at \p a and the one at \p b hold the same bytes. */
static void same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *x = read_whole_file(a, &la), *y = read_whole_file(b, &lb);
    cr_assert(x && y, "cannot read %s or %s", a, b);
    cr_expect(la == lb && !memcmp(x, y, la), "%s and %s differ", a, b);
    free(x);
    free(y);
}

/* A recording whose device list names no offload device is written as
 * each stream is first read (issue 18, third round), but its explicit tasks
 * must be known on every thread before the first is written: a look at each
 * stream's first window finds this program's tasks and the conversion takes
 * the counting pass (a task met later ends the attempt and starts it again:
 * test_device_conversion's late device). The archive is the one the
 * counting pass gives from the start (the same recording with the offload
 * devices listed, which takes that pass at once), byte for byte, and holds
 * every task. */
Test(host_tasks, tasks_of_a_host_recording_are_known_before_its_streams_are_written, .timeout = 120)
{
    char dir[4096], listed[4200], host_only[4200], cmd[16384];
    scratch_path(dir, sizeof dir, "host-tasks-read-once");
    char *env[] = {"OMP_NUM_THREADS=2", "OFFTRACE_HOST_OPENMP=all", "OFFTRACE_KEEP_RAW=1", NULL};
    cr_assert_eq(record_program(dir, NULL, env, "example_task_tree", NULL, NULL), 0);
    snprintf(listed, sizeof listed, "%s-listed", dir);
    snprintf(host_only, sizeof host_only, "%s-host-only", dir);
    snprintf(cmd, sizeof cmd,
             "set -e; grep -q generic %s/raw/devices.txt; rm -rf %s %s; mkdir %s %s; cp -r %s/raw %s/; cp -r %s/raw %s/; "
             "grep -v generic %s/raw/devices.txt > %s/raw/devices.txt.new; mv %s/raw/devices.txt.new %s/raw/devices.txt; "
             "%s/offtrace convert --quiet --keep-raw %s; %s/offtrace convert --quiet --keep-raw %s",
             dir, listed, host_only, listed, host_only, dir, listed, dir, host_only, host_only, host_only, host_only,
             host_only, OFFTRACE_BIN_DIR, listed, OFFTRACE_BIN_DIR, host_only);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", cmd, r.err);
    run_free(&r);
    char a[4400], b[4400];
    snprintf(a, sizeof a, "%s/traces.def", listed);
    snprintf(b, sizeof b, "%s/traces.def", host_only);
    same_file(a, b);
    for (int location = 0; location < 2; location++) { /* the two threads' events */
        snprintf(a, sizeof a, "%s/traces/%d.evt", listed, location);
        snprintf(b, sizeof b, "%s/traces/%d.evt", host_only, location);
        same_file(a, b);
    }
    task_counts got;
    host_tasks_facts h;
    archive_counts(host_only, &got, &h);
    tasks_hold_together("example_task_tree", &got, &h);
    cr_expect_gt(got.creates, 0);
}

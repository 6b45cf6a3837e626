/*
 * `offtrace export --format chrome`: on real recordings the JSON holds, thread
 * by thread, what the archive holds location by location (slices, flow ends,
 * counters), every location and device is named, flows pair up; `-o -`
 * writes to stdout; usage errors and bad archives end in one line with no
 * file left behind; a synthetic archive checks escaping, unbalanced regions
 * and the nesting limit; the JSON writer's number and string formats.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/chrome_scan.h"
#include "check/json_check.h"
#include "check/location_counts.h"
#include "check/run.h"
#include "check/synthetic_archive.h"
#include "export_chrome.h"
#include "export_writer.h"

TestSuite(export, .timeout = 120);

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Exactly one non-empty line. */
static int one_line(const char *s)
{
    size_t n = strlen(s);
    return n > 1 && s[n - 1] == '\n' && !memchr(s, '\n', n - 1);
}

/* Record PROGRAM (device detail on) into a fresh dir, export it to dir.json. */
static char *record_and_export(const char *program, char *dir, size_t size, char *const args[])
{
    scratch_path(dir, (unsigned)size, program);
    cr_assert_eq(record_program(dir, NULL, NULL, program, args, NULL), 0, "recording %s failed", program);
    char out[4200];
    snprintf(out, sizeof out, "%s.json", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", "--format", "chrome", dir, "-o", out, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "export failed: %s", r.err);
    cr_assert(one_line(r.err), "expected one summary line, got: %s", r.err);
    run_free(&r);
    size_t at = 0;
    cr_assert_eq(json_check_file(out, &at), 0, "%s is not JSON (byte %zu)", out, at);
    char *text = read_whole_file(out, NULL);
    cr_assert_not_null(text, "no %s", out);
    return text;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every "s" has exactly one "f" with its id, and ids are not reused. */
static void expect_flows_paired(chrome_scan *s)
{
    cr_assert_eq(s->flow_starts, s->flow_ends);
    qsort(s->start_ids, s->flow_starts, sizeof *s->start_ids, by_string);
    qsort(s->end_ids, s->flow_ends, sizeof *s->end_ids, by_string);
    for (uint64_t i = 0; i < s->flow_starts; i++) {
        cr_assert_str_eq(s->start_ids[i], s->end_ids[i], "flow %s has no end", s->start_ids[i]);
        cr_assert(i == 0 || strcmp(s->start_ids[i - 1], s->start_ids[i]), "flow id %s used twice", s->start_ids[i]);
    }
}

/* The export, thread by thread, against the archive, location by location. */
static void expect_matches_archive(const char *dir, chrome_scan *s)
{
    location_count *locs;
    size_t n;
    cr_assert_eq(location_counts(dir, &locs, &n), 0, "cannot count %s", dir);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    size_t named = 0;
    for (size_t i = 0; i < n; i++) {
        const chrome_thread *t = chrome_thread_named(s, locs[i].name);
        cr_assert_not_null(t, "no thread named '%s'", locs[i].name);
        cr_assert_eq(t->named, 1, "'%s' named %d times", locs[i].name, t->named);
        cr_assert_eq(locs[i].enters, locs[i].leaves);
        cr_assert_eq(t->slices, locs[i].enters, "'%s': %llu slices for %llu Enters", locs[i].name,
                     (unsigned long long)t->slices, (unsigned long long)locs[i].enters);
        cr_assert_eq(t->flow_ends, locs[i].transfer_enters, "'%s': flow ends", locs[i].name);
        cr_assert_eq(t->flow_starts, locs[i].rma_ops, "'%s': flow starts", locs[i].name);
        cr_assert_eq(t->counters, locs[i].metrics, "'%s': counters", locs[i].name);
        named++;
    }
    cr_assert_eq(s->thread_count, named, "threads that are no location");
    cr_assert_eq(s->kernels, f.kernels);
    cr_assert_eq(s->flow_starts, f.puts + f.gets);
    cr_assert_eq(s->counters, f.metrics);
    cr_assert_eq(s->unfinished, 0);
    expect_flows_paired(s);
    char why[512];
    size_t faults = chrome_scan_order_faults(s, why, sizeof why);
    cr_assert_eq(faults, 0, "%zu events out of the order importers need; first: %s", faults, why);
    free(locs);
}

Test(export, cg_matches_its_archive_location_by_location)
{
    char dir[4096];
    char *text = record_and_export("example_cg", dir, sizeof dir, NULL);
    chrome_scan s;
    cr_assert_eq(chrome_scan_text(text, &s), 0);
    expect_matches_archive(dir, &s);
    cr_assert_geq(s.kernels, 302);
    cr_assert_str_eq(chrome_process_name(&s, 1), "host");
    cr_assert_str_eq(chrome_process_name(&s, 2), "device 0 generic-64bit");
    cr_assert_null(strstr(text, "displayTimeUnit"), "displayTimeUnit is misread by older importers");
    cr_assert(strstr(text, "\"args\":{\"site\":\"cg.c:"), "no source site on the target regions");
    cr_assert(strstr(text, "\"bytes\":"), "no transfer sizes");
    /* launches and data ops carry their host operation (issue 17): not an argument, and never taken for NVTX's */
    cr_assert_null(strstr(text, "nvtx"), "an NVTX argument in a program without NVTX");
    chrome_scan_free(&s);
    free(text);
}

Test(export, two_devices_get_a_process_each)
{
    char dir[4096];
    char *text = record_and_export("example_two_devices", dir, sizeof dir, NULL);
    chrome_scan s;
    cr_assert_eq(chrome_scan_text(text, &s), 0);
    expect_matches_archive(dir, &s);
    cr_assert_str_eq(chrome_process_name(&s, 2), "device 0 generic-64bit");
    cr_assert_str_eq(chrome_process_name(&s, 3), "device 1 generic-64bit");
    const chrome_thread *rdma = chrome_thread_named(&s, "device 1 RDMA");
    cr_assert_not_null(rdma);
    cr_assert_eq(rdma->pid, 3);
    cr_assert_gt(rdma->flow_ends, 0);
    chrome_scan_free(&s);
    free(text);
}

Test(export, dash_writes_to_stdout)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "export-stdout");
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_saxpy", NULL, NULL), 0);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", dir, "-o", "-", NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    size_t at = 0;
    cr_assert_eq(json_check(r.out, strlen(r.out), &at), 0, "stdout is not JSON (byte %zu)", at);
    chrome_scan s;
    cr_assert_eq(chrome_scan_text(r.out, &s), 0);
    expect_matches_archive(dir, &s);
    cr_assert(strstr(r.err, "stdout"), "%s", r.err);
    chrome_scan_free(&s);
    run_free(&r);
}

/* A FIFO (like /dev/null, a device) is written in place: renaming a
 * .partial over it would replace it with a regular file. */
Test(export, special_files_are_written_in_place)
{
    char dir[4096], fifo[4200], copy[4200];
    scratch_path(dir, sizeof dir, "export-fifo");
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_saxpy", NULL, NULL), 0);
    snprintf(fifo, sizeof fifo, "%s.fifo", dir);
    snprintf(copy, sizeof copy, "%s.json", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t reader = fork();
    if (reader == 0) { /* cat FIFO > copy */
        char *argv[] = {"sh", "-c", "cat \"$0\" > \"$1\"", fifo, copy, NULL};
        execvp("sh", argv);
        _exit(127);
    }
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", dir, "-o", fifo, NULL), 0);
    int status;
    waitpid(reader, &status, 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    struct stat st;
    cr_assert_eq(stat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    size_t at = 0;
    cr_assert_eq(json_check_file(copy, &at), 0, "what came through the FIFO is not JSON (byte %zu)", at);
}

/* A usage error: exit 2, one line naming what is wrong, no file. */
static void expect_usage_error(const char *out, const char *says, ...)
{
    va_list ap;
    va_start(ap, says);
    run_result r;
    int ran = run_offtrace_va(&r, "export", ap);
    va_end(ap);
    cr_assert_eq(ran, 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "exit %d: %s", WEXITSTATUS(r.status), r.err);
    cr_assert(one_line(r.err), "not one line: %s", r.err);
    cr_assert(strstr(r.err, says), "'%s' does not say '%s'", r.err, says);
    cr_assert_str_eq(r.out, "");
    run_free(&r);
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", out);
    cr_assert(!exists(out) && !exists(partial), "a usage error left %s", out);
}

Test(export, usage_errors_exit_2_in_one_line)
{
    char dir[4096], out[4200];
    scratch_path(dir, sizeof dir, "export-usage");
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_saxpy", NULL, NULL), 0);
    snprintf(out, sizeof out, "%s.json", dir);
    expect_usage_error(out, "formats: chrome", "--format", "perfetto", dir, "-o", out, NULL);
    expect_usage_error(out, "formats: chrome", "--format=otf2", dir, "-o", out, NULL);
    expect_usage_error(out, "-o FILE", dir, NULL);
    expect_usage_error(out, "no archive", "-o", out, NULL);
    expect_usage_error(out, "needs a value", dir, "-o", NULL);
    expect_usage_error(out, "unknown option", "--from", "1", dir, "-o", out, NULL);
    expect_usage_error(out, "one archive", dir, dir, "-o", out, NULL);
}

/* Bad input: non-zero, one line, neither the output nor its .partial left. */
static void expect_bad_input(const char *dir, const char *out)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", "--format", "chrome", dir, "-o", out, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0, "'%s' was exported", dir);
    cr_assert(one_line(r.err), "not one line: %s", r.err);
    run_free(&r);
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", out);
    cr_assert(!exists(out), "a failed export left %s", out);
    cr_assert(!exists(partial), "a failed export left %s", partial);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(export, not_an_archive_fails_in_one_line_and_leaves_no_file)
{
    char dir[4096], out[4200], file[4200];
    scratch_path(dir, sizeof dir, "export-bad");
    snprintf(out, sizeof out, "%s.json", dir);
    expect_bad_input(dir, out); /* does not exist */
    mkdir(dir, 0777);
    expect_bad_input(dir, out); /* empty */
    snprintf(file, sizeof file, "%s/traces.otf2", dir);
    write_text(file, "not an OTF2 anchor file\n");
    expect_bad_input(dir, out);
    expect_bad_input(file, out); /* a regular file */
}

Test(export, truncated_events_leave_no_partial_file)
{
    char dir[4096], out[4200], evt[4200];
    scratch_path(dir, sizeof dir, "export-truncated");
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_cg", NULL, NULL), 0);
    snprintf(out, sizeof out, "%s.json", dir);
    snprintf(evt, sizeof evt, "%s/traces/0.evt", dir);
    struct stat st;
    cr_assert_eq(stat(evt, &st), 0);
    cr_assert_eq(truncate(evt, st.st_size / 2), 0);
    expect_bad_input(dir, out);
}

Test(export, odd_archive_is_escaped_closed_and_depth_limited)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "export-odd");
    const unsigned extra = 6;
    cr_assert_eq(write_odd_archive(dir, OT_EXPORT_MAX_DEPTH + extra), 0);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", dir, "-o", "-", NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    size_t at = 0;
    cr_assert_eq(json_check(r.out, strlen(r.out), &at), 0, "not JSON at byte %zu: %.80s", at, r.out + at);
    chrome_scan s;
    cr_assert_eq(chrome_scan_text(r.out, &s), 0);
    cr_assert_eq(chrome_thread_named(&s, "Master thread")->slices, 3); /* odd, target, odd (never left) */
    cr_assert_eq(chrome_thread_named(&s, "OpenMP thread 1 (tid 2)")->slices, OT_EXPORT_MAX_DEPTH);
    cr_assert_eq(s.unfinished, 1);
    cr_assert(strstr(r.out, "\"unmatched_events\":6"), "6 too deep");
    cr_assert(strstr(r.out, "\"name\":\"say \\\"hi\\\"\\\\ \\u000a\\u0009\\u007f\\ufffd \xc3\xa9\""),
              "the odd name is not escaped as expected");
    chrome_scan_free(&s);
    run_free(&r);
}

/* ---- the JSON writer ---- */

static char *written(void (*write)(ot_jw *w, const void *arg), const void *arg)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    ot_jw *w = malloc(sizeof *w);
    ot_jw_init(w, f);
    write(w, arg);
    cr_assert_eq(ot_jw_flush(w), 0);
    fclose(f);
    free(w);
    return text;
}

static void write_us(ot_jw *w, const void *arg)
{
    ot_jw_us(w, *(const int64_t *)arg);
}

static void write_str(ot_jw *w, const void *arg)
{
    ot_jw_string(w, arg);
}

Test(export, writer_formats_microseconds_exactly)
{
    const struct {
        int64_t ns;
        const char *text;
    } cases[] = {{0, "0.000"}, {5, "0.005"}, {12345, "12.345"}, {1000000, "1000.000"}, {-5, "-0.005"},
                 {-12345678, "-12345.678"}, {INT64_MAX, "9223372036854775.807"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = written(write_us, &cases[i].ns);
        cr_assert_str_eq(t, cases[i].text);
        free(t);
    }
}

Test(export, writer_escapes_strings)
{
    const char *cases[][2] = {{"plain", "\"plain\""},
                              {"a\"b\\c", "\"a\\\"b\\\\c\""},
                              {"\x01\n\x1f\x7f", "\"\\u0001\\u000a\\u001f\\u007f\""},
                              {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""},
                              {"\xff\xc3(\xed\xa0\x80\xc0\xaf", "\"\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""},
                              {"", "\"\""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = written(write_str, cases[i][0]);
        cr_assert_str_eq(t, cases[i][1], "case %zu: %s", i, t);
        cr_assert_eq(json_check(t, strlen(t), NULL), 0);
        free(t);
    }
}

/* A device's process is named after its location group, whatever its
 * length (the group holds the device kind the runtime reported): no
 * fixed-size buffer cuts it. */
Test(export, a_long_device_kind_is_named_whole)
{
    char dir[4096], kind[701];
    memset(kind, 'k', sizeof kind - 1);
    kind[sizeof kind - 1] = '\0';
    memcpy(kind, "very-long-kind-", 15);
    char group[800];
    snprintf(group, sizeof group, "%s device 0", kind);
    scratch_path(dir, sizeof dir, "export-long-kind");
    cr_assert_eq(write_paired_archive_with_group(dir, group), 0);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", dir, "-o", "-", NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    char want[900];
    snprintf(want, sizeof want, "\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"device 0 %s\"}", kind);
    cr_assert_not_null(strstr(r.out, want), "device 0's name is cut: %.200s", strstr(r.out, "\"pid\":2"));
    run_free(&r);
}

/* Sum of the unsigned argument \p key over the slices of category \p cat (one event per line). */
static unsigned long long sum_arg(const char *text, const char *cat, const char *key, size_t *slices)
{
    char want[64], arg[64];
    snprintf(want, sizeof want, "\"cat\":\"%s\"", cat);
    snprintf(arg, sizeof arg, "\"%s\":", key);
    unsigned long long sum = 0;
    *slices = 0;
    for (const char *p = text; (p = strstr(p, want)); p++) {
        const char *end = strchr(p, '\n'), *a = strstr(p, arg);
        cr_assert(a && (!end || a < end), "a %s slice without \"%s\": %.200s", cat, key, p);
        sum += strtoull(a + strlen(arg), NULL, 10);
        (*slices)++;
    }
    return sum;
}

/* Host OpenMP (issue 13): a category per kind, and the attributes as args:
 * the chunks of a 2-thread team cover each loop's iterations exactly once. */
Test(export, host_openmp_kinds_have_categories_and_attribute_args)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "example_bucket_sort");
    cr_assert_eq(record_program(dir, NULL, (char *[]){"OMP_NUM_THREADS=2", NULL}, "example_bucket_sort",
                                (char *[]){"20000", "2", NULL}, NULL), 0);
    char out[4200];
    snprintf(out, sizeof out, "%s.json", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", "--format", "chrome", dir, "-o", out, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "export failed: %s", r.err);
    run_free(&r);
    char *text = read_whole_file(out, NULL);
    cr_assert_not_null(text);
    const char *kinds[] = {"openmp.parallel", "openmp.implicit_task", "openmp.loop", "openmp.chunk",
                           "openmp.barrier", "openmp.wait", "openmp.masked", "openmp.worksharing"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "\"cat\":\"%s\"", kinds[i]);
        cr_expect(strstr(text, want), "no %s slice", kinds[i]);
    }
    cr_expect_null(strstr(text, "\"cat\":\"host openmp\""), "a host OpenMP class kept the catalogue's category");
    size_t loops, chunks, tasks, firsts;
    unsigned long long trips = sum_arg(text, "openmp.loop", "iterations", &loops);
    unsigned long long iterations = sum_arg(text, "openmp.chunk", "iterations", &chunks);
    sum_arg(text, "openmp.chunk", "first iteration", &firsts);
    unsigned long long team = sum_arg(text, "openmp.implicit_task", "team size", &tasks);
    unsigned long long numbers = sum_arg(text, "openmp.implicit_task", "thread number", &tasks);
    cr_assert_gt(chunks, 0);
    cr_assert_eq(firsts, chunks);
    cr_assert_eq(2 * iterations, trips, "chunks carry %llu iterations, the loops (on 2 threads each) %llu", iterations,
                 trips);
    cr_assert_eq(team, 2 * tasks, "every implicit task is of a team of 2");
    cr_assert_eq(2 * numbers, tasks, "thread numbers 0 and 1, as many of each");
    free(text);
}

/* `offtrace export` of \p program recorded at level all, read whole (one event per line). */
static char *export_at_all(const char *program, char *const env[], char *const args[])
{
    char dir[4096], out[4200];
    scratch_path(dir, sizeof dir, program);
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, program, args, &err), 0, "record %s: %s", program, err);
    free(err);
    snprintf(out, sizeof out, "%s.json", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", "--format", "chrome", dir, "-o", out, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "export failed: %s", r.err);
    run_free(&r);
    char *text = read_whole_file(out, NULL);
    cr_assert_not_null(text);
    return text;
}

static void expect_category(const char *text, const char *cat)
{
    char want[64];
    snprintf(want, sizeof want, "\"cat\":\"%s\"", cat);
    cr_expect(strstr(text, want), "no %s slice", cat);
}

/* Level all (issue 13): explicit tasks and their creations carry id, flags and parent, one creation per
 * task; locks, critical sections and ordered regions their lock id, the waiting part its own category. */
Test(export, host_tasks_and_locks_have_categories_and_args)
{
    char *text = export_at_all("example_task_tree", (char *[]){"OMP_NUM_THREADS=2", "OFFTRACE_HOST_OPENMP=all", NULL},
                               NULL);
    expect_category(text, "openmp.task");
    expect_category(text, "openmp.task_create");
    expect_category(text, "openmp.task_depend");
    size_t periods, creates, n;
    sum_arg(text, "openmp.task", "task id", &periods);
    sum_arg(text, "openmp.task", "task flags", &n);
    cr_assert_eq(n, periods);
    sum_arg(text, "openmp.task", "parent task", &n);
    cr_assert_eq(n, periods);
    unsigned long long created_ids = sum_arg(text, "openmp.task_create", "task id", &creates);
    sum_arg(text, "openmp.task_create", "task flags", &n);
    cr_assert_eq(n, creates);
    cr_assert_gt(creates, 8000, "the tree of 200000 elements by 64 makes thousands of tasks");
    cr_assert_geq(periods, creates - 1, "every task but the taskwait depend's runs");
    cr_assert_gt(created_ids, 0);
    free(text);

    text = export_at_all("example_lock_histogram",
                         (char *[]){"OMP_NUM_THREADS=3", "OMP_CANCELLATION=true", "OFFTRACE_HOST_OPENMP=all", NULL},
                         (char *[]){"2000", "1", NULL});
    const char *kinds[] = {"openmp.lock", "openmp.critical", "openmp.ordered", "openmp.lock_wait"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        expect_category(text, kinds[i]);
    size_t locks, waits, ordered, critical;
    sum_arg(text, "openmp.lock", "lock id", &locks);
    sum_arg(text, "openmp.ordered", "lock id", &ordered);
    sum_arg(text, "openmp.critical", "lock id", &critical);
    sum_arg(text, "openmp.lock_wait", "site", &waits);
    cr_assert_geq(locks, 2000, "one lock region per item at least");
    cr_assert_eq(ordered, 32, "one ordered region per bin");
    cr_assert_eq(critical, 3, "one critical section per thread");
    free(text);
}

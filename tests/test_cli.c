/*
 * The command line and the library outside it: programs that cannot start,
 * programs that die, bad settings, and a program whose own behaviour must
 * pass through unchanged.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/run.h"
#include "check/runtime_counts.h"

static char cli[4096];

static void setup(void)
{
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
}

TestSuite(cli, .init = setup, .timeout = 120);

static void prog_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", OFFTRACE_BIN_DIR, name);
}

static void archive_is_valid(const char *dir, archive_facts *f)
{
    char *message = NULL;
    int status = otf2_print_check(dir, &message);
    cr_assert_eq(status, 0, "otf2-print rejects %s: %s", dir, message ? message : "");
    free(message);
    cr_assert_eq(archive_check(dir, f), 0);
    cr_assert_eq(archive_violations(f), 0, "%s", f->first_problem);
}

Test(cli, program_output_arguments_stdin_and_exit_code_pass_through)
{
    char dir[4096], prog[4096];
    scratch_path(dir, sizeof dir, "passthrough");
    prog_path(prog, sizeof prog, "exit_code");
    char *argv[] = {cli, "record", "-o", dir, "--", prog, "first arg", "-o", "x", NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, "a\nb\nc\n", &r), 0);
    cr_assert(WIFEXITED(r.status));
    cr_assert_eq(WEXITSTATUS(r.status), 7);
    cr_assert(strstr(r.out, "first arg\n-o\nx\n"), "arguments changed: %s", r.out);
    cr_assert(strstr(r.out, "3"), "stdin not passed: %s", r.out);
    cr_assert(!strstr(r.out, "offtrace:"), "offtrace wrote into the program's stdout");
    cr_assert(strstr(r.err, "offtrace: archive"), "no summary: %s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_eq(f.target, 1);
}

/* record says where it records before the program runs, the summary in
 * plain words after it, and what to run next. */
Test(cli, record_says_where_it_records_and_what_to_run_next)
{
    char dir[4096], prog[4096], line[8400];
    scratch_path(dir, sizeof dir, "feedback");
    prog_path(prog, sizeof prog, "example_cg");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", prog, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    snprintf(line, sizeof line, "offtrace: recording %s into %s/ (with device detail)\n", prog, dir);
    cr_assert_eq(strncmp(r.err, line, strlen(line)), 0, "not the first line: %s", r.err);
    snprintf(line, sizeof line, "offtrace: next             offtrace report %s (findings by source line); "
                                "offtrace view %s (a timeline for the browser)\n", dir, dir);
    cr_assert(strstr(r.err, line), "no next line: %s", r.err);
    cr_assert(strstr(r.err, ", 1 host thread, "), "%s", r.err);
    cr_assert_null(strstr(r.err, "placed at"), "%s", r.err);
    /* cg's late worker ends (2 per target) are normal: not said */
    cr_assert_null(strstr(r.err, "device timing"), "%s", r.err);
    cr_assert(strstr(r.err, "offtrace: device detail    "), "%s", r.err);
    cr_assert_null(strstr(r.out, "offtrace"), "offtrace wrote into the program's stdout");
    run_free(&r);
}

Test(cli, existing_output_directory_is_refused)
{
    char dir[4096], prog[4096], marker[4200];
    scratch_path(dir, sizeof dir, "exists");
    mkdir(dir, 0777);
    snprintf(marker, sizeof marker, "%s/keep", dir);
    fclose(fopen(marker, "w"));
    prog_path(prog, sizeof prog, "example_saxpy");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", prog, NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 2);
    cr_assert(strstr(r.err, "already exists"), "%s", r.err);
    run_free(&r);
    struct stat st;
    cr_assert_eq(stat(marker, &st), 0);
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    cr_assert_neq(stat(anchor, &st), 0, "a trace was mixed into an existing directory");
}

Test(cli, missing_program_is_127_and_not_executable_is_126)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "noprog");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", "/nonexistent/program", NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 127);
    cr_assert(strstr(r.err, "No such file or directory"), "%s", r.err);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", "no-such-command-offtrace", NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 127);
    cr_assert(strstr(r.err, "command not found"), "%s", r.err);
    run_free(&r);
    char plain[4096];
    scratch_path(plain, sizeof plain, "not-executable");
    FILE *f = fopen(plain, "w");
    fputs("just text\n", f);
    fclose(f);
    chmod(plain, 0644);
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", plain, NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 126);
    cr_assert(strstr(r.err, "Permission denied"), "%s", r.err);
    run_free(&r);
    struct stat st;
    cr_assert_neq(stat(dir, &st), 0, "an empty output directory was left behind");
}

static void crash_case(const char *program, int expect_signal, int expect_exit, const char *reason_word)
{
    char dir[4096], prog[4096];
    scratch_path(dir, sizeof dir, program);
    prog_path(prog, sizeof prog, program);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", prog, NULL), 0);
    if (expect_signal) {
        cr_assert(WIFSIGNALED(r.status), "record did not report the signal (status %x)", r.status);
        cr_assert_eq(WTERMSIG(r.status), expect_signal);
    } else {
        cr_assert(WIFEXITED(r.status));
        cr_assert_eq(WEXITSTATUS(r.status), expect_exit);
    }
    cr_assert(strstr(r.err, "PARTIAL"), "record did not say the trace is partial: %s", r.err);
    cr_assert(strstr(r.err, reason_word), "record did not say why: %s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_geq(f.target, 2, "the regions before the death are missing");
    cr_assert_geq(f.puts, 1);
}

Test(cli, abort_leaves_a_partial_archive)
{
    crash_case("crash_abort", SIGABRT, 0, "SIGABRT");
}

Test(cli, segfault_leaves_a_partial_archive)
{
    crash_case("crash_segv", SIGSEGV, 0, "SIGSEGV");
}

Test(cli, underscore_exit_from_a_worker_leaves_a_partial_archive)
{
    crash_case("crash_exit_worker", 0, 3, "_exit");
}

/* Runs a program with libofftrace.so as its OMPT tool and OFFTRACE_OUTPUT=dir,
 * without the CLI; `setting` is one more "NAME=value" or NULL. */
static void run_with_library(const char *program, const char *dir, char *setting, const char *stdin_text,
                             run_result *r)
{
    char prog[4096], out[4200], tool[4200];
    prog_path(prog, sizeof prog, program);
    snprintf(out, sizeof out, "OFFTRACE_OUTPUT=%s", dir);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace.so", OFFTRACE_LIB_DIR);
    char *env[] = {tool, out, setting, NULL};
    char *argv[] = {prog, NULL};
    cr_assert_eq(run_command(argv, env, stdin_text, r), 0);
}

Test(cli, library_alone_with_a_wrong_setting_runs_the_program_untraced)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "badenv");
    run_result r;
    run_with_library("exit_code", dir, "OFFTRACE_BUFFER_SIZE=lots", "", &r);
    cr_assert_eq(WEXITSTATUS(r.status), 7);
    cr_assert(strstr(r.err, "OFFTRACE_BUFFER_SIZE='lots'"), "%s", r.err);
    cr_assert(strstr(r.err, "64K to 1G"), "%s", r.err);
    run_free(&r);
    struct stat st;
    cr_assert_neq(stat(dir, &st), 0);
}

Test(cli, library_alone_never_reuses_a_directory)
{
    char dir[4096], fresh[4200];
    scratch_path(dir, sizeof dir, "alone");
    mkdir(dir, 0777);
    run_result r;
    run_with_library("example_saxpy", dir, NULL, NULL, &r);
    cr_assert_eq(WEXITSTATUS(r.status), 0);
    snprintf(fresh, sizeof fresh, "%s.1", dir);
    cr_assert(strstr(r.err, fresh), "did not say where it wrote: %s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(fresh, &f);
    cr_assert_gt(f.target, 0);
}

Test(cli, library_alone_leaves_an_archive_when_the_program_crashes)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "alonecrash");
    run_result r;
    run_with_library("crash_segv", dir, NULL, NULL, &r);
    cr_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGSEGV, "the program's death changed");
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_geq(f.target, 2);
}

Test(cli, info_reads_an_archive_and_rejects_what_is_not_one)
{
    char dir[4096], prog[4096];
    scratch_path(dir, sizeof dir, "info");
    prog_path(prog, sizeof prog, "example_saxpy");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", prog, NULL), 0);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 0);
    cr_assert(strstr(r.out, "offtrace: kernels"), "%s", r.out);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "info", "/etc", NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 2);
    cr_assert(strstr(r.err, "no trace"), "%s", r.err);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "info", "/nonexistent-offtrace", NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 2);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "frobnicate", NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 2);
    run_free(&r);
}

Test(cli, a_forked_child_does_not_touch_the_parents_trace)
{
    char dir[4096], prog[4096];
    scratch_path(dir, sizeof dir, "fork");
    prog_path(prog, sizeof prog, "fork_child");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", prog, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_assert(!strstr(r.err, "PARTIAL"), "%s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_eq(f.target, 3, "the parent ran 3 target regions, the trace holds %llu",
                 (unsigned long long)f.target);
    cr_assert_eq(f.update, 0, "the child's target update leaked into the parent's trace");
    cr_assert_eq(f.puts, 3);
}

Test(cli, a_forked_child_does_not_convert_the_parents_recording)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "forkalone");
    run_result r;
    run_with_library("fork_child", dir, NULL, NULL, &r);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_assert(!strstr(r.err, "not an offtrace recording"), "the child took the recording: %s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_eq(f.target, 3);
    cr_assert_eq(f.update, 0);
}

static unsigned long long raw_bytes(const char *dir, unsigned *files)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/raw", dir);
    DIR *d = opendir(path);
    cr_assert_not_null(d, "no %s (OFFTRACE_KEEP_RAW=1 keeps it)", path);
    unsigned long long total = 0;
    *files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char file[4600];
        struct stat st;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        if (!strncmp(e->d_name, "thread-", 7) && stat(file, &st) == 0) {
            total += (unsigned long long)st.st_blocks * 512;
            (*files)++;
        }
    }
    closedir(d);
    return total;
}

/* 1,000 threads that start, run one target region and end, one after
 * another: every region is in the trace, and the threads share a stream
 * (and a location) instead of leaving one each, with its file and chunks. */
Test(cli, short_lived_threads_share_streams)
{
    char dir[4096], prog[4096], keep[] = "OFFTRACE_KEEP_RAW=1";
    scratch_path(dir, sizeof dir, "churn");
    prog_path(prog, sizeof prog, "thread_churn");
    char *env[] = {keep, NULL};
    char *args[] = {"1000", NULL};
    cr_assert_eq(record_program(dir, "--host-only", env, "thread_churn", args, NULL), 0);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_eq(f.target, 1000);
    cr_assert_eq(f.puts, 1000);
    cr_assert_eq(f.gets, 1000);
    cr_assert_leq(f.host_threads, 4, "%llu host locations for threads that ran one after another",
                  (unsigned long long)f.host_threads);
    unsigned files;
    unsigned long long bytes = raw_bytes(dir, &files);
    cr_assert_leq(files, 4);
    /* 22 records of 64 bytes per thread: 1.4 MB, plus at most a few chunks */
    cr_assert_lt(bytes, 16ull << 20, "%llu bytes of raw records on disk", bytes);
}

/* A budget of 256 KiB against 12,000 target regions (about 5 MB of
 * records): the records go to disk again and again, by the background
 * writer or (with it off) by the program's thread itself; either way every
 * event the runtime reported is in the archive, in order, and the writes
 * show. */
static void record_cg_under_tiny_budget(const char *name, char *writeback, uint64_t *flushes,
                                        uint64_t *written_in_background, char **summary)
{
    char dir[4096], budget[] = "OFFTRACE_MEMORY_BUDGET=256K", chunk[] = "OFFTRACE_BUFFER_SIZE=64K";
    char *args[] = {"64", "2000", NULL};
    runtime_counts rt;
    cr_assert_eq(runtime_counts_of_run("example_cg", args, &rt), 0, "%s", rt.problem);
    scratch_path(dir, sizeof dir, name);
    char *env[] = {budget, chunk, writeback, NULL};
    cr_assert_eq(record_program(dir, "--host-only", env, "example_cg", args, summary), 0, "%s", *summary);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_eq(f.target, rt.target);
    cr_assert_eq(f.kernels, rt.kernels);
    cr_assert_eq(f.puts, rt.h2d);
    cr_assert_eq(f.put_bytes, rt.h2d_bytes);
    cr_assert_eq(f.gets, rt.d2h);
    cr_assert_eq(f.get_bytes, rt.d2h_bytes);
    uint64_t lost = 1;
    cr_assert_eq(archive_property(dir, "OFFTRACE::BUFFER_FLUSHES", flushes), 0);
    cr_assert_eq(archive_property(dir, "OFFTRACE::BACKGROUND_WRITEBACK_BYTES", written_in_background), 0);
    cr_assert_eq(archive_property(dir, "OFFTRACE::LOST_RECORDS", &lost), 0);
    cr_assert_eq(lost, 0);
}

Test(cli, a_tiny_memory_budget_loses_nothing)
{
    char writeback[] = "OFFTRACE_BACKGROUND_WRITEBACK=on";
    uint64_t flushes = 0, background = 0;
    char *summary = NULL;
    record_cg_under_tiny_budget("budget", writeback, &flushes, &background, &summary);
    /* Raw records of this run: about 5 MB, 20 times the budget; more than
     * 8 budgets' worth must have gone to disk before the end. */
    cr_assert_gt(background + flushes * (64u << 10), 2u << 20,
                 "%llu bytes written in the background and %llu flushes",
                 (unsigned long long)background, (unsigned long long)flushes);
    if (background)
        cr_assert_not_null(strstr(summary, "offtrace: writeback"), "%s", summary);
    free(summary);
}

Test(cli, a_tiny_memory_budget_without_the_writer_flushes_on_the_thread)
{
    char writeback[] = "OFFTRACE_BACKGROUND_WRITEBACK=off";
    uint64_t flushes = 0, background = 1;
    char *summary = NULL;
    record_cg_under_tiny_budget("budget-nowriter", writeback, &flushes, &background, &summary);
    cr_assert_eq(background, 0);
    cr_assert_gt(flushes, 10, "only %llu flushes", (unsigned long long)flushes);
    cr_assert_not_null(strstr(summary, "offtrace: flushes"), "%s", summary);
    free(summary);
}

/* ---- the command line of every verb (host/cli/options.c) ---- */

/* The verbs `offtrace --help` lists (this build may leave some out). */
static int listed_verbs(char verbs[][16], int most)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "--help", NULL), 0);
    cr_assert_eq(WEXITSTATUS(r.status), 0);
    int n = 0;
    for (char *line = r.out; line && *line && n < most; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, "  ", 2) && line[2] >= 'a' && line[2] <= 'z' && sscanf(line, " %15s", verbs[n]) == 1 &&
            strcmp(verbs[n], "offtrace") != 0) /* not the examples under the list */
            n++;
    run_free(&r);
    return n;
}

static int has_verb(char verbs[][16], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(verbs[i], name))
            return 1;
    return 0;
}

static int one_line(const char *text)
{
    size_t n = strlen(text);
    return n > 1 && text[n - 1] == '\n' && strchr(text, '\n') == text + n - 1;
}

Test(cli, every_verb_answers_help_on_stdout_with_exit_0)
{
    char verbs[16][16];
    int n = listed_verbs(verbs, 16);
    cr_assert(has_verb(verbs, n, "record") && has_verb(verbs, n, "info") && has_verb(verbs, n, "convert"),
              "%d verbs listed", n);
    for (int i = 0; i < n; i++) {
        char usage[64];
        snprintf(usage, sizeof usage, "usage: offtrace %s ", verbs[i]);
        const char *calls[][3] = {{verbs[i], "--help", NULL}, {verbs[i], "-h", NULL}, {"help", verbs[i], NULL}};
        for (int k = 0; k < 3; k++) {
            run_result r;
            cr_assert_eq(run_offtrace(&r, calls[k][0], calls[k][1], NULL), 0);
            cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s %s: status %#x", calls[k][0],
                      calls[k][1], r.status);
            cr_expect_str_empty(r.err, "%s %s wrote to stderr: %s", calls[k][0], calls[k][1], r.err);
            cr_expect(!strncmp(r.out, usage, strlen(usage)), "%s %s: %s", calls[k][0], calls[k][1], r.out);
            cr_expect(strstr(r.out, "--help"), "%s %s lists no options: %s", calls[k][0], calls[k][1], r.out);
            run_free(&r);
        }
    }
}

/* An unknown option, an option without its value, a verb without its
 * operand: one line on stderr naming the problem, nothing on stdout, exit 2. */
Test(cli, usage_errors_of_every_verb_are_one_line_and_exit_2)
{
    char verbs[16][16];
    int n = listed_verbs(verbs, 16);
    static const struct {
        const char *verb, *valued;
    } valued[] = {{"record", "-o"},  {"record", "--max-size"}, {"report", "--sort"}, {"view", "--width"},
                  {"export", "--format"}, {"convert", "--reason"}};
    for (int i = 0; i < n; i++) {
        run_result r;
        cr_assert_eq(run_offtrace(&r, verbs[i], "--no-such-option", "somewhere", NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "%s: status %#x", verbs[i], r.status);
        cr_expect(one_line(r.err) && strstr(r.err, "unknown option '--no-such-option'"), "%s: %s", verbs[i], r.err);
        cr_expect_str_empty(r.out);
        run_free(&r);
        cr_assert_eq(run_offtrace(&r, verbs[i], NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "%s alone: status %#x", verbs[i], r.status);
        cr_expect(one_line(r.err) && strstr(r.err, " given"), "%s alone: %s", verbs[i], r.err);
        run_free(&r);
    }
    for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++) {
        if (!has_verb(verbs, n, valued[i].verb))
            continue;
        run_result r;
        cr_assert_eq(run_offtrace(&r, valued[i].verb, valued[i].valued, NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "%s %s: status %#x", valued[i].verb,
                  valued[i].valued, r.status);
        cr_expect(one_line(r.err) && strstr(r.err, "needs a value"), "%s %s: %s", valued[i].verb, valued[i].valued,
                  r.err);
        run_free(&r);
    }
}

/* Sizes on record's command line go through the parser the libraries use:
 * 4MiB is taken, 4Mi is not, and a wrong one runs nothing. */
Test(cli, record_takes_sizes_in_the_libraries_grammar)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "size-grammar");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "-b", "4Mi", "--max-size", "2GiB", "--", "true", NULL), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "status %#x", r.status);
    cr_expect(one_line(r.err) && strstr(r.err, "-b '4Mi' is not a size"), "%s", r.err);
    run_free(&r);
    struct stat st;
    cr_assert_neq(stat(dir, &st), 0, "a refused record made %s", dir);
    char prog[4096];
    prog_path(prog, sizeof prog, "example_saxpy");
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--buffer-size=4MiB", "--max-size", "2GiB", "--host-only",
                              "--", prog, NULL), 0);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_gt(f.target, 0);
}

/* Each verb that reads an archive, on \p dir: all must succeed. */
static void every_reader_accepts(const char *dir, const char *what)
{
    char verbs[16][16], svg[4200], json[4200];
    int n = listed_verbs(verbs, 16);
    snprintf(svg, sizeof svg, "%s.svg", dir);
    snprintf(json, sizeof json, "%s.json", dir);
    const char *calls[][4] = {{"info", dir, NULL}, {"report", dir, NULL}, {"view", dir, "-o", svg},
                              {"export", dir, "-o", json}};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (!has_verb(verbs, n, calls[i][0]))
            continue;
        run_result r;
        cr_assert_eq(run_offtrace(&r, calls[i][0], calls[i][1], calls[i][2], calls[i][3], NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s refused it (status %#x): %s", what,
                  calls[i][0], r.status, r.err);
        run_free(&r);
    }
}

static void expect_kept_and_converted(const char *dir, const char *what)
{
    char status[4200];
    snprintf(status, sizeof status, "%s/raw/status", dir);
    char *word = read_whole_file(status, NULL);
    cr_assert(word && !strcmp(word, "converted\ncomplete\n"), "%s: raw/status '%s'", what, word ? word : "(none)");
    free(word);
}

/* `offtrace convert --keep-raw` of a kept raw/ again: the archive says what
 * the first conversion's said, partial (and why) or not. */
static void converted_again_says(const char *dir, const char *partial, const char *what)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "convert", "--quiet", "--keep-raw", dir, NULL), 0);
    cr_assert_eq(r.status, 0, "%s: %s", what, r.err);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0);
    cr_assert_eq(r.status, 0, "%s: %s", what, r.err);
    const char *line = strstr(r.out, "PARTIAL");
    if (partial)
        cr_expect(line && strstr(line, partial), "%s, converted again: no PARTIAL '%s' in:\n%s", what, partial, r.out);
    else
        cr_expect(!line, "%s, converted again: a finished recording called partial:\n%s", what, r.out);
    run_free(&r);
}

/* OFFTRACE_KEEP_RAW=1 (or convert --keep-raw) leaves raw/ next to a
 * finished archive: every reader reads that archive, whoever converted it. */
Test(cli, every_reader_reads_an_archive_whose_raw_records_were_kept)
{
    char dir[4096], keep[] = "OFFTRACE_KEEP_RAW=1";
    /* converted by record */
    scratch_path(dir, sizeof dir, "kept-record");
    cr_assert_eq(record_program(dir, "--host-only", (char *[]){keep, NULL}, "example_saxpy", NULL, NULL), 0);
    expect_kept_and_converted(dir, "record");
    every_reader_accepts(dir, "record");

    /* converted by the library's helper process at exit, no record */
    char prog[4096], tool[4200], output[4200];
    scratch_path(dir, sizeof dir, "kept-library");
    prog_path(prog, sizeof prog, "example_saxpy");
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace.so", OFFTRACE_LIB_DIR);
    snprintf(output, sizeof output, "OFFTRACE_OUTPUT=%s", dir);
    run_result r;
    cr_assert_eq(run_command((char *[]){prog, NULL}, (char *[]){tool, output, keep, NULL}, NULL, &r), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    expect_kept_and_converted(dir, "the library");
    every_reader_accepts(dir, "the library");

    /* converted by `offtrace convert --keep-raw` of a recording left for it */
    char claimed[] = "OFFTRACE_OUTPUT_CLAIMED=1";
    scratch_path(dir, sizeof dir, "kept-convert");
    cr_assert_eq(mkdir(dir, 0777), 0);
    snprintf(output, sizeof output, "OFFTRACE_OUTPUT=%s", dir);
    cr_assert_eq(run_command((char *[]){prog, NULL}, (char *[]){tool, output, claimed, NULL}, NULL, &r), 0);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0);
    cr_expect_eq(WEXITSTATUS(r.status), 1, "an unconverted recording was read: %s", r.err);
    cr_expect(one_line(r.err) && strstr(r.err, "run: offtrace convert"), "%s", r.err);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "convert", "--keep-raw", dir, NULL), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    expect_kept_and_converted(dir, "convert --keep-raw");
    every_reader_accepts(dir, "convert --keep-raw");
    converted_again_says(dir, NULL, "convert --keep-raw");
}

/* A kept raw/ converted again is as complete as the first conversion said:
 * a finished recording's archive is not called partial, and a crashed
 * program's keeps its reason (it was "converted after the program ended
 * without finishing its trace" for both). */
Test(cli, converting_kept_raw_records_again_keeps_what_the_archive_said)
{
    char dir[4096], keep[] = "OFFTRACE_KEEP_RAW=1";
    scratch_path(dir, sizeof dir, "again-finished");
    cr_assert_eq(record_program(dir, "--host-only", (char *[]){keep, NULL}, "example_saxpy", NULL, NULL), 0);
    converted_again_says(dir, NULL, "a finished recording");
    converted_again_says(dir, NULL, "a finished recording, the second time");

    scratch_path(dir, sizeof dir, "again-crashed");
    char *args[] = {"segv", "300", NULL};
    cr_assert_eq(record_program(dir, NULL, (char *[]){keep, NULL}, "live_phases", args, NULL), -1);
    converted_again_says(dir, "the program was killed by SIGSEGV", "a crashed program");

    /* raw/ kept before the status said how its conversion ended: partial, as before */
    char status[4200];
    snprintf(status, sizeof status, "%s/raw/status", dir);
    FILE *f = fopen(status, "w");
    cr_assert_not_null(f);
    fputs("converted", f);
    fclose(f);
    converted_again_says(dir, "converted after the program ended without finishing its trace", "an older kept raw/");
}

/* ---- a user's own program (issue 12) ---- */

/* The number of lines of \p text that begin with \p prefix. */
static int lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        n += !strncmp(line, prefix, strlen(prefix));
    return n;
}

/* plain_offload is built as Debian's clang-19 builds a user's program: no
 * rpath to LLVM's libraries, so the loader cannot start it. record says so
 * once, with the loader's words and the fix, leaves the loader's own line
 * on stderr as it was, and passes on 127; the fix it names works. */
Test(cli, a_program_the_loader_cannot_start_is_named_with_the_fix)
{
    char dir[4096], prog[4096], no_path[] = "LD_LIBRARY_PATH=";
    scratch_path(dir, sizeof dir, "unloadable");
    prog_path(prog, sizeof prog, "plain_offload");
    run_result r;
    cr_assert_eq(run_command((char *[]){prog, NULL}, (char *[]){no_path, NULL}, NULL, &r), 0);
    int starts = WIFEXITED(r.status) && WEXITSTATUS(r.status) != 127;
    run_free(&r);
    if (starts) /* a system whose loader finds LLVM's libraries by itself (ld.so.conf) */
        cr_skip("plain_offload starts without an rpath here");
    cr_assert_eq(run_command((char *[]){cli, "record", "-o", dir, "--", prog, NULL}, (char *[]){no_path, NULL},
                             NULL, &r), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127, "status %#x", r.status);
    cr_expect(strstr(r.err, "plain_offload: error while loading shared libraries: "), "the loader's line is gone: %s",
              r.err);
    cr_expect(!strstr(r.err, "is it an OpenMP offload program"), "the program was blamed: %s", r.err);
    /* the line that says where it records, then the one that says why nothing was recorded */
    cr_expect_eq(lines_starting(r.err, "offtrace:"), 2, "%s", r.err);
    cr_expect(!strncmp(r.err, "offtrace: recording ", 20), "%s", r.err);
    const char *said = strstr(r.err, "offtrace: no trace: the dynamic loader could not start");
    cr_assert(said, "%s", r.err);
    cr_expect(strstr(said, "cannot open shared object file") && strstr(said, "-Wl,-rpath,"), "%s", said);
    const char *fix = strstr(said, "LD_LIBRARY_PATH=");
    cr_assert(fix, "%s", said);
    char setting[4200];
    snprintf(setting, sizeof setting, "%.*s", (int)strcspn(fix, " ,;\n"), fix);
    run_free(&r);
    struct stat st;
    cr_expect_neq(stat(dir, &st), 0, "an empty output directory was left behind");

    /* the fix it named */
    cr_assert_eq(run_command((char *[]){cli, "record", "-o", dir, "--", prog, NULL}, (char *[]){setting, NULL},
                             NULL, &r), 0);
    cr_expect_eq(r.status, 0, "with %s: %s", setting, r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_assert_eq(f.target, 4);
}

/* A program that exits 127 on its own, with every library found, is not
 * blamed on the loader. */
Test(cli, a_program_that_exits_127_itself_is_not_blamed_on_the_loader)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "exit127");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", "sh", "-c", "exit 127", NULL), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127, "status %#x", r.status);
    cr_expect(!strstr(r.err, "dynamic loader"), "%s", r.err);
    cr_expect(strstr(r.err, "never started the OpenMP runtime"), "%s", r.err);
    run_free(&r);
}

/* Without -g every site is function+offset: the summary and the report say
 * once how to get source lines; with -g neither says it. */
Test(cli, sites_without_source_lines_come_with_how_to_get_them)
{
    char dir[4096], prog[4096], setting[4200];
    scratch_path(dir, sizeof dir, "no-lines");
    prog_path(prog, sizeof prog, "plain_offload");
    snprintf(setting, sizeof setting, "LD_LIBRARY_PATH=%s", OFFTRACE_LLVM_LIBDIR);
    run_result r;
    cr_assert_eq(run_command((char *[]){cli, "record", "-o", dir, "--", prog, NULL}, (char *[]){setting, NULL},
                             NULL, &r), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(lines_starting(r.err, "offtrace: no source lines  4 of 4 sites are code addresses (main+0x"), 1,
                 "%s", r.err);
    cr_expect(strstr(r.err, "-g, or -gline-tables-only"), "%s", r.err);
    run_free(&r);
    const char *verbs[][2] = {{"info", "offtrace: no source lines"}, {"report", "note: 4 of 4 sites are code"}};
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(run_offtrace(&r, verbs[i][0], dir, NULL), 0);
        cr_expect_eq(r.status, 0, "%s", r.err);
        cr_expect_eq(lines_starting(r.out, verbs[i][1]), 1, "%s: %s", verbs[i][0], r.out);
        cr_expect(strstr(r.out, "-gline-tables-only"), "%s: %s", verbs[i][0], r.out);
        run_free(&r);
    }

    scratch_path(dir, sizeof dir, "with-lines");
    char *summary = NULL;
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_saxpy", NULL, &summary), 0);
    cr_expect(!strstr(summary, "source lines"), "%s", summary);
    free(summary);
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_expect(strstr(r.out, "saxpy.c:24") && !strstr(r.out, "code addresses"), "%s", r.out);
    run_free(&r);
}

/* ---- CLI nits (issue 12) ---- */

Test(cli, help_lists_version_and_version_answers)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "--help", NULL), 0);
    cr_expect(strstr(r.out, "--version"), "%s", r.out);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "--version", NULL), 0);
    cr_expect_eq(r.status, 0);
    cr_expect(!strncmp(r.out, "offtrace ", 9) && r.out[9] >= '0' && r.out[9] <= '9' && one_line(r.out), "%s", r.out);
    run_free(&r);
}

/* `record` ends with "archive DIR/traces.otf2": every verb takes that as DIR. */
Test(cli, every_verb_takes_the_anchor_file_for_its_directory)
{
    char dir[4096], anchor[4200];
    scratch_path(dir, sizeof dir, "anchor");
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_saxpy", NULL, NULL), 0);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    every_reader_accepts(anchor, "DIR/traces.otf2");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "convert", anchor, NULL), 0);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "converted already"), "%s", r.err);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "info", anchor, NULL), 0);
    cr_expect(strstr(r.out, "offtrace: kernels"), "%s", r.out);
    run_free(&r);
}

/* `view DIR` without -o writes DIR.html beside DIR (never inside it) and
 * says where; DIR/ and DIR/traces.otf2 name the same file. */
Test(cli, view_without_output_writes_html_beside_the_archive)
{
    char verbs[16][16];
    if (!has_verb(verbs, listed_verbs(verbs, 16), "view"))
        cr_skip("this build has no view");
    char dir[4096], html[4200], forms[3][4200];
    scratch_path(dir, sizeof dir, "view-default");
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_saxpy", NULL, NULL), 0);
    snprintf(html, sizeof html, "%s.html", dir);
    snprintf(forms[0], sizeof forms[0], "%s", dir);
    snprintf(forms[1], sizeof forms[1], "%s/", dir);
    snprintf(forms[2], sizeof forms[2], "%s/traces.otf2", dir);
    for (int i = 0; i < 3; i++) {
        unlink(html);
        run_result r;
        cr_assert_eq(run_offtrace(&r, "view", forms[i], NULL), 0);
        cr_expect_eq(r.status, 0, "view %s: %s", forms[i], r.err);
        char said[4300];
        snprintf(said, sizeof said, "offtrace: wrote %s:", html);
        cr_expect(strstr(r.out, said), "view %s: %s", forms[i], r.out);
        run_free(&r);
        size_t n = 0;
        char *page = read_whole_file(html, &n);
        cr_expect(page && strstr(page, "<html") && n > 1000, "view %s wrote no page at %s", forms[i], html);
        free(page);
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        cr_expect(!strstr(e->d_name, "html"), "view wrote %s inside the archive", e->d_name);
    closedir(d);
}

/* A reader that closes the pipe early (`| head`) ends every verb writing to
 * stdout as it ends cat: by SIGPIPE, without a word. */
Test(cli, a_closed_pipe_ends_every_stdout_verb_without_a_word)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "pipe-all");
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_saxpy", NULL, NULL), 0);
    char verbs[16][16];
    int n = listed_verbs(verbs, 16);
    const char *calls[][4] = {{"info", dir, NULL}, {"report", dir, NULL}, {"report", "--json", dir, NULL},
                              {"export", "-o", "-", dir}};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        if (!has_verb(verbs, n, calls[i][0]))
            continue;
        int out[2], err[2];
        cr_assert_eq(pipe(out), 0);
        cr_assert_eq(pipe(err), 0);
        close(out[0]);
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGPIPE, SIG_DFL);
            dup2(out[1], 1);
            dup2(err[1], 2);
            execl(cli, cli, calls[i][0], calls[i][1], calls[i][2], calls[i][3], (char *)NULL);
            _exit(127);
        }
        close(out[1]);
        close(err[1]);
        char message[512] = "";
        ssize_t got = read(err[0], message, sizeof message - 1);
        message[got > 0 ? got : 0] = '\0';
        close(err[0]);
        int status;
        cr_assert_eq(waitpid(pid, &status, 0), pid);
        cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE, "%s %s: status %#x", calls[i][0],
                  calls[i][1], status);
        cr_expect_str_empty(message, "%s %s said: %s", calls[i][0], calls[i][1], message);
    }
}

/* An exec that fails with ENOENT on a file that is there: its interpreter
 * is missing (a program built for another system, a script's #! line), and
 * record says which instead of "No such file or directory". */
Test(cli, a_program_whose_interpreter_is_missing_is_named)
{
    char prog[4096], foreign[4096], script[4096], dir[4096];
    prog_path(prog, sizeof prog, "exit_code");
    scratch_path(foreign, sizeof foreign, "foreign-loader");
    scratch_path(script, sizeof script, "foreign-script");
    scratch_path(dir, sizeof dir, "foreign");
    size_t n = 0;
    char *image = read_whole_file(prog, &n);
    cr_assert_not_null(image);
    static const char loader[] = "/lib64/ld-linux-x86-64.so.2";
    char *at = memmem(image, n, loader, sizeof loader - 1);
    if (!at)
        cr_skip("exit_code does not ask for %s", loader);
    at[sizeof loader - 2] = '9'; /* /lib64/ld-linux-x86-64.so.9 */
    FILE *f = fopen(foreign, "w");
    cr_assert_eq(fwrite(image, 1, n, f), n);
    fclose(f);
    free(image);
    chmod(foreign, 0755);
    f = fopen(script, "w");
    fputs("#!/nonexistent/offtrace-sh\necho hi\n", f);
    fclose(f);
    chmod(script, 0755);
    const char *cases[][2] = {{foreign, "its dynamic loader /lib64/ld-linux-x86-64.so.9 does not exist"},
                              {script, "its interpreter /nonexistent/offtrace-sh (its #! line) does not exist"}};
    for (int i = 0; i < 2; i++) {
        run_result r;
        cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", cases[i][0], NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127, "status %#x", r.status);
        /* record's first line says what it was starting; the cause is one line after it */
        const char *cause = strchr(r.err, '\n');
        cr_expect(!strncmp(r.err, "offtrace: recording ", 20) && cause && one_line(cause + 1) &&
                      strstr(cause, cases[i][1]), "%s", r.err);
        run_free(&r);
    }
}

/* OTF2 saves every anchor file with gethostid() (for the trace id); glibc's
 * resolves the host name (nsswitch, /etc/hosts, DNS) where /etc/hostid is
 * missing, seconds on a node with a slow resolver. The CLI's own
 * (host/cli/hostid.c) must be the one OTF2's call binds to: the dynamic
 * loader names the object each symbol binds to (LD_DEBUG=bindings). */
Test(cli, the_anchor_files_host_id_does_not_ask_the_resolver)
{
    char dir[4096], keep[] = "OFFTRACE_KEEP_RAW=1", bindings[] = "LD_DEBUG=bindings";
    scratch_path(dir, sizeof dir, "hostid");
    cr_assert_eq(record_program(dir, "--host-only", (char *[]){keep, NULL}, "example_saxpy", NULL, NULL), 0);
    run_result r;
    cr_assert_eq(run_command((char *[]){cli, "convert", "--force", dir, NULL}, (char *[]){bindings, NULL}, NULL, &r),
                 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    const char *line = strstr(r.err, "normal symbol `gethostid'");
    cr_assert(line, "OTF2 never asked for the host id: %.2000s", r.err);
    const char *start = line;
    while (start > r.err && start[-1] != '\n')
        start--;
    char binding[512];
    snprintf(binding, sizeof binding, "%.*s", (int)(line - start), start);
    cr_assert(strstr(binding, "libopen-trace-format2") && strstr(binding, "bin/offtrace "),
              "gethostid bound elsewhere: %s", binding);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
}

/* The symbolizer's code is in lib/libofftrace-symbolize.so, the one library
 * linked against libdw and libelf (issue 18, seventh round): a verb that
 * does not convert loads neither (the loader's own log, LD_DEBUG=files),
 * and a conversion loads them with it. */
Test(cli, only_a_conversion_loads_the_symbolizer_and_libdw)
{
    char dir[4096], keep[] = "OFFTRACE_KEEP_RAW=1", files[] = "LD_DEBUG=files";
    scratch_path(dir, sizeof dir, "symbolizer-loaded");
    cr_assert_eq(record_program(dir, "--host-only", (char *[]){keep, NULL}, "example_saxpy", NULL, NULL), 0);
    run_result r;
    cr_assert_eq(run_command((char *[]){cli, "info", dir, NULL}, (char *[]){files, NULL}, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_expect(strstr(r.err, "libopen-trace-format2"), "LD_DEBUG=files logged nothing: %.2000s", r.err);
    cr_expect(!strstr(r.err, "libdw.so") && !strstr(r.err, "libelf.so") && !strstr(r.err, "libofftrace-symbolize"),
              "info loaded the symbolizer: %.3000s", r.err);
    run_free(&r);
    cr_assert_eq(run_command((char *[]){cli, "convert", "--force", dir, NULL}, (char *[]){files, NULL}, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_expect(strstr(r.err, "libofftrace-symbolize.so") && strstr(r.err, "libdw.so"),
              "convert did not load the symbolizer: %.3000s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
    cr_expect(f.target >= 1);
}

/* An installation without the symbolizer's library: the conversion says
 * so in one line and fails, and the recording stays for a later convert
 * (the archive would otherwise lose its source lines without a word). The
 * CLI is copied into a tree whose lib/ lacks the library. */
Test(cli, a_missing_symbolizer_is_said_and_the_recording_kept)
{
    char dir[4096], tree[4096], bin[4200], copy[4300], keep[] = "OFFTRACE_KEEP_RAW=1", raw[4200];
    scratch_path(dir, sizeof dir, "symbolizer-missing");
    scratch_path(tree, sizeof tree, "symbolizer-missing-tree");
    cr_assert_eq(record_program(dir, "--host-only", (char *[]){keep, NULL}, "example_saxpy", NULL, NULL), 0);
    snprintf(bin, sizeof bin, "%s/bin", tree);
    snprintf(copy, sizeof copy, "%s/lib", tree);
    cr_assert(mkdir(tree, 0777) == 0 && mkdir(bin, 0777) == 0 && mkdir(copy, 0777) == 0);
    snprintf(copy, sizeof copy, "%s/offtrace", bin);
    run_result r;
    cr_assert_eq(run_command((char *[]){"cp", cli, copy, NULL}, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    cr_assert_eq(run_command((char *[]){copy, "convert", "--force", dir, NULL}, NULL, NULL, &r), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0, "status %#x", r.status);
    cr_expect(one_line(r.err) && strstr(r.err, "cannot load the symbolizer") &&
                  strstr(r.err, "libofftrace-symbolize.so"), "%s", r.err);
    run_free(&r);
    snprintf(raw, sizeof raw, "%s/raw", dir);
    struct stat st;
    cr_expect(stat(raw, &st) == 0 && S_ISDIR(st.st_mode), "the recording was not kept");
    /* the whole installation converts it */
    cr_assert_eq(run_command((char *[]){cli, "convert", "--force", dir, NULL}, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    archive_facts f;
    archive_is_valid(dir, &f);
}

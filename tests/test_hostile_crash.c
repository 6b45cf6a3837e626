/*
 * Issue 10, part "crash/exit": the conversion is out of the traced program's
 * way, and the crash path never changes how a program dies.
 *
 * Most cases run a program without the CLI, as a user who sets
 * OMP_TOOL_LIBRARIES does (the collector preloaded, so that offtrace has
 * nothing else to say), compared with the same program untraced: same
 * stdout, same stderr once offtrace's own lines are removed, same exit status
 * or signal; and offtrace adds at most one line.
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
#include "check/compare.h"

/* A crash handler that spins (case 24) is caught by this timeout. */
TestSuite(hostile_crash, .timeout = 60);

/* Run bin/<program> untraced, then traced without the CLI with the library
 * at <lib_dir>/libofftrace.so into <dir>, plus \p extra_env (may be NULL). */
static void run_without_cli(const char *dir, const char *lib_dir, const char *extra_env, const char *program,
                            char *const args[], compared_runs *c)
{
    char prog[4096], tool[4200], preload[4200], output[4200], extra[4200] = "OFFTRACE_UNUSED=";
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace.so", lib_dir);
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s/libofftrace-device.so", OFFTRACE_LIB_DIR);
    snprintf(output, sizeof output, "OFFTRACE_OUTPUT=%s", dir);
    if (extra_env)
        snprintf(extra, sizeof extra, "%s", extra_env);
    char *argv[16] = {prog};
    for (int i = 0; args && args[i] && i < 14; i++)
        argv[i + 1] = args[i];
    char *env[] = {tool, preload, output, extra, NULL};
    memset(c, 0, sizeof *c);
    cr_assert_eq(run_command(argv, NULL, NULL, &c->plain), 0);
    cr_assert_eq(run_command(argv, env, NULL, &c->traced), 0);
}

/* The lines offtrace added to the program's stderr. */
static int offtrace_lines(const char *err, char *first, size_t size)
{
    int n = 0;
    first[0] = '\0';
    for (const char *line = err; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (!strncmp(line, "offtrace", 8) && n++ == 0)
            snprintf(first, size, "%.*s", (int)len, line);
        line += len + (end != NULL);
    }
    return n;
}

static void expect_unchanged(const compared_runs *c)
{
    const char *why = compare_difference(c);
    cr_assert(!why, "%s", why);
}

/* A valid archive with \p targets target regions; *partial: offtrace info's PARTIAL line (malloc'd) or NULL. */
static void expect_archive(const char *dir, uint64_t targets, char **partial)
{
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "%s", message);
    free(message);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_assert_eq(f.target, targets);
    run_result info;
    cr_assert_eq(run_offtrace(&info, "info", dir, NULL), 0);
    cr_assert_eq(info.status, 0, "%s", info.err);
    const char *line = strstr(info.out, "PARTIAL");
    *partial = line ? strndup(line, strcspn(line, "\n")) : NULL;
    run_free(&info);
}

static int exists(const char *dir, const char *name)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0;
}

static void expect_crash_converted(const char *program, uint64_t targets, int signal_number, const char *reason)
{
    char dir[4096], line[1024], *partial = NULL;
    scratch_path(dir, sizeof dir, program);
    compared_runs c;
    run_without_cli(dir, OFFTRACE_LIB_DIR, NULL, program, NULL, &c);
    expect_unchanged(&c);
    cr_assert(WIFSIGNALED(c.traced.status) && WTERMSIG(c.traced.status) == signal_number, "status %#x",
              c.traced.status);
    cr_assert_eq(offtrace_lines(c.traced.err, line, sizeof line), 1, "%s", c.traced.err);
    cr_assert(strstr(line, reason) && strstr(line, "traces.otf2"), "%s", line);
    expect_archive(dir, targets, &partial);
    cr_assert(partial && strstr(partial, reason), "%s", partial ? partial : "not PARTIAL");
    free(partial);
    cr_assert(!exists(dir, "raw"));
    compare_free(&c);
}

/* Case 22: glibc aborts inside free() holding the arena lock; the handler
 * must neither fork (fork handlers, malloc) nor allocate. */
Test(hostile_crash, a_heap_corruption_abort_leaves_an_archive_and_one_line)
{
    expect_crash_converted("hostile_mallocabort", 10, SIGABRT, "killed by SIGABRT");
}

/* Case 23: the handler needs a stack of its own. */
Test(hostile_crash, a_stack_overflow_leaves_an_archive_and_one_line)
{
    expect_crash_converted("hostile_stackoverflow", 10, SIGSEGV, "killed by SIGSEGV");
}

/* Case 24: with SIGCHLD ignored, children are reaped by the kernel and
 * waitpid fails with ECHILD; the program must still die as it would. */
Test(hostile_crash, a_crash_with_sigchld_ignored_dies_as_it_would)
{
    expect_crash_converted("hostile_sigchld_crash", 10, SIGSEGV, "killed by SIGSEGV");
}

/* Case 14: a forked child (no exec) crashes while its parent records. */
Test(hostile_crash, a_forked_child_crash_leaves_the_parents_recording_alone)
{
    char dir[4096], *partial = NULL;
    scratch_path(dir, sizeof dir, "forkcrash");
    compared_runs c;
    run_without_cli(dir, OFFTRACE_LIB_DIR, NULL, "hostile_forkcrash", NULL, &c);
    expect_unchanged(&c);
    cr_assert(!strstr(c.traced.err, "killed"), "%s", c.traced.err);
    expect_archive(dir, 250, &partial);
    cr_assert_null(partial, "%s", partial);
    compare_free(&c);
}

/* Cases 1-3 and 15: the converter ran in the program's atexit, so its crash
 * (overlapping kernels, fixed in the converter) killed the program, and the
 * whole trace was in the program's memory at exit. Now it runs in a helper
 * process: whatever it does, the program ends as it would, and either the
 * archive is right or one line says how to make it. */
Test(hostile_crash, the_conversion_at_exit_cannot_change_the_program)
{
    char dir[4096], line[1024], *partial = NULL;
    scratch_path(dir, sizeof dir, "overlap");
    compared_runs c;
    run_without_cli(dir, OFFTRACE_LIB_DIR, NULL, "hostile_overlap", NULL, &c);
    expect_unchanged(&c);
    cr_assert(WIFEXITED(c.traced.status) && WEXITSTATUS(c.traced.status) == 0);
    if (exists(dir, "traces.otf2")) {
        expect_archive(dir, 40, &partial); /* two threads, 20 regions each */
        cr_assert_null(partial, "%s", partial);
    } else {
        char command[4200];
        snprintf(command, sizeof command, "offtrace convert %s", dir);
        cr_assert_eq(offtrace_lines(c.traced.err, line, sizeof line), 1, "%s", c.traced.err);
        cr_assert(strstr(line, command), "%s", line);
        cr_assert(exists(dir, "raw/status"));
    }
    compare_free(&c);
}

/* The contract with `offtrace record` (OFFTRACE_OUTPUT_CLAIMED=1): the
 * library ends the recording ("recorded") and leaves the conversion to the
 * CLI, which converts it as complete. */
Test(hostile_crash, under_record_the_program_does_not_convert)
{
    char dir[4096], prog[4096], claimed[] = "OFFTRACE_OUTPUT_CLAIMED=1", output[4200], tool[4200];
    scratch_path(dir, sizeof dir, "claimed");
    cr_assert_eq(mkdir(dir, 0777), 0);
    snprintf(prog, sizeof prog, "%s/hostile_basic", OFFTRACE_BIN_DIR);
    snprintf(output, sizeof output, "OFFTRACE_OUTPUT=%s", dir);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace.so", OFFTRACE_LIB_DIR);
    char *argv[] = {prog, "4", "5", NULL}, *env[] = {tool, output, claimed, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 5, "status %#x: %s", r.status, r.err);
    run_free(&r);
    cr_assert(!exists(dir, "traces.otf2"));
    char status[4200];
    snprintf(status, sizeof status, "%s/raw/status", dir);
    char *word = read_whole_file(status, NULL);
    cr_assert(word && !strcmp(word, "recorded"), "raw/status: %s", word ? word : "missing");
    free(word);
    cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char *partial = NULL;
    expect_archive(dir, 4, &partial);
    cr_assert_null(partial, "%s", partial);

    /* and the whole way through record */
    char *summary = NULL;
    scratch_path(dir, sizeof dir, "claimed-record");
    cr_assert_eq(record_program(dir, NULL, NULL, "hostile_basic", (char *[]){"2", "0", NULL}, &summary), 0, "%s",
                 summary);
    cr_assert(!strstr(summary, "PARTIAL"), "%s", summary);
    free(summary);
}

/* A copy of the library with no CLI at ../bin/offtrace: the recording is
 * kept, and one line says how to convert it, at exit and after a crash. */
Test(hostile_crash, without_a_cli_one_line_says_how_to_convert)
{
    char lib_dir[4096], cmd[8400], dir[4096], line[1024], command[4200], *partial = NULL;
    scratch_path(lib_dir, sizeof lib_dir, "lonely-lib");
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s/libofftrace.so' '%s/'", lib_dir, OFFTRACE_LIB_DIR, lib_dir);
    cr_assert_eq(system(cmd), 0);
    const struct {
        const char *program;
        uint64_t targets;
    } cases[] = {{"hostile_basic", 7}, {"hostile_stackoverflow", 10}};
    for (int i = 0; i < 2; i++) {
        scratch_path(dir, sizeof dir, "lonely");
        compared_runs c;
        run_without_cli(dir, lib_dir, NULL, cases[i].program, i == 0 ? (char *[]){"7", NULL} : NULL, &c);
        expect_unchanged(&c);
        snprintf(command, sizeof command, "`offtrace convert %s`", dir);
        cr_assert_eq(offtrace_lines(c.traced.err, line, sizeof line), 1, "%s", c.traced.err);
        cr_assert(strstr(line, command), "%s", line);
        cr_assert(!exists(dir, "traces.otf2") && exists(dir, "raw"));
        run_result r;
        cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
        cr_assert_eq(r.status, 0, "%s", r.err);
        run_free(&r);
        expect_archive(dir, cases[i].targets, &partial);
        cr_assert_eq(partial != NULL, i == 1, "%s", partial ? partial : "complete");
        free(partial);
        compare_free(&c);
    }
}

/* What the helper process gets, seen by a stand-in for the CLI next to a
 * copy of the library, which notes its arguments, environment and standard
 * input and output, then dies: the program must not notice. */
Test(hostile_crash, the_converter_gets_nothing_of_the_program_and_its_death_changes_nothing)
{
    char root[4096], cmd[16800], dir[4096], probe[4200], lib_dir[4200], line[1024];
    scratch_path(root, sizeof root, "probe-cli");
    snprintf(lib_dir, sizeof lib_dir, "%s/lib", root);
    snprintf(probe, sizeof probe, "%s/probe.txt", root);
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/lib' '%s/bin' && cp '%s/libofftrace.so' '%s/lib/' && "
             "printf '#!/bin/sh\\necho \"args: $*\" > \"%s\"\\n"
             "env | grep -E \"^(OMP_TOOL_LIBRARIES|LD_PRELOAD)=\" >> \"%s\"\\n"
             "echo \"stdin: $(readlink /proc/$$/fd/0)\" >> \"%s\"\\n"
             "echo \"stdout: $(readlink /proc/$$/fd/1)\" >> \"%s\"\\n"
             "kill -SEGV $$\\n' > '%s/bin/offtrace' && chmod +x '%s/bin/offtrace'",
             root, root, OFFTRACE_LIB_DIR, root, probe, probe, probe, probe, root, root);
    cr_assert_eq(system(cmd), 0);
    scratch_path(dir, sizeof dir, "probed");
    compared_runs c;
    run_without_cli(dir, lib_dir, NULL, "hostile_basic", (char *[]){"3", NULL}, &c);
    expect_unchanged(&c);
    cr_assert_eq(offtrace_lines(c.traced.err, line, sizeof line), 1, "%s", c.traced.err);
    cr_assert(strstr(line, "converter died") && strstr(line, "offtrace convert"), "%s", line);
    char *seen = read_whole_file(probe, NULL), expected[4400];
    cr_assert_not_null(seen, "the converter did not run");
    snprintf(expected, sizeof expected, "args: convert --force --quiet %s\nstdin: /dev/null\nstdout: /dev/null\n", dir);
    cr_assert_str_eq(seen, expected);
    free(seen);
    cr_assert(exists(dir, "raw"));
    compare_free(&c);
}

/*
 * Issue 10, part "children without the CLI": a program traced by setting
 * OMP_TOOL_LIBRARIES itself (no `offtrace record`) that starts OpenMP
 * children (system(), posix_spawn) or execs itself. The children recognise
 * their traced ancestor, are not traced, and say nothing on their own
 * stderr; the traced process says once, at its exit, which were not
 * traced. Compared with the same program untraced.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/compare.h"

TestSuite(hostile_children, .timeout = 60);

/* A fresh, empty directory to run in, so that every directory a traced
 * process creates by default (offtrace-PROG-PID) is seen. */
static void enter_fresh_dir(const char *name, char *path, size_t size)
{
    scratch_path(path, (unsigned)size, name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(mkdir(path, 0777), 0);
    cr_assert_eq(chdir(path), 0);
}

/* The entries of the current directory, one "name\n" each, sorted. */
static char *entries_here(int *count)
{
    struct dirent **list;
    int n = scandir(".", &list, NULL, alphasort);
    cr_assert_geq(n, 0);
    char *names = calloc(1, 1);
    size_t used = 0;
    *count = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
            size_t len = strlen(list[i]->d_name);
            names = realloc(names, used + len + 2);
            memcpy(names + used, list[i]->d_name, len);
            used += len;
            names[used++] = '\n';
            names[used] = '\0';
            (*count)++;
        }
        free(list[i]);
    }
    free(list);
    return names;
}

/* bin/<program> untraced, then traced without the CLI (collector preloaded,
 * so that offtrace has nothing else to say), plus \p output_env (may be NULL). */
static void run_without_cli(const char *output_env, const char *program, char *const args[], compared_runs *c)
{
    char prog[4096], tool[4200], preload[4200];
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace.so", OFFTRACE_LIB_DIR);
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s/libofftrace-device.so", OFFTRACE_LIB_DIR);
    char *argv[16] = {prog};
    for (int i = 0; args && args[i] && i < 14; i++)
        argv[i + 1] = args[i];
    char *env[] = {tool, preload, (char *)output_env, NULL};
    memset(c, 0, sizeof *c);
    cr_assert_eq(run_command(argv, NULL, NULL, &c->plain), 0);
    cr_assert_eq(run_command(argv, env, NULL, &c->traced), 0);
}

/* How many lines of \p err start with "offtrace"; and whether every one of
 * them comes after the last of the program's own lines (the children's lines
 * all come before the parent's exit, so a line among them is a child's). */
static int offtrace_lines_at_end(const char *err, int *all_after)
{
    int n = 0, program_line_after = 0;
    for (const char *line = err; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (!strncmp(line, "offtrace", 8))
            n++;
        else if (n)
            program_line_after = 1;
        line += len + (end != NULL);
    }
    *all_after = !program_line_after;
    return n;
}

static int lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The two OpenMP children of bin/hostile_sys (by system() and posix_spawn)
 * leave the program's stderr as it is untraced; offtrace's only lines are
 * the parent's: the children said once, and where the trace is. */
static void expect_children_left_alone(const compared_runs *c)
{
    const char *why = compare_difference(c);
    cr_assert(!why, "%s", why);
    int all_after;
    int n = offtrace_lines_at_end(c->traced.err, &all_after);
    cr_assert(all_after, "an offtrace line among the program's own:\n%s", c->traced.err);
    cr_assert_eq(lines_with(c->traced.err, "offtrace: 2 other processes of the program used OpenMP and were not "
                                           "traced (one process per recording): "), 1, "%s", c->traced.err);
    cr_assert_eq(lines_with(c->traced.err, "hostile_basic)"), 2, "%s", c->traced.err);
    cr_assert_eq(lines_with(c->traced.err, "offtrace: trace written to "), 1, "%s", c->traced.err);
    cr_assert_eq(n, 2, "%s", c->traced.err);
}

static void expect_archive(const char *dir, uint64_t targets)
{
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "%s", message);
    free(message);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_assert_eq(f.target, targets);
}

static void sys_args(char *cmd, size_t size, char *basic, size_t basic_size, char **args)
{
    snprintf(basic, basic_size, "%s/hostile_basic", OFFTRACE_BIN_DIR);
    snprintf(cmd, size, "%s 3 5", basic);
    args[0] = cmd;
    args[1] = basic;
    args[2] = "4";
    args[3] = NULL;
}

/* #17 without the CLI, OFFTRACE_OUTPUT set: no child writes <dir>.1, .2. */
Test(hostile_children, children_of_a_program_traced_into_a_named_directory_are_left_alone)
{
    char here[4096], cmd[4200], basic[4200], output[4200], *args[4];
    enter_fresh_dir("children-named", here, sizeof here);
    sys_args(cmd, sizeof cmd, basic, sizeof basic, args);
    snprintf(output, sizeof output, "OFFTRACE_OUTPUT=%s/rec", here);
    compared_runs c;
    run_without_cli(output, "hostile_sys", args, &c);
    expect_children_left_alone(&c);
    compare_free(&c);
    int count;
    char *names = entries_here(&count);
    cr_assert_str_eq(names, "rec\n", "the children made directories of their own");
    free(names);
    struct stat st;
    cr_assert(stat("rec/untraced-processes", &st) != 0, "the note was said, so it is removed");
    expect_archive("rec", 20);
}

/* #17 without the CLI, OFFTRACE_OUTPUT unset: no child writes an
 * offtrace-hostile_basic-PID of its own. */
Test(hostile_children, children_of_a_program_traced_by_default_name_are_left_alone)
{
    char here[4096], cmd[4200], basic[4200], *args[4];
    enter_fresh_dir("children-default", here, sizeof here);
    sys_args(cmd, sizeof cmd, basic, sizeof basic, args);
    compared_runs c;
    run_without_cli(NULL, "hostile_sys", args, &c);
    expect_children_left_alone(&c);
    compare_free(&c);
    int count;
    char *names = entries_here(&count);
    cr_assert_eq(count, 1, "the children made directories of their own:\n%s", names);
    cr_assert(!strncmp(names, "offtrace-hostile_sys-", 21), "%s", names);
    names[strlen(names) - 1] = '\0';
    expect_archive(names, 20);
    free(names);
}

/* #18 without the CLI: the image after an exec of itself (same pid) is not
 * traced into <dir>.1; one line says so and how to convert the first. */
Test(hostile_children, an_exec_of_itself_is_one_line_and_no_second_directory)
{
    char here[4096], output[4200];
    enter_fresh_dir("children-selfexec", here, sizeof here);
    snprintf(output, sizeof output, "OFFTRACE_OUTPUT=%s/rec", here);
    compared_runs c;
    run_without_cli(output, "hostile_selfexec", NULL, &c);
    const char *why = compare_difference(&c);
    cr_assert(!why, "%s", why);
    int all_after;
    cr_assert_eq(offtrace_lines_at_end(c.traced.err, &all_after), 1, "%s", c.traced.err);
    cr_assert_eq(lines_with(c.traced.err, "offtrace: the program replaced itself by exec; only the image before "
                                          "the exec is traced"), 1, "%s", c.traced.err);
    compare_free(&c);
    int count;
    char *names = entries_here(&count);
    cr_assert_str_eq(names, "rec\n");
    free(names);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "convert", "rec", NULL), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    expect_archive("rec", 30);
}

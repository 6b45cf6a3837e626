#define _GNU_SOURCE
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

char *without_offtrace_lines(const char *text)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1), *o = out;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, "offtrace", 8) != 0) {
            memcpy(o, line, len);
            o += len;
        }
        line += len;
    }
    *o = '\0';
    return out;
}

int compare_runs(const char *dir, char *const record_options[], char *const env[], const char *program,
                 char *const args[], compared_runs *c)
{
    char cli[4096], prog[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *plain[64] = {prog}, *traced[80] = {cli, "record", "-o", (char *)dir};
    int np = 1, nt = 4;
    for (int i = 0; record_options && record_options[i] && nt < 60; i++)
        traced[nt++] = record_options[i];
    traced[nt++] = "--";
    traced[nt++] = prog;
    for (int i = 0; args && args[i] && np < 60; i++) {
        plain[np++] = args[i];
        traced[nt++] = args[i];
    }
    plain[np] = traced[nt] = NULL;
    memset(c, 0, sizeof *c);
    if (run_command(plain, env, NULL, &c->plain) != 0)
        return -1;
    return run_command(traced, env, NULL, &c->traced);
}

static void describe_status(int status, char *buf, size_t size)
{
    if (WIFEXITED(status))
        snprintf(buf, size, "exit %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, size, "signal %d", WTERMSIG(status));
    else
        snprintf(buf, size, "status %#x", status);
}

const char *compare_difference(const compared_runs *c)
{
    static char why[8192];
    char a[32], b[32];
    describe_status(c->plain.status, a, sizeof a);
    describe_status(c->traced.status, b, sizeof b);
    if (strcmp(a, b)) {
        snprintf(why, sizeof why, "untraced %s, traced %s; traced stderr: %.3000s", a, b, c->traced.err);
        return why;
    }
    if (strcmp(c->plain.out, c->traced.out)) {
        snprintf(why, sizeof why, "stdout differs:\n--- untraced\n%.2000s\n--- traced\n%.2000s", c->plain.out,
                 c->traced.out);
        return why;
    }
    char *err = without_offtrace_lines(c->traced.err);
    int same = strcmp(c->plain.err, err) == 0;
    if (!same)
        snprintf(why, sizeof why, "stderr differs:\n--- untraced\n%.2000s\n--- traced (offtrace lines removed)\n%.2000s",
                 c->plain.err, err);
    free(err);
    return same ? NULL : why;
}

void compare_free(compared_runs *c)
{
    run_free(&c->plain);
    run_free(&c->traced);
}

#define _GNU_SOURCE
#include "run.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *slurp(FILE *f)
{
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    return buf;
}

int run_command(char *const argv[], char *const env[], const char *stdin_text, run_result *r)
{
    FILE *out = tmpfile(), *err = tmpfile(), *in = tmpfile();
    if (!out || !err || !in)
        return -1;
    if (stdin_text)
        fputs(stdin_text, in);
    fflush(in);
    rewind(in);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(in), 0);
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        for (int i = 0; env && env[i]; i++)
            putenv(env[i]);
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    while (waitpid(pid, &r->status, 0) < 0)
        ;
    r->out = slurp(out);
    r->err = slurp(err);
    fclose(out);
    fclose(err);
    fclose(in);
    return 0;
}

void run_free(run_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int run_offtrace_va(run_result *r, const char *verb, va_list args)
{
    char cli[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    char *argv[64] = {cli, (char *)verb};
    int n = 2;
    for (const char *a = verb ? va_arg(args, const char *) : NULL; a; a = va_arg(args, const char *)) {
        if (n == 63)
            return -1;
        argv[n++] = (char *)a;
    }
    argv[n] = NULL;
    return run_command(argv, NULL, NULL, r);
}

int run_offtrace(run_result *r, const char *verb, ...)
{
    va_list ap;
    va_start(ap, verb);
    int rc = run_offtrace_va(r, verb, ap);
    va_end(ap);
    return rc;
}

char *read_whole_file(const char *path, size_t *length)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text) {
        rewind(f);
        if (fread(text, 1, (size_t)n, f) == (size_t)n) {
            text[n] = '\0';
        } else {
            free(text);
            text = NULL;
        }
    }
    fclose(f);
    if (text && length)
        *length = (size_t)n;
    return text;
}

void scratch_path(char *buf, unsigned size, const char *name)
{
    static unsigned counter;
    mkdir(OFFTRACE_TEST_SCRATCH, 0777);
    snprintf(buf, size, "%s/%s-%d-%u", OFFTRACE_TEST_SCRATCH, name, (int)getpid(), counter++);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'.*", buf, buf);
    if (system(cmd) != 0)
        return;
}

int shared_recording(char *dir, size_t size, const char *name, const char *program, char *const args[],
                     char **err)
{
    *err = NULL;
    snprintf(dir, size, "%s/%s-%d", OFFTRACE_TEST_SCRATCH, name, (int)getppid());
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    struct stat st;
    if (stat(anchor, &st) == 0)
        return 0;
    char fresh[4096];
    scratch_path(fresh, sizeof fresh, name);
    if (record_program(fresh, NULL, NULL, program, args, err) != 0)
        return -1;
    free(*err);
    *err = NULL;
    if (rename(fresh, dir) == 0 || stat(anchor, &st) == 0) /* or another runner's child put it there first */
        return 0;
    *err = strdup("cannot rename the recording into place");
    return -1;
}

int otf2_print_check(const char *dir, char **message)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    char *argv[] = {"otf2-print", "--silent", "-Werror", anchor, NULL};
    run_result r;
    if (run_command(argv, NULL, NULL, &r) != 0)
        return -1;
    free(r.out);
    *message = r.err;
    return WIFEXITED(r.status) ? WEXITSTATUS(r.status) : 128 + WTERMSIG(r.status);
}

/* 0 when the command of \p r exited 0, -1 otherwise; its stderr moves to *err when \p err is not NULL.
 * \p r is freed. */
static int exited_ok(run_result *r, char **err)
{
    int ok = WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
    if (err) {
        *err = r->err;
        r->err = NULL;
    }
    run_free(r);
    return ok ? 0 : -1;
}

int record_program(const char *dir, const char *option, char *const env[], const char *program,
                   char *const args[], char **err)
{
    char cli[4096], prog[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *argv[40] = {cli, "record", "-o", (char *)dir};
    int n = 4;
    if (option)
        argv[n++] = (char *)option;
    argv[n++] = prog;
    for (int i = 0; args && args[i] && n < 39; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    run_result r;
    if (run_command(argv, env, NULL, &r) != 0)
        return -1;
    return exited_ok(&r, err);
}

/* Run `offtrace VERB args...`; 0 when it exited 0. Its stderr goes to *err when err is not NULL. */
static int offtrace_ok(char **err, const char *verb, ...)
{
    va_list args;
    va_start(args, verb);
    run_result r;
    int ran = run_offtrace_va(&r, verb, args);
    va_end(args);
    if (err)
        *err = NULL;
    return ran == 0 ? exited_ok(&r, err) : -1;
}

int reconvert_raw(const char *dir, char **err)
{
    char traces[4200], anchor[4200], defs[4200];
    snprintf(traces, sizeof traces, "%s/traces", dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    snprintf(defs, sizeof defs, "%s/traces.def", dir);
    char *rm[] = {"rm", "-rf", traces, anchor, defs, NULL};
    run_result r;
    int removed = run_command(rm, NULL, NULL, &r) == 0;
    if (removed) {
        removed = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
        run_free(&r);
    }
    if (!removed) {
        if (err)
            *err = strdup("cannot remove the archive");
        return -1;
    }
    return offtrace_ok(err, "convert", dir, NULL);
}

char *export_chrome(const char *dir, const char *path, char **err)
{
    if (offtrace_ok(err, "export", "--format", "chrome", dir, "-o", path, NULL) != 0)
        return NULL;
    return read_whole_file(path, NULL);
}

unsigned count_occurrences(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/**
 * \file isolate.c
 * \brief Shared CLI helpers: running an archive reader in a child process,
 *        output files that appear only when complete, and never on the
 *        archive they are made from, and a verb's default output name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "offtrace/offtrace.h"

/* `view DIR` with no -o: DIR.html beside DIR. A name made from the
 * directory's own (not "..html" for `view .`), so the picture of run1 is
 * run1.html wherever view was started. */
const char *ot_cli_output_of(const ot_cli_args *args, char *buf, size_t size)
{
    const char *output = args->text[OT_OPT_OUTPUT];
    if (output || args->verb->verb != OT_VERB_VIEW || !args->dir)
        return output;
    char name[PATH_MAX];
    snprintf(name, sizeof name, "%s", args->dir);
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] == '/')
        name[--n] = '\0';
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(name, "/")) {
        char real[PATH_MAX];
        if (!realpath(args->dir, real) || !strcmp(real, "/"))
            return NULL;
        snprintf(name, sizeof name, "%s", real);
    }
    if (snprintf(buf, size, "%s.html", name) >= (int)size)
        return NULL;
    return buf;
}

/* A verb that died left its `-o FILE` as FILE.partial (ot_cli_output). */
static void remove_partial_output(const ot_cli_args *args)
{
    char fallback[PATH_MAX + 8];
    const char *output = ot_cli_output_of(args, fallback, sizeof fallback);
    if (output && strcmp(output, "-") != 0) {
        char partial[4200];
        snprintf(partial, sizeof partial, "%s.partial", output);
        unlink(partial);
    }
}

/* SIGINT and SIGTERM that reach offtrace while its child works are the
 * child's to act on (`view --serve` stops cleanly on them): passed on. */
static volatile sig_atomic_t child_pid, passed_on;

static void pass_on(int sig)
{
    passed_on = sig;
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

int ot_cli_isolated(const ot_cli_args *args)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) /* no child to be had: run here rather than not at all */
        return args->verb->run(args);
    if (pid == 0) {
        int rc = args->verb->run(args);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    child_pid = pid;
    struct sigaction act = {.sa_handler = pass_on}, old_int, old_term;
    sigemptyset(&act.sa_mask);
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    if (old_int.sa_handler != SIG_IGN) /* one ignored (a background job of a script) stays so */
        sigaction(SIGINT, &act, NULL);
    if (old_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &act, NULL);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    child_pid = 0;
    if (WIFSIGNALED(status) && passed_on && WTERMSIG(status) == passed_on) { /* interrupted: end as the child did */
        remove_partial_output(args);
        signal(passed_on, SIG_DFL);
        raise(passed_on);
        return 128 + passed_on;
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WTERMSIG(status) == SIGPIPE) { /* `offtrace report DIR | head`: end as quietly as the child did */
        remove_partial_output(args);
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
        return 128 + SIGPIPE;
    }
    fprintf(stderr, "offtrace %s: reading the archive failed (%s): it is damaged or not one offtrace can read\n",
            args->verb->name, strsignal(WTERMSIG(status)));
    remove_partial_output(args);
    return 1;
}

/* Devices and pipes (-o /dev/null, -o /dev/stdout, a FIFO) are written in
 * place: renaming a file over them would replace the device itself. */
static int is_special(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

int ot_cli_output_open(ot_cli_output *o, const char *path)
{
    snprintf(o->path, sizeof o->path, "%s", path);
    if (is_special(path))
        o->partial[0] = '\0';
    else
        snprintf(o->partial, sizeof o->partial, "%s.partial", path);
    o->file = fopen(o->partial[0] ? o->partial : o->path, "we");
    if (!o->file) {
        fprintf(stderr, "offtrace: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int ot_cli_output_commit(ot_cli_output *o)
{
    int bad = ferror((FILE *)o->file);
    if (fclose((FILE *)o->file) != 0)
        bad = 1;
    o->file = NULL;
    if (bad || (o->partial[0] && rename(o->partial, o->path) != 0)) {
        fprintf(stderr, "offtrace: writing '%s' failed: %s\n", o->path, strerror(errno ? errno : EIO));
        if (o->partial[0])
            unlink(o->partial);
        return -1;
    }
    return 0;
}

void ot_cli_output_abandon(ot_cli_output *o)
{
    if (o->file)
        fclose((FILE *)o->file);
    o->file = NULL;
    if (o->partial[0])
        unlink(o->partial);
}

/* `path` made absolute and resolved as far as it exists: the directory part
 * through realpath, the last component as given (it may not exist yet). */
static int resolve_output(const char *path, char *out, size_t size)
{
    char real[PATH_MAX];
    if (realpath(path, real)) {
        snprintf(out, size, "%s", real);
        return 0;
    }
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    char *slash = strrchr(copy, '/');
    const char *base = slash ? slash + 1 : copy;
    const char *parent = slash ? (slash == copy ? "/" : copy) : ".";
    if (slash)
        *slash = '\0';
    if (!realpath(parent, real))
        return -1;
    snprintf(out, size, "%s/%s", strcmp(real, "/") ? real : "", base);
    return 0;
}

int ot_cli_output_allowed(const char *verb, const char *output, const char *archive_dir)
{
    static const char *const archive_parts[] = {OFFTRACE_ARCHIVE_NAME ".otf2", OFFTRACE_ARCHIVE_NAME ".def",
                                                OFFTRACE_ARCHIVE_NAME, "raw"};
    char out[PATH_MAX + 256], dir[PATH_MAX];
    if (!strcmp(output, "-") || !realpath(archive_dir, dir) || resolve_output(output, out, sizeof out) != 0)
        return 1; /* stdout, or a path the verb will report on its own */
    size_t n = strlen(dir);
    int inside = !strcmp(out, dir);
    for (size_t i = 0; !inside && i < sizeof archive_parts / sizeof archive_parts[0]; i++) {
        size_t k = strlen(archive_parts[i]);
        inside = !strncmp(out, dir, n) && out[n] == '/' && !strncmp(out + n + 1, archive_parts[i], k) &&
                 (out[n + 1 + k] == '\0' || out[n + 1 + k] == '/');
    }
    if (inside)
        fprintf(stderr, "offtrace %s: -o '%s' would overwrite part of the archive '%s'; choose a file outside "
                        "it\n", verb, output, archive_dir);
    return !inside;
}

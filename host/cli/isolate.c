/**
 * \file isolate.c
 * \brief Shared CLI helpers: running an archive reader in a child process,
 *        and output files that appear only when complete.
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
#include "regular_file.h"
#include "liveness.h"
#include "offtrace/offtrace.h"

/* A verb that died left its `-o FILE` as FILE.partial (ot_cli_output). */
static void remove_partial_output(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-o")) {
            char partial[4200];
            snprintf(partial, sizeof partial, "%s.partial", argv[i + 1]);
            unlink(partial);
        }
}

int ot_cli_isolated(int (*run)(int argc, char **argv), int argc, char **argv)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) /* no child to be had: run here rather than not at all */
        return run(argc, argv);
    if (pid == 0) {
        int rc = run(argc, argv);
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WTERMSIG(status) == SIGPIPE) { /* `offtrace report DIR | head`: end as quietly as the child did */
        remove_partial_output(argc, argv);
        signal(SIGPIPE, SIG_DFL);
        raise(SIGPIPE);
        return 128 + SIGPIPE;
    }
    fprintf(stderr, "offtrace %s: reading the archive failed (%s): it is damaged or not one offtrace can read\n",
            argv[0], strsignal(WTERMSIG(status)));
    remove_partial_output(argc, argv);
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

void ot_cli_raw_status(const char *raw_dir, char *status, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/status", raw_dir);
    status[0] = '\0';
    FILE *f = ot_fopen_regular(path); /* a FIFO named status must not block a reader */
    if (!f)
        return;
    size_t n = fread(status, 1, size - 1, f);
    fclose(f);
    status[n] = '\0';
    status[strcspn(status, "\n")] = '\0';
}

void ot_cli_raw_mark_converted(const char *raw_dir)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/status", raw_dir);
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        return;
    int bad = fputs("converted", f) < 0;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0)
        unlink(tmp);
}

int ot_cli_raw_converted(const char *raw_dir)
{
    char status[32];
    ot_cli_raw_status(raw_dir, status, sizeof status);
    return strcmp(status, "converted") == 0;
}

int ot_cli_raw_recorded(const char *raw_dir)
{
    char status[32];
    ot_cli_raw_status(raw_dir, status, sizeof status);
    return strcmp(status, "recorded") == 0;
}

int ot_cli_refuse_recording(const char *dir)
{
    char raw[4200], status[32];
    struct stat st;
    snprintf(raw, sizeof raw, "%s/raw", dir);
    if (stat(raw, &st) != 0 || ot_cli_raw_converted(raw))
        return 0;
    pid_t owner;
    if (ot_conversion_running(raw, &owner)) {
        fprintf(stderr, "offtrace: '%s' is being converted by process %d; its archive appears when that "
                        "process ends\n", dir, (int)owner);
        return 1;
    }
    if (ot_recording_alive(raw, &owner)) {
        fprintf(stderr, "offtrace: '%s' is still being recorded by process %d; its archive appears when "
                        "that process ends\n", dir, (int)owner);
        return 1;
    }
    ot_cli_raw_status(raw, status, sizeof status);
    if (!strcmp(status, "recorded"))
        fprintf(stderr, "offtrace: '%s' holds a finished recording that was not converted yet; run: "
                        "offtrace convert %s\n", dir, dir);
    else
        fprintf(stderr, "offtrace: '%s' holds an unconverted recording (the process that wrote it ended "
                        "before finishing it); run: offtrace convert %s\n", dir, dir);
    return 1;
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

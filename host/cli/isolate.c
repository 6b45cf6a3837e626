/**
 * \file isolate.c
 * \brief Shared CLI helpers: running an archive reader in a child process,
 *        and output files that appear only when complete.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

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

static int raw_status_is(const char *raw_dir, const char *word)
{
    char path[4200], status[32] = "";
    snprintf(path, sizeof path, "%s/status", raw_dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(status, 1, sizeof status - 1, f);
    fclose(f);
    status[n] = '\0';
    return strncmp(status, word, strlen(word)) == 0;
}

int ot_cli_raw_converted(const char *raw_dir)
{
    return raw_status_is(raw_dir, "converted");
}

int ot_cli_raw_recorded(const char *raw_dir)
{
    return raw_status_is(raw_dir, "recorded");
}

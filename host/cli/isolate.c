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
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

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
    fprintf(stderr, "offtrace %s: reading the archive failed (%s): it is damaged or not one offtrace can read\n",
            argv[0], strsignal(WTERMSIG(status)));
    return 1;
}

int ot_cli_output_open(ot_cli_output *o, const char *path)
{
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->partial, sizeof o->partial, "%s.partial", path);
    o->file = fopen(o->partial, "we");
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
    if (bad || rename(o->partial, o->path) != 0) {
        fprintf(stderr, "offtrace: writing '%s' failed: %s\n", o->path, strerror(errno ? errno : EIO));
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
    unlink(o->partial);
}

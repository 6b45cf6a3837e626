/**
 * \file mpi_run.c
 * \brief run_mpirun (mpi_run.h).
 */
#include "mpi_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OFFTRACE_MPIRUN
#error "OFFTRACE_MPIRUN: the mpirun CMake found"
#endif

static void mpirun_directory_first_on_path(void)
{
    const char *slash = strrchr(OFFTRACE_MPIRUN, '/');
    if (!slash)
        return;
    const char *path = getenv("PATH") ? getenv("PATH") : "";
    char value[8192];
    int length = (int)(slash - OFFTRACE_MPIRUN);
    if (!strncmp(path, OFFTRACE_MPIRUN, (size_t)length) && path[length] == ':')
        return; /* already first: PATH does not grow with every job */
    snprintf(value, sizeof value, "%.*s:%s", length, OFFTRACE_MPIRUN, path);
    setenv("PATH", value, 1);
}

int run_mpirun(int np, char *const args[], char *const env[], run_result *r)
{
    static const char *const head[] = {"timeout", "60", NULL, "--allow-run-as-root", "--oversubscribe", "--mca",
                                       "mpi_yield_when_idle", "1", "--timeout", "55", "-np"};
    const size_t head_count = sizeof head / sizeof head[0];
    char *argv[96];
    char np_text[16];
    const char *slash = strrchr(OFFTRACE_MPIRUN, '/');
    size_t n = 0;
    for (; n < head_count; n++)
        argv[n] = (char *)head[n];
    argv[2] = (char *)(slash ? slash + 1 : OFFTRACE_MPIRUN);
    snprintf(np_text, sizeof np_text, "%d", np);
    argv[n++] = np_text;
    for (size_t i = 0; args[i]; i++) {
        if (n + 1 >= sizeof argv / sizeof argv[0])
            return -1;
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    mpirun_directory_first_on_path();
    return run_command(argv, env, NULL, r);
}

int mpi_count_line(const char *text, const char *tag, int rank, mpi_rank_count *c)
{
    char head[64];
    snprintf(head, sizeof head, "%s rank=%d ", tag, rank);
    const char *at = text ? strstr(text, head) : NULL;
    if (!at)
        return -1;
    *c = (mpi_rank_count){-1, -1, -1, -1, -1, -1, -1};
    int n = sscanf(at + strlen(head), "sends=%ld bytes_sent=%ld recvs=%ld bytes_recv=%ld coll=%ld coll_sent=%ld "
                                      "coll_recv=%ld",
                   &c->sends, &c->bytes_sent, &c->recvs, &c->bytes_recv, &c->coll, &c->coll_sent, &c->coll_recv);
    return n >= 5 ? 0 : -1;
}

/**
 * \file runtime_counts.c
 * \brief The runtime's own counts of a program (runtime_counts.h).
 */
#include "runtime_counts.h"

#include <stdio.h>
#include <sys/wait.h>

#include "run.h"

int runtime_counts_of(const char *example, runtime_counts *c)
{
    return runtime_counts_of_run(example, NULL, c);
}

int runtime_counts_of_run(const char *example, char *const args[], runtime_counts *c)
{
    char out[4096], envfile[4200], envtool[4200], prog[4096];
    c->problem[0] = '\0';
    scratch_path(out, sizeof out, "runtime-counts");
    snprintf(envfile, sizeof envfile, "OFFTRACE_TEST_COUNTER_OUT=%s", out);
    snprintf(envtool, sizeof envtool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-counter.so", OFFTRACE_LIB_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, example);
    char *argv[16] = {prog};
    for (int i = 0; args && args[i] && i < 14; i++)
        argv[i + 1] = args[i];
    char *env[] = {envfile, envtool, NULL};
    run_result r;
    if (run_command(argv, env, NULL, &r) != 0) {
        snprintf(c->problem, sizeof c->problem, "%s could not be run", example);
        return -1;
    }
    int ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
    if (!ok)
        snprintf(c->problem, sizeof c->problem, "%s failed: %s", example, r.err);
    run_free(&r);
    if (!ok)
        return -1;
    return runtime_counts_read(out, c);
}

int runtime_counts_read(const char *file, runtime_counts *c)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(c->problem, sizeof c->problem, "the counting tool wrote nothing");
        return -1;
    }
    int n = fscanf(f,
                   "OMPT_COUNTS target=%llu enter_data=%llu exit_data=%llu update=%llu kernels=%llu alloc=%llu "
                   "alloc_bytes=%llu h2d=%llu h2d_bytes=%llu d2h=%llu d2h_bytes=%llu delete=%llu outside=%llu",
                   &c->target, &c->enter_data, &c->exit_data, &c->update, &c->kernels, &c->alloc,
                   &c->alloc_bytes, &c->h2d, &c->h2d_bytes, &c->d2h, &c->d2h_bytes, &c->del, &c->outside);
    fclose(f);
    if (n != 13) {
        snprintf(c->problem, sizeof c->problem, "unexpected counter output");
        return -1;
    }
    return 0;
}

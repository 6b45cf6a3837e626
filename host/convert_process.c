#define _GNU_SOURCE
#include "convert_process.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "offtrace/offtrace.h"
#include "session.h" /* a job's rank converts into <dir>/part (issue 16) */

extern char **environ;

static char cli_path[4096];
static char dir_arg[4096];
static char anchor_path[4200]; /* <dir>/traces.otf2: exists only after a successful conversion */
static int cli_found, keep_raw_arg;
static char **converter_environment;
static int started; /* atomic: one conversion per process */

/* The child runs here while its parent is suspended (CLONE_VFORK), until it
 * has exec'd: a few hundred bytes of frames. */
static char child_stack[32 * 1024] __attribute__((aligned(64)));

typedef struct child_setup {
    char *const *argv;
    int silent;
} child_setup;

/* The CLI sits at ../bin/offtrace relative to this library (build tree and
 * install tree alike). */
static void locate_cli(void)
{
    Dl_info info;
    char lib[4096] = ".";
    if (dladdr((void *)locate_cli, &info) && info.dli_fname && strrchr(info.dli_fname, '/')) {
        snprintf(lib, sizeof lib, "%s", info.dli_fname);
        *strrchr(lib, '/') = '\0';
    }
    snprintf(cli_path, sizeof cli_path, "%s/../bin/offtrace", lib);
    cli_found = access(cli_path, X_OK) == 0;
}

static int is_tool_variable(const char *entry)
{
    return !strncmp(entry, "OMP_TOOL_LIBRARIES=", 19) || !strncmp(entry, "LD_PRELOAD=", 11);
}

/* Copies, not pointers into environ: the program may change its environment
 * (and putenv'd strings) before it dies. */
static void copy_environment(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    converter_environment = calloc(n + 1, sizeof *converter_environment);
    if (!converter_environment)
        return;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!is_tool_variable(environ[i]) && (converter_environment[kept] = strdup(environ[i])))
            kept++;
}

int ot_convert_process_prepare(const char *dir, int keep_raw)
{
    snprintf(dir_arg, sizeof dir_arg, "%s", dir);
    snprintf(anchor_path, sizeof anchor_path, "%s%s/%s.otf2", dir, ot_the_session.job_rank >= 0 ? "/part" : "",
             OFFTRACE_ARCHIVE_NAME);
    keep_raw_arg = keep_raw;
    locate_cli();
    if (cli_found)
        copy_environment();
    return cli_found && converter_environment ? 0 : -1;
}

const char *ot_convert_process_cli(void)
{
    return cli_path;
}

/* In the child, sharing the parent's memory and thread pointer: raw system
 * calls only (glibc's wrappers of open/close are cancellation points that
 * read the parent thread's state). */
static int converter_child(void *arg)
{
    const child_setup *setup = arg;
    uint64_t no_signals = 0; /* the crash handler may run with signals blocked */
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &no_signals, NULL, sizeof no_signals);
    long null = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR);
    if (null < 0)
        _exit(126);
    syscall(SYS_dup2, null, STDIN_FILENO);
    syscall(SYS_dup2, null, STDOUT_FILENO);
    if (setup->silent)
        syscall(SYS_dup2, null, STDERR_FILENO);
    /* The program's other descriptors (pipes its parent waits on, sockets)
     * are none of the converter's business. */
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
        for (long fd = 3; fd < 65536; fd++)
            syscall(SYS_close, fd);
    syscall(SYS_execve, cli_path, setup->argv, converter_environment);
    _exit(127);
}

static int past_limit(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (now.tv_sec - start->tv_sec) * 1000LL + (now.tv_nsec - start->tv_nsec) / 1000000;
    return ms >= OT_CONVERT_PROCESS_SECONDS * 1000LL;
}

/* Loops only while the child runs, at most OT_CONVERT_PROCESS_SECONDS. */
static ot_convert_outcome wait_for_converter(pid_t pid)
{
    struct timespec start, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int status;
        pid_t got = waitpid(pid, &status, WNOHANG | __WALL);
        if (got == pid) {
            if (WIFEXITED(status) && WEXITSTATUS(status) >= 126) /* converter_child's own: no exec */
                return OT_CONVERT_NOT_STARTED;
            if (WIFEXITED(status))
                return WEXITSTATUS(status) == 0 ? OT_CONVERTED : OT_CONVERT_FAILED;
            return OT_CONVERT_DIED;
        }
        if (got < 0 && errno != EINTR) /* ECHILD: someone reaped it; its work tells */
            return access(anchor_path, F_OK) == 0 ? OT_CONVERTED : OT_CONVERT_DIED;
        if (past_limit(&start)) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
                ;
            return OT_CONVERT_TIMED_OUT;
        }
        nanosleep(&nap, NULL); /* EINTR only shortens the nap */
        if (nap.tv_nsec < 32000000)
            nap.tv_nsec *= 2;
    }
}

ot_convert_outcome ot_convert_process_run(const char *reason, int silent)
{
    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        return OT_CONVERT_ALREADY_RUN;
    if (!cli_found || !converter_environment)
        return OT_CONVERT_NOT_STARTED;
    /* --force: the recording's process (this one) is alive, and done writing. */
    char *argv[10] = {"offtrace", "convert", "--force", "--quiet"};
    int n = 4;
    if (reason) {
        argv[n++] = "--reason";
        argv[n++] = (char *)reason;
    }
    if (keep_raw_arg)
        argv[n++] = "--keep-raw";
    argv[n++] = dir_arg;
    argv[n] = NULL;
    child_setup setup = {argv, silent};
    /* No exit signal: the program's SIGCHLD handler and waitpid(-1) never see
     * this child; only __WALL waits for it. */
    pid_t pid = clone(converter_child, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK, &setup);
    if (pid < 0)
        return OT_CONVERT_NOT_STARTED;
    return wait_for_converter(pid);
}

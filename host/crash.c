#define _GNU_SOURCE
#include "crash.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char cli_path[4096];
static char dir_arg[4096];
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

/* Only async-signal-safe calls from here on: fork, execv, waitpid, raise. */
static void on_fatal_signal(int sig)
{
    static char reason[64];
    const char *name = sigabbrev_np(sig);
    strcpy(reason, "killed by SIG");
    strcat(reason, name ? name : "?");
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {"offtrace", "convert", "--reason", reason, dir_arg, NULL};
        execv(cli_path, argv);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0)
            ;
    raise(sig); /* SA_RESETHAND restored the default action */
}

/* The CLI sits at ../bin/offtrace relative to this library (build tree and
 * install tree alike). */
static int locate_cli(void)
{
    Dl_info info;
    if (!dladdr((void *)locate_cli, &info) || !info.dli_fname)
        return -1;
    char lib[4096];
    snprintf(lib, sizeof lib, "%s", info.dli_fname);
    char *slash = strrchr(lib, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(cli_path, sizeof cli_path, "%s/../bin/offtrace", lib);
    return access(cli_path, X_OK);
}

void ot_crash_install(const char *output_dir)
{
    if (locate_cli() != 0)
        return;
    snprintf(dir_arg, sizeof dir_arg, "%s", output_dir);
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old, sa;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/**
 * \file record.c
 * \brief `offtrace record`: run a program under the host library and leave
 *        an archive, whatever way the program ends.
 *
 * The program is not relinked: the library comes in through
 * OMP_TOOL_LIBRARIES. Its arguments, standard streams and exit status pass
 * through unchanged; our own words go to stderr. When the program dies
 * before the library could write the archive, the raw records it left are
 * converted here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "convert.h"
#include "offtrace/offtrace.h"
#include "summary.h"

typedef struct record_opts {
    const char *output;
    const char *buffer_size;
    const char *max_size;
    int verbose;
    int host_only;
    char **program;
} record_opts;

static void record_usage(FILE *to)
{
    fprintf(to, "usage: offtrace record [-o DIR] [-b SIZE] [--max-size SIZE] [--host-only] [-v] [--] PROGRAM "
                "[ARGS...]\n"
                "  -o DIR       output directory (must not exist; default offtrace-PROGRAM, made unique)\n"
                "  -b SIZE      per-thread buffer chunk, 64K..1G (default 1M)\n"
                "  --max-size SIZE  disk space of the recording, at least 1M, or unlimited\n"
                "               (default 10%% of the output's free space, at least 64M)\n"
                "  --host-only  no device detail (do not preload the device collector)\n"
                "  -v           let the library report what it does\n");
}

static int parse(int argc, char **argv, record_opts *o)
{
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (argv[i][0] != '-')
            break;
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            o->output = argv[++i];
        else if (!strcmp(argv[i], "-b") && i + 1 < argc)
            o->buffer_size = argv[++i];
        else if (!strcmp(argv[i], "--max-size") && i + 1 < argc)
            o->max_size = argv[++i];
        else if (!strcmp(argv[i], "-v"))
            o->verbose = 1;
        else if (!strcmp(argv[i], "--host-only"))
            o->host_only = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            record_usage(stdout);
            return 1;
        } else {
            fprintf(stderr, "offtrace record: unknown option '%s'\n", argv[i]);
            record_usage(stderr);
            return -1;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "offtrace record: no program given\n");
        record_usage(stderr);
        return -1;
    }
    size_t size;
    if (o->buffer_size && (ot_config_parse_size(o->buffer_size, &size) || size < OFFTRACE_MIN_BUFFER_SIZE ||
                           size > OFFTRACE_MAX_BUFFER_SIZE)) {
        fprintf(stderr, "offtrace record: -b '%s' is not a size from 64K to 1G\n", o->buffer_size);
        return -1;
    }
    uint64_t limit;
    if (o->max_size && ot_config_parse_max_size(o->max_size, &limit)) {
        fprintf(stderr, "offtrace record: --max-size '%s' is not %s\n", o->max_size, OT_CONFIG_MAX_SIZE_ACCEPTED);
        return -1;
    }
    o->program = argv + i;
    return 0;
}

/* -o names a directory that must not exist; without -o, a fresh name is made. */
static int make_output_dir(const record_opts *o, char *dir, size_t size)
{
    if (o->output) {
        if (mkdir(o->output, 0777) != 0) {
            if (errno == EEXIST)
                fprintf(stderr, "offtrace: '%s' already exists; offtrace never overwrites a trace: "
                                "choose another -o or remove it\n", o->output);
            else
                fprintf(stderr, "offtrace: cannot create '%s': %s\n", o->output, strerror(errno));
            return -1;
        }
        snprintf(dir, size, "%s", o->output);
        return 0;
    }
    const char *base = strrchr(o->program[0], '/');
    base = base ? base + 1 : o->program[0];
    for (unsigned n = 0; n < 10000; n++) {
        if (n)
            snprintf(dir, size, "offtrace-%s.%u", base, n);
        else
            snprintf(dir, size, "offtrace-%s", base);
        if (mkdir(dir, 0777) == 0)
            return 0;
        if (errno != EEXIST) {
            fprintf(stderr, "offtrace: cannot create '%s': %s\n", dir, strerror(errno));
            return -1;
        }
    }
    return -1;
}

/* Put `path` first in a colon-separated list variable, keeping what the
 * user had there. */
static int prepend_to_list(const char *name, const char *path)
{
    const char *previous = getenv(name);
    char *list = NULL;
    if (asprintf(&list, "%s%s%s", path, previous && *previous ? ":" : "", previous ? previous : "") < 0)
        return -1;
    setenv(name, list, 1);
    free(list);
    return 0;
}

/* LD_PRELOAD splits its list at spaces and colons and knows no quoting, so
 * a collector installed under such a path is preloaded through a symbolic
 * link in a private directory under /tmp, removed once the program ended. */
static char preload_link_dir[64];
static char preload_link[96];

static int preloadable_path(const char *lib, char *out, size_t size)
{
    char real[PATH_MAX];
    if (!strpbrk(lib, " \t\n:")) {
        snprintf(out, size, "%s", lib);
        return 0;
    }
    snprintf(preload_link_dir, sizeof preload_link_dir, "/tmp/offtrace-preload-XXXXXX");
    if (!realpath(lib, real) || !mkdtemp(preload_link_dir)) {
        preload_link_dir[0] = '\0';
        return -1;
    }
    snprintf(preload_link, sizeof preload_link, "%s/libofftrace-device.so", preload_link_dir);
    if (symlink(real, preload_link) != 0) {
        rmdir(preload_link_dir);
        preload_link_dir[0] = '\0';
        return -1;
    }
    snprintf(out, size, "%s", preload_link);
    return 0;
}

static void remove_preload_link(void)
{
    if (!preload_link_dir[0])
        return;
    unlink(preload_link);
    rmdir(preload_link_dir);
}

/* The device collector is preloaded ahead of anything the user preloads. */
static int preload_collector(const char *self)
{
    char lib[PATH_MAX + 64], path[PATH_MAX + 64];
    snprintf(lib, sizeof lib, "%s/../lib/libofftrace-device.so", self);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "offtrace: the device collector is missing (%s); tracing without device detail\n", lib);
        return 0;
    }
    if (preloadable_path(lib, path, sizeof path) != 0) {
        fprintf(stderr, "offtrace: cannot preload the device collector from a path with spaces or colons (%s): "
                        "%s; tracing without device detail\n", lib, strerror(errno));
        return 0;
    }
    return prepend_to_list("LD_PRELOAD", path);
}

static int setup_environment(const record_opts *o, const char *dir)
{
    char self[PATH_MAX], lib[PATH_MAX + 64], absdir[PATH_MAX];
    if (ot_cli_self_dir(self, sizeof self) != 0 || !realpath(dir, absdir))
        return -1;
    snprintf(lib, sizeof lib, "%s/../lib/libofftrace.so", self);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "offtrace: the host library is missing: %s\n", lib);
        return -1;
    }
    if (prepend_to_list("OMP_TOOL_LIBRARIES", lib) != 0)
        return -1;
    setenv("OMP_TOOL", "enabled", 1);
    setenv("OFFTRACE_OUTPUT", absdir, 1);
    setenv("OFFTRACE_OUTPUT_CLAIMED", "1", 1);
    setenv("OFFTRACE_ENABLE", "1", 1);
    setenv("OFFTRACE_VERBOSE", o->verbose ? "2" : "0", 1);
    if (o->buffer_size)
        setenv("OFFTRACE_BUFFER_SIZE", o->buffer_size, 1);
    if (o->max_size)
        setenv("OFFTRACE_MAX_RECORDING_SIZE", o->max_size, 1);
    return o->host_only ? 0 : preload_collector(self);
}

/* Runs the program; *exec_errno is set when it could not be started. */
static pid_t start_program(char **program, int *exec_errno)
{
    int fds[2];
    *exec_errno = 0;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        execvp(program[0], program);
        int e = errno;
        ssize_t ignored = write(fds[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    close(fds[1]);
    if (pid > 0 && read(fds[0], exec_errno, sizeof *exec_errno) != sizeof *exec_errno)
        *exec_errno = 0;
    close(fds[0]);
    return pid;
}

static pid_t child_pid;
static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

static int wait_program(pid_t pid)
{
    child_pid = pid;
    signal(SIGINT, SIG_IGN); /* the terminal sends it to the program too */
    signal(SIGQUIT, SIG_IGN);
    signal(SIGTERM, forward_signal);
    signal(SIGHUP, forward_signal);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static void describe_end(int status, char *reason, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(reason, size, "the program was killed by SIG%s", sigabbrev_np(WTERMSIG(status))
                                                                       ? sigabbrev_np(WTERMSIG(status)) : "?");
    else
        snprintf(reason, size, "the program ended (exit status %d) without finishing OpenMP, e.g. by _exit",
                 WEXITSTATUS(status));
}

/* OFFTRACE_KEEP_RAW as the program saw it (a bad value: the library said so). */
static int keep_raw_wanted(void)
{
    ot_config cfg;
    char ignored[512];
    return ot_config_from_env(&cfg, ignored, sizeof ignored) == 0 && cfg.keep_raw;
}

/* Convert what the program left: it ends its recording ("recorded") or dies. */
static int finish_archive(const char *dir, int status)
{
    char raw[PATH_MAX + 8], anchor[PATH_MAX + 32], msg[512], reason[256];
    struct stat st;
    snprintf(raw, sizeof raw, "%s/raw", dir);
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    if (stat(raw, &st) == 0 && !ot_cli_raw_converted(raw)) {
        describe_end(status, reason, sizeof reason);
        ot_convert_options opts = {.reason = ot_cli_raw_recorded(raw) ? NULL : reason,
                                   .keep_raw = keep_raw_wanted()};
        if (ot_convert_directory(dir, &opts, msg, sizeof msg) != 0) {
            fprintf(stderr, "%s\n", msg);
            return -1;
        }
    } else if (stat(anchor, &st) != 0) {
        fprintf(stderr, "offtrace: no trace: the program never started the OpenMP runtime with offtrace "
                        "loaded (is it an OpenMP offload program built with clang -fopenmp?)\n");
        rmdir(dir);
        return -1;
    }
    ot_summary s;
    if (ot_summary_read(dir, &s, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return -1;
    }
    ot_summary_print(&s, dir, stderr);
    return 0;
}

/* Hand the program's own ending to our caller: same exit code, or the same
 * signal (without a second core dump). */
static int pass_on(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    int sig = WTERMSIG(status);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig;
}

int ot_cmd_record(int argc, char **argv)
{
    record_opts o = {0};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc > 0 ? 0 : 2;
    char dir[PATH_MAX];
    if (make_output_dir(&o, dir, sizeof dir) != 0)
        return 2;
    if (!o.output)
        fprintf(stderr, "offtrace: recording into '%s'\n", dir);
    if (setup_environment(&o, dir) != 0) {
        rmdir(dir);
        return 1;
    }
    int exec_errno;
    fflush(NULL);
    pid_t pid = start_program(o.program, &exec_errno);
    if (pid < 0 || exec_errno) {
        int e = pid < 0 ? errno : exec_errno;
        if (e == ENOENT && !strchr(o.program[0], '/'))
            fprintf(stderr, "offtrace: %s: command not found\n", o.program[0]);
        else
            fprintf(stderr, "offtrace: %s: %s\n", o.program[0], strerror(e));
        if (pid > 0)
            waitpid(pid, NULL, 0);
        remove_preload_link();
        rmdir(dir);
        return e == ENOENT ? 127 : 126;
    }
    int status = wait_program(pid);
    remove_preload_link();
    finish_archive(dir, status);
    return pass_on(status);
}

int ot_cli_self_dir(char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(buf, size, "%s", exe);
    return 0;
}

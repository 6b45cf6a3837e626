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
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "convert.h"
#include "convert_job.h" /* issue 16 */
#include "convert_live.h" /* issue 18 */
#include "device_config.h"
#include "lineage.h"
#include "liveness.h"
#include "offtrace/offtrace.h"
#include "self_dir.h"
#include "summary.h"
#include "write_counts.h"

typedef struct record_opts {
    const char *output;
    const char *buffer_size;
    const char *max_size;
    int verbose;
    int host_only;
    const char *host_openmp;
    const char *device_detail; /* issue 18 */
    int start_paused;
    const char *filter;
    int no_capture; /* issue 15: no map capture */
    int mpi;        /* issue 16: 1 --mpi, -1 --no-mpi, 0 as the program's libraries say */
    char **program;
    /* issue 16: one rank of an MPI job (job.h): records into <job dir>/rank.N */
    int in_job;
    ot_job job;
    char job_dir[PATH_MAX];
} record_opts;

/* What record needs of its command line (options.c parsed and checked it). */
static record_opts opts_of(const ot_cli_args *args)
{
    return (record_opts){.output = args->text[OT_OPT_OUTPUT],
                         .buffer_size = args->text[OT_OPT_BUFFER_SIZE],
                         .max_size = args->text[OT_OPT_MAX_SIZE],
                         .verbose = args->text[OT_OPT_VERBOSE] != NULL,
                         .host_only = args->text[OT_OPT_HOST_ONLY] != NULL,
                         .host_openmp = args->text[OT_OPT_HOST_OPENMP],
                         .device_detail = args->text[OT_OPT_DEVICE_DETAIL],
                         .start_paused = args->text[OT_OPT_START_PAUSED] != NULL,
                         .filter = args->text[OT_OPT_FILTER],
                         .no_capture = args->text[OT_OPT_NO_CAPTURE] != NULL,
                         .mpi = args->text[OT_OPT_MPI] ? 1 : args->text[OT_OPT_NO_MPI] ? -1 : 0,
                         .program = args->program};
}

/* One line of record's on stderr; a rank of a job other than 0 says which it
 * is, since mpirun mixes every rank's stderr. \p text may begin with
 * "offtrace: " (the converter's messages do). */
static void say(const record_opts *o, const char *text)
{
    if (!strncmp(text, "offtrace: ", 10))
        text += 10;
    if (o->in_job)
        fprintf(stderr, "offtrace: rank %u: %s\n", o->job.rank, text);
    else
        fprintf(stderr, "offtrace: %s\n", text);
}

/* Under an MPI job every rank makes or joins the one job directory (job.h:
 * the same -o, or a name all ranks derive from the job id) and records
 * into its own rank.N in it. */
static int make_job_dir(record_opts *o, char *dir, size_t size)
{
    char why[PATH_MAX + 256];
    if (o->output)
        snprintf(o->job_dir, sizeof o->job_dir, "%s", o->output);
    else
        ot_job_default_dir(o->program[0], &o->job, o->job_dir, sizeof o->job_dir);
    if (ot_job_join(o->job_dir, &o->job, why, sizeof why) != 0) {
        say(o, why);
        return -1;
    }
    ot_job_rank_dir(o->job_dir, o->job.rank, dir, size);
    return 0;
}

/* -o names a directory that must not exist; without -o, a fresh name is made. */
static int make_output_dir(record_opts *o, char *dir, size_t size)
{
    if (o->in_job)
        return make_job_dir(o, dir, size);
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

static void remove_capture_link(void);
static char mpi_link[96];

static void remove_preload_link(void)
{
    remove_capture_link();
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

/* ---- the map capture (issue 15, docs/variables.md) ----
 * libofftrace-capture.so is preloaded in both modes, ahead of the collector,
 * so that the program's calls of libomptarget's entry points reach it. A
 * path LD_PRELOAD cannot hold gets its own link in the private directory. */
static char capture_link[96];

static int preload_capture(const char *self)
{
    char lib[PATH_MAX + 64], real[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/../lib/libofftrace-capture.so", self);
    if (access(lib, R_OK) != 0) {
        fprintf(stderr, "offtrace: the map capture is missing (%s); tracing without variable names\n", lib);
        return 0;
    }
    if (strpbrk(lib, " \t\n:")) {
        if (!preload_link_dir[0]) {
            snprintf(preload_link_dir, sizeof preload_link_dir, "/tmp/offtrace-preload-XXXXXX");
            if (!mkdtemp(preload_link_dir))
                preload_link_dir[0] = '\0';
        }
        snprintf(capture_link, sizeof capture_link, "%s/libofftrace-capture.so", preload_link_dir);
        if (!preload_link_dir[0] || !realpath(lib, real) || symlink(real, capture_link) != 0) {
            capture_link[0] = '\0';
            fprintf(stderr, "offtrace: cannot preload the map capture from a path with spaces or colons (%s); "
                            "tracing without variable names\n", lib);
            return 0;
        }
        return prepend_to_list("LD_PRELOAD", capture_link);
    }
    return prepend_to_list("LD_PRELOAD", lib);
}

static void remove_capture_link(void)
{
    if (capture_link[0])
        unlink(capture_link);
    if (mpi_link[0])
        unlink(mpi_link);
}

/* ---- the MPI wrappers (issue 16, docs/mpi.md) ----
 * libofftrace-mpi.so goes into an MPI program only: a program that does not
 * load libmpi must not get it (it would load libmpi). Whether it does is
 * read from its ELF files (DT_NEEDED through the loader's search rules,
 * needed.c; no process is started), before anything else is preloaded; the
 * wrappers go behind the map capture and the collector, in front of the
 * user's preloads. A user who preloads them already keeps that one copy. */
#ifndef OFFTRACE_MPI_SONAME
#define OFFTRACE_MPI_SONAME ""
#endif
static const char *mpi_built_for = OFFTRACE_MPI_SONAME; /* "": not known, any libmpi */

static int preload_mpi(const record_opts *o, const char *self)
{
    if (o->mpi < 0)
        return 0;
    char soname[128] = "", line[PATH_MAX + 256];
    if (!o->mpi && ot_cli_program_mpi(o->program[0], soname, sizeof soname) != 1)
        return 0;
    int quiet = o->in_job && o->job.rank != 0; /* one line for the job, not one per rank */
    const char *user = getenv("LD_PRELOAD");
    if (user && strstr(user, "libofftrace-mpi.so"))
        return 0;
    if (soname[0] && mpi_built_for[0] && strcmp(soname, mpi_built_for)) {
        snprintf(line, sizeof line, "%s loads %s, offtrace's MPI wrappers were built for %s: MPI calls are not "
                 "recorded (build offtrace against the program's MPI)", o->program[0], soname, mpi_built_for);
        if (!quiet)
            say(o, line);
        return 0;
    }
    char lib[PATH_MAX + 64], real[PATH_MAX];
    snprintf(lib, sizeof lib, "%s/../lib/libofftrace-mpi.so", self);
    if (access(lib, R_OK) != 0) {
        snprintf(line, sizeof line, "%s is an MPI program but offtrace was built without MPI (%s is missing): MPI "
                 "calls are not recorded", o->program[0], lib);
        if (!quiet)
            say(o, line);
        return 0;
    }
    if (!strpbrk(lib, " \t\n:"))
        return prepend_to_list("LD_PRELOAD", lib);
    if (!preload_link_dir[0]) {
        snprintf(preload_link_dir, sizeof preload_link_dir, "/tmp/offtrace-preload-XXXXXX");
        if (!mkdtemp(preload_link_dir))
            preload_link_dir[0] = '\0';
    }
    snprintf(mpi_link, sizeof mpi_link, "%s/libofftrace-mpi.so", preload_link_dir);
    if (!preload_link_dir[0] || !realpath(lib, real) || symlink(real, mpi_link) != 0) {
        mpi_link[0] = '\0';
        snprintf(line, sizeof line, "cannot preload the MPI wrappers from a path with spaces or colons (%s): MPI "
                 "calls are not recorded", lib);
        if (!quiet)
            say(o, line);
        return 0;
    }
    return prepend_to_list("LD_PRELOAD", mpi_link);
}

static int setup_environment(const record_opts *o, const char *dir)
{
    char self[PATH_MAX], lib[PATH_MAX + 64], absdir[PATH_MAX];
    if (ot_self_dir(self, sizeof self) != 0 || !realpath(dir, absdir))
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
    if (o->host_openmp)
        setenv("OFFTRACE_HOST_OPENMP", o->host_openmp, 1);
    if (o->device_detail)
        setenv("OFFTRACE_DEVICE_DETAIL", o->device_detail, 1);
    if (o->start_paused)
        setenv("OFFTRACE_START_PAUSED", "1", 1);
    if (o->filter) { /* absolute, so that a program that changes directory still finds it */
        char abs[PATH_MAX];
        setenv("OFFTRACE_FILTER", realpath(o->filter, abs) ? abs : o->filter, 1);
    }
    /* NVTX v3 (docs/nvtx.md): the program's first NVTX call dlopens this
     * path, the very library libomp loads as the tool: one instance. */
    const char *nvtx = getenv("NVTX_INJECTION64_PATH");
    if (nvtx && *nvtx)
        fprintf(stderr, "offtrace: NVTX_INJECTION64_PATH is already set (%s): NVTX ranges go to that tool, not "
                        "to the trace\n", nvtx);
    else
        setenv("NVTX_INJECTION64_PATH", lib, 1);
    if (preload_mpi(o, self) != 0) /* first: it ends up behind the two below */
        return -1;
    if (!o->host_only && preload_collector(self) != 0)
        return -1;
    return o->no_capture ? 0 : preload_capture(self);
}

/* ---- a transparent launcher: signals reach the program ----
 * The program runs in record's process group, so what the terminal sends
 * (Ctrl-C, Ctrl-\, a hang-up) reaches it directly; record must not send it a
 * second time. What a user sends to record alone with kill() (kill -INT PID,
 * `timeout --foreground`) must reach it once. The kernel tells the two apart:
 * the terminal's signals carry SI_KERNEL, kill()/sigqueue()/tgkill() carry
 * SI_USER/SI_QUEUE/SI_TKILL and the sender's pid. So those, and only those,
 * are forwarded. One case is beyond this rule: a kill() aimed at the whole
 * process group (kill -INT -PGID, `timeout` without --foreground) reaches the
 * program directly and again through record.
 *
 * SIGKILL and SIGSTOP cannot be caught: if record is killed, the program is
 * killed with it (PR_SET_PDEATHSIG), so that no orphan records on without
 * bound; raw/ stays for `offtrace convert`. */

static const int forwarded_signals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM,
                                        SIGVTALRM, SIGPROF, SIGWINCH, SIGXCPU, SIGXFSZ, SIGPIPE, SIGTSTP,
                                        SIGTTIN, SIGTTOU, SIGCONT};
static volatile pid_t child_pid; /* 0 once the program is reaped: never signal a recycled pid */

static int sent_by_a_user(const siginfo_t *info)
{
    return (info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL) &&
           info->si_pid > 0 && info->si_pid != getpid() && info->si_pid != child_pid;
}

/* Whether the program is stopped (state T in /proc/PID/stat). Async-signal-safe,
 * so it formats the path by hand instead of calling ot_proc_stat_fields. */
static int program_stopped(pid_t pid)
{
    char path[48] = "/proc/", buf[256];
    char digits[16];
    int n = 0;
    for (unsigned v = (unsigned)pid; v || !n; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    size_t at = 6;
    while (n)
        path[at++] = digits[--n];
    memcpy(path + at, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return 0;
    buf[got] = '\0';
    char *p = strrchr(buf, ')');
    return p && (p[2] == 'T' || p[2] == 't');
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    int saved = errno;
    pid_t pid = child_pid;
    int job_stop = sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
    if (pid > 0 && sent_by_a_user(info)) {
        if (sig != SIGCONT)
            kill(pid, sig);
        else if (program_stopped(pid)) /* a SIGCONT to the group (`fg`) has continued it already */
            kill(pid, SIGCONT);
    }
    if (job_stop) /* stop as the default action would: the shell sees its job stopped */
        kill(getpid(), SIGSTOP);
    errno = saved;
}

/* Signals stay blocked from before the fork until record's handlers are in
 * place: none is lost in between, and the program starts with the mask
 * record was given. */
static sigset_t launcher_signals, mask_before;

static void block_launcher_signals(void)
{
    sigemptyset(&launcher_signals);
    for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
        sigaddset(&launcher_signals, forwarded_signals[i]);
    sigprocmask(SIG_BLOCK, &launcher_signals, &mask_before);
}

static void forward_signals_to(pid_t pid)
{
    child_pid = pid;
    struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof forwarded_signals / sizeof forwarded_signals[0]; i++)
        sigaction(forwarded_signals[i], &sa, NULL);
    sigprocmask(SIG_SETMASK, &mask_before, NULL);
}

/* The OFFTRACE_* variables the user set are checked here, by the library's
 * and (with device detail) the collector's own code, before anything runs:
 * a wrong one is one line from record, not one from the library and then a
 * second, misleading one about a program that "never started OpenMP", nor a
 * run that quietly goes on without device detail. */
static int check_environment(int device_detail)
{
    ot_config cfg;
    ot_device_config device;
    char err[512];
    if (ot_config_from_env(&cfg, err, sizeof err) == 0 &&
        (!device_detail || ot_device_config_from_env(&device, err, sizeof err) == 0))
        return 0;
    char *tail = strstr(err, "; this run is not traced");
    if (tail)
        *tail = '\0';
    fprintf(stderr, "%s; nothing was run\n", err);
    return -1;
}

/* Runs the program; *exec_errno is set when it could not be started.
 *
 * vfork: the child borrows record's memory until its exec instead of
 * copying record's page tables (some 10 MiB of libraries, the
 * conversion's code) only to drop them at the exec: about 0.2 ms of CPU
 * less per run here, record's and the program's together (issue 18). So
 * the child only makes system calls on its own stack and never returns:
 * no handler of record's can run in it (record installs its handlers after
 * this; until then the dispositions are the defaults it was started with),
 * and the one thing it writes outside its frame, errno, record does not read
 * once vfork has returned a child. */
static pid_t start_program(char **program, int *exec_errno)
{
    int fds[2];
    *exec_errno = 0;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t parent = getpid();
    block_launcher_signals();
    pid_t pid = vfork();
    if (pid == 0) {
        close(fds[0]);
        /* The death signal follows the thread that forked: record's main
         * thread, which lives until record ends (the live conversion's
         * thread starts after this and is joined before). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* record died before the line above */
            _exit(127);
        sigprocmask(SIG_SETMASK, &mask_before, NULL);
        execvp(program[0], program);
        int e = errno;
        ssize_t ignored = write(fds[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    close(fds[1]);
    if (pid > 0)
        forward_signals_to(pid);
    else
        sigprocmask(SIG_SETMASK, &mask_before, NULL);
    if (pid > 0 && read(fds[0], exec_errno, sizeof *exec_errno) != sizeof *exec_errno)
        *exec_errno = 0;
    close(fds[0]);
    return pid;
}

/* Waits for the program's end. It is left a zombie until the handlers know
 * it is gone (child_pid 0), so a forwarded signal cannot hit a new process
 * that got its pid. */
static int wait_program(pid_t pid)
{
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0)
        if (errno != EINTR)
            break;
    sigprocmask(SIG_BLOCK, &launcher_signals, NULL);
    child_pid = 0;
    sigprocmask(SIG_SETMASK, &mask_before, NULL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

/* Why a recording its writer did not finish is partial. */
static void describe_end(int status, int replaced_by_exec, char *reason, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(reason, size, "the program was killed by SIG%s", sigabbrev_np(WTERMSIG(status))
                                                                       ? sigabbrev_np(WTERMSIG(status)) : "?");
    else if (replaced_by_exec)
        snprintf(reason, size, "the program replaced itself by exec; the image after the exec was not traced");
    else
        snprintf(reason, size, "the program ended (exit status %d) without finishing OpenMP, e.g. by _exit or "
                 "by exec of another program", WEXITSTATUS(status));
}

/* OFFTRACE_KEEP_RAW as the program saw it (a bad value: the library said so). */
static int keep_raw_wanted(void)
{
    ot_config cfg;
    char ignored[512];
    return ot_config_from_env(&cfg, ignored, sizeof ignored) == 0 && cfg.keep_raw;
}

/* Other processes that used OpenMP under this recording found it taken and
 * were not traced (liveness.h). Said here once, on record's stderr, instead
 * of in each child's. \return whether the program itself was one of them,
 * i.e. it replaced itself by exec. */
static int report_untraced_processes(const char *dir, pid_t program)
{
    char exe[PATH_MAX];
    ot_lineage_report_untraced(dir, program, exe, sizeof exe, stderr);
    if (exe[0])
        fprintf(stderr, "offtrace: the program replaced itself by exec (%s); only the image before the exec is "
                        "traced\n", exe);
    return exe[0] != '\0';
}

/* \p path as the shell reads it: as is when it holds only plain characters,
 * else in single quotes (a quote inside as '\''). */
static void print_shell_word(const char *path, FILE *to)
{
    if (path[0] && strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+,:@%=-") ==
                       strlen(path)) {
        fputs(path, to);
        return;
    }
    fputc('\'', to);
    for (const char *p = path; *p; p++)
        fputs(*p == '\'' ? "'\\''" : (char[]){*p, 0}, to);
    fputc('\'', to);
}

/* What to do with the archive: the two readers a new user wants first. */
static void print_next_steps(const char *dir)
{
    fputs("offtrace: next             offtrace report ", stderr);
    print_shell_word(dir, stderr);
    fputs(" (findings by source line); offtrace view ", stderr);
    print_shell_word(dir, stderr);
    fputs(" (a timeline for the browser)\n", stderr);
}

/* Convert what the program recorded. The library under record leaves
 * raw/status "recorded" when it ended cleanly (complete); any other status
 * means the program ended before finishing its recording (partial, with
 * the reason). An archive the library converted itself is taken as is.
 * No recording at all and exit status 127 is most often the dynamic
 * loader's failure (a library not found), which loader.c names. */
static void finish_job(const record_opts *o);

/* raw/ (set aside by the conversion) removed beside the summary: freeing
 * the stream files' blocks waits on ext4's journal (2-16 ms of wall for
 * 0.5 ms of CPU on a busy disk), and the summary needs none of raw/. A
 * thread, joined before record returns: nothing outlives the command, so a
 * script that waits for it finds raw/ gone, as before. */
typedef struct raw_removal {
    pthread_t thread;
    int started;
    char path[PATH_MAX];
} raw_removal;

static void *remove_raw_main(void *arg)
{
    ot_convert_remove_raw_aside(((raw_removal *)arg)->path);
    return NULL;
}

static void raw_removal_start(raw_removal *r, const char *dir)
{
    snprintf(r->path, sizeof r->path, "%s", dir);
    r->started = pthread_create(&r->thread, NULL, remove_raw_main, r) == 0;
    if (!r->started)
        ot_convert_remove_raw_aside(r->path);
}

static void raw_removal_finish(raw_removal *r)
{
    if (r->started)
        pthread_join(r->thread, NULL);
    r->started = 0;
}

/* The conversion while the program runs (convert_live.h), on a thread
 * that must not take the signals record forwards: they stay for the main
 * thread, as before. Not for an MPI rank (its part is merged with the
 * others'). */
static ot_convert_live *start_live_conversion(const record_opts *o, const char *dir)
{
    if (o->in_job)
        return NULL;
    sigset_t before;
    pthread_sigmask(SIG_BLOCK, &launcher_signals, &before);
    ot_convert_live *live = ot_convert_live_start(dir);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    return live;
}

static int finish_archive(const record_opts *o, const char *dir, int status, pid_t program, const char *program_name,
                          ot_convert_live *live)
{
    char anchor[PATH_MAX + 32], msg[512], reason[256];
    struct stat st;
    snprintf(anchor, sizeof anchor, "%s%s/%s.otf2", dir, o->in_job ? "/part" : "", OFFTRACE_ARCHIVE_NAME);
    int replaced_by_exec = report_untraced_processes(dir, program);
    ot_cli_recording rec;
    ot_cli_recording_inspect(dir, &rec);
    const char *raw = rec.raw_dir;
    ot_write_counts *counts = NULL; /* what the conversion here wrote: the summary without reading it back */
    raw_removal removal = {.started = 0}; /* of raw/, once converted */
    ot_convert_live_result live_result = {0};
    int unconverted = ot_cli_recording_unconverted(&rec);
    if (!unconverted) /* the library converted it itself, or there is none: the attempt is not wanted */
        ot_convert_live_drop(live);
    if (unconverted) {
        ot_convert_options opts = {.reason = NULL, .keep_raw = keep_raw_wanted(), .counts = o->in_job ? NULL : &counts,
                                   .caller_removes_raw = !o->in_job};
        if (rec.state != OT_RECORDING_FINISHED) {
            describe_end(status, replaced_by_exec, reason, sizeof reason);
            opts.reason = reason;
        }
        /* Readers now say "being converted", not "run offtrace convert". */
        if (ot_converter_claim(raw, &rec.pid) == -EBUSY) {
            ot_convert_live_drop(live);
            rec.state = OT_RECORDING_BEING_CONVERTED;
            ot_cli_recording_explain("record", dir, &rec);
            return -1;
        }
        /* what was converted while the program ran, checked; else all of it now */
        if (ot_convert_live_finish(live, &opts, &live_result, msg, sizeof msg) != 0 &&
            ot_convert_directory(dir, &opts, msg, sizeof msg) != 0) {
            say(o, msg);
            return -1;
        }
        if (opts.keep_raw)
            ot_cli_raw_mark_converted(raw, opts.reason);
        else if (opts.caller_removes_raw)
            raw_removal_start(&removal, dir);
    } else if (stat(anchor, &st) != 0) {
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 127 && ot_cli_explain_unloadable(program_name) == 0))
            say(o, "no trace: the program never started the OpenMP runtime with offtrace loaded (is it an OpenMP "
                   "offload program built with clang -fopenmp?)");
        rmdir(dir);
        if (o->in_job) /* nothing to convert is done too: the others must not wait for it */
            finish_job(o);
        return -1;
    }
    if (o->in_job) {
        finish_job(o);
        return 0;
    }
    ot_summary s;
    int rc = ot_summary_after_conversion(dir, counts, &s, msg, sizeof msg);
    ot_write_counts_free(counts);
    if (rc != 0) {
        raw_removal_finish(&removal);
        fprintf(stderr, "%s\n", msg);
        return -1;
    }
    if (live_result.converted) {
        s.conversion_live_s = live_result.seconds_before_end;
        s.conversion_live_records = live_result.records_before_end;
    }
    ot_summary_print(&s, dir, stderr);
    print_next_steps(dir);
    raw_removal_finish(&removal);
    return 0;
}

/* The job's finish after this rank (convert_job.h): the last rank out
 * merges, and only the process that merged prints the job's summary; the
 * others say nothing unless something failed for them. */
static void finish_job(const record_opts *o)
{
    char msg[PATH_MAX + 512];
    ot_summary s;
    switch (ot_convert_job_rank_done(o->job_dir, &o->job, o->job.rank, msg, sizeof msg)) {
    case OT_JOB_MERGED:
        if (ot_summary_read(o->job_dir, &s, msg, sizeof msg) != 0) {
            say(o, msg);
            return;
        }
        ot_summary_print(&s, o->job_dir, stderr);
        print_next_steps(o->job_dir);
        return;
    case OT_JOB_MERGE_FAILED:
        say(o, msg);
        return;
    default:
        return;
    }
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

int ot_cmd_record(const ot_cli_args *args)
{
    if (args->text[OT_OPT_MPI] && args->text[OT_OPT_NO_MPI])
        return ot_cli_usage_error(args->verb, "--mpi and --no-mpi exclude each other");
    record_opts o = opts_of(args);
    char why[256];
    if ((o.in_job = ot_job_detect(&o.job, why, sizeof why)) < 0) {
        fprintf(stderr, "offtrace: %s; nothing was run\n", why);
        return 2;
    }
    /* The user's own OFFTRACE_* settings first (record overrides some of
     * them: a wrong value there would otherwise pass unnoticed), then again
     * with record's below. OFFTRACE_OUTPUT is the default of -o. */
    if (check_environment(!o.host_only) != 0)
        return 2;
    const char *output = getenv("OFFTRACE_OUTPUT");
    if (!o.output && output && *output)
        o.output = output;
    char dir[PATH_MAX];
    if (make_output_dir(&o, dir, sizeof dir) != 0)
        return 2;
    if (setup_environment(&o, dir) != 0) {
        rmdir(dir);
        return 1;
    }
    if (check_environment(0) != 0) { /* after record's own settings: what the library will see */
        remove_preload_link();
        rmdir(dir);
        return 2;
    }
    /* One line before the program runs, so a long run is known to be
     * recorded and where to; the program's own output follows unchanged. */
    if (!o.in_job)
        fprintf(stderr, "offtrace: recording %s into %s/ (%s)\n", o.program[0], dir,
                o.host_only ? "host only" : "with device detail");
    else if (o.job.rank == 0) /* one line for the job, not one per rank */
        fprintf(stderr, "offtrace: recording %s into %s/ (%u ranks, %s)\n", o.program[0], o.job_dir, o.job.size,
                o.host_only ? "host only" : "with device detail");
    int exec_errno;
    fflush(NULL);
    pid_t pid = start_program(o.program, &exec_errno);
    if (pid < 0 || exec_errno) {
        int e = pid < 0 ? errno : exec_errno;
        if (e == ENOENT && !strchr(o.program[0], '/'))
            fprintf(stderr, "offtrace: %s: command not found\n", o.program[0]);
        else if (e != ENOENT || ot_cli_explain_missing_interpreter(o.program[0]) != 0)
            fprintf(stderr, "offtrace: %s: %s\n", o.program[0], strerror(e));
        if (pid > 0)
            wait_program(pid);
        remove_preload_link();
        rmdir(dir);
        return e == ENOENT ? 127 : 126;
    }
    ot_convert_live *live = start_live_conversion(&o, dir);
    int status = wait_program(pid);
    ot_convert_live_program_ended(live);
    remove_preload_link();
    finish_archive(&o, dir, status, pid, o.program[0], live);
    return pass_on(status);
}


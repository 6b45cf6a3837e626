/*
 * Issue 10, part "record/CLI": `offtrace record` as a transparent launcher
 * and the verbs around a recording, against users and programs that do
 * what a tracer would rather they did not: read or convert a recording
 * still being written, signal record instead of the program, kill record,
 * start OpenMP children, exec themselves, bring their own OMPT tool, set a
 * wrong OFFTRACE_* variable, point -o at the archive.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/compare.h"

TestSuite(hostile_process, .timeout = 120);

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* `offtrace record -o dir -- program...` in the background, its stdout and
 * stderr into files. */
static pid_t start_record(const char *dir, char *const program[], const char *out, const char *err)
{
    char cli[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    char *argv[32] = {cli, "record", "-o", (char *)dir, "--"};
    int n = 5;
    for (int i = 0; program[i] && n < 31; i++)
        argv[n++] = program[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        /* A failed assertion ends the test early: record (and, through its
         * own PR_SET_PDEATHSIG, the program) must not outlive it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        setenv("OT_TEST_COUNT_SIGNALS", "1", 1); /* read only by this file's binary (counting_program) */
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        execv(cli, argv);
        _exit(127);
    }
    return pid;
}

/* Waits up to 10 s for \p path to exist (and hold \p text, when given). */
static int wait_for(const char *path, const char *text)
{
    for (int i = 0; i < 1000; i++) {
        char *s = exists(path) ? read_whole_file(path, NULL) : NULL;
        int found = s && (!text || strstr(s, text));
        free(s);
        if (found)
            return 0;
        sleep_ms(10);
    }
    return -1;
}

static int count_lines_with(const char *text, const char *what)
{
    int n = 0;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *copy = strndup(line, len);
        n += strstr(copy, what) != NULL;
        free(copy);
        line += len + (end != NULL);
    }
    return n;
}

/* The recordings of the endless loop are large: not kept once checked. */
static void remove_recording(const char *dir)
{
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    cr_expect_eq(system(command), 0);
}

static pid_t owner_of(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/raw/owner", dir);
    char *s = read_whole_file(path, NULL);
    pid_t pid = s ? (pid_t)atoi(s) : 0;
    free(s);
    return pid;
}

/* Gone, or a zombie waiting for its new parent to reap it. */
static int process_ended(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    char *p = strrchr(buf, ')');
    return !p || p[2] == 'Z' || p[2] == 'X';
}

/* #13: every reader says the recording is still being written, convert
 * refuses it (nothing destroyed), --force converts what is there and keeps
 * raw/; the program then ends and record makes the real archive. */
Test(hostile_process, a_live_recording_is_said_to_be_live_and_left_alone)
{
    char dir[4096], out[4200], err[4200], raw[4200], anchor[4200], svg[4200], json[4200];
    scratch_path(dir, sizeof dir, "process-live");
    snprintf(out, sizeof out, "%s.out", dir);
    snprintf(err, sizeof err, "%s.err", dir);
    snprintf(raw, sizeof raw, "%s/raw", dir);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    snprintf(svg, sizeof svg, "%s.svg", dir);
    snprintf(json, sizeof json, "%s.json", dir);
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/hostile_loop", OFFTRACE_BIN_DIR);
    pid_t record = start_record(dir, (char *[]){prog, NULL}, out, err);
    char owner[4300];
    snprintf(owner, sizeof owner, "%s/owner", raw);
    cr_assert_eq(wait_for(owner, NULL), 0, "no raw/owner appeared");

    const char *readers[][6] = {{"info", dir, NULL},
                                {"report", dir, NULL},
                                {"view", dir, "-o", svg, NULL},
                                {"export", dir, "-o", json, NULL},
                                {"convert", dir, NULL}};
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        run_result r;
        cr_assert_eq(run_offtrace(&r, readers[i][0], readers[i][1], readers[i][2], readers[i][3], NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1, "%s: status %#x", readers[i][0], r.status);
        cr_expect(strstr(r.err, "is still being recorded by process"), "%s said: %s", readers[i][0], r.err);
        cr_expect_eq(count_lines_with(r.err, ""), 1, "%s: not one line: %s", readers[i][0], r.err);
        run_free(&r);
        cr_assert(exists(raw), "%s destroyed the live recording", readers[i][0]);
    }
    cr_assert(!exists(anchor), "an archive was written from a live recording without --force");

    run_result r;
    cr_assert_eq(run_offtrace(&r, "convert", "--force", dir, NULL), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "convert --force: %s", r.err);
    run_free(&r);
    cr_assert(exists(raw), "convert --force removed raw/ under the running program");
    cr_assert(exists(anchor));

    kill(record, SIGINT); /* to record alone: it reaches the program (case 16) */
    int status;
    cr_assert_eq(waitpid(record, &status, 0), record);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "record ended with status %#x", status);
    cr_assert(!exists(raw));
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_assert_gt(f.target, 0);
    cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0);
    cr_expect_eq(r.status, 0, "info after the end: %s", r.err);
    cr_expect(strstr(r.out, "killed by SIGINT"), "%s", r.out);
    run_free(&r);
    remove_recording(dir);
}

/* The recording ended without anyone converting it (record killed): the
 * readers advise `offtrace convert`, which then works. Also #16: the
 * program does not outlive a SIGKILL of record. */
Test(hostile_process, killing_record_ends_the_program_and_leaves_a_convertible_recording)
{
    char dir[4096], out[4200], err[4200], owner[4200], prog[4096];
    scratch_path(dir, sizeof dir, "process-kill9");
    snprintf(out, sizeof out, "%s.out", dir);
    snprintf(err, sizeof err, "%s.err", dir);
    snprintf(owner, sizeof owner, "%s/raw/owner", dir);
    snprintf(prog, sizeof prog, "%s/hostile_loop", OFFTRACE_BIN_DIR);
    pid_t record = start_record(dir, (char *[]){prog, NULL}, out, err);
    cr_assert_eq(wait_for(owner, NULL), 0);
    pid_t program = owner_of(dir);
    cr_assert_gt(program, 0);
    sleep_ms(200);
    kill(record, SIGKILL);
    waitpid(record, NULL, 0);
    int ended = 0;
    for (int i = 0; i < 500 && !(ended = process_ended(program)); i++)
        sleep_ms(10);
    if (!ended)
        kill(program, SIGKILL);
    cr_assert(ended, "the program (pid %d) runs on, recording, after record was killed", (int)program);

    run_result r;
    cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0);
    cr_expect_eq(WEXITSTATUS(r.status), 1);
    cr_expect(strstr(r.err, "run: offtrace convert"), "%s", r.err);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    remove_recording(dir);
}

/* The program for the signal cases is this test binary itself, started
 * with OT_TEST_COUNT_SIGNALS=1: it writes one line per signal it receives
 * (no coalescing in a shell's trap to hide a signal delivered twice), exits
 * 5 on SIGTERM and 0 after 1.5 s. */
static void count_signal(int sig)
{
    const char *line = sig == SIGINT ? "INT\n" : sig == SIGUSR1 ? "USR1\n" : "TERM\n";
    ssize_t ignored = write(1, line, strlen(line));
    (void)ignored;
    if (sig == SIGTERM)
        _exit(5);
}

__attribute__((constructor)) static void signal_counter_program(void)
{
    if (!getenv("OT_TEST_COUNT_SIGNALS"))
        return;
    struct sigaction sa = {.sa_handler = count_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    ssize_t ignored = write(1, "ready\n", 6);
    for (int i = 0; i < 150; i++)
        sleep_ms(10);
    ignored = write(1, "end\n", 4);
    (void)ignored;
    _exit(0);
}

static char *counting_program(void)
{
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    return self;
}

/* #16: signals a user sends to record alone reach the program, once each. */
Test(hostile_process, signals_sent_to_record_reach_the_program_once)
{
    char dir[4096], out[4200], err[4200];
    scratch_path(dir, sizeof dir, "process-signals");
    snprintf(out, sizeof out, "%s.out", dir);
    snprintf(err, sizeof err, "%s.err", dir);
    pid_t record = start_record(dir, (char *[]){counting_program(), NULL}, out, err);
    cr_assert_eq(wait_for(out, "ready\n"), 0);
    int sigs[] = {SIGUSR1, SIGINT, SIGTERM};
    const char *seen[] = {"ready\nUSR1\n", "ready\nUSR1\nINT\n", NULL};
    for (int i = 0; i < 3; i++) {
        kill(record, sigs[i]);
        if (seen[i])
            cr_assert_eq(wait_for(out, seen[i]), 0, "the program did not get signal %d", sigs[i]);
    }
    int status;
    cr_assert_eq(waitpid(record, &status, 0), record);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 5, "record ended with %#x", status);
    char *text = read_whole_file(out, NULL);
    cr_assert_str_eq(text, "ready\nUSR1\nINT\nTERM\n");
    free(text);
}

/* #16: Ctrl-C on a terminal reaches record and the program (one process
 * group); record must not send it a second time. */
Test(hostile_process, a_terminal_interrupt_reaches_the_program_once)
{
    char dir[4096], cli[4096];
    scratch_path(dir, sizeof dir, "process-tty");
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    int master;
    char *program = counting_program();
    pid_t record = forkpty(&master, NULL, NULL, NULL);
    cr_assert_geq(record, 0);
    if (record == 0) {
        setenv("OT_TEST_COUNT_SIGNALS", "1", 1);
        execl(cli, cli, "record", "-o", dir, "--", program, (char *)NULL);
        _exit(127);
    }
    char text[8192] = "";
    size_t used = 0;
    int interrupted = 0;
    for (;;) {
        ssize_t n = read(master, text + used, sizeof text - 1 - used);
        if (n <= 0)
            break; /* EIO: every process on the terminal is gone */
        used += (size_t)n;
        text[used] = '\0';
        if (!interrupted && strstr(text, "ready")) {
            sleep_ms(50);
            cr_assert_eq(write(master, "\003", 1), 1);
            interrupted = 1;
        }
    }
    close(master);
    int status;
    waitpid(record, &status, 0);
    cr_assert(interrupted);
    cr_assert_eq(count_lines_with(text, "INT"), 1, "the program saw Ctrl-C not once:\n%s", text);
    cr_assert(strstr(text, "end"), "%s", text);
}

/* #16, job control: Ctrl-Z stops the program and record with it (the shell
 * sees its job stopped), and the shell's SIGCONT to the group continues both. */
Test(hostile_process, ctrl_z_stops_record_with_the_program_and_fg_continues_both)
{
    char dir[4096], cli[4096];
    scratch_path(dir, sizeof dir, "process-ctrlz");
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    int master;
    char *program = counting_program();
    pid_t record = forkpty(&master, NULL, NULL, NULL);
    cr_assert_geq(record, 0);
    if (record == 0) {
        setenv("OT_TEST_COUNT_SIGNALS", "1", 1);
        execl(cli, cli, "record", "-o", dir, "--", program, (char *)NULL);
        _exit(127);
    }
    char text[8192] = "";
    size_t used = 0;
    while (!strstr(text, "ready")) {
        ssize_t n = read(master, text + used, sizeof text - 1 - used);
        cr_assert_gt(n, 0);
        used += (size_t)n;
        text[used] = '\0';
    }
    cr_assert_eq(write(master, "\032", 1), 1); /* Ctrl-Z */
    int status = 0, stopped = 0;
    for (int i = 0; i < 300 && !stopped; i++) {
        stopped = waitpid(record, &status, WNOHANG | WUNTRACED) == record && WIFSTOPPED(status);
        if (!stopped)
            sleep_ms(10);
    }
    if (!stopped)
        kill(record, SIGKILL);
    cr_assert(stopped, "Ctrl-Z stopped the program but not record: the shell would wait on a job that never stops");
    kill(-record, SIGCONT); /* the shell's `fg`: record leads the terminal's session and process group */
    for (;;) {
        ssize_t n = read(master, text + used, sizeof text - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
        text[used] = '\0';
    }
    close(master);
    cr_assert_eq(waitpid(record, &status, 0), record);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x:\n%s", status, text);
    cr_assert(strstr(text, "end"), "the program was not continued:\n%s", text);
}

/* #17: OpenMP children (by system() and posix_spawn) under record: their
 * stderr untouched, the untraced ones said once by record itself. */
Test(hostile_process, openmp_children_are_left_alone_and_said_once)
{
    char dir[4096], basic[4096], cmd[4200];
    scratch_path(dir, sizeof dir, "process-children");
    snprintf(basic, sizeof basic, "%s/hostile_basic", OFFTRACE_BIN_DIR);
    snprintf(cmd, sizeof cmd, "%s 2", basic);
    compared_runs c;
    cr_assert_eq(compare_runs(dir, NULL, NULL, "hostile_sys", (char *[]){cmd, basic, "3", NULL}, &c), 0);
    const char *why = compare_difference(&c);
    cr_assert(!why, "%s", why);
    cr_assert(!strstr(c.traced.err, "cannot use output directory"), "a child spoke:\n%s", c.traced.err);
    cr_assert_eq(count_lines_with(c.traced.err, "2 other processes of the program used OpenMP and were not traced"),
                 1, "%s", c.traced.err);
    compare_free(&c);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_assert_eq(f.target, 20);
}

/* #18: a program that execs itself: the image before the exec is traced,
 * and the archive and record say why the rest is missing. */
Test(hostile_process, an_exec_of_itself_is_said_as_such)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "process-selfexec");
    compared_runs c;
    cr_assert_eq(compare_runs(dir, NULL, NULL, "hostile_selfexec", NULL, &c), 0);
    const char *why = compare_difference(&c);
    cr_assert(!why, "%s", why);
    cr_assert_eq(count_lines_with(c.traced.err, "offtrace: the program replaced itself by exec ("), 1, "%s", c.traced.err);
    cr_assert(!strstr(c.traced.err, "_exit"), "%s", c.traced.err);
    compare_free(&c);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_assert_eq(f.target, 30);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0);
    cr_assert(strstr(r.out, "PARTIAL") && strstr(r.out, "replaced itself by exec"), "%s", r.out);
    run_free(&r);
}

/* #20: a wrong OFFTRACE_* variable: one line from record, nothing run. */
Test(hostile_process, a_wrong_variable_is_one_line_and_nothing_runs)
{
    /* The library's variables, one record overrides (ENABLE) and the device
     * collector's, which record checks with the collector's own parser. */
    const char *bad[][2] = {{"OFFTRACE_MEMORY_BUDGET=abc", "OFFTRACE_MEMORY_BUDGET='abc'"},
                            {"OFFTRACE_ENABLE=maybe", "OFFTRACE_ENABLE='maybe'"},
                            {"OFFTRACE_DEVICE_BUFFER_SIZE=zz", "OFFTRACE_DEVICE_BUFFER_SIZE='zz'"},
                            {"OFFTRACE_TEST_DEVICE_CLOCK=a:b:c", "OFFTRACE_TEST_DEVICE_CLOCK='a:b:c'"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char dir[4096], cli[4096], prog[4096];
        scratch_path(dir, sizeof dir, "process-badenv");
        snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
        snprintf(prog, sizeof prog, "%s/hostile_basic", OFFTRACE_BIN_DIR);
        run_result r;
        cr_assert_eq(run_command((char *[]){cli, "record", "-o", dir, "--", prog, "5", NULL},
                                 (char *[]){(char *)bad[i][0], NULL}, NULL, &r), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "%s: status %#x", bad[i][0], r.status);
        cr_expect_str_empty(r.out);
        cr_expect_eq(count_lines_with(r.err, ""), 1, "%s: %s", bad[i][0], r.err);
        cr_expect(strstr(r.err, bad[i][1]), "%s", r.err);
        cr_expect(!exists(dir));
        run_free(&r);
    }
}

/* #21: no verb's -o may land on the archive it reads. */
Test(hostile_process, no_output_file_may_overwrite_the_archive)
{
    char dir[4096], anchor[4200], def[4200], inside[4200], link[4200];
    scratch_path(dir, sizeof dir, "process-output");
    cr_assert_eq(record_program(dir, NULL, NULL, "hostile_basic", (char *[]){"3", "0", NULL}, NULL), 0);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    snprintf(def, sizeof def, "%s/traces.def", dir);
    snprintf(inside, sizeof inside, "%s/traces/x.svg", dir);
    snprintf(link, sizeof link, "%s-link.json", dir);
    unlink(link);
    cr_assert_eq(symlink(anchor, link), 0);
    size_t before_size;
    char *before = read_whole_file(anchor, &before_size);
    cr_assert(before);
    const char *calls[][6] = {{"report", "-o", anchor, dir, NULL},
                              {"report", "-o", dir, dir, NULL},
                              {"report", "--json", "-o", def, dir, NULL},
                              {"view", dir, "-o", inside, NULL},
                              {"export", dir, "-o", link, NULL}};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        run_result r;
        cr_assert_eq(run_offtrace(&r, calls[i][0], calls[i][1], calls[i][2], calls[i][3], calls[i][4], NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "%s -o %s: status %#x", calls[i][0],
                  calls[i][2], r.status);
        cr_expect(strstr(r.err, "would overwrite part of the archive"), "%s", r.err);
        run_free(&r);
    }
    size_t after_size;
    char *after = read_whole_file(anchor, &after_size);
    cr_assert(after && after_size == before_size && !memcmp(before, after, before_size), "the anchor changed");
    free(before);
    free(after);
    char *msg = NULL;
    cr_assert_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
    unlink(link);
}

/* #19: the user's own OMPT tool in OMP_TOOL_LIBRARIES starts under record
 * (offtrace chains it) and the program is otherwise unchanged. */
Test(hostile_process, the_users_own_tool_starts_under_record)
{
    char dir[4096], out[4200], tools[4200], out_env[4300];
    scratch_path(dir, sizeof dir, "process-owntool");
    snprintf(out, sizeof out, "%s.started", dir);
    snprintf(tools, sizeof tools, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-owntool.so", OFFTRACE_LIB_DIR);
    snprintf(out_env, sizeof out_env, "OWNTOOL_OUT=%s", out);
    char *env[] = {tools, out_env, NULL};
    unlink(out);
    cr_assert_eq(record_program(dir, NULL, env, "hostile_basic", (char *[]){"4", "0", NULL}, NULL), 0);
    char *text = read_whole_file(out, NULL);
    cr_assert(text && !strcmp(text, "started\n"), "the user's tool did not start under record");
    free(text);
    char again[4200];
    snprintf(again, sizeof again, "%s-compared", dir);
    compared_runs c;
    cr_assert_eq(compare_runs(again, NULL, env, "hostile_basic", (char *[]){"4", "0", NULL}, &c), 0);
    const char *why = compare_difference(&c);
    cr_assert(!why, "%s", why);
    compare_free(&c);
    archive_facts f;
    cr_assert_eq(archive_check(again, &f), 0);
    cr_assert_eq(f.target, 4);
}

/* #19: a tool that asks for callbacks: it gets thread begins as without
 * offtrace, is refused the target events offtrace keeps its ids in and
 * (the device collector being preloaded) the host OpenMP events the host
 * library registers for the host-offload device, and record's run says so
 * in one line; initialize and finalize both reach it. */
Test(hostile_process, the_users_own_tool_is_told_which_callbacks_it_does_not_get)
{
    char dir[4096], plain_out[4200], traced_out[4200], tools[4200], env_plain[4300], env_traced[4300], prog[4096];
    scratch_path(dir, sizeof dir, "process-owntool-callbacks");
    snprintf(plain_out, sizeof plain_out, "%s.plain", dir);
    snprintf(traced_out, sizeof traced_out, "%s.traced", dir);
    snprintf(tools, sizeof tools, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-owntool-callbacks.so", OFFTRACE_LIB_DIR);
    snprintf(env_plain, sizeof env_plain, "OWNTOOL_OUT=%s", plain_out);
    snprintf(env_traced, sizeof env_traced, "OWNTOOL_OUT=%s", traced_out);
    snprintf(prog, sizeof prog, "%s/hostile_basic", OFFTRACE_BIN_DIR);
    run_result r;
    cr_assert_eq(run_command((char *[]){prog, "3", "0", NULL}, (char *[]){tools, env_plain, NULL}, NULL, &r), 0);
    run_free(&r);
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, (char *[]){tools, env_traced, NULL}, "hostile_basic",
                                (char *[]){"3", "0", NULL}, &err), 0);
    char *plain = read_whole_file(plain_out, NULL), *traced = read_whole_file(traced_out, NULL);
    cr_assert(plain && traced, "the tool did not finalize (plain %p, traced %p)", plain, traced);
    int plain_threads = -1, traced_threads = -2, plain_targets = -1, traced_targets = -1;
    char plain_answer[16] = "", traced_answer[16] = "";
    cr_assert_eq(sscanf(plain, "initialized thread_begin=%d target_emi=%15s targets=%d finalized", &plain_threads,
                        plain_answer, &plain_targets), 3, "%s", plain);
    cr_assert_eq(sscanf(traced, "initialized thread_begin=%d target_emi=%15s targets=%d finalized", &traced_threads,
                        traced_answer, &traced_targets), 3, "%s", traced);
    cr_expect_eq(traced_threads, plain_threads);
    cr_expect_str_eq(plain_answer, "always");
    cr_expect_eq(plain_targets, 3);
    cr_expect_str_eq(traced_answer, "never");
    cr_expect_eq(count_lines_with(err, "does not get these callbacks, which offtrace uses itself: target_emi"), 1,
                 "%s", err);
    cr_expect(strstr(plain, "parallel_begin=always"), "%s", plain);
    cr_expect(strstr(traced, "parallel_begin=never"), "%s", traced);
    cr_expect_eq(count_lines_with(err, "which offtrace uses itself: target_emi, parallel_begin"), 1, "%s", err);
    free(plain);
    free(traced);
    free(err);
}

/* Without the device collector (--host-only) and with the program's host
 * OpenMP not recorded (OFFTRACE_HOST_OPENMP=off) offtrace never registers
 * the host OpenMP events, so the user's tool gets them as without offtrace. */
Test(hostile_process, the_users_own_tool_keeps_host_openmp_events_without_the_collector)
{
    char dir[4096], traced_out[4200], tools[4200], env_traced[4300];
    scratch_path(dir, sizeof dir, "process-owntool-host-only");
    snprintf(traced_out, sizeof traced_out, "%s.traced", dir);
    snprintf(tools, sizeof tools, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-owntool-callbacks.so", OFFTRACE_LIB_DIR);
    snprintf(env_traced, sizeof env_traced, "OWNTOOL_OUT=%s", traced_out);
    char *err = NULL;
    cr_assert_eq(record_program(dir, "--host-only", (char *[]){tools, env_traced, "OFFTRACE_HOST_OPENMP=off", NULL},
                                "hostile_basic", (char *[]){"3", "0", NULL}, &err), 0);
    char *traced = read_whole_file(traced_out, NULL);
    cr_assert(traced, "the tool did not finalize");
    cr_expect(strstr(traced, "target_emi=never"), "%s", traced);
    cr_expect(strstr(traced, "parallel_begin=always"), "%s", traced);
    cr_expect_eq(count_lines_with(err, "which offtrace uses itself: target_emi"), 1, "%s", err);
    cr_expect_eq(count_lines_with(err, "parallel_begin"), 0, "%s", err);
    free(traced);
    free(err);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* The contract with the library's exit path under record: raw/status
 * "recorded" means its writer ended the recording cleanly, so the readers
 * advise convert and convert makes a complete archive (PARTIAL=no); any
 * other status left by a writer that is gone makes a partial one. */
Test(hostile_process, a_recording_its_writer_finished_converts_as_complete)
{
    char dir[4096], raw_status[4300], path[4300];
    scratch_path(dir, sizeof dir, "process-recorded");
    cr_assert_eq(record_program(dir, NULL, (char *[]){"OFFTRACE_KEEP_RAW=1", NULL}, "hostile_basic",
                                (char *[]){"3", "0", NULL}, NULL), 0);
    snprintf(raw_status, sizeof raw_status, "%s/raw/status", dir);
    const char *statuses[] = {"recorded", "recording"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "rm -rf '%s/traces' '%s/traces.otf2' '%s/traces.def'", dir, dir, dir);
        cr_assert_eq(system(path), 0);
        write_text(raw_status, statuses[i]);
        run_result r;
        cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0);
        cr_expect_eq(WEXITSTATUS(r.status), 1);
        cr_expect(strstr(r.err, i == 0 ? "holds a finished recording that was not converted yet"
                                       : "holds an unconverted recording"), "%s", r.err);
        run_free(&r);
        cr_assert_eq(run_offtrace(&r, "convert", "--keep-raw", dir, NULL), 0);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cr_expect_eq(strstr(r.err, "PARTIAL") == NULL, i == 0, "status %s:\n%s", statuses[i], r.err);
        run_free(&r);
        archive_facts f;
        cr_assert_eq(archive_check(dir, &f), 0);
        cr_assert_eq(f.target, 3);
        cr_assert_eq(run_offtrace(&r, "info", dir, NULL), 0); /* raw/ kept: the archive is the one to read */
        cr_expect_eq(r.status, 0, "%s", r.err);
        run_free(&r);
    }
}

/* The files readers consult to tell a live recording (raw/owner, raw/status)
 * are read only when they are plain files: a FIFO put there blocked `info`
 * and `convert` for ever. */
Test(hostile_process, a_fifo_in_place_of_the_liveness_files_blocks_no_reader, .timeout = 20)
{
    char dir[4096], raw[4200], path[4300];
    scratch_path(dir, sizeof dir, "fifo-owner");
    snprintf(raw, sizeof raw, "%s/raw", dir);
    cr_assert_eq(mkdir(dir, 0777), 0);
    cr_assert_eq(mkdir(raw, 0777), 0);
    const char *names[] = {"owner", "status", "converter"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", raw, names[i]);
        cr_assert_eq(mkfifo(path, 0644), 0);
    }
    const char *verbs[] = {"info", "convert", "report"};
    for (size_t i = 0; i < 3; i++) {
        run_result r;
        cr_assert_eq(run_offtrace(&r, verbs[i], dir, NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0, "%s: status %#x", verbs[i], r.status);
        cr_expect(!strncmp(r.err, "offtrace", 8), "%s said: %s", verbs[i], r.err);
        run_free(&r);
    }
}

/* Two `offtrace convert` of one recording started at the same moment: one
 * converts, the other says so (the claim on raw/converter is a lock, not a
 * file that both could write). */
Test(hostile_process, two_converts_at_once_convert_once)
{
    for (int round = 0; round < 4; round++) {
        char dir[4096], raw[4200];
        scratch_path(dir, sizeof dir, "two-converts");
        char keep[] = "OFFTRACE_KEEP_RAW=1";
        cr_assert_eq(record_program(dir, NULL, (char *[]){keep, NULL}, "hostile_basic", (char *[]){"20", "0", NULL},
                                    NULL), 0);
        snprintf(raw, sizeof raw, "%s/raw", dir);
        char status[4300];
        snprintf(status, sizeof status, "%s/status", raw);
        FILE *f = fopen(status, "w");
        cr_assert(f);
        fputs("recorded", f); /* as the library leaves it for record to convert */
        fclose(f);
        char cmd[8800];
        snprintf(cmd, sizeof cmd, "rm -rf '%s/traces' '%s/traces.otf2' '%s/traces.def'", dir, dir, dir);
        cr_assert_eq(system(cmd), 0);
        char cli[4096];
        snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' 2>&1 & '%s' convert '%s' 2>&1; wait", cli, dir, cli, dir);
        FILE *p = popen(cmd, "r");
        cr_assert(p);
        char line[1024];
        int archives = 0, refusals = 0;
        while (fgets(line, sizeof line, p)) {
            archives += strstr(line, "offtrace: archive") != NULL;
            refusals += strstr(line, "being converted by process") != NULL || strstr(line, "converted already") != NULL;
        }
        pclose(p);
        cr_assert_eq(archives, 1, "round %d: %d conversions, %d refusals", round, archives, refusals);
        cr_assert_eq(refusals, 1, "round %d: %d conversions, %d refusals", round, archives, refusals);
        archive_facts facts;
        cr_assert_eq(archive_check(dir, &facts), 0);
        cr_assert_eq(facts.target, 20);
    }
}

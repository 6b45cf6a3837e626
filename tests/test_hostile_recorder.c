/*
 * The recorder against programs that treat a tracer as a hostile user would
 * (issue 10, part "recorder"): programs that close every descriptor and open
 * their own files, start with stdout closed, run with a descriptor limit of
 * 4 or 10, or write to a nearly full file system; and a recording that
 * reaches its size limit. Each runs untraced and under `offtrace record` and
 * must look the same to its user; the archive must hold everything, or
 * count what it lost, by cause.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/compare.h"

TestSuite(hostile_recorder, .timeout = 120);

static void assert_unchanged(compared_runs *c)
{
    const char *why = compare_difference(c);
    cr_assert(!why, "%s", why);
}

static uint64_t property(const char *dir, const char *name)
{
    uint64_t value = 0;
    cr_assert_eq(archive_property(dir, name, &value), 0, "%s missing from the archive in %s", name, dir);
    return value;
}

/* Every lost record has a cause: LOST_RECORDS is the sum of the causes. */
static uint64_t assert_losses_add_up(const char *dir)
{
    uint64_t lost = property(dir, "OFFTRACE::LOST_RECORDS");
    uint64_t by_cause = property(dir, "OFFTRACE::LOST_DISK_FULL") + property(dir, "OFFTRACE::LOST_SIZE_LIMIT") +
                        property(dir, "OFFTRACE::LOST_NO_DESCRIPTOR") + property(dir, "OFFTRACE::LOST_OTHER_ERRORS");
    cr_assert_eq(lost, by_cause, "%llu records lost, %llu of them with a cause", (unsigned long long)lost,
                 (unsigned long long)by_cause);
    return lost;
}

static void assert_valid_archive(const char *dir, archive_facts *f)
{
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "otf2-print: %s", message ? message : "");
    free(message);
    cr_assert_eq(archive_check(dir, f), 0);
    cr_assert_eq(archive_violations(f), 0, "%s", f->first_problem);
}

/* Enter events of regions whose name contains \p text (otf2-print's view). */
static unsigned regions_entered(const char *dir, const char *text)
{
    char cmd[4400], line[1024];
    snprintf(cmd, sizeof cmd, "otf2-print '%s/traces.otf2' 2>/dev/null", dir);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    unsigned n = 0;
    while (fgets(line, sizeof line, f))
        n += strncmp(line, "ENTER", 5) == 0 && strstr(line, text) != NULL;
    pclose(f);
    return n;
}

/* Case 5: closefrom closes every descriptor >= 3 after 100 regions, opens 12
 * data files on the numbers the tracer had, writes one line to each, and
 * offloads 30,000 more regions. Each file must hold only its line (the
 * tracer appended clock lines to one and mapped 18 MB of records into
 * another), and all 30,100 regions must be in the archive (1,820 were). */
Test(hostile_recorder, a_program_that_closes_every_descriptor_keeps_its_files_and_is_fully_traced)
{
    char work[4096], dir[4200];
    scratch_path(work, sizeof work, "hostile-closefrom");
    cr_assert_eq(mkdir(work, 0777), 0);
    cr_assert_eq(chdir(work), 0);
    snprintf(dir, sizeof dir, "%s/trace", work);
    compared_runs c;
    cr_assert_eq(compare_runs(dir, NULL, NULL, "hostile_closefrom", NULL, &c), 0);
    assert_unchanged(&c);
    compare_free(&c);
    for (int k = 0; k < 12; k++) {
        char name[32], prefix[64];
        snprintf(name, sizeof name, "data.%02d", k);
        size_t length = 0;
        char *text = read_whole_file(name, &length);
        cr_assert_not_null(text, "%s is missing", name);
        int n = snprintf(prefix, sizeof prefix, "user data %d (fd ", k);
        cr_assert(strncmp(text, prefix, (size_t)n) == 0 && strchr(text, '\n') == text + length - 1,
                  "%s is not the program's one line: %zu bytes starting '%.40s'", name, length, text);
        free(text);
    }
    archive_facts f;
    assert_valid_archive(dir, &f);
    cr_assert_eq(f.target, 30100);
    cr_assert_eq(assert_losses_add_up(dir), 0);
    /* The default size limit: a tenth of the free space at start, at least 64M. */
    struct statvfs fs;
    cr_assert_eq(statvfs(work, &fs), 0);
    double tenth = (double)fs.f_bavail * fs.f_frsize / 10;
    double limit = (double)property(dir, "OFFTRACE::MAX_RECORDING_SIZE");
    cr_assert(limit >= 64 << 20 && (tenth < 64 << 20 || (limit > tenth * 0.9 && limit < tenth * 1.1)),
              "limit %.0f, a tenth of the free space %.0f", limit, tenth);
}

/* Runs argv with its stdout closed (stderr captured), as a program started
 * by `cmd >&-` is. */
static void run_with_stdout_closed(char *const argv[], char *const env[], run_result *r)
{
    char *with_sh[80] = {"sh", "-c", "exec 1>&-; exec \"$0\" \"$@\""};
    int n = 3;
    for (int i = 0; argv[i] && n < 78; i++)
        with_sh[n++] = argv[i];
    with_sh[n] = NULL;
    cr_assert_eq(run_command(with_sh, env, NULL, r), 0);
}

/* Case 6: a program started with stdout closed. A file offtrace opens lands
 * on descriptor 1, where the program's printf then wrote (into
 * raw/clock.pairs); offtrace moves its descriptors above 2. */
Test(hostile_recorder, a_program_started_with_stdout_closed_writes_nothing_into_the_recording)
{
    char dir[4096], cli[4200], prog[4200];
    scratch_path(dir, sizeof dir, "hostile-stdout-closed");
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/hostile_basic", OFFTRACE_BIN_DIR);
    char *env[] = {"OFFTRACE_KEEP_RAW=1", NULL};
    compared_runs c = {0};
    run_with_stdout_closed((char *[]){prog, "5", "3", NULL}, env, &c.plain);
    run_with_stdout_closed((char *[]){cli, "record", "-o", dir, "--", prog, "5", "3", NULL}, env, &c.traced);
    assert_unchanged(&c);
    compare_free(&c);

    char path[4300];
    snprintf(path, sizeof path, "%s/raw/clock.pairs", dir);
    char *pairs = read_whole_file(path, NULL);
    cr_assert_not_null(pairs, "no %s (is OFFTRACE_KEEP_RAW honoured?)", path);
    unsigned lines = 0;
    for (char *line = strtok(pairs, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        unsigned long long a, b, d;
        char rest;
        cr_assert_eq(sscanf(line, "%llu %llu %llu%c", &a, &b, &d, &rest), 3, "not a clock pair: '%s'", line);
    }
    free(pairs);
    cr_assert_geq(lines, 3);
    archive_facts f;
    assert_valid_archive(dir, &f);
    cr_assert_eq(f.target, 5);
}

/* Case 8: RLIMIT_NOFILE 4 leaves the program one descriptor: offtrace held
 * it, and libomptarget, unable to load its image, aborted the program. */
Test(hostile_recorder, a_limit_of_four_descriptors_leaves_the_program_unchanged)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "hostile-nofile4");
    compared_runs c;
    cr_assert_eq(compare_runs(dir, NULL, NULL, "hostile_nofile", (char *[]){"4", NULL}, &c), 0);
    assert_unchanged(&c);
    compare_free(&c);
    archive_facts f;
    assert_valid_archive(dir, &f);
    assert_losses_add_up(dir);
    cr_assert(f.target == 1600 || property(dir, "OFFTRACE::LOST_NO_DESCRIPTOR") > 0,
              "%llu of 1600 targets, and no loss for want of a descriptor", (unsigned long long)f.target);
}

/* Case 9: RLIMIT_NOFILE 10 and 8 threads: a third of the targets went
 * missing without a word. Now every one is there, or the loss is counted
 * by cause and shown in record's summary. */
Test(hostile_recorder, a_limit_of_ten_descriptors_loses_nothing_or_says_so)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "hostile-nofile10");
    compared_runs c;
    cr_assert_eq(compare_runs(dir, NULL, NULL, "hostile_nofile", (char *[]){"10", NULL}, &c), 0);
    assert_unchanged(&c);
    archive_facts f;
    assert_valid_archive(dir, &f);
    uint64_t lost = assert_losses_add_up(dir);
    /* Host OpenMP records of a thread before its first offload record are
     * lost under a limit this low by design (stream.h,
     * OT_STREAM_SCARCE_DESCRIPTORS): counted and said like any loss. */
    if (f.target < 1600 || lost > 0) {
        cr_assert_gt(property(dir, "OFFTRACE::LOST_NO_DESCRIPTOR"), 0);
        cr_assert(strstr(c.traced.err, "offtrace: LOST") != NULL, "the loss is not shown:\n%s", c.traced.err);
    }
    compare_free(&c);
}

/* A private tmpfs of 1 MiB (needs root, as the CI machine runs the suite)
 * with all but \p free_kib filled by \p ballast. */
static void nearly_full_tmpfs(const char *name, unsigned free_kib, char mnt[4096], char ballast[4200])
{
    scratch_path(mnt, 4096, name);
    mkdir(mnt, 0777);
    if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0)
        cr_skip_test("cannot mount a private tmpfs here (not root?)");
    struct statvfs fs;
    cr_assert_eq(statvfs(mnt, &fs), 0);
    uint64_t avail = (uint64_t)fs.f_bavail * fs.f_frsize;
    snprintf(ballast, 4200, "%s/ballast", mnt);
    int fd = open(ballast, O_WRONLY | O_CREAT, 0644);
    cr_assert_eq(posix_fallocate(fd, 0, (off_t)(avail - free_kib * 1024ull)), 0);
    close(fd);
}

/* Record hostile_basic \p targets (64K chunks) on a private 1 MiB tmpfs with
 * \p free_kib left: the program must be unchanged. Then, with the room back,
 * the archive (written by `offtrace convert` if there was no room for it)
 * must count the records lost to the full disk. */
static void record_on_a_nearly_full_tmpfs(const char *name, unsigned free_kib, char *targets, char dir[4200])
{
    char mnt[4096], ballast[4200], anchor[4300];
    nearly_full_tmpfs(name, free_kib, mnt, ballast);
    snprintf(dir, 4200, "%s/trace", mnt);
    compared_runs c;
    cr_assert_eq(compare_runs(dir, (char *[]){"-b", "64K", NULL}, NULL, "hostile_basic", (char *[]){targets, "3", NULL},
                              &c), 0);
    assert_unchanged(&c);
    compare_free(&c);
    cr_assert_eq(unlink(ballast), 0);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (access(anchor, F_OK) != 0) { /* no room for the archive either: the recording was kept */
        run_result r;
        cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
        cr_assert_eq(WEXITSTATUS(r.status), 0, "convert: %s", r.err);
        run_free(&r);
    }
    cr_assert_gt(assert_losses_add_up(dir), 0, "the disk was not full enough to test anything");
    cr_assert_gt(property(dir, "OFFTRACE::LOST_DISK_FULL"), 0);
}

/* Case 7: two pages left on the output file system. The stream header was
 * a sparse page, mapped: the program died of SIGBUS at its first record.
 * (No stream fits: the archive has no location, which otf2-print rejects,
 * so only its counts are read here.) */
Test(hostile_recorder, a_file_system_with_two_pages_free_leaves_the_program_unchanged_and_the_loss_counted)
{
    char dir[4200];
    record_on_a_nearly_full_tmpfs("hostile-full-tmpfs", 8, "50", dir);
}

/* The disk fills while the program runs: what fitted is in a valid archive,
 * the rest is counted. */
Test(hostile_recorder, a_file_system_that_fills_during_the_run_keeps_what_fitted_and_counts_the_rest)
{
    char dir[4200];
    record_on_a_nearly_full_tmpfs("hostile-filling-tmpfs", 160, "500", dir);
    archive_facts f;
    assert_valid_archive(dir, &f);
    cr_assert(f.target > 0 && f.target < 500, "%llu targets", (unsigned long long)f.target);
}

/* The recording's disk space is bounded (--max-size, OFFTRACE_MAX_RECORDING_SIZE):
 * past it recording stops with one line, the program goes on unchanged, the
 * loss is counted and the trace shows where it began. */
Test(hostile_recorder, a_recording_stops_at_its_size_limit_and_says_so)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "hostile-size-limit");
    compared_runs c;
    cr_assert_eq(compare_runs(dir, (char *[]){"--max-size", "1M", "-b", "64K", "--host-only", NULL}, NULL,
                              "hostile_many", (char *[]){"20000", NULL}, &c), 0);
    assert_unchanged(&c);
    const char *said = strstr(c.traced.err, "size limit of 1 MiB");
    cr_assert(said && !strstr(said + 1, "size limit of 1 MiB"), "not said once:\n%s", c.traced.err);
    cr_assert(strstr(c.traced.err, "offtrace: SIZE LIMIT") != NULL, "not in the summary:\n%s", c.traced.err);
    cr_assert(strstr(c.traced.err, "records could not be stored: ") && strstr(c.traced.err, " size limit\n"),
              "the loss by cause is not in the summary:\n%s", c.traced.err);
    compare_free(&c);
    archive_facts f;
    assert_valid_archive(dir, &f);
    cr_assert_gt(assert_losses_add_up(dir), 0);
    cr_assert_gt(property(dir, "OFFTRACE::LOST_SIZE_LIMIT"), 0);
    cr_assert_eq(property(dir, "OFFTRACE::SIZE_LIMIT_REACHED"), 1);
    cr_assert_leq(property(dir, "OFFTRACE::RECORDING_BYTES"), 1u << 20);
    cr_assert_eq(property(dir, "OFFTRACE::MAX_RECORDING_SIZE"), 1u << 20);
    cr_assert(f.target > 0 && f.target < 20000, "%llu targets", (unsigned long long)f.target);
    cr_assert_eq(regions_entered(dir, "offtrace: size limit reached"), 1);
}

Test(hostile_recorder, a_wrong_size_limit_is_one_line_and_nothing_runs)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "--max-size", "12parsecs", "--", "true", NULL), 0);
    cr_assert_neq(WEXITSTATUS(r.status), 0);
    cr_assert_str_eq(r.err, "offtrace record: --max-size '12parsecs' is not a size of at least 1M, such as 512M or "
                            "20G, or unlimited (see offtrace record --help)\n");
    run_free(&r);
}

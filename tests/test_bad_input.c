/*
 * Every verb that reads an archive (info, export, and report and view when
 * this build has them) on bad input: directories that are no archive,
 * archives missing a part, every file of a real archive cut at several
 * lengths, and random bytes flipped by a fixed-seed generator. Each run
 * must end by itself within a time limit, exit 0 or exit non-zero with a
 * message on stderr, never die of a signal, and never leave a half output
 * file (or its .partial) behind.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check/foreign_archive.h"
#include "check/run.h"
#include "check/synthetic_archive.h"

#define RUN_LIMIT_S 10      /* far above a healthy run (~20 ms) */
#define FLIP_ROUNDS 60
#define MAX_FILES 64

static char cli[4096];
static int have_report, have_view;

/* ---- running with a time limit ---- */

typedef struct limited {
    int status;
    int timed_out;
    char *err;      /* stderr, malloc'd */
} limited;

static char *slurp_fd(int fd)
{
    off_t n = lseek(fd, 0, SEEK_END);
    char *buf = malloc((size_t)n + 1);
    ssize_t got = pread(fd, buf, (size_t)n, 0);
    buf[got > 0 ? got : 0] = '\0';
    return buf;
}

/* Wait for pid until `limit_s`; polls (runs last milliseconds, a signal-based
 * timer would race with Criterion's own). \return 0, or -1 on timeout. */
static int wait_limited(pid_t pid, int *status, unsigned limit_s)
{
    struct timespec start, now, nap = {0, 200000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid)
            return 0;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= (time_t)limit_s)
            return -1;
        nanosleep(&nap, NULL);
        if (nap.tv_nsec < 5000000)
            nap.tv_nsec *= 2;
    }
}

/* argv in its own process group (so that the verb's isolated child dies
 * with it), stdout discarded, stderr captured. */
static void run_limited(char *const argv[], limited *r)
{
    FILE *err = tmpfile();
    cr_assert_not_null(err);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        setpgid(0, 0);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(fileno(err), 2);
        execv(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid);
    r->timed_out = wait_limited(pid, &r->status, RUN_LIMIT_S) != 0;
    if (r->timed_out) {
        kill(-pid, SIGKILL);
        waitpid(pid, &r->status, 0);
    }
    r->err = slurp_fd(fileno(err));
    fclose(err);
}

/* ---- the verbs ---- */

/* `offtrace --help` lists the verbs this build has. */
static void detect_verbs(void)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "--help", NULL), 0);
    for (char *line = r.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        char word[32];
        if (sscanf(line, " %31s", word) == 1) {
            have_report |= !strcmp(word, "report");
            have_view |= !strcmp(word, "view");
        }
    }
    run_free(&r);
}

static void setup(void)
{
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    detect_verbs();
}

TestSuite(bad_input, .init = setup, .timeout = 60);

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* One verb on one case: a clean end, a message when it failed, no leftovers. */
static void expect_clean(char *const argv[], const char *output, const char *what)
{
    limited r;
    run_limited(argv, &r);
    cr_assert(!r.timed_out, "offtrace %s hung on %s", argv[1], what);
    cr_assert(!WIFSIGNALED(r.status), "offtrace %s died of signal %d on %s", argv[1], WTERMSIG(r.status), what);
    cr_assert(WIFEXITED(r.status));
    int failed = WEXITSTATUS(r.status) != 0;
    cr_assert(!failed || (r.err[0] && strchr(r.err, '\n')), "offtrace %s exited %d on %s without a message",
              argv[1], WEXITSTATUS(r.status), what);
    if (output) {
        char partial[4300];
        snprintf(partial, sizeof partial, "%s.partial", output);
        cr_assert(!exists(partial), "offtrace %s left %s on %s", argv[1], partial, what);
        cr_assert(!failed || !exists(output), "offtrace %s failed on %s but left %s", argv[1], what, output);
        unlink(output);
    }
    free(r.err);
}

/* Every archive-reading verb on `dir`; outputs go to `out_base`.json/.svg. */
static void all_verbs(const char *dir, const char *out_base, const char *what)
{
    char json[4200], svg[4200];
    snprintf(json, sizeof json, "%s.json", out_base);
    snprintf(svg, sizeof svg, "%s.svg", out_base);
    char *info[] = {cli, "info", (char *)dir, NULL};
    char *export[] = {cli, "export", "--format", "chrome", (char *)dir, "-o", json, NULL};
    char *report[] = {cli, "report", (char *)dir, NULL};
    char *view[] = {cli, "view", (char *)dir, "-o", svg, NULL};
    expect_clean(info, NULL, what);
    expect_clean(export, json, what);
    if (have_report)
        expect_clean(report, NULL, what);
    if (have_view)
        expect_clean(view, svg, what);
}

/* ---- archives and their files ---- */

typedef struct archive_files {
    char *rel[MAX_FILES];   /* paths inside the archive directory */
    size_t count;
} archive_files;

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    cr_assert(in && out, "cannot copy %s to %s", from, to);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        cr_assert_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

/* The archive's files: the anchor, the global definitions, traces/ *. */
static void list_files(const char *dir, archive_files *f)
{
    f->count = 0;
    f->rel[f->count++] = strdup("traces.otf2");
    f->rel[f->count++] = strdup("traces.def");
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/traces", dir);
    DIR *d = opendir(sub);
    cr_assert_not_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && f->count < MAX_FILES)
            cr_assert_gt(asprintf(&f->rel[f->count++], "traces/%s", e->d_name), 0);
    closedir(d);
    cr_assert_geq(f->count, 4, "a recording with too few files");
}

static void copy_archive(const char *from, const char *to, const archive_files *f)
{
    char a[4400], b[4400];
    snprintf(b, sizeof b, "%s/traces", to);
    cr_assert_eq(mkdir(to, 0777), 0);
    cr_assert_eq(mkdir(b, 0777), 0);
    for (size_t i = 0; i < f->count; i++) {
        snprintf(a, sizeof a, "%s/%s", from, f->rel[i]);
        snprintf(b, sizeof b, "%s/%s", to, f->rel[i]);
        copy_file(a, b);
    }
}

static long file_size(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "no %s", path);
    return (long)st.st_size;
}

/* A small real archive: CG with device detail, every kind of location and event. */
static void record_cg(char *dir, size_t size, archive_files *f)
{
    scratch_path(dir, (unsigned)size, "bad-input-cg");
    char *args[] = {"16", "10", NULL};
    cr_assert_eq(record_program(dir, NULL, NULL, "example_cg", args, NULL), 0);
    list_files(dir, f);
}

/* ---- (a) no archive, or one missing a part ---- */

Test(bad_input, not_an_archive_or_missing_parts)
{
    char orig[4096], base[4096], dir[4300], path[4400];
    archive_files f;
    record_cg(orig, sizeof orig, &f);
    scratch_path(base, sizeof base, "bad-input-struct");
    cr_assert_eq(mkdir(base, 0777), 0);
    snprintf(dir, sizeof dir, "%s/none", base);
    all_verbs(dir, dir, "a directory that does not exist");
    snprintf(dir, sizeof dir, "%s/empty", base);
    mkdir(dir, 0777);
    all_verbs(dir, dir, "an empty directory");
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    FILE *t = fopen(path, "w");
    fputs("not a trace\n", t);
    fclose(t);
    all_verbs(dir, dir, "a directory of other files");
    all_verbs(path, dir, "a regular file");
    const char *removed[] = {"traces.otf2", "traces.def", "traces/0.evt", "traces/0.def"};
    for (size_t i = 0; i < sizeof removed / sizeof removed[0]; i++) {
        snprintf(dir, sizeof dir, "%s/missing-%zu", base, i);
        copy_archive(orig, dir, &f);
        snprintf(path, sizeof path, "%s/%s", dir, removed[i]);
        cr_assert_eq(unlink(path), 0);
        char what[200];
        snprintf(what, sizeof what, "an archive without %s", removed[i]);
        all_verbs(dir, dir, what);
    }
    snprintf(dir, sizeof dir, "%s/no-traces-dir", base);
    copy_archive(orig, dir, &f);
    snprintf(path, sizeof path, "rm -rf '%s/traces'", dir);
    cr_assert_eq(system(path), 0);
    all_verbs(dir, dir, "an archive without traces/");
    snprintf(dir, sizeof dir, "%s/empty-anchor", base);
    copy_archive(orig, dir, &f);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    cr_assert_eq(truncate(path, 0), 0);
    all_verbs(dir, dir, "an empty traces.otf2");
}

/* ---- (b) every file cut short ---- */

Test(bad_input, truncated_files)
{
    char orig[4096], work[4200], file[4400], what[4600];
    archive_files f;
    record_cg(orig, sizeof orig, &f);
    snprintf(work, sizeof work, "%s-work", orig);
    copy_archive(orig, work, &f);
    for (size_t i = 0; i < f.count; i++) {
        snprintf(file, sizeof file, "%s/%s", work, f.rel[i]);
        long n = file_size(file);
        long cuts[] = {0, 1, n / 4, n / 2, 3 * n / 4, n - 1};
        for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
            if (cuts[c] >= n || (c > 0 && cuts[c] <= cuts[c - 1]))
                continue;
            cr_assert_eq(truncate(file, cuts[c]), 0);
            snprintf(what, sizeof what, "%s cut to %ld of %ld bytes", f.rel[i], cuts[c], n);
            all_verbs(work, work, what);
        }
        snprintf(what, sizeof what, "%s/%s", orig, f.rel[i]);
        copy_file(what, file);
    }
}

/* ---- (c) random bytes flipped ---- */

/* xorshift64*: a fixed seed makes every run damage the same bytes. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1Dull;
}

/* Flip 1..16 bytes of `path` (XOR with a non-zero value); describes them in what. */
static void flip_bytes(const char *path, uint64_t *rng, char *what, size_t size)
{
    long n = file_size(path);
    if (n == 0)
        return;
    int fd = open(path, O_RDWR);
    cr_assert_geq(fd, 0);
    unsigned flips = 1 + (unsigned)(next_random(rng) % 16);
    size_t used = strlen(what);
    for (unsigned k = 0; k < flips; k++) {
        off_t at = (off_t)(next_random(rng) % (uint64_t)n);
        unsigned char b, mask = (unsigned char)(1 + next_random(rng) % 255);
        cr_assert_eq(pread(fd, &b, 1, at), 1);
        b ^= mask;
        cr_assert_eq(pwrite(fd, &b, 1, at), 1);
        if (used < size)
            used += (size_t)snprintf(what + used, size - used, " %ld^%02x", (long)at, mask);
    }
    close(fd);
}

Test(bad_input, flipped_bytes)
{
    char orig[4096], work[4200], file[4400], what[1024];
    archive_files f;
    record_cg(orig, sizeof orig, &f);
    snprintf(work, sizeof work, "%s-work", orig);
    copy_archive(orig, work, &f);
    uint64_t rng = 0x6f66667472616365ull; /* "offtrace" */
    for (int round = 0; round < FLIP_ROUNDS; round++) {
        size_t i = (size_t)(next_random(&rng) % f.count);
        snprintf(file, sizeof file, "%s/%s", work, f.rel[i]);
        snprintf(what, sizeof what, "round %d: %s with bytes flipped at", round, f.rel[i]);
        flip_bytes(file, &rng, what, sizeof what);
        all_verbs(work, work, what);
        char source[4400];
        snprintf(source, sizeof source, "%s/%s", orig, f.rel[i]);
        copy_file(source, file);
    }
}

/* ---- (d) an archive another producer wrote ---- */

/* Every verb refuses the archive in \p dir: exit 2, one line that says \p why, no output left. */
static void expect_every_verb_refuses(const char *dir, const char *why)
{
    char json[4200], svg[4200];
    snprintf(json, sizeof json, "%s.json", dir);
    snprintf(svg, sizeof svg, "%s.svg", dir);
    char *verbs[][8] = {
        {cli, "info", (char *)dir, NULL},
        {cli, "export", "--format", "chrome", (char *)dir, "-o", json, NULL},
        {cli, "report", (char *)dir, NULL},
        {cli, "view", (char *)dir, "-o", svg, NULL},
    };
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        if ((i == 2 && !have_report) || (i == 3 && !have_view))
            continue;
        limited r;
        run_limited(verbs[i], &r);
        cr_assert(!r.timed_out && WIFEXITED(r.status), "offtrace %s did not end cleanly", verbs[i][1]);
        cr_assert_eq(WEXITSTATUS(r.status), 2, "offtrace %s exited %d: %s", verbs[i][1], WEXITSTATUS(r.status),
                     r.err);
        cr_assert_not_null(strstr(r.err, why), "%s", r.err);
        cr_assert_eq(strchr(r.err, '\n'), strrchr(r.err, '\n'), "more than one line: %s", r.err);
        free(r.err);
    }
    cr_assert(!exists(json) && !exists(svg), "an output file was left behind");
}

Test(bad_input, archive_of_another_producer)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "foreign");
    cr_assert_eq(write_foreign_archive(dir), 0);
    expect_every_verb_refuses(dir, "written by 'other-tool 1.0', not by offtrace");
}

/* ---- (e) regions that do not nest ---- */

/* The one reader pairs regions for every verb: a Leave that does not end
 * the innermost open region of its location is a damaged archive. */
Test(bad_input, a_leave_of_another_region_than_the_innermost_open_one)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "mismatched");
    cr_assert_eq(write_mismatched_archive(dir), 0);
    expect_every_verb_refuses(dir, "does not end the innermost open region");
}

/*
 * `offtrace report` end to end: on real archives of the examples, the
 * report's counts and bytes equal what an independent reader finds in the
 * archive and what the runtime reported to a counting tool; the findings
 * fire on the example written with each mistake, at the marked lines, and
 * stay silent on the one without them; options, JSON and bad input.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/host_openmp_check.h"
#include "check/json_check.h"
#include "check/json_walk.h"
#include "check/run.h"
#include "check/runtime_counts.h"

TestSuite(report, .timeout = 120);

/* ---- running things ---- */

static void record(const char *example, char *dir, size_t size)
{
    scratch_path(dir, (unsigned)size, example);
    char *err = NULL;
    int rc = record_program(dir, NULL, NULL, example, NULL, &err);
    cr_assert_eq(rc, 0, "record %s failed: %s", example, err ? err : "");
    free(err);
}

static int exit_status(const run_result *r)
{
    return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status);
}

/* `offtrace report --json DIR`, which must succeed and be valid JSON. */
static char *report_json(const char *dir)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", "--json", dir, NULL), 0);
    cr_assert_eq(exit_status(&r), 0, "report --json %s: %s", dir, r.err);
    size_t at = 0;
    cr_assert_eq(json_check(r.out, strlen(r.out), &at), 0, "invalid JSON at byte %zu: %.80s", at, r.out + at);
    char *out = r.out;
    r.out = NULL;
    run_free(&r);
    return out;
}

/* ---- reading the report's JSON (check/json_walk.h; these assert what a test needs to be there) ---- */

static const char *member(const char *obj, const char *key)
{
    cr_assert(obj && *obj == '{', "not an object");
    return json_member(obj, key);
}

static long long number(const char *obj, const char *key)
{
    const char *v = member(obj, key);
    cr_assert_not_null(v, "no member %s", key);
    return strtoll(v, NULL, 10);
}

static int string_is(const char *obj, const char *key, const char *want)
{
    return json_string_is(obj, key, want);
}

/* The \p i-th element of the array \p key of the object at \p obj, or NULL past its end. */
static const char *element(const char *obj, const char *key, size_t i)
{
    const char *p = member(obj, key);
    cr_assert(p && *p == '[', "no array %s", key);
    return json_element(obj, key, i);
}

static size_t length(const char *obj, const char *key)
{
    return json_length(obj, key);
}

/* ---- counts against the archive and the runtime ---- */

typedef struct report_sums {
    long long kernels, h2d, h2d_bytes, d2h, d2h_bytes;                   /* devices */
    long long construct[4], construct_kernels, construct_h2d, construct_d2h_bytes; /* constructs */
    long long kernel_rows, xsite_count, xsite_bytes;                      /* kernels, transfer_sites */
} report_sums;

static void sum_devices(const char *json, report_sums *s)
{
    for (size_t i = 0; element(json, "devices", i); i++) {
        const char *d = element(json, "devices", i);
        s->kernels += number(d, "kernels");
        s->h2d += number(member(d, "host_to_device"), "count");
        s->h2d_bytes += number(member(d, "host_to_device"), "bytes");
        s->d2h += number(member(d, "device_to_host"), "count");
        s->d2h_bytes += number(member(d, "device_to_host"), "bytes");
    }
}

static void sum_tables(const char *json, report_sums *s)
{
    static const char *kinds[4] = {"target", "enter_data", "exit_data", "update"};
    for (size_t i = 0; element(json, "constructs", i); i++) {
        const char *c = element(json, "constructs", i);
        for (int k = 0; k < 4; k++)
            if (string_is(c, "kind", kinds[k]))
                s->construct[k] += number(c, "count");
        s->construct_kernels += number(c, "kernels");
        s->construct_h2d += number(member(c, "host_to_device"), "count");
        s->construct_d2h_bytes += number(member(c, "device_to_host"), "bytes");
    }
    for (size_t i = 0; element(json, "kernels", i); i++)
        s->kernel_rows += number(element(json, "kernels", i), "count");
    for (size_t i = 0; element(json, "transfer_sites", i); i++) {
        s->xsite_count += number(element(json, "transfer_sites", i), "count");
        s->xsite_bytes += number(element(json, "transfer_sites", i), "bytes");
    }
}

/* The report's numbers equal the archive's (archive_check) and the runtime's. */
static char *counts_match(const char *example, unsigned devices)
{
    runtime_counts rt;
    cr_assert_eq(runtime_counts_of(example, &rt), 0, "%s", rt.problem);
    char dir[4096];
    record(example, dir, sizeof dir);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s: %s", example, f.first_problem);
    char *json = report_json(dir);
    report_sums s = {0};
    sum_devices(json, &s);
    sum_tables(json, &s);
    cr_assert_eq(length(json, "devices"), devices);
    cr_assert_eq(s.kernels, (long long)f.kernels, "kernels: report %lld, archive %llu", s.kernels,
                 (unsigned long long)f.kernels);
    cr_assert_eq(s.kernels, (long long)rt.kernels);
    cr_assert_eq(s.h2d, (long long)f.puts);
    cr_assert_eq(s.h2d, (long long)rt.h2d);
    cr_assert_eq(s.h2d_bytes, (long long)f.put_bytes);
    cr_assert_eq(s.h2d_bytes, (long long)rt.h2d_bytes);
    cr_assert_eq(s.d2h, (long long)f.gets);
    cr_assert_eq(s.d2h, (long long)rt.d2h);
    cr_assert_eq(s.d2h_bytes, (long long)f.get_bytes);
    cr_assert_eq(s.d2h_bytes, (long long)rt.d2h_bytes);
    /* per construct: the sums are the archive's and the runtime's construct counts */
    cr_assert_eq(s.construct[0], (long long)f.target);
    cr_assert_eq(s.construct[0], (long long)rt.target);
    cr_assert_eq(s.construct[1], (long long)f.enter_data);
    cr_assert_eq(s.construct[1], (long long)rt.enter_data);
    cr_assert_eq(s.construct[2], (long long)f.exit_data);
    cr_assert_eq(s.construct[3], (long long)f.update);
    cr_assert_eq(number(member(json, "summary"), "target_data_regions"), (long long)f.data_regions);
    /* every kernel and transfer lands in exactly one row of each table */
    cr_assert_eq(number(member(json, "summary"), "unattributed_kernels"), 0);
    cr_assert_eq(s.construct_kernels, s.kernels);
    cr_assert_eq(s.construct_h2d, s.h2d);
    cr_assert_eq(s.construct_d2h_bytes, s.d2h_bytes);
    cr_assert_eq(s.kernel_rows, s.kernels);
    cr_assert_eq(s.xsite_count, s.h2d + s.d2h);
    cr_assert_eq(s.xsite_bytes, s.h2d_bytes + s.d2h_bytes);
    return json;
}

Test(report, cg_counts_equal_archive_and_runtime)
{
    free(counts_match("example_cg", 1));
}

Test(report, stencil_counts_equal_archive_and_runtime)
{
    free(counts_match("example_stencil", 1));
}

Test(report, saxpy_counts_equal_archive_and_runtime)
{
    free(counts_match("example_saxpy", 1));
}

Test(report, enter_exit_counts_equal_archive_and_runtime)
{
    char *json = counts_match("example_enter_exit", 1);
    long long api = 0;
    for (size_t i = 0; element(json, "constructs", i); i++)
        if (string_is(element(json, "constructs", i), "kind", "api"))
            api += number(element(json, "constructs", i), "count");
    cr_assert_geq(api, 2, "the omp_target_memcpy calls are sites of their own");
    free(json);
}

Test(report, two_devices_counts_equal_archive_and_runtime)
{
    char *json = counts_match("example_two_devices", 2);
    /* device(0) runs one kernel, device(1) two (examples/two_devices.c) */
    for (size_t i = 0; i < 2; i++) {
        const char *d = element(json, "devices", i);
        cr_assert_eq(number(d, "device"), (long long)i);
        cr_assert_eq(number(d, "kernels"), (long long)i + 1);
    }
    free(json);
}

/* ---- findings ---- */

/* The line of examples/NAME holding \p marker. */
static long long marked_line(const char *name, const char *marker)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", OFFTRACE_EXAMPLES_DIR, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    long long n = 0, found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, marker) && strstr(line, "#pragma"))
            found = n;
    }
    fclose(f);
    cr_assert_geq(found, 1, "no line with '%s' in %s", marker, path);
    return found;
}

/* The finding of \p kind at \p line, or NULL. */
static const char *finding(const char *json, const char *kind, long long line)
{
    for (size_t i = 0; element(json, "findings", i); i++) {
        const char *f = element(json, "findings", i);
        if (string_is(f, "kind", kind) && number(f, "line") == line)
            return f;
    }
    return NULL;
}

static const char *expect_finding(const char *json, const char *kind, const char *marker)
{
    long long line = marked_line("transfer_mistakes.c", marker);
    const char *f = finding(json, kind, line);
    cr_assert_not_null(f, "no %s finding at transfer_mistakes.c:%lld", kind, line);
    cr_assert_gt(number(f, "time_at_stake_ns"), 0);
    return f;
}

/* No line of the text report is wider than 100 columns. */
static void fits_100_columns(const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        cr_assert_leq(n, 100, "line wider than 100 columns: %.*s", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

#define MIB (1024ll * 1024)
#define STEPS 4   /* examples/transfer_mistakes.c's default */
#define NSRC 32

Test(report, findings_fire_on_transfer_mistakes_at_their_lines)
{
    char dir[4096];
    record("example_transfer_mistakes", dir, sizeof dir);
    char *json = report_json(dir);
    const char *f = expect_finding(json, "repeated_upload", "MISTAKES 1, 2");
    cr_assert_eq(number(f, "count"), STEPS - 1, "coef goes out again in every step but the first");
    cr_assert_eq(number(f, "bytes_at_stake"), (STEPS - 1) * 32 * MIB);
    f = expect_finding(json, "round_trip", "MISTAKES 1, 2");
    cr_assert_eq(number(f, "count"), STEPS, "u comes back after the flux kernel and goes out for the update");
    cr_assert_eq(number(f, "bytes_at_stake"), STEPS * 2 * 32 * MIB);
    char partner[64];
    snprintf(partner, sizeof partner, "transfer_mistakes.c:%lld", marked_line("transfer_mistakes.c", "MISTAKE 2 again"));
    cr_assert(string_is(f, "other_site", partner), "round trip partner is not %s", partner);
    f = expect_finding(json, "round_trip", "MISTAKE 2 again");
    cr_assert_eq(number(f, "count"), STEPS - 1);
    f = expect_finding(json, "tiny_transfers", "MISTAKE 3");
    cr_assert_eq(number(f, "count"), NSRC - 1, "all but one of the per-value updates could go together");
    cr_assert_eq(number(f, "bytes_at_stake"), NSRC * 8);
    f = expect_finding(json, "short_kernels", "MISTAKE 4");
    cr_assert_eq(number(f, "count"), STEPS * NSRC);
    f = expect_finding(json, "device_idle", "MISTAKE 5: freed");
    cr_assert_eq(number(f, "count"), STEPS);
    free(json);

    /* the text: three numbered highlights first, the biggest finding among them, all within 100 columns */
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert_eq(exit_status(&r), 0, "%s", r.err);
    const char *one = strstr(r.out, "\n 1. "), *two = strstr(r.out, "\n 2. "), *three = strstr(r.out, "\n 3. ");
    const char *tables = strstr(r.out, "\nDevices\n");
    cr_assert(one && two && three && tables && one < two && two < three && three < tables,
              "no three highlights before the tables:\n%s", r.out);
    cr_assert(strstr(two, "Biggest finding") && strstr(two, "transfer_mistakes.c:"), "%s", r.out);
    /* a loaded machine can add a true one (the host preempted in a construct), never remove one */
    const char *list = strstr(r.out, "\nFindings (");
    cr_assert(list && atoi(list + 11) >= 6, "%s", r.out);
    fits_100_columns(r.out);
    run_free(&r);
}

Test(report, no_findings_on_transfer_done_right)
{
    char dir[4096];
    record("example_transfer_done_right", dir, sizeof dir);
    char *json = report_json(dir);
    cr_assert_eq(length(json, "findings"), 0, "findings on the correct program: %s", strstr(json, "\"findings\""));
    free(json);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert_eq(exit_status(&r), 0);
    cr_assert(strstr(r.out, " 2. No findings"), "%s", r.out);
    fits_100_columns(r.out);
    run_free(&r);
}

/* ---- options ---- */

/* The site of the first row of the constructs table in the text report. */
static void first_construct(const char *text, char site[64])
{
    const char *p = strstr(text, "\nConstructs by source line");
    cr_assert_not_null(p);
    p = strchr(p + 1, '\n');
    p = p ? strchr(p + 1, '\n') : NULL; /* past the column headers */
    cr_assert_not_null(p);
    cr_assert_eq(sscanf(p + 1, "%63s", site), 1);
}

/* Rows of the text table that follows \p title, up to the blank line. */
static int table_rows(const char *text, const char *title)
{
    const char *p = strstr(text, title);
    cr_assert_not_null(p, "no table %s", title);
    p = strchr(p + 1, '\n') + 1; /* past the title */
    p = strchr(p, '\n') + 1;     /* and the column headers */
    int rows = 0;
    for (; *p && *p != '\n' && strncmp(p, "  (", 3) != 0; p = strchr(p, '\n') + 1)
        rows++;
    return rows;
}

Test(report, sort_limit_json_and_output_file)
{
    char dir[4096];
    record("example_cg", dir, sizeof dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", "--limit", "2", dir, NULL), 0);
    cr_assert_eq(exit_status(&r), 0, "%s", r.err);
    cr_assert_eq(table_rows(r.out, "\nConstructs by source line"), 2);
    cr_assert_eq(table_rows(r.out, "\nTop kernels"), 2);
    cr_assert(strstr(r.out, "(5 more; --limit 0 shows all)"), "%s", r.out);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "report", "--limit=0", dir, NULL), 0);
    cr_assert_eq(table_rows(r.out, "\nConstructs by source line"), 7, "cg has 7 construct sites");
    run_free(&r);

    char site[64];
    cr_assert_eq(run_offtrace(&r, "report", "--sort", "count", dir, NULL), 0);
    first_construct(r.out, site);
    cr_assert_str_eq(site, "cg.c:35", "cg.c:35 (dot) runs most often");
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "report", "--sort=name", dir, NULL), 0);
    first_construct(r.out, site);
    cr_assert_str_eq(site, "cg.c:102", "by name, cg.c:102 sorts first");
    run_free(&r);

    cr_assert_eq(run_offtrace(&r, "report", "--json", "--limit", "1", "--sort", "name", dir, NULL), 0);
    cr_assert_eq(json_check(r.out, strlen(r.out), NULL), 0);
    cr_assert_eq(length(r.out, "constructs"), 1);
    cr_assert_eq(length(r.out, "kernels"), 1);
    cr_assert(string_is(element(r.out, "constructs", 0), "site", "cg.c:102"));
    cr_assert_eq(length(member(r.out, "summary"), "highlights"), 3);
    run_free(&r);

    char file[4200];
    snprintf(file, sizeof file, "%s/report.json", dir);
    cr_assert_eq(run_offtrace(&r, "report", "--json", "-o", file, dir, NULL), 0);
    cr_assert_eq(exit_status(&r), 0, "%s", r.err);
    cr_assert_str_eq(r.out, "");
    run_free(&r);
    cr_assert_eq(json_check_file(file, NULL), 0, "%s is not valid JSON", file);
}

/* ---- bad input ---- */

/* Exit \p status, nothing on stdout, exactly one line on stderr. */
static void one_line_error(run_result *r, int status, const char *what)
{
    cr_assert_eq(exit_status(r), status, "%s: exit %d, stderr: %s", what, exit_status(r), r->err);
    cr_assert_str_eq(r->out, "", "%s printed a report", what);
    size_t n = strlen(r->err);
    cr_assert(n > 1 && r->err[n - 1] == '\n' && !strchr(r->err, '\n')[1], "%s: not one line: '%s'", what,
              r->err);
    run_free(r);
}

Test(report, bad_arguments_exit_2_with_one_line)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", "--bogus", "somewhere", NULL), 0);
    one_line_error(&r, 2, "unknown option");
    cr_assert_eq(run_offtrace(&r, "report", "--limit", "x", "somewhere", NULL), 0);
    one_line_error(&r, 2, "bad limit");
    cr_assert_eq(run_offtrace(&r, "report", "--limit", "-3", "somewhere", NULL), 0);
    one_line_error(&r, 2, "negative limit");
    cr_assert_eq(run_offtrace(&r, "report", "--sort", "fastest", "somewhere", NULL), 0);
    one_line_error(&r, 2, "bad sort key");
    cr_assert_eq(run_offtrace(&r, "report", "--sort", NULL), 0);
    one_line_error(&r, 2, "missing sort key");
    cr_assert_eq(run_offtrace(&r, "report", NULL), 0);
    one_line_error(&r, 2, "no directory");
    cr_assert_eq(run_offtrace(&r, "report", "one", "two", NULL), 0);
    one_line_error(&r, 2, "two directories");
    cr_assert_eq(run_offtrace(&r, "report", "--help", NULL), 0);
    cr_assert_eq(exit_status(&r), 0);
    cr_assert(strstr(r.out, "usage: offtrace report"), "%s", r.out);
    run_free(&r);
}

Test(report, not_an_archive_is_a_one_line_error)
{
    char dir[4096], cmd[8400];
    scratch_path(dir, sizeof dir, "report-empty");
    cr_assert_eq(mkdir(dir, 0777), 0);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    one_line_error(&r, 2, "empty directory");
    cr_assert_eq(run_offtrace(&r, "report", "/nonexistent/offtrace-archive", NULL), 0);
    one_line_error(&r, 2, "missing directory");
    snprintf(cmd, sizeof cmd, "echo 'not OTF2' > '%s/traces.otf2'", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    one_line_error(&r, 2, "garbage anchor file");
}

Test(report, damaged_archive_ends_in_a_message_not_a_crash)
{
    char dir[4096], cmd[8400];
    record("example_saxpy", dir, sizeof dir);
    /* cut every event file in half */
    snprintf(cmd, sizeof cmd, "for f in '%s'/traces/*.evt; do truncate -s $(( $(stat -c %%s \"$f\") / 2 )) \"$f\"; done",
             dir);
    cr_assert_eq(system(cmd), 0);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    int status = exit_status(&r);
    cr_assert(status == 1 || status == 2, "exit %d: %s", status, r.err);
    cr_assert(strstr(r.err, "offtrace"), "no message: %s", r.err);
    cr_assert_eq(strchr(r.err, '\n')[1], '\0', "not one line: %s", r.err);
    run_free(&r);
}

Test(report, the_verb_is_listed)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "--help", NULL), 0);
    cr_assert(strstr(r.out, "report"), "%s", r.out);
    run_free(&r);
}

/* ---- issue 12: start-up, the split rest, readable names ---- */

/* The output of `argv...`, which must run and succeed (malloc'd). */
static char *command_output(char *const argv[])
{
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0, "cannot run %s", argv[0]);
    cr_assert_eq(exit_status(&r), 0, "%s: %s", argv[0], r.err);
    char *out = r.out;
    r.out = NULL;
    run_free(&r);
    return out;
}

/* Durations of the kernel named \p name in the archive, in time order, read
 * by OTF2's own otf2-print (ENTER/LEAVE pairs of its kernel stream). */
static size_t kernel_durations(const char *dir, const char *name, uint64_t *d, size_t max)
{
    char path[4200], quoted[600];
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    snprintf(quoted, sizeof quoted, "Region: \"%s\"", name);
    char *argv[] = {"otf2-print", path, NULL};
    char *out = command_output(argv);
    size_t n = 0;
    uint64_t enter = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strstr(line, quoted))
            continue;
        char kind[16];
        unsigned long long loc, t;
        cr_assert_eq(sscanf(line, "%15s %llu %llu", kind, &loc, &t), 3, "%s", line);
        if (!strcmp(kind, "ENTER"))
            enter = t;
        else if (!strcmp(kind, "LEAVE") && n < max)
            d[n++] = t - enter;
    }
    free(out);
    return n;
}

/* Start-up: what the device's first kernel launch took beyond the mean of
 * the kernel's other launches is the report's start-up kernel time, kept
 * out of the headline; the slowest launch is the kernel's max, the others'
 * mean beside it (the outlier rule's inputs), all against the archive. */
Test(report, startup_is_the_first_launchs_excess_in_the_archive)
{
    char dir[4096];
    record("example_stencil", dir, sizeof dir);
    char *json = report_json(dir);
    const char *sweep = NULL;
    for (size_t i = 0; element(json, "kernels", i); i++)
        if (strstr(element(json, "kernels", i), "sweep_l"))
            sweep = element(json, "kernels", i);
    cr_assert_not_null(sweep, "no sweep kernel");
    const char *v = member(sweep, "name");
    char name[512];
    cr_assert(v && sscanf(v, "\"%511[^\"]\"", name) == 1);
    uint64_t d[4096];
    size_t n = kernel_durations(dir, name, d, 4096);
    cr_assert_eq((long long)n, number(sweep, "count"), "%s", name);
    cr_assert(n >= 3);
    uint64_t total = 0, max = 0;
    for (size_t i = 0; i < n; i++) {
        total += d[i];
        max = d[i] > max ? d[i] : max;
    }
    uint64_t others = (total - d[0]) / (n - 1);
    uint64_t excess = d[0] > others ? d[0] - others : 0;
    const char *dev = element(json, "devices", 0);
    const char *up = member(dev, "startup");
    cr_assert_not_null(up, "no start-up of device 0");
    /* stencil's first construct (enter data) launches nothing: the start-up's kernel time is the first launch's */
    cr_assert_eq(number(up, "kernel_time_ns"), (long long)excess, "start-up kernel time %lld, archive %llu",
                 number(up, "kernel_time_ns"), (unsigned long long)excess);
    cr_assert(string_is(up, "launch_site", "stencil.c:19"), "%s", up);
    cr_assert_eq(number(sweep, "max_ns"), (long long)max);
    cr_assert_eq(number(sweep, "others_mean_ns"), (long long)((total - max) / (n - 1)));
    const char *flag = member(sweep, "outlier");
    int outlier = max > 10 * ((total - max) / (n - 1)) && max - (total - max) / (n - 1) > 100000;
    cr_assert(flag && !strncmp(flag, outlier ? "true" : "false", outlier ? 4 : 5), "%s", sweep);
    /* the headline's kernel share leaves the start-up out */
    long long host = 0, kernel = 0;
    for (size_t i = 0; element(json, "constructs", i); i++) {
        host += number(element(json, "constructs", i), "host_time_ns");
        kernel += number(element(json, "constructs", i), "kernel_time_ns");
    }
    const char *summary = member(json, "summary");
    const char *sum_up = member(summary, "startup");
    host -= number(sum_up, "host_time_ns");
    kernel -= number(sum_up, "kernel_time_ns");
    char want[64];
    snprintf(want, sizeof want, "%.0f%% to kernels", 100.0 * (double)kernel / (double)host);
    const char *headline = element(summary, "highlights", 0);
    cr_assert(strstr(headline, want) && strstr(headline, "of it start-up"), "want '%s' in %.400s", want, headline);
    free(json);

    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    const char *startup = strstr(r.out, "Start-up ("), *one = strstr(r.out, "\n 1. ");
    cr_assert(startup && one && startup < one, "no start-up line before the highlights:\n%s", r.out);
    cr_assert_eq(!!strstr(r.out, "outlier: sweep_l"), outlier, "%s", r.out);
    fits_100_columns(r.out);
    run_free(&r);
}

/* "rest" is split: allocation/free and launch/runtime, in the text as in the JSON. */
Test(report, rest_is_split_into_allocation_and_launch)
{
    char dir[4096];
    record("example_transfer_mistakes", dir, sizeof dir);
    char *json = report_json(dir);
    long long alloc = 0;
    for (size_t i = 0; element(json, "constructs", i); i++) {
        const char *c = element(json, "constructs", i);
        cr_assert_eq(number(c, "alloc_free_ns") + number(c, "launch_runtime_ns"), number(c, "rest_ns"),
                     "%.300s", c);
        alloc += number(c, "alloc_free_ns");
    }
    cr_assert_gt(alloc, 0, "transfer_mistakes allocates and frees device memory");
    const char *headline = element(member(json, "summary"), "highlights", 0);
    cr_assert(strstr(headline, "% to allocating and freeing device memory and ") &&
              strstr(headline, "% to launch and runtime overhead."), "%.400s", headline);
    free(json);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    const char *table = strstr(r.out, "\nConstructs by source line");
    cr_assert_not_null(table);
    const char *head = strstr(table, "\n  site ");
    cr_assert(head && strstr(head, " alloc ") && strstr(head, " launch "), "%.300s", table);
    cr_assert_not_null(strstr(r.out, "memory copies"), "host-offload bandwidths are not explained");
    fits_100_columns(r.out);
    run_free(&r);
}

/* C++ kernels: the region's name is the demangled function (as binutils'
 * c++filt, an independent demangler, reads the mangled part) with its
 * line; the raw entry name stays in the region's canonical name. */
Test(report, cxx_kernels_are_demangled_and_keep_their_symbol)
{
    char dir[4096], path[4200];
    record("cxx_kernels", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    char *argv[] = {"otf2-print", "-G", path, NULL};
    char *defs = command_output(argv);
    size_t kernels = 0;
    for (char *line = strtok(defs, "\n"); line; line = strtok(NULL, "\n")) {
        const char *aka = strstr(line, "(Aka. \"__omp_offloading_");
        if (strncmp(line, "REGION ", 7) || !aka)
            continue;
        char name[2048], symbol[1024];
        cr_assert_eq(sscanf(strstr(line, "Name: \""), "Name: \"%2047[^\"]\"", name), 1, "%s", line);
        cr_assert_eq(sscanf(aka, "(Aka. \"%1023[^\"]\"", symbol), 1, "%s", line);
        const char *mangled = strstr(symbol, "__Z") + 1, *tail = strrchr(symbol, '_');
        cr_assert(mangled != (const char *)1 && tail && tail[1] == 'l', "not a C++ kernel: %s", symbol);
        char fn[1024];
        snprintf(fn, sizeof fn, "%.*s", (int)(tail - mangled), mangled);
        char *filt[] = {"c++filt", fn, NULL};
        char *plain = command_output(filt);
        plain[strcspn(plain, "\n")] = '\0';
        char want[2048];
        snprintf(want, sizeof want, "%s [%s]", plain, tail + 1);
        cr_assert_str_eq(name, want);
        free(plain);
        kernels++;
    }
    free(defs);
    cr_assert_eq(kernels, 2, "the two kernels of cxx_kernels.cpp");
    char *json = report_json(dir);
    cr_assert_null(strstr(json, "\"short_name\": \"_Z"), "a mangled name in the report");
    cr_assert_not_null(strstr(json, "lattice::norm(std::vector<lattice::Site"), "%s", json);
    free(json);
}

/* A kernel name far longer than a line stays whole in the headline, and the sentence after it follows. */
Test(report, long_kernel_name_stays_whole_in_the_headline)
{
    char dir[4096];
    record("cxx_kernels", dir, sizeof dir);
    char *json = report_json(dir);
    const char *top = element(json, "kernels", 0); /* by total time: the long-named one */
    char name[2048];
    cr_assert(sscanf(member(top, "short_name"), "\"%2047[^\"]\"", name) == 1);
    cr_assert_gt(strlen(name), 250, "%s", name); /* its sentence is longer than the 320 bytes it once had */
    free(json);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    const char *three = strstr(r.out, "\n 3. "), *tables = strstr(r.out, "\n\nDevices");
    cr_assert(three && tables);
    /* the paragraph with its wrapping undone: line breaks and indents become single spaces */
    char text[8192];
    size_t n = 0;
    for (const char *p = three + 5; p < tables && n + 1 < sizeof text; p++) {
        if (*p == '\n') {
            while (p[1] == ' ')
                p++;
            text[n++] = ' ';
        } else
            text[n++] = *p;
    }
    text[n] = '\0';
    char want[2200];
    snprintf(want, sizeof want, "Top kernel: %s (cxx_kernels.cpp:", name);
    cr_assert_not_null(strstr(text, want), "the name is cut: %s", text);
    cr_assert_not_null(strstr(text, "% of all transfer time."), "the sentence after it is cut: %s", text);
    run_free(&r);
}

/* What docs/report.md says of the other examples: saxpy maps x `to` and y
 * `tofrom` around every repetition, so x is uploaded again and again
 * (repeated upload) and y goes back and forth (round trip); device_tasks maps
 * its array `tofrom` only, so each upload follows a copy back: round trips,
 * never a repeated upload (the rule wants no copy back in between). */
static size_t count_findings(const char *json, const char *kind)
{
    size_t n = 0;
    for (size_t i = 0; element(json, "findings", i); i++)
        n += string_is(element(json, "findings", i), "kind", kind) != 0;
    return n;
}

Test(report, saxpy_and_device_tasks_get_the_findings_the_guide_names)
{
    char dir[4096];
    record("example_saxpy", dir, sizeof dir);
    char *json = report_json(dir);
    cr_assert_gt(count_findings(json, "repeated_upload"), 0, "saxpy: no repeated upload");
    cr_assert_gt(count_findings(json, "round_trip"), 0, "saxpy: no round trip");
    free(json);

    record("example_device_tasks", dir, sizeof dir);
    json = report_json(dir);
    cr_assert_gt(count_findings(json, "round_trip"), 0, "device_tasks: no round trip");
    cr_assert_eq(count_findings(json, "repeated_upload"), 0, "device_tasks: a repeated upload");
    free(json);
}

/* ---- host OpenMP (issue 13): tables and findings ---- */

static char *const two_threads[] = {"OMP_NUM_THREADS=2", NULL};

static char *host_report(const char *program, char *const env[], char *const args[], char *dir, size_t size)
{
    scratch_path(dir, (unsigned)size, program);
    char *err = NULL;
    int rc = record_program(dir, NULL, env, program, args, &err);
    cr_assert_eq(rc, 0, "record %s failed: %s", program, err ? err : "");
    free(err);
    return report_json(dir);
}

/* The finding of \p kind whose site is examples/\p name's line marked \p marker. */
static const char *expect_host_finding(const char *json, const char *kind, const char *name, const char *marker)
{
    long long line = marked_line(name, marker);
    const char *f = finding(json, kind, line);
    cr_assert_not_null(f, "no %s finding at %s:%lld", kind, name, line);
    cr_assert_gt(number(f, "time_at_stake_ns"), 0);
    return f;
}

/* A recording of \p program whose report has the \p kind finding at
 * examples/\p name's line marked \p marker, or the last of three that do
 * not. The finding is the program's by design, but its threads share the
 * machine's two cores with whatever else runs (the suite's other tests
 * and their writeback): a run whose scheduling hides it is that run's, so
 * up to three runs are made and one must show it (the balanced case below
 * does the same the other way round). */
static char *host_report_showing(const char *kind, const char *name, const char *marker, const char *program,
                                 char *const env[], char *const args[], char *dir, size_t size)
{
    long long line = marked_line(name, marker);
    for (int attempt = 0;; attempt++) {
        char *json = host_report(program, env, args, dir, size);
        if (finding(json, kind, line) || attempt == 2)
            return json;
        free(json);
    }
}

/* The loop row of the host OpenMP tables at \p line. */
static const char *host_loop(const char *json, long long line)
{
    const char *omp = member(json, "host_openmp");
    cr_assert_not_null(omp, "no host_openmp member");
    for (size_t i = 0; element(omp, "loops", i); i++)
        if (number(element(omp, "loops", i), "line") == line)
            return element(omp, "loops", i);
    cr_assert_fail("no loop row at line %lld", line);
    return NULL;
}

/* Every loop: its threads' busy times add up to its busy time, the busiest
 * thread's is at most that, and no thread is busier than the loop lasted. */
static void busy_times_add_up(const char *json)
{
    const char *omp = member(json, "host_openmp");
    for (size_t i = 0; element(omp, "loops", i); i++) {
        const char *l = element(omp, "loops", i);
        long long sum = 0, n = (long long)length(l, "thread_busy_ns");
        for (long long k = 0; k < n; k++)
            sum += strtoll(element(l, "thread_busy_ns", (size_t)k), NULL, 10);
        cr_assert_eq(sum, number(l, "busy_ns"), "loop at line %lld: threads' busy times do not add up",
                     number(l, "line"));
        cr_assert_leq(number(l, "busy_max_ns"), number(l, "busy_ns"));
        cr_assert_geq(number(l, "busy_max_ns"), number(l, "busy_mean_ns"));
        cr_assert_leq(number(l, "busy_max_ns"), number(l, "total_ns") + 1000, "a thread busier than its loop lasted");
    }
}

Test(report, host_openmp_findings_fire_on_host_phases_at_their_lines)
{
    char dir[4096];
    char *json = host_report_showing("loop_imbalance", "host_phases.c", "finding: loop imbalance",
                                     "example_host_phases", two_threads, (char *[]){"skewed", "3", NULL}, dir,
                                     sizeof dir);
    const char *f = expect_host_finding(json, "loop_imbalance", "host_phases.c", "finding: loop imbalance");
    cr_assert(strstr(member(f, "message"), "the slowest range is iterations 0-"),
              "the slow range is not the loop's first block: %.300s", member(f, "message"));
    const char *loop = host_loop(json, marked_line("host_phases.c", "finding: loop imbalance"));
    cr_assert_eq(number(element(loop, "slow_ranges", 0), "first"), 0, "the costly quarter starts the loop");
    cr_assert_leq(number(element(loop, "slow_ranges", 0), "count"), 2000, "at most thread 0's static block");
    cr_assert_geq(number(element(loop, "slow_ranges", 0), "count"), 1000, "at least the costly quarter");
    expect_host_finding(json, "barrier_wait", "host_phases.c", "finding: barrier wait");
    f = expect_host_finding(json, "host_serialises_offload", "host_phases.c", "finding: host serial (after)");
    char before[64];
    snprintf(before, sizeof before, "host_phases.c:%lld", marked_line("host_phases.c", "finding: host serial (before)"));
    cr_assert(string_is(f, "other_site", before), "the serial phase does not end at %s", before);
    cr_assert_eq(number(f, "count"), 3, "one gap per round");
    busy_times_add_up(json);
    free(json);
}

/* The first host OpenMP finding of a report, or NULL. */
static const char *host_openmp_finding(const char *json)
{
    for (size_t i = 0; element(json, "findings", i); i++) {
        const char *f = element(json, "findings", i);
        if (string_is(f, "kind", "loop_imbalance") || string_is(f, "kind", "barrier_wait") ||
            string_is(f, "kind", "host_serialises_offload"))
            return f;
    }
    return NULL;
}

/* A balanced program has no host OpenMP finding. Its two threads share the
 * machine's two cores with whatever else runs (a parallel ctest, a build):
 * one descheduled thread is a real imbalance of that run, not of the
 * program, so up to three runs are made and one clean run is required. */
Test(report, no_host_openmp_findings_on_host_phases_balanced)
{
    char dir[4096];
    char last[512] = "";
    for (int attempt = 0; attempt < 3; attempt++) {
        char *json = host_report("example_host_phases", two_threads, (char *[]){"balanced", "3", NULL}, dir,
                                 sizeof dir);
        busy_times_add_up(json);
        const char *f = host_openmp_finding(json);
        if (!f) {
            free(json);
            return;
        }
        snprintf(last, sizeof last, "%.400s", member(f, "message"));
        free(json);
    }
    cr_assert_fail("a host OpenMP finding on each of 3 balanced runs, the last: %s", last);
}

/* Four threads on bucket 0's thread: the sort loop is imbalanced, its slow range starts at bucket 0. */
Test(report, bucket_sort_loop_imbalance_names_bucket_0)
{
    char dir[4096];
    char *json = host_report_showing("loop_imbalance", "bucket_sort.c", "schedule(dynamic, 1)", "example_bucket_sort",
                                     (char *[]){"OMP_NUM_THREADS=4", NULL}, (char *[]){"200000", "2", NULL}, dir,
                                     sizeof dir);
    long long line = marked_line("bucket_sort.c", "schedule(dynamic, 1)");
    const char *f = expect_host_finding(json, "loop_imbalance", "bucket_sort.c", "schedule(dynamic, 1)");
    cr_assert(strstr(member(f, "message"), "the slowest range is iterations 0-"), "%.400s", member(f, "message"));
    const char *loop = host_loop(json, line);
    cr_assert_eq(number(loop, "trip_count"), 64, "one iteration per bucket");
    cr_assert_eq(number(loop, "instances"), 2, "one per round");
    cr_assert_eq(number(element(loop, "slow_ranges", 0), "first"), 0);
    busy_times_add_up(json);
    free(json);
}

static int by_pair(const void *a, const void *b)
{
    const long long *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The loop instances and trip counts of the report against what the runtime
 * reports to the independent counting tool (tests/support/ompt_host_counter.c)
 * in another run of the same program. */
Test(report, host_openmp_loop_counts_equal_the_runtimes)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/example_bucket_sort", OFFTRACE_BIN_DIR);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-host-counter.so", OFFTRACE_LIB_DIR);
    run_result r;
    cr_assert_eq(run_command((char *[]){prog, "20000", "3", NULL}, (char *[]){tool, "OMP_NUM_THREADS=2", NULL}, NULL,
                             &r), 0);
    const char *line = strstr(r.err, "HOST_COUNTS ");
    cr_assert_not_null(line, "the counting tool wrote nothing: %s", r.err);
    unsigned long long parallel, tasks, loops, trip;
    cr_assert_eq(sscanf(line, "HOST_COUNTS parallel=%llu implicit_tasks=%llu loops=%llu loop_trip=%llu", &parallel,
                        &tasks, &loops, &trip), 4);
    /* per loop site: (instances, trip counts summed), sorted, against the report's rows */
    long long want[64][2], got[64][2];
    size_t nwant = 0, ngot = 0;
    for (const char *t = r.err; (t = strstr(t, "HOST_LOOP ")) && nwant < 64; t++) {
        cr_assert_eq(sscanf(t, "HOST_LOOP instances=%lld trip=%lld", &want[nwant][0], &want[nwant][1]), 2);
        nwant++;
    }
    run_free(&r);
    char dir[4096];
    char *json = host_report("example_bucket_sort", two_threads, (char *[]){"20000", "3", NULL}, dir, sizeof dir);
    const char *omp = member(json, "host_openmp");
    long long thread_loops = 0, trips = 0, regions = 0;
    for (size_t i = 0; element(omp, "loops", i) && ngot < 64; i++) {
        const char *l = element(omp, "loops", i);
        got[ngot][0] = number(l, "instances");
        got[ngot++][1] = number(l, "trip_total");
        thread_loops += number(l, "thread_instances");
        trips += number(l, "trip_total");
        cr_assert_eq(number(l, "instances"), 3, "every loop of the example runs once per round");
        cr_assert_eq(number(l, "thread_instances"), 2 * number(l, "instances"), "two threads each");
    }
    for (size_t i = 0; element(omp, "parallel_regions", i); i++)
        regions += number(element(omp, "parallel_regions", i), "instances");
    cr_assert_eq(thread_loops, (long long)loops, "loops on threads: %lld in the report, %llu by the runtime",
                 thread_loops, loops);
    cr_assert_eq(trips, (long long)trip, "trip counts: %lld in the report, %llu by the runtime", trips, trip);
    cr_assert_eq(regions, (long long)parallel);
    cr_assert_eq(ngot, nwant, "%zu loop rows in the report, %zu loop sites by the runtime", ngot, nwant);
    qsort(want, nwant, sizeof want[0], by_pair);
    qsort(got, ngot, sizeof got[0], by_pair);
    for (size_t i = 0; i < ngot; i++)
        cr_expect(got[i][0] == want[i][0] && got[i][1] == want[i][1],
                  "loop %zu: %lld instances, trip %lld in the report; %lld, %lld by the runtime", i, got[i][0],
                  got[i][1], want[i][0], want[i][1]);
    /* every loop instance of 2 threads has chunks: the threads' busy times are the archive's chunk times */
    host_openmp_facts h;
    cr_assert_eq(host_openmp_check(dir, &h), 0);
    long long busy = 0;
    for (size_t i = 0; element(omp, "loops", i); i++)
        busy += number(element(omp, "loops", i), "busy_ns");
    cr_assert_eq(busy, (long long)h.chunk_ns, "busy %lld ns in the report, %llu ns in chunks in the archive", busy,
                 (unsigned long long)h.chunk_ns);
    free(json);
}

/* ---- host OpenMP at level all (issue 13): explicit tasks, locks and critical sections ---- */

/* What the counting tool (tests/support/ompt_host_counter.c) says of one run of \p program: its
 * TASK_COUNTS and HOST_MUTEX lines, as the text after their name. */
static void host_counter_lines(const char *program, char *const env[], char *const args[], char *tasks,
                               char *mutex, size_t size)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-host-counter.so", OFFTRACE_LIB_DIR);
    char *argv[8] = {prog}, *envp[8] = {tool};
    for (int i = 0; args && args[i] && i < 6; i++)
        argv[i + 1] = args[i];
    for (int i = 0; env && env[i] && i < 6; i++)
        envp[i + 1] = env[i];
    run_result r;
    cr_assert_eq(run_command(argv, envp, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s under the counter: %s", program, r.err);
    const char *t = strstr(r.err, "TASK_COUNTS "), *m = strstr(r.err, "HOST_MUTEX ");
    cr_assert(t && m, "the counting tool wrote no task or mutex counts: %s", r.err);
    snprintf(tasks, size, "%.*s", (int)strcspn(t, "\n"), t);
    snprintf(mutex, size, "%.*s", (int)strcspn(m, "\n"), m);
    run_free(&r);
}

/* The value of `key=` in a counter line; for a list (`acquire=K1,K2,...`) its element \p index. */
static unsigned long long counter_value(const char *line, const char *key, int index)
{
    char k[64];
    snprintf(k, sizeof k, " %s=", key);
    const char *p = strstr(line, k);
    cr_assert_not_null(p, "no %s in %s", key, line);
    p += strlen(k);
    for (int i = 0; i < index; i++) {
        p = strchr(p, ',');
        cr_assert_not_null(p, "%s has no element %d: %s", key, index, line);
        p++;
    }
    return strtoull(p, NULL, 10);
}

/* Sum of \p key over the host_openmp \p table rows (of mutex kind \p kind when not NULL). */
static long long table_sum(const char *json, const char *table, const char *key, const char *kind)
{
    const char *omp = member(json, "host_openmp");
    cr_assert_not_null(omp, "no host_openmp member");
    long long sum = 0;
    for (size_t i = 0; element(omp, table, i); i++)
        if (!kind || string_is(element(omp, table, i), "kind", kind))
            sum += number(element(omp, table, i), key);
    return sum;
}

static int count_findings_of(const char *json, const char *kind)
{
    int n = 0;
    for (size_t i = 0; element(json, "findings", i); i++)
        n += string_is(element(json, "findings", i), "kind", kind);
    return n;
}

/* The first line of \p dir/\p name holding \p text (a statement: no pragma). */
static long long source_line_in(const char *dir, const char *name, const char *text)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    long long n = 0, found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, text))
            found = n;
    }
    fclose(f);
    cr_assert_gt(found, 0, "no %s in %s", text, name);
    return found;
}

static long long source_line(const char *name, const char *text)
{
    return source_line_in(OFFTRACE_EXAMPLES_DIR, name, text);
}

/* The text report of \p dir has the table \p title and fits 100 columns. */
static void text_has_table(const char *dir, const char *title)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert_eq(exit_status(&r), 0, "report %s: %s", dir, r.err);
    cr_assert(strstr(r.out, title), "no table \"%s\" in the text report", title);
    fits_100_columns(r.out);
    run_free(&r);
}

static char *const all_two_threads[] = {"OMP_NUM_THREADS=2", "OFFTRACE_HOST_OPENMP=all", NULL};

/* The tree's default cutoff (64 elements) makes tasks of a few dozen additions: the fine-task finding
 * names the creation line; the task counts and flags equal the runtime's. 2,000,000 elements (32767
 * tasks per line), so that a preemption of a few ms on a loaded machine moves the mean run time by a
 * few ns per task, not by microseconds. */
Test(report, fine_tasks_fire_on_task_tree_at_its_creation_line)
{
    char dir[4096], *err = NULL;
    scratch_path(dir, sizeof dir, "example_task_tree-all");
    char *const tree[] = {"2000000", "64", NULL};
    cr_assert_eq(record_program(dir, NULL, all_two_threads, "example_task_tree", tree, &err), 0, "%s", err);
    char *json = report_json(dir);
    const char *f = expect_host_finding(json, "fine_tasks", "task_tree.c", "task shared(left)");
    cr_assert(strstr(member(f, "message"), "coarser"), "no cutoff suggested: %.400s", member(f, "message"));
    cr_assert_geq(number(f, "count"), 30000, "the tree of 2000000 elements by 64 makes 32767 tasks per line");
    const char *omp = member(json, "host_openmp");
    for (size_t i = 0; element(omp, "tasks", i); i++) {
        const char *t = element(omp, "tasks", i);
        cr_assert_geq(number(t, "periods"), number(t, "tasks") - number(t, "taskwait"), "a task of line %lld never ran",
                      number(t, "line"));
        cr_assert_leq(number(t, "started"), number(t, "tasks"));
        cr_assert_leq(number(t, "run_ns"), number(t, "total_ns"));
    }
    /* The tasks a thread runs inside a taskwait are work, not waiting: the
     * region's waiting and the tasks' run time together fit in its thread time. */
    long long run = 0;
    for (size_t i = 0; element(omp, "tasks", i); i++)
        run += number(element(omp, "tasks", i), "run_ns");
    const char *region = element(omp, "parallel_regions", 0);
    cr_assert_not_null(region);
    cr_assert_leq(number(region, "wait_ns") + run, number(region, "thread_ns"),
                  "waiting %lld ns + tasks %lld ns > thread time %lld ns: task time counted as waiting",
                  number(region, "wait_ns"), run, number(region, "thread_ns"));
    char tasks[1024], mutex[1024];
    host_counter_lines("example_task_tree", two_threads, tree, tasks, mutex, sizeof tasks);
    cr_assert_eq(table_sum(json, "tasks", "tasks", NULL), (long long)counter_value(tasks, "creates", 0),
                 "tasks created: %lld in the report; the runtime: %s", table_sum(json, "tasks", "tasks", NULL), tasks);
    static const char *const flags[] = {"undeferred", "final", "untied", "mergeable", "target", "taskwait"};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        cr_expect_eq(table_sum(json, "tasks", flags[k], NULL), (long long)counter_value(tasks, flags[k], 0),
                     "%s tasks: %lld in the report; the runtime: %s", flags[k],
                     table_sum(json, "tasks", flags[k], NULL), tasks);
    char said[128];
    snprintf(said, sizeof said, "offtrace: host tasks       %llu explicit tasks; 0 lock acquisitions",
             counter_value(tasks, "creates", 0));
    cr_assert(strstr(err, said), "record's summary does not say \"%s\": %s", said, err);
    text_has_table(dir, "Host OpenMP explicit tasks by creation site");
    free(err);
    free(json);
}

/* The same tree cut off at 16384 elements: tasks of thousands of additions, no fine-task finding. */
Test(report, no_fine_tasks_with_a_coarse_cutoff)
{
    char dir[4096];
    char *json = host_report("example_task_tree", all_two_threads, (char *[]){"4000000", "16384", NULL}, dir,
                             sizeof dir);
    long long line = marked_line("task_tree.c", "task shared(left)");
    const char *omp = member(json, "host_openmp");
    const char *row = NULL;
    for (size_t i = 0; element(omp, "tasks", i); i++)
        if (number(element(omp, "tasks", i), "line") == line)
            row = element(omp, "tasks", i);
    cr_assert_not_null(row, "no task row at task_tree.c:%lld", line);
    cr_assert_geq(number(row, "tasks"), 100, "too few tasks for the finding to judge: the test proves nothing");
    cr_assert_eq(count_findings_of(json, "fine_tasks"), 0, "a fine-task finding with a coarse cutoff");
    free(json);
}

/* One lock for every item of the histogram: lock contention at its set line; acquisitions per kind
 * equal the runtime's. */
Test(report, lock_contention_fires_on_lock_histogram_at_its_lock_line)
{
    char dir[4096], *err = NULL;
    char *const env[] = {"OMP_NUM_THREADS=3", "OMP_CANCELLATION=true", "OFFTRACE_HOST_OPENMP=all", NULL};
    char *const args[] = {"50000", "2", NULL};
    scratch_path(dir, sizeof dir, "example_lock_histogram-all");
    cr_assert_eq(record_program(dir, NULL, env, "example_lock_histogram", args, &err), 0, "%s", err);
    char *json = report_json(dir);
    long long line = source_line("lock_histogram.c", "omp_set_lock(&bins_lock)");
    const char *f = finding(json, "lock_contention", line);
    cr_assert_not_null(f, "no lock contention finding at lock_histogram.c:%lld", line);
    cr_assert_gt(number(f, "time_at_stake_ns"), 0);
    cr_assert_eq(number(f, "count"), 100000, "one acquisition per item and round");
    const char *omp = member(json, "host_openmp");
    for (size_t i = 0; element(omp, "locks", i); i++) {
        const char *l = element(omp, "locks", i);
        cr_assert_eq(number(l, "hold_ns") + number(l, "wait_ns"), number(l, "total_ns"),
                     "hold and wait are not the time acquire to release at line %lld", number(l, "line"));
    }
    char tasks[1024], mutex[1024];
    host_counter_lines("example_lock_histogram", (char *[]){"OMP_NUM_THREADS=3", "OMP_CANCELLATION=true", NULL}, args,
                       tasks, mutex, sizeof mutex);
    /* ompt_mutex_t: 1 lock, 2 test lock, 3 nest lock, 4 test nest lock, 5 critical, 6 atomic, 7 ordered */
    static const struct { const char *kind; int index; } kinds[] = {
        {"lock", 0}, {"test lock", 1}, {"critical", 4}, {"ordered", 6}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        cr_expect_eq(table_sum(json, "locks", "acquisitions", kinds[k].kind),
                     (long long)counter_value(mutex, "acquire", kinds[k].index),
                     "%s acquisitions: %lld in the report; the runtime: %s", kinds[k].kind,
                     table_sum(json, "locks", "acquisitions", kinds[k].kind), mutex);
    /* a nest lock's sets: the first by its owner ("nest lock") and the inner ones ("nest lock (nested)") */
    cr_expect_eq(table_sum(json, "locks", "acquisitions", "nest lock") +
                     table_sum(json, "locks", "acquisitions", "nest lock (nested)"),
                 (long long)(counter_value(mutex, "acquire", 2) + counter_value(mutex, "acquire", 3)),
                 "nest lock sets; the runtime: %s", mutex);
    unsigned long long acquires = 0;
    for (int k = 0; k < 7; k++)
        acquires += counter_value(mutex, "acquire", k);
    char said[128];
    snprintf(said, sizeof said, "explicit tasks; %llu lock acquisitions", acquires);
    cr_assert(strstr(err, said), "record's summary does not say \"%s\": %s", said, err);
    text_has_table(dir, "Host OpenMP locks and critical sections by source line");
    free(err);
    free(json);
}

/* Finding 8 when the host waits for a lock: between the two targets of each round the encountering
 * thread waits about 20 ms for a lock its team mate holds (tests/support/lock_between_targets.c);
 * long enough that its wait in the barrier before (for the team mate to start, a few ms on a loaded
 * machine) stays the smaller one. */
Test(report, a_lock_wait_between_targets_serialises_the_offload)
{
    char dir[4096], *err = NULL;
    scratch_path(dir, sizeof dir, "lock_between_targets");
    cr_assert_eq(record_program(dir, NULL, (char *[]){"OFFTRACE_HOST_OPENMP=all", NULL}, "lock_between_targets",
                                (char *[]){"4", "20000", NULL}, &err), 0, "%s", err);
    free(err);
    char *json = report_json(dir);
    const char *f = NULL;
    for (size_t i = 0; element(json, "findings", i) && !f; i++)
        if (string_is(element(json, "findings", i), "kind", "host_serialises_offload"))
            f = element(json, "findings", i);
    cr_assert_not_null(f, "no host_serialises_offload finding");
    char lock_site[64];
    snprintf(lock_site, sizeof lock_site, "lock @lock_between_targets.c:%lld",
             source_line_in(OFFTRACE_SUPPORT_DIR, "lock_between_targets.c", "the wait between the two targets"));
    cr_assert(string_is(f, "host_openmp_site", lock_site), "the finding does not name %s: %.400s", lock_site,
              member(f, "message"));
    cr_assert_eq(number(f, "count"), 4, "one gap per round");
    cr_assert_geq(number(f, "time_at_stake_ns"), 4 * 15000000ll, "about 20 ms of waiting per round");
    free(json);
}

/* The string member \p key of \p obj, copied (escapes left as they are). */
static void string_member(const char *obj, const char *key, char *out, size_t size)
{
    const char *v = member(obj, key);
    cr_assert(v && *v == '"', "no string member %s", key);
    size_t n = 0;
    for (v++; *v && *v != '"' && n + 1 < size; v++)
        out[n++] = *v == '\\' && v[1] ? *++v : *v;
    out[n] = 0;
}

/* libomp's hidden helper team (the first `target nowait` starts it; its
 * threads idle in their barrier between target tasks) is the runtime's: the
 * tables show it, no finding names it. The program's own region, whose
 * threads wait for a kernel held back by a slow host task (in its taskwait
 * or its single's barrier, as the tasks fall), gets the barrier finding
 * naming one of those, not the lineless barrier that ends both teams'
 * regions. */
Test(report, the_runtimes_helper_team_gets_no_finding)
{
    char dir[4096], text[1200];
    char *json = host_report("example_host_target_tasks", all_two_threads, (char *[]){"3", "20000", NULL}, dir,
                             sizeof dir);
    const char *omp = member(json, "host_openmp");
    int helper_team = 0;
    for (size_t i = 0; element(omp, "parallel_regions", i); i++) {
        string_member(element(omp, "parallel_regions", i), "site", text, sizeof text);
        helper_team |= !strncmp(text, "libomp", 6);
    }
    cr_assert(helper_team, "no parallel region of libomp's helper team in the tables");
    for (size_t i = 0; element(json, "findings", i); i++) {
        string_member(element(json, "findings", i), "site", text, sizeof text);
        cr_assert(strncmp(text, "libomp", 6), "a finding names libomp's helper team");
    }
    const char *f = expect_host_finding(json, "barrier_wait", "host_target_tasks.c", "omp parallel num_threads(2)");
    string_member(f, "message", text, sizeof text);
    const char *most = strstr(text, "most of it in ");
    cr_assert(most, "the barrier finding names no barrier: %s", text);
    const char *line = strstr(most, " @host_target_tasks.c:"), *end = strstr(most, "). ");
    cr_assert(line && end && line < end, "the barrier finding names a barrier without a line of the program: %s",
              text);
    free(json);
}

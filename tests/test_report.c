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
#include "check/json_check.h"
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

/* ---- reading the report's JSON (its own output: objects, arrays, numbers, strings) ---- */

/* Past the JSON value at p (string, number, literal, object or array). */
static const char *skip_value(const char *p)
{
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p ? p + 1 : p;
    }
    if (*p != '{' && *p != '[') {
        while (*p && !strchr(",}] \n", *p))
            p++;
        return p;
    }
    int depth = 0;
    do {
        if (*p == '"') {
            p = skip_value(p);
            continue;
        }
        depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
        p++;
    } while (*p && depth > 0);
    return p;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == ',' || *p == ':')
        p++;
    return p;
}

/* The value of \p key among the members of the object at \p obj (not of nested ones), or NULL. */
static const char *member(const char *obj, const char *key)
{
    cr_assert(obj && *obj == '{', "not an object");
    const char *p = skip_space(obj + 1);
    size_t n = strlen(key);
    while (*p == '"') {
        int match = !strncmp(p + 1, key, n) && p[1 + n] == '"';
        p = skip_space(skip_value(p));
        if (match)
            return p;
        p = skip_space(skip_value(p));
    }
    return NULL;
}

static long long number(const char *obj, const char *key)
{
    const char *v = member(obj, key);
    cr_assert_not_null(v, "no member %s", key);
    return strtoll(v, NULL, 10);
}

/* Does the string member \p key of \p obj equal \p want? */
static int string_is(const char *obj, const char *key, const char *want)
{
    const char *v = member(obj, key);
    size_t n = strlen(want);
    return v && *v == '"' && !strncmp(v + 1, want, n) && v[1 + n] == '"';
}

/* The \p i-th element of the array \p key of the object at \p obj, or NULL past its end. */
static const char *element(const char *obj, const char *key, size_t i)
{
    const char *p = member(obj, key);
    cr_assert(p && *p == '[', "no array %s", key);
    p = skip_space(p + 1);
    for (size_t k = 0; k < i && *p && *p != ']'; k++)
        p = skip_space(skip_value(p));
    return *p && *p != ']' ? p : NULL;
}

static size_t length(const char *obj, const char *key)
{
    size_t n = 0;
    while (element(obj, key, n))
        n++;
    return n;
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

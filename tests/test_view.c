/*
 * `offtrace view` end to end on real archives: the SVG is well-formed, has a
 * row per location, stays bounded for a run of over 100,000 events, draws
 * one arrow per transfer where they are apart, honours --from/--to; the
 * HTML is self-contained; bad options and bad archives end in one line and
 * leave no file behind. Plus the time parsing and tick labels it relies on.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/run.h"
#include "check/xml_check.h"
#include "view_model.h" /* ot_view_tick_step, ot_view_format_tick */

#define DEPTH 4 /* the default --depth */

TestSuite(view, .timeout = 60);

/* ---- helpers ---- */

/* An archive recorded once per test run, shared by the tests that read it. */
static void shared_archive(char *dir, size_t size, const char *name, const char *program, char *const args[])
{
    char full[256], *err = NULL;
    snprintf(full, sizeof full, "view-%s", name);
    cr_assert_eq(shared_recording(dir, size, full, program, args, &err), 0, "recording %s failed: %s", program,
                 err ? err : "");
    free(err);
}

static void cg_archive(char *dir, size_t size)
{
    shared_archive(dir, size, "cg", "example_cg", NULL);
}

/* CG long enough for well over 100,000 events. */
static void big_archive(char *dir, size_t size)
{
    char *args[] = {"32", "600", NULL};
    setenv("OFFTRACE_DEVICE_DETAIL", "threads", 1); /* every device thread's events (issue 18: not the default) */
    shared_archive(dir, size, "cg-big", "example_cg", args);
}

static void two_devices_archive(char *dir, size_t size)
{
    shared_archive(dir, size, "two-devices", "example_two_devices", NULL);
}

static void expect_success(run_result *r)
{
    cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "view failed (status %d): %s", r->status, r->err);
    run_free(r);
}

/* `offtrace view ARGS...` (NULL-terminated), which must succeed and write
 * \p out: its text (malloc'd), its length in *length if not NULL. */
static char *view_output(const char *out, size_t *length, ...)
{
    va_list ap;
    va_start(ap, length);
    run_result r;
    int ran = run_offtrace_va(&r, "view", ap);
    va_end(ap);
    cr_assert_eq(ran, 0);
    expect_success(&r);
    char *text = read_whole_file(out, length);
    cr_assert_not_null(text, "no %s", out);
    return text;
}

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The number after `name="` in the root element (the first occurrence). */
static uint64_t number_attr(const char *text, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *p = strstr(text, key);
    cr_assert_not_null(p, "no %s", name);
    return strtoull(p + strlen(key), NULL, 10);
}

/* Sum of data-count over the elements whose start tag begins with `prefix`. */
static uint64_t sum_counts(const char *text, const char *prefix)
{
    uint64_t sum = 0;
    for (const char *p = text; (p = strstr(p, prefix)); p += strlen(prefix)) {
        const char *c = strstr(p, "data-count=\"");
        cr_assert(c && c < strchr(p, '>'), "an arrow without data-count");
        sum += strtoull(c + 12, NULL, 10);
    }
    return sum;
}

static void expect_well_formed(const char *text, size_t length, const char *what)
{
    size_t at = 0;
    const char *why = NULL;
    cr_assert_eq(xml_check(text, length, &at, &why), 0, "%s is not well-formed XML at byte %zu: %s (near '%.60s')",
                 what, at, why ? why : "?", text + (at > 20 ? at - 20 : 0));
}

typedef struct location_list {
    size_t n;
    uint64_t ids[512];
} location_list;

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    location_list *l = user;
    if (l->n < 512)
        l->ids[l->n++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

/* The archive's locations, read with OTF2 directly (not offtrace's reader). */
static void archive_locations(const char *dir, location_list *l)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    cr_assert_not_null(r);
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, g, cb, l);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    l->n = 0;
    cr_assert_eq(OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n), OTF2_SUCCESS);
    OTF2_Reader_Close(r);
}

/* Exactly one row label per location, each naming its location id. */
static void expect_one_label_per_location(const char *svg, const char *dir)
{
    location_list l;
    archive_locations(dir, &l);
    cr_assert_geq(l.n, 3);
    cr_assert_eq(count(svg, "<text data-k=\"label\""), l.n, "%zu labels for %zu locations",
                 count(svg, "<text data-k=\"label\""), l.n);
    for (size_t i = 0; i < l.n; i++) {
        char key[64];
        snprintf(key, sizeof key, "data-k=\"label\" data-location=\"%" PRIu64 "\"", l.ids[i]);
        cr_assert_eq(count(svg, key), 1, "location %" PRIu64 " has no row of its own", l.ids[i]);
    }
}

static void expect_no_file(const char *path)
{
    char partial[4200];
    snprintf(partial, sizeof partial, "%s.partial", path);
    struct stat st;
    cr_assert_neq(stat(path, &st), 0, "%s was left behind", path);
    cr_assert_neq(stat(partial, &st), 0, "%s was left behind", partial);
}

/* A failed run: exit status \p code (0: any non-zero), one line on stderr
 * saying "offtrace", nothing on stdout, no output file. */
static void expect_one_line_failure(run_result *r, int code, const char *out)
{
    cr_assert(WIFEXITED(r->status), "view died (status %d)", r->status);
    int status = WEXITSTATUS(r->status);
    cr_assert(code ? status == code : status != 0, "exit %d, expected %d: %s", status, code, r->err);
    size_t n = strlen(r->err);
    cr_assert(n > 0 && r->err[n - 1] == '\n' && !memchr(r->err, '\n', n - 1), "not one line: [%s]", r->err);
    cr_assert(strstr(r->err, "offtrace"), "%s", r->err);
    cr_assert_str_empty(r->out);
    if (out)
        expect_no_file(out);
    run_free(r);
}

/* ---- the picture ---- */

Test(view, cg_svg_is_well_formed_with_a_row_per_location)
{
    char dir[4096], out[4200];
    cg_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s.view.svg", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", out, NULL), 0);
    cr_assert(strstr(r.out, "offtrace: wrote"), "%s", r.out);
    expect_success(&r);
    size_t n;
    char *svg = read_whole_file(out, &n);
    cr_assert_not_null(svg, "no %s", out);
    expect_well_formed(svg, n, out);
    cr_assert(!strncmp(svg, "<?xml", 5) && strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
    expect_one_label_per_location(svg, dir);
    cr_assert(strstr(svg, ">Master thread<"), "no host thread row");
    cr_assert(strstr(svg, ">device 0 RDMA<"), "no RDMA row");
    cr_assert_lt(strstr(svg, ">Master thread<"), strstr(svg, ">device 0 stream 0<"), "host threads come first");
    cr_assert_lt(strstr(svg, ">device 0 stream 0<"), strstr(svg, ">device 0 RDMA<"), "the RDMA row comes last");
    /* how many of its regions are a pixel wide depends on the run's timing */
    cr_assert_gt(count(svg, "data-k=\"r\""), 5, "no region bars");
    cr_assert_gt(count(svg, "data-k=\"r\"") + count(svg, "data-k=\"a\""), 100, "hardly any regions drawn");
    cr_assert(strstr(svg, "id=\"ot-legend\"") && strstr(svg, ">kernel<"), "no legend");
    cr_assert_geq(count(svg, "data-k=\"tick\""), 4, "no time axis");
    /* what ImageMagick's own SVG renderer cannot draw stays out (docs/view.md) */
    const char *unsupported[] = {"<title", "<pattern", "marker-end", " class=", " clip-path=", "<style"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        cr_assert_null(strstr(svg, unsupported[i]), "the SVG uses %s", unsupported[i]);
    free(svg);
}

Test(view, over_100000_events_stay_bounded_with_every_row)
{
    char dir[4096], out[4200];
    big_archive(dir, sizeof dir);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_gt(f.events, 100000, "only %" PRIu64 " events", f.events);
    snprintf(out, sizeof out, "%s.view.svg", dir);
    size_t n;
    char *svg = view_output(out, &n, dir, "-o", out, NULL);
    expect_well_formed(svg, n, out);
    expect_one_label_per_location(svg, dir);
    uint64_t rows = number_attr(svg, "data-rows"), plot_w = number_attr(svg, "data-plot-w");
    size_t drawn = count(svg, "data-k=\"r\"") + count(svg, "data-k=\"a\"");
    cr_assert_gt(drawn, 0);
    cr_assert_leq(drawn, rows * plot_w * DEPTH, "%zu region elements for %" PRIu64 " rows", drawn, rows);
    cr_assert_lt(drawn, f.events / 10, "%zu region elements for %" PRIu64 " events: not aggregated", drawn, f.events);
    cr_assert_lt(n, 8u << 20, "%zu bytes of SVG", n);
    /* merged, not dropped: every transfer is in some arrow's count */
    cr_assert_eq(sum_counts(svg, "<path data-k=\"x\""), f.puts + f.gets);
    cr_assert_lt(count(svg, "<path data-k=\"x\""), f.puts + f.gets, "arrows were not aggregated");
    free(svg);
}

Test(view, one_arrow_per_put_and_get_when_they_are_apart)
{
    char dir[4096], out[4200];
    two_devices_archive(dir, sizeof dir);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_gt(f.puts, 0);
    cr_assert_gt(f.gets, 0);
    snprintf(out, sizeof out, "%s.view.svg", dir);
    /* the widest picture: the transfers of one direction, tens of us apart,
     * stay more than an arrow column (6 px) apart even in a slow run */
    char *svg = view_output(out, NULL, dir, "-o", out, "--width", "16384", NULL);
    cr_assert_eq(count(svg, "<path data-k=\"x\" data-dir=\"h2d\" data-count=\"1\""), f.puts);
    cr_assert_eq(count(svg, "<path data-k=\"x\" data-dir=\"d2h\" data-count=\"1\""), f.gets);
    cr_assert_eq(count(svg, "<path data-k=\"x\""), f.puts + f.gets);
    cr_assert(strstr(svg, ">device 1 RDMA<"), "no second device");
    expect_one_label_per_location(svg, dir);
    free(svg);
}

Test(view, cg_arrows_count_every_transfer)
{
    char dir[4096], out[4200];
    cg_archive(dir, sizeof dir);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    snprintf(out, sizeof out, "%s.arrows.svg", dir);
    char *svg = view_output(out, NULL, dir, "-o", out, NULL);
    cr_assert_eq(sum_counts(svg, "<path data-k=\"x\" data-dir=\"h2d\""), f.puts);
    cr_assert_eq(sum_counts(svg, "<path data-k=\"x\" data-dir=\"d2h\""), f.gets);
    free(svg);
}

/* Every tick label lies in [from, to]. */
static void expect_ticks_within(const char *svg, uint64_t from, uint64_t to)
{
    size_t ticks = 0;
    for (const char *p = svg; (p = strstr(p, "data-t-ns=\"")); p++, ticks++) {
        uint64_t t = strtoull(p + 11, NULL, 10);
        cr_assert(t >= from && t <= to, "tick at %" PRIu64 " ns outside %" PRIu64 " .. %" PRIu64, t, from, to);
    }
    cr_assert_geq(ticks, 3, "only %zu ticks", ticks);
}

Test(view, from_and_to_restrict_the_time_axis)
{
    char dir[4096], out[4200];
    cg_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s.zoom.svg", dir);
    char *svg = view_output(out, NULL, dir, "-o", out, NULL);
    uint64_t trace = number_attr(svg, "data-trace-ns");
    free(svg);
    cr_assert_gt(trace, 100000);

    /* the second quarter of the run, in us and in ns */
    uint64_t from = trace / 4 / 1000 * 1000, to = trace / 2 / 1000 * 1000;
    char from_arg[64], to_arg[64];
    snprintf(from_arg, sizeof from_arg, "%" PRIu64 "us", from / 1000);
    snprintf(to_arg, sizeof to_arg, "--to=%" PRIu64 "ns", to);
    size_t n;
    svg = view_output(out, &n, dir, "-o", out, "--from", from_arg, to_arg, NULL);
    expect_well_formed(svg, n, out);
    cr_assert_eq(number_attr(svg, "data-from-ns"), from);
    cr_assert_eq(number_attr(svg, "data-to-ns"), to);
    expect_ticks_within(svg, from, to);
    cr_assert(strstr(svg, " ms</text>") || strstr(svg, " \xc2\xb5s</text>"), "tick labels without a unit");
    free(svg);

    /* --to past the end is the end; --from alone runs to the end */
    svg = view_output(out, NULL, dir, "-o", out, "--from", from_arg, "--to", "1000s", NULL);
    cr_assert_eq(number_attr(svg, "data-from-ns"), from);
    cr_assert_eq(number_attr(svg, "data-to-ns"), trace);
    free(svg);
}

/* The page's data and tiles are checked in test_view_tiles.c; here: one
 * file, nothing loaded from anywhere. */
Test(view, html_is_self_contained_with_data_and_script)
{
    char dir[4096], out[4200];
    two_devices_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s.view.html", dir);
    char *html = view_output(out, NULL, dir, "-o", out, NULL);
    cr_assert(!strncmp(html, "<!DOCTYPE html>", 15));
    cr_assert(strstr(html, "<div id=\"ot-app\"></div>"), "no place for the page");
    cr_assert(strstr(html, "<script id=\"ot-data\" type=\"application/json\">{\"format\":\"offtrace-view\""),
              "no data");
    cr_assert(strstr(html, "</script>\n<script>\n"), "no script");
    cr_assert(strstr(html, "<style>\n"), "no stylesheet");
    cr_assert_null(strstr(html, "http"), "an external reference: %.80s", strstr(html, "http"));
    cr_assert_null(strstr(html, " src="));
    cr_assert_null(strstr(html, "<link"));
    free(html);
}

Test(view, names_with_xml_characters_are_escaped)
{
    char dir[4096], out[4200];
    scratch_path(dir, sizeof dir, "view-<a&b>\"c\"");
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, NULL, "example_nowait", NULL, &err), 0, "%s", err ? err : "");
    free(err);
    snprintf(out, sizeof out, "%s.svg", dir);
    size_t n;
    char *svg = view_output(out, &n, dir, "-o", out, NULL);
    expect_well_formed(svg, n, out);
    cr_assert(strstr(svg, "view-&lt;a&amp;b&gt;&quot;c&quot;"), "the title is not escaped");
    free(svg);
}

/* ---- failures ---- */

Test(view, bad_options_exit_2_with_one_line_and_no_file)
{
    char dir[4096], out[4200], png[4200];
    two_devices_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s.bad.svg", dir);
    snprintf(png, sizeof png, "%s.bad.png", dir);
    const char *cases[][8] = {
        {"/", NULL},                                    /* no -o, and no name to give the page */
        {"-o", out, NULL},                              /* no archive */
        {dir, "-o", png, NULL},                         /* unknown format */
        {dir, "-o", NULL},                              /* -o without value */
        {dir, dir, "-o", out, NULL},                    /* two archives */
        {dir, "-o", out, "--bogus", NULL},
        {dir, "-o", out, "--from", "abc", NULL},
        {dir, "-o", out, "--from", "5", NULL},          /* no unit */
        {dir, "-o", out, "--to", "-3ms", NULL},
        {dir, "-o", out, "--from", "1.5ns", NULL},      /* under a nanosecond */
        {dir, "-o", out, "--from", "2ms", "--to", "1ms", NULL},
        {dir, "-o", out, "--width", "10", NULL},
        {dir, "-o", out, "--width", "1600px", NULL},
        {dir, "-o", out, "--depth", "0", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char **c = cases[i];
        run_result r;
        cr_assert_eq(run_offtrace(&r, "view", c[0], c[1], c[2], c[3], c[4], c[5], c[6], NULL), 0);
        expect_one_line_failure(&r, 2, out);
        expect_no_file(png);
    }
}

Test(view, from_past_the_end_is_refused)
{
    char dir[4096], out[4200];
    two_devices_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s.late.svg", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", out, "--from", "100s", NULL), 0);
    cr_assert(strstr(r.err, "past the end"), "%s", r.err);
    expect_one_line_failure(&r, 2, out);
}

Test(view, not_an_archive_fails_in_one_line_without_a_file)
{
    char dir[4096], out[4200], anchor[4300];
    scratch_path(dir, sizeof dir, "view-not-an-archive");
    snprintf(out, sizeof out, "%s.svg", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", out, NULL), 0); /* does not exist */
    expect_one_line_failure(&r, 0, out);
    cr_assert_eq(mkdir(dir, 0777), 0);
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", out, NULL), 0); /* empty */
    expect_one_line_failure(&r, 0, out);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    FILE *f = fopen(anchor, "w");
    fputs("this is not OTF2\n", f);
    fclose(f);
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", out, NULL), 0); /* damaged */
    expect_one_line_failure(&r, 0, out);
}

Test(view, unwritable_output_fails_in_one_line)
{
    char dir[4096], out[4200];
    two_devices_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/no/such/dir/x.svg", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", out, NULL), 0);
    expect_one_line_failure(&r, 1, out);
}

Test(view, help_exits_0)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", "--help", NULL), 0);
    cr_assert(strstr(r.out, "--from") && strstr(r.out, ".html"), "%s", r.out);
    expect_success(&r);
}

/* ---- the parts it relies on ---- */

Test(view, times_parse_with_their_units)
{
    static const struct {
        const char *text;
        uint64_t ns;
    } good[] = {{"12.5ms", 12500000},  {"300us", 300000}, {"300\xc2\xb5s", 300000}, {"1.2s", 1200000000},
                {"250000ns", 250000}, {"0ms", 0},         {"0.000001s", 1000},       {"7 ms", 7000000}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t ns = 1;
        cr_assert_eq(ot_view_parse_time(good[i].text, &ns), 0, "%s refused", good[i].text);
        cr_assert_eq(ns, good[i].ns, "%s = %" PRIu64, good[i].text, ns);
    }
    const char *bad[] = {"", "ms", "5", "-1ms", "1.5ns", "1e3ms", "12.5 m", "1..2s", "99999999999999999999s", "3 s x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t ns;
        cr_assert_neq(ot_view_parse_time(bad[i], &ns), 0, "'%s' accepted", bad[i]);
    }
}

Test(view, durations_and_ticks_read_well)
{
    char buf[48];
    ot_view_format_duration(836, buf, sizeof buf);
    cr_assert_str_eq(buf, "836 ns");
    ot_view_format_duration(12345, buf, sizeof buf);
    cr_assert_str_eq(buf, "12.3 \xc2\xb5s");
    ot_view_format_duration(999700, buf, sizeof buf);
    cr_assert_str_eq(buf, "1.00 ms");
    cr_assert_eq(ot_view_tick_step(36000000, 12), 5000000);
    cr_assert_eq(ot_view_tick_step(600000, 12), 50000);
    ot_view_format_tick(16050000, 50000, 16600000, buf, sizeof buf);
    cr_assert_str_eq(buf, "16.05 ms");
    ot_view_format_tick(2000000000, 500000000, 3000000000, buf, sizeof buf);
    cr_assert_str_eq(buf, "2.0 s");
    ot_view_format_tick(0, 5, 100, buf, sizeof buf);
    cr_assert_str_eq(buf, "0");
}

/* Host OpenMP (issue 13): its kinds have legend entries of their own, and a
 * chunk tells its iterations in the picture's tooltip and the page's bars. */
Test(view, host_openmp_kinds_have_colours_and_chunks_their_iterations)
{
    char dir[4096], svg[4200], html[4200];
    shared_archive(dir, sizeof dir, "bucket-sort", "example_bucket_sort", (char *[]){"20000", "1", NULL});
    snprintf(svg, sizeof svg, "%s.svg", dir);
    snprintf(html, sizeof html, "%s.html", dir);
    size_t length;
    char *text = view_output(svg, &length, dir, "-o", svg, NULL);
    expect_well_formed(text, length, svg);
    const char *legend[] = {"host parallel region / implicit task", "host loop / worksharing",
                            "host loop chunk / section", "host barrier / taskwait",
                            "waiting in a host barrier / taskwait", "host masked"};
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++)
        cr_expect(strstr(text, legend[i]), "no legend entry '%s'", legend[i]);
    cr_expect(strstr(text, "&#10;iterations 0-"), "no chunk tooltip starting at iteration 0");
    cr_expect(strstr(text, "&#10;20000 iterations"), "no loop tooltip with its trip count");
    free(text);
    text = view_output(html, NULL, dir, "-o", html, NULL);
    cr_expect(strstr(text, "waiting in a host barrier / taskwait"), "the page's classes lack host OpenMP");
    /* a chunk bar: [row, level, a, b, start, dur, region, bytes, id, parent, iterations, first iteration] */
    cr_expect(strstr(text, ",1,0]"), "no bar of the dynamic loop's chunk of bucket 0 (1 iteration from 0)");
    cr_expect(strstr(text, ",64,-1]"), "no bar of the dynamic loop with its 64 iterations");
    free(text);
}

/* Level all (issue 13): tasks and locks have legend entries of their own, a task its id and flags in the
 * picture's tooltip and the page's bars. */
Test(view, host_tasks_and_locks_have_colours_and_tasks_their_ids)
{
    char dir[4096], svg[4200], html[4200], *err = NULL;
    scratch_path(dir, sizeof dir, "view-task-tree-all");
    cr_assert_eq(record_program(dir, NULL, (char *[]){"OMP_NUM_THREADS=2", "OFFTRACE_HOST_OPENMP=all", NULL},
                                "example_task_tree", (char *[]){"20000", "64", NULL}, &err), 0, "%s", err);
    free(err);
    snprintf(svg, sizeof svg, "%s.svg", dir);
    snprintf(html, sizeof html, "%s.html", dir);
    size_t length;
    char *text = view_output(svg, &length, dir, "-o", svg, NULL);
    expect_well_formed(text, length, svg);
    cr_expect(strstr(text, "host explicit task"), "no legend entry for tasks");
    cr_expect(strstr(text, "&#10;task 1099511"), "no task tooltip with the task's id (thread 0's first is 2^40 + n)");
    free(text);
    text = view_output(html, NULL, dir, "-o", html, NULL);
    cr_expect(strstr(text, "host explicit task"), "the page's classes lack tasks");
    cr_expect(strstr(text, ",4,3]"), "no bar of an explicit task: [..., id, flags 4 (explicit), 3]");
    free(text);

    scratch_path(dir, sizeof dir, "view-lock-histogram-all");
    cr_assert_eq(record_program(dir, NULL,
                                (char *[]){"OMP_NUM_THREADS=3", "OMP_CANCELLATION=true", "OFFTRACE_HOST_OPENMP=all",
                                           NULL},
                                "example_lock_histogram", (char *[]){"2000", "1", NULL}, &err), 0, "%s", err);
    free(err);
    snprintf(svg, sizeof svg, "%s.svg", dir);
    text = view_output(svg, &length, dir, "-o", svg, NULL);
    expect_well_formed(text, length, svg);
    cr_expect(strstr(text, "host lock / critical / ordered held"), "no legend entry for locks");
    cr_expect(strstr(text, "waiting for a host lock / critical"), "no legend entry for the waiting for a lock");
    free(text);
}

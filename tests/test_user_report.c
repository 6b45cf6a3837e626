/*
 * The report's user tables (issue 14; docs/report.md "User regions"),
 * against the same archive read independently with OTF2's reader: a user
 * region's count is every instance the program made, its total the
 * durations of its outermost instances per thread (a region inside itself
 * counts once), its offload the durations of the target regions inside
 * those instances on the same location; user events get their own table.
 * examples/user_phases.c and tests/support/user_nesting.c, recorded for real.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/otf2_definitions.h"
#include "check/run.h"

#define MAX_LOCS 64
#define MAX_DEPTH 128
#define MAX_NAMES 16

/* What the test reads from the archive itself, per user region name. */
typedef struct expected {
    const char *name;
    uint64_t count, counted, total_ns, offload_ns, kernels_unused;
    uint64_t locations; /* bit per location index */
} expected;

typedef struct reading {
    otf2_definitions defs; /* first: the read's callbacks share the pointer */
    struct { OTF2_RegionRef region; uint64_t enter; } stack[MAX_LOCS][MAX_DEPTH];
    size_t depth[MAX_LOCS];
    expected rows[MAX_NAMES];
    size_t nrows;
    unsigned overflow;
} reading;

static const char *region_name(reading *s, OTF2_RegionRef r) { return otf2_defs_region_name(&s->defs, r); }
static int is_user(reading *s, OTF2_RegionRef r) { return otf2_defs_is_user_region(&s->defs, r); }

static expected *row(reading *s, const char *name)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (!strcmp(s->rows[i].name, name))
            return &s->rows[i];
    if (s->nrows == MAX_NAMES) {
        s->overflow++;
        return NULL;
    }
    s->rows[s->nrows].name = name;
    return &s->rows[s->nrows++];
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    if (s->depth[i] < MAX_DEPTH) {
        s->stack[i][s->depth[i]].region = r;
        s->stack[i][s->depth[i]++].enter = t;
    } else
        s->overflow++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Whether an instance of \p name is open below depth \p below on location \p i. */
static int open_below(reading *s, size_t i, size_t below, const char *name)
{
    for (size_t d = 0; d < below; d++)
        if (is_user(s, s->stack[i][d].region) && !strcmp(region_name(s, s->stack[i][d].region), name))
            return 1;
    return 0;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    if (!s->depth[i])
        return OTF2_CALLBACK_SUCCESS;
    size_t d = --s->depth[i];
    uint64_t ns = t - s->stack[i][d].enter;
    const char *name = region_name(s, r);
    if (is_user(s, r)) {
        expected *e = row(s, name);
        if (e) {
            e->count++;
            e->locations |= 1ull << i;
            if (!open_below(s, i, d, name)) {
                e->counted++;
                e->total_ns += ns;
            }
        }
    } else if (!strncmp(name, "target @", 8)) {
        /* offload: to every user region open around it that is the outermost of its name */
        for (size_t k = 0; k < d; k++) {
            OTF2_RegionRef o = s->stack[i][k].region;
            if (is_user(s, o) && !open_below(s, i, k, region_name(s, o))) {
                expected *e = row(s, region_name(s, o));
                if (e)
                    e->offload_ns += ns;
            }
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
}

static reading *read_archive(const char *dir)
{
    reading *s = calloc(1, sizeof *s);
    cr_assert_not_null(s);
    cr_assert_eq(otf2_read_with_definitions(dir, &s->defs, MAX_LOCS, set_events), 0, "cannot read %s", dir);
    cr_assert_eq(s->overflow, 0);
    return s;
}

static void free_reading(reading *s)
{
    otf2_definitions_free(&s->defs);
    free(s);
}

/* ---- the report's side ---- */

static char *report(const char *dir, const char *format)
{
    run_result r;
    cr_assert_eq(format ? run_offtrace(&r, "report", format, dir, NULL) : run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    char *out = strdup(r.out);
    run_free(&r);
    return out;
}

/* The row \p name of JSON member \p table, as a copy of its text ("{...}"), or NULL. */
static char *json_row(const char *json, const char *table, const char *name)
{
    char key[64], want[128];
    snprintf(key, sizeof key, "\"%s\": [", table);
    snprintf(want, sizeof want, "{\"name\": \"%s\",", name);
    const char *t = strstr(json, key);
    if (!t)
        return NULL;
    const char *end = strstr(t, "\n  ]");
    const char *x = strstr(t, want);
    if (!x || !end || x > end)
        return NULL;
    const char *close = strchr(x, '}');
    return close ? strndup(x, (size_t)(close - x + 1)) : NULL;
}

static uint64_t field(const char *row_text, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": ", key);
    const char *p = strstr(row_text, k);
    cr_assert_not_null(p, "no %s in %s", key, row_text);
    return strtoull(p + strlen(k), NULL, 10);
}

static void record(const char *name, const char *program, char *const args[], char *dir, size_t size)
{
    scratch_path(dir, (unsigned)size, name);
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, NULL, program, args, &err), 0, "%s", err ? err : "");
    free(err);
}

/* The report's row \p name agrees with what the archive says. */
static void expect_row_matches(const char *json, const char *table, reading *s, const char *name)
{
    char *x = json_row(json, table, name);
    cr_assert_not_null(x, "no row %s in %s", name, table);
    expected *e = row(s, name);
    cr_assert_not_null(e);
    cr_expect_eq(field(x, "count"), e->count, "%s: count", name);
    cr_expect_eq(field(x, "counted"), e->counted, "%s: counted", name);
    cr_expect_eq(field(x, "total_ns"), e->total_ns, "%s: total %" PRIu64 " in the archive: %s", name, e->total_ns, x);
    cr_expect_eq(field(x, "offload_ns"), e->offload_ns, "%s: offload %" PRIu64 " in the archive: %s", name,
                 e->offload_ns, x);
    cr_expect_leq(field(x, "offload_ns"), field(x, "total_ns"), "%s", name);
    cr_expect_leq(field(x, "min_ns"), field(x, "mean_ns"), "%s", name);
    cr_expect_leq(field(x, "mean_ns"), field(x, "max_ns"), "%s", name);
    cr_expect_eq(field(x, "open_at_end"), 0, "%s", name);
    free(x);
}

Test(user_report, user_phases_counts_times_and_offload_match_the_archive)
{
    char dir[512];
    char *args[] = {"5", NULL};
    record("user-report-phases", "example_user_phases", args, dir, sizeof dir);
    reading *s = read_archive(dir);
    char *json = report(dir, "--json");
    expect_row_matches(json, "user_regions", s, "solve");
    expect_row_matches(json, "user_regions", s, "assemble");
    expect_row_matches(json, "user_events", s, "halo");
    /* what the program did: 5 steps, one target region (one kernel) in each solve */
    char *solve = json_row(json, "user_regions", "solve");
    cr_assert_not_null(solve);
    cr_expect_eq(field(solve, "count"), 5);
    cr_expect_eq(field(solve, "kernels"), 5);
    cr_expect_gt(field(solve, "offload_ns"), 0);
    cr_expect_gt(field(solve, "transfer_ns"), 0, "solve maps x to and y from the device");
    cr_expect_leq(field(solve, "transfer_ns"), field(solve, "offload_ns"));
    cr_expect_eq(row(s, "assemble")->offload_ns, 0);
    /* halo lies inside solve: solve's time holds it */
    char *halo = json_row(json, "user_events", "halo");
    cr_assert_not_null(halo);
    cr_expect_geq(field(solve, "total_ns"), field(halo, "total_ns"));
    cr_expect_eq(field(halo, "count"), 5);
    cr_expect_null(json_row(json, "user_regions", "halo"), "an event is not in the regions' table");
    /* the values user_phases wrote: iterations 1..5, residual 1/(step+1) */
    cr_expect(strstr(json, "{\"name\": \"iterations\", \"type\": \"int64\", \"count\": 5, \"min\": 1, \"max\": 5, "
                           "\"last\": 5, \"mean\": 3}") != NULL, "%s", json);
    char residual[200];
    snprintf(residual, sizeof residual, "{\"name\": \"residual\", \"type\": \"double\", \"count\": 5, \"min\": %.17g, "
             "\"max\": 1, \"last\": %.17g, \"mean\": %.17g}", 1.0 / 5, 1.0 / 5,
             (1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4 + 1.0 / 5) / 5);
    cr_expect(strstr(json, residual) != NULL, "%s in\n%s", residual, json);
    free(solve);
    free(halo);
    free(json);
    char *text = report(dir, NULL);
    cr_expect(strstr(text, "\nUser regions") != NULL, "%s", text);
    cr_expect(strstr(text, "\nUser events") != NULL, "%s", text);
    const char *solve_line = strstr(text, "\n  solve ");
    const char *assemble_line = strstr(text, "\n  assemble ");
    cr_expect(solve_line && assemble_line, "%s", text);
    free(text);
    free_reading(s);
}

/* A region inside itself counts each instance but its time once; a parent's time holds its children's; a
 * region run on two threads says so. */
Test(user_report, recursion_nesting_and_threads)
{
    char dir[512];
    char *args[] = {NULL};
    record("user-report-nesting", "user_nesting", args, dir, sizeof dir);
    reading *s = read_archive(dir);
    char *json = report(dir, "--json");
    expect_row_matches(json, "user_regions", s, "recurse");
    expect_row_matches(json, "user_regions", s, "outer");
    expect_row_matches(json, "user_regions", s, "inner");
    expect_row_matches(json, "user_regions", s, "worker");
    char *recurse = json_row(json, "user_regions", "recurse"), *outer = json_row(json, "user_regions", "outer"),
         *inner = json_row(json, "user_regions", "inner"), *worker = json_row(json, "user_regions", "worker");
    cr_assert(recurse && outer && inner && worker);
    cr_expect_eq(field(recurse, "count"), 12);
    cr_expect_eq(field(recurse, "counted"), 4, "3 deep, 4 times: the outermost of each counts");
    cr_expect_eq(field(outer, "count"), 4);
    cr_expect_eq(field(inner, "count"), 8);
    cr_expect_eq(field(inner, "kernels"), 8);
    cr_expect_eq(field(outer, "kernels"), 8, "the targets of inner are inside outer too");
    cr_expect_geq(field(outer, "total_ns"), field(inner, "total_ns"));
    cr_expect_eq(field(outer, "offload_ns"), field(inner, "offload_ns"));
    cr_expect_eq(field(worker, "count"), 4);
    cr_expect(strstr(worker, "\"threads\": [0, ") != NULL, "worker ran on two threads: %s", worker);
    cr_expect(strstr(recurse, "\"threads\": [0]") != NULL, "%s", recurse);
    cr_expect_eq(__builtin_popcountll(row(s, "worker")->locations), 2);
    free(recurse);
    free(outer);
    free(inner);
    free(worker);
    free(json);
    free_reading(s);
}

/* An archive without user regions or events: no user table, no JSON member. */
Test(user_report, no_user_regions_no_table)
{
    char dir[512], *err = NULL;
    char *args[] = {NULL};
    cr_assert_eq(shared_recording(dir, sizeof dir, "user-report-saxpy", "example_saxpy", args, &err), 0, "%s",
                 err ? err : "");
    free(err);
    char *json = report(dir, "--json");
    cr_expect_null(strstr(json, "\"user_regions\""));
    cr_expect_null(strstr(json, "\"user_events\""));
    cr_expect_null(strstr(json, "\"user_values\""));
    free(json);
    char *text = report(dir, NULL);
    cr_expect_null(strstr(text, "User regions"));
    cr_expect_null(strstr(text, "User events"));
    cr_expect_null(strstr(text, "User values"));
    free(text);
}

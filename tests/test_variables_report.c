/*
 * The report's "Variables" table (issue 15; docs/report.md "Variables"),
 * against the same archive read independently with OTF2's reader: per
 * variable (the "variable" attribute of the puts and gets, and of the
 * allocations' and deletions' Enters, or where an Enter leaves it out, of the
 * previous Enter of its region on its location; names without a name problem, the
 * others one row "unknown"; a put/get's implicit and name problem are its
 * data op's, the Enter it is issued in), the bytes and transfers each way, the
 * allocations and deletions and the bytes of implicit maps.
 * examples/transfer_mistakes.c, tests/support/map_names.c (with and without
 * -g), recorded for real.
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
#define MAX_VARIABLES 64

/* What the test reads from the archive itself, per variable. */
typedef struct expected {
    const char *name;
    uint64_t to_device_bytes, to_device, from_device_bytes, from_device, allocations, deletions, implicit_bytes;
} expected;

/* A location's named data op open: its Enter's implicit and name problem, for the put/get issued in it. */
typedef struct open_op {
    unsigned depth;   /* regions open on the location */
    unsigned op_depth; /* the data op's depth, 0: none open */
    int implicit, problem;
} open_op;

/* The variable the last Enter of a region carried on a location: the next Enter of that region there leaves it
 * out where it repeats, with the map type and site (docs/variables.md "The attributes"). */
typedef struct region_variable {
    OTF2_RegionRef region;
    OTF2_StringRef variable;
} region_variable;

#define MAX_REGIONS_PER_LOC 64

typedef struct reading {
    otf2_definitions defs; /* first: the read's callbacks share the pointer */
    expected rows[MAX_VARIABLES];
    size_t nrows;
    unsigned overflow;
    open_op open[MAX_LOCS];
    region_variable last[MAX_LOCS][MAX_REGIONS_PER_LOC];
    size_t nlast[MAX_LOCS];
    unsigned left_out; /* Enters whose variable is their region's previous one's */
} reading;

/* The attribute the archive defines with this name and type, or UINT32_MAX. */
static OTF2_AttributeRef attribute(reading *s, const char *name, OTF2_Type type)
{
    return otf2_defs_attribute_named(&s->defs, name, type);
}

/* The variable a list carries, UINT32_MAX when none. */
static OTF2_StringRef carried_variable(reading *s, OTF2_AttributeList *a)
{
    OTF2_StringRef v;
    OTF2_AttributeRef variable = attribute(s, "variable", OTF2_TYPE_STRING);
    if (!a || !OTF2_AttributeList_TestAttributeByID(a, variable) ||
        OTF2_AttributeList_GetStringRef(a, variable, &v) != OTF2_SUCCESS)
        return UINT32_MAX;
    return v;
}

/* The variable of an Enter of region \p r on location index \p li: carried, or, where left out, the one the
 * previous Enter of the region there carried. */
static OTF2_StringRef enter_variable(reading *s, size_t li, OTF2_RegionRef r, OTF2_AttributeList *a)
{
    OTF2_StringRef v = carried_variable(s, a);
    region_variable *last = s->last[li];
    size_t i = 0;
    while (i < s->nlast[li] && last[i].region != r)
        i++;
    if (i == s->nlast[li]) {
        if (v == UINT32_MAX)
            return v;
        cr_assert_lt(i, MAX_REGIONS_PER_LOC);
        s->nlast[li]++;
        last[i].region = r;
    } else if (v == UINT32_MAX) {
        s->left_out++;
        return last[i].variable;
    }
    last[i].variable = v;
    return v;
}

/* The row of variable \p v (UINT32_MAX: none), NULL when none; a put/get (\p op not NULL) takes implicit and
 * name problem from its data op's Enter, an Enter from its list \p a. */
static expected *variable_row(reading *s, OTF2_StringRef v, OTF2_AttributeList *a, const open_op *op, int *implicit,
                              int *problem)
{
    uint8_t imp = 0;
    OTF2_AttributeRef problem_ref = attribute(s, "name problem", OTF2_TYPE_STRING),
                      implicit_ref = attribute(s, "implicit", OTF2_TYPE_UINT8);
    if (v == UINT32_MAX)
        return NULL;
    const char *name = otf2_defs_string(&s->defs, v);
    if (op) {
        cr_expect(op->op_depth && op->op_depth == op->depth, "a put/get of %s outside its data op", name);
        *problem = op->problem;
        imp = (uint8_t)op->implicit;
    } else {
        *problem = OTF2_AttributeList_TestAttributeByID(a, problem_ref);
        if (OTF2_AttributeList_TestAttributeByID(a, implicit_ref))
            OTF2_AttributeList_GetUint8(a, implicit_ref, &imp);
    }
    if (*problem || !strcmp(name, "unknown"))
        name = "unknown";
    *implicit = imp;
    for (size_t i = 0; i < s->nrows; i++)
        if (!strcmp(s->rows[i].name, name))
            return &s->rows[i];
    if (s->nrows == MAX_VARIABLES) {
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
    const char *name = otf2_defs_region_name(&s->defs, r);
    int implicit, problem;
    size_t li = otf2_defs_location_index(&s->defs, l);
    open_op *o = &s->open[li];
    o->depth++;
    expected *e = variable_row(s, enter_variable(s, li, r, a), a, NULL, &implicit, &problem);
    if (e) {
        o->op_depth = o->depth;
        o->implicit = implicit;
        o->problem = problem;
    }
    if (e && !strncmp(name, "alloc ", 6))
        e->allocations++;
    else if (e && !strncmp(name, "delete ", 7))
        e->deletions++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    open_op *o = &s->open[otf2_defs_location_index(&s->defs, l)];
    if (o->op_depth == o->depth)
        o->op_depth = 0;
    o->depth--;
    return OTF2_CALLBACK_SUCCESS;
}

static void rma(reading *s, OTF2_LocationRef l, OTF2_AttributeList *a, uint64_t bytes, int to_device)
{
    int implicit, problem;
    expected *e = variable_row(s, carried_variable(s, a), a, &s->open[otf2_defs_location_index(&s->defs, l)],
                               &implicit, &problem);
    if (!e)
        return;
    if (to_device) {
        e->to_device_bytes += bytes;
        e->to_device++;
    } else {
        e->from_device_bytes += bytes;
        e->from_device++;
    }
    if (implicit)
        e->implicit_bytes += bytes;
}

static OTF2_CallbackCode e_put(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    rma(u, l, a, bytes, 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_get(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    rma(u, l, a, bytes, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(cb, e_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(cb, e_get);
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

/* The row of variable \p name in "variables", as a copy of its text ("{...}"), or NULL. */
static char *json_row(const char *json, const char *name)
{
    char want[256];
    snprintf(want, sizeof want, "{\"variable\": \"%s\",", name);
    const char *t = strstr(json, "\"variables\": [");
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

/* Every variable of the archive has its row, and each row agrees with the archive; \return the rows. */
static size_t expect_rows_match(const char *json, reading *s)
{
    for (size_t i = 0; i < s->nrows; i++) {
        expected *e = &s->rows[i];
        char *x = json_row(json, e->name);
        cr_assert_not_null(x, "no row %s in %s", e->name, json);
        cr_expect_eq(field(x, "to_device_bytes"), e->to_device_bytes, "%s: %s", e->name, x);
        cr_expect_eq(field(x, "to_device"), e->to_device, "%s: %s", e->name, x);
        cr_expect_eq(field(x, "from_device_bytes"), e->from_device_bytes, "%s: %s", e->name, x);
        cr_expect_eq(field(x, "from_device"), e->from_device, "%s: %s", e->name, x);
        cr_expect_eq(field(x, "allocations"), e->allocations, "%s: %s", e->name, x);
        cr_expect_eq(field(x, "deletions"), e->deletions, "%s: %s", e->name, x);
        cr_expect_eq(field(x, "implicit_bytes"), e->implicit_bytes, "%s: %s", e->name, x);
        cr_expect(strstr(x, "\"sites\": [\"") != NULL, "%s: a row names its sites: %s", e->name, x);
        free(x);
    }
    cr_expect_eq(count_occurrences(json, "{\"variable\": "), s->nrows, "one row per variable: %s", json);
    return s->nrows;
}

static expected *archive_row(reading *s, const char *name)
{
    for (size_t i = 0; i < s->nrows; i++)
        if (!strcmp(s->rows[i].name, name))
            return &s->rows[i];
    return NULL;
}

Test(variables_report, transfer_mistakes_rows_match_the_archive)
{
    char dir[512];
    char *args[] = {NULL};
    record("variables-mistakes", "example_transfer_mistakes", args, dir, sizeof dir);
    reading *s = read_archive(dir);
    char *json = report(dir, "--json");
    cr_expect_geq(expect_rows_match(json, s), 4);
    /* what the program maps (examples/transfer_mistakes.c, 4 steps of 4 Mi doubles, 32 sources) */
    expected *coef = archive_row(s, "coef[0:(4L * 1024 * 1024)]"), *u = archive_row(s, "u[0:(4L * 1024 * 1024)]");
    cr_assert(coef && u, "%s", json);
    cr_expect_eq(coef->to_device, 4);
    cr_expect_eq(coef->to_device_bytes, 4ull * 4 * 1024 * 1024 * sizeof(double));
    cr_expect_eq(coef->from_device, 0);
    /* one allocation and deletion per step: all but the first step's Enters leave the variable out (their
     * region's previous Enter on the thread has it), and the reading above took it from there */
    cr_expect_eq(coef->allocations, 4);
    cr_expect_eq(coef->deletions, 4);
    cr_expect_gt(s->left_out, 0, "no Enter left its variable out: the placement rule is not exercised");
    cr_expect_eq(u->to_device, 8, "u[0:N] maps tofrom at two lines in each of 4 steps");
    cr_expect_eq(u->from_device, 8);
    cr_expect_eq(archive_row(s, "src[k:1]")->to_device, 32);
    /* the largest first: u moves the most */
    const char *first = strstr(json, "\"variables\": [\n    {\"variable\": ");
    cr_expect(first && !strncmp(first + strlen("\"variables\": [\n    {\"variable\": "), "\"u[0:", 5), "%s", json);
    char *urow = json_row(json, "u[0:(4L * 1024 * 1024)]");
    cr_assert_not_null(urow);
    cr_expect(strstr(urow, "\"sites\": [\"transfer_mistakes.c:58\", \"transfer_mistakes.c:61\"]") != NULL, "%s", urow);
    cr_expect(strstr(urow, "\"explicit\": true") != NULL, "%s", urow);
    free(urow);
    free(json);
    char *text = report(dir, NULL);
    cr_expect(strstr(text, "\nVariables (by bytes moved") != NULL, "%s", text);
    cr_expect(strstr(text, "\n  coef[0:(4L * 1024 * 1024)]   128.00 MiB      4 ") != NULL, "%s", text);
    cr_expect(strstr(text, "\n  u[at:1]  ") != NULL, "%s", text);
    cr_expect(strstr(text, "\n      at transfer_mistakes.c:58, transfer_mistakes.c:61\n") != NULL, "%s", text);
    free(text);
    free_reading(s);
}

/* The finding of kind \p kind whose site is \p site, as a copy of its text, or NULL. */
static char *finding(const char *json, const char *kind, const char *site)
{
    char want[160];
    snprintf(want, sizeof want, "{\"kind\": \"%s\", \"site\": \"%s\"", kind, site);
    const char *x = strstr(json, want);
    if (!x)
        return NULL;
    const char *end = strstr(x, "}");
    return end ? strndup(x, (size_t)(end - x + 1)) : NULL;
}

/* Each transfer finding of the mistakes example names the variable its comment says (MISTAKE 1: coef sent
 * again; MISTAKE 2: u copied back and sent again, at both lines; MISTAKE 3: one src element at a time). */
Test(variables_report, transfer_findings_name_their_variables)
{
    char dir[512];
    char *args[] = {NULL};
    record("variables-findings", "example_transfer_mistakes", args, dir, sizeof dir);
    char *json = report(dir, "--json");
    struct { const char *kind, *site, *variable, *text; } want[] = {
        {"repeated_upload", "transfer_mistakes.c:58", "coef[0:(4L * 1024 * 1024)]",
         "sends coef[0:(4L * 1024 * 1024)] (32.0 MiB) to device 0"},
        {"round_trip", "transfer_mistakes.c:58", "u[0:(4L * 1024 * 1024)]",
         "copies u[0:(4L * 1024 * 1024)] (32.0 MiB) back"},
        {"round_trip", "transfer_mistakes.c:61", "u[0:(4L * 1024 * 1024)]",
         "copies u[0:(4L * 1024 * 1024)] (32.0 MiB) back"},
        {"tiny_transfers", "transfer_mistakes.c:53", "src[k:1]", "transfers of src[k:1] (8 B) smaller"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char *f = finding(json, want[i].kind, want[i].site);
        cr_assert_not_null(f, "no %s at %s in %s", want[i].kind, want[i].site, json);
        char names[160];
        snprintf(names, sizeof names, "\"variables\": [\"%s\"]", want[i].variable);
        cr_expect(strstr(f, names) != NULL, "%s: %s", names, f);
        cr_expect(strstr(f, want[i].text) != NULL, "%s: %s", want[i].text, f);
        free(f);
    }
    free(json);
    char *text = report(dir, NULL);
    cr_expect(strstr(text, "transfer_mistakes.c:58 sends coef[0:(4L * 1024 * 1024)] (32.0 MiB) to device 0") !=
                  NULL, "%s", text);
    free(text);
    /* export: a data op's Chrome args carry its variable and map type */
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", dir, "-o", "-", NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_expect(strstr(r.out, "\"variable\":\"coef[0:(4L * 1024 * 1024)]\",\"map type\":\"to\","
                            "\"map site\":\"transfer_mistakes.c:58\",\"implicit\":0") != NULL,
              "no named data op in the export");
    run_free(&r);
    /* view: the page's region table gives a data op's variable and map type to its details */
    char page[600];
    snprintf(page, sizeof page, "%s.html", dir);
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", page, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    char *html = read_whole_file(page, NULL);
    cr_assert_not_null(html);
    cr_expect(strstr(html, "\"site\":\"transfer_mistakes.c:61\",\"variable\":\"u[0:(4L * 1024 * 1024)]\","
                           "\"map_type\":\"tofrom\"") != NULL, "no named data op in the page's regions");
    free(html);
}

/* examples/implicit_maps.c: `weights`, named in no map clause, copied tofrom around each of its 50 kernels:
 * the finding names it, its copies as the archive counts them, and the clause; transfer_done_right has none. */
Test(variables_report, implicit_maps_that_cost)
{
    char dir[512];
    char *args[] = {"20", NULL};
    record("variables-implicit", "example_implicit_maps", args, dir, sizeof dir);
    reading *s = read_archive(dir);
    expected *w = archive_row(s, "weights");
    cr_assert_not_null(w);
    cr_expect_eq(w->to_device, 20);
    cr_expect_eq(w->from_device, 20);
    cr_expect_eq(w->implicit_bytes, w->to_device_bytes + w->from_device_bytes, "weights is only mapped implicitly");
    char *json = report(dir, "--json");
    expect_rows_match(json, s);
    char *f = finding(json, "implicit_maps", "implicit_maps.c:37");
    cr_assert_not_null(f, "%s", json);
    cr_expect(strstr(f, "\"variables\": [\"weights\"]") != NULL, "%s", f);
    cr_expect(strstr(f, "\"count\": 40,") != NULL, "%s", f);
    cr_expect_eq(field(f, "bytes_at_stake"), w->implicit_bytes / 40 * 38, "%s", f);
    cr_expect(strstr(f, "`target data map(tofrom: weights)` around the loop") != NULL, "%s", f);
    cr_expect(strstr(f, "weights is named in no map clause") != NULL, "%s", f);
    cr_expect_null(finding(json, "implicit_maps", "implicit_maps.c:35"), "field is mapped explicitly");
    free(f);
    free(json);
    free_reading(s);

    record("variables-done-right", "example_transfer_done_right", NULL, dir, sizeof dir);
    json = report(dir, "--json");
    cr_expect_null(strstr(json, "\"kind\": \"implicit_maps\""), "%s", json);
    free(json);
}

/* The names of tests/support/map_names.c (implicit maps, struct members, a mapper, nowait, the memory API)
 * and, built without -g, one row "unknown" with its hint. */
Test(variables_report, map_names_with_and_without_debug_info)
{
    char dir[512];
    char *args[] = {NULL};
    record("variables-map-names", "map_names", args, dir, sizeof dir);
    reading *s = read_archive(dir);
    char *json = report(dir, "--json");
    cr_expect_geq(expect_rows_match(json, s), 3);
    uint64_t implicit = 0;
    for (size_t i = 0; i < s->nrows; i++)
        implicit += s->rows[i].implicit_bytes;
    cr_expect_gt(implicit, 0, "map_names maps some variables implicitly");
    free(json);
    free_reading(s);

    record("variables-map-names-nog", "map_names_nog", args, dir, sizeof dir);
    s = read_archive(dir);
    json = report(dir, "--json");
    expect_rows_match(json, s);
    char *unknown = json_row(json, "unknown");
    cr_assert_not_null(unknown, "%s", json);
    cr_expect(strstr(unknown, "\"unknown\": true") != NULL, "%s", unknown);
    cr_expect(strstr(unknown, "\"hint\": \"no debug info") != NULL, "%s", unknown);
    free(unknown);
    free(json);
    char *text = report(dir, NULL);
    cr_expect_eq(count_occurrences(text, "unknown: variables without a name (no debug info"), 1, "%s", text);
    free(text);
    free_reading(s);
}

/* An archive recorded without the capture: no data op names a variable, no table, no JSON member. */
Test(variables_report, no_named_data_op_no_table)
{
    char dir[512];
    char *args[] = {NULL};
    scratch_path(dir, sizeof dir, "variables-no-capture");
    char *err = NULL;
    cr_assert_eq(record_program(dir, "--no-capture", NULL, "example_saxpy", args, &err), 0, "%s", err ? err : "");
    free(err);
    char *json = report(dir, "--json");
    cr_expect_null(strstr(json, "\"variables\""), "%s", json);
    free(json);
    char *text = report(dir, NULL);
    cr_expect_null(strstr(text, "\nVariables"), "%s", text);
    free(text);
}

/*
 * The user API recorded (issue 14): examples/user_phases.c under `offtrace
 * record`, its archive read back with OTF2's reader. User regions and
 * events are regions of paradigm USER on the thread that made them, nested
 * around and inside the target regions as the program nests them; values
 * are metrics, one per name, with the exact values written.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/otf2_definitions.h"
#include "check/run.h"
#include "offtrace/event_catalogue.h"

#define MAX_LOCS 64
#define MAX_DEPTH 64
#define MAX_VALUES 64

typedef struct reading {
    otf2_definitions defs; /* first: the read's callbacks share the pointer */
    /* per location: the open regions' names */
    const char *stack[MAX_LOCS][MAX_DEPTH];
    size_t depth[MAX_LOCS];
    /* what was seen */
    unsigned assemble, solve, halo, targets, targets_in_solve, halo_in_solve, user_at_top, not_main;
    double residual[MAX_VALUES];
    int64_t iterations[MAX_VALUES];
    unsigned nresidual, niterations;
    unsigned bad_values;
} reading;

static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    const char *name = otf2_defs_region_name(&s->defs, r);
    const char *outer = s->depth[i] ? s->stack[i][s->depth[i] - 1] : NULL;
    if (otf2_defs_is_user_region(&s->defs, r)) {
        s->not_main += l != 0;
        s->assemble += !strcmp(name, "assemble");
        s->solve += !strcmp(name, "solve");
        s->halo += !strcmp(name, "halo");
        s->halo_in_solve += !strcmp(name, "halo") && outer && !strcmp(outer, "solve");
        s->user_at_top += !strcmp(name, "halo") ? 0 : !outer;
    }
    if (!strncmp(name, "target @user_phases.c", 21)) {
        s->targets++;
        s->targets_in_solve += outer && !strcmp(outer, "solve");
    }
    if (s->depth[i] < MAX_DEPTH)
        s->stack[i][s->depth[i]++] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    if (s->depth[i])
        s->depth[i]--;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_metric(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                  OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                  const OTF2_MetricValue *values)
{
    reading *s = u;
    const otf2_metric_member_def *m = otf2_defs_metric_member(&s->defs, metric);
    if (!m || n != 1)
        return OTF2_CALLBACK_SUCCESS;
    const char *name = otf2_defs_string(&s->defs, m->name);
    if (!strcmp(name, "residual")) {
        s->bad_values += types[0] != OTF2_TYPE_DOUBLE || m->type != OTF2_TYPE_DOUBLE || l != 0;
        if (s->nresidual < MAX_VALUES)
            s->residual[s->nresidual++] = values[0].floating_point;
    } else if (!strcmp(name, "iterations")) {
        s->bad_values += types[0] != OTF2_TYPE_INT64 || m->type != OTF2_TYPE_INT64 || l != 0;
        if (s->niterations < MAX_VALUES)
            s->iterations[s->niterations++] = values[0].signed_int;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, e_metric);
}

static void read_archive(const char *dir, reading *s)
{
    cr_assert_eq(otf2_read_with_definitions(dir, &s->defs, MAX_LOCS, set_events), 0, "cannot read %s", dir);
}

static void free_reading(reading *s)
{
    otf2_definitions_free(&s->defs);
    free(s);
}

static void record_phases(const char *name, const char *steps, char *dir, size_t size)
{
    scratch_path(dir, (unsigned)size, name);
    char *args[] = {(char *)steps, NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, NULL, "example_user_phases", args, &err), 0, "%s", err ? err : "");
    free(err);
}

Test(user_recording, regions_events_and_values_come_back_exact_and_nested)
{
    char dir[512];
    record_phases("user-recorded", "5", dir, sizeof dir);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 10); /* assemble and solve, 5 steps */
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_EVENT], 5);   /* halo */
    cr_expect_eq(f.target, 5);
    uint64_t undefined = 99;
    cr_expect_eq(archive_property(dir, "OFFTRACE::USER_RECORDS_UNDEFINED", &undefined), 0);
    cr_expect_eq(undefined, 0);

    reading *s = calloc(1, sizeof *s);
    read_archive(dir, s);
    cr_expect_eq(s->assemble, 5);
    cr_expect_eq(s->solve, 5);
    cr_expect_eq(s->halo, 5);
    cr_expect_eq(s->not_main, 0, "user regions on another location than the main thread's");
    cr_expect_eq(s->user_at_top, 10, "assemble and solve are outermost on their thread");
    cr_expect_eq(s->targets, 5);
    cr_expect_eq(s->targets_in_solve, 5, "every target region inside the user region around it");
    cr_expect_eq(s->halo_in_solve, 5);
    cr_expect_eq(s->bad_values, 0);
    cr_assert_eq(s->nresidual, 5);
    cr_assert_eq(s->niterations, 5);
    for (unsigned i = 0; i < 5; i++) {
        cr_expect_eq(s->residual[i], 1.0 / (i + 1), "residual %u: %.17g", i, s->residual[i]);
        cr_expect_eq(s->iterations[i], (int64_t)i + 1);
    }
    /* the regions say where: paradigm USER, file and line of the macro */
    int found = 0;
    for (size_t r = 0; r < s->defs.region_count; r++) {
        const otf2_region_def *d = &s->defs.regions[r];
        if (d->paradigm != OTF2_PARADIGM_USER || strcmp(otf2_defs_string(&s->defs, d->name), "solve"))
            continue;
        found++;
        cr_expect_eq(d->role, OTF2_REGION_ROLE_FUNCTION);
        const char *file = otf2_defs_string(&s->defs, d->file);
        cr_expect(strstr(file, "user_phases.c") != NULL, "file %s", file);
        cr_expect(d->line > 0);
    }
    cr_expect_eq(found, 1);
    free_reading(s);
}

Test(user_recording, a_program_with_user_calls_under_host_only_keeps_them)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "user-host-only");
    char *args[] = {"2", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, "--host-only", NULL, "example_user_phases", args, &err), 0, "%s",
                 err ? err : "");
    free(err);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 4);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_EVENT], 2);
}

/* A cut user.defs (the program died in the middle of a definition's write,
 * or the file was damaged): the definitions before the cut stand, the
 * records of the ids after it are counted, not guessed at. */
Test(user_recording, a_cut_definitions_file_keeps_what_came_before_it)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "user-cut-defs");
    char *env[] = {"OFFTRACE_KEEP_RAW=1", NULL};
    char *args[] = {"2", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "example_user_phases", args, &err), 0, "%s", err ? err : "");
    free(err);
    char path[600];
    snprintf(path, sizeof path, "%s/raw/user.defs", dir);
    size_t len = 0;
    char *defs = read_whole_file(path, &len);
    cr_assert_not_null(defs);
    /* The API library defines the event and the values first (user_phases
     * creates them before its first region): cut inside the first region's line. */
    char *region = strstr(defs, " 1 ");
    cr_assert_not_null(region, "%s", defs);
    char *line = region;
    while (line > defs && line[-1] != '\n')
        line--;
    cr_assert_eq(truncate(path, (off_t)(line - defs) + 6), 0);
    free(defs);
    char *why = NULL;
    cr_assert_eq(reconvert_raw(dir, &why), 0, "%s", why ? why : "");
    free(why);
    archive_facts facts;
    cr_assert_eq(archive_check(dir, &facts), 0);
    cr_expect_eq(archive_violations(&facts), 0, "%s", facts.first_problem);
    cr_expect_eq(facts.enters[OFFTRACE_CLASS_USER_REGION], 0);
    cr_expect_eq(facts.enters[OFFTRACE_CLASS_USER_EVENT], 2);
    uint64_t damaged = 0, undefined = 0;
    cr_expect_eq(archive_property(dir, "OFFTRACE::USER_DEFINITIONS_DAMAGED", &damaged), 0);
    cr_expect_eq(damaged, 1);
    cr_expect_eq(archive_property(dir, "OFFTRACE::USER_RECORDS_UNDEFINED", &undefined), 0);
    cr_expect_eq(undefined, 8); /* assemble and solve, begin and end, 2 steps */
}

/* `offtrace export` files user regions and events under their own
 * category, and `offtrace view` gives them a legend class of their own. */
Test(user_recording, export_and_view_name_user_regions_as_such)
{
    char dir[512];
    record_phases("user-export", "4", dir, sizeof dir);
    char json[600], html[600];
    snprintf(json, sizeof json, "%s/user.json", dir);
    snprintf(html, sizeof html, "%s/user.html", dir);
    run_result r;
    char *err = NULL, *text = export_chrome(dir, json, &err);
    cr_assert_not_null(text, "%s", err ? err : "");
    free(err);
    cr_expect_eq(count_occurrences(text, "\"cat\":\"user\""), 12, "assemble, solve and halo, 4 steps");
    free(text);
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", html, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    text = read_whole_file(html, NULL);
    cr_assert_not_null(text);
    /* the region "solve" is drawn in the class "user region / event" */
    const char *classes = strstr(text, "\"classes\":[");
    cr_assert_not_null(classes);
    const char *user_class = strstr(classes, "\"user region / event\"");
    cr_assert_not_null(user_class);
    int index = -1;
    for (const char *p = strstr(classes, "{\"name\":"); p && p < user_class; p = strstr(p + 1, "{\"name\":"))
        index++;
    const char *solve = strstr(text, "{\"name\":\"solve\",\"site\":\"user_phases.c:");
    cr_assert_not_null(solve);
    int cat = -2;
    const char *c = strstr(solve, "\"cat\":");
    cr_assert_not_null(c);
    cr_assert_eq(sscanf(c, "\"cat\":%d", &cat), 1);
    cr_expect_eq(cat, index, "solve drawn in class %d, the user class is %d", cat, index);
    free(text);
}

/* Measurement switched through the user API: a region begun while off is
 * left out whole (its end after recording came back too), one begun while
 * on is recorded whole even if it ends while off (tests/support/user_windows.c:
 * kept, dropped, across, late). The archive stays balanced. */
Test(user_recording, a_region_is_recorded_whole_or_not_at_all_around_switches)
{
    char dir[512], *err = NULL;
    scratch_path(dir, sizeof dir, "user-windows");
    char *args[] = {NULL};
    cr_assert_eq(record_program(dir, NULL, NULL, "user_windows", args, &err), 0, "%s", err ? err : "");
    free(err);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 3, "kept, across and late; not dropped");
    uint64_t switches = 0;
    cr_expect_eq(archive_property(dir, "OFFTRACE::MEASUREMENT_OFF_SWITCHES", &switches), 0);
    cr_expect_eq(switches, 2);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
}

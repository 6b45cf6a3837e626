/*
 * NVTX v3 recorded (issue 14): examples/nvtx_phases.c, annotated for Nsight
 * with the header-only NVTX of the CUDA toolkit and unchanged, under
 * `offtrace record`; its archive read back with OTF2's reader. Every range
 * and mark comes back with its name (the domain in front), nesting,
 * category, colour and payload exact; a start/end range ended on another
 * thread is drawn on the thread that started it; bad input is counted, not
 * fatal; the program's output and exit status are the same traced and not.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <otf2/otf2.h>
#include <stdint.h>
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
#define MAX_SEEN 64

typedef struct seen {
    char name[64], outer[64];
    uint64_t location, enter, leave;
    int has_category, has_color, has_int, has_float;
    uint32_t category, color;
    int64_t payload;
    double fpayload;
} seen;

typedef struct reading {
    otf2_definitions defs; /* first: the read's callbacks share the pointer */
    const char *stack[MAX_LOCS][MAX_DEPTH];
    size_t stack_seen[MAX_LOCS][MAX_DEPTH];
    size_t depth[MAX_LOCS];
    seen user[MAX_SEEN];
    size_t nuser;
    unsigned unbalanced;
    uint64_t last_time;
    unsigned time_back;
} reading;

static void read_attributes(seen *e, OTF2_AttributeList *a)
{
    uint32_t n = a ? OTF2_AttributeList_GetNumberOfElements(a) : 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(a, i, &ref, &type, &v) != OTF2_SUCCESS)
            continue;
        if (ref == 16 && type == OTF2_TYPE_UINT32)
            e->has_category = 1, e->category = v.uint32;
        else if (ref == 17 && type == OTF2_TYPE_UINT32)
            e->has_color = 1, e->color = v.uint32;
        else if (ref == 18 && type == OTF2_TYPE_INT64)
            e->has_int = 1, e->payload = v.int64;
        else if (ref == 19 && type == OTF2_TYPE_DOUBLE)
            e->has_float = 1, e->fpayload = v.float64;
    }
}

/* The leave/enter pairs the converter writes around a range closed out of
 * order (the cross-thread end) re-enter a region at the same time: only
 * the first Enter of a USER region per (location, name, open instance) is
 * a new item. */
static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    s->time_back += t < s->last_time;
    s->last_time = t;
    const char *name = otf2_defs_region_name(&s->defs, r);
    size_t index = SIZE_MAX;
    if (otf2_defs_is_user_region(&s->defs, r) && s->nuser < MAX_SEEN) {
        seen *e = &s->user[index = s->nuser++];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", name);
        snprintf(e->outer, sizeof e->outer, "%s", s->depth[i] ? s->stack[i][s->depth[i] - 1] : "");
        e->location = l;
        e->enter = t;
        read_attributes(e, a);
    }
    if (s->depth[i] < MAX_DEPTH) {
        s->stack_seen[i][s->depth[i]] = index;
        s->stack[i][s->depth[i]++] = name;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    s->time_back += t < s->last_time;
    s->last_time = t;
    if (!s->depth[i] || strcmp(s->stack[i][s->depth[i] - 1], otf2_defs_region_name(&s->defs, r))) {
        s->unbalanced++;
        return OTF2_CALLBACK_SUCCESS;
    }
    size_t index = s->stack_seen[i][--s->depth[i]];
    if (index != SIZE_MAX)
        s->user[index].leave = t;
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
    return s;
}

static void free_reading(reading *s)
{
    otf2_definitions_free(&s->defs);
    free(s);
}

static unsigned count_named(reading *s, const char *name)
{
    unsigned n = 0;
    for (size_t i = 0; i < s->nuser; i++)
        n += !strcmp(s->user[i].name, name);
    return n;
}

static seen *nth_named(reading *s, const char *name, unsigned nth)
{
    for (size_t i = 0; i < s->nuser; i++)
        if (!strcmp(s->user[i].name, name) && nth-- == 0)
            return &s->user[i];
    return NULL;
}

static uint64_t property(const char *dir, const char *name)
{
    uint64_t v = UINT64_MAX;
    cr_expect_eq(archive_property(dir, name, &v), 0, "no property %s", name);
    return v;
}

static void record_phases(const char *name, char *dir, size_t size)
{
    scratch_path(dir, (unsigned)size, name);
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, NULL, "example_nvtx_phases", NULL, &err), 0, "%s", err ? err : "");
    free(err);
}

Test(nvtx_recording, ranges_marks_domains_categories_colours_and_payloads_come_back_exact)
{
    char dir[512];
    record_phases("nvtx-recorded", dir, sizeof dir);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    /* NVTX_RANGE: main, 3 step, 3 solver: assemble, tail, 2 worker, (no message); io and handoff; checkpoint x3,
     * solver: converged, big */
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_RANGE], 11);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_START_END], 2);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_MARK], 5);
    cr_expect_eq(f.target, 3);

    reading *s = read_archive(dir);
    cr_expect_eq(s->unbalanced, 0, "a Leave that does not close the innermost Enter");
    cr_expect_eq(s->time_back, 0, "events out of time order");
    for (size_t i = 0; i < MAX_LOCS; i++)
        cr_expect_eq(s->depth[i], 0, "location %zu left regions open", i);
    cr_expect_eq(count_named(s, "main"), 1);
    cr_expect_eq(count_named(s, "step"), 3);
    cr_expect_eq(count_named(s, "solver: assemble"), 3);
    cr_expect_eq(count_named(s, "checkpoint"), 3);
    cr_expect_eq(count_named(s, "io"), 1);
    cr_expect_eq(count_named(s, "solver: converged"), 1);
    cr_expect_eq(count_named(s, "tail"), 1);
    cr_expect_eq(count_named(s, "big"), 1);
    cr_expect_eq(count_named(s, "worker"), 2);
    cr_expect_eq(count_named(s, "handoff"), 1);
    cr_expect_eq(count_named(s, "(no message)"), 1);
    /* nvtxNameOsThreadA names the threads' locations */
    unsigned driver = 0, helper = 0;
    for (size_t i = 0; i < s->defs.location_count; i++) {
        const char *name = otf2_defs_string(&s->defs, s->defs.locations[i].name);
        driver += !strcmp(name, "driver: Master thread");
        helper += !strncmp(name, "helper: OpenMP thread ", 22);
    }
    cr_expect_eq(driver, 1);
    cr_expect_eq(helper, 1);
    /* main was pushed before the program's first OpenMP construct and is outermost */
    seen *m = nth_named(s, "main", 0);
    cr_assert_not_null(m);
    cr_expect_str_eq(m->outer, "");
    for (unsigned k = 0; k < 3; k++) {
        seen *step = nth_named(s, "step", k), *as = nth_named(s, "solver: assemble", k),
             *cp = nth_named(s, "checkpoint", k);
        cr_assert(step && as && cp);
        cr_expect_str_eq(step->outer, "main");
        cr_expect(step->has_category && step->category == 1);
        cr_expect(step->has_color && step->color == 0xFF00FF00u, "colour %#x", step->color);
        cr_expect(step->has_int && step->payload == (int64_t)k, "payload %lld", (long long)step->payload);
        cr_expect(!step->has_float);
        cr_expect_str_eq(as->outer, "step");
        cr_expect(as->has_category && as->category == 2);
        cr_expect(!as->has_color);
        cr_expect(as->has_float && as->fpayload == k + 0.5, "payload %g", as->fpayload);
        cr_expect_str_eq(cp->outer, "step");
        cr_expect_eq(cp->enter, cp->leave, "a mark has no length");
        cr_expect(!cp->has_category && !cp->has_color && !cp->has_int && !cp->has_float);
    }
    seen *io = nth_named(s, "io", 0), *conv = nth_named(s, "solver: converged", 0), *tail = nth_named(s, "tail", 0),
         *big = nth_named(s, "big", 0);
    cr_assert(io && conv && tail && big);
    cr_expect(io->has_color && io->color == 0xFF0000FFu);
    cr_expect(io->has_int && io->payload == 7 && !io->has_category);
    cr_expect(conv->has_float && conv->fpayload == 1.5);
    cr_expect(tail->has_int && tail->payload == -3);
    cr_expect_str_eq(big->outer, "tail");
    cr_expect(big->has_int && (uint64_t)big->payload == UINT64_MAX, "uint64 payload keeps its bits");
    /* the workers: one on each thread, inside its implicit task */
    seen *w0 = nth_named(s, "worker", 0), *w1 = nth_named(s, "worker", 1);
    cr_assert(w0 && w1);
    cr_expect_neq(w0->location, w1->location);
    cr_expect_str_eq(w0->outer, "implicit task");
    cr_expect_str_eq(w1->outer, "implicit task");
    /* handoff: started on the initial thread, ended by thread 1; drawn on the initial thread from its start
     * to after the worker of thread 1 (the end came after it) */
    seen *h = nth_named(s, "handoff", 0);
    cr_assert_not_null(h);
    cr_expect_eq(h->location, m->location);
    seen *w_other = w0->location != m->location ? w0 : w1;
    cr_expect_gt(h->leave, w_other->leave, "handoff ends after the worker that ended it");
    cr_expect_lt(h->enter, w0->enter);
    /* bad input, counted: the second pop at the end, the unknown id, the NULL push, the wide mark */
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_EVENTS"), 18);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_POPS_WITHOUT_PUSH"), 1);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_ENDS_OF_UNKNOWN_RANGES"), 1);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_NULL_MESSAGES"), 1);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_UNSUPPORTED_CALLS"), 1);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_CALLS_BEFORE_RECORDING"), 0, "the first NVTX call starts libomp");
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_UNMATCHED_ENDS"), 0);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_DEFINITIONS_DAMAGED"), 0);
    free_reading(s);
}

/* The category names are archive properties, per domain. */
Test(nvtx_recording, category_names_are_in_the_archive)
{
    char dir[512];
    record_phases("nvtx-categories", dir, sizeof dir);
    run_result r;
    char path[600];
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    char *argv[] = {"otf2-print", "--show-info", path, NULL};
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    const char *c1 = strstr(r.out, "OFFTRACE::NVTX_CATEGORY_0_1");
    const char *c2 = strstr(r.out, "OFFTRACE::NVTX_CATEGORY_1_2");
    cr_assert(c1 && c2, "%s", r.out);
    cr_expect(strstr(c1, "compute") != NULL);
    cr_expect(strstr(c2, "matrix") != NULL);
    run_free(&r);
}

/* NVTX does nothing without offtrace: the same output and status, and under
 * record too. */
Test(nvtx_recording, the_program_runs_the_same_with_and_without_offtrace)
{
    char prog[600], dir[512];
    snprintf(prog, sizeof prog, "%s/example_nvtx_phases", OFFTRACE_BIN_DIR);
    char *argv[] = {prog, NULL};
    run_result plain, traced;
    cr_assert_eq(run_command(argv, NULL, NULL, &plain), 0);
    scratch_path(dir, sizeof dir, "nvtx-same-output");
    cr_assert_eq(run_offtrace(&traced, "record", "-o", dir, prog, NULL), 0);
    cr_expect(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0);
    cr_expect(WIFEXITED(traced.status) && WEXITSTATUS(traced.status) == 0, "%s", traced.err);
    cr_expect_str_eq(traced.out, plain.out);
    cr_expect(strstr(plain.out, "nvtx_phases: sum = ") != NULL, "%s", plain.out);
    /* the bad input in one line of the summary, not one per call */
    cr_expect(strstr(traced.err, "offtrace: NVTX             18 ranges and marks") != NULL, "%s", traced.err);
    const char *bad = strstr(traced.err, "offtrace: NVTX IGNORED     1 pops without push, 1 ends of unknown ranges, "
                                         "0 ends without start, 1 NULL messages, 1 wide-character or unknown calls, "
                                         "0 calls before recording started\n");
    cr_expect(bad != NULL, "%s", traced.err);
    cr_expect(bad && !strstr(bad + 24, "NVTX IGNORED"), "said once");
    cr_expect_str_eq(plain.err, "");
    run_free(&plain);
    run_free(&traced);
}

/* A user's own NVTX tool is kept: record says so once and the trace has no NVTX. */
Test(nvtx_recording, a_users_own_injection_library_is_kept)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "nvtx-own-tool");
    char *env[] = {"NVTX_INJECTION64_PATH=/nonexistent/libmytool.so", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "example_nvtx_phases", NULL, &err), 0, "%s", err ? err : "");
    cr_assert_not_null(err);
    const char *line = strstr(err, "NVTX_INJECTION64_PATH is already set (/nonexistent/libmytool.so)");
    cr_expect_not_null(line, "%s", err);
    cr_expect(line && !strstr(line + 1, "NVTX_INJECTION64_PATH is already set"), "said once");
    free(err);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_RANGE], 0);
    cr_expect_eq(f.target, 3);
}

/* Recording started paused: NVTX calls while off record nothing, whole
 * ranges only; the archive stays balanced. */
Test(nvtx_recording, nothing_is_recorded_while_measurement_is_off)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "nvtx-paused");
    char *err = NULL;
    cr_assert_eq(record_program(dir, "--start-paused", NULL, "example_nvtx_phases", NULL, &err), 0, "%s",
                 err ? err : "");
    free(err);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_RANGE], 0);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_MARK], 0);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
}

/* `offtrace export --format chrome` files NVTX ranges and marks under the
 * category "nvtx", with category, colour and payload in `args`. */
Test(nvtx_recording, export_carries_category_colour_and_payload_in_args)
{
    char dir[512], json[600];
    record_phases("nvtx-export", dir, sizeof dir);
    snprintf(json, sizeof json, "%s/nvtx.json", dir);
    char *err = NULL, *text = export_chrome(dir, json, &err);
    cr_assert_not_null(text, "%s", err ? err : "");
    free(err);
    cr_expect_eq(count_occurrences(text, "\"cat\":\"nvtx\""), 18);
    cr_expect_eq(count_occurrences(text, "\"name\":\"step\",\"cat\":\"nvtx\""), 3);
    for (int k = 0; k < 3; k++) {
        char args[160];
        snprintf(args, sizeof args, "\"args\":{\"nvtx category\":1,\"nvtx color\":\"#FF00FF00\",\"nvtx payload\":%d}",
                 k);
        cr_expect_eq(count_occurrences(text, args), 1, "%s", args);
        snprintf(args, sizeof args, "\"args\":{\"nvtx category\":2,\"nvtx payload\":%d.5}", k);
        cr_expect_eq(count_occurrences(text, args), 1, "%s", args);
    }
    cr_expect_eq(count_occurrences(text, "\"args\":{\"nvtx color\":\"#FF0000FF\",\"nvtx payload\":7}"), 1);
    cr_expect_eq(count_occurrences(text, "\"args\":{\"nvtx payload\":-3}"), 1);
    cr_expect_eq(count_occurrences(text, "\"args\":{\"nvtx payload\":1.5}"), 1);
    free(text);
}

/* Measurement switched with omp_control_tool around NVTX ranges
 * (tests/support/nvtx_windows.c): a range begun while off is left out whole
 * (its end after recording came back too), one begun while on is recorded
 * whole even if it ends while off. The archive stays balanced. */
Test(nvtx_recording, a_range_is_recorded_whole_or_not_at_all_around_switches)
{
    char dir[512], *err = NULL;
    scratch_path(dir, sizeof dir, "nvtx-windows");
    cr_assert_eq(record_program(dir, NULL, NULL, "nvtx_windows", NULL, &err), 0, "%s", err ? err : "");
    free(err);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_RANGE], 3, "kept, across, late");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_START_END], 1, "across start/end");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_MARK], 1, "late mark");
    reading *s = read_archive(dir);
    cr_expect_eq(count_named(s, "kept"), 1);
    cr_expect_eq(count_named(s, "across"), 1);
    cr_expect_eq(count_named(s, "across start/end"), 1);
    cr_expect_eq(count_named(s, "late"), 1);
    cr_expect_eq(count_named(s, "late mark"), 1);
    cr_expect_eq(count_named(s, "dropped") + count_named(s, "dropped start/end") + count_named(s, "dropped mark"), 0);
    cr_expect_eq(s->unbalanced, 0);
    free_reading(s);
    cr_expect_eq(property(dir, "OFFTRACE::MEASUREMENT_OFF_SWITCHES"), 2);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_UNMATCHED_ENDS"), 0);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_POPS_WITHOUT_PUSH"), 0);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
}

/* A cut nvtx.defs (the program died in the middle of a definition's write,
 * or the file was damaged): the definitions before the cut stand, the
 * ranges of texts after it are named "(undefined message)", the damage is
 * counted, and the archive is valid. */
Test(nvtx_recording, a_cut_definitions_file_keeps_what_came_before_it)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "nvtx-cut-defs");
    char *env[] = {"OFFTRACE_KEEP_RAW=1", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "example_nvtx_phases", NULL, &err), 0, "%s", err ? err : "");
    free(err);
    char path[600];
    snprintf(path, sizeof path, "%s/raw/nvtx.defs", dir);
    size_t len = 0;
    char *defs = read_whole_file(path, &len);
    cr_assert_not_null(defs);
    /* "main" is the first text defined; cut inside the line of "step", the next text */
    char *step = strstr(defs, "step\n");
    cr_assert_not_null(step, "%s", defs);
    cr_assert_eq(truncate(path, (off_t)(step - defs) + 2), 0);
    free(defs);
    char *why = NULL;
    cr_assert_eq(reconvert_raw(dir, &why), 0, "%s", why ? why : "");
    free(why);
    archive_facts facts;
    cr_assert_eq(archive_check(dir, &facts), 0);
    cr_expect_eq(archive_violations(&facts), 0, "%s", facts.first_problem);
    cr_expect_eq(facts.enters[OFFTRACE_CLASS_NVTX_RANGE], 11);
    cr_expect_eq(property(dir, "OFFTRACE::NVTX_DEFINITIONS_DAMAGED"), 1);
    reading *s = read_archive(dir);
    cr_expect_eq(count_named(s, "main"), 1);
    cr_expect_eq(count_named(s, "step"), 0);
    cr_expect_gt(count_named(s, "(undefined message)"), 3);
    free_reading(s);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
}

/* NVTX pointed at libofftrace.so without `offtrace record` (no OpenMP tool
 * set up, so no recorder): the program runs as without it, and no file
 * appears where it runs (definitions are written only while recording). */
Test(nvtx_recording, the_injection_alone_changes_nothing)
{
    char dir[512], prog[600], cmd[2048];
    scratch_path(dir, sizeof dir, "nvtx-injection-alone");
    snprintf(prog, sizeof prog, "%s/example_nvtx_phases", OFFTRACE_BIN_DIR);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cd '%s' && exec '%s'", dir, dir, prog);
    char *plain_argv[] = {prog, NULL};
    char *argv[] = {"sh", "-c", cmd, NULL};
    char injection[600];
    snprintf(injection, sizeof injection, "NVTX_INJECTION64_PATH=%s/libofftrace.so", OFFTRACE_LIB_DIR);
    char *env[] = {injection, NULL};
    run_result plain, injected;
    cr_assert_eq(run_command(plain_argv, NULL, NULL, &plain), 0);
    cr_assert_eq(run_command(argv, env, NULL, &injected), 0);
    cr_expect(WIFEXITED(injected.status) && WEXITSTATUS(injected.status) == 0, "%s", injected.err);
    cr_expect_str_eq(injected.out, plain.out);
    cr_expect_str_eq(injected.err, "");
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    cr_expect_eq(system(cmd), 0, "files appeared in %s", dir);
    run_free(&plain);
    run_free(&injected);
}

/* A filter file (docs/filters.md) removes NVTX ranges and marks by their
 * message (the domain's name is not part of it): "step" (3 pushes) and
 * "checkpoint" (3 marks) go; the ranges inside a removed "step" stay. */
Test(nvtx_recording, a_filter_removes_ranges_and_marks_by_message_and_counts_them)
{
    char dir[512], filter[600], env_filter[700];
    scratch_path(filter, sizeof filter, "nvtx.flt");
    FILE *fp = fopen(filter, "w");
    cr_assert_not_null(fp);
    fputs("# NVTX messages as region names\nexclude region step\nexclude region checkpoint\n", fp);
    fclose(fp);
    snprintf(env_filter, sizeof env_filter, "OFFTRACE_FILTER=%s", filter);
    char *env[] = {env_filter, NULL};
    scratch_path(dir, sizeof dir, "nvtx-filtered");
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "example_nvtx_phases", NULL, &err), 0, "%s", err ? err : "");
    free(err);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_RANGE], 11 - 3, "the 3 step pushes are gone");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_MARK], 5 - 3, "the 3 checkpoint marks are gone");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_NVTX_START_END], 2);
    cr_expect_eq(f.target, 3, "target regions are never filtered");
    reading *s = read_archive(dir);
    cr_expect_eq(s->unbalanced, 0);
    cr_expect_eq(count_named(s, "step"), 0);
    cr_expect_eq(count_named(s, "checkpoint"), 0);
    cr_expect_eq(count_named(s, "solver: assemble"), 3, "ranges inside a removed one stay");
    free_reading(s);
    cr_expect_eq(property(dir, "OFFTRACE::FILTER_REMOVED_NVTX"), 6);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
}

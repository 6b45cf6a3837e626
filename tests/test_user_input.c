/*
 * The user API's values and bad input, recorded for real (issue 14):
 * tests/support/user_input.c writes int64, uint64 and double values at the
 * ends of their types (extremes, above 2^63, negative zero, denormals) and
 * makes each kind of mistake twice. The archive, read with OTF2's reader,
 * holds every value bit for bit; each kind of mistake is told once on
 * stderr; the archive stays valid (otf2-print -Werror) and says how many
 * calls were refused (OFFTRACE::USER_CALLS_DROPPED, the summary's line);
 * the program prints the same traced or not.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <float.h>
#include <otf2/otf2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/otf2_definitions.h"
#include "check/run.h"
#include "offtrace/event_catalogue.h"
#include "offtrace/offtrace_user.h"

#define MAX_LOCS 64
#define MAX_VALUES 16

typedef struct reading {
    otf2_definitions defs; /* first: the read's callbacks share the pointer */
    uint64_t bits[3][MAX_VALUES]; /* i64, u64, dbl: the values' bits in order */
    OTF2_Type types[3][MAX_VALUES];
    unsigned n[3];
} reading;

static OTF2_CallbackCode e_metric(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                  OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                  const OTF2_MetricValue *values)
{
    reading *s = u;
    const otf2_metric_member_def *m = otf2_defs_metric_member(&s->defs, metric);
    if (!m || n != 1)
        return OTF2_CALLBACK_SUCCESS;
    const char *name = otf2_defs_string(&s->defs, m->name);
    int k = !strcmp(name, "i64") ? 0 : !strcmp(name, "u64") ? 1 : !strcmp(name, "dbl") ? 2 : -1;
    if (k >= 0 && s->n[k] < MAX_VALUES) {
        s->types[k][s->n[k]] = types[0];
        s->bits[k][s->n[k]++] = values[0].unsigned_int;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, e_metric);
}

/* The archive passes otf2-print -Werror and offtrace's own rules; \p f gets what archive_check saw. */
static void check_archive(const char *dir, archive_facts *f)
{
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
    cr_assert_eq(archive_check(dir, f), 0);
    cr_expect_eq(archive_violations(f), 0, "%s", f->first_problem);
}

/* The archive's numeric property \p name; UINT64_MAX, and a failed expectation, where it is missing. */
static uint64_t property(const char *dir, const char *name)
{
    uint64_t v = UINT64_MAX;
    cr_expect_eq(archive_property(dir, name, &v), 0, "no property %s", name);
    return v;
}

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* What user_input prints: each call's answer (begin NULL, the end of that refused begin, end NULL, end
 * without begin, unknown id, long name, not UTF-8, the end of that refused begin), twice, and the count. */
static void expected_output(char *buf, size_t size)
{
    char line[128];
    snprintf(line, sizeof line, "%d %d %d %d %d %d %d %d\n", OFFTRACE_USER_ERR_INVALID, OFFTRACE_USER_OK,
             OFFTRACE_USER_ERR_INVALID, OFFTRACE_USER_ERR_NESTING, OFFTRACE_USER_ERR_UNKNOWN_ID,
             OFFTRACE_USER_ERR_NAME, OFFTRACE_USER_ERR_NAME, OFFTRACE_USER_OK);
    snprintf(buf, size, "team 1 values 0\n%s%sdropped 12\n", line, line);
}

Test(user_input, values_are_exact_and_bad_input_is_told_once_and_counted_in_the_archive)
{
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/user_input", OFFTRACE_BIN_DIR);
    char *argv[] = {prog, NULL};
    run_result plain;
    cr_assert_eq(run_command(argv, NULL, NULL, &plain), 0);
    cr_expect(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "%s", plain.err);
    char expected[512];
    expected_output(expected, sizeof expected);
    cr_expect_str_eq(plain.out, expected);

    char dir[512];
    scratch_path(dir, sizeof dir, "user-input");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, prog, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_expect_str_eq(r.out, plain.out, "the program prints the same traced");
    /* one line per kind of mistake, traced as untraced */
    static const char *kinds[] = {"a NULL region handle", "a region end ",
                                  "an unknown user event id", "a name longer than 255 bytes",
                                  "a name that is not valid UTF-8"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        cr_expect_eq(count_occurrences(plain.err, kinds[k]), 1, "untraced, '%s':\n%s", kinds[k], plain.err);
        cr_expect_eq(count_occurrences(r.err, kinds[k]), 1, "traced, '%s':\n%s", kinds[k], r.err);
    }
    cr_expect_eq(count_occurrences(plain.err, "offtrace-user: "), 5, "%s", plain.err);
    cr_expect_eq(count_occurrences(r.err, "offtrace-user: "), 5, "%s", r.err);
    cr_expect(strstr(r.err, "offtrace: user API         12 calls refused") != NULL, "summary:\n%s", r.err);
    run_free(&r);
    run_free(&plain);

    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 1, "only 'all': the refused begins record nothing");
    cr_expect_eq(property(dir, "OFFTRACE::USER_CALLS_DROPPED"), 12);
    cr_expect_eq(property(dir, "OFFTRACE::USER_RECORDS_UNDEFINED"), 0);

    reading *s = calloc(1, sizeof *s);
    cr_assert_not_null(s);
    cr_assert_eq(otf2_read_with_definitions(dir, &s->defs, 0, set_events), 0);
    const int64_t ints[] = {INT64_MIN, INT64_MAX, -1, 0};
    const uint64_t uints[] = {0, (1ull << 63) + 5, UINT64_MAX};
    const double doubles[] = {-1.5, 4.9406564584124654e-324, -0.0, DBL_MAX, -1.1125369292536007e-308};
    cr_assert_eq(s->n[0], 4);
    cr_assert_eq(s->n[1], 3);
    cr_assert_eq(s->n[2], 5);
    for (unsigned i = 0; i < 4; i++) {
        cr_expect_eq(s->types[0][i], OTF2_TYPE_INT64);
        cr_expect_eq((int64_t)s->bits[0][i], ints[i], "i64 %u", i);
    }
    for (unsigned i = 0; i < 3; i++) {
        cr_expect_eq(s->types[1][i], OTF2_TYPE_UINT64);
        cr_expect_eq(s->bits[1][i], uints[i], "u64 %u", i);
    }
    for (unsigned i = 0; i < 5; i++) {
        cr_expect_eq(s->types[2][i], OTF2_TYPE_DOUBLE);
        cr_expect_eq(s->bits[2][i], bits_of(doubles[i]), "dbl %u: %016llx", i, (unsigned long long)s->bits[2][i]);
    }
    otf2_definitions_free(&s->defs);
    free(s);

    /* the report's values table and export's counters carry them exactly */
    cr_assert_eq(run_offtrace(&r, "report", "--json", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_expect(strstr(r.out, "{\"name\": \"i64\", \"type\": \"int64\", \"count\": 4, \"min\": -9223372036854775808, "
                            "\"max\": 9223372036854775807, \"last\": 0, \"mean\": ") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "{\"name\": \"u64\", \"type\": \"uint64\", \"count\": 3, \"min\": 0, "
                            "\"max\": 18446744073709551615, \"last\": 18446744073709551615, ") != NULL, "%s", r.out);
    char dbl[256];
    snprintf(dbl, sizeof dbl, "{\"name\": \"dbl\", \"type\": \"double\", \"count\": 5, \"min\": %.17g, \"max\": %.17g, "
             "\"last\": %.17g, ", -1.5, DBL_MAX, -1.1125369292536007e-308);
    cr_expect(strstr(r.out, dbl) != NULL, "%s in\n%s", dbl, r.out);
    run_free(&r);
    char json[600];
    snprintf(json, sizeof json, "%s/values.json", dir);
    char *err = NULL, *text = export_chrome(dir, json, &err);
    cr_assert_not_null(text, "%s", err ? err : "");
    free(err);
    cr_expect_eq(count_occurrences(text, "\"ph\":\"C\",\"name\":\"i64\""), 4);
    cr_expect_eq(count_occurrences(text, "\"ph\":\"C\",\"name\":\"u64\""), 3);
    cr_expect_eq(count_occurrences(text, "\"ph\":\"C\",\"name\":\"dbl\""), 5);
    cr_expect_eq(count_occurrences(text, "\"args\":{\"value\":-9223372036854775808}"), 1);
    cr_expect_eq(count_occurrences(text, "\"args\":{\"value\":18446744073709551615}"), 1);
    cr_expect_eq(count_occurrences(text, "\"args\":{\"value\":4.9406564584124654e-324}"), 1);
    cr_expect_eq(count_occurrences(text, "device memory in use"), 0, "a user value is not device memory");
    free(text);
}

/* A run without mistakes leaves no count: no property, no summary line. */
Test(user_input, a_run_without_mistakes_says_nothing_of_drops)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "user-input-clean");
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/example_user_phases", OFFTRACE_BIN_DIR);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, prog, "2", NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    cr_expect_null(strstr(r.err, "user API "), "%s", r.err);
    run_free(&r);
    uint64_t dropped = 0;
    cr_expect_neq(archive_property(dir, "OFFTRACE::USER_CALLS_DROPPED", &dropped), 0);
}

/* ---- events that end on another thread ---- */

#define HANDOFF_MS 20 /* tests/support/user_handoff.c */
#define AFTER_MS 200

typedef struct crossing_reading {
    otf2_definitions defs; /* first: the read's callbacks share the pointer */
    uint64_t enter_time[MAX_LOCS];
    OTF2_RegionRef entered[MAX_LOCS];
    unsigned handoff, io, local, unpaired;
    uint64_t handoff_location, io_locations; /* bits by location index; handoff: of the main thread */
    uint64_t handoff_min_ns, handoff_max_ns;
} crossing_reading;

static int is_event_name(const char *n) { return !strcmp(n, "handoff") || !strcmp(n, "io") || !strcmp(n, "local"); }

static OTF2_CallbackCode c_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    crossing_reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    if (!is_event_name(otf2_defs_region_name(&s->defs, r)))
        return OTF2_CALLBACK_SUCCESS;
    if (s->entered[i] != OTF2_UNDEFINED_REGION)
        s->unpaired++; /* the program never nests its events */
    s->entered[i] = r;
    s->enter_time[i] = t;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode c_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    crossing_reading *s = u;
    size_t i = otf2_defs_location_index(&s->defs, l);
    const char *name = otf2_defs_region_name(&s->defs, r);
    if (!is_event_name(name))
        return OTF2_CALLBACK_SUCCESS;
    if (s->entered[i] != r) {
        s->unpaired++;
        return OTF2_CALLBACK_SUCCESS;
    }
    s->entered[i] = OTF2_UNDEFINED_REGION;
    uint64_t ns = t - s->enter_time[i]; /* offtrace's clock: 1 ns per tick */
    if (!strcmp(name, "handoff")) {
        s->handoff++;
        s->handoff_location |= 1ull << i;
        if (!s->handoff_min_ns || ns < s->handoff_min_ns)
            s->handoff_min_ns = ns;
        if (ns > s->handoff_max_ns)
            s->handoff_max_ns = ns;
    } else if (!strcmp(name, "io")) {
        s->io++;
        s->io_locations |= 1ull << i;
    } else
        s->local++;
    return OTF2_CALLBACK_SUCCESS;
}

static void c_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, c_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, c_leave);
}

/* An event begun on one thread and ended on another is shown on the thread that began it, from its begin
 * to the other thread's end: every Enter has its Leave, no end counts as unmatched. */
Test(user_input, an_event_ended_on_another_thread_is_shown_on_the_thread_that_began_it)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "user-handoff");
    char *args[] = {NULL}, *err = NULL;
    cr_assert_eq(record_program(dir, NULL, NULL, "user_handoff", args, &err), 0, "%s", err ? err : "");
    free(err);
    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_EVENT], 7, "3 handoff, 2 io, 2 local");
    cr_expect_eq(property(dir, "OFFTRACE::UNMATCHED_END_RECORDS"), 0);
    cr_expect_eq(property(dir, "OFFTRACE::UNFINISHED_OPERATIONS"), 0);

    crossing_reading *s = calloc(1, sizeof *s);
    cr_assert_not_null(s);
    for (size_t i = 0; i < MAX_LOCS; i++)
        s->entered[i] = OTF2_UNDEFINED_REGION;
    cr_assert_eq(otf2_read_with_definitions(dir, &s->defs, MAX_LOCS, c_events), 0);
    cr_expect_eq(s->unpaired, 0);
    cr_expect_eq(s->handoff, 3);
    cr_expect_eq(s->io, 2);
    cr_expect_eq(s->local, 2);
    cr_expect_eq(__builtin_popcountll(s->handoff_location), 1, "every handoff on the thread that began it");
    cr_expect_eq(__builtin_popcountll(s->io_locations), 2, "each io on the thread that began it");
    cr_expect_eq(s->io_locations & s->handoff_location, 0);
    /* closed at the other thread's end: after its HANDOFF_MS, well before the beginner's next record */
    cr_expect_geq(s->handoff_min_ns, HANDOFF_MS * 1000000ull, "%llu ns", (unsigned long long)s->handoff_min_ns);
    cr_expect_lt(s->handoff_max_ns, AFTER_MS * 1000000ull, "%llu ns", (unsigned long long)s->handoff_max_ns);
    otf2_definitions_free(&s->defs);
    free(s);

    /* the report counts them where they are shown */
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", "--json", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    const char *handoff = strstr(r.out, "{\"name\": \"handoff\",");
    cr_assert_not_null(handoff, "%s", r.out);
    cr_expect(strncmp(strstr(handoff, "\"count\": "), "\"count\": 3,", 11) == 0, "%s", handoff);
    cr_expect(strncmp(strstr(handoff, "\"open_at_end\": "), "\"open_at_end\": 0,", 17) == 0, "%s", handoff);
    run_free(&r);
}

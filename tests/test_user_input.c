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
#include "check/otf2_time_order.h"
#include "check/run.h"
#include "offtrace/event_catalogue.h"
#include "offtrace/offtrace_user.h"

#define MAX_DEFS 512
#define MAX_LOCS 64
#define MAX_VALUES 16

typedef struct reading {
    char *strings[MAX_DEFS];
    OTF2_StringRef member_name[MAX_DEFS];
    OTF2_Type member_type[MAX_DEFS];
    OTF2_MetricMemberRef class_member[MAX_DEFS];
    uint64_t locs[MAX_LOCS];
    size_t nlocs;
    uint64_t bits[3][MAX_VALUES]; /* i64, u64, dbl: the values' bits in order */
    OTF2_Type types[3][MAX_VALUES];
    unsigned n[3];
} reading;

static const char *str(reading *s, OTF2_StringRef r) { return r < MAX_DEFS && s->strings[r] ? s->strings[r] : "?"; }

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *text)
{
    reading *s = u;
    if (self < MAX_DEFS)
        s->strings[self] = strdup(text);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef desc,
                                  OTF2_MetricType type, OTF2_MetricMode mode, OTF2_Type value_type,
                                  OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
    reading *s = u;
    if (self < MAX_DEFS) {
        s->member_name[self] = name;
        s->member_type[self] = value_type;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                 OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
    reading *s = u;
    if (self < MAX_DEFS && n == 1)
        s->class_member[self] = members[0];
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t events, OTF2_LocationGroupRef group)
{
    reading *s = u;
    if (s->nlocs < MAX_LOCS)
        s->locs[s->nlocs++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_metric(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                  OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                  const OTF2_MetricValue *values)
{
    reading *s = u;
    if (metric >= MAX_DEFS || n != 1)
        return OTF2_CALLBACK_SUCCESS;
    const char *name = str(s, s->member_name[s->class_member[metric]]);
    int k = !strcmp(name, "i64") ? 0 : !strcmp(name, "u64") ? 1 : !strcmp(name, "dbl") ? 2 : -1;
    if (k >= 0 && s->n[k] < MAX_VALUES) {
        s->types[k][s->n[k]] = types[0];
        s->bits[k][s->n[k]++] = values[0].unsigned_int;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void set_definitions(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, d_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, d_class);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, e_metric);
}

static size_t location_count(void *u) { return ((reading *)u)->nlocs; }
static uint64_t location_id(void *u, size_t i) { return ((reading *)u)->locs[i]; }

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static unsigned count_of(const char *text, const char *needle)
{
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
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
        cr_expect_eq(count_of(plain.err, kinds[k]), 1, "untraced, '%s':\n%s", kinds[k], plain.err);
        cr_expect_eq(count_of(r.err, kinds[k]), 1, "traced, '%s':\n%s", kinds[k], r.err);
    }
    cr_expect_eq(count_of(plain.err, "offtrace-user: "), 5, "%s", plain.err);
    cr_expect_eq(count_of(r.err, "offtrace-user: "), 5, "%s", r.err);
    cr_expect(strstr(r.err, "offtrace: user API         12 calls refused") != NULL, "summary:\n%s", r.err);
    run_free(&r);
    run_free(&plain);

    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 1, "only 'all': the refused begins record nothing");
    uint64_t dropped = 0, undefined = 99;
    cr_expect_eq(archive_property(dir, "OFFTRACE::USER_CALLS_DROPPED", &dropped), 0);
    cr_expect_eq(dropped, 12);
    cr_expect_eq(archive_property(dir, "OFFTRACE::USER_RECORDS_UNDEFINED", &undefined), 0);
    cr_expect_eq(undefined, 0);

    reading *s = calloc(1, sizeof *s);
    cr_assert_not_null(s);
    otf2_time_ordered_read how = {.definitions = set_definitions, .events = set_events,
                                  .location_count = location_count, .location_id = location_id, .user = s};
    cr_assert_eq(otf2_read_in_time_order(dir, &how), 0);
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
    for (size_t i = 0; i < MAX_DEFS; i++)
        free(s->strings[i]);
    free(s);
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

/*
 * The public user API (include/offtrace/offtrace_user.h, libofftrace-user.so):
 * untraced behaviour (a program linked with it runs as without it, also
 * without OpenMP), the error rule (one line per kind of mistake, counted, no
 * crash), and the binding to a recorder (user_recorder.h: definitions once
 * per handle, nesting, calls made before the recorder attached).
 *
 * The binding tests attach a recording table of their own: the API library's
 * half of the binding is what they check (what it passes on, once, in which
 * order). libofftrace.so's half, and the archive, are not in this step.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>

#include "check/run.h"
#include "offtrace/offtrace_user.h"
#include "user_recorder.h"

static int exited_ok(const run_result *r)
{
    return WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

/* ---- untraced ----------------------------------------------------------- */

Test(user_api, a_program_without_openmp_runs_untraced_with_the_documented_answers)
{
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/example_user_no_openmp", OFFTRACE_BIN_DIR);
    char *argv[] = {prog, NULL};
    /* OMP_TOOL_LIBRARIES set, no OpenMP runtime in the process: init must
     * not load one. */
    char *env[] = {"OMP_TOOL_LIBRARIES=" OFFTRACE_LIB_DIR "/libofftrace.so", NULL};
    for (int with_env = 0; with_env < 2; with_env++) {
        run_result r;
        cr_assert_eq(run_command(argv, with_env ? env : NULL, NULL, &r), 0);
        cr_expect(exited_ok(&r), "status %d, stderr:\n%s", r.status, r.err);
        cr_expect_str_eq(r.out, "init: not traced\n"
                                "traced: 0\n"
                                "event: 0\n"
                                "value: 0\n"
                                "measurement_on: not traced\n"
                                "is_on: 0\n"
                                "dropped: 0\n"
                                "clock monotonic: 1\n"
                                "sum 499500\n");
        cr_expect_str_eq(r.err, "");
        run_free(&r);
    }
    /* and it does not need libomp to be there at all */
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "ldd '%s' | grep -c -e libomp -e libofftrace.so", prog);
    char *sh[] = {"sh", "-c", cmd, NULL};
    run_result r;
    cr_assert_eq(run_command(sh, NULL, NULL, &r), 0);
    cr_expect_str_eq(r.out, "0\n", "linked against libomp or libofftrace.so");
    run_free(&r);
}

static const char phases_output[] = "step 0: sum 69616.0\n"
                                    "step 1: sum 77808.0\n"
                                    "step 2: sum 86000.0\n"
                                    "total 233424.0\n";

Test(user_api, the_phases_example_prints_the_same_traced_or_not)
{
    char prog[4096];
    snprintf(prog, sizeof prog, "%s/example_user_phases", OFFTRACE_BIN_DIR);
    char *argv[] = {prog, "3", NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    cr_expect(exited_ok(&r), "status %d, stderr:\n%s", r.status, r.err);
    cr_expect_str_eq(r.out, phases_output);
    cr_expect_str_eq(r.err, "");
    run_free(&r);

    char dir[512];
    scratch_path(dir, sizeof dir, "user-phases");
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, prog, "3", NULL), 0);
    cr_expect(exited_ok(&r), "status %d, stderr:\n%s", r.status, r.err);
    cr_expect_str_eq(r.out, phases_output);
    run_free(&r);
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
}

/* ---- the error rule ---------------------------------------------------- */

Test(user_api, bad_input_is_refused_counted_and_told_once, .init = cr_redirect_stderr)
{
    static offtrace_user_region h;
    /* end without begin, twice: two refusals, one line */
    cr_expect_eq(offtrace_user_region_end(&h), OFFTRACE_USER_ERR_NESTING);
    cr_expect_eq(offtrace_user_region_end(&h), OFFTRACE_USER_ERR_NESTING);
    cr_expect_eq(offtrace_user_region_end(NULL), OFFTRACE_USER_ERR_INVALID);
    /* a NULL handle's begin is refused, and its end closes nothing else */
    cr_expect_eq(offtrace_user_region_begin(NULL, "x", __FILE__, __LINE__), OFFTRACE_USER_ERR_INVALID);
    cr_expect_eq(offtrace_user_region_end_named("never"), OFFTRACE_USER_OK); /* closes the refused begin */
    /* unknown ids, for events and for values */
    cr_expect_eq(offtrace_user_event_begin(0), OFFTRACE_USER_ERR_UNKNOWN_ID);
    cr_expect_eq(offtrace_user_event_end(77), OFFTRACE_USER_ERR_UNKNOWN_ID);
    offtrace_user_id ev, val;
    cr_assert_eq(offtrace_user_event_create("ev", &ev), 0);
    cr_expect_eq(offtrace_user_value_int64(ev, 1), OFFTRACE_USER_ERR_UNKNOWN_ID);
    cr_assert_eq(offtrace_user_value_create("v", OFFTRACE_USER_UINT64, &val), 0);
    cr_expect_eq(offtrace_user_value_double(val, 1.0), OFFTRACE_USER_ERR_TYPE);
    offtrace_user_id again;
    cr_expect_eq(offtrace_user_value_create("v", OFFTRACE_USER_DOUBLE, &again), OFFTRACE_USER_ERR_TYPE);
    /* names: too long, not UTF-8 (an overlong '/', a lone continuation byte) */
    char longname[300];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    cr_expect_eq(offtrace_user_event_create(longname, &ev), OFFTRACE_USER_ERR_NAME);
    cr_expect_eq(offtrace_user_event_create("\xc0\xaf", &ev), OFFTRACE_USER_ERR_NAME);
    cr_expect_eq(offtrace_user_region_begin_named("a\x80"), OFFTRACE_USER_ERR_NAME);
    cr_expect_eq(offtrace_user_region_end_named("a\x80"), OFFTRACE_USER_OK);
    longname[OFFTRACE_USER_NAME_MAX] = 0; /* exactly the longest name */
    cr_expect_eq(offtrace_user_event_create(longname, &ev), OFFTRACE_USER_OK);
    cr_expect_eq(offtrace_user_event_create("\xce\xbb-ph\xc3\xa4se", &ev), OFFTRACE_USER_OK);
    cr_expect_eq(offtrace_user_dropped(), 12);
    fflush(stderr);
    cr_assert_stderr_eq_str(
        "offtrace-user: a region end without an open region on its thread (end without its begin); such calls record nothing and are counted, this line is not repeated\n"
        "offtrace-user: a NULL region handle (invalid handle or argument); such calls record nothing and are counted, this line is not repeated\n"
        "offtrace-user: an unknown user event id (unknown id); such calls record nothing and are counted, this line is not repeated\n"
        "offtrace-user: a value written with another type than its own (wrong value type); such calls record nothing and are counted, this line is not repeated\n"
        "offtrace-user: a name longer than 255 bytes (name too long or not UTF-8); such calls record nothing and are counted, this line is not repeated\n"
        "offtrace-user: a name that is not valid UTF-8 (name too long or not UTF-8); such calls record nothing and are counted, this line is not repeated\n");
}

Test(user_api, an_end_that_is_not_the_innermost_closes_nothing, .init = cr_redirect_stderr)
{
    static offtrace_user_region outer, inner;
    cr_expect_eq(offtrace_user_region_begin(&outer, "outer", __FILE__, __LINE__), 0);
    cr_expect_eq(offtrace_user_region_begin(&inner, "inner", __FILE__, __LINE__), 0);
    cr_expect_eq(offtrace_user_region_end(&outer), OFFTRACE_USER_ERR_NESTING);
    cr_expect_eq(offtrace_user_region_end(&inner), 0);
    cr_expect_eq(offtrace_user_region_end(&outer), 0);
    cr_expect_eq(offtrace_user_dropped(), 1);
}

/* ---- the binding ------------------------------------------------------- */

#define LOG_MAX 64
static char log_lines[LOG_MAX][320];
static int log_count;
static int control_on = 1;

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    if (log_count >= LOG_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(log_lines[log_count++], sizeof log_lines[0], fmt, ap);
    va_end(ap);
}

static void t_define(uint32_t id, uint32_t kind, const char *name, const char *file, uint32_t line)
{
    const char *base = file ? strrchr(file, '/') : NULL;
    note("def %u %u %s %s %u", id, kind, name, file ? (base ? base + 1 : file) : "-", line);
}
static int t_region_begin(uint32_t id)
{
    note("rb %u", id);
    return 1;
}
static void t_region_end(uint32_t id) { note("re %u", id); }
static void t_event_begin(uint32_t id) { note("eb %u", id); }
static void t_event_end(uint32_t id) { note("ee %u", id); }
static void t_value(uint32_t id, uint64_t bits) { note("v %u %llx", id, (unsigned long long)bits); }
static int t_set(int on) { control_on = on; return on ? 0 : -16; }
static int t_is_on(void) { return control_on; }
static int t_flush(void) { return -5; }

static const ot_user_recorder table = {
    OT_USER_RECORDER_ABI, sizeof(ot_user_recorder), t_define, t_region_begin, t_region_end,
    t_event_begin, t_event_end, t_value, t_set, t_is_on, t_flush,
};

static int attach(const ot_user_recorder *r)
{
    return offtrace_user_attach_recorder_(r);
}

Test(user_api, a_recorder_sees_each_definition_once_and_every_call_in_order)
{
    static offtrace_user_region early, phase;
    /* before the recorder: not recorded; its end after the attach is silent */
    cr_expect_eq(offtrace_user_region_begin(&early, "early", "dir/a.c", 3), 0);
    offtrace_user_id ev, val;
    cr_assert_eq(offtrace_user_event_create("halo", &ev), 0);
    cr_assert_eq(ev, 1);
    cr_assert_eq(attach(&table), OT_USER_RECORDER_ABI);
    cr_expect(offtrace_user_is_traced());
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(offtrace_user_region_begin(&phase, "phase", "dir/b.c", 7), 0);
        cr_expect_eq(offtrace_user_event_begin(ev), 0);
        cr_expect_eq(offtrace_user_event_end(ev), 0);
        cr_expect_eq(offtrace_user_region_end(&phase), 0);
    }
    cr_expect_eq(offtrace_user_region_end(&early), 0);
    cr_assert_eq(offtrace_user_value_create("residual", OFFTRACE_USER_DOUBLE, &val), 0);
    cr_expect_eq(offtrace_user_value_double(val, 0.5), 0);
    cr_expect_eq(offtrace_user_region_begin_named("dyn"), 0);
    cr_expect_eq(offtrace_user_region_end_named("dyn"), 0);
    cr_expect_eq(offtrace_user_measurement_off(), OFFTRACE_USER_ERR_BUSY);
    cr_expect_eq(offtrace_user_measurement_is_on(), 0);
    cr_expect_eq(offtrace_user_measurement_on(), 0);
    cr_expect_eq(offtrace_user_measurement_is_on(), 1);
    cr_expect_eq(offtrace_user_measurement_flush(), OFFTRACE_USER_ERR_RECORDER);
    cr_expect_eq(attach(NULL), OT_USER_RECORDER_ABI);
    cr_expect_eq(offtrace_user_measurement_on(), OFFTRACE_USER_ERR_NOT_TRACED);
    cr_expect_eq(offtrace_user_dropped(), 0);

    static const char *expected[] = {
        "def 1 2 halo - 0",          /* the event created before: defined at the attach */
        "def 2 1 phase b.c 7",       /* the handle, at its first traced begin */
        "rb 2", "eb 1", "ee 1", "re 2",
        "rb 2", "eb 1", "ee 1", "re 2",
        "def 3 5 residual - 0", "v 3 3fe0000000000000",
        "def 4 1 dyn - 0", "rb 4", "re 4",
    };
    size_t n = sizeof expected / sizeof expected[0];
    for (int i = 0; i < log_count; i++)
        cr_log_info("%s", log_lines[i]);
    cr_assert_eq((size_t)log_count, n, "%d calls, %zu expected", log_count, n);
    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(log_lines[i], expected[i]);
}

Test(user_api, a_table_of_another_abi_is_refused)
{
    ot_user_recorder other = table;
    other.abi = OT_USER_RECORDER_ABI + 1;
    cr_expect_eq(attach(&other), -1);
    cr_expect(!offtrace_user_is_traced());
}

Test(user_api, the_clock_counts_forward_in_nanoseconds)
{
    uint64_t t0 = offtrace_user_clock_now();
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    uint64_t t1 = offtrace_user_clock_now();
    int64_t ns = (int64_t)(offtrace_user_clock_to_ns(t1) - offtrace_user_clock_to_ns(t0));
    int64_t wall = (int64_t)((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec));
    cr_expect(ns >= wall && ns < wall + 5000000, "clock: %lld ns, CLOCK_MONOTONIC %lld ns", (long long)ns,
              (long long)wall);
    uint64_t mono = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
    uint64_t t = offtrace_user_clock_to_ns(t1);
    cr_expect(t >= mono - 1000000 && t <= mono + 5000000, "%llu vs CLOCK_MONOTONIC %llu",
              (unsigned long long)t, (unsigned long long)mono);
    uint64_t res = offtrace_user_clock_resolution_ns();
    cr_expect(res >= 1 && res <= 1000, "resolution %llu ns", (unsigned long long)res);
    cr_expect_eq(offtrace_user_version(), OFFTRACE_USER_VERSION);
}

/* Threads: handles shared by every thread are registered once, and every
 * thread's begins and ends reach the recorder in pairs. */
static uint64_t defs, begins, ends;
static void c_define(uint32_t id, uint32_t kind, const char *name, const char *file, uint32_t line)
{
    __atomic_add_fetch(&defs, 1, __ATOMIC_RELAXED);
}
static void c_begin(uint32_t id) { __atomic_add_fetch(&begins, 1, __ATOMIC_RELAXED); }
static int c_region_begin(uint32_t id)
{
    c_begin(id);
    return 1;
}
static void c_end(uint32_t id) { __atomic_add_fetch(&ends, 1, __ATOMIC_RELAXED); }
static void c_value(uint32_t id, uint64_t bits) {}

static const ot_user_recorder counting = {
    OT_USER_RECORDER_ABI, sizeof(ot_user_recorder), c_define, c_region_begin, c_end, c_begin, c_end, c_value,
    NULL, NULL, NULL,
};

static offtrace_user_region shared_outer, shared_inner;

static void *nest_many(void *arg)
{
    for (int i = 0; i < 10000; i++) {
        if (offtrace_user_region_begin(&shared_outer, "outer", __FILE__, __LINE__) ||
            offtrace_user_region_begin(&shared_inner, "inner", __FILE__, __LINE__) ||
            offtrace_user_region_end(&shared_inner) || offtrace_user_region_end(&shared_outer))
            return (void *)1;
    }
    return NULL;
}

Test(user_api, threads_share_handles_registered_once)
{
    cr_assert_eq(attach(&counting), OT_USER_RECORDER_ABI);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, nest_many, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        cr_expect_null(rc);
    }
    cr_expect_eq(defs, 2);
    cr_expect_eq(begins, 4 * 10000 * 2);
    cr_expect_eq(ends, 4 * 10000 * 2);
    cr_expect_eq(offtrace_user_dropped(), 0);
    /* a recorder without measurement control records all the time */
    cr_expect_eq(offtrace_user_measurement_is_on(), 1);
    cr_expect_eq(offtrace_user_measurement_off(), OFFTRACE_USER_ERR_NOT_TRACED);
}

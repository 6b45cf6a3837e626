/*
 * Measurement control (issue 14): recording switched off and on by the
 * program with omp_control_tool, started paused (OFFTRACE_START_PAUSED,
 * `record --start-paused`), a switch refused inside a parallel region.
 * The program is examples/control_windows.c, whose windows hold known
 * numbers of target and host parallel regions; the runtime's own counts
 * (tests/support/ompt_host_counter.c, in a separate run) confirm those
 * numbers, and the archive, read back with OTF2's reader, must hold exactly
 * the on windows' share, balanced, with a MeasurementOnOff event at every
 * switch and nothing recorded inside an off window.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/host_openmp_check.h"
#include "check/otf2_time_order.h"
#include "check/run.h"

/* The program's windows (examples/control_windows.c): 0 before any switch,
 * then on, off, on, off, on. */
#define ALL_TARGETS (1 + 1 + 2 + 3 + 4 + 1)
#define ALL_PARALLELS (1 + 2 + 3 + 4 + 5 + 2)
#define PAUSED_TARGETS (1 + 3 + 1)
#define PAUSED_PARALLELS (2 + 4 + 2)

static char *const windows_args[] = {"windows", NULL};
static char *const inside_args[] = {"inside", NULL};

/* `offtrace record -o DIR [option] control_windows ARGS` with \p extra_env. */
static run_result record(const char *dir, const char *option, const char *extra_env, char *const args[])
{
    char cli[4096], prog[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/example_control_windows", OFFTRACE_BIN_DIR);
    char *argv[12] = {cli, "record", "-o", (char *)dir};
    int n = 4;
    if (option)
        argv[n++] = (char *)option;
    argv[n++] = prog;
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    char *env[] = {"OMP_NUM_THREADS=2", (char *)extra_env, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "record failed: %s", r.err);
    return r;
}

/* ---- MeasurementOnOff and what lies between, in time order ---- */

typedef struct switches {
    uint64_t locations[256];
    size_t location_count;
    int off;                  /* the state the events so far leave */
    uint64_t offs, ons, out_of_turn;
    uint64_t enters_while_off; /* each window's own "measurement off" region only */
} switches;

static OTF2_CallbackCode on_location(void *user, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    switches *s = user;
    if (s->location_count < 256)
        s->locations[s->location_count++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_onoff(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attributes, OTF2_MeasurementMode mode)
{
    switches *s = user;
    int off = mode == OTF2_MEASUREMENT_OFF;
    s->out_of_turn += off == s->off;
    s->off = off;
    s->offs += off;
    s->ons += !off;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attributes, OTF2_RegionRef region)
{
    switches *s = user;
    s->enters_while_off += s->off;
    return OTF2_CALLBACK_SUCCESS;
}

static void set_definitions(OTF2_GlobalDefReaderCallbacks *c)
{
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(c, on_location);
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *c)
{
    OTF2_GlobalEvtReaderCallbacks_SetMeasurementOnOffCallback(c, on_onoff);
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(c, on_enter);
}

static size_t location_count(void *user) { return ((switches *)user)->location_count; }
static uint64_t location_id(void *user, size_t i) { return ((switches *)user)->locations[i]; }

static void read_switches(const char *dir, switches *s)
{
    memset(s, 0, sizeof *s);
    otf2_time_ordered_read how = {set_definitions, set_events, location_count, location_id, s};
    cr_assert_eq(otf2_read_in_time_order(dir, &how), 0, "cannot read %s", dir);
}

/* The archive's structure (every Enter left, nesting, OTF2's own checks)
 * and its counts of target regions and host parallel regions. */
static void check_archive_ending(const char *dir, uint64_t targets, uint64_t parallels, uint64_t windows,
                                 int ends_off, uint64_t serial_kernels)
{
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0, "cannot read %s", dir);
    cr_assert_eq(archive_violations(&f), 0, "%s: %s", dir, f.first_problem);
    char *message = NULL;
    int printed = otf2_print_check(dir, &message);
    cr_expect_eq(printed, 0, "otf2-print -Werror %s: %s", dir, message ? message : "");
    free(message);
    host_openmp_facts h;
    cr_assert_eq(host_openmp_check(dir, &h), 0, "cannot read %s", dir);
    cr_assert_eq(h.unmatched + h.time_reversals, 0, "%s: %s", dir, h.first_problem);
    cr_expect_eq(f.target, targets, "target regions: %llu, expected %llu", (unsigned long long)f.target,
                 (unsigned long long)targets);
    cr_expect_eq(f.kernels, targets, "kernels: %llu, expected %llu", (unsigned long long)f.kernels,
                 (unsigned long long)targets);
    cr_expect_eq(h.parallel, parallels, "host parallel regions: %llu, expected %llu",
                 (unsigned long long)h.parallel, (unsigned long long)parallels);
    cr_expect_eq(f.targets_without_device_parallel, serial_kernels, "a recorded kernel lost its device detail");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_MEASUREMENT_OFF], windows, "measurement off regions: %llu",
                 (unsigned long long)f.enters[OFFTRACE_CLASS_MEASUREMENT_OFF]);
    uint64_t value = 1;
    cr_assert_eq(archive_property(dir, "OFFTRACE::UNFINISHED_OPERATIONS", &value), 0);
    cr_expect_eq(value, 0, "unfinished operations: %llu", (unsigned long long)value);
    cr_assert_eq(archive_property(dir, "OFFTRACE::UNMATCHED_END_RECORDS", &value), 0);
    cr_expect_eq(value, 0, "unmatched end records: %llu", (unsigned long long)value);
    cr_assert_eq(archive_property(dir, "OFFTRACE::DEVICE_RECORDS_OF_UNKNOWN_TARGETS", &value), 0);
    cr_expect_eq(value, 0, "device records of unknown targets: %llu", (unsigned long long)value);
    cr_assert_eq(archive_property(dir, "OFFTRACE::MEASUREMENT_OFF_SWITCHES", &value), 0);
    cr_expect_eq(value, windows);
    switches s;
    read_switches(dir, &s);
    cr_expect_eq(s.offs, windows, "MeasurementOnOff OFF: %llu", (unsigned long long)s.offs);
    cr_expect_eq(s.ons, windows - (ends_off ? 1 : 0), "MeasurementOnOff ON: %llu", (unsigned long long)s.ons);
    cr_expect_eq(s.out_of_turn, 0, "MeasurementOnOff events do not alternate");
    cr_expect_eq(s.enters_while_off, windows, "events recorded inside an off window: %llu",
                 (unsigned long long)(s.enters_while_off - windows));
}

static void check_archive(const char *dir, uint64_t targets, uint64_t parallels, uint64_t windows)
{
    check_archive_ending(dir, targets, parallels, windows, 0, 0);
}

/* What the runtime itself reports for the whole program (no switch reaches
 * the counting tool: it registers no control_tool callback). */
Test(measurement_control, the_windows_hold_what_the_runtime_counts)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/example_control_windows", OFFTRACE_BIN_DIR);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-host-counter.so", OFFTRACE_LIB_DIR);
    char *argv[] = {prog, "windows", NULL};
    char *env[] = {tool, "OMP_NUM_THREADS=2", NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    unsigned long long parallel = 0, targets = 0;
    const char *line = strstr(r.err, "HOST_COUNTS ");
    cr_assert_not_null(line, "the counting tool wrote nothing: %s", r.err);
    cr_assert_eq(sscanf(line, "HOST_COUNTS parallel=%llu", &parallel), 1);
    const char *t = strstr(line, " targets=");
    cr_assert_not_null(t);
    cr_assert_eq(sscanf(t, " targets=%llu", &targets), 1);
    cr_expect_eq(parallel, ALL_PARALLELS, "runtime: %llu parallel regions", parallel);
    cr_expect_eq(targets, ALL_TARGETS, "runtime: %llu target regions", targets);
    cr_expect_not_null(strstr(r.out, "window 1: start -> -1"), "a tool without the callback: %s", r.out);
    run_free(&r);
}

Test(measurement_control, started_paused_records_exactly_the_on_windows)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "control-paused");
    run_result r = record(dir, "--start-paused", NULL, windows_args);
    cr_expect_not_null(strstr(r.out, "before the runtime starts: -2"), "%s", r.out);
    for (int w = 1; w <= 5; w++) {
        char want[64];
        snprintf(want, sizeof want, "window %d: %s -> 0\n", w, w % 2 ? "start" : "pause");
        cr_expect_not_null(strstr(r.out, want), "no '%s' in: %s", want, r.out);
    }
    cr_expect_not_null(strstr(r.out, "flush -> 0\n"), "%s", r.out);
    cr_expect_not_null(strstr(r.err, "offtrace: measurement      off 3 times, "), "%s", r.err);
    check_archive(dir, PAUSED_TARGETS, PAUSED_PARALLELS, 3);
    uint64_t left_out = 0;
    cr_assert_eq(archive_property(dir, "OFFTRACE::DEVICE_RECORDS_WHILE_OFF", &left_out), 0);
    cr_expect_gt(left_out, 0, "the off kernels' device records were not left out");
    run_free(&r);
    run_result report;
    cr_assert_eq(run_offtrace(&report, "report", dir, NULL), 0);
    cr_expect(WIFEXITED(report.status) && WEXITSTATUS(report.status) == 0, "%s", report.err);
    cr_expect_not_null(strstr(report.out, "\nrecording off 3 times by the program: "), "%s", report.out);
    run_free(&report);
}

Test(measurement_control, the_variable_starts_paused_like_the_option)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "control-paused-env");
    run_result r = record(dir, NULL, "OFFTRACE_START_PAUSED=yes", windows_args);
    check_archive(dir, PAUSED_TARGETS, PAUSED_PARALLELS, 3);
    run_free(&r);
}

Test(measurement_control, started_on_records_window_0_too)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "control-on");
    run_result r = record(dir, NULL, NULL, windows_args);
    check_archive(dir, PAUSED_TARGETS + 1, PAUSED_PARALLELS + 1, 2);
    run_free(&r);
}

Test(measurement_control, a_switch_inside_a_parallel_or_target_region_is_refused_in_one_line)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "control-inside");
    run_result r = record(dir, NULL, NULL, inside_args);
    cr_expect_not_null(strstr(r.out, "pause inside a parallel region -> 1\n"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "pause inside a target region -> 1\n"), "%s", r.out);
    cr_expect_not_null(strstr(r.err, "offtrace: measurement off refused inside a target region; switch outside "
                                     "parallel and target regions\n"), "%s", r.err);
    cr_expect_not_null(strstr(r.out, "pause outside -> 0\n"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "start -> 0\n"), "%s", r.out);
    const char *refusal = "offtrace: measurement off refused inside a parallel region; switch outside parallel and "
                          "target regions\n";
    const char *first = strstr(r.err, refusal);
    cr_expect_not_null(first, "%s", r.err);
    cr_expect(first && !strstr(first + 1, refusal), "said more than once: %s", r.err);
    cr_expect_not_null(strstr(r.out, "end -> 0\nstart after end -> 1\n"), "%s", r.out);
    /* window 0, the parallel and the target region the refusals came from,
     * window 0 again; window 1 was off, and so is the last window 0, after
     * end (to the end); the target region that asked has no parallel
     * region inside */
    check_archive_ending(dir, 3, 3, 2, 1, 1);
    run_free(&r);
}

/* A tool chained after offtrace that takes omp_control_tool itself gets
 * every command; the program gets offtrace's answer to the standard ones
 * and the tool's to its own (64 and up); the recording is as without it. */
Test(measurement_control, a_chained_tool_gets_the_commands_too)
{
    char dir[512], out[600], tools[4200], owntool_out[700];
    scratch_path(dir, sizeof dir, "control-chained");
    snprintf(out, sizeof out, "%s.tool", dir);
    snprintf(tools, sizeof tools, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-control-tool-user.so", OFFTRACE_LIB_DIR);
    snprintf(owntool_out, sizeof owntool_out, "OWNTOOL_OUT=%s", out);
    char cli[4096], prog[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/example_control_windows", OFFTRACE_BIN_DIR);
    char *argv[] = {cli, "record", "--start-paused", "-o", dir, prog, "windows", NULL};
    char *env[] = {"OMP_NUM_THREADS=2", tools, owntool_out, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "record failed: %s", r.err);
    cr_expect_not_null(strstr(r.out, "window 2: pause -> 0\n"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "command 64 -> 164\n"), "%s", r.out);
    char *line = read_whole_file(out, NULL);
    cr_assert_not_null(line, "the chained tool did not finalize");
    /* 5 switches, 1 flush (the one before the runtime starts reaches no tool), command 64 */
    cr_expect_str_eq(line, "control_tool calls=7 answer=always\n");
    free(line);
    check_archive(dir, PAUSED_TARGETS, PAUSED_PARALLELS, 3);
    run_free(&r);
}

Test(measurement_control, a_bad_start_paused_value_is_one_line_and_the_program_runs)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/example_control_windows", OFFTRACE_BIN_DIR);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace.so", OFFTRACE_LIB_DIR);
    char *argv[] = {prog, "windows", NULL};
    char *env[] = {tool, "OFFTRACE_START_PAUSED=maybe", "OMP_NUM_THREADS=2", NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
    cr_expect_str_eq(r.err, "offtrace: OFFTRACE_START_PAUSED='maybe' is not valid (accepted: 1, 0, on, off, yes, "
                            "no, true, false); this run is not traced\n");
    cr_expect_not_null(strstr(r.out, "window 1: start -> -2\n"), "not traced, so no tool: %s", r.out);
    run_free(&r);
}

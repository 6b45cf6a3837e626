/*
 * Filters recorded (issue 14, docs/filters.md): real programs under
 * `offtrace record` with a filter file, read back with OTF2's reader. The
 * matched regions are gone and only they: every count is compared with the
 * same program recorded without a filter, and the archive's removed counts
 * with the difference. A wrong filter file is said with its line, and the
 * program runs unchanged and is traced whole.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/run.h"
#include "offtrace/event_catalogue.h"

#define STEPS "5"

static void write_filter(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* A string property of the archive, malloc'd; NULL when missing. */
static char *string_property(const char *dir, const char *name)
{
    char anchor[600];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r)
        return NULL;
    char *value = NULL;
    if (OTF2_Reader_GetProperty(r, name, &value) != OTF2_SUCCESS)
        value = NULL;
    char *copy = value ? strdup(value) : NULL;
    free(value);
    OTF2_Reader_Close(r);
    return copy;
}

static uint64_t number(const char *dir, const char *name)
{
    uint64_t v = UINT64_MAX;
    cr_expect_eq(archive_property(dir, name, &v), 0, "no property %s in %s", name, dir);
    return v;
}

static void check_archive(const char *dir, archive_facts *f)
{
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "otf2-print -Werror: %s", msg ? msg : "");
    free(msg);
    cr_assert_eq(archive_check(dir, f), 0, "cannot read %s", dir);
    /* otf2_rules includes nesting: every Enter matched by its Leave */
    cr_expect_eq(archive_violations(f), 0, "%s: %s", dir, f->first_problem);
}

static void record_env(const char *name, const char *filter_path, archive_facts *f, char *dir, size_t size,
                       char **err)
{
    scratch_path(dir, (unsigned)size, name);
    char env_filter[1200];
    snprintf(env_filter, sizeof env_filter, "OFFTRACE_FILTER=%s", filter_path ? filter_path : "");
    char *env[] = {env_filter, NULL};
    char *args[] = {STEPS, NULL};
    cr_assert_eq(record_program(dir, NULL, filter_path ? env : NULL, "example_user_phases", args, err), 0, "%s",
                 err && *err ? *err : "");
    check_archive(dir, f);
}

/* user_phases with 5 steps, unfiltered: regions assemble and solve, event
 * halo and values residual and iterations, 5 of each. */
Test(filter_recording, the_variable_removes_exactly_the_matched_user_regions_and_values_and_counts_them)
{
    char plain_dir[512], dir[512], filter[600];
    archive_facts plain, f;
    record_env("filter-plain", NULL, &plain, plain_dir, sizeof plain_dir, NULL);
    cr_assert_eq(plain.enters[OFFTRACE_CLASS_USER_REGION], 10);
    cr_assert_eq(plain.enters[OFFTRACE_CLASS_USER_EVENT], 5);
    cr_expect_null(string_property(plain_dir, "OFFTRACE::FILTER"), "no filter, no filter property");

    scratch_path(filter, sizeof filter, "solve.flt");
    const char *text = "# leave the solver out\nexclude region solve\nexclude region resid*\n";
    write_filter(filter, text);
    char *err = NULL;
    record_env("filter-env", filter, &f, dir, sizeof dir, &err);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 5, "assemble only");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_EVENT], 5, "halo is not matched");
    cr_expect_eq(f.target, plain.target, "target regions are never filtered");
    cr_expect_eq(f.kernels, plain.kernels);
    cr_expect_eq(f.metrics, plain.metrics - 5, "residual's 5 values are gone, iterations' stay");
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_REGIONS"),
                 plain.enters[OFFTRACE_CLASS_USER_REGION] - f.enters[OFFTRACE_CLASS_USER_REGION]);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_VALUES"), plain.metrics - f.metrics);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_EVENTS"), 0);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_OPENMP_CONSTRUCTS"), 0);
    char *path = string_property(dir, "OFFTRACE::FILTER");
    char *status = string_property(dir, "OFFTRACE::FILTER_STATUS");
    char *copy = string_property(dir, "OFFTRACE::FILTER_TEXT");
    cr_expect_str_eq(path ? path : "", filter);
    cr_expect_str_eq(status ? status : "", "applied");
    cr_expect_str_eq(copy ? copy : "", text, "the archive keeps the filter's text");
    cr_expect(err && strstr(err, "offtrace: filter           ") && strstr(err, ": 10 user regions, events, values and NVTX ranges, "
                                                                                 "0 host OpenMP regions removed"),
              "the summary says what the filter removed: %s", err ? err : "");
    free(path);
    free(status);
    free(copy);
    free(err);
}

Test(filter_recording, record_filter_sets_the_variable_and_the_last_matching_rule_decides)
{
    char dir[512], filter[600];
    scratch_path(filter, sizeof filter, "last.flt");
    /* every region of user_phases.c out, then solve back in; named events
     * and values have no file and stay */
    write_filter(filter, "exclude file user_phases.c\ninclude region solve\nexclude region halo\n");
    scratch_path(dir, sizeof dir, "filter-option");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--filter", filter, OFFTRACE_BIN_DIR "/example_user_phases",
                              STEPS, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 5, "solve only");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_EVENT], 0, "halo is out, begin and end");
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_REGIONS"), 5);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_EVENTS"), 5);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_VALUES"), 0);
}

static void expect_rejected_run(const char *filter, const char *expected_problem)
{
    char *untraced_argv[] = {OFFTRACE_BIN_DIR "/example_user_phases", STEPS, NULL};
    run_result plain;
    cr_assert_eq(run_command(untraced_argv, NULL, NULL, &plain), 0);
    char dir[512];
    scratch_path(dir, sizeof dir, "filter-rejected");
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--filter", filter, OFFTRACE_BIN_DIR "/example_user_phases",
                              STEPS, NULL), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == WEXITSTATUS(plain.status), "%s", r.err);
    cr_expect_str_eq(r.out, plain.out, "the program's output is unchanged");
    char line[2048];
    snprintf(line, sizeof line, "offtrace: filter %s; the program is traced without a filter\n", expected_problem);
    const char *said = strstr(r.err, line);
    cr_expect(said != NULL, "expected '%s' in: %s", line, r.err);
    cr_expect(!said || !strstr(said + 1, line), "said once");
    char summary[2048];
    snprintf(summary, sizeof summary, "offtrace: filter           REJECTED %s; traced without a filter\n",
             expected_problem);
    cr_expect(strstr(r.err, summary) != NULL, "expected '%s' in: %s", summary, r.err);
    run_free(&r);
    run_free(&plain);
    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 10, "traced whole, without a filter");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_EVENT], 5);
    char *status = string_property(dir, "OFFTRACE::FILTER_STATUS");
    char want[2048];
    snprintf(want, sizeof want, "rejected: %s", expected_problem);
    cr_expect_str_eq(status ? status : "", want);
    free(status);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_REGIONS"), 0);
}

Test(filter_recording, a_malformed_filter_is_said_with_its_line_and_the_program_is_traced_without_it)
{
    char filter[600], problem[1024];
    scratch_path(filter, sizeof filter, "bad.flt");
    write_filter(filter, "exclude region solve\n\nexclude file user_phases.c:30-x\n");
    snprintf(problem, sizeof problem, "%s:3: bad line range '30-x' (LINE or FIRST-LAST, lines from 1)", filter);
    expect_rejected_run(filter, problem);
}

Test(filter_recording, an_unreadable_filter_is_said_and_the_program_is_traced_without_it)
{
    char filter[600], problem[1024];
    scratch_path(filter, sizeof filter, "missing.flt");
    snprintf(problem, sizeof problem, "%s: cannot be read (No such file or directory)", filter);
    expect_rejected_run(filter, problem);
}

/* ---- host OpenMP constructs: examples/filter_regions.c, 3 rounds, 2 threads ---- */

#define ROUNDS 3
static const offtrace_event_class host_classes[] = {
    OFFTRACE_CLASS_HOST_PARALLEL, OFFTRACE_CLASS_HOST_IMPLICIT_TASK, OFFTRACE_CLASS_HOST_WORK,
    OFFTRACE_CLASS_HOST_CHUNK,    OFFTRACE_CLASS_HOST_SYNC,          OFFTRACE_CLASS_HOST_SYNC_WAIT,
    OFFTRACE_CLASS_HOST_MASKED,
};

static uint64_t host_openmp_enters(const archive_facts *f)
{
    uint64_t n = 0;
    for (size_t i = 0; i < sizeof host_classes / sizeof host_classes[0]; i++)
        n += f->enters[host_classes[i]];
    return n;
}

/* Record filter_regions with 2 threads, with the filter text (NULL: none). */
static void record_regions(const char *name, const char *text, char *dir, size_t size, archive_facts *f)
{
    scratch_path(dir, (unsigned)size, name);
    char filter[600], env_filter[700];
    snprintf(env_filter, sizeof env_filter, "OFFTRACE_FILTER=");
    if (text) {
        snprintf(filter, sizeof filter, "%s.flt", dir);
        write_filter(filter, text);
        snprintf(env_filter, sizeof env_filter, "OFFTRACE_FILTER=%s", filter);
    }
    char *env[] = {"OMP_NUM_THREADS=2", env_filter, NULL};
    char *args[] = {"3", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "example_filter_regions", args, &err), 0, "%s", err ? err : "");
    free(err);
    check_archive(dir, f);
}

static void expect_same_except(const archive_facts *plain, const archive_facts *f, const offtrace_event_class *changed,
                               size_t nchanged)
{
    for (int c = 0; c < OFFTRACE_CLASS_COUNT; c++) {
        int skip = 0;
        for (size_t i = 0; i < nchanged; i++)
            skip |= changed[i] == (offtrace_event_class)c;
        if (!skip)
            cr_expect_eq(f->enters[c], plain->enters[c], "class %d: %llu enters, unfiltered %llu", c,
                         (unsigned long long)f->enters[c], (unsigned long long)plain->enters[c]);
    }
    cr_expect_eq(f->target, plain->target, "target regions are never filtered");
    cr_expect_eq(f->kernels, plain->kernels);
}

Test(filter_recording, openmp_constructs_go_by_name_and_by_file_and_line_with_their_chunks_and_waits)
{
    char plain_dir[512], dir[512];
    archive_facts plain, f;
    record_regions("omp-plain", NULL, plain_dir, sizeof plain_dir, &plain);
    cr_assert_eq(plain.enters[OFFTRACE_CLASS_HOST_WORK], 2 * 2 * ROUNDS);
    cr_assert_eq(plain.enters[OFFTRACE_CLASS_HOST_CHUNK], (2048 / 256 + 2) * ROUNDS, "8 dynamic, 2 static chunks");
    /* the dynamic loop by its name; the explicit barrier by its line (40) */
    record_regions("omp-named", "exclude region loop (dynamic)\nexclude file filter_regions.c:40\n", dir, sizeof dir,
                   &f);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_WORK], plain.enters[OFFTRACE_CLASS_HOST_WORK] - 2 * ROUNDS);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_CHUNK], plain.enters[OFFTRACE_CLASS_HOST_CHUNK] - 8 * ROUNDS,
                 "the removed loop's chunks follow it");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_SYNC], plain.enters[OFFTRACE_CLASS_HOST_SYNC] - 2 * ROUNDS);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_SYNC_WAIT], plain.enters[OFFTRACE_CLASS_HOST_SYNC_WAIT] - 2 * ROUNDS,
                 "the removed barrier's waiting part follows it");
    static const offtrace_event_class changed[] = {OFFTRACE_CLASS_HOST_WORK, OFFTRACE_CLASS_HOST_CHUNK,
                                                   OFFTRACE_CLASS_HOST_SYNC, OFFTRACE_CLASS_HOST_SYNC_WAIT};
    expect_same_except(&plain, &f, changed, 4);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_OPENMP_CONSTRUCTS"),
                 host_openmp_enters(&plain) - host_openmp_enters(&f));
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_REGIONS"), 0);
}

Test(filter_recording, a_removed_parallel_region_takes_its_implicit_tasks_on_every_thread_and_keeps_its_loops)
{
    char plain_dir[512], dir[512];
    archive_facts plain, f;
    record_regions("omp-plain-2", NULL, plain_dir, sizeof plain_dir, &plain);
    /* line 35: solve's parallel and the implicit barrier at its end */
    record_regions("omp-parallel", "exclude file filter_regions.c:35\n", dir, sizeof dir, &f);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_PARALLEL], plain.enters[OFFTRACE_CLASS_HOST_PARALLEL] - ROUNDS);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_IMPLICIT_TASK],
                 plain.enters[OFFTRACE_CLASS_HOST_IMPLICIT_TASK] - 2 * ROUNDS, "both threads' implicit tasks");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_WORK], plain.enters[OFFTRACE_CLASS_HOST_WORK], "loops stay");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_CHUNK], plain.enters[OFFTRACE_CLASS_HOST_CHUNK]);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_HOST_SYNC], plain.enters[OFFTRACE_CLASS_HOST_SYNC] - 2 * ROUNDS,
                 "the parallel's end barrier, on both threads");
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_OPENMP_CONSTRUCTS"),
                 host_openmp_enters(&plain) - host_openmp_enters(&f));
    /* the analysis still reads what remains */
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report: %s", r.err);
    run_free(&r);
}

Test(filter_recording, everything_out_but_one_user_region_keeps_it_and_the_offload_story)
{
    char plain_dir[512], dir[512];
    archive_facts plain, f;
    record_regions("omp-plain-3", NULL, plain_dir, sizeof plain_dir, &plain);
    record_regions("omp-all-out", "exclude region *\ninclude region solve\n", dir, sizeof dir, &f);
    cr_expect_eq(host_openmp_enters(&f), 0, "every host OpenMP region is out");
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], ROUNDS, "solve only");
    static const offtrace_event_class changed[] = {
        OFFTRACE_CLASS_HOST_PARALLEL, OFFTRACE_CLASS_HOST_IMPLICIT_TASK, OFFTRACE_CLASS_HOST_WORK,
        OFFTRACE_CLASS_HOST_CHUNK,    OFFTRACE_CLASS_HOST_SYNC,          OFFTRACE_CLASS_HOST_SYNC_WAIT,
        OFFTRACE_CLASS_USER_REGION};
    expect_same_except(&plain, &f, changed, sizeof changed / sizeof changed[0]);
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_OPENMP_CONSTRUCTS"), host_openmp_enters(&plain));
    cr_expect_eq(number(dir, "OFFTRACE::FILTER_REMOVED_USER_REGIONS"), ROUNDS);
}

/* A damaged raw/filter (cut short, or another file in its place) loses the
 * filter's information, never the conversion: the events convert and the
 * archive has no filter properties rather than wrong ones. */
Test(filter_recording, a_damaged_filter_record_converts_without_filter_properties)
{
    char dir[512], filter[600];
    scratch_path(filter, sizeof filter, "keep.flt");
    write_filter(filter, "exclude region solve\n");
    scratch_path(dir, sizeof dir, "filter-damaged");
    char env_filter[700];
    snprintf(env_filter, sizeof env_filter, "OFFTRACE_FILTER=%s", filter);
    char *env[] = {"OFFTRACE_KEEP_RAW=1", env_filter, NULL};
    char *args[] = {STEPS, NULL};
    cr_assert_eq(record_program(dir, NULL, env, "example_user_phases", args, NULL), 0);
    char path[700];
    snprintf(path, sizeof path, "%s/raw/filter", dir);
    cr_assert_eq(truncate(path, 100), 0);
    char *why = NULL;
    cr_assert_eq(reconvert_raw(dir, &why), 0, "%s", why ? why : "");
    free(why);
    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_USER_REGION], 5, "the records are as the filter left them");
    char *status = string_property(dir, "OFFTRACE::FILTER_STATUS");
    cr_expect_null(status, "no filter properties from a cut file: %s", status ? status : "");
    free(status);
}

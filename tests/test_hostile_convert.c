/*
 * Issue 10, the converter's part: recordings that hostile programs make, and
 * recordings damaged on disk, convert to an archive that OTF2 accepts and
 * that counts what was dropped, or are refused with one line. Never a crash,
 * never a hang.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/compare.h"
#include "offtrace/event_catalogue.h"

TestSuite(hostile_convert, .timeout = 180);

/* The program looks the same traced and untraced, and its archive is valid. */
static void traced_like_untraced(const char *dir, char *const options[], const char *program, char *const args[],
                                 archive_facts *f)
{
    compared_runs c;
    cr_assert_eq(compare_runs(dir, options, NULL, program, args, &c), 0);
    const char *why = compare_difference(&c);
    cr_assert(!why, "%s: %s\n%s", program, why, c.traced.err);
    compare_free(&c);
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "otf2-print rejects the archive of %s: %s", program, message);
    free(message);
    cr_assert_eq(archive_check(dir, f), 0);
    cr_assert_eq(archive_violations(f), 0, "%s: %s", program, f->first_problem);
}

static int location_has_events(const char *dir, uint64_t location)
{
    uint64_t *times = NULL;
    size_t n = 0;
    int rc = archive_location_times(dir, location, &times, &n);
    free(times);
    return rc == 0 && n > 0;
}

/* Case 1: two host threads offload at once; their kernels overlap on device 0. */
Test(hostile_convert, overlapping_kernels_get_a_second_stream)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "hostile-overlap");
    archive_facts f;
    traced_like_untraced(dir, NULL, "hostile_overlap", NULL, &f);
    cr_assert_eq(f.target, 40);
    cr_assert_eq(f.kernels, 40);
    cr_assert(location_has_events(dir, offtrace_location_id(OFFTRACE_LOC_KERNEL_STREAM, 0, 0)), "no kernels on device 0 stream 0");
    cr_assert(location_has_events(dir, offtrace_location_id(OFFTRACE_LOC_KERNEL_STREAM, 0, 1)), "no kernels on device 0 stream 1");
}

/* Case 2 (smaller: 32 threads x 16 nowait targets overlap often enough). */
Test(hostile_convert, many_threads_of_nowait_targets)
{
    char *const modes[][2] = {{NULL, NULL}, {"--host-only", NULL}};
    for (int m = 0; m < 2; m++) {
        char dir[4096];
        scratch_path(dir, sizeof dir, m ? "hostile-nowait64-host-only" : "hostile-nowait64");
        archive_facts f;
        traced_like_untraced(dir, modes[m][0] ? modes[m] : NULL, "hostile_nowait64", (char *[]){"32", "16", NULL},
                             &f);
        cr_assert_eq(f.target, 32 * 16, "%s: %llu targets", m ? "--host-only" : "default",
                     (unsigned long long)f.target);
        cr_assert_eq(f.kernels, 32 * 16);
    }
}

/* Case 3: short-lived threads offloading 16 at a time (their kernels overlap). */
Test(hostile_convert, short_lived_threads)
{
    for (int run = 0; run < 4; run++) {
        char dir[4096];
        scratch_path(dir, sizeof dir, "hostile-shortthreads");
        archive_facts f;
        traced_like_untraced(dir, NULL, "hostile_shortthreads", (char *[]){"800", NULL}, &f);
        cr_assert_eq(f.target, 800 * 3);
    }
}

/* Case 10: target data nested deeper than the converter's old fixed stack. */
Test(hostile_convert, deeply_nested_target_data)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "hostile-nest");
    archive_facts f;
    traced_like_untraced(dir, NULL, "hostile_nest", (char *[]){"300", NULL}, &f);
    cr_assert_eq(f.target, 1);
    cr_assert_eq(f.kernels, 1);
    cr_assert_eq(f.enter_data, 300);
    cr_assert_eq(f.exit_data, 300);
    cr_assert_eq(f.data_regions, 300);
}

/* ---- damaged recordings (cases 4, 11, 12 and every case of damage_raw.py) ---- */

static char **damage_cases(size_t *n)
{
    run_result r;
    cr_assert_eq(run_command((char *[]){"python3", OFFTRACE_DAMAGE_SCRIPT, "--list", NULL}, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "damage_raw.py --list: %s", r.err);
    char **cases = NULL;
    *n = 0;
    for (char *save, *line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        cases = realloc(cases, (*n + 1) * sizeof *cases);
        cases[(*n)++] = strdup(line);
    }
    run_free(&r);
    return cases;
}

/* What convert made of one damaged copy: 0 a valid archive, 1 a refusal in one line. */
static int convert_damaged(const char *base_raw, const char *scratch, const char *damage, char *out, size_t size)
{
    snprintf(out, size, "%s-%s", scratch, damage);
    run_result r;
    cr_assert_eq(run_command((char *[]){"python3", OFFTRACE_DAMAGE_SCRIPT, (char *)base_raw, out, (char *)damage,
                                        NULL}, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "damage_raw.py %s: %s", damage, r.err);
    run_free(&r);
    char cli[4200];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    cr_assert_eq(run_command((char *[]){"timeout", "-s", "KILL", "30", cli, "convert", out, NULL}, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status), "%s: convert died of signal %d", damage, WTERMSIG(r.status));
    int refused = WEXITSTATUS(r.status) != 0;
    if (refused) {
        cr_assert(WEXITSTATUS(r.status) != 124 && WEXITSTATUS(r.status) != 137, "%s: convert hung", damage);
        const char *newline = strchr(r.err, '\n');
        cr_assert(!strncmp(r.err, "offtrace: ", 10) && newline && !newline[1],
                  "%s: a refusal must be one line, not:\n%s", damage, r.err);
    } else {
        char *message = NULL;
        cr_assert_eq(otf2_print_check(out, &message), 0, "%s: otf2-print rejects the archive: %s", damage, message);
        free(message);
        archive_facts f;
        cr_assert_eq(archive_check(out, &f), 0, "%s", damage);
        /* Damaged device records may name no host target region, and random
         * host records (thread_random_events, fresh random bytes each run) may
         * make a kernel of a region and line that no target has: they land
         * outside every target, which is what they say. Every OTF2 rule and
         * every other check holds. */
        cr_assert_eq(archive_violations(&f) - f.device_outside - f.kernel_outside, 0, "%s: %s", damage,
                     f.first_problem);
    }
    run_free(&r);
    return refused;
}

static uint64_t property(const char *dir, const char *name)
{
    uint64_t value = 0;
    cr_assert_eq(archive_property(dir, name, &value), 0, "%s has no %s", dir, name);
    return value;
}

Test(hostile_convert, every_damaged_recording_converts_or_is_refused_in_one_line)
{
    char dir[4096], base_raw[4200], out[4400];
    scratch_path(dir, sizeof dir, "hostile-damage-base");
    archive_facts f;
    compared_runs c;
    cr_assert_eq(compare_runs(dir, NULL, (char *[]){"OFFTRACE_KEEP_RAW=1", NULL}, "hostile_devpar",
                              (char *[]){"50", NULL}, &c), 0);
    cr_assert(!compare_difference(&c), "%s", compare_difference(&c));
    compare_free(&c);
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_assert_eq(f.target, 50);
    cr_assert_gt(f.device_threads, 0);
    snprintf(base_raw, sizeof base_raw, "%s/raw", dir);

    size_t n;
    char **cases = damage_cases(&n);
    cr_assert_geq(n, 50, "damage_raw.py lists %zu cases", n);
    for (size_t i = 0; i < n; i++) {
        int refused = convert_damaged(base_raw, dir, cases[i], out, sizeof out);
        /* the cases of the issue, each with its expected outcome */
        if (!strcmp(cases[i], "thread_is_fifo") || !strcmp(cases[i], "thread_old_version") ||
            !strcmp(cases[i], "thread_bad_magic") || !strcmp(cases[i], "thread_recsize") ||
            !strcmp(cases[i], "thread_symlink_devzero") || !strcmp(cases[i], "thread_is_dir"))
            cr_assert(refused, "%s: the only stream is unusable, yet convert wrote an archive", cases[i]);
        if (!strcmp(cases[i], "thread_many_files")) {
            cr_assert(!refused);
            cr_assert_eq(property(out, "OFFTRACE::IGNORED_STREAMS_DUPLICATE_THREAD"), 2);
            cr_assert_eq(property(out, "OFFTRACE::IGNORED_STREAMS_NOT_REGULAR_FILE"), 1997);
            cr_assert_eq(archive_check(out, &f), 0);
            cr_assert_eq(f.target, 50);
        }
        if (!strcmp(cases[i], "dev_random_records")) {
            cr_assert(!refused);
            cr_assert_gt(property(out, "OFFTRACE::DEVICE_RECORDS_WITHOUT_LOCATION"), 0);
        }
        if (!strcmp(cases[i], "maps_fifo") || !strcmp(cases[i], "maps_devzero") || !strcmp(cases[i], "none")) {
            cr_assert(!refused, "%s refused", cases[i]);
            cr_assert_eq(archive_check(out, &f), 0);
            cr_assert_eq(f.target, 50, "%s: %llu targets", cases[i], (unsigned long long)f.target);
        }
        if (!strcmp(cases[i], "thread_all_ff")) { /* records of no kind the recorder writes: counted */
            cr_assert(!refused);
            cr_assert_gt(property(out, "OFFTRACE::DAMAGED_RECORDS"), 0);
        }
        if (!strcmp(cases[i], "no_thread")) { /* nothing recorded on the host: an empty, valid archive */
            cr_assert(!refused);
            cr_assert_eq(archive_check(out, &f), 0);
            cr_assert_eq(f.host_threads, 1);
        }
        free(cases[i]);
    }
    free(cases);
}

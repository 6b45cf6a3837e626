/*
 * Archive equivalence: the archive of every example, with and without device
 * detail, holds the same events by kind, count and bytes as the golden
 * signatures in tests/golden/ say (tests/check/archive_signature.c: events per
 * location role, event type and normalised region name; RMA counts and bytes
 * by direction; metric events). A change of the recorder, the converter or
 * the trace model that changes what an archive holds fails here, with the
 * first differing lines.
 *
 * With OFFTRACE_REGENERATE_GOLDEN=1 the tests write the golden files instead
 * of comparing (tests/golden/regenerate.sh): only for an intended change of the
 * archive, explained in its commit.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/archive_signature.h"
#include "check/run.h"

/* Everything that makes a recording the same from run to run: the host's thread count (the device's
 * teams and parallel regions on the host-offload plugin take theirs from it too). What still varies
 * (which thread ran what, how many helper threads took part) the signature sums over or leaves out. */
/* Device detail at its full level, every thread's events (issue 18's default, teams, records fewer; the
 * golden signatures predate it and hold the full level to exactly what it recorded before). */
static char *const recording_env[] = {"OMP_NUM_THREADS=2", "OFFTRACE_DEVICE_DETAIL=threads", NULL};

/* The lines of \p text that are not comments ('#'), as an array of pointers into it (it is changed). */
static size_t lines_of(char *text, char ***lines)
{
    size_t n = 0, capacity = 0;
    *lines = NULL;
    for (char *p = text, *end; p && *p; p = end ? end + 1 : NULL) {
        end = strchr(p, '\n');
        if (end)
            *end = 0;
        if (*p == '#' || !*p)
            continue;
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 256;
            *lines = realloc(*lines, capacity * sizeof **lines);
            cr_assert_not_null(*lines);
        }
        (*lines)[n++] = p;
    }
    return n;
}

/* A diff of two sorted line lists: "-" lines only the golden file has, "+" lines only this run has,
 * the first \p max of them, into \p out. Returns how many lines differ. */
static size_t sorted_diff(char **want, size_t nwant, char **got, size_t ngot, char *out, size_t size, size_t max)
{
    size_t i = 0, j = 0, differing = 0, used = 0;
    out[0] = 0;
    while (i < nwant || j < ngot) {
        int order = i == nwant ? 1 : j == ngot ? -1 : strcmp(want[i], got[j]);
        if (order == 0) {
            i++, j++;
            continue;
        }
        if (differing++ < max && used < size)
            used += (size_t)snprintf(out + used, size - used, "\n  %s %s", order < 0 ? "-" : "+",
                                     order < 0 ? want[i] : got[j]);
        if (order < 0)
            i++;
        else
            j++;
    }
    return differing;
}

static void golden_path(char *buf, size_t size, const char *example, const char *mode)
{
    snprintf(buf, size, "%s/%s.%s.txt", OFFTRACE_GOLDEN_DIR, example, mode);
}

static void write_golden(const char *path, const char *example, const char *option, const char *signature)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fprintf(f,
            "# Signature of the archive of `offtrace record %s%s` (OMP_NUM_THREADS=2),\n"
            "# compared by tests/test_archive_equivalence.c, written by tests/golden/regenerate.sh.\n"
            "# Lines: location role / event type / region or detail = count (or bytes, or the rises of a metric).\n",
            option ? option : "", example);
    fputs(signature, f);
    cr_assert_eq(fclose(f), 0);
}

static void check_example(const char *example, const char *mode)
{
    const char *option = !strcmp(mode, "host-only") ? "--host-only " : NULL;
    char dir[4096], anchor[4200], path[4096];
    scratch_path(dir, sizeof dir, example);
    char *err = NULL;
    int recorded = record_program(dir, option ? "--host-only" : NULL, recording_env, example, NULL, &err);
    cr_assert_eq(recorded, 0, "offtrace record %s%s failed: %s", option ? option : "", example, err ? err : "");
    free(err);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    char *signature;
    cr_assert_eq(archive_signature(anchor, &signature), 0, "OTF2 cannot read %s", anchor);
    golden_path(path, sizeof path, example, mode);
    const char *regenerate = getenv("OFFTRACE_REGENERATE_GOLDEN");
    if (regenerate && !strcmp(regenerate, "1")) {
        write_golden(path, example, option, signature);
        free(signature);
        return;
    }
    char *golden = read_whole_file(path, NULL);
    cr_assert_not_null(golden, "no golden signature %s (tests/golden/regenerate.sh writes it)", path);
    char **want, **got, diff[4096];
    size_t nwant = lines_of(golden, &want), ngot = lines_of(signature, &got);
    size_t differing = sorted_diff(want, nwant, got, ngot, diff, sizeof diff, 12);
    cr_expect_eq(differing, 0,
                 "the archive of %s (%s) differs from %s in %zu lines (- golden, + this run; first ones):%s",
                 example, mode, path, differing, diff);
    free(want);
    free(got);
    free(golden);
    free(signature);
}

#define EXAMPLE(name)                                                                                      \
    Test(archive_equivalence, name, .timeout = 60)                                                          \
    {                                                                                                      \
        check_example("example_" #name, "device");                                                         \
        check_example("example_" #name, "host-only");                                                      \
    }

EXAMPLE(cg)
EXAMPLE(saxpy)
EXAMPLE(stencil)
EXAMPLE(enter_exit)
EXAMPLE(nowait)
EXAMPLE(two_devices)
EXAMPLE(device_tasks)
EXAMPLE(transfer_mistakes)
EXAMPLE(transfer_done_right)

/* The comparison itself can fail, and says where. */
Test(archive_equivalence, a_changed_line_is_named)
{
    char want_text[] = "a / Enter / x = 1\nb / Leave / y = 2\nc / RmaPut / bytes = 8\n";
    char got_text[] = "# a comment\na / Enter / x = 1\nb / Leave / y = 3\nc / RmaPut / bytes = 8\nd / Metric = 1\n";
    char **want, **got, diff[1024];
    size_t nwant = lines_of(want_text, &want), ngot = lines_of(got_text, &got);
    cr_assert_eq(ngot, 4);
    cr_assert_eq(sorted_diff(want, nwant, got, ngot, diff, sizeof diff, 12), 3);
    cr_assert_str_eq(diff, "\n  - b / Leave / y = 2\n  + b / Leave / y = 3\n  + d / Metric = 1");
    free(want);
    free(got);
}

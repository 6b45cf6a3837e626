/*
 * The summary without reading the archive back (issue 18): `offtrace record`
 * and `offtrace convert` summarise the archive they have just written from
 * its definitions and the trace writer's counts of its events
 * (summary.h ot_summary_of_written). The independent source is the archive
 * itself, read back event by event the way `offtrace info` reads it
 * (ot_summary_read, OTF2's reader): for recordings of every kind (offload
 * examples with and without device detail, two devices, host OpenMP at level
 * all, user regions, NVTX, a lossy one cut by its size limit, deep nesting),
 * both summaries must be equal field by field. Regions nested deeper than
 * the reader delivers are tried on an archive the trace writer writes here.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/run.h"
#include "convert.h"
#include "summary.h"
#include "trace_writer.h"
#include "write_counts.h"

/* Kept raw records (OFFTRACE_KEEP_RAW), so that the test converts them again itself. */
static void keep_raw(void)
{
    setenv("OFFTRACE_KEEP_RAW", "1", 1);
    setenv("OMP_NUM_THREADS", "2", 1);
}

/* `offtrace record -o DIR OPTIONS... -- PROGRAM ARGS...` (at most 6 options and 4 arguments). */
static void record(const char *dir, const char *const *options, const char *program, const char *const *args)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", OFFTRACE_BIN_DIR, program);
    const char *argv[16] = {"-o", dir};
    size_t n = 2;
    for (size_t i = 0; options && options[i] && i < 6; i++)
        argv[n++] = options[i];
    argv[n++] = "--";
    argv[n++] = path;
    for (size_t i = 0; args && args[i] && i < 4; i++)
        argv[n++] = args[i];
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7],
                              argv[8], argv[9], argv[10], argv[11], argv[12], argv[13], argv[14], NULL),
                 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "record %s failed:\n%s", program, r.err);
    run_free(&r);
}

#define SAME(field) cr_expect_eq(written->field, read->field, "%s: " #field " %llu from the counts, %llu read back", \
                                 what, (unsigned long long)written->field, (unsigned long long)read->field)

/* Field by field where it says which one differs, then the whole struct. */
static void assert_same_summary(const char *what, const ot_summary *written, const ot_summary *read)
{
    for (int k = 0; k < OT_CONSTRUCT_KINDS; k++)
        cr_expect_eq(written->constructs[k], read->constructs[k], "%s: constructs[%d] %llu from the counts, %llu read back",
                     what, k, (unsigned long long)written->constructs[k], (unsigned long long)read->constructs[k]);
    SAME(kernels);
    SAME(host_parallel);
    SAME(host_work);
    SAME(host_chunks);
    SAME(host_sync);
    SAME(host_tasks);
    SAME(host_acquisitions);
    SAME(h2d_count);
    SAME(h2d_bytes);
    SAME(d2h_count);
    SAME(d2h_bytes);
    SAME(events);
    SAME(host_threads);
    SAME(devices);
    SAME(device_streams);
    SAME(device_threads);
    SAME(device_queues);
    SAME(lost_records);
    SAME(sites);
    SAME(sites_without_line);
    SAME(archive_bytes);
    cr_assert_eq(memcmp(written, read, sizeof *written), 0, "%s: the summaries differ", what);
}

/* Convert DIR's kept raw records again here, the counts asked for as record
 * asks for them, and compare the two summaries of the archive. */
static ot_summary convert_and_compare(const char *what, const char *dir)
{
    ot_write_counts *counts = (ot_write_counts *)1; /* must be replaced */
    ot_convert_options opts = {.keep_raw = 1, .counts = &counts};
    char msg[1024] = "";
    cr_assert_eq(ot_convert_directory(dir, &opts, msg, sizeof msg), 0, "%s: %s", what, msg);
    cr_assert_not_null(counts, "%s: no counts", what);
    cr_assert_neq((void *)counts, (void *)1);
    ot_summary written, read;
    cr_assert_eq(ot_summary_of_written(dir, counts, &written, msg, sizeof msg), 0, "%s: %s", what, msg);
    ot_write_counts_free(counts);
    cr_assert_eq(ot_summary_read(dir, &read, msg, sizeof msg), 0, "%s: %s", what, msg);
    assert_same_summary(what, &written, &read);
    return read;
}

static ot_summary recorded_and_compared(const char *name, const char *const *options, const char *program,
                                        const char *const *args)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, name);
    keep_raw();
    record(dir, options, program, args);
    return convert_and_compare(name, dir);
}

Test(summary_written, offload_examples_with_and_without_device_detail, .timeout = 240)
{
    static const char *const host_only[] = {"--host-only", NULL};
    ot_summary s = recorded_and_compared("sw-cg", NULL, "example_cg", NULL);
    cr_assert_gt(s.kernels, 0);
    cr_assert_gt(s.device_records, 0);
    cr_assert_gt(s.h2d_count + s.d2h_count, 0);
    recorded_and_compared("sw-cg-host", host_only, "example_cg", NULL);
    recorded_and_compared("sw-saxpy", NULL, "example_saxpy", NULL);
    s = recorded_and_compared("sw-two-devices", NULL, "example_two_devices", NULL);
    cr_assert_geq(s.devices, 2);
    recorded_and_compared("sw-enter-exit", NULL, "example_enter_exit", NULL);
    recorded_and_compared("sw-device-tasks", NULL, "example_device_tasks", NULL);
}

Test(summary_written, host_openmp_user_regions_and_nvtx, .timeout = 240)
{
    static const char *const all[] = {"--host-openmp", "all", "--host-only", NULL};
    ot_summary s = recorded_and_compared("sw-locks", all, "example_lock_histogram", (const char *[]){"2000", "1", NULL});
    cr_assert_gt(s.host_acquisitions, 0);
    s = recorded_and_compared("sw-tasks", all, "example_task_tree", (const char *[]){"2000", "64", NULL});
    cr_assert_gt(s.host_tasks, 0);
    cr_assert_gt(s.host_parallel, 0);
    recorded_and_compared("sw-host-phases", NULL, "example_host_phases", (const char *[]){"skewed", "2", NULL});
    recorded_and_compared("sw-user", NULL, "example_user_phases", NULL);
#ifdef OFFTRACE_TEST_NVTX
    s = recorded_and_compared("sw-nvtx", NULL, "example_nvtx_phases", NULL);
    cr_assert_gt(s.nvtx_events, 0);
#endif
}

/* Lost records (a 1 MiB size limit, small buffers), and target data regions
 * nested deeper than the reader delivers (which both must leave out alike). */
Test(summary_written, a_lossy_recording_and_deep_nesting, .timeout = 240)
{
    static const char *const lossy[] = {"--max-size", "1M", "-b", "64K", "--host-only", NULL};
    ot_summary s = recorded_and_compared("sw-lossy", lossy, "hostile_many", (const char *[]){"20000", NULL});
    cr_assert_gt(s.lost_records, 0);
    cr_assert(s.size_limit_reached);
    recorded_and_compared("sw-nest", NULL, "hostile_nest", (const char *[]){"1000", NULL});
}

/* What record prints is that summary: its lines are `offtrace info`'s. */
Test(summary_written, record_prints_what_info_reads, .timeout = 120)
{
    char dir[4096], path[4200];
    scratch_path(dir, sizeof dir, "sw-record-info");
    snprintf(path, sizeof path, "%s/example_saxpy", OFFTRACE_BIN_DIR);
    unsetenv("OFFTRACE_KEEP_RAW");
    run_result rec, info;
    cr_assert_eq(run_offtrace(&rec, "record", "-o", dir, "--", path, NULL), 0);
    cr_assert(WIFEXITED(rec.status) && WEXITSTATUS(rec.status) == 0, "%s", rec.err);
    cr_assert_eq(run_offtrace(&info, "info", dir, NULL), 0);
    cr_assert(WIFEXITED(info.status) && WEXITSTATUS(info.status) == 0, "%s", info.err);
    /* record's stderr: its first line ("recording ... into"), the summary, the "next" line */
    const char *summary = strstr(rec.err, "offtrace: target regions");
    const char *next = strstr(rec.err, "offtrace: next ");
    cr_assert(summary && next && next > summary, "%s", rec.err);
    cr_assert_eq(strlen(info.out), (size_t)(next - summary), "record said:\n%s\ninfo says:\n%s", rec.err, info.out);
    cr_assert_eq(strncmp(info.out, summary, (size_t)(next - summary)), 0, "record said:\n%s\ninfo says:\n%s",
                 rec.err, info.out);
    run_free(&rec);
    run_free(&info);
}

/* Counts that do not fit the archive are refused (then record reads it back). */
Test(summary_written, counts_that_do_not_fit_the_archive_are_refused, .timeout = 120)
{
    char dir[4096], msg[1024];
    scratch_path(dir, sizeof dir, "sw-mismatch");
    keep_raw();
    record(dir, (const char *[]){"--host-only", NULL}, "example_saxpy", NULL);
    ot_write_counts *counts = NULL;
    ot_convert_options opts = {.keep_raw = 1, .counts = &counts};
    cr_assert_eq(ot_convert_directory(dir, &opts, msg, sizeof msg), 0, "%s", msg);
    cr_assert(counts && counts->location_count > 0);
    ot_summary s;
    cr_assert_eq(ot_summary_of_written(dir, counts, &s, msg, sizeof msg), 0, "%s", msg);
    /* an Enter of a region the archive does not define */
    ot_location_counts *l = counts->locations[0];
    uint64_t *more = realloc(l->enters, (l->regions + 1000) * sizeof *more);
    cr_assert_not_null(more);
    memset(more + l->regions, 0, 1000 * sizeof *more);
    l->enters = more;
    l->regions += 1000;
    l->enters[l->regions - 1] = 1;
    cr_assert_eq(ot_summary_of_written(dir, counts, &s, msg, sizeof msg), -EINVAL);
    l->enters[l->regions - 1] = 0;
    /* a location the archive does not have */
    uint64_t id = l->location;
    l->location = 0x7fffffffffffull;
    cr_assert_eq(ot_summary_of_written(dir, counts, &s, msg, sizeof msg), -EINVAL);
    l->location = id;
    l->incomplete = 1;
    cr_assert_eq(ot_summary_of_written(dir, counts, &s, msg, sizeof msg), -EINVAL);
    /* and the fallback reads the archive back */
    ot_summary read;
    cr_assert_eq(ot_summary_after_conversion(dir, counts, &s, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(ot_summary_read(dir, &read, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(memcmp(&s, &read, sizeof s), 0);
    ot_write_counts_free(counts);
}

/* Deeper than the reader delivers (OT_TR_MAX_DEPTH): the writer's own archive,
 * 1,100 target data regions nested on one host thread, then 5 side by side;
 * the read back counts the 1,024 outer ones and the 5, so must the counts. */
Test(summary_written, regions_nested_past_the_readers_depth_are_left_out_alike, .timeout = 60)
{
    char dir[4096], msg[1024];
    scratch_path(dir, sizeof dir, "sw-deep");
    cr_assert_eq(mkdir(dir, 0755), 0);
    ot_trace_writer *w = ot_tw_open(dir, 1, msg, sizeof msg);
    cr_assert_not_null(w, "%s", msg);
    cr_assert_eq(ot_tw_count_events(w), 0);
    OTF2_EvtWriter *ew = ot_tw_add_location(w, 0, "thread 0", OFFTRACE_LOC_HOST_THREAD, -1, 0, NULL);
    cr_assert_not_null(ew);
    OTF2_RegionRef region = ot_tw_region(w, OFFTRACE_CLASS_TARGET_DATA, "target data @main", NULL, 0, 0);
    uint64_t t = 1000;
    for (int i = 0; i < 1100; i++)
        ot_tw_enter(ew, NULL, t++, region);
    for (int i = 0; i < 1100; i++)
        ot_tw_leave(ew, NULL, t++, region);
    for (int i = 0; i < 5; i++) {
        ot_tw_enter(ew, NULL, t++, region);
        ot_tw_leave(ew, NULL, t++, region);
    }
    ot_tw_cover(w, 1000);
    ot_tw_cover(w, t);
    ot_write_counts *counts = ot_tw_take_counts(w);
    cr_assert_not_null(counts);
    cr_assert_eq(ot_tw_close(w, 0, msg, sizeof msg), 0, "%s", msg);
    ot_summary written, read;
    cr_assert_eq(ot_summary_of_written(dir, counts, &written, msg, sizeof msg), 0, "%s", msg);
    ot_write_counts_free(counts);
    cr_assert_eq(ot_summary_read(dir, &read, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(read.constructs[OT_CONSTRUCT_DATA_REGION], 1024 + 5);
    assert_same_summary("deep", &written, &read);
}

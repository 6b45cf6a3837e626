/*
 * End to end: trace every example with `offtrace record`, read the archive
 * back with OTF2's reader, and compare with what the runtime itself reported
 * to an independent OMPT counting tool in a run of its own.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/run.h"
#include "check/runtime_counts.h"

/* The numbers `offtrace record` printed must be the archive's. */
static void check_summary(const char *summary, const archive_facts *f)
{
    unsigned long long t, ed, xd, up, dr, k, dev, hc, hb, dc, db;
    const char *p = strstr(summary, "offtrace: target regions");
    cr_assert_not_null(p, "no summary in: %s", summary);
    cr_assert_eq(sscanf(p, "offtrace: target regions %llu target, %llu enter data, %llu exit data, %llu update, "
                           "%llu data regions", &t, &ed, &xd, &up, &dr), 5);
    p = strstr(summary, "offtrace: kernels");
    cr_assert_eq(sscanf(p, "offtrace: kernels %llu on %llu device(s)", &k, &dev), 2);
    p = strstr(summary, "offtrace: host->device");
    cr_assert_eq(sscanf(p, "offtrace: host->device %llu transfers, %llu bytes", &hc, &hb), 2);
    p = strstr(summary, "offtrace: device->host");
    cr_assert_eq(sscanf(p, "offtrace: device->host %llu transfers, %llu bytes", &dc, &db), 2);
    cr_assert_eq(t, f->target);
    cr_assert_eq(ed, f->enter_data);
    cr_assert_eq(xd, f->exit_data);
    cr_assert_eq(up, f->update);
    cr_assert_eq(dr, f->data_regions);
    cr_assert_eq(k, f->kernels);
    cr_assert_eq(dev, f->devices);
    cr_assert_eq(hc, f->puts);
    cr_assert_eq(hb, f->put_bytes);
    cr_assert_eq(dc, f->gets);
    cr_assert_eq(db, f->get_bytes);
}

static void otf2_print_accepts(const char *dir)
{
    char *message = NULL;
    int status = otf2_print_check(dir, &message);
    cr_assert_eq(status, 0, "otf2-print rejects %s: %s", dir, message ? message : "");
    free(message);
}

static void trace_and_compare(const char *example, unsigned long long min_data_regions, unsigned devices)
{
    runtime_counts rt;
    cr_assert_eq(runtime_counts_of(example, &rt), 0, "%s", rt.problem);

    char dir[4096], prog[4096];
    scratch_path(dir, sizeof dir, example);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, example);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "record", "-o", dir, "--", prog, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "record failed: %s", r.err);
    otf2_print_accepts(dir);

    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0, "archive unreadable");
    cr_assert_eq(archive_violations(&f), 0, "%s: %s", example, f.first_problem);
    cr_assert_eq(f.target, rt.target, "target: trace %llu, runtime %llu", (unsigned long long)f.target, rt.target);
    cr_assert_eq(f.enter_data, rt.enter_data);
    cr_assert_eq(f.exit_data, rt.exit_data);
    cr_assert_eq(f.update, rt.update);
    cr_assert_eq(f.kernels, rt.kernels);
    cr_assert_eq(f.puts, rt.h2d, "h2d: trace %llu, runtime %llu", (unsigned long long)f.puts, rt.h2d);
    cr_assert_eq(f.put_bytes, rt.h2d_bytes);
    cr_assert_eq(f.gets, rt.d2h);
    cr_assert_eq(f.get_bytes, rt.d2h_bytes);
    cr_assert_eq(f.completions, f.puts + f.gets);
    cr_assert_geq(f.data_regions, min_data_regions);
    cr_assert_eq(f.devices, devices);
    cr_assert_eq(f.rdma_locations, devices);
    cr_assert_gt(f.metrics, 0, "no device memory metric");
    check_summary(r.err, &f);
    run_free(&r);
}

Test(examples, cg_data_region_around_many_kernels, .timeout = 120)
{
    trace_and_compare("example_cg", 1, 1);
}

Test(examples, saxpy, .timeout = 120)
{
    trace_and_compare("example_saxpy", 0, 1);
}

Test(examples, stencil_with_updates, .timeout = 120)
{
    trace_and_compare("example_stencil", 1, 1);
}

Test(examples, enter_exit_data_and_memory_api, .timeout = 120)
{
    trace_and_compare("example_enter_exit", 0, 1);
}

Test(examples, nowait_depend, .timeout = 120)
{
    trace_and_compare("example_nowait", 0, 1);
}

Test(examples, two_devices, .timeout = 120)
{
    trace_and_compare("example_two_devices", 0, 2);
}

/**
 * \file test_read_job.c
 * \brief The readers on a merged job archive made without mpirun (issue 16):
 *        synthetic parts (check/synthetic_parts.h: odd ranks define a
 *        "scratch window" first, so their offload window and communicator
 *        have other ids than even ranks') of a job of four ranks, rank 1
 *        partial and rank 3 without a part, merged by ot_merge_job; read
 *        back through trace_read (ranks, device keys, each put on its own
 *        rank's device) and ot_report_collect (the Ranks rows and states).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/run.h"
#include "check/synthetic_parts.h"
#include "merge.h"
#include "report.h"
#include "report_ranks.h"
#include "trace_read.h"

#define RANKS 4

static void merged_job(char *dir, size_t size)
{
    scratch_path(dir, (unsigned)size, "read-job");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(write_job_file(dir, "read-job", RANKS), 0);
    for (int r = 0; r < RANKS - 1; r++) /* rank 3: no part */
        cr_assert_eq(write_synthetic_part(dir, r, r == 1 ? "killed by SIGTERM" : NULL), 0);
    char why[512] = "";
    cr_assert_eq(ot_merge_job(dir, why, sizeof why), 0, "the merge failed: %s", why);
}

typedef struct job_read {
    uint32_t ranks;
    int stride, devices;
    int rdma_of_rank[RANKS];          /* the device key of each rank's RDMA location, -1 */
    uint64_t puts[RANKS], put_bytes[RANKS], misplaced, bad_rank;
} job_read;

static int on_begin(void *user, const ot_tr_archive *a)
{
    job_read *j = user;
    j->ranks = ot_tr_rank_count(a);
    j->stride = ot_tr_device_stride(a);
    j->devices = ot_tr_device_count(a);
    for (int r = 0; r < RANKS; r++)
        j->rdma_of_rank[r] = -1;
    for (size_t i = 0; i < ot_tr_location_count(a); i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        j->bad_rank += l->rank != (uint32_t)(l->id >> 40) || l->rank >= RANKS;
        if (l->klass == OT_TR_RDMA && l->rank < RANKS)
            j->rdma_of_rank[l->rank] = l->device;
    }
    return 0;
}

static int on_transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    job_read *j = user;
    if (loc->rank >= RANKS || x->device < 0 || x->device != j->rdma_of_rank[loc->rank]) {
        j->misplaced++;
        return 0;
    }
    j->puts[loc->rank] += x->to_device;
    j->put_bytes[loc->rank] += x->bytes;
    return 0;
}

Test(read_job, every_rank_its_devices_and_transfers)
{
    char dir[4096];
    merged_job(dir, sizeof dir);
    job_read j = {0};
    ot_tr_visitor v = {.begin = on_begin, .transfer = on_transfer};
    char err[512] = "";
    cr_assert_eq(ot_trace_read(dir, &v, &j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(j.ranks, RANKS, "ranks: %u", j.ranks);
    cr_assert_eq(j.bad_rank, 0);
    cr_assert_eq(j.stride, 1);
    cr_assert_eq(j.devices, 3, "one device per rank with a part, not one for all: %d", j.devices);
    for (int r = 0; r < RANKS - 1; r++) {
        cr_assert_eq(j.rdma_of_rank[r], r, "rank %d's device key %d", r, j.rdma_of_rank[r]);
        cr_assert_eq(j.puts[r], 1, "rank %d: %llu puts on its device", r, (unsigned long long)j.puts[r]);
        cr_assert_eq(j.put_bytes[r], 800 + (uint64_t)r);
    }
    cr_assert_eq(j.misplaced, 0, "%llu transfers not on their own rank's device", (unsigned long long)j.misplaced);
}

Test(read_job, the_report_has_a_row_per_rank_with_its_state)
{
    char dir[4096];
    merged_job(dir, sizeof dir);
    ot_report r;
    char err[512] = "";
    cr_assert_eq(ot_report_collect(dir, &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.rank_count, RANKS);
    static const ot_rp_rank_state want[RANKS] = {OT_RP_RANK_COMPLETE, OT_RP_RANK_PARTIAL, OT_RP_RANK_COMPLETE,
                                                 OT_RP_RANK_MISSING};
    for (int k = 0; k < RANKS; k++) {
        const ot_rp_rank *x = &r.ranks[k];
        cr_assert_eq(x->rank, (uint32_t)k);
        cr_assert_eq(x->state, want[k], "rank %d state %d", k, x->state);
        cr_assert_eq(x->devices, k < RANKS - 1 ? 1u : 0u, "rank %d devices", k);
        cr_assert_eq(x->transfers[OT_RP_H2D], k < RANKS - 1 ? 1u : 0u, "rank %d transfers", k);
        cr_assert_eq(x->bytes[OT_RP_H2D], k < RANKS - 1 ? 800u + (uint64_t)k : 0u);
        cr_assert_eq(x->host_ns, k < RANKS - 1 ? 60u : 0u, "rank %d host time %llu", k,
                     (unsigned long long)x->host_ns);
        cr_assert_eq(x->inside_ns, k < RANKS - 1 ? 40u : 0u, "rank %d offload time %llu", k,
                     (unsigned long long)x->inside_ns);
    }
    cr_assert_str_eq(r.ranks[1].reason, "killed by SIGTERM");
    cr_assert_str_eq(r.ranks[3].reason, "no part");
    cr_assert_eq(r.device_count, 3);
    for (size_t d = 0; d < r.device_count; d++) {
        cr_assert_eq(r.devices[d].rank, (uint32_t)d);
        cr_assert_eq(r.devices[d].number, 0);
    }
    char name[64];
    cr_assert_str_eq(ot_report_device_name(&r, r.devices[2].device, name, sizeof name), "rank 2 device 0");
    ot_rp_imbalance m = ot_report_imbalance(&r); /* three ranks with parts, alike: balanced */
    cr_assert_float_eq(m.offload, 1.0, 1e-9);
    ot_report_free(&r);
}

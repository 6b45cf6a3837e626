/**
 * \file report_highlights.c
 * \brief The three things a newcomer should read first: where the time in
 *        offload constructs went, the biggest finding, and the top kernel
 *        and transfer site. Both printers show them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "report.h"

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void where_the_time_went(const ot_report *r, char *out, size_t size)
{
    uint64_t host = 0, kernel = 0, transfer = 0;
    for (size_t i = 0; i < r->site_count; i++) {
        const ot_rp_site *s = &r->sites[i];
        if (s->kind == OT_RP_OUTSIDE)
            continue;
        host += s->host_ns;
        kernel += s->kernel_ns;
        transfer += s->transfer_ns[0] + s->transfer_ns[1];
    }
    char d[32];
    ot_report_time(r->summary.duration_ns, d, sizeof d);
    if (!host) {
        snprintf(out, size, "Nothing was offloaded in the %s traced: the archive holds no target constructs.", d);
        return;
    }
    uint64_t rest = host > kernel + transfer ? host - kernel - transfer : 0;
    snprintf(out, size,
             "%.0f%% of the %s traced is spent inside offload constructs; of the host's time there, %.0f%% goes "
             "to moving data, %.0f%% to kernels and %.0f%% to launch and runtime overhead.",
             percent(r->summary.inside_ns, r->summary.duration_ns), d, percent(transfer, host),
             percent(kernel, host), percent(rest, host));
}

static void biggest_finding(const ot_report *r, char *out, size_t size)
{
    if (!r->finding_count) {
        snprintf(out, size, "No findings: no repeated uploads, round trips, batchable tiny transfers, kernels "
                 "shorter than their launch, or idle devices the host waited for.");
        return;
    }
    const ot_rp_finding *f = &r->findings[0];
    char t[32], b[32], stake[96];
    if (f->bytes_at_stake)
        snprintf(stake, sizeof stake, "%s, %s", ot_report_time(f->ns_at_stake, t, sizeof t),
                 ot_report_bytes(f->bytes_at_stake, b, sizeof b));
    else
        snprintf(stake, sizeof stake, "%s", ot_report_time(f->ns_at_stake, t, sizeof t));
    snprintf(out, size, "Biggest finding (%s; %s at stake, %zu finding%s in all): %s",
             ot_report_finding_title(f->kind), stake, r->finding_count, r->finding_count == 1 ? "" : "s",
             f->message);
}

static const ot_rp_kernel *top_kernel(const ot_report *r, uint64_t *all)
{
    const ot_rp_kernel *top = NULL;
    *all = 0;
    for (size_t i = 0; i < r->kernel_count; i++) {
        *all += r->kernels[i].total_ns;
        if (!top || r->kernels[i].total_ns > top->total_ns)
            top = &r->kernels[i];
    }
    return top;
}

static const ot_rp_xsite *top_transfer_site(const ot_report *r, uint64_t *all)
{
    const ot_rp_xsite *top = NULL;
    *all = 0;
    for (size_t i = 0; i < r->xsite_count; i++) {
        *all += r->xsites[i].ns;
        if (!top || r->xsites[i].ns > top->ns)
            top = &r->xsites[i];
    }
    return top;
}

static void top_items(const ot_report *r, char *out, size_t size)
{
    uint64_t kall, xall;
    const ot_rp_kernel *k = top_kernel(r, &kall);
    const ot_rp_xsite *x = top_transfer_site(r, &xall);
    char a[320] = "", b[320] = "", t[32], by[32];
    if (k)
        snprintf(a, sizeof a, "Top kernel: %s (%s, device %d), %llu launch%s, %s, %.0f%% of all kernel time. ",
                 k->short_name, k->site >= 0 ? r->sites[k->site].site : "no target region", k->device,
                 (unsigned long long)k->count, k->count == 1 ? "" : "es", ot_report_time(k->total_ns, t, sizeof t),
                 percent(k->total_ns, kall));
    if (x)
        snprintf(b, sizeof b, "Top transfer site: %s %s, %llu transfer%s, %s in %s (%.2f GB/s), %.0f%% of "
                 "all transfer time.", r->sites[x->site].site,
                 x->direction == OT_RP_H2D ? "host->device" : "device->host", (unsigned long long)x->count,
                 x->count == 1 ? "" : "s", ot_report_bytes(x->bytes, by, sizeof by),
                 ot_report_time(x->ns, t, sizeof t), ot_report_gbps(x->bytes, x->ns), percent(x->ns, xall));
    if (!k && !x)
        snprintf(a, sizeof a, "No kernels and no transfers were recorded.");
    snprintf(out, size, "%s%s", a, b);
}

void ot_report_highlights(const ot_report *r, char out[3][OT_RP_HIGHLIGHT_SIZE])
{
    where_the_time_went(r, out[0], OT_RP_HIGHLIGHT_SIZE);
    biggest_finding(r, out[1], OT_RP_HIGHLIGHT_SIZE);
    top_items(r, out[2], OT_RP_HIGHLIGHT_SIZE);
    for (int i = 0; i < 3; i++) { /* a trailing space from the joins */
        size_t n = strlen(out[i]);
        while (n && out[i][n - 1] == ' ')
            out[i][--n] = '\0';
    }
}

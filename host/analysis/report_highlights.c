/**
 * \file report_highlights.c
 * \brief The three things a newcomer should read first: where the time in
 *        offload constructs went (start-up apart), the biggest finding, and
 *        the top kernel and transfer site; the start-up sentence and the
 *        outlier rule. Both printers show them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_ranks.h"

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Sentences are built with open_memstream: a name of any length stays whole. */
typedef struct sentence {
    FILE *f;
    char *text;
    size_t size;
} sentence;

static int sentence_open(sentence *t)
{
    t->text = NULL;
    t->size = 0;
    t->f = open_memstream(&t->text, &t->size);
    return t->f ? 0 : -1;
}

/* The text (malloc'd, trailing spaces from the joins removed), or NULL. */
static char *sentence_close(sentence *t)
{
    if (!t->f)
        return NULL;
    int bad = ferror(t->f);
    if (fclose(t->f) != 0 || bad) {
        free(t->text);
        return NULL;
    }
    size_t n = strlen(t->text);
    while (n && t->text[n - 1] == ' ')
        t->text[--n] = '\0';
    return t->text;
}

ot_rp_startup_total ot_report_startup_total(const ot_report *r)
{
    ot_rp_startup_total all = {0};
    for (size_t i = 0; i < r->device_count; i++) {
        const ot_rp_device *d = &r->devices[i];
        if (!d->startup.seen)
            continue;
        all.devices++;
        all.host_ns += d->startup.host_ns;
        all.kernel_ns += d->startup.kernel_ns;
        all.transfer_ns += d->startup.transfer_ns;
        all.alloc_ns += d->startup.alloc_ns;
    }
    return all;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

char *ot_report_startup_sentence(const ot_report *r)
{
    ot_rp_startup_total all = ot_report_startup_total(r);
    sentence t;
    if (!all.devices || sentence_open(&t) != 0)
        return NULL;
    char a[32], b[32], c[32], e[32], f[32];
    fprintf(t.f, "Start-up (what each device's first construct and first kernel launch cost beyond their "
            "sites' other runs; kept out of the shares below): %s.", ot_report_time(all.host_ns, a, sizeof a));
    for (size_t i = 0; i < r->device_count; i++) {
        const ot_rp_device *d = &r->devices[i];
        if (!d->startup.seen)
            continue;
        uint64_t rest = minus(d->startup.host_ns,
                              d->startup.kernel_ns + d->startup.transfer_ns + d->startup.alloc_ns);
        char dev[48];
        ot_report_device_name(r, d->device, dev, sizeof dev);
        dev[0] = (char)(dev[0] - 'a' + 'A'); /* "Device 0", "Rank 1 device 0" */
        fprintf(t.f, " %s: %s at %s%s%s (kernels %s, transfers %s, allocation/free %s, launch/runtime %s).",
                dev, ot_report_time(d->startup.host_ns, a, sizeof a),
                d->startup.site >= 0 ? r->sites[d->startup.site].name : "",
                d->startup.site >= 0 && d->startup.launch_site >= 0 ? " and the first launch at " : "",
                d->startup.launch_site >= 0 ? r->sites[d->startup.launch_site].name : "",
                ot_report_time(d->startup.kernel_ns, b, sizeof b), ot_report_time(d->startup.transfer_ns, c, sizeof c),
                ot_report_time(d->startup.alloc_ns, e, sizeof e), ot_report_time(rest, f, sizeof f));
    }
    return sentence_close(&t);
}

static void where_the_time_went(const ot_report *r, FILE *out)
{
    uint64_t host = 0, kernel = 0, transfer = 0, alloc = 0;
    for (size_t i = 0; i < r->site_count; i++) {
        const ot_rp_site *s = &r->sites[i];
        if (s->kind == OT_RP_OUTSIDE)
            continue;
        host += s->host_ns;
        kernel += s->kernel_ns;
        transfer += s->transfer_ns[0] + s->transfer_ns[1];
        alloc += s->alloc_ns;
    }
    char d[32], u[32];
    ot_report_time(r->summary.duration_ns, d, sizeof d);
    if (!host) {
        fprintf(out, "Nothing was offloaded in the %s traced: the archive holds no target constructs.", d);
        return;
    }
    ot_rp_startup_total up = ot_report_startup_total(r);
    fprintf(out, "%.0f%% of the %s traced is spent inside offload constructs", percent(r->summary.inside_ns,
            r->summary.duration_ns), d);
    host = minus(host, up.host_ns);
    kernel = minus(kernel, up.kernel_ns);
    transfer = minus(transfer, up.transfer_ns);
    alloc = minus(alloc, up.alloc_ns);
    if (up.devices)
        fprintf(out, ", %s of it start-up", ot_report_time(up.host_ns, u, sizeof u));
    if (!host) {
        fprintf(out, "; every construct was a device's first, so there are no shares after start-up.");
        return;
    }
    uint64_t rest = minus(host, kernel + transfer + alloc);
    fprintf(out, "; of the host's time there%s, %.0f%% goes to moving data, %.0f%% to kernels, %.0f%% to "
            "allocating and freeing device memory and %.0f%% to launch and runtime overhead.",
            up.devices ? " after start-up" : "", percent(transfer, host), percent(kernel, host),
            percent(alloc, host), percent(rest, host));
}

static void biggest_finding(const ot_report *r, FILE *out)
{
    if (!r->finding_count) {
        int tasks_or_locks = 0; /* recorded at level all */
        for (size_t i = 0; i < r->omp_site_count; i++)
            tasks_or_locks |= r->omp_sites[i].kind == OT_RP_OMP_TASK || r->omp_sites[i].kind == OT_RP_OMP_MUTEX;
        fprintf(out, "No findings: no repeated uploads, round trips, batchable tiny transfers, kernels "
                 "shorter than their launch, %s",
                 !r->summary.host_openmp_regions ? "or idle devices the host waited for."
                 : tasks_or_locks ? "idle devices the host waited for, imbalanced host loops, barrier-bound "
                                    "parallel regions, host phases that keep the device idle, tasks finer than "
                                    "their overhead, or contended locks."
                                  : "idle devices the host waited for, imbalanced host loops, "
                                    "barrier-bound parallel regions, or host phases that keep the device idle.");
        return;
    }
    const ot_rp_finding *f = &r->findings[0];
    char t[32], b[32], stake[96];
    if (f->bytes_at_stake)
        snprintf(stake, sizeof stake, "%s, %s", ot_report_time(f->ns_at_stake, t, sizeof t),
                 ot_report_bytes(f->bytes_at_stake, b, sizeof b));
    else
        snprintf(stake, sizeof stake, "%s", ot_report_time(f->ns_at_stake, t, sizeof t));
    fprintf(out, "Biggest finding (%s; %s at stake, %zu finding%s in all): %s",
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

static void top_items(const ot_report *r, FILE *out)
{
    uint64_t kall, xall;
    const ot_rp_kernel *k = top_kernel(r, &kall);
    const ot_rp_xsite *x = top_transfer_site(r, &xall);
    char t[32], by[32], dev[48];
    if (k)
        fprintf(out, "Top kernel: %s (%s, %s), %llu launch%s, %s, %.0f%% of all kernel time. ",
                k->short_name, k->site >= 0 ? r->sites[k->site].site : "no target region",
                ot_report_device_name(r, k->device, dev, sizeof dev),
                (unsigned long long)k->count, k->count == 1 ? "" : "es", ot_report_time(k->total_ns, t, sizeof t),
                percent(k->total_ns, kall));
    if (x)
        fprintf(out, "Top transfer site: %s %s, %llu transfer%s, %s in %s (%.2f GB/s), %.0f%% of "
                "all transfer time.", r->sites[x->site].site,
                x->direction == OT_RP_H2D ? "host->device" : "device->host", (unsigned long long)x->count,
                x->count == 1 ? "" : "s", ot_report_bytes(x->bytes, by, sizeof by),
                ot_report_time(x->ns, t, sizeof t), ot_report_gbps(x->bytes, x->ns), percent(x->ns, xall));
    if (!k && !x)
        fprintf(out, "No kernels and no transfers were recorded.");
}

int ot_report_highlights(const ot_report *r, char *out[OT_RP_HIGHLIGHTS])
{
    static void (*const lines[OT_RP_HIGHLIGHTS])(const ot_report *, FILE *) = {where_the_time_went,
                                                                            biggest_finding, top_items};
    int failed = 0;
    for (int i = 0; i < OT_RP_HIGHLIGHTS; i++) {
        sentence t;
        out[i] = NULL;
        if (failed || sentence_open(&t) != 0) {
            failed = 1;
            continue;
        }
        lines[i](r, t.f);
        out[i] = sentence_close(&t);
        failed |= !out[i];
    }
    if (failed)
        ot_report_highlights_free(out);
    return failed ? -ENOMEM : 0;
}

void ot_report_highlights_free(char *out[OT_RP_HIGHLIGHTS])
{
    for (int i = 0; i < OT_RP_HIGHLIGHTS; i++) {
        free(out[i]);
        out[i] = NULL;
    }
}

int ot_report_kernel_outlier(const ot_rp_kernel *k, uint64_t *others_mean)
{
    *others_mean = k->count > 1 ? (k->total_ns - k->max_ns) / (k->count - 1) : 0;
    return k->count > 1 && k->max_ns > (uint64_t)OT_RP_OUTLIER_FACTOR * *others_mean &&
           k->max_ns - *others_mean > OT_RP_OUTLIER_MIN_NS;
}

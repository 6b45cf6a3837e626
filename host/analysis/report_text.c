/**
 * \file report_text.c
 * \brief The human report: a header, the three highlights, then aligned
 *        tables (devices, transfers per device, constructs, kernels,
 *        transfer sites) and the findings, all within 100 columns.
 *
 * Units are ASCII ("us", not the micro sign) so that printf's widths are
 * display widths. Long names are cut with "...": site names lose their
 * beginning (the line number is what matters), kernel names their end.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_history.h"
#include "report_mpi.h"
#include "report_ranks.h"

#define WIDTH 100

/* \p text cut to \p width columns with "...", keeping its end or its start. */
static const char *fit(const char *text, size_t width, int keep_end, char *buf, size_t size)
{
    size_t n = strlen(text);
    if (n <= width || width < 4 || width >= size)
        return text;
    if (keep_end)
        snprintf(buf, size, "...%s", text + n - (width - 3));
    else
        snprintf(buf, size, "%.*s...", (int)(width - 3), text);
    return buf;
}

/* One paragraph, \p first before its first line, \p indent spaces before the others. */
static void wrap(FILE *to, const char *first, size_t indent, const char *text)
{
    size_t col = (size_t)fprintf(to, "%s", first);
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t word = strcspn(p, " ");
        if (!word)
            break;
        if (col > indent && col + 1 + word > WIDTH) {
            col = (size_t)fprintf(to, "\n%*s", (int)indent, "") - 1;
        } else if (col > indent && p != text)
            col += (size_t)fprintf(to, " ");
        col += (size_t)fprintf(to, "%.*s", (int)word, p);
        p += word;
    }
    fputc('\n', to);
}

static void more_rows(FILE *to, size_t shown, size_t all)
{
    if (shown < all)
        fprintf(to, "  (%zu more; --limit 0 shows all)\n", all - shown);
}

static size_t rows_to_show(const ot_rp_options *o, size_t all)
{
    return o->limit && o->limit < all ? o->limit : all;
}

static const char *sort_name(ot_rp_sort s)
{
    static const char *names[] = {"total time", "count", "mean time", "bytes", "name"};
    return names[s];
}

static void header(const ot_report *r, FILE *to)
{
    char d[32], cut[128];
    const char *creator = r->creator && r->creator[0] ? r->creator : "unknown creator";
    /* The archive path keeps its end (the run's name) so the line fits 100 columns. */
    size_t room = 100 - strlen("offtrace report:  ()") - (strlen(creator) < 40 ? strlen(creator) : 40);
    fprintf(to, "offtrace report: %s (%.40s)\n", fit(r->archive, room, 1, cut, sizeof cut), creator);
    fprintf(to, "%s traced, %llu host thread%s, %llu device%s\n", ot_report_time(r->summary.duration_ns, d, sizeof d),
            (unsigned long long)r->summary.host_threads, r->summary.host_threads == 1 ? "" : "s",
            (unsigned long long)r->summary.devices, r->summary.devices == 1 ? "" : "s");
    if (r->summary.partial[0])
        fprintf(to, "partial trace: %s\n", r->summary.partial);
    if (r->summary.measurement_off_switches) {
        char off[32];
        fprintf(to, "recording off %llu time%s by the program: %s not recorded (\"offtrace: measurement off\")\n",
                (unsigned long long)r->summary.measurement_off_switches,
                r->summary.measurement_off_switches == 1 ? "" : "s",
                ot_report_time(r->summary.measurement_off_ns, off, sizeof off));
    }
    char *h[OT_RP_HIGHLIGHTS], *startup = ot_report_startup_sentence(r);
    fputc('\n', to);
    if (startup)
        wrap(to, "    ", 4, startup);
    free(startup);
    if (ot_report_highlights(r, h) != 0) {
        fprintf(to, "    (out of memory: no highlights)\n");
        return;
    }
    for (int i = 0; i < OT_RP_HIGHLIGHTS; i++) {
        char first[8];
        snprintf(first, sizeof first, " %d. ", i + 1);
        wrap(to, first, 4, h[i]);
    }
    ot_report_highlights_free(h);
}

/* Once, under the highlights that name sites: a program built without -g
 * has every site as function+offset, which the compiler can fix without
 * changing the code it generates. */
static void sites_without_lines(const ot_report *r, FILE *to)
{
    size_t sites = 0, without = 0;
    const char *example = NULL;
    for (size_t i = 0; i < r->site_count; i++) {
        const ot_rp_site *s = &r->sites[i];
        if (s->kind == OT_RP_OUTSIDE || !strstr(s->name, " @")) /* named by no code site */
            continue;
        sites++;
        if (s->file[0] && s->line)
            continue;
        without++;
        if (!example)
            example = s->site;
    }
    if (!without)
        return;
    char text[256], cut[48];
    snprintf(text, sizeof text, "%zu of %zu sites are code addresses (%s), not source lines: compile with -g, or "
             "-gline-tables-only (optimisation unchanged), for file:line.", without, sites,
             fit(example, 40, 0, cut, sizeof cut));
    fputc('\n', to);
    wrap(to, "note: ", 6, text);
}

/* What a device's kernel times are, where they are not its launches' (a GPU's: issue 17). */
static void kernel_time_note(const ot_rp_device *d, FILE *to)
{
    char text[640], a[32], b[32], first[32];
    int n = 0;
    if (d->kernel_time == OT_RP_KERNEL_TIME_LAUNCH)
        return;
    snprintf(first, sizeof first, "  device %d: ", d->device);
    if (d->kernel_time == OT_RP_KERNEL_TIME_UNPAIRED) {
        wrap(to, first, 4, "its kernels ran on the device later than their launches, but this archive cannot "
                           "pair the two (it was written before a launch carried its host operation): kernel "
                           "time here is launch time, not the kernels' run on the device.");
        return;
    }
    n = snprintf(text, sizeof text, "kernel time is each kernel's run on the device, paired with its launch "
                 "(%llu kernels); launch to kernel start: mean %s, max %s.",
                 (unsigned long long)d->launches_paired,
                 ot_report_time(d->launches_paired ? d->latency_ns / d->launches_paired : 0, a, sizeof a),
                 ot_report_time(d->latency_max_ns, b, sizeof b));
    if (d->launches_unpaired && n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, " %llu launches whose kernel the device did not record "
                      "count their launch time.", (unsigned long long)d->launches_unpaired);
    if (d->device_kernels_unpaired && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, " %llu kernels on the device matched no launch and are not "
                 "counted.", (unsigned long long)d->device_kernels_unpaired);
    wrap(to, first, 4, text);
}

static void devices(const ot_report *r, FILE *to)
{
    char a[32], b[32], c[32], m[32], dev[48];
    int w = r->rank_count ? 20 : 3; /* a job's devices are named "rank R device D" */
    fprintf(to, "\nDevices\n  %*s %8s %11s %10s %10s %13s\n", w, "dev", "kernels", "kernel time", "mean", "max",
            "memory peak");
    for (size_t i = 0; i < r->device_count; i++) {
        const ot_rp_device *d = &r->devices[i];
        fprintf(to, "  %*s %8llu %11s %10s %10s %13s\n", w, ot_report_device_label(r, d->device, dev, sizeof dev),
                (unsigned long long)d->kernels,
                ot_report_time(d->kernel_ns, a, sizeof a),
                ot_report_time(d->kernels ? d->kernel_ns / d->kernels : 0, b, sizeof b),
                ot_report_time(d->kernel_max_ns, c, sizeof c), ot_report_bytes(d->memory_peak, m, sizeof m));
    }
    for (size_t i = 0; i < r->device_count; i++)
        kernel_time_note(&r->devices[i], to);
    fprintf(to, "\nTransfers per device (host-offload devices share the host's memory: theirs are memory copies)"
            "\n  %*s  %-12s %8s %11s %10s %8s\n", w, "dev", "direction", "count", "bytes",
            "time", "GB/s");
    for (size_t i = 0; i < r->device_count; i++)
        for (int dir = 0; dir < 2; dir++) {
            const ot_rp_device *d = &r->devices[i];
            fprintf(to, "  %*s  %-12s %8llu %11s %10s %8.2f\n", w, ot_report_device_label(r, d->device, dev, sizeof dev),
                    dir ? "device->host" : "host->device",
                    (unsigned long long)d->transfers[dir], ot_report_bytes(d->bytes[dir], a, sizeof a),
                    ot_report_time(d->transfer_ns[dir], b, sizeof b), ot_report_gbps(d->bytes[dir], d->transfer_ns[dir]));
        }
}

static const char *short_kind(const ot_rp_site *s)
{
    static const char *names[OT_RP_KINDS] = {"target", "enter", "exit", "update", "api", "none"};
    return s->kind == OT_RP_TARGET && s->nowait ? "target*" : names[s->kind];
}

static void constructs(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *order = ot_report_order(r, 's', o->sort, &n), shown = rows_to_show(o, n);
    int nowait = 0;
    fprintf(to, "\nConstructs by source line (host time; alloc = allocate/free, launch = launch/runtime; by %s)"
            "\n", sort_name(o->sort));
    fprintf(to, "  %-20s %-7s %6s %8s %8s %8s %8s %8s %8s %8s\n", "site", "kind", "count", "total", "mean",
            "kernels", "transfer", "alloc", "launch", "bytes");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_site *s = &r->sites[order[j]];
        char cut[32], t[6][32], b[32];
        uint64_t x = s->transfer_ns[0] + s->transfer_ns[1], used = s->kernel_ns + x + s->alloc_ns;
        nowait |= s->nowait && s->kind == OT_RP_TARGET;
        fprintf(to, "  %-20s %-7s %6llu %8s %8s %8s %8s %8s %8s %8s\n", fit(s->site, 20, 1, cut, sizeof cut),
                short_kind(s), (unsigned long long)s->count, ot_report_time(s->host_ns, t[0], 32),
                ot_report_time(s->count ? s->host_ns / s->count : 0, t[1], 32), ot_report_time(s->kernel_ns, t[2], 32),
                ot_report_time(x, t[3], 32), ot_report_time(s->alloc_ns, t[4], 32),
                ot_report_time(s->host_ns > used ? s->host_ns - used : 0, t[5], 32),
                ot_report_bytes(s->bytes[0] + s->bytes[1], b, sizeof b));
    }
    more_rows(to, shown, n);
    if (nowait)
        fprintf(to, "  * target nowait\n");
    free(order);
}

/* Every kernel whose slowest launch stands out (OT_RP_OUTLIER_*), not only the rows shown. */
static void outliers(const ot_report *r, FILE *to)
{
    for (size_t i = 0; i < r->kernel_count; i++) {
        const ot_rp_kernel *k = &r->kernels[i];
        uint64_t others;
        if (!ot_report_kernel_outlier(k, &others))
            continue;
        char *text = NULL, a[32], b[32];
        char dev[48];
        if (asprintf(&text, "%s on %s: its slowest launch took %s, %.0fx the %s mean of its other %llu "
                     "launch%s.", k->short_name, ot_report_device_name(r, k->device, dev, sizeof dev), ot_report_time(k->max_ns, a, sizeof a),
                     others ? (double)k->max_ns / (double)others : 0.0, ot_report_time(others, b, sizeof b),
                     (unsigned long long)(k->count - 1), k->count == 2 ? "" : "es") < 0)
            return;
        wrap(to, "  outlier: ", 11, text);
        free(text);
    }
}

static void kernels(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *order = ot_report_order(r, 'k', o->sort, &n), shown = rows_to_show(o, n);
    uint64_t all = 0;
    for (size_t i = 0; i < r->kernel_count; i++)
        all += r->kernels[i].total_ns;
    int w = ot_report_device_short_width(r);
    fprintf(to, "\nTop kernels (by %s)\n  %-28s %-22s %*s %6s %8s %8s %8s %5s\n", sort_name(o->sort), "kernel",
            "launched at", w, r->rank_count ? "r:dev" : "dev", "count", "total", "mean", "max", "share");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_kernel *k = &r->kernels[order[j]];
        char c1[40], c2[32], t[3][32], dev[32];
        fprintf(to, "  %-28s %-22s %*s %6llu %8s %8s %8s %4.0f%%\n", fit(k->short_name, 28, 0, c1, sizeof c1),
                k->site >= 0 ? fit(r->sites[k->site].site, 22, 1, c2, sizeof c2) : "-", w,
                ot_report_device_short(r, k->device, dev, sizeof dev),
                (unsigned long long)k->count, ot_report_time(k->total_ns, t[0], 32),
                ot_report_time(k->count ? k->total_ns / k->count : 0, t[1], 32), ot_report_time(k->max_ns, t[2], 32),
                all ? 100.0 * (double)k->total_ns / (double)all : 0.0);
    }
    if (!n)
        fprintf(to, "  (none)\n");
    more_rows(to, shown, n);
    free(order);
    outliers(r, to);
}

static void transfer_sites(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *order = ot_report_order(r, 'x', o->sort, &n), shown = rows_to_show(o, n);
    int w = ot_report_device_short_width(r);
    fprintf(to, "\nTop transfer sites (by %s)\n  %-24s %-7s %-12s %*s %6s %9s %8s %7s %9s\n", sort_name(o->sort),
            "site", "kind", "direction", w, r->rank_count ? "r:dev" : "dev", "count", "bytes", "time", "GB/s", "mean size");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_xsite *x = &r->xsites[order[j]];
        const ot_rp_site *s = &r->sites[x->site];
        char cut[32], b[32], t[32], m[32], dev[32];
        fprintf(to, "  %-24s %-7s %-12s %*s %6llu %9s %8s %7.2f %9s\n", fit(s->site, 24, 1, cut, sizeof cut),
                short_kind(s), x->direction == OT_RP_H2D ? "host->device" : "device->host", w,
                ot_report_device_short(r, x->device, dev, sizeof dev),
                (unsigned long long)x->count, ot_report_bytes(x->bytes, b, sizeof b), ot_report_time(x->ns, t, sizeof t),
                ot_report_gbps(x->bytes, x->ns), ot_report_bytes(x->count ? x->bytes / x->count : 0, m, sizeof m));
    }
    if (!n)
        fprintf(to, "  (none)\n");
    more_rows(to, shown, n);
    free(order);
}

static void findings(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n = r->finding_count, shown = rows_to_show(o, n);
    fprintf(to, "\nFindings (%zu, largest time at stake first; share/doc/offtrace/report.md explains each)\n", n);
    if (!n)
        fprintf(to, "  (none)\n");
    for (size_t i = 0; i < shown; i++) {
        const ot_rp_finding *f = &r->findings[i];
        char first[160], t[32], b[32];
        int k = snprintf(first, sizeof first, "  %zu. [%s] %s at stake", i + 1, ot_report_finding_title(f->kind),
                         ot_report_time(f->ns_at_stake, t, sizeof t));
        if (f->bytes_at_stake && k > 0 && (size_t)k < sizeof first)
            snprintf(first + k, sizeof first - (size_t)k, ", %s", ot_report_bytes(f->bytes_at_stake, b, sizeof b));
        fprintf(to, "%s\n", first);
        wrap(to, "     ", 5, f->message);
    }
    more_rows(to, shown, n);
}

static void notes(const ot_report *r, FILE *to)
{
    const ot_rp_summary *s = &r->summary;
    if (s->unattributed_kernels)
        fprintf(to, "note: %llu kernels ran outside every open target region and count for no construct\n",
                (unsigned long long)s->unattributed_kernels);
    if (s->transfers_without_address)
        fprintf(to, "note: %llu transfers carry no host address (an older archive): no repeated-upload or "
                "round-trip findings for them\n", (unsigned long long)s->transfers_without_address);
    if (s->history_evictions)
        fprintf(to, "note: the range history (%d ranges) forgot %llu ranges: findings 1 and 2 may miss "
                "some\n", RP_HISTORY_SETS * RP_HISTORY_WAYS, (unsigned long long)s->history_evictions);
    if (s->unmatched_completions)
        fprintf(to, "note: %llu transfer completions had no put/get\n", (unsigned long long)s->unmatched_completions);
}

void ot_report_print_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    header(r, to);
    sites_without_lines(r, to);
    ot_report_print_ranks_text(r, to);
    ot_report_print_mpi_text(r, o, to);
    devices(r, to);
    constructs(r, o, to);
    kernels(r, o, to);
    transfer_sites(r, o, to);
    ot_report_print_omp_text(r, o, to);
    ot_report_print_user_text(r, o, to);
    ot_report_print_variables_text(r, o, to);
    findings(r, o, to);
    notes(r, to);
}

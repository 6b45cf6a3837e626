/**
 * \file report_json.c
 * \brief The report as one JSON object for machines: summary (with the
 *        three highlights), devices, constructs, kernels, transfer_sites,
 *        findings. Times are integer nanoseconds ("_ns"), sizes integer
 *        bytes; rows follow --sort, and --limit when one is given.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "report_mpi.h"
#include "report_ranks.h"

void ot_report_json_string(FILE *to, const char *s)
{
    fputc('"', to);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(to, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", to);
        else if (*p == '\t')
            fputs("\\t", to);
        else if (*p < 0x20)
            fprintf(to, "\\u%04x", *p);
        else
            fputc(*p, to);
    }
    fputc('"', to);
}

static void field(FILE *to, const char *name, const char *value, int comma)
{
    fprintf(to, "\"%s\": ", name);
    ot_report_json_string(to, value);
    if (comma)
        fputs(", ", to);
}

static void number(FILE *to, const char *name, uint64_t value, int comma)
{
    fprintf(to, "\"%s\": %llu%s", name, (unsigned long long)value, comma ? ", " : "");
}

static void summary(const ot_report *r, FILE *to)
{
    const ot_rp_summary *s = &r->summary;
    char *h[OT_RP_HIGHLIGHTS];
    int no_highlights = ot_report_highlights(r, h) != 0;
    ot_rp_startup_total up = ot_report_startup_total(r);
    fputs("  \"summary\": {", to);
    number(to, "duration_ns", s->duration_ns, 1);
    number(to, "inside_constructs_ns", s->inside_ns, 1);
    number(to, "host_threads", s->host_threads, 1);
    number(to, "devices", s->devices, 1);
    fputs("\"constructs\": {", to);
    for (int k = 0; k < OT_RP_KINDS; k++) {
        fprintf(to, "\"%s\": %llu", ot_report_kind_id((ot_rp_kind)k), (unsigned long long)s->constructs[k]);
        fputs(k + 1 < OT_RP_KINDS ? ", " : "}, ", to);
    }
    number(to, "target_data_regions", s->data_regions, 1);
    number(to, "unattributed_kernels", s->unattributed_kernels, 1);
    number(to, "unmatched_completions", s->unmatched_completions, 1);
    number(to, "transfers_without_address", s->transfers_without_address, 1);
    number(to, "history_evictions", s->history_evictions, 1);
    field(to, "partial", s->partial, 1);
    fputs("\"startup\": {", to);
    number(to, "devices", up.devices, 1);
    number(to, "host_time_ns", up.host_ns, 1);
    number(to, "kernel_time_ns", up.kernel_ns, 1);
    number(to, "transfer_time_ns", up.transfer_ns, 1);
    number(to, "alloc_free_ns", up.alloc_ns, 0);
    fputs("}, \"highlights\": [", to);
    for (int i = 0; i < OT_RP_HIGHLIGHTS; i++) {
        ot_report_json_string(to, no_highlights ? "" : h[i]);
        fputs(i + 1 < OT_RP_HIGHLIGHTS ? ", " : "]},\n", to);
    }
    if (!no_highlights)
        ot_report_highlights_free(h);
}

static void transfers(FILE *to, const uint64_t count[2], const uint64_t bytes[2], const uint64_t ns[2])
{
    static const char *names[2] = {"host_to_device", "device_to_host"};
    for (int d = 0; d < 2; d++)
        fprintf(to, "\"%s\": {\"count\": %llu, \"bytes\": %llu, \"time_ns\": %llu, \"gbps\": %.3f}%s", names[d],
                (unsigned long long)count[d], (unsigned long long)bytes[d], (unsigned long long)ns[d],
                ot_report_gbps(bytes[d], ns[d]), d ? "" : ", ");
}

static void devices(const ot_report *r, FILE *to)
{
    fputs("  \"devices\": [", to);
    for (size_t i = 0; i < r->device_count; i++) {
        const ot_rp_device *d = &r->devices[i];
        fprintf(to, "%s\n    {", i ? "," : "");
        ot_report_device_json(r, d->device, to);
        number(to, "kernels", d->kernels, 1);
        number(to, "kernel_time_ns", d->kernel_ns, 1);
        number(to, "kernel_mean_ns", d->kernels ? d->kernel_ns / d->kernels : 0, 1);
        number(to, "kernel_max_ns", d->kernel_max_ns, 1);
        if (d->kernel_time == OT_RP_KERNEL_TIME_UNPAIRED) /* a GPU's (issue 17); absent: launch spans */
            field(to, "kernel_time_source", "launch_unpaired", 1);
        if (d->kernel_time == OT_RP_KERNEL_TIME_DEVICE) {
            field(to, "kernel_time_source", "device", 1);
            number(to, "launches_paired", d->launches_paired, 1);
            number(to, "launches_unpaired", d->launches_unpaired, 1);
            number(to, "device_kernels_unpaired", d->device_kernels_unpaired, 1);
            number(to, "launch_latency_mean_ns", d->launches_paired ? d->latency_ns / d->launches_paired : 0, 1);
            number(to, "launch_latency_max_ns", d->latency_max_ns, 1);
        }
        transfers(to, d->transfers, d->bytes, d->transfer_ns);
        fputs(", ", to);
        number(to, "memory_peak_bytes", d->memory_peak, 1);
        fputs("\"startup\": {", to);
        field(to, "site", d->startup.site >= 0 ? r->sites[d->startup.site].site : "", 1);
        field(to, "launch_site", d->startup.launch_site >= 0 ? r->sites[d->startup.launch_site].site : "", 1);
        number(to, "host_time_ns", d->startup.host_ns, 1);
        number(to, "kernel_time_ns", d->startup.kernel_ns, 1);
        number(to, "transfer_time_ns", d->startup.transfer_ns, 1);
        number(to, "alloc_free_ns", d->startup.alloc_ns, 0);
        fputs("}}", to);
    }
    fputs("],\n", to);
}

static void construct(const ot_report *r, size_t i, FILE *to)
{
    const ot_rp_site *s = &r->sites[i];
    uint64_t x = s->transfer_ns[0] + s->transfer_ns[1], used = s->kernel_ns + x;
    fputc('{', to);
    field(to, "site", s->site, 1);
    field(to, "name", s->name, 1);
    field(to, "file", s->file, 1);
    number(to, "line", s->line, 1);
    field(to, "kind", ot_report_kind_id(s->kind), 1);
    fprintf(to, "\"nowait\": %s, ", s->nowait ? "true" : "false");
    ot_report_device_json(r, s->device, to);
    number(to, "count", s->count, 1);
    number(to, "host_time_ns", s->host_ns, 1);
    number(to, "mean_ns", s->count ? s->host_ns / s->count : 0, 1);
    number(to, "max_ns", s->max_ns, 1);
    number(to, "kernels", s->kernels, 1);
    number(to, "kernel_time_ns", s->kernel_ns, 1);
    number(to, "transfer_time_ns", x, 1);
    number(to, "rest_ns", s->host_ns > used ? s->host_ns - used : 0, 1);
    number(to, "launch_runtime_ns", s->host_ns > used + s->alloc_ns ? s->host_ns - used - s->alloc_ns : 0, 1);
    number(to, "device_idle_ns", s->host_ns > s->busy_ns ? s->host_ns - s->busy_ns : 0, 1);
    number(to, "alloc_free_ns", s->alloc_ns, 1);
    transfers(to, s->transfers, s->bytes, s->transfer_ns);
    fputc('}', to);
}

static void kernel(const ot_report *r, size_t i, FILE *to)
{
    const ot_rp_kernel *k = &r->kernels[i];
    fputc('{', to);
    field(to, "name", k->name, 1);
    field(to, "short_name", k->short_name, 1);
    field(to, "site", k->site >= 0 ? r->sites[k->site].site : "", 1);
    ot_report_device_json(r, k->device, to);
    number(to, "count", k->count, 1);
    number(to, "total_ns", k->total_ns, 1);
    number(to, "mean_ns", k->count ? k->total_ns / k->count : 0, 1);
    number(to, "max_ns", k->max_ns, 1);
    uint64_t others;
    int outlier = ot_report_kernel_outlier(k, &others);
    fprintf(to, "\"outlier\": %s, ", outlier ? "true" : "false");
    number(to, "others_mean_ns", others, 0);
    fputc('}', to);
}

static void xsite(const ot_report *r, size_t i, FILE *to)
{
    const ot_rp_xsite *x = &r->xsites[i];
    const ot_rp_site *s = &r->sites[x->site];
    fputc('{', to);
    field(to, "site", s->site, 1);
    field(to, "kind", ot_report_kind_id(s->kind), 1);
    field(to, "direction", x->direction == OT_RP_H2D ? "host->device" : "device->host", 1);
    ot_report_device_json(r, x->device, to);
    number(to, "count", x->count, 1);
    number(to, "bytes", x->bytes, 1);
    number(to, "time_ns", x->ns, 1);
    fprintf(to, "\"gbps\": %.3f, ", ot_report_gbps(x->bytes, x->ns));
    number(to, "min_bytes", x->count ? x->min_bytes : 0, 1);
    number(to, "max_bytes", x->max_bytes, 0);
    fputc('}', to);
}

static void table(const ot_report *r, const ot_rp_options *o, FILE *to, const char *name, char which,
                  void (*row)(const ot_report *, size_t, FILE *), int comma)
{
    size_t n, *order = ot_report_order(r, which, o->sort, &n);
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fprintf(to, "  \"%s\": [", name);
    for (size_t j = 0; j < shown; j++) {
        fputs(j ? ",\n    " : "\n    ", to);
        row(r, order[j], to);
    }
    fprintf(to, "]%s\n", comma ? "," : "");
    free(order);
}

static void findings(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t shown = o->limit && o->limit < r->finding_count ? o->limit : r->finding_count;
    fputs("  \"findings\": [", to);
    for (size_t i = 0; i < shown; i++) {
        const ot_rp_finding *f = &r->findings[i];
        fputs(i ? ",\n    {" : "\n    {", to);
        field(to, "kind", ot_report_finding_id(f->kind), 1);
        if (f->site >= 0) {
            const ot_rp_site *s = &r->sites[f->site];
            field(to, "site", s->site, 1);
            field(to, "file", s->file, 1);
            number(to, "line", s->line, 1);
            field(to, "construct", ot_report_kind_id(s->kind), 1);
        } else if (f->omp_site < 0) { /* an MPI finding: no site, its worst rank */
            field(to, "site", "", 1);
            field(to, "file", "", 1);
            number(to, "line", 0, 1);
            field(to, "construct", "mpi", 1);
            number(to, "worst_rank", (uint64_t)f->rank, 1);
        } else { /* a host OpenMP finding: its loop or parallel region */
            const ot_rp_omp_site *s = &r->omp_sites[f->omp_site];
            field(to, "site", s->site, 1);
            field(to, "file", s->file, 1);
            number(to, "line", s->line, 1);
            field(to, "construct", ot_report_omp_kind_id(s->kind), 1);
        }
        field(to, "host_openmp_site", f->omp_site >= 0 ? r->omp_sites[f->omp_site].name : "", 1);
        field(to, "other_site", f->other_site >= 0 ? r->sites[f->other_site].site : "", 1);
        ot_report_device_json(r, f->device, to);
        number(to, "count", f->count, 1);
        number(to, "bytes_at_stake", f->bytes_at_stake, 1);
        number(to, "time_at_stake_ns", f->ns_at_stake, 1);
        field(to, "message", f->message, 0);
        ot_report_named_json(r, &f->variables, to);
        fputc('}', to);
    }
    fputs("]\n", to);
}

void ot_report_print_json(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    fputs("{\n  ", to);
    field(to, "archive", r->archive, 1);
    field(to, "creator", r->creator ? r->creator : "", 0);
    fputs(",\n", to);
    summary(r, to);
    ot_report_print_ranks_json(r, to);
    ot_report_print_mpi_json(r, o, to);
    devices(r, to);
    table(r, o, to, "constructs", 's', construct, 1);
    table(r, o, to, "kernels", 'k', kernel, 1);
    table(r, o, to, "transfer_sites", 'x', xsite, 1);
    ot_report_print_omp_json(r, o, to);
    ot_report_print_user_json(r, o, to);
    ot_report_print_variables_json(r, o, to);
    findings(r, o, to);
    fputs("}\n", to);
}

/**
 * \file report_rows.c
 * \brief What both printers of the report share: row order, names of kinds,
 *        units, and freeing the report.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_mpi.h"
#include "report_mpi_waits.h"

typedef struct sort_context {
    const ot_report *r;
    char which;
    ot_rp_sort sort;
} sort_context;

typedef struct row_key {
    uint64_t total, count, bytes;
    const char *name;
    int tie; /* kind or direction: keeps equal names apart */
} row_key;

static row_key key_of(const sort_context *c, size_t i)
{
    const ot_report *r = c->r;
    if (c->which == 's') {
        const ot_rp_site *s = &r->sites[i];
        return (row_key){s->host_ns, s->count, s->bytes[0] + s->bytes[1], s->site, (int)s->kind};
    }
    if (c->which == 'k') {
        const ot_rp_kernel *k = &r->kernels[i];
        return (row_key){k->total_ns, k->count, 0, k->short_name, k->device};
    }
    const ot_rp_xsite *x = &r->xsites[i];
    return (row_key){x->ns, x->count, x->bytes, r->sites[x->site].site, x->direction * 65536 + x->device};
}

static int by_name(const row_key *a, const row_key *b)
{
    int c = strcmp(a->name, b->name);
    return c ? c : (a->tie > b->tie) - (a->tie < b->tie);
}

static int descending(uint64_t a, uint64_t b)
{
    return (a < b) - (a > b);
}

static int compare_rows(const void *pa, const void *pb, void *context)
{
    const sort_context *c = context;
    row_key a = key_of(c, *(const size_t *)pa), b = key_of(c, *(const size_t *)pb);
    int d = 0;
    switch (c->sort) {
    case OT_RP_SORT_COUNT: d = descending(a.count, b.count); break;
    case OT_RP_SORT_MEAN: d = descending(a.count ? a.total / a.count : 0, b.count ? b.total / b.count : 0); break;
    case OT_RP_SORT_BYTES: d = descending(a.bytes, b.bytes); break;
    case OT_RP_SORT_NAME: break;
    case OT_RP_SORT_TOTAL: break;
    }
    if (!d && c->sort != OT_RP_SORT_NAME)
        d = descending(a.total, b.total); /* kernels have no bytes: --sort bytes orders them by time */
    return d ? d : by_name(&a, &b);
}

size_t *ot_report_order(const ot_report *r, char which, ot_rp_sort sort, size_t *count)
{
    size_t n = which == 's' ? r->site_count : which == 'k' ? r->kernel_count : r->xsite_count;
    *count = n;
    if (!n)
        return NULL;
    size_t *order = malloc(n * sizeof *order);
    if (!order) {
        *count = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_context c = {r, which, sort};
    qsort_r(order, n, sizeof *order, compare_rows, &c);
    return order;
}

const char *ot_report_kind_id(ot_rp_kind k)
{
    static const char *ids[OT_RP_KINDS] = {"target", "enter_data", "exit_data", "update", "api", "outside"};
    return k < OT_RP_KINDS ? ids[k] : "?";
}

const char *ot_report_finding_title(ot_rp_finding_kind k)
{
    static const char *titles[OT_RP_FINDING_KINDS] = {"repeated upload", "round trip", "tiny transfers",
                                                      "kernels shorter than their launch", "device idle",
                                                      "load imbalance in a loop", "barrier wait dominates",
                                                      "host work serialises the offload",
                                                      "tasks finer than their overhead", "lock contention",
                                                      "implicit maps that cost", "late sender", "late receiver",
                                                      "wait at collective", "devices idle while MPI waits"};
    return k < OT_RP_FINDING_KINDS ? titles[k] : "?";
}

const char *ot_report_finding_id(ot_rp_finding_kind k)
{
    static const char *ids[OT_RP_FINDING_KINDS] = {"repeated_upload", "round_trip", "tiny_transfers",
                                                   "short_kernels", "device_idle", "loop_imbalance",
                                                   "barrier_wait", "host_serialises_offload", "fine_tasks",
                                                   "lock_contention", "implicit_maps", "late_sender",
                                                   "late_receiver", "collective_wait", "mpi_devices_idle"};
    return k < OT_RP_FINDING_KINDS ? ids[k] : "?";
}

/* Three significant digits ("1.23", "12.3", "123"; below 1024 of a unit),
 * so that number and unit take at most 8 columns. */
static char *scaled(double value, const char *unit, char *buf, size_t size)
{
    int decimals = value < 9.995 ? 2 : value < 99.95 ? 1 : 0;
    snprintf(buf, size, "%.*f %s", decimals, value, unit);
    return buf;
}

char *ot_report_time(uint64_t ns, char *buf, size_t size)
{
    if (ns < 1000) {
        snprintf(buf, size, "%llu ns", (unsigned long long)ns);
        return buf;
    }
    if (ns < 1000000)
        return scaled((double)ns / 1e3, "us", buf, size);
    if (ns < 1000000000)
        return scaled((double)ns / 1e6, "ms", buf, size);
    return scaled((double)ns / 1e9, "s", buf, size);
}

char *ot_report_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) {
        v /= 1024;
        u++;
    }
    return scaled(v, units[u], buf, size);
}

double ot_report_gbps(uint64_t bytes, uint64_t ns)
{
    return ns ? (double)bytes / (double)ns : 0.0; /* bytes per ns = GB/s */
}

void ot_report_free(ot_report *r)
{
    free(r->ranks);
    ot_report_mpi_free(r);
    ot_report_mpi_waits_free(r);
    for (size_t i = 0; i < r->site_count; i++) {
        free(r->sites[i].name);
        free(r->sites[i].site);
        free(r->sites[i].file);
    }
    for (size_t i = 0; i < r->kernel_count; i++) {
        free(r->kernels[i].name);
        free(r->kernels[i].short_name);
    }
    for (size_t i = 0; i < r->omp_site_count; i++) {
        ot_rp_omp_site *x = &r->omp_sites[i];
        free(x->name);
        free(x->site);
        free(x->file);
        free(x->thread_busy_ns);
        free(x->bin_ns);
        free(x->bin_iterations);
    }
    free(r->omp_sites);
    free(r->gaps);
    ot_report_user_free(r);
    ot_report_variables_free(r);
    free(r->sites);
    free(r->kernels);
    free(r->xsites);
    free(r->devices);
    free(r->findings);
    free(r->archive);
    free(r->creator);
    memset(r, 0, sizeof *r);
}

/* ---- host OpenMP rows ---- */

static const ot_report *omp_order_report; /* qsort has no context argument */

static int by_omp_time(const void *pa, const void *pb)
{
    const ot_rp_omp_site *a = &omp_order_report->omp_sites[*(const size_t *)pa];
    const ot_rp_omp_site *b = &omp_order_report->omp_sites[*(const size_t *)pb];
    uint64_t ta = a->kind == OT_RP_OMP_SYNC || a->kind == OT_RP_OMP_MUTEX ? a->wait_ns : a->wall_ns;
    uint64_t tb = b->kind == OT_RP_OMP_SYNC || b->kind == OT_RP_OMP_MUTEX ? b->wait_ns : b->wall_ns;
    if (ta != tb)
        return ta > tb ? -1 : 1;
    return strcmp(a->site, b->site);
}

size_t *ot_report_omp_order(const ot_report *r, ot_rp_omp_kind kind, size_t *count)
{
    *count = 0;
    size_t *rows = malloc((r->omp_site_count ? r->omp_site_count : 1) * sizeof *rows);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < r->omp_site_count; i++)
        if (r->omp_sites[i].kind == kind && r->omp_sites[i].instances)
            rows[(*count)++] = i;
    if (!*count) {
        free(rows);
        return NULL;
    }
    omp_order_report = r;
    qsort(rows, *count, sizeof *rows, by_omp_time);
    return rows;
}

double ot_report_loop_imbalance(const ot_rp_omp_site *s)
{
    return s->busy_mean_ns ? (double)s->busy_max_ns / (double)s->busy_mean_ns : 0.0;
}

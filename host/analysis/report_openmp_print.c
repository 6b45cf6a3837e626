/**
 * \file report_openmp_print.c
 * \brief The host OpenMP tables of `offtrace report` (docs/report.md, "Host
 *        OpenMP"), as text and as the "host_openmp" member of the JSON
 *        object. Shown only when the archive holds host OpenMP regions; the
 *        task and lock tables only when it holds tasks or locks (level all).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *ot_report_omp_kind_id(ot_rp_omp_kind k)
{
    static const char *ids[OT_RP_OMP_KINDS] = {"parallel", "loop", "sync", "task", "mutex"};
    return k < OT_RP_OMP_KINDS ? ids[k] : "?";
}

static size_t shown_rows(const ot_rp_options *o, size_t all)
{
    return o->limit && o->limit < all ? o->limit : all;
}

/* The last \p width characters of \p s (a site's end is its line). */
static const char *tail(const char *s, size_t width)
{
    size_t n = strlen(s);
    return n > width ? s + n - width : s;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void range_text(const ot_rp_range *g, char *buf, size_t size)
{
    if (g->count == 1)
        snprintf(buf, size, "%llu", (unsigned long long)g->first);
    else
        snprintf(buf, size, "%llu-%llu", (unsigned long long)g->first, (unsigned long long)(g->first + g->count - 1));
}

/* ---- text ---- */

static void parallel_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_omp_order(r, OT_RP_OMP_PARALLEL, &n), shown = shown_rows(o, n);
    fprintf(to, "\nHost OpenMP parallel regions by source line (wait = threads waiting in barriers)\n");
    fprintf(to, "  %-24s %9s %7s %9s %9s %9s %6s\n", "site", "instances", "threads", "total", "mean", "wait",
            "wait%");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_omp_site *x = &r->omp_sites[rows[j]];
        char t[3][32];
        fprintf(to, "  %-24s %9llu %7u %9s %9s %9s %5.0f%%\n", tail(x->site, 24), (unsigned long long)x->instances,
                x->threads, ot_report_time(x->wall_ns, t[0], 32),
                ot_report_time(x->instances ? x->wall_ns / x->instances : 0, t[1], 32),
                ot_report_time(x->wait_ns, t[2], 32), share(x->wait_ns, x->thread_ns));
    }
    if (!n)
        fprintf(to, "  (none)\n");
    else if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    free(rows);
}

static void loops_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_omp_order(r, OT_RP_OMP_LOOP, &n), shown = shown_rows(o, n);
    fprintf(to, "\nHost OpenMP loops by source line (imbalance = busiest thread / mean; slowest iteration ranges)"
            "\n");
    fprintf(to, "  %-24s %-9s %9s %10s %9s %9s %9s\n", "site", "schedule", "instances", "trip", "total", "busy",
            "imbalance");
    int varies = 0;
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_omp_site *x = &r->omp_sites[rows[j]];
        char t[3][32], trip[24];
        varies |= x->trip_varies;
        snprintf(trip, sizeof trip, "%llu%s", (unsigned long long)x->trip, x->trip_varies ? "*" : "");
        fprintf(to, "  %-24s %-9s %9llu %10s %9s %9s %8.2fx\n", tail(x->site, 24),
                x->schedule[0] ? x->schedule : "-", (unsigned long long)x->instances, trip,
                ot_report_time(x->wall_ns, t[0], 32), ot_report_time(x->busy_ns, t[1], 32),
                ot_report_loop_imbalance(x));
        for (uint32_t k = 0; k < x->slow_count; k++) {
            char g[48];
            range_text(&x->slow[k], g, sizeof g);
            fprintf(to, "      slow: iterations %s (%llu), %s, %s per iteration\n", g,
                    (unsigned long long)x->slow[k].count, ot_report_time(x->slow[k].ns, t[0], 32),
                    ot_report_time(x->slow[k].ns / x->slow[k].executed, t[1], 32));
        }
    }
    if (!n)
        fprintf(to, "  (none)\n");
    else if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    if (varies)
        fprintf(to, "  * the trip count differs between instances (the first one's is shown)\n");
    free(rows);
}

static void sync_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_omp_order(r, OT_RP_OMP_SYNC, &n), shown = shown_rows(o, n);
    fprintf(to, "\nHost OpenMP barriers and task waits by source line (wait over all threads)\n");
    fprintf(to, "  %-60s %9s %9s\n", "region", "instances", "wait");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_omp_site *x = &r->omp_sites[rows[j]];
        char t[32];
        fprintf(to, "  %-60s %9llu %9s\n", tail(x->name, 60), (unsigned long long)x->instances,
                ot_report_time(x->wait_ns, t, sizeof t));
    }
    if (!n)
        fprintf(to, "  (none)\n");
    else if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    free(rows);
}

/* "undeferred 3, final 1" (none: "-") */
static void flags_text(const ot_rp_omp_site *x, char *buf, size_t size)
{
    const struct { const char *name; uint64_t n; } f[] = {{"undeferred", x->undeferred}, {"final", x->final},
                                                          {"untied", x->untied}, {"mergeable", x->mergeable},
                                                          {"target", x->target},
                                                          {"taskwait", x->taskwait}};
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0] && k < size; i++)
        if (f[i].n) {
            int n = snprintf(buf + k, size - k, "%s%s %llu", k ? ", " : "", f[i].name, (unsigned long long)f[i].n);
            k += n > 0 ? (size_t)n : 0;
        }
    if (!buf[0])
        snprintf(buf, size, "-");
}

static void tasks_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_omp_order(r, OT_RP_OMP_TASK, &n), shown = shown_rows(o, n);
    if (!n)
        return;
    fprintf(to, "\nHost OpenMP explicit tasks by creation site (run = its periods less the tasks and waits in\n"
            "  them; periods per task; delay = creation to first period)\n");
    fprintf(to, "  %-24s %9s %9s %9s %7s %10s  %s\n", "site", "tasks", "run", "mean run", "periods", "mean delay",
            "flags");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_omp_site *x = &r->omp_sites[rows[j]];
        char t[3][32], flags[128];
        flags_text(x, flags, sizeof flags);
        int wide = strlen(flags) > 21; /* the flags of a site with several: on a line of their own */
        fprintf(to, "  %-24s %9llu %9s %9s %7.2f %10s  %s\n", tail(x->site, 24), (unsigned long long)x->instances,
                ot_report_time(x->run_ns, t[0], 32),
                ot_report_time(x->instances ? x->run_ns / x->instances : 0, t[1], 32),
                x->instances ? (double)x->periods / (double)x->instances : 0.0,
                x->started ? ot_report_time(x->delay_ns / x->started, t[2], 32) : "-", wide ? "" : flags);
        if (wide)
            fprintf(to, "      flags: %s\n", flags);
    }
    if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    free(rows);
}

static void mutex_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_omp_order(r, OT_RP_OMP_MUTEX, &n), shown = shown_rows(o, n);
    if (!n)
        return;
    fprintf(to, "\nHost OpenMP locks and critical sections by source line (mean: per acquisition; cont. = wait /\n"
            "  (wait + hold); max = most threads waiting at once)\n");
    fprintf(to, "  %-22s %-18s %8s %8s %8s %8s %8s %5s %4s\n", "site", "kind", "acquired", "hold", "mean", "wait",
            "mean", "cont.", "max");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_omp_site *x = &r->omp_sites[rows[j]];
        char t[4][32];
        fprintf(to, "  %-22s %-18s %8llu %8s %8s %8s %8s %4.0f%% %4u\n", tail(x->site, 22), x->mutex,
                (unsigned long long)x->instances, ot_report_time(x->hold_ns, t[0], 32),
                ot_report_time(x->instances ? x->hold_ns / x->instances : 0, t[1], 32),
                ot_report_time(x->wait_ns, t[2], 32),
                ot_report_time(x->instances ? x->wait_ns / x->instances : 0, t[3], 32),
                share(x->wait_ns, x->wait_ns + x->hold_ns), x->max_waiters);
    }
    if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    free(rows);
}

static void gaps_text(const ot_report *r, FILE *to)
{
    if (!r->gap_count)
        return;
    fprintf(to, "\nBetween target regions of one host thread (idle = the device did nothing)\n");
    fprintf(to, "  %-20s %-20s %3s %6s %9s %9s %9s %9s\n", "after", "before", "dev", "gaps", "time", "idle",
            "serial", "waiting");
    for (size_t i = 0; i < r->gap_count; i++) {
        const ot_rp_gap *g = &r->gaps[i];
        char t[4][32];
        fprintf(to, "  %-20s %-20s %3d %6llu %9s %9s %9s %9s\n", tail(r->sites[g->from_site].site, 20),
                tail(r->sites[g->to_site].site, 20), g->device, (unsigned long long)g->count,
                ot_report_time(g->gap_ns, t[0], 32), ot_report_time(g->idle_ns, t[1], 32),
                ot_report_time(g->serial_ns, t[2], 32), ot_report_time(g->wait_ns, t[3], 32));
    }
}

void ot_report_print_omp_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    if (!r->summary.host_openmp_regions)
        return;
    parallel_text(r, o, to);
    loops_text(r, o, to);
    sync_text(r, o, to);
    tasks_text(r, o, to);
    mutex_text(r, o, to);
    gaps_text(r, to);
}

/* ---- JSON ---- */

static void json_site(FILE *to, const ot_rp_omp_site *x)
{
    fputs("\"name\": ", to);
    ot_report_json_string(to, x->name);
    fputs(", \"site\": ", to);
    ot_report_json_string(to, x->site);
    fputs(", \"file\": ", to);
    ot_report_json_string(to, x->file);
    fprintf(to, ", \"line\": %u, \"instances\": %llu, \"thread_instances\": %llu, \"threads\": %u, "
            "\"total_ns\": %llu, \"wait_ns\": %llu",
            x->line, (unsigned long long)x->instances, (unsigned long long)x->thread_instances, x->threads,
            (unsigned long long)x->wall_ns, (unsigned long long)x->wait_ns);
}

static void json_rows(const ot_report *r, const ot_rp_options *o, FILE *to, ot_rp_omp_kind kind, const char *key)
{
    size_t n, *rows = ot_report_omp_order(r, kind, &n), shown = shown_rows(o, n);
    fprintf(to, "\"%s\": [", key);
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_omp_site *x = &r->omp_sites[rows[j]];
        fputs(j ? ",\n      {" : "\n      {", to);
        json_site(to, x);
        if (kind == OT_RP_OMP_PARALLEL)
            fprintf(to, ", \"thread_ns\": %llu, \"wait_share\": %.4f", (unsigned long long)x->thread_ns,
                    x->thread_ns ? (double)x->wait_ns / (double)x->thread_ns : 0.0);
        if (kind == OT_RP_OMP_SYNC)
            fprintf(to, ", \"parallel_site\": \"%s\"",
                    x->parallel_site >= 0 ? r->omp_sites[x->parallel_site].site : "");
        if (kind == OT_RP_OMP_TASK)
            fprintf(to, ", \"tasks\": %llu, \"undeferred\": %llu, \"final\": %llu, \"untied\": %llu, "
                    "\"mergeable\": %llu, \"target\": %llu, \"taskwait\": %llu, \"periods\": %llu, \"run_ns\": %llu, "
                    "\"mean_run_ns\": %llu, \"started\": %llu, \"delay_ns\": %llu, \"mean_delay_ns\": %llu",
                    (unsigned long long)x->instances, (unsigned long long)x->undeferred,
                    (unsigned long long)x->final, (unsigned long long)x->untied, (unsigned long long)x->mergeable,
                    (unsigned long long)x->target, (unsigned long long)x->taskwait, (unsigned long long)x->periods,
                    (unsigned long long)x->run_ns,
                    (unsigned long long)(x->instances ? x->run_ns / x->instances : 0),
                    (unsigned long long)x->started, (unsigned long long)x->delay_ns,
                    (unsigned long long)(x->started ? x->delay_ns / x->started : 0));
        if (kind == OT_RP_OMP_MUTEX) {
            fputs(", \"kind\": ", to);
            ot_report_json_string(to, x->mutex);
            fprintf(to, ", \"acquisitions\": %llu, \"hold_ns\": %llu, \"mean_hold_ns\": %llu, "
                    "\"mean_wait_ns\": %llu, \"contention\": %.4f, \"max_waiters\": %u",
                    (unsigned long long)x->instances, (unsigned long long)x->hold_ns,
                    (unsigned long long)(x->instances ? x->hold_ns / x->instances : 0),
                    (unsigned long long)(x->instances ? x->wait_ns / x->instances : 0),
                    x->wait_ns + x->hold_ns ? (double)x->wait_ns / (double)(x->wait_ns + x->hold_ns) : 0.0,
                    x->max_waiters);
        }
        if (kind != OT_RP_OMP_LOOP) {
            fputc('}', to);
            continue;
        }
        fputs(", \"schedule\": ", to);
        ot_report_json_string(to, x->schedule);
        fprintf(to, ", \"trip_count\": %llu, \"trip_total\": %llu, \"trip_varies\": %s, \"chunks\": %llu, "
                "\"chunk_iterations\": %llu, \"busy_ns\": %llu, \"busy_max_ns\": %llu, \"busy_mean_ns\": %llu, "
                "\"imbalance\": %.4f, \"thread_busy_ns\": [",
                (unsigned long long)x->trip, (unsigned long long)x->trip_total, x->trip_varies ? "true" : "false",
                (unsigned long long)x->chunks, (unsigned long long)x->chunk_iterations,
                (unsigned long long)x->busy_ns, (unsigned long long)x->busy_max_ns,
                (unsigned long long)x->busy_mean_ns, ot_report_loop_imbalance(x));
        for (uint32_t k = 0; k < x->thread_busy_count; k++)
            fprintf(to, "%s%llu", k ? ", " : "", (unsigned long long)x->thread_busy_ns[k]);
        fputs("], \"slow_ranges\": [", to);
        for (uint32_t k = 0; k < x->slow_count; k++)
            fprintf(to, "%s{\"first\": %llu, \"count\": %llu, \"executed\": %llu, \"ns\": %llu}", k ? ", " : "",
                    (unsigned long long)x->slow[k].first, (unsigned long long)x->slow[k].count,
                    (unsigned long long)x->slow[k].executed, (unsigned long long)x->slow[k].ns);
        fputs("]}", to);
    }
    fputs("]", to);
    free(rows);
}

void ot_report_print_omp_json(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    fprintf(to, "  \"host_openmp\": {\"regions\": %llu, ", (unsigned long long)r->summary.host_openmp_regions);
    json_rows(r, o, to, OT_RP_OMP_PARALLEL, "parallel_regions");
    fputs(",\n    ", to);
    json_rows(r, o, to, OT_RP_OMP_LOOP, "loops");
    fputs(",\n    ", to);
    json_rows(r, o, to, OT_RP_OMP_SYNC, "barriers");
    fputs(",\n    ", to);
    json_rows(r, o, to, OT_RP_OMP_TASK, "tasks");
    fputs(",\n    ", to);
    json_rows(r, o, to, OT_RP_OMP_MUTEX, "locks");
    fputs(",\n    \"gaps\": [", to);
    for (size_t i = 0; i < r->gap_count; i++) {
        const ot_rp_gap *g = &r->gaps[i];
        fprintf(to, "%s{\"after\": ", i ? ",\n      " : "\n      ");
        ot_report_json_string(to, r->sites[g->from_site].site);
        fputs(", \"before\": ", to);
        ot_report_json_string(to, r->sites[g->to_site].site);
        fprintf(to, ", \"device\": %d, \"count\": %llu, \"gap_ns\": %llu, \"idle_ns\": %llu, \"serial_ns\": %llu, "
                "\"wait_ns\": %llu}",
                g->device, (unsigned long long)g->count, (unsigned long long)g->gap_ns,
                (unsigned long long)g->idle_ns, (unsigned long long)g->serial_ns, (unsigned long long)g->wait_ns);
    }
    fputs("]},\n", to);
}

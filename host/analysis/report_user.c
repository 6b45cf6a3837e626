/**
 * \file report_user.c
 * \brief The report's user regions and user events (issue 14; docs/report.md
 *        "User regions"): one row per region of catalogue class USER_REGION
 *        or USER_EVENT, with its count, inclusive time, and the part of it
 *        spent offloading, collected in the report's pass; printed as text and
 *        as the JSON members "user_regions" and "user_events".
 *
 * Inclusive time is counted at the outermost instance of a row per thread:
 * a region that runs inside itself (recursion) counts every instance in
 * `count` but its time once, so that a row's total is never more than the
 * time its threads spent in it. What is "offload" in a region is the time of
 * the construct instances (target, target enter/exit data, target update,
 * omp_target_*) that ran inside it on its thread, their transfers' time and
 * their kernels; a construct is credited when it ends, to every counted user
 * instance open around it, so nested user regions each get it (a parent's
 * share includes its children's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offtrace/event_catalogue.h"
#include "report_state.h"

/** The pass's state: a row per user region (by region index), and per row
 *  and thread how many instances are open (recursion). */
struct rp_user {
    int32_t *row_of_region;   /* region index -> row, -1 */
    uint32_t **open;          /* row -> per host thread open instances (made on first use) */
    uint32_t *open_on_thread; /* host thread -> user instances open (skips the walk when 0) */
    size_t rows_made;
};

/* The classes the tables take: the program's own spans, whether through
 * offtrace's API or NVTX (push/pop and start/end ranges; NVTX marks are
 * instants and have no time to share out). */
int rp_user_counts(const ot_tr_region *region)
{
    switch (region->cls) {
    case OFFTRACE_CLASS_USER_REGION:
    case OFFTRACE_CLASS_USER_EVENT:
    case OFFTRACE_CLASS_NVTX_RANGE:
    case OFFTRACE_CLASS_NVTX_START_END: return 1;
    default: return 0;
    }
}

static struct rp_user *state(rp_state *s)
{
    if (s->user)
        return s->user;
    struct rp_user *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->row_of_region = malloc((s->region_count ? s->region_count : 1) * sizeof *u->row_of_region);
    u->open_on_thread = calloc(s->thread_count ? s->thread_count : 1, sizeof *u->open_on_thread);
    if (!u->row_of_region || !u->open_on_thread) {
        free(u->row_of_region);
        free(u->open_on_thread);
        free(u);
        return NULL;
    }
    for (size_t i = 0; i < s->region_count; i++)
        u->row_of_region[i] = -1;
    s->user = u;
    return u;
}

static int32_t row_of(rp_state *s, struct rp_user *u, const ot_tr_region *region)
{
    size_t ri = region->id;
    if (ri < s->region_count && u->row_of_region[ri] >= 0)
        return u->row_of_region[ri];
    ot_report *r = s->r;
    int32_t i = rp_add_row((void **)&r->user_rows, &r->user_row_count, &r->user_row_cap, sizeof *r->user_rows);
    if (i < 0)
        return -1;
    if ((size_t)i >= u->rows_made) {
        size_t n = r->user_row_cap;
        uint32_t **more = realloc(u->open, n * sizeof *more);
        if (!more)
            return -1;
        memset(more + u->rows_made, 0, (n - u->rows_made) * sizeof *more);
        u->open = more;
        u->rows_made = n;
    }
    u->open[i] = calloc(s->thread_count ? s->thread_count : 1, sizeof *u->open[i]);
    ot_rp_user_row *x = &r->user_rows[i];
    x->name = strdup(region->name);
    x->file = strdup(region->file);
    x->line = region->line;
    x->event = region->cls == OFFTRACE_CLASS_USER_EVENT;
    x->thread_list = malloc((s->thread_count ? s->thread_count : 1) * sizeof *x->thread_list);
    if (!u->open[i] || !x->name || !x->file || !x->thread_list)
        return -1;
    if (ri < s->region_count)
        u->row_of_region[ri] = i;
    return i;
}

int rp_user_enter(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span)
{
    (void)loc;
    rp_span *x = span->data;
    struct rp_user *u = state(s);
    int32_t row = u ? row_of(s, u, span->region) : -1;
    if (row < 0) {
        s->failed = 1;
        return -ENOMEM;
    }
    x->kind = RP_SPAN_USER;
    x->user = (rp_user_span){.row = row, .outermost = u->open[row][slot]++ == 0};
    u->open_on_thread[slot]++;
    ot_rp_user_row *w = &s->r->user_rows[row];
    int seen = 0;
    for (uint32_t i = 0; i < w->threads && !seen; i++)
        seen = w->thread_list[i] == (uint32_t)slot;
    if (!seen)
        w->thread_list[w->threads++] = (uint32_t)slot;
    return 0;
}

int rp_user_leave(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span)
{
    (void)loc;
    struct rp_user *u = s->user;
    const rp_user_span *x = &((rp_span *)span->data)->user;
    ot_rp_user_row *w = &s->r->user_rows[x->row];
    u->open[x->row][slot]--;
    u->open_on_thread[slot]--;
    if (span->unfinished) {
        w->open_at_end++;
        return 0;
    }
    w->count++;
    if (!x->outermost)
        return 0;
    uint64_t ns = span->end - span->begin;
    if (w->counted++ == 0 || ns < w->min_ns)
        w->min_ns = ns;
    if (ns > w->max_ns)
        w->max_ns = ns;
    w->total_ns += ns;
    w->offload_ns += x->offload_ns;
    w->transfer_ns += x->transfer_ns;
    w->kernels += x->kernels;
    return 0;
}

void rp_user_construct_end(rp_state *s, int32_t slot, const rp_frame *f, uint64_t ns)
{
    struct rp_user *u = s->user;
    if (!u || !u->open_on_thread[slot])
        return;
    const ot_tr_location *loc = s->threads[slot].loc;
    for (uint32_t d = ot_tr_open_count(s->archive, loc); d-- > 0;) {
        rp_span *x = ot_tr_open_span(s->archive, loc, d)->data;
        if (x->kind != RP_SPAN_USER || !x->user.outermost)
            continue;
        x->user.offload_ns += ns;
        x->user.transfer_ns += f->transfer_ns;
        x->user.kernels += (uint64_t)f->kernels;
    }
}

/* ---- values ---- */

/* Whether \p a is below \p b in \p type. */
static int below(int type, OTF2_MetricValue a, OTF2_MetricValue b)
{
    return type == OTF2_TYPE_INT64 ? a.signed_int < b.signed_int
         : type == OTF2_TYPE_DOUBLE ? a.floating_point < b.floating_point
                                    : a.unsigned_int < b.unsigned_int;
}

static double as_double(int type, OTF2_MetricValue v)
{
    return type == OTF2_TYPE_INT64 ? (double)v.signed_int
         : type == OTF2_TYPE_DOUBLE ? v.floating_point
                                    : (double)v.unsigned_int;
}

/* The bits of a union member as an OTF2 value (the three share them). */
#define AS_VALUE(x) ((OTF2_MetricValue){.unsigned_int = (x).u})

int rp_user_value(rp_state *s, const ot_tr_metric *metric, OTF2_MetricValue value)
{
    ot_report *r = s->r;
    ot_rp_user_value *v = NULL;
    for (size_t i = 0; i < r->user_value_count && !v; i++) /* a handful of names: a scan */
        if (r->user_values[i].metric == metric->id)
            v = &r->user_values[i];
    if (!v) {
        int32_t i = rp_add_row((void **)&r->user_values, &r->user_value_count, &r->user_value_cap,
                               sizeof *r->user_values);
        if (i < 0 || !(r->user_values[i].name = strdup(metric->name))) {
            s->failed = 1;
            return -ENOMEM;
        }
        v = &r->user_values[i];
        v->metric = metric->id;
        v->type = metric->type;
    }
    if (v->count++ == 0 || below(v->type, value, AS_VALUE(v->min)))
        v->min.u = value.unsigned_int;
    if (v->count == 1 || below(v->type, AS_VALUE(v->max), value))
        v->max.u = value.unsigned_int;
    v->last.u = value.unsigned_int;
    v->sum += as_double(v->type, value);
    return 0;
}

void rp_user_free(rp_state *s)
{
    struct rp_user *u = s->user;
    if (!u)
        return;
    for (size_t i = 0; i < u->rows_made; i++)
        free(u->open[i]);
    free(u->open);
    free(u->row_of_region);
    free(u->open_on_thread);
    free(u);
    s->user = NULL;
}

void ot_report_user_free(ot_report *r)
{
    for (size_t i = 0; i < r->user_row_count; i++) {
        free(r->user_rows[i].name);
        free(r->user_rows[i].file);
        free(r->user_rows[i].thread_list);
    }
    free(r->user_rows);
    r->user_rows = NULL;
    r->user_row_count = r->user_row_cap = 0;
    for (size_t i = 0; i < r->user_value_count; i++)
        free(r->user_values[i].name);
    free(r->user_values);
    r->user_values = NULL;
    r->user_value_count = r->user_value_cap = 0;
}

/* ---- order ---- */

static const ot_report *sorting;

static int by_total(const void *a, const void *b)
{
    const ot_rp_user_row *x = &sorting->user_rows[*(const size_t *)a], *y = &sorting->user_rows[*(const size_t *)b];
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

size_t *ot_report_user_order(const ot_report *r, int event, size_t *count)
{
    *count = 0;
    size_t *rows = malloc((r->user_row_count ? r->user_row_count : 1) * sizeof *rows);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < r->user_row_count; i++)
        if (r->user_rows[i].event == event)
            rows[(*count)++] = i;
    if (!*count) {
        free(rows);
        return NULL;
    }
    sorting = r;
    qsort(rows, *count, sizeof *rows, by_total);
    sorting = NULL;
    return rows;
}

/* ---- text ---- */

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* "file.c:12" with the file's last path component, or "" */
static void site_text(const ot_rp_user_row *x, char *buf, size_t size)
{
    const char *slash = strrchr(x->file, '/');
    const char *file = slash ? slash + 1 : x->file;
    if (!*file)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%s:%u", file, x->line);
}

static const char *tail(const char *s, size_t width)
{
    size_t n = strlen(s);
    return n > width ? s + n - width : s;
}

static void regions_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_user_order(r, 0, &n);
    if (!n)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fprintf(to, "\nUser regions (inclusive time, a recursive region once per thread; offload: in target "
            "constructs)\n");
    fprintf(to, "  %-16s %-17s %6s %9s %9s %9s %7s %5s %7s %3s\n", "region", "site", "count", "total", "mean", "max",
            "offload", "xfer", "kernels", "thr");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_user_row *x = &r->user_rows[rows[j]];
        char t[3][32], site[64];
        site_text(x, site, sizeof site);
        fprintf(to, "  %-16.16s %-17s %6llu %9s %9s %9s %6.1f%% %4.0f%% %7llu %3u\n", x->name, tail(site, 17),
                (unsigned long long)x->count, ot_report_time(x->total_ns, t[0], 32),
                ot_report_time(x->counted ? x->total_ns / x->counted : 0, t[1], 32),
                ot_report_time(x->max_ns, t[2], 32), share(x->offload_ns, x->total_ns),
                share(x->transfer_ns, x->total_ns), (unsigned long long)x->kernels, x->threads);
        if (x->open_at_end)
            fprintf(to, "    (%llu never ended)\n", (unsigned long long)x->open_at_end);
    }
    if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    free(rows);
}

static void events_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_user_order(r, 1, &n);
    if (!n)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fprintf(to, "\nUser events (open at end: begun and never ended on their thread)\n");
    fprintf(to, "  %-30s %9s %9s %9s %9s %11s %4s\n", "event", "count", "total", "mean", "max", "open at end",
            "thr");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_user_row *x = &r->user_rows[rows[j]];
        char t[3][32];
        fprintf(to, "  %-30.30s %9llu %9s %9s %9s %11llu %4u\n", x->name, (unsigned long long)x->count,
                ot_report_time(x->total_ns, t[0], 32),
                ot_report_time(x->counted ? x->total_ns / x->counted : 0, t[1], 32),
                ot_report_time(x->max_ns, t[2], 32), (unsigned long long)x->open_at_end, x->threads);
    }
    if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    free(rows);
}

/* A value in its type: integers exactly; a double with \p digits significant digits (17: it reads back as
 * the same double; the text table shows 12). */
static void value_text(int type, OTF2_MetricValue v, char *buf, size_t size, int digits)
{
    if (type == OTF2_TYPE_INT64)
        snprintf(buf, size, "%lld", (long long)v.signed_int);
    else if (type == OTF2_TYPE_DOUBLE)
        snprintf(buf, size, "%.*g", digits, v.floating_point);
    else
        snprintf(buf, size, "%llu", (unsigned long long)v.unsigned_int);
}

static const char *type_name(int type)
{
    return type == OTF2_TYPE_INT64 ? "int64" : type == OTF2_TYPE_DOUBLE ? "double" : "uint64";
}

static const ot_report *sorting_values;

static int by_name(const void *a, const void *b)
{
    return strcmp(sorting_values->user_values[*(const size_t *)a].name,
                  sorting_values->user_values[*(const size_t *)b].name);
}

/* The values in name order (they have no time to sort by). */
static size_t *value_order(const ot_report *r)
{
    if (!r->user_value_count)
        return NULL;
    size_t *rows = malloc(r->user_value_count * sizeof *rows);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < r->user_value_count; i++)
        rows[i] = i;
    sorting_values = r;
    qsort(rows, r->user_value_count, sizeof *rows, by_name);
    sorting_values = NULL;
    return rows;
}

static void values_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n = r->user_value_count, *rows = value_order(r);
    if (!rows)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fprintf(to, "\nUser values (by name; last: the latest written)\n");
    fprintf(to, "  %-20s %-6s %8s %14s %14s %14s %12s\n", "value", "type", "count", "min", "max", "last", "mean");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_user_value *v = &r->user_values[rows[j]];
        char lo[32], hi[32], last[32];
        value_text(v->type, AS_VALUE(v->min), lo, sizeof lo, 12);
        value_text(v->type, AS_VALUE(v->max), hi, sizeof hi, 12);
        value_text(v->type, AS_VALUE(v->last), last, sizeof last, 12);
        fprintf(to, "  %-20.20s %-6s %8llu %14s %14s %14s %12.6g\n", v->name, type_name(v->type),
                (unsigned long long)v->count, lo, hi, last, v->count ? v->sum / (double)v->count : 0.0);
    }
    if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    free(rows);
}

void ot_report_print_user_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    regions_text(r, o, to);
    events_text(r, o, to);
    values_text(r, o, to);
}

/* ---- JSON ---- */

static void json_rows(const ot_report *r, const ot_rp_options *o, FILE *to, int event)
{
    size_t n, *rows = ot_report_user_order(r, event, &n);
    if (!n)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fprintf(to, "  \"%s\": [", event ? "user_events" : "user_regions");
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_user_row *x = &r->user_rows[rows[j]];
        fputs(j ? ",\n    {\"name\": " : "\n    {\"name\": ", to);
        ot_report_json_string(to, x->name);
        fputs(", \"file\": ", to);
        ot_report_json_string(to, x->file);
        fprintf(to, ", \"line\": %u, \"count\": %llu, \"counted\": %llu, \"total_ns\": %llu, \"mean_ns\": %llu, "
                "\"min_ns\": %llu, \"max_ns\": %llu, \"offload_ns\": %llu, \"transfer_ns\": %llu, \"kernels\": %llu, "
                "\"open_at_end\": %llu, \"threads\": [",
                x->line, (unsigned long long)x->count, (unsigned long long)x->counted,
                (unsigned long long)x->total_ns, (unsigned long long)(x->counted ? x->total_ns / x->counted : 0),
                (unsigned long long)x->min_ns, (unsigned long long)x->max_ns, (unsigned long long)x->offload_ns,
                (unsigned long long)x->transfer_ns, (unsigned long long)x->kernels,
                (unsigned long long)x->open_at_end);
        for (uint32_t i = 0; i < x->threads; i++)
            fprintf(to, "%s%u", i ? ", " : "", x->thread_list[i]);
        fputs("]}", to);
    }
    fputs("\n  ],\n", to);
    free(rows);
}

/* A double in JSON: exact digits, and what JSON has no number for as a string. */
static void json_value(FILE *to, int type, OTF2_MetricValue v)
{
    if (type != OTF2_TYPE_DOUBLE) {
        char buf[32];
        value_text(type, v, buf, sizeof buf, 17);
        fputs(buf, to);
    } else if (v.floating_point != v.floating_point)
        fputs("\"nan\"", to);
    else if (v.floating_point > 1.7976931348623157e308 || v.floating_point < -1.7976931348623157e308)
        fputs(v.floating_point > 0 ? "\"inf\"" : "\"-inf\"", to);
    else
        fprintf(to, "%.17g", v.floating_point);
}

static void json_values(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n = r->user_value_count, *rows = value_order(r);
    if (!rows)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fputs("  \"user_values\": [", to);
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_user_value *v = &r->user_values[rows[j]];
        fputs(j ? ",\n    {\"name\": " : "\n    {\"name\": ", to);
        ot_report_json_string(to, v->name);
        fprintf(to, ", \"type\": \"%s\", \"count\": %llu, \"min\": ", type_name(v->type),
                (unsigned long long)v->count);
        json_value(to, v->type, AS_VALUE(v->min));
        fputs(", \"max\": ", to);
        json_value(to, v->type, AS_VALUE(v->max));
        fputs(", \"last\": ", to);
        json_value(to, v->type, AS_VALUE(v->last));
        fputs(", \"mean\": ", to);
        json_value(to, OTF2_TYPE_DOUBLE, (OTF2_MetricValue){.floating_point = v->count ? v->sum / (double)v->count : 0});
        fputc('}', to);
    }
    fputs("\n  ],\n", to);
    free(rows);
}

void ot_report_print_user_json(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    json_rows(r, o, to, 0);
    json_rows(r, o, to, 1);
    json_values(r, o, to);
}

/**
 * \file report_variables.c
 * \brief The report's "Variables" table (issue 15; docs/report.md
 *        "Variables"): per variable of the program, the bytes and number of
 *        transfers each way, its allocations and deletions on devices, the
 *        constructs (map sites) that move it and the share of its bytes that
 *        implicit maps moved; collected in the report's pass from the map
 *        attributes the reader hands with each put/get and data op
 *        (trace_read.h, ot_tr_map); printed as text and as the JSON member
 *        "variables".
 *
 * A row is one expression as written (`x[0:n]`), over every construct that
 * maps it: the archive names a variable by its expression and the construct's
 * site, not by its declaration, so two different `x` of two functions cannot
 * be told apart by a reader; a row per (name, site) would split the one array
 * a program maps at ten lines into ten rows, which hides what the table is
 * for (which data costs). The sites column lists the constructs, so two
 * declarations sharing a name still show as two sites. Variables whose name
 * is unknown (no debug info, a malformed name string) are one row,
 * `unknown`, with the hint the archive gave. Data operations that carry no
 * variable (an archive written before issue 15, a transfer no map entry
 * matched) are not in the table; without a named one there is no table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_state.h"

/** The pass's state: the row of each variable string the archive defines (by its address: the reader's
 *  strings are interned, the same text is one pointer; a miss looks the text up among the rows). */
struct rp_variables {
    const char **keys;
    int32_t *rows;
    size_t room, used;
};

static uint64_t hash_pointer(const char *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

static int remember(struct rp_variables *v, const char *key, int32_t row)
{
    if ((v->used + 1) * 2 > v->room) {
        size_t room = v->room ? v->room * 2 : 64;
        const char **keys = calloc(room, sizeof *keys);
        int32_t *rows = malloc(room * sizeof *rows);
        if (!keys || !rows) {
            free(keys);
            free(rows);
            return -ENOMEM;
        }
        for (size_t i = 0; i < v->room; i++)
            if (v->keys[i]) {
                size_t j = hash_pointer(v->keys[i]) & (room - 1);
                while (keys[j])
                    j = (j + 1) & (room - 1);
                keys[j] = v->keys[i];
                rows[j] = v->rows[i];
            }
        free(v->keys);
        free(v->rows);
        v->keys = keys;
        v->rows = rows;
        v->room = room;
    }
    size_t j = hash_pointer(key) & (v->room - 1);
    while (v->keys[j])
        j = (j + 1) & (v->room - 1);
    v->keys[j] = key;
    v->rows[j] = row;
    v->used++;
    return 0;
}

static int is_unknown(const ot_tr_map *m)
{
    return m->name_problem || !strcmp(m->variable, "unknown") || !m->variable[0];
}

/* The row of \p m's variable, made on first use; -1 out of memory. */
static int32_t row_of(rp_state *s, const ot_tr_map *m)
{
    struct rp_variables *v = s->variables;
    if (!v && !(v = s->variables = calloc(1, sizeof *v)))
        return -1;
    if (v->room) {
        size_t j = hash_pointer(m->variable) & (v->room - 1);
        for (; v->keys[j]; j = (j + 1) & (v->room - 1))
            if (v->keys[j] == m->variable)
                return v->rows[j];
    }
    ot_report *r = s->r;
    int unknown = is_unknown(m);
    const char *name = unknown ? "unknown" : m->variable;
    int32_t row = -1;
    for (size_t i = 0; i < r->variable_count && row < 0; i++)
        if (!strcmp(r->variables[i].name, name))
            row = (int32_t)i;
    if (row < 0) {
        row = rp_add_row((void **)&r->variables, &r->variable_count, &r->variable_cap, sizeof *r->variables);
        if (row < 0)
            return -1;
        ot_rp_variable *x = &r->variables[row];
        memset(x, 0, sizeof *x);
        x->unknown = unknown;
        x->name = strdup(name);
        if (!x->name)
            return -1;
    }
    ot_rp_variable *x = &r->variables[row];
    if (unknown && m->name_problem && !x->hint && !(x->hint = strdup(m->name_problem)))
        return -1;
    return remember(v, m->variable, row) ? -1 : row;
}

int32_t rp_variable_row(rp_state *s, const ot_tr_map *m)
{
    return m->variable ? row_of(s, m) : -1;
}

void ot_report_named_add(ot_rp_named *n, int32_t row, uint64_t bytes)
{
    if (row < 0)
        return;
    for (int k = 0; k < OT_RP_NAMED_VARIABLES; k++) {
        if (n->row[k] == (uint32_t)row + 1) {
            if (bytes > n->bytes[k])
                n->bytes[k] = bytes;
            return;
        }
        if (!n->row[k]) {
            n->row[k] = (uint32_t)row + 1;
            n->bytes[k] = bytes;
            return;
        }
    }
    n->more = 1;
}

const char *ot_report_named_text(const ot_report *r, const ot_rp_named *n, const char *none, char *out,
                                 size_t size)
{
    int count = 0;
    while (count < OT_RP_NAMED_VARIABLES && n->row[count] && n->row[count] <= r->variable_count)
        count++;
    if (!count) {
        snprintf(out, size, "%s", none);
        return out;
    }
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; k < count && used < size; k++) {
        char b[32];
        const char *sep = k == 0 ? "" : (k == count - 1 && !n->more) ? " and " : ", ";
        int w = snprintf(out + used, size - used, "%s%.120s (%s)", sep, r->variables[n->row[k] - 1].name,
                         ot_report_bytes(n->bytes[k], b, sizeof b));
        used += w > 0 ? (size_t)w : 0;
    }
    if (n->more && used < size)
        snprintf(out + used, size - used, " and others");
    return out;
}


void ot_report_named_json(const ot_report *r, const ot_rp_named *n, FILE *to)
{
    if (!n->row[0])
        return;
    fputs(", \"variables\": [", to);
    for (int k = 0; k < OT_RP_NAMED_VARIABLES && n->row[k] && n->row[k] <= r->variable_count; k++) {
        fputs(k ? ", " : "", to);
        ot_report_json_string(to, r->variables[n->row[k] - 1].name);
    }
    fputs("]", to);
}

static int add_site(ot_rp_variable *x, const char *site)
{
    if (!site || !site[0])
        return 0;
    for (uint32_t i = 0; i < x->site_count; i++)
        if (!strcmp(x->sites[i], site))
            return 0;
    if (x->site_count == OT_RP_VARIABLE_SITES) {
        x->more_sites = 1;
        return 0;
    }
    return (x->sites[x->site_count++] = strdup(site)) ? 0 : -ENOMEM;
}

int rp_variable_transfer(rp_state *s, const ot_tr_transfer *t)
{
    if (!t->map.variable)
        return 0;
    int32_t row = row_of(s, &t->map);
    if (row < 0)
        return -ENOMEM;
    ot_rp_variable *x = &s->r->variables[row];
    if (t->to_device) {
        x->to_device_bytes += t->bytes;
        x->to_device++;
    } else {
        x->from_device_bytes += t->bytes;
        x->from_device++;
    }
    if (t->bytes > x->largest_transfer)
        x->largest_transfer = t->bytes;
    if (t->map.implicit == 1) {
        x->implicit_bytes += t->bytes;
        x->implicit_transfers++;
    }
    if (t->map.implicit == 0)
        x->explicit_maps = 1;
    return add_site(x, t->map.site);
}

void rp_variable_transfer_done(rp_state *s, const ot_tr_transfer *t, int32_t site)
{
    if (!t->map.variable || t->map.implicit != 1)
        return;
    int32_t row = row_of(s, &t->map);
    if (row < 0)
        return;
    ot_rp_variable *x = &s->r->variables[row];
    if (t->completed > t->issued)
        x->implicit_ns += t->completed - t->issued;
    if (!x->implicit_site && site >= 0)
        x->implicit_site = site + 1;
}

int rp_variable_data_op(rp_state *s, const ot_tr_span *span)
{
    const ot_tr_region *region = span->region;
    if (!span->map.variable)
        return 0;
    int32_t row = row_of(s, &span->map);
    if (row < 0)
        return -ENOMEM;
    ot_rp_variable *x = &s->r->variables[row];
    if (region->op == OT_TR_OP_ALLOC)
        x->allocations++;
    else if (region->op == OT_TR_OP_DELETE)
        x->deletions++;
    if (span->map.implicit == 0)
        x->explicit_maps = 1;
    return add_site(x, span->map.site);
}

void rp_variables_free(rp_state *s)
{
    if (!s->variables)
        return;
    free(s->variables->keys);
    free(s->variables->rows);
    free(s->variables);
    s->variables = NULL;
}

void ot_report_variables_free(ot_report *r)
{
    for (size_t i = 0; i < r->variable_count; i++) {
        free(r->variables[i].name);
        free(r->variables[i].hint);
        for (uint32_t k = 0; k < r->variables[i].site_count; k++)
            free(r->variables[i].sites[k]);
    }
    free(r->variables);
    r->variables = NULL;
    r->variable_count = r->variable_cap = 0;
}

/* ---- order and printing ---- */

static const ot_report *sorting;

static uint64_t moved(const ot_rp_variable *x) { return x->to_device_bytes + x->from_device_bytes; }

static int by_bytes(const void *a, const void *b)
{
    const ot_rp_variable *x = &sorting->variables[*(const size_t *)a], *y = &sorting->variables[*(const size_t *)b];
    if (moved(x) != moved(y))
        return moved(x) > moved(y) ? -1 : 1;
    if (x->unknown != y->unknown)
        return x->unknown - y->unknown;
    return strcmp(x->name, y->name);
}

size_t *ot_report_variable_order(const ot_report *r, size_t *count)
{
    *count = 0;
    if (!r->variable_count)
        return NULL;
    size_t *rows = malloc(r->variable_count * sizeof *rows);
    if (!rows)
        return NULL;
    for (size_t i = 0; i < r->variable_count; i++)
        rows[i] = i;
    sorting = r;
    qsort(rows, r->variable_count, sizeof *rows, by_bytes);
    sorting = NULL;
    *count = r->variable_count;
    return rows;
}

static void bytes_text(uint64_t b, char *out, size_t size)
{
    if (b >= 1024ull * 1024 * 1024)
        snprintf(out, size, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024ull * 1024)
        snprintf(out, size, "%.2f MiB", b / (1024.0 * 1024));
    else if (b >= 1024)
        snprintf(out, size, "%.2f KiB", b / 1024.0);
    else
        snprintf(out, size, "%llu B", (unsigned long long)b);
}

/* The sites of \p x on lines of their own under its row, wrapped before 100 columns. */
static void sites_text(const ot_rp_variable *x, FILE *to)
{
    size_t column = 0;
    for (uint32_t k = 0; k <= x->site_count; k++) {
        const char *site = k < x->site_count ? x->sites[k] : x->more_sites ? "..." : NULL;
        if (!site)
            break;
        size_t len = strlen(site) + 2;
        if (!column || column + len > 98) {
            fputs(column ? ",\n      " : "      at ", to);
            column = 9;
        } else
            fputs(", ", to);
        fputs(site, to);
        column += len;
    }
    if (column)
        fputc('\n', to);
}

#define NAME_WIDTH 28

void ot_report_print_variables_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_variable_order(r, &n);
    if (!rows)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fprintf(to, "\nVariables (by bytes moved; implicit: share moved by implicit maps; at: the constructs)\n");
    fprintf(to, "  %-*s %10s %6s %10s %6s %5s %6s %5s\n", NAME_WIDTH, "variable", "to device", "count",
            "from dev", "count", "alloc", "delete", "impl");
    const char *hint = NULL;
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_variable *x = &r->variables[rows[j]];
        char h2d[24], d2h[24], share[16];
        bytes_text(x->to_device_bytes, h2d, sizeof h2d);
        bytes_text(x->from_device_bytes, d2h, sizeof d2h);
        if (moved(x))
            snprintf(share, sizeof share, "%.0f%%", 100.0 * (double)x->implicit_bytes / (double)moved(x));
        else
            snprintf(share, sizeof share, "-");
        /* a name longer than its column gets a line of its own (never cut: it is what the user looks for) */
        if (strlen(x->name) > NAME_WIDTH)
            fprintf(to, "  %s\n  %-*s", x->name, NAME_WIDTH, "");
        else
            fprintf(to, "  %-*s", NAME_WIDTH, x->name);
        fprintf(to, " %10s %6llu %10s %6llu %5llu %6llu %5s\n", h2d, (unsigned long long)x->to_device, d2h,
                (unsigned long long)x->from_device, (unsigned long long)x->allocations,
                (unsigned long long)x->deletions, share);
        sites_text(x, to);
        if (x->unknown)
            hint = x->hint ? x->hint : "build with -g or -gline-tables-only";
    }
    if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    if (hint)
        fprintf(to, "  unknown: variables without a name (%s)\n", hint);
    free(rows);
}

void ot_report_print_variables_json(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n, *rows = ot_report_variable_order(r, &n);
    if (!rows)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    fputs("  \"variables\": [", to);
    for (size_t j = 0; j < shown; j++) {
        const ot_rp_variable *x = &r->variables[rows[j]];
        fputs(j ? ",\n    {\"variable\": " : "\n    {\"variable\": ", to);
        ot_report_json_string(to, x->name);
        fprintf(to, ", \"unknown\": %s, \"to_device_bytes\": %llu, \"to_device\": %llu, \"from_device_bytes\": %llu, "
                "\"from_device\": %llu, \"allocations\": %llu, \"deletions\": %llu, \"implicit_bytes\": %llu, "
                "\"explicit\": %s, \"sites\": [",
                x->unknown ? "true" : "false", (unsigned long long)x->to_device_bytes,
                (unsigned long long)x->to_device, (unsigned long long)x->from_device_bytes,
                (unsigned long long)x->from_device, (unsigned long long)x->allocations,
                (unsigned long long)x->deletions, (unsigned long long)x->implicit_bytes,
                x->explicit_maps ? "true" : "false");
        for (uint32_t k = 0; k < x->site_count; k++) {
            fputs(k ? ", " : "", to);
            ot_report_json_string(to, x->sites[k]);
        }
        fprintf(to, "], \"more_sites\": %s", x->more_sites ? "true" : "false");
        if (x->unknown) {
            fputs(", \"hint\": ", to);
            ot_report_json_string(to, x->hint ? x->hint : "build with -g or -gline-tables-only");
        }
        fputc('}', to);
    }
    fputs("\n  ],\n", to);
    free(rows);
}

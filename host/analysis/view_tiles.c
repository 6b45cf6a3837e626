/**
 * \file view_tiles.c
 * \brief The tile pyramid of the zoomable page: tile K/I is the picture's
 *        bucketing (view_bucket.c) of the window [I*D/2^K, (I+1)*D/2^K) at
 *        OT_VIEW_TILE_PX columns, fed from the pieces in memory
 *        (view_store.c), written as JSON (docs/architecture.md, "The zoomable timeline").
 *
 * A tile is exact when nothing in it was merged: no marks, every arrow one
 * transfer or message, at most two memory samples per column. Its children would hold
 * the same bars, so they do not exist and the page zooms inside it. Tiles
 * of the deepest level (columns of a nanosecond) have no children either.
 *
 * Which tiles exist, which the page embeds and which serve mode computes
 * on demand: view_pyramid.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_store.h"

uint64_t ot_view_tile_edge(const ot_view_trace *t, unsigned k, uint64_t i)
{
    return (uint64_t)((unsigned __int128)t->frame->trace_dur * i >> k);
}

/* ---- bucketing one window ---- */

/* A window of the trace as a picture of its own: the frame's rows (labels
 * shared), regions and clock, fresh levels and flows. */
static int tile_view(const ot_view_trace *t, unsigned k, uint64_t i, ot_view *v)
{
    const ot_view *frame = t->frame;
    *v = *frame;
    v->flows = NULL;
    v->nflows = 0;
    v->rows = calloc(frame->nrows ? frame->nrows : 1, sizeof *v->rows);
    if (!v->rows)
        return -ENOMEM;
    for (size_t r = 0; r < frame->nrows; r++) {
        v->rows[r] = frame->rows[r];
        memset(v->rows[r].level, 0, sizeof v->rows[r].level);
    }
    v->tile = 1;
    v->last_tile = i + 1 == (uint64_t)1 << k;
    v->plot_w = OT_VIEW_TILE_PX;
    v->w0 = frame->trace_start + ot_view_tile_edge(t, k, i);
    v->w1 = frame->trace_start + ot_view_tile_edge(t, k, i + 1);
    if (v->w1 <= v->w0)
        v->w1 = v->w0 + 1;
    v->px_per_ns = (double)v->plot_w / (double)(v->w1 - v->w0);
    v->regions_drawn = v->regions_merged = v->transfers = v->messages = 0;
    return 0;
}

static void tile_free(ot_view *v)
{
    for (size_t r = 0; v->rows && r < v->nrows; r++)
        for (int l = 0; l < OT_VIEW_MAX_DEPTH; l++) {
            free(v->rows[r].level[l].bars);
            free(v->rows[r].level[l].cells);
        }
    for (size_t f = 0; f < v->nflows; f++)
        free(v->flows[f].cells);
    free(v->rows);
    free(v->flows);
}

/* First piece of \p l that may reach into [w0, ...): pieces are disjoint and
 * sorted, so their ends rise with their starts. */
static size_t first_reaching(const ot_view_items *l, uint64_t w0)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->at[mid].a < w0)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0 && l->at[lo - 1].b >= w0)
        lo--;
    return lo;
}

static size_t first_issued(const ot_view_xfers *f, uint64_t w0)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->at[mid].t0 < w0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int fill(const ot_view_trace *t, ot_view *v)
{
    for (size_t r = 0; r < v->nrows; r++)
        for (int l = 0; l < v->depth; l++) {
            const ot_view_items *it = ot_view_items_of(t, r, l);
            for (size_t i = first_reaching(it, v->w0); i < it->n && it->at[i].a <= v->w1; i++) {
                const ot_view_item *p = &it->at[i];
                ot_view_piece piece = {.start = it->whole ? it->whole[i].start : p->a,
                                       .dur = it->whole ? it->whole[i].dur : p->b - p->a, .bytes = p->bytes,
                                       .serial = p->serial, .region = p->region, .parent = p->parent};
                if (it->iterations) {
                    piece.has_iterations = it->iterations[i].has;
                    piece.iterations = it->iterations[i].iterations;
                    piece.first_iteration = it->iterations[i].first;
                }
                if (ot_view_put_region(v, &v->rows[r], l, p->a, p->b, &piece))
                    return -ENOMEM;
            }
        }
    for (size_t f = 0; f < t->nflows; f++) {
        const ot_view_xfers *x = &t->flows[f];
        for (size_t i = first_issued(x, v->w0); i < x->n && x->at[i].t0 <= v->w1; i++)
            if (ot_view_put_arrow(v, x->row_a, x->row_b, x->kind, x->at[i].t0, x->at[i].t1, x->at[i].bytes))
                return -ENOMEM;
    }
    return 0;
}

/* ---- writing it ---- */

static uint64_t rel(const ot_view *v, uint64_t t)
{
    return t > v->trace_start ? t - v->trace_start : 0;
}

static void write_bars(const ot_view *v, FILE *f, ot_view_tile_facts *facts)
{
    const char *sep = "";
    fputs("\"bars\":[", f);
    for (size_t r = 0; r < v->nrows; r++)
        for (int l = 0; l < v->depth; l++)
            for (size_t i = 0; i < v->rows[r].level[l].nbars; i++) {
                const ot_view_bar *b = &v->rows[r].level[l].bars[i];
                fprintf(f, "%s[%zu,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu64
                           ",%" PRIu64 ",%" PRId32,
                        sep, r, l, rel(v, b->a), rel(v, b->b), rel(v, b->start), b->dur, b->region, b->bytes,
                        b->serial, b->parent);
                if (b->has_iterations == 3) /* a host task: [..., task id, flags, 3] */
                    fprintf(f, ",%" PRIu64 ",%" PRIu64 ",3", b->iterations, b->first_iteration);
                else if (b->has_iterations) /* host OpenMP: [..., iterations, first iteration or -1] */
                    fprintf(f, ",%" PRIu64 ",%" PRId64, b->iterations,
                            b->has_iterations == 2 ? (int64_t)b->first_iteration : (int64_t)-1);
                fputc(']', f);
                sep = ",";
                facts->content = 1;
            }
    fputs("]", f);
}

/* The up to three classes with most time in a mark, largest first. */
static void write_top(const ot_view_mark *m, FILE *f)
{
    double left[OT_VC_COUNT];
    memcpy(left, m->ns, sizeof left);
    fputs("[", f);
    for (int shown = 0; shown < 3; shown++) {
        int best = -1;
        for (int k = 0; k < OT_VC_COUNT; k++)
            if (left[k] > 0 && (best < 0 || left[k] > left[best]))
                best = k;
        if (best < 0)
            break;
        fprintf(f, "%s[%d,%.0f]", shown ? "," : "", best, left[best]);
        left[best] = 0;
    }
    fputs("]", f);
}

static void write_marks(const ot_view *v, FILE *f, ot_view_tile_facts *facts)
{
    const char *sep = "";
    fputs(",\"marks\":[", f);
    for (size_t r = 0; r < v->nrows; r++)
        for (int l = 0; l < v->depth; l++) {
            ot_view_mark m;
            for (size_t c = 0; ot_view_next_mark(v, &v->rows[r].level[l], &c, &m);) {
                fprintf(f, "%s[%zu,%d,%zu,%zu,%d,%d,%" PRIu64 ",%.0f,%" PRIu64 ",", sep, r, l, m.c0, m.c1, m.cat,
                        m.step + 1, m.count, m.busy, m.bytes);
                write_top(&m, f);
                fputs("]", f);
                sep = ",";
                facts->exact = 0;
                facts->content = 1;
            }
        }
    fputs("]", f);
}

static void write_arrows(const ot_view *v, FILE *f, ot_view_tile_facts *facts)
{
    const char *sep = "";
    fputs(",\"arrows\":[", f);
    for (size_t i = 0; i < v->nflows; i++)
        for (size_t c = 0; c < ot_view_arrow_columns(v); c++) {
            const ot_view_flow *fl = &v->flows[i];
            const ot_view_arrow *a = &fl->cells[c];
            if (!a->count)
                continue;
            fprintf(f, "%s[%zu,%zu,%d,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", sep,
                    fl->row_a, fl->row_b, (int)fl->kind, a->count, a->bytes, rel(v, a->t0),
                    rel(v, a->t1), rel(v, a->last), a->busy);
            sep = ",";
            facts->content = 1;
            if (a->count > 1)
                facts->exact = 0;
        }
    fputs("]", f);
}

static size_t first_sample(const ot_view_counter *c, uint64_t t)
{
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->at[mid].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One counter in the window: the value in force at its start, then per
 * column the lowest and the highest sample, in time order. */
static void write_counter(const ot_view *v, size_t index, const ot_view_counter *c, const char **sep, FILE *f,
                          ot_view_tile_facts *facts)
{
    size_t i = first_sample(c, v->w0);
    if (i > 0) {
        fprintf(f, "%s[%zu,%" PRIu64 ",%" PRIu64 "]", *sep, index, rel(v, v->w0), c->at[i - 1].value);
        *sep = ",";
    }
    while (i < c->n && (c->at[i].t < v->w1 || (v->last_tile && c->at[i].t == v->w1))) {
        double x = ot_view_x(v, c->at[i].t);
        size_t col = x <= 0 ? 0 : x >= v->plot_w ? v->plot_w - 1 : (size_t)x;
        size_t lo = i, hi = i, n = 0;
        for (; i < c->n && (c->at[i].t < v->w1 || (v->last_tile && c->at[i].t == v->w1)); i++, n++) {
            double xi = ot_view_x(v, c->at[i].t);
            size_t ci = xi <= 0 ? 0 : xi >= v->plot_w ? v->plot_w - 1 : (size_t)xi;
            if (ci != col)
                break;
            if (c->at[i].value < c->at[lo].value)
                lo = i;
            if (c->at[i].value > c->at[hi].value)
                hi = i;
        }
        if (n > 2)
            facts->exact = 0;
        size_t first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
        fprintf(f, "%s[%zu,%" PRIu64 ",%" PRIu64 "]", *sep, index, rel(v, c->at[first].t), c->at[first].value);
        *sep = ",";
        if (second != first)
            fprintf(f, ",[%zu,%" PRIu64 ",%" PRIu64 "]", index, rel(v, c->at[second].t), c->at[second].value);
        facts->content = 1;
    }
}

int ot_view_write_tile(const ot_view_trace *t, unsigned k, uint64_t i, FILE *f, ot_view_tile_facts *facts)
{
    ot_view v;
    char *body = NULL;
    size_t length = 0;
    FILE *b = NULL;
    int rc = tile_view(t, k, i, &v);
    if (!rc)
        rc = fill(t, &v);
    if (!rc && !(b = open_memstream(&body, &length)))
        rc = -ENOMEM;
    if (!rc) {
        /* the body first: whether the tile is exact is known once it is written */
        *facts = (ot_view_tile_facts){.exact = 1};
        write_bars(&v, b, facts);
        write_marks(&v, b, facts);
        write_arrows(&v, b, facts);
        fputs(",\"memory\":[", b);
        const char *sep = "";
        for (size_t c = 0; c < t->ncounters; c++)
            write_counter(&v, c, &t->counters[c], &sep, b, facts);
        fputs("]}", b);
        if (ferror(b))
            rc = -ENOMEM;
        if (fclose(b) != 0)
            rc = -ENOMEM;
    }
    if (!rc) {
        fprintf(f, "{\"k\":%u,\"i\":%" PRIu64 ",\"t0\":%" PRIu64 ",\"t1\":%" PRIu64 ",\"exact\":%s,", k, i,
                rel(&v, v.w0), rel(&v, v.w1), facts->exact ? "true" : "false");
        fwrite(body, 1, length, f);
        if (ferror(f))
            rc = -EIO;
    }
    free(body);
    tile_free(&v);
    return rc;
}

/**
 * \file view_bucket.c
 * \brief Where a region or transfer lands in the picture: a bar when it is
 *        at least a pixel wide, else its time is added to the pixel columns
 *        it touches; transfers starting within OT_VIEW_ARROW_PX of one host
 *        row (same device, same direction) share one arrow, and so do MPI
 *        messages sent within it from one row to another. This is what keeps
 *        memory and output bounded by the picture instead of the events.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view_model.h"

/* Narrower than this (px) and a region is merged into its columns. */
#define MIN_BAR_PX 1.0

double ot_view_x(const ot_view *v, uint64_t t)
{
    return t >= v->w0 ? (double)(t - v->w0) * v->px_per_ns : -(double)(v->w0 - t) * v->px_per_ns;
}

static size_t column(const ot_view *v, double x)
{
    if (x <= 0)
        return 0;
    size_t c = (size_t)x;
    return c < v->plot_w ? c : v->plot_w - 1;
}

static int add_bar(ot_view_level *l, const ot_view_bar *bar)
{
    if (l->nbars == l->capbars) {
        size_t cap = l->capbars ? 2 * l->capbars : 64;
        ot_view_bar *b = realloc(l->bars, cap * sizeof *b);
        if (!b)
            return -ENOMEM;
        l->bars = b;
        l->capbars = cap;
    }
    l->bars[l->nbars++] = *bar;
    return 0;
}

/* A region narrower than MIN_BAR_PX touches at most two columns: share its
 * time between them by overlap; count it where it starts (a later piece of
 * a region split by nested ones is not another region). */
static int add_to_cells(ot_view *v, ot_view_level *l, double x0, double x1, ot_view_cat cat, uint64_t bytes,
                        int counts)
{
    if (!l->cells && !(l->cells = calloc(v->plot_w, sizeof *l->cells)))
        return -ENOMEM;
    size_t first = column(v, x0), last = column(v, x1);
    for (size_t c = first; c <= last; c++) {
        double overlap = fmin(x1, (double)c + 1) - fmax(x0, (double)c);
        if (overlap > 0)
            l->cells[c].ns[cat] += (float)(overlap / v->px_per_ns);
    }
    if (counts) {
        l->cells[first].count++;
        l->cells[first].bytes += bytes;
        l->cells[first].last_cat = (uint8_t)cat;
    }
    return 0;
}

/* Whether something that starts at \p t is counted in this window: in a
 * tile only where it starts, so that tiles side by side count it once. */
static int starts_here(const ot_view *v, uint64_t t)
{
    if (!v->tile)
        return t >= v->w0;
    return t >= v->w0 && (t < v->w1 || (v->last_tile && t == v->w1));
}

int ot_view_put_region(ot_view *v, ot_view_row *row, int level, uint64_t a, uint64_t b, const ot_view_piece *p)
{
    if (b < v->w0 || a > v->w1 || level < 0 || level >= v->depth)
        return 0;
    uint64_t ca = a > v->w0 ? a : v->w0, cb = b < v->w1 ? b : v->w1;
    double x0 = ot_view_x(v, ca), x1 = ot_view_x(v, cb);
    /* a tile judges by the whole width, so that the piece is the same in every tile */
    double width = v->tile ? (double)(b - a) * v->px_per_ns : x1 - x0;
    ot_view_cat cat = p->region < v->nregions ? (ot_view_cat)v->region_cat[p->region] : OT_VC_OTHER;
    if (row->levels < level + 1)
        row->levels = level + 1;
    v->cats_used |= 1u << cat;
    ot_view_level *l = &row->level[level];
    if (width < MIN_BAR_PX) {
        int counts = a == p->start && starts_here(v, a);
        v->regions_merged += (uint64_t)counts;
        return add_to_cells(v, l, x0, x1, cat, p->bytes, counts);
    }
    v->regions_drawn++;
    if (v->tile) {
        ca = a;
        cb = b;
    }
    ot_view_bar bar = {.a = ca, .b = cb, .start = p->start, .dur = p->dur, .bytes = p->bytes,
                       .serial = p->serial, .region = p->region, .parent = p->parent, .cat = (uint8_t)cat,
                       .has_iterations = p->has_iterations, .iterations = p->iterations,
                       .first_iteration = p->first_iteration};
    return add_bar(l, &bar);
}

void ot_view_finish_pieces(ot_view_row *row, int level, size_t first, uint64_t serial, uint64_t dur)
{
    ot_view_level *l = &row->level[level];
    for (size_t i = first; i < l->nbars; i++)
        if (l->bars[i].serial == serial)
            l->bars[i].dur = dur;
}

/* ---- merged marks ---- */

static int dominant(const ot_view_cell *c)
{
    int best = -1;
    for (int k = 0; k < OT_VC_COUNT; k++)
        if (c->ns[k] > 0 && (best < 0 || c->ns[k] > c->ns[best]))
            best = k;
    return best >= 0 ? best : c->last_cat;
}

/* How much of the column the small regions cover, in four steps. */
static int coverage_step(const ot_view *v, const ot_view_cell *c)
{
    double busy = 0;
    for (int k = 0; k < OT_VC_COUNT; k++)
        busy += c->ns[k];
    double share = busy * v->px_per_ns;
    return share < 0.25 ? 0 : share < 0.5 ? 1 : share < 0.75 ? 2 : 3;
}

static int used(const ot_view_cell *c)
{
    if (c->count)
        return 1;
    for (int k = 0; k < OT_VC_COUNT; k++)
        if (c->ns[k] > 0)
            return 1;
    return 0;
}

int ot_view_next_mark(const ot_view *v, const ot_view_level *l, size_t *c, ot_view_mark *m)
{
    const ot_view_cell *cells = l->cells;
    while (cells && *c < v->plot_w && !used(&cells[*c]))
        ++*c;
    if (!cells || *c >= v->plot_w)
        return 0;
    memset(m, 0, sizeof *m);
    m->c0 = *c;
    m->cat = dominant(&cells[*c]);
    m->step = coverage_step(v, &cells[*c]);
    for (; *c < v->plot_w && used(&cells[*c]) && dominant(&cells[*c]) == m->cat &&
           coverage_step(v, &cells[*c]) == m->step;
         ++*c) {
        const ot_view_cell *cell = &cells[*c];
        for (int k = 0; k < OT_VC_COUNT; k++) {
            m->ns[k] += cell->ns[k];
            m->busy += cell->ns[k];
        }
        m->count += cell->count;
        m->bytes += cell->bytes;
    }
    m->c1 = *c - 1;
    return 1;
}

/* ---- arrows ---- */

size_t ot_view_arrow_columns(const ot_view *v)
{
    return (v->plot_w + OT_VIEW_ARROW_PX - 1) / OT_VIEW_ARROW_PX;
}

static ot_view_flow *flow_of(ot_view *v, size_t row_a, size_t row_b, ot_view_arrow_kind kind)
{
    for (size_t i = 0; i < v->nflows; i++)
        if (v->flows[i].row_a == row_a && v->flows[i].row_b == row_b && v->flows[i].kind == kind)
            return &v->flows[i];
    ot_view_flow *f = realloc(v->flows, (v->nflows + 1) * sizeof *f);
    if (!f)
        return NULL;
    v->flows = f;
    f = &v->flows[v->nflows];
    *f = (ot_view_flow){.row_a = row_a, .row_b = row_b, .kind = kind};
    if (!(f->cells = calloc(ot_view_arrow_columns(v), sizeof *f->cells)))
        return NULL;
    v->nflows++;
    return f;
}

int ot_view_put_arrow(ot_view *v, size_t row_a, size_t row_b, ot_view_arrow_kind kind, uint64_t t0, uint64_t t1,
                      uint64_t bytes)
{
    uint64_t end = t1 > t0 ? t1 : t0; /* a message received "before" it was sent: clocks, docs/mpi.md */
    if (end < v->w0 || t0 > v->w1 || (v->tile && !starts_here(v, t0)))
        return 0;
    ot_view_flow *f = flow_of(v, row_a, row_b, kind);
    if (!f)
        return -ENOMEM;
    ot_view_arrow *a = &f->cells[column(v, ot_view_x(v, t0)) / OT_VIEW_ARROW_PX];
    if (!a->count) { /* transfers come in the order they complete, near enough to their starts */
        a->t0 = t0;
        a->t1 = t1;
    }
    if (t1 > a->last)
        a->last = t1;
    a->count++;
    a->bytes += bytes;
    a->busy += t1 > t0 ? t1 - t0 : 0;
    if (kind == OT_VIEW_MESSAGE)
        v->messages++;
    else
        v->transfers++;
    return 0;
}

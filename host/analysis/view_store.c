/**
 * \file view_store.c
 * \brief One read of the archive into memory for the zoomable page: the
 *        sink of view_build.c that keeps every piece by row and level,
 *        every transfer and MPI message by flow and every device-memory sample by counter,
 *        so that any window (tile) can be bucketed later without reading
 *        the archive again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "view_store.h"

/* Grow an array of \p size-byte elements to hold one more. */
static int reserve(void **at, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t want = *cap ? 2 * *cap : 64;
    void *grown = realloc(*at, want * size);
    if (!grown)
        return -ENOMEM;
    *at = grown;
    *cap = want;
    return 0;
}

/* ---- the sink ---- */

static int keep_piece(void *user, size_t row, int level, uint64_t a, uint64_t b, const ot_view_piece *p)
{
    ot_view_trace *t = user;
    if (level < 0 || level >= t->frame->depth)
        return 0;
    ot_view_items *l = ot_view_items_of(t, row, level);
    int last = level == t->frame->depth - 1;
    if (l->n == l->cap) {
        size_t cap = l->cap;
        if (reserve((void **)&l->at, l->n, &cap, sizeof *l->at))
            return -ENOMEM;
        if (last) {
            ot_view_whole *whole = realloc(l->whole, cap * sizeof *whole);
            if (!whole)
                return -ENOMEM;
            l->whole = whole;
        }
        if (l->iterations) {
            ot_view_iterations *its = realloc(l->iterations, cap * sizeof *its);
            if (!its)
                return -ENOMEM;
            l->iterations = its;
        }
        l->cap = cap;
    }
    if (p->has_iterations && !l->iterations && !(l->iterations = calloc(l->cap, sizeof *l->iterations)))
        return -ENOMEM;
    if (l->iterations)
        l->iterations[l->n] = (ot_view_iterations){.iterations = p->iterations, .first = p->first_iteration,
                                                   .has = p->has_iterations};
    l->at[l->n] = (ot_view_item){.a = a, .b = b, .bytes = p->bytes, .serial = p->serial, .region = p->region,
                                 .parent = p->parent};
    if (last)
        l->whole[l->n] = (ot_view_whole){.start = p->start, .dur = p->dur};
    l->n++;
    ot_view_row *r = &t->frame->rows[row];
    if (r->levels < level + 1)
        r->levels = level + 1;
    if (a == p->start)
        t->regions++;
    return 0;
}

static size_t count_pieces(void *user, size_t row, int level)
{
    return ot_view_items_of(user, row, level)->n;
}

static void finish_pieces(void *user, size_t row, int level, size_t first, uint64_t serial, uint64_t dur)
{
    ot_view_items *l = ot_view_items_of(user, row, level);
    for (size_t i = first; l->whole && i < l->n; i++)
        if (l->at[i].serial == serial)
            l->whole[i].dur = dur;
}

static int keep_arrow(void *user, size_t row_a, size_t row_b, ot_view_arrow_kind kind, uint64_t t0, uint64_t t1,
                      uint64_t bytes)
{
    ot_view_trace *t = user;
    ot_view_xfers *f = NULL;
    for (size_t i = 0; i < t->nflows && !f; i++)
        if (t->flows[i].row_a == row_a && t->flows[i].row_b == row_b && t->flows[i].kind == kind)
            f = &t->flows[i];
    if (!f) { /* a few flows: host threads x devices x two ways, and the pairs of ranks' threads that talk */
        ot_view_xfers *flows = realloc(t->flows, (t->nflows + 1) * sizeof *flows);
        if (!flows)
            return -ENOMEM;
        t->flows = flows;
        f = &t->flows[t->nflows++];
        *f = (ot_view_xfers){.row_a = row_a, .row_b = row_b, .kind = kind};
    }
    if (kind == OT_VIEW_MESSAGE)
        t->frame->messages++;
    if (reserve((void **)&f->at, f->n, &f->cap, sizeof *f->at))
        return -ENOMEM;
    f->at[f->n++] = (ot_view_xfer){.t0 = t0, .t1 = t1, .bytes = bytes};
    return 0;
}

static int keep_sample(void *user, size_t row, uint64_t time, uint64_t bytes)
{
    ot_view_trace *t = user;
    ot_view_counter *c = NULL;
    for (size_t i = 0; i < t->ncounters && !c; i++)
        if (t->counters[i].row == row)
            c = &t->counters[i];
    if (!c) { /* one per device */
        ot_view_counter *counters = realloc(t->counters, (t->ncounters + 1) * sizeof *counters);
        if (!counters)
            return -ENOMEM;
        t->counters = counters;
        c = &t->counters[t->ncounters++];
        *c = (ot_view_counter){.row = row, .device = t->frame->rows[row].device};
    }
    if (reserve((void **)&c->at, c->n, &c->cap, sizeof *c->at))
        return -ENOMEM;
    c->at[c->n++] = (ot_view_sample){.t = time, .value = bytes};
    if (bytes > c->max)
        c->max = bytes;
    return 0;
}

/* ---- order ---- */

/* A piece with its whole instance and iterations, to sort a level's arrays as one. */
typedef struct piece_whole {
    ot_view_item item;
    ot_view_whole whole;
    ot_view_iterations iterations;
} piece_whole;

static int by_a(const void *pa, const void *pb)
{
    const ot_view_item *a = pa, *b = pb;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : a->b < b->b ? -1 : a->b > b->b;
}

static int sort_items(ot_view_items *it)
{
    if (!it->whole && !it->iterations) {
        qsort(it->at, it->n, sizeof *it->at, by_a);
        return 0;
    }
    piece_whole *both = malloc(it->n * sizeof *both);
    if (!both)
        return -ENOMEM;
    for (size_t i = 0; i < it->n; i++)
        both[i] = (piece_whole){.item = it->at[i], .whole = it->whole ? it->whole[i] : (ot_view_whole){0},
                                .iterations = it->iterations ? it->iterations[i] : (ot_view_iterations){0}};
    qsort(both, it->n, sizeof *both, by_a); /* the item comes first */
    for (size_t i = 0; i < it->n; i++) {
        it->at[i] = both[i].item;
        if (it->whole)
            it->whole[i] = both[i].whole;
        if (it->iterations)
            it->iterations[i] = both[i].iterations;
    }
    free(both);
    return 0;
}

static int by_t0(const void *pa, const void *pb)
{
    const ot_view_xfer *a = pa, *b = pb;
    return a->t0 < b->t0 ? -1 : a->t0 > b->t0;
}

static int by_row(const void *pa, const void *pb)
{
    const ot_view_counter *a = pa, *b = pb;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* Pieces come as they end, which on one level is also the order they start
 * in (they are disjoint); sort only where a damaged clock made it not so.
 * Transfers come as they complete, messages once both sides are read: sort
 * them by issue (send). */
static int put_in_order(ot_view_trace *t)
{
    for (size_t r = 0; r < t->frame->nrows; r++)
        for (int l = 0; l < OT_VIEW_MAX_DEPTH; l++) {
            ot_view_items *it = ot_view_items_of(t, r, l);
            for (size_t i = 1; i < it->n; i++)
                if (it->at[i].a < it->at[i - 1].a) {
                    if (sort_items(it))
                        return -ENOMEM;
                    break;
                }
        }
    for (size_t f = 0; f < t->nflows; f++)
        qsort(t->flows[f].at, t->flows[f].n, sizeof *t->flows[f].at, by_t0);
    qsort(t->counters, t->ncounters, sizeof *t->counters, by_row);
    return 0;
}

/* The first level whose columns are a nanosecond or narrower: time has no
 * finer unit, so its tiles have no children. */
static unsigned deepest_level(uint64_t duration)
{
    unsigned k = 0;
    while (k < 62 && (duration >> k) > OT_VIEW_TILE_PX)
        k++;
    return k;
}

/* ---- the whole load ---- */

static int setup(ot_view_trace *t, const char *dir, const ot_view_options *o)
{
    char real[PATH_MAX];
    if (!(t->frame = calloc(1, sizeof *t->frame)) || !(t->frame->title = strdup(o->title ? o->title : dir)) ||
        !(t->archive = strdup(realpath(dir, real) ? real : dir)))
        return -ENOMEM;
    t->frame->plot_w = OT_VIEW_TILE_PX;
    t->frame->width = OT_VIEW_TILE_PX;
    t->has_from = o->has_from;
    t->from_ns = o->from_ns;
    t->has_to = o->has_to;
    t->to_ns = o->to_ns;
    return 0;
}

/* The pieces' arrays, once the rows are known: at the first piece. */
static int make_items(ot_view_trace *t)
{
    if (t->items)
        return 0;
    t->items = calloc(t->frame->nrows ? t->frame->nrows * OT_VIEW_MAX_DEPTH : 1, sizeof *t->items);
    return t->items ? 0 : -ENOMEM;
}

static int keep_piece_first(void *user, size_t row, int level, uint64_t a, uint64_t b, const ot_view_piece *p)
{
    return make_items(user) ? -ENOMEM : keep_piece(user, row, level, a, b, p);
}

static size_t count_pieces_first(void *user, size_t row, int level)
{
    return make_items(user) ? 0 : count_pieces(user, row, level);
}

int ot_view_trace_load(const char *dir, const ot_view_options *o, ot_view_trace **out, char *err, size_t err_size)
{
    ot_view_trace *t = calloc(1, sizeof *t);
    if (!t || setup(t, dir, o)) {
        ot_view_trace_free(t);
        snprintf(err, err_size, "offtrace view: out of memory");
        return -ENOMEM;
    }
    /* the whole trace: --from/--to only say where the page opens */
    ot_view_options whole = *o;
    whole.has_from = whole.has_to = 0;
    ot_view_sink sink = {.user = t, .piece = keep_piece_first, .pieces = count_pieces_first,
                         .finish = finish_pieces, .arrow = keep_arrow, .memory = keep_sample};
    int rc = ot_view_read(dir, t->frame, &whole, &sink, err, err_size);
    if (!rc && make_items(t))
        rc = -ENOMEM;
    if (rc) {
        if (rc == -ENOMEM)
            snprintf(err, err_size, "offtrace view: out of memory");
        ot_view_trace_free(t);
        return rc;
    }
    if (o->has_from && o->from_ns >= t->frame->trace_dur) {
        char f[32], d[32];
        ot_view_format_duration(o->from_ns, f, sizeof f);
        ot_view_format_duration(t->frame->trace_dur, d, sizeof d);
        snprintf(err, err_size, "offtrace view: --from %s is at or past the end of the trace (it lasts %s)", f, d);
        ot_view_trace_free(t);
        return -ERANGE;
    }
    if (put_in_order(t)) {
        snprintf(err, err_size, "offtrace view: out of memory");
        ot_view_trace_free(t);
        return -ENOMEM;
    }
    t->max_level = deepest_level(t->frame->trace_dur);
    *out = t;
    return 0;
}

void ot_view_trace_free(ot_view_trace *t)
{
    if (!t)
        return;
    if (t->items && t->frame)
        for (size_t i = 0; i < t->frame->nrows * OT_VIEW_MAX_DEPTH; i++) {
            free(t->items[i].at);
            free(t->items[i].whole);
            free(t->items[i].iterations);
        }
    free(t->items);
    for (size_t i = 0; i < t->nflows; i++)
        free(t->flows[i].at);
    free(t->flows);
    for (size_t i = 0; i < t->ncounters; i++)
        free(t->counters[i].at);
    free(t->counters);
    for (size_t i = 0; i < t->cache_cap; i++)
        free(t->cache[i].json);
    free(t->cache);
    ot_view_free(t->frame);
    free(t->archive);
    free(t);
}

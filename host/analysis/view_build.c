/**
 * \file view_build.c
 * \brief From events to the picture: a visitor of trace_read.h keeps each
 *        location's stack of open regions and hands every finished region
 *        (or, on the last level, every piece of one between its nested
 *        regions) to view_bucket.c; puts and gets are matched with their
 *        completions into arrows.
 *
 * Nesting: with LAST = --depth - 1, depth d < LAST is drawn on level d;
 * everything at depth >= LAST shares the last level, which shows the
 * innermost region at each moment (as Vampir's master timeline does), so
 * the deep device-side nesting (teams > task > parallel > task > loop >
 * barrier) ends in what the thread was actually doing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_model.h"

/* The last level, where everything nested deeper shares one sub-row. */
#define LAST(b) ((size_t)(b)->v->depth - 1)

typedef struct frame {
    uint32_t region;
    uint64_t enter, piece_start, serial, bytes;
    size_t first_piece;     /* last-level bar count when it opened */
} frame;

typedef struct loc_state {
    frame *stack;
    size_t depth, cap;
    size_t row;
    int is_rdma, device;
} loc_state;

typedef struct pending {
    uint64_t id, t0, bytes;
    size_t host_row;
    int device, to_device;
} pending;

typedef struct build {
    ot_view *v;
    const ot_view_options *o;
    loc_state *locs;        /* by ot_tr_location.index */
    size_t nlocs;
    pending *pend;
    size_t npend, cappend;
    uint64_t serial;
    char msg[512];
} build;

static int failed(build *b, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->msg, sizeof b->msg, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- begin: definitions ---- */

static int copy_regions(ot_view *v, const ot_tr_archive *a)
{
    v->nregions = ot_tr_region_count(a);
    v->region_names = calloc(v->nregions ? v->nregions : 1, sizeof *v->region_names);
    v->region_cat = calloc(v->nregions ? v->nregions : 1, 1);
    if (!v->region_names || !v->region_cat)
        return -ENOMEM;
    for (size_t i = 0; i < v->nregions; i++) {
        const ot_tr_region *r = ot_tr_region_at(a, i);
        if (!r)
            continue;
        if (!(v->region_names[i] = strdup(r->name)))
            return -ENOMEM;
        v->region_cat[i] = (uint8_t)ot_view_category(r);
    }
    return 0;
}

static int map_locations(build *b, const ot_tr_archive *a)
{
    b->nlocs = ot_tr_location_count(a);
    if (!(b->locs = calloc(b->nlocs ? b->nlocs : 1, sizeof *b->locs)))
        return -ENOMEM;
    for (size_t i = 0; i < b->nlocs; i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        b->locs[l->index].row = (size_t)ot_view_row_of(b->v, l->id);
        b->locs[l->index].is_rdma = l->klass == OT_TR_RDMA;
        b->locs[l->index].device = l->device;
    }
    return 0;
}

/* The window: --from/--to relative to the trace start, the trace's range
 * where unset; --to past the end is the end. */
static int set_window(build *b, const ot_tr_archive *a)
{
    ot_view *v = b->v;
    v->trace_start = ot_tr_first_time(a);
    v->trace_dur = ot_tr_duration(a);
    uint64_t from = b->o->has_from ? b->o->from_ns : 0;
    uint64_t to = b->o->has_to && b->o->to_ns < v->trace_dur ? b->o->to_ns : v->trace_dur;
    if (b->o->has_from && from >= v->trace_dur) {
        char f[32], d[32];
        ot_view_format_duration(from, f, sizeof f);
        ot_view_format_duration(v->trace_dur, d, sizeof d);
        return failed(b, -ERANGE, "offtrace view: --from %s is at or past the end of the trace (it lasts %s)", f, d);
    }
    v->w0 = v->trace_start + from;
    v->w1 = v->trace_start + (to > from ? to : from + 1);
    v->px_per_ns = (double)v->plot_w / (double)(v->w1 - v->w0);
    return 0;
}

static int on_begin(void *user, const ot_tr_archive *a)
{
    build *b = user;
    int rc = copy_regions(b->v, a);
    if (!rc)
        rc = ot_view_make_rows(b->v, a);
    if (!rc)
        rc = map_locations(b, a);
    if (rc == -ENOMEM)
        return failed(b, rc, "offtrace view: out of memory");
    return rc ? rc : set_window(b, a);
}

/* ---- regions ---- */

static int push(loc_state *s, const frame *f)
{
    if (s->depth == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        frame *n = realloc(s->stack, cap * sizeof *n);
        if (!n)
            return -ENOMEM;
        s->stack = n;
        s->cap = cap;
    }
    s->stack[s->depth++] = *f;
    return 0;
}

/* Draw [from, to] of frame f on level `level`. A piece of no length between
 * two nested regions is no mark of its own. */
static int draw(build *b, loc_state *s, int level, const frame *f, uint64_t from, uint64_t to, uint64_t dur)
{
    if (to == from && from != f->enter)
        return 0;
    ot_view_piece p = {.start = f->enter, .dur = dur, .bytes = f->bytes, .serial = f->serial, .region = f->region};
    return ot_view_put_region(b->v, &b->v->rows[s->row], level, from, to, &p);
}

/* The bytes of the transfer a "transfer ..." region on an RDMA row stands
 * for: the put/get of the same device issued at its enter time. */
static uint64_t pending_bytes(const build *b, int device, uint64_t t)
{
    for (size_t i = b->npend; i-- > 0;)
        if (b->pend[i].device == device && b->pend[i].t0 == t)
            return b->pend[i].bytes;
    return 0;
}

static int on_enter(void *user, const ot_tr_location *loc, uint64_t t, const ot_tr_region *region)
{
    build *b = user;
    loc_state *s = &b->locs[loc->index];
    b->v->events++;
    frame f = {.region = region->id, .enter = t, .piece_start = t, .serial = ++b->serial};
    if (s->is_rdma && region->klass == OT_TR_TRANSFER)
        f.bytes = pending_bytes(b, s->device, t);
    if (s->depth > LAST(b)) { /* the parent shares the last level: its piece ends here */
        frame *p = &s->stack[s->depth - 1];
        int rc = draw(b, s, (int)LAST(b), p, p->piece_start, t, t - p->enter);
        if (rc)
            return failed(b, rc, "offtrace view: out of memory");
    }
    if (s->depth >= LAST(b))
        f.first_piece = b->v->rows[s->row].level[LAST(b)].nbars;
    return push(s, &f) ? failed(b, -ENOMEM, "offtrace view: out of memory") : 0;
}

/* Pop the top frame at time t and draw it (or its last piece). */
static int close_top(build *b, loc_state *s, uint64_t t)
{
    size_t d = s->depth - 1;
    frame *f = &s->stack[d];
    int rc;
    if (d < LAST(b))
        rc = draw(b, s, (int)d, f, f->enter, t, t - f->enter);
    else {
        rc = draw(b, s, (int)LAST(b), f, f->piece_start, t, t - f->enter);
        ot_view_finish_pieces(&b->v->rows[s->row], (int)LAST(b), f->first_piece, f->serial, t - f->enter);
        if (d > LAST(b))
            s->stack[d - 1].piece_start = t; /* the parent resumes */
    }
    s->depth--;
    return rc ? failed(b, rc, "offtrace view: out of memory") : 0;
}

/* A leave closes its region and whatever a foreign producer left open
 * inside it; a leave of nothing open is ignored. */
static int on_leave(void *user, const ot_tr_location *loc, uint64_t t, const ot_tr_region *region)
{
    build *b = user;
    loc_state *s = &b->locs[loc->index];
    b->v->events++;
    size_t k = s->depth;
    while (k > 0 && s->stack[k - 1].region != region->id)
        k--;
    if (k == 0)
        return 0;
    int rc = 0;
    while (!rc && s->depth >= k)
        rc = close_top(b, s, t);
    return rc;
}

/* ---- transfers ---- */

static loc_state *rdma_of(build *b, int device)
{
    for (size_t i = 0; i < b->nlocs; i++)
        if (b->locs[i].is_rdma && b->locs[i].device == device)
            return &b->locs[i];
    return NULL;
}

static int on_transfer(void *user, const ot_tr_location *loc, uint64_t t, const ot_tr_transfer *x)
{
    build *b = user;
    loc_state *s = &b->locs[loc->index];
    b->v->events++;
    if (s->depth) /* the data op around it */
        s->stack[s->depth - 1].bytes += x->bytes;
    loc_state *r = rdma_of(b, x->device);
    if (r && r->depth && r->stack[r->depth - 1].enter == t) /* its RDMA region came first */
        r->stack[r->depth - 1].bytes = x->bytes;
    if (b->npend == b->cappend) {
        size_t cap = b->cappend ? 2 * b->cappend : 64;
        pending *p = realloc(b->pend, cap * sizeof *p);
        if (!p)
            return failed(b, -ENOMEM, "offtrace view: out of memory");
        b->pend = p;
        b->cappend = cap;
    }
    b->pend[b->npend++] = (pending){.id = x->id, .t0 = t, .bytes = x->bytes, .host_row = s->row,
                                    .device = x->device, .to_device = x->to_device};
    return 0;
}

static int on_complete(void *user, const ot_tr_location *loc, uint64_t t, uint64_t id)
{
    build *b = user;
    b->v->events++;
    for (size_t i = b->npend; i-- > 0;) {
        if (b->pend[i].id != id)
            continue;
        pending p = b->pend[i];
        b->pend[i] = b->pend[--b->npend];
        long rdma = ot_view_rdma_row(b->v, p.device);
        if (rdma < 0) {
            b->v->transfers_undrawn++;
            return 0;
        }
        int rc = ot_view_put_transfer(b->v, p.host_row, (size_t)rdma, p.to_device, p.t0, t, p.bytes);
        return rc ? failed(b, rc, "offtrace view: out of memory") : 0;
    }
    return 0;
}

static int on_memory(void *user, const ot_tr_location *loc, uint64_t t, uint64_t bytes)
{
    ((build *)user)->v->events++;
    return 0;
}

/* ---- the whole build ---- */

/* Regions still open at the end (a producer that did not close them) end
 * with the trace. */
static int close_all(build *b)
{
    uint64_t end = b->v->trace_start + b->v->trace_dur;
    for (size_t i = 0; i < b->nlocs; i++)
        while (b->locs[i].depth)
            if (close_top(b, &b->locs[i], end))
                return -ENOMEM;
    b->v->transfers_undrawn += b->npend;
    return 0;
}

static void build_free(build *b)
{
    for (size_t i = 0; i < b->nlocs; i++)
        free(b->locs[i].stack);
    free(b->locs);
    free(b->pend);
}

int ot_view_build(const char *dir, const ot_view_options *o, ot_view **out, char *err, size_t err_size)
{
    ot_view *v = calloc(1, sizeof *v);
    if (!v || !(v->title = strdup(o->title ? o->title : dir))) {
        free(v);
        snprintf(err, err_size, "offtrace view: out of memory");
        return -ENOMEM;
    }
    v->width = o->width ? o->width : OT_VIEW_DEFAULT_WIDTH;
    v->plot_w = v->width - OT_VIEW_LABEL_W - OT_VIEW_RIGHT_W;
    v->depth = o->depth >= 1 && o->depth <= OT_VIEW_MAX_DEPTH ? o->depth : OT_VIEW_DEFAULT_DEPTH;
    build b = {.v = v, .o = o};
    ot_tr_visitor vis = {.begin = on_begin, .enter = on_enter, .leave = on_leave, .transfer = on_transfer,
                         .transfer_complete = on_complete, .memory = on_memory};
    int rc = ot_trace_read(dir, &vis, &b, err, err_size);
    if (rc == 0)
        rc = close_all(&b);
    if (b.msg[0])
        snprintf(err, err_size, "%s", b.msg);
    else if (rc == -ENOMEM)
        snprintf(err, err_size, "offtrace view: out of memory");
    build_free(&b);
    if (rc) {
        ot_view_free(v);
        return rc;
    }
    ot_view_layout(v);
    *out = v;
    return 0;
}

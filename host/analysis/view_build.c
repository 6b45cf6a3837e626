/**
 * \file view_build.c
 * \brief From events to what is drawn: a visitor of trace_read.h that hands
 *        every region instance the reader pairs (or, on the last level,
 *        every piece of one between its nested regions), every put/get with
 *        its completion, every MPI message with its send and receive and
 *        every device-memory sample to a sink
 *        (ot_view_sink). The static picture's sink buckets them at once
 *        (view_bucket.c, ot_view_build); the zoomable page's keeps them
 *        (view_store.c) to bucket each tile later.
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

/* What the view keeps with a region instance open at depth >= LAST, as the
 * reader's scratch (ot_tr_span.data). */
typedef struct piece_state {
    uint64_t piece_start;   /* where its current piece on the last level began */
    size_t first_piece;     /* last-level bar count when it opened */
} piece_state;

typedef struct build {
    ot_view *v;
    const ot_view_options *o;
    const ot_view_sink *sink;
    const ot_tr_archive *archive;
    size_t *row_of;         /* by ot_tr_location.index */
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

/* "cg.c:23": the site after '@' in the name, else (kernels, whose names
 * have none) the region's source file and line. */
static char *site_of(const ot_tr_region *r)
{
    if (r->site && r->site[0])
        return strdup(r->site);
    if (!r->file || !r->file[0])
        return strdup("");
    const char *base = strrchr(r->file, '/');
    base = base ? base + 1 : r->file;
    char *site;
    if (!r->line)
        return strdup(base);
    return asprintf(&site, "%s:%u", base, r->line) < 0 ? NULL : site;
}

static int copy_regions(ot_view *v, const ot_tr_archive *a)
{
    v->nregions = ot_tr_region_count(a);
    v->region_names = calloc(v->nregions ? v->nregions : 1, sizeof *v->region_names);
    v->region_sites = calloc(v->nregions ? v->nregions : 1, sizeof *v->region_sites);
    v->region_cat = calloc(v->nregions ? v->nregions : 1, 1);
    v->region_variables = calloc(v->nregions ? v->nregions : 1, sizeof *v->region_variables);
    v->region_map_types = calloc(v->nregions ? v->nregions : 1, sizeof *v->region_map_types);
    if (!v->region_names || !v->region_sites || !v->region_cat || !v->region_variables || !v->region_map_types)
        return -ENOMEM;
    for (size_t i = 0; i < v->nregions; i++) {
        const ot_tr_region *r = ot_tr_region_at(a, i);
        if (!r)
            continue;
        if (!(v->region_names[i] = strdup(r->name)) || !(v->region_sites[i] = site_of(r)))
            return -ENOMEM;
        v->region_cat[i] = (uint8_t)ot_view_category(r);
    }
    return 0;
}

static int map_locations(build *b, const ot_tr_archive *a)
{
    size_t n = ot_tr_location_count(a);
    if (!(b->row_of = calloc(n ? n : 1, sizeof *b->row_of)))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        b->row_of[l->index] = (size_t)ot_view_row_of(b->v, l->id);
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
    b->archive = a;
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

/* Draw [from, to] of a region instance on level `level`. A piece of no
 * length between two nested regions is no mark of its own. */
static int draw(build *b, const ot_tr_location *loc, int level, const ot_tr_span *span, uint64_t from, uint64_t to,
                uint64_t dur)
{
    if (to == from && from != span->begin)
        return 0;
    const ot_tr_span *parent = span->depth ? ot_tr_open_span(b->archive, loc, span->depth - 1) : NULL;
    ot_view_piece p = {.start = span->begin, .dur = dur, .bytes = span->bytes, .serial = span->serial,
                       .region = span->region->id, .parent = parent ? (int32_t)parent->region->id : -1};
    if (span->attrs >> OT_TR_ATTR_ITERATIONS & 1) { /* host OpenMP: a loop's trip count, a chunk's iterations */
        p.has_iterations = span->attrs >> OT_TR_ATTR_FIRST_ITERATION & 1 ? 2 : 1;
        p.iterations = span->attr[OT_TR_ATTR_ITERATIONS];
        p.first_iteration = span->attr[OT_TR_ATTR_FIRST_ITERATION];
    } else if (span->attrs >> OT_TR_ATTR_TASK_ID & 1 && span->attrs >> OT_TR_ATTR_TASK_FLAGS & 1) {
        p.has_iterations = 3; /* an explicit task's creation or period: its id and flags */
        p.iterations = span->attr[OT_TR_ATTR_TASK_ID];
        p.first_iteration = span->attr[OT_TR_ATTR_TASK_FLAGS];
    }
    int rc = b->sink->piece(b->sink->user, b->row_of[loc->index], level, from, to, &p);
    return rc ? failed(b, rc, "offtrace view: out of memory") : 0;
}

/* A data op's variable and map type, kept once per region (its details in the page). */
static int note_variable(build *b, const ot_tr_span *span)
{
    ot_view *v = b->v;
    uint32_t id = span->region->id;
    if (id >= v->nregions || !v->region_variables || v->region_variables[id])
        return 0;
    if (!(v->region_variables[id] = strdup(span->map.variable)))
        return failed(b, -ENOMEM, "offtrace view: out of memory");
    char *type = NULL;
    if (span->map.map_type &&
        asprintf(&type, "%s%s", span->map.map_type, span->map.implicit == 1 ? ", implicit" : "") < 0)
        return failed(b, -ENOMEM, "offtrace view: out of memory");
    v->region_map_types[id] = type;
    return 0;
}

static int on_enter(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    build *b = user;
    if (span->map.variable) {
        int rc = note_variable(b, span);
        if (rc)
            return rc;
    }
    piece_state *ps = span->data;
    ps->piece_start = span->begin;
    if (span->depth > LAST(b)) { /* the parent shares the last level: its piece ends here */
        const ot_tr_span *parent = ot_tr_open_span(b->archive, loc, span->depth - 1);
        const piece_state *pp = parent->data;
        int rc = draw(b, loc, (int)LAST(b), parent, pp->piece_start, span->begin, span->begin - parent->begin);
        if (rc)
            return rc;
    }
    if (span->depth >= LAST(b))
        ps->first_piece = b->sink->pieces(b->sink->user, b->row_of[loc->index], (int)LAST(b));
    return 0;
}

/* Draw the instance (or its last piece); on the last level its parent resumes. */
static int on_leave(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    build *b = user;
    const piece_state *ps = span->data;
    uint64_t t = span->end;
    if (span->depth < LAST(b))
        return draw(b, loc, (int)span->depth, span, span->begin, t, t - span->begin);
    int rc = draw(b, loc, (int)LAST(b), span, ps->piece_start, t, t - span->begin);
    b->sink->finish(b->sink->user, b->row_of[loc->index], (int)LAST(b), ps->first_piece, span->serial,
                    t - span->begin);
    if (span->depth > LAST(b))
        ((piece_state *)ot_tr_open_span(b->archive, loc, span->depth - 1)->data)->piece_start = t;
    return rc;
}

/* ---- transfers ---- */

static int on_transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    build *b = user;
    long rdma = ot_view_rdma_row(b->v, x->device);
    if (!x->completed || rdma < 0) {
        b->v->transfers_undrawn++;
        return 0;
    }
    ot_view_arrow_kind kind = x->to_device ? OT_VIEW_H2D : OT_VIEW_D2H;
    int rc = b->sink->arrow(b->sink->user, b->row_of[loc->index], (size_t)rdma, kind, x->issued, x->completed,
                            x->bytes);
    return rc ? failed(b, rc, "offtrace view: out of memory") : 0;
}

/* ---- MPI messages (issue 16) ---- */

/* An arrow from the sender's row at the send to the receiver's row at the
 * receive, on the transfers' path (same bucketing, same tiles). A message
 * whose send or receive is not in the archive (a rank died, a part is
 * missing) has nowhere to go: counted, not drawn. */
static int on_message(void *user, const ot_tr_message *m)
{
    build *b = user;
    size_t from = m->sender ? b->row_of[m->sender->index] : (size_t)-1;
    size_t to = m->receiver ? b->row_of[m->receiver->index] : (size_t)-1;
    if (from >= b->v->nrows || to >= b->v->nrows) {
        b->v->messages_undrawn++;
        return 0;
    }
    int rc = b->sink->arrow(b->sink->user, from, to, OT_VIEW_MESSAGE, m->send_time, m->recv_time, m->bytes);
    return rc ? failed(b, rc, "offtrace view: out of memory") : 0;
}

/* ---- device memory ---- */

static int on_memory(void *user, const ot_tr_location *loc, uint64_t time, uint64_t bytes_in_use)
{
    build *b = user;
    if (!b->sink->memory)
        return 0;
    int rc = b->sink->memory(b->sink->user, b->row_of[loc->index], time, bytes_in_use);
    return rc ? failed(b, rc, "offtrace view: out of memory") : 0;
}

static int on_end(void *user, const ot_tr_archive *a)
{
    ((build *)user)->v->events = ot_tr_events(a);
    return 0;
}

/* ---- the whole read ---- */

int ot_view_read(const char *dir, ot_view *v, const ot_view_options *o, const ot_view_sink *sink, char *err,
                 size_t err_size)
{
    v->depth = o->depth >= 1 && o->depth <= OT_VIEW_MAX_DEPTH ? o->depth : OT_VIEW_DEFAULT_DEPTH;
    build b = {.v = v, .o = o, .sink = sink};
    ot_tr_visitor vis = {.span_data = sizeof(piece_state), .begin = on_begin, .enter = on_enter,
                         .leave = on_leave, .transfer = on_transfer, .message = on_message,
                         .memory = sink->memory ? on_memory : NULL, .end = on_end};
    int rc = ot_trace_read(dir, &vis, &b, err, err_size);
    if (b.msg[0])
        snprintf(err, err_size, "%s", b.msg);
    else if (rc == -ENOMEM)
        snprintf(err, err_size, "offtrace view: out of memory");
    free(b.row_of);
    return rc;
}

/* ---- the static picture: every piece bucketed as it comes ---- */

static int bucket_piece(void *user, size_t row, int level, uint64_t a, uint64_t b, const ot_view_piece *p)
{
    ot_view *v = user;
    return ot_view_put_region(v, &v->rows[row], level, a, b, p);
}

static size_t bucket_pieces(void *user, size_t row, int level)
{
    return ((ot_view *)user)->rows[row].level[level].nbars;
}

static void bucket_finish(void *user, size_t row, int level, size_t first, uint64_t serial, uint64_t dur)
{
    ot_view_finish_pieces(&((ot_view *)user)->rows[row], level, first, serial, dur);
}

static int bucket_arrow(void *user, size_t row_a, size_t row_b, ot_view_arrow_kind kind, uint64_t t0, uint64_t t1,
                        uint64_t bytes)
{
    return ot_view_put_arrow(user, row_a, row_b, kind, t0, t1, bytes);
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
    ot_view_sink sink = {.user = v, .piece = bucket_piece, .pieces = bucket_pieces, .finish = bucket_finish,
                         .arrow = bucket_arrow};
    int rc = ot_view_read(dir, v, o, &sink, err, err_size);
    if (rc) {
        ot_view_free(v);
        return rc;
    }
    ot_view_layout(v);
    *out = v;
    return 0;
}

/**
 * \file user_pass.c
 * \brief USER_* records to OTF2 (issue 14).
 *
 * A user region is a region of class USER_REGION (paradigm USER, role
 * FUNCTION, the call site's file and line), a user event one of class
 * USER_EVENT (role CODE), both entered and left on the thread's location
 * through the host pass's stack (ot_cv_pass_open/close), so they nest with
 * the target constructs and host OpenMP inside and around them. Events may
 * overlap regions: the pass leaves and re-enters what lies above an item
 * closed out of order, as OTF2 wants strict nesting per location.
 *
 * An event ended on another thread than the one that began it is shown on
 * the thread that began it, from its begin to the time the other thread
 * ended it (a Leave there, in that location's time order); nothing is
 * written on the ending thread. Before the threads' passes one read of the
 * USER_EVENT records pairs them (ot_user_pair_events): per thread, an end
 * closes the latest begin of its id open on that thread; the begins left
 * open on their thread and the ends that found none there are paired per
 * id in time order, each end with the earliest begin before it. What stays
 * unpaired is as before: an end counts as unmatched (UNMATCHED_END_RECORDS),
 * a begin stays open to its thread's last record (UNFINISHED_OPERATIONS).
 *
 * A value is an OTF2 Metric event on the thread, of a metric of its own per
 * name (ot_tw_user_metric), typed int64, uint64 or double as defined.
 */
#include "user_pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "host_mutex.h"
#include "raw_reader.h"
#include "regular_file.h"
#include "trace_writer.h"
#include "../../user/user_recorder.h"

typedef struct user_def {
    uint32_t kind; /* enum ot_user_def_kind; 0: not defined */
    uint32_t line;
    char *name, *file;
    OTF2_RegionRef region;
    OTF2_MetricRef metric;
    int made;      /* region or metric interned */
} user_def;

/* Events ended on another thread (ot_user_pair_events): per host stream, by
 * the ordinal of the event record among the stream's event records. */
typedef struct cross_close {
    uint64_t ordinal;  /* a begin left open on its thread ... */
    uint64_t close_ns; /* ... closed at the other thread's end */
} cross_close;

typedef struct cross_open {
    uint64_t key;      /* its open item's id: CROSS_KEY(ordinal, id) */
    uint64_t close_ns;
} cross_open;

typedef struct cross_thread {
    cross_close *closes;   /* by ordinal */
    size_t close_count, next_close;
    uint64_t *foreign;     /* ordinals of ends that close another thread's begin, ascending */
    size_t foreign_count, next_foreign;
    uint64_t seen;         /* event records met so far in the pass */
    cross_open *open;      /* begun in the pass, waiting for their close time */
    size_t open_count, open_cap;
} cross_thread;

/* An open item's id for an event closed by another thread: apart from the
 * ids of its own begins (< MAX_USER_ID), one per begin. */
#define CROSS_KEY(ordinal, id) ((1ull << 63) | ((uint64_t)(ordinal) << 21) | (id))

struct ot_user_defs {
    user_def *by_id; /* index = id */
    uint32_t count;  /* ids 1..count-1 may be defined */
    int has_events;  /* some id is an event */
    cross_thread *cross; /* per host stream; NULL when no event crossed threads */
    size_t cross_count;
};

/* Ids are dense from 1 (the API library's); a bound keeps a damaged file
 * from asking for a huge table. */
#define MAX_USER_ID (1u << 20)

static char *copy_bytes(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

static int add_def(struct ot_user_defs *u, uint32_t id, uint32_t kind, uint32_t line, const char *name,
                   size_t name_len, const char *file, size_t file_len)
{
    if (id >= u->count) {
        uint32_t grown = u->count ? u->count : 64;
        while (grown <= id)
            grown *= 2;
        user_def *more = realloc(u->by_id, grown * sizeof *more);
        if (!more)
            return -ENOMEM;
        memset(more + u->count, 0, (grown - u->count) * sizeof *more);
        u->by_id = more;
        u->count = grown;
    }
    user_def *d = &u->by_id[id];
    if (d->kind) /* the first definition of an id wins */
        return 0;
    d->name = copy_bytes(name, name_len);
    d->file = file_len ? copy_bytes(file, file_len) : NULL;
    if (!d->name || (file_len && !d->file))
        return -ENOMEM;
    d->kind = kind;
    d->line = line;
    u->has_events |= kind == OT_USER_DEF_EVENT;
    return 0;
}

/* The API library's refused calls, left by the recorder at detach (no file: none). */
static void load_dropped(converter *c, const char *raw_dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", raw_dir, OT_USER_DROPPED_FILE);
    FILE *f = ot_fopen_regular(path);
    if (!f)
        return;
    unsigned long long n = 0;
    if (fscanf(f, "%llu", &n) == 1)
        c->user_calls_dropped = n;
    fclose(f);
}

/* The definitions in text[at..used): the bytes read. \p whole: the file is
 * complete (a damaged definition ends the reading and is counted); else one
 * that does not read whole may be one the program is still writing: read
 * again next time. -ENOMEM. */
static int parse_defs(converter *c, struct ot_user_defs *u, const char *text, size_t at, size_t used, int whole,
                      size_t *read_to)
{
    int rc = 0;
    while (rc == 0 && at < used) {
        unsigned id, kind, line;
        size_t name_len, file_len;
        int head = 0;
        char field[96];
        size_t field_len = used - at < sizeof field - 1 ? used - at : sizeof field - 1;
        memcpy(field, text + at, field_len);
        field[field_len] = 0;
        if (sscanf(field, "%u %u %u %zu %zu %n", &id, &kind, &line, &name_len, &file_len, &head) != 5 || !head ||
            field[head - 1] != ' ' || id == 0 || id >= MAX_USER_ID || kind < OT_USER_DEF_REGION ||
            kind > OT_USER_DEF_VALUE_DOUBLE || name_len > OFFTRACE_RAW_USER_NAME_MAX ||
            file_len > OFFTRACE_RAW_USER_NAME_MAX || used - at - (size_t)head < name_len + file_len + 1 ||
            text[at + (size_t)head + name_len + file_len] != '\n' ||
            memchr(text + at + head, 0, name_len + file_len)) {
            c->user_defs_damaged += whole;
            break; /* a cut or damaged tail: the definitions before it stand */
        }
        const char *name = text + at + head;
        rc = add_def(u, id, kind, line, name, name_len, name + name_len, file_len);
        at += (size_t)head + name_len + file_len + 1;
    }
    *read_to = at;
    return rc;
}

static int parse_more(void *context, int whole, const char *text, size_t at, size_t used, size_t *read_to)
{
    converter *c = context;
    if (!c->user && !(c->user = calloc(1, sizeof *c->user)))
        return -ENOMEM;
    return parse_defs(c, c->user, text, at, used, whole, read_to);
}


int ot_user_defs_load(converter *c, const char *raw_dir)
{
    load_dropped(c, raw_dir);
    ot_defs_reread_setup(&c->user_defs_read, raw_dir, OFFTRACE_RAW_USER_DEFS, parse_more, c);
    int rc = ot_defs_reread(&c->user_defs_read, !c->live);
    return rc == -EPROTO ? 0 : rc; /* not at the first reading */
}

int ot_user_defs_live_end(converter *c, const char *raw_dir, size_t streams)
{
    size_t before = 0, after = 0;
    for (uint32_t i = 0; c->user && i < c->user->count; i++)
        before += c->user->by_id[i].kind != 0;
    load_dropped(c, raw_dir); /* left at the program's end */
    int rc = ot_defs_reread(&c->user_defs_read, 1);
    for (uint32_t i = 0; c->user && i < c->user->count; i++)
        after += c->user->by_id[i].kind != 0;
    if (rc)
        return rc;
    /* an id asked for in vain and defined since: the conversion after the end knows it; events of a
     * program of several threads are paired across them before the first stream is written */
    if ((c->user_defs_read.missed && after != before) || (c->user && c->user->has_events && streams > 1))
        return -EPROTO;
    return 0;
}

void ot_user_defs_free(converter *c)
{
    struct ot_user_defs *u = c->user;
    if (!u)
        return;
    for (uint32_t i = 0; i < u->count; i++) {
        free(u->by_id[i].name);
        free(u->by_id[i].file);
    }
    for (size_t i = 0; u->cross && i < u->cross_count; i++) {
        free(u->cross[i].closes);
        free(u->cross[i].foreign);
        free(u->cross[i].open);
    }
    free(u->cross);
    free(u->by_id);
    free(u);
    c->user = NULL;
}

static OTF2_Type metric_type(uint32_t kind)
{
    return kind == OT_USER_DEF_VALUE_DOUBLE ? OTF2_TYPE_DOUBLE
         : kind == OT_USER_DEF_VALUE_UINT64 ? OTF2_TYPE_UINT64
                                            : OTF2_TYPE_INT64;
}

/* The definition of a record's id when it is of the record's kind, its
 * region or metric interned on first use; NULL otherwise. */
static user_def *def_for(converter *c, const offtrace_raw_record *r)
{
    struct ot_user_defs *u = c->user;
    if (__builtin_expect(c->live, 0) && r->id && r->id < MAX_USER_ID &&
        (!u || r->id >= u->count || !u->by_id[r->id].kind)) {
        ot_defs_reread_for_missing(&c->user_defs_read);
        u = c->user;
    }
    if (!u || r->id == 0 || r->id >= u->count)
        return NULL;
    user_def *d = &u->by_id[r->id];
    int fits = r->event == OFFTRACE_RAW_USER_REGION ? d->kind == OT_USER_DEF_REGION
             : r->event == OFFTRACE_RAW_USER_EVENT  ? d->kind == OT_USER_DEF_EVENT
                                                    : d->kind >= OT_USER_DEF_VALUE_INT64;
    if (!fits)
        return NULL;
    if (!d->made) {
        if (d->kind == OT_USER_DEF_REGION || d->kind == OT_USER_DEF_EVENT)
            d->region = ot_tw_region(c->tw, d->kind == OT_USER_DEF_REGION ? OFFTRACE_CLASS_USER_REGION
                                                                          : OFFTRACE_CLASS_USER_EVENT,
                                     d->name, d->file, d->line, d->line);
        else
            d->metric = ot_tw_user_metric(c->tw, d->name, metric_type(d->kind));
        d->made = 1;
    }
    return d;
}

/* ---- events ended on another thread ---- */

/* Whether \p r is an event record the passes pair: the pre-read and the pass count the same ones. */
static int is_paired_event(const struct ot_user_defs *u, const offtrace_raw_record *r)
{
    return r->event == OFFTRACE_RAW_USER_EVENT && r->id && r->id < u->count &&
           u->by_id[r->id].kind == OT_USER_DEF_EVENT &&
           (r->endpoint == OFFTRACE_RAW_BEGIN || r->endpoint == OFFTRACE_RAW_END);
}

typedef struct loose_end {
    uint64_t id, ns, ordinal;
    size_t stream;
} loose_end;

typedef struct loose_list {
    loose_end *at;
    size_t count, cap;
} loose_list;

static int loose_add(loose_list *l, loose_end e)
{
    if (l->count == l->cap) {
        size_t n = l->cap ? l->cap * 2 : 64;
        loose_end *more = realloc(l->at, n * sizeof *more);
        if (!more)
            return -ENOMEM;
        l->at = more;
        l->cap = n;
    }
    l->at[l->count++] = e;
    return 0;
}

static int by_id_then_time(const void *a, const void *b)
{
    const loose_end *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->ns != y->ns)
        return x->ns < y->ns ? -1 : 1;
    return x->stream != y->stream ? (x->stream < y->stream ? -1 : 1) : (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

static int by_ordinal(const void *a, const void *b)
{
    const cross_close *x = a, *y = b;
    return (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* One stream's event records: its ends that close a begin of its own (the
 * latest open of the id), the begins left open (to \p orphans) and the ends
 * that found none (to \p ends). */
static int scan_stream(converter *c, size_t si, loose_list *orphans, loose_list *ends)
{
    struct ot_user_defs *u = c->user;
    ot_raw_cursor cur = {.fd = -1};
    if (ot_raw_cursor_open(&cur, &c->rec.streams[si]) != 0)
        return 0; /* the pass will say so */
    loose_list open = {0};
    uint64_t ordinal = 0;
    int rc = 0;
    for (const offtrace_raw_record *r; rc == 0 && (r = ot_raw_cursor_next(&cur));) {
        if (!is_paired_event(u, r))
            continue;
        loose_end e = {.id = r->id, .ns = ot_cv_to_ns(c, r->time), .ordinal = ordinal++, .stream = si};
        if (r->endpoint == OFFTRACE_RAW_BEGIN) {
            rc = loose_add(&open, e);
            continue;
        }
        size_t i = open.count;
        while (i-- > 0 && open.at[i].id != e.id)
            ;
        if (i == (size_t)-1)
            rc = loose_add(ends, e);
        else
            memmove(&open.at[i], &open.at[i + 1], (--open.count - i) * sizeof *open.at);
    }
    for (size_t i = 0; rc == 0 && i < open.count; i++)
        rc = loose_add(orphans, open.at[i]);
    free(open.at);
    ot_raw_cursor_close(&cur);
    return rc;
}

static int cross_add_close(cross_thread *x, uint64_t ordinal, uint64_t ns)
{
    cross_close *more = realloc(x->closes, (x->close_count + 1) * sizeof *more);
    if (!more)
        return -ENOMEM;
    x->closes = more;
    x->closes[x->close_count++] = (cross_close){.ordinal = ordinal, .close_ns = ns};
    return 0;
}

static int cross_add_foreign(cross_thread *x, uint64_t ordinal)
{
    uint64_t *more = realloc(x->foreign, (x->foreign_count + 1) * sizeof *more);
    if (!more)
        return -ENOMEM;
    x->foreign = more;
    x->foreign[x->foreign_count++] = ordinal;
    return 0;
}

int ot_user_pair_events(converter *c)
{
    struct ot_user_defs *u = c->user;
    if (!u || !u->has_events || c->rec.stream_count < 2)
        return 0;
    loose_list orphans = {0}, ends = {0};
    int rc = 0;
    for (size_t si = 0; rc == 0 && si < c->rec.stream_count; si++)
        rc = scan_stream(c, si, &orphans, &ends);
    if (rc == 0 && orphans.count && ends.count) {
        qsort(orphans.at, orphans.count, sizeof *orphans.at, by_id_then_time);
        qsort(ends.at, ends.count, sizeof *ends.at, by_id_then_time);
        u->cross = calloc(c->rec.stream_count, sizeof *u->cross);
        u->cross_count = c->rec.stream_count;
        rc = u->cross ? 0 : -ENOMEM;
        /* per id, in time order: each end takes the earliest begin before it not yet taken */
        size_t b = 0;
        for (size_t e = 0; rc == 0 && e < ends.count; e++) {
            const loose_end *end = &ends.at[e];
            while (b < orphans.count && orphans.at[b].id < end->id)
                b++;
            if (b == orphans.count || orphans.at[b].id != end->id || orphans.at[b].ns > end->ns ||
                orphans.at[b].stream == end->stream)
                continue;
            const loose_end *begin = &orphans.at[b++];
            rc = cross_add_close(&u->cross[begin->stream], begin->ordinal, end->ns);
            if (rc == 0)
                rc = cross_add_foreign(&u->cross[end->stream], end->ordinal);
        }
        for (size_t si = 0; rc == 0 && si < u->cross_count; si++) {
            cross_thread *x = &u->cross[si];
            if (x->close_count > 1)
                qsort(x->closes, x->close_count, sizeof *x->closes, by_ordinal);
            if (x->foreign_count > 1)
                qsort(x->foreign, x->foreign_count, sizeof *x->foreign, by_value);
        }
    }
    free(orphans.at);
    free(ends.at);
    return rc;
}

static cross_thread *cross_of(thread_pass *p)
{
    struct ot_user_defs *u = ot_cv_pass_converter(p)->user;
    if (!u || !u->cross)
        return NULL;
    size_t si = ot_cv_pass_stream_index(p);
    return si < u->cross_count ? &u->cross[si] : NULL;
}

void ot_user_close_due(thread_pass *p, uint64_t t)
{
    cross_thread *x = cross_of(p);
    if (!x || !x->open_count)
        return;
    for (size_t i = 0; i < x->open_count;) {
        cross_open o = x->open[i];
        if (o.close_ns > t) {
            i++;
            continue;
        }
        uint64_t at = o.close_ns > ot_cv_pass_last_time(p) ? o.close_ns : ot_cv_pass_last_time(p);
        memmove(&x->open[i], &x->open[i + 1], (--x->open_count - i) * sizeof *x->open);
        /* the other thread's end (not NULL: that would be an operation the program never finished) */
        offtrace_raw_record end = {.event = OFFTRACE_RAW_USER_EVENT, .endpoint = OFFTRACE_RAW_END,
                                   .id = (uint32_t)(o.key & (MAX_USER_ID - 1))};
        ot_cv_pass_close(p, OFFTRACE_RAW_USER_EVENT, o.key, at, &end);
        ot_cv_pass_advance(p, at);
    }
}

/* An event record's part in a crossing: 1 a begin another thread ends (opened with its own key),
 * 2 an end of another thread's begin (written there), 0 neither. */
static int crossing(thread_pass *p, const offtrace_raw_record *r, uint64_t *key, uint64_t *close_ns)
{
    cross_thread *x = cross_of(p);
    if (!x || !is_paired_event(ot_cv_pass_converter(p)->user, r))
        return 0;
    uint64_t ordinal = x->seen++;
    if (r->endpoint == OFFTRACE_RAW_BEGIN && x->next_close < x->close_count &&
        x->closes[x->next_close].ordinal == ordinal) {
        *key = CROSS_KEY(ordinal, r->id);
        *close_ns = x->closes[x->next_close++].close_ns;
        return 1;
    }
    if (r->endpoint == OFFTRACE_RAW_END && x->next_foreign < x->foreign_count &&
        x->foreign[x->next_foreign] == ordinal) {
        x->next_foreign++;
        return 2;
    }
    return 0;
}

static void open_crossing(thread_pass *p, uint64_t key, uint64_t close_ns, OTF2_RegionRef region, uint64_t t)
{
    cross_thread *x = cross_of(p);
    if (x->open_count == x->open_cap) {
        size_t n = x->open_cap ? x->open_cap * 2 : 8;
        cross_open *more = realloc(x->open, n * sizeof *more);
        if (!more) { /* out of memory: shown as before, open to the thread's end */
            ot_cv_pass_open(p, OFFTRACE_RAW_USER_EVENT, key, region, t);
            return;
        }
        x->open = more;
        x->open_cap = n;
    }
    if (ot_cv_pass_open(p, OFFTRACE_RAW_USER_EVENT, key, region, t) == 0)
        x->open[x->open_count++] = (cross_open){.key = key, .close_ns = close_ns};
}

void ot_user_convert(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_cv_pass_converter(p);
    user_def *d = def_for(c, r);
    if (!d) { /* an id user.defs does not define (as that kind): damage, or a definition lost */
        c->user_records_undefined++;
        return;
    }
    uint64_t key, close_ns;
    switch (crossing(p, r, &key, &close_ns)) {
    case 1:
        open_crossing(p, key, close_ns, d->region, t);
        return;
    case 2:
        return;
    default:
        break;
    }
    if (r->event == OFFTRACE_RAW_USER_VALUE) {
        if (d->metric == OTF2_UNDEFINED_METRIC)
            return;
        OTF2_Type type = metric_type(d->kind);
        OTF2_MetricValue value = {.unsigned_int = r->bytes}; /* the bits, whichever the type */
        OTF2_EvtWriter_Metric(ot_cv_pass_writer(p), NULL, t, d->metric, 1, &type, &value);
        ot_tw_cover(c->tw, t);
        return;
    }
    if (r->endpoint == OFFTRACE_RAW_BEGIN)
        ot_cv_pass_open(p, r->event, r->id, d->region, t);
    else if (r->endpoint == OFFTRACE_RAW_END)
        ot_cv_pass_close(p, r->event, r->id, t, r);
    else
        c->damaged_records++;
}

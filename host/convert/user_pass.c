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
 * An event ended on another thread than the one that began it: pairing is
 * per thread, so the end counts as unmatched (UNMATCHED_END_RECORDS) and the
 * begin stays open to its thread's last record (UNFINISHED_OPERATIONS).
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

struct ot_user_defs {
    user_def *by_id; /* index = id */
    uint32_t count;  /* ids 1..count-1 may be defined */
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

int ot_user_defs_load(converter *c, const char *raw_dir)
{
    char path[4096];
    load_dropped(c, raw_dir);
    snprintf(path, sizeof path, "%s/%s", raw_dir, OFFTRACE_RAW_USER_DEFS);
    FILE *f = ot_fopen_regular(path);
    if (!f)
        return 0;
    struct ot_user_defs *u = calloc(1, sizeof *u);
    char *text = NULL;
    size_t size = 0, used = 0;
    int rc = u ? 0 : -ENOMEM;
    while (rc == 0) {
        if (used + 4096 > size) {
            char *more = realloc(text, size = size ? size * 2 : 65536);
            if (!more) {
                rc = -ENOMEM;
                break;
            }
            text = more;
        }
        size_t n = fread(text + used, 1, size - used, f);
        used += n;
        if (n == 0)
            break;
    }
    fclose(f);
    for (size_t at = 0; rc == 0 && at < used;) {
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
            text[at + (size_t)head + name_len + file_len] != '\n') {
            c->user_defs_damaged++;
            break; /* a cut or damaged tail: the definitions before it stand */
        }
        const char *name = text + at + head;
        if (memchr(name, 0, name_len + file_len)) {
            c->user_defs_damaged++;
            break;
        }
        rc = add_def(u, id, kind, line, name, name_len, name + name_len, file_len);
        at += (size_t)head + name_len + file_len + 1;
    }
    free(text);
    c->user = u;
    return rc;
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

void ot_user_convert(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_cv_pass_converter(p);
    user_def *d = def_for(c, r);
    if (!d) { /* an id user.defs does not define (as that kind): damage, or a definition lost */
        c->user_records_undefined++;
        return;
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

/**
 * \file report_collect.c
 * \brief The report's visitor: host threads' construct instances (what
 *        each construct site cost), the memory metric, and the setup and
 *        wrap-up of the pass. Kernels and transfers are in
 *        report_kernels.c and report_transfers.c.
 *
 * A construct instance is one Enter..Leave of a `target`, `target enter
 * data`, `target exit data`, `target update` or omp_target_* region on a
 * host thread. `target data` spans are not instances: they hold host code
 * as well, and the enter/exit data inside them are counted on their own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offtrace/event_catalogue.h"
#include "report_state.h"

/* ---- rows ---- */

int32_t rp_add_row(void **rows, size_t *count, size_t *cap, size_t size)
{
    if (*count == *cap) {
        size_t n = *cap ? *cap * 2 : 16;
        void *p = realloc(*rows, n * size);
        if (!p)
            return -1;
        *rows = p;
        *cap = n;
    }
    memset((char *)*rows + *count * size, 0, size);
    return (int32_t)(*count)++;
}

/* The report column of the catalogue, by class (OT_RP_NONE: no construct). */
#define OT_RP_NONE OT_RP_KINDS
static const uint8_t report_columns[OFFTRACE_CLASS_COUNT] = {
    [OFFTRACE_CLASS_NONE] = OT_RP_NONE,
#define REPORT_COLUMN(c, source, name, form, role, paradigm, location, reader, construct, op, nowait, view, export, \
                      report)                                                                                     \
    [OFFTRACE_CLASS_##c] = OT_RP_##report,
    OFFTRACE_EVENT_CLASSES(REPORT_COLUMN)
#undef REPORT_COLUMN
};

/* Sites are made for construct regions only; anything else counts as a target. */
static ot_rp_kind kind_of(const ot_tr_region *region)
{
    int cls = region->cls > 0 && region->cls < OFFTRACE_CLASS_COUNT ? region->cls : 0;
    return report_columns[cls] == OT_RP_NONE ? OT_RP_TARGET : (ot_rp_kind)report_columns[cls];
}

static int32_t new_site(rp_state *s, const char *name, const char *site, const char *file, uint32_t line,
                        ot_rp_kind kind)
{
    ot_report *r = s->r;
    int32_t i = rp_add_row((void **)&r->sites, &r->site_count, &r->site_cap, sizeof *r->sites);
    if (i < 0)
        return -1;
    ot_rp_site *x = &r->sites[i];
    x->name = strdup(name);
    x->site = strdup(site);
    x->file = strdup(file);
    x->line = line;
    x->kind = kind;
    x->device = -1;
    x->ev.trip_partner = -1;
    x->ev.repeat_device = -1;
    if (!x->name || !x->site || !x->file)
        return -1;
    return i;
}

int32_t rp_site_of(rp_state *s, const ot_tr_region *region)
{
    size_t ri = region->id;
    if (ri < s->region_count && s->site_of_region[ri] >= 0)
        return s->site_of_region[ri];
    int32_t i = new_site(s, region->name, region->site[0] ? region->site : region->name, region->file,
                         region->line, kind_of(region));
    if (i < 0) {
        s->failed = 1;
        return -1;
    }
    s->r->sites[i].nowait = region->nowait;
    if (ri < s->region_count)
        s->site_of_region[ri] = i;
    return i;
}

int32_t rp_outside_site(rp_state *s)
{
    if (s->outside_site < 0)
        s->outside_site = new_site(s, "(outside constructs)", "(outside)", "", 0, OT_RP_OUTSIDE);
    if (s->outside_site < 0)
        s->failed = 1;
    return s->outside_site;
}

ot_rp_device *rp_device(rp_state *s, int device)
{
    if (device < 0 || (size_t)device >= s->r->device_count || !s->device_seen[device])
        return NULL;
    return &s->r->devices[device];
}

/* ---- construct instances ---- */

rp_frame *rp_top_frame(rp_thread *t)
{
    return t->depth ? &t->frames[t->depth - 1] : NULL;
}

rp_frame *rp_frame_by_serial(rp_thread *t, uint64_t serial)
{
    for (int i = t->depth - 1; i >= 0; i--)
        if (t->frames[i].serial == serial)
            return &t->frames[i];
    return NULL;
}

void rp_frame_busy(rp_frame *f, uint64_t t)
{
    if (f->active++ == 0)
        f->busy_since = t;
}

void rp_frame_idle(rp_frame *f, uint64_t t)
{
    if (f->active && --f->active == 0)
        f->busy_ns += t - f->busy_since;
}

void rp_frame_device(rp_state *s, rp_frame *f, int device)
{
    if (!f || device < 0)
        return;
    if (f->device < 0)
        f->device = device;
    ot_rp_site *x = &s->r->sites[f->site];
    if (x->device == -1)
        x->device = device;
    else if (x->device != device)
        x->device = -2;
}

static void instance_begin(rp_state *s, rp_thread *t, uint64_t time, const ot_tr_region *region)
{
    if (t->depth == RP_MAX_FRAMES) {
        t->overflow++;
        return;
    }
    int32_t site = rp_site_of(s, region);
    if (site < 0)
        return;
    if (t->depth == 0 && s->threads_inside++ == 0)
        s->inside_since = time;
    t->frames[t->depth++] = (rp_frame){.region = region, .site = site, .serial = ++s->next_serial,
                                       .enter = time, .device = -1};
    ot_rp_site *x = &s->r->sites[site];
    x->count++;
    s->r->summary.constructs[x->kind]++;
}

static void instance_end(rp_state *s, rp_thread *t, rp_frame *f, uint64_t time)
{
    uint64_t ns = time - f->enter;
    if (f->active)
        f->busy_ns += time - f->busy_since;
    ot_rp_site *x = &s->r->sites[f->site];
    x->host_ns += ns;
    if (ns > x->max_ns)
        x->max_ns = ns;
    x->busy_ns += f->busy_ns < ns ? f->busy_ns : ns;
    rp_streak_instance_end(t, f, ns > f->kernel_ns ? ns - f->kernel_ns : 0);
}

static void leave_instance(rp_state *s, rp_thread *t, uint64_t time, const ot_tr_region *region)
{
    int i = t->depth - 1;
    while (i >= 0 && t->frames[i].region != region)
        i--;
    if (i < 0) { /* one of those that did not fit */
        if (t->overflow)
            t->overflow--;
        return;
    }
    /* Well-nested archives end the innermost; anything above it ends too. */
    for (int j = t->depth - 1; j >= i; j--)
        instance_end(s, t, &t->frames[j], time);
    t->depth = i;
    if (t->depth == 0 && --s->threads_inside == 0)
        s->r->summary.inside_ns += time - s->inside_since;
}

/* ---- the visitor ---- */

static int is_instance(const ot_tr_region *region)
{
    return region->klass == OT_TR_TARGET || region->klass == OT_TR_API;
}

static int is_alloc_op(const ot_tr_region *region)
{
    return region->klass == OT_TR_DATA_OP && (region->op == OT_TR_OP_ALLOC || region->op == OT_TR_OP_DELETE);
}

static int on_enter(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_region *region)
{
    rp_state *s = user;
    if (loc->klass == OT_TR_KERNEL_STREAM && region->klass == OT_TR_KERNEL)
        return rp_kernel_enter(s, loc, time, region);
    int32_t slot = s->slot_of_location[loc->index];
    if (loc->klass != OT_TR_HOST_THREAD || slot < 0)
        return 0;
    rp_thread *t = &s->threads[slot];
    if (is_instance(region))
        instance_begin(s, t, time, region);
    else if (region->klass == OT_TR_TARGET_DATA)
        s->r->summary.data_regions++;
    else if (is_alloc_op(region))
        t->op_enter = time;
    return s->failed ? -ENOMEM : 0;
}

static int on_leave(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_region *region)
{
    rp_state *s = user;
    if (loc->klass == OT_TR_KERNEL_STREAM && region->klass == OT_TR_KERNEL)
        return rp_kernel_leave(s, loc, time);
    int32_t slot = s->slot_of_location[loc->index];
    if (loc->klass != OT_TR_HOST_THREAD || slot < 0)
        return 0;
    rp_thread *t = &s->threads[slot];
    if (is_instance(region))
        leave_instance(s, t, time, region);
    else if (is_alloc_op(region) && t->op_enter) {
        rp_frame *f = rp_top_frame(t);
        if (f) {
            s->r->sites[f->site].alloc_ns += time - t->op_enter;
            s->r->sites[f->site].allocs++;
        }
        t->op_enter = 0;
    }
    return 0;
}

static int on_memory(void *user, const ot_tr_location *loc, uint64_t time, uint64_t bytes)
{
    rp_state *s = user;
    ot_rp_device *d = loc->klass == OT_TR_RDMA ? rp_device(s, loc->device) : NULL;
    if (d && bytes > d->memory_peak)
        d->memory_peak = bytes;
    return 0;
}

static int on_transfer(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_transfer *x)
{
    return rp_transfer(user, loc, time, x);
}

static int on_complete(void *user, const ot_tr_location *loc, uint64_t time, uint64_t id)
{
    return rp_transfer_complete(user, loc, time, id);
}

/* ---- setup and wrap-up ---- */

static int setup_locations(rp_state *s, const ot_tr_archive *a)
{
    size_t n = ot_tr_location_count(a);
    s->slot_of_location = malloc((n ? n : 1) * sizeof *s->slot_of_location);
    if (!s->slot_of_location)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        s->slot_of_location[i] = -1;
        if (l->klass == OT_TR_HOST_THREAD)
            s->slot_of_location[i] = (int32_t)s->thread_count++;
        else if (l->klass == OT_TR_KERNEL_STREAM)
            s->slot_of_location[i] = (int32_t)s->stream_count++;
        if (l->device >= 0 && (size_t)l->device < s->r->device_count)
            s->device_seen[l->device] = 1;
    }
    s->threads = calloc(s->thread_count ? s->thread_count : 1, sizeof *s->threads);
    s->streams = calloc(s->stream_count ? s->stream_count : 1, sizeof *s->streams);
    s->r->summary.host_threads = s->thread_count;
    return s->threads && s->streams ? 0 : -ENOMEM;
}

static int on_begin(void *user, const ot_tr_archive *a)
{
    rp_state *s = user;
    ot_report *r = s->r;
    s->archive = a;
    int max_device = ot_tr_max_device(a);
    r->device_count = (size_t)(max_device + 1);
    r->devices = calloc(r->device_count ? r->device_count : 1, sizeof *r->devices);
    s->device_seen = calloc(r->device_count ? r->device_count : 1, 1);
    s->region_count = ot_tr_region_count(a);
    s->site_of_region = malloc((s->region_count ? s->region_count : 1) * sizeof *s->site_of_region);
    r->creator = strdup(ot_tr_creator(a));
    if (!r->devices || !s->device_seen || !s->site_of_region || !r->creator)
        return -ENOMEM;
    for (size_t i = 0; i < r->device_count; i++)
        r->devices[i].device = (int)i;
    for (size_t i = 0; i < s->region_count; i++)
        s->site_of_region[i] = -1;
    r->summary.duration_ns = ot_tr_duration(a);
    r->summary.devices = (uint64_t)ot_tr_device_count(a);
    const char *partial = ot_tr_property(a, "OFFTRACE::PARTIAL");
    if (partial && strcmp(partial, "no") != 0)
        snprintf(r->summary.partial, sizeof r->summary.partial, "%s", partial);
    return setup_locations(s, a);
}

/* Devices without a location (numbers skipped) leave the table. */
static void compact_devices(rp_state *s)
{
    ot_report *r = s->r;
    size_t n = 0;
    for (size_t i = 0; i < r->device_count; i++)
        if (s->device_seen[i])
            r->devices[n++] = r->devices[i];
    r->device_count = n;
}

static void wrap_up(rp_state *s)
{
    for (size_t i = 0; i < s->thread_count; i++)
        rp_streak_close(s, &s->threads[i]);
    s->r->summary.history_evictions = rp_history_evictions(s->history);
    compact_devices(s);
}

static void state_free(rp_state *s)
{
    free(s->threads);
    free(s->streams);
    free(s->slot_of_location);
    free(s->site_of_region);
    free(s->device_seen);
    rp_index_free(&s->kernel_rows);
    rp_index_free(&s->xsite_rows);
    rp_history_free(s->history);
}

int ot_report_collect(const char *dir, ot_report *r, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    rp_state s = {.r = r, .outside_site = -1};
    r->archive = strdup(dir);
    s.history = rp_history_new();
    int rc = -ENOMEM;
    if (r->archive && s.history) {
        ot_tr_visitor v = {.begin = on_begin, .enter = on_enter, .leave = on_leave, .transfer = on_transfer,
                           .transfer_complete = on_complete, .memory = on_memory};
        rc = ot_trace_read(dir, &v, &s, err, err_size);
    }
    if (rc == 0)
        wrap_up(&s);
    else if (rc == -ENOMEM)
        snprintf(err, err_size, "offtrace: out of memory reading '%s'", dir);
    state_free(&s);
    return rc;
}

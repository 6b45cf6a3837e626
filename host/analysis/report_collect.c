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
#include "report_mpi.h"
#include "report_mpi_waits.h"
#include "report_ranks.h"
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

/* The instance open at \p depth on \p t's location, or NULL for another region. */
static rp_frame *instance_at(const rp_state *s, const rp_thread *t, uint32_t depth)
{
    rp_span *x = ot_tr_open_span(s->archive, t->loc, depth)->data;
    return x->kind == RP_SPAN_INSTANCE ? &x->instance : NULL;
}

rp_frame *rp_top_frame(const rp_state *s, const rp_thread *t)
{
    for (uint32_t d = t->instances ? ot_tr_open_count(s->archive, t->loc) : 0; d-- > 0;) {
        rp_frame *f = instance_at(s, t, d);
        if (f)
            return f;
    }
    return NULL;
}

rp_frame *rp_frame_by_serial(const rp_state *s, const rp_thread *t, uint64_t serial)
{
    for (uint32_t d = t->instances ? ot_tr_open_count(s->archive, t->loc) : 0; d-- > 0;) {
        rp_frame *f = instance_at(s, t, d);
        if (f && f->serial == serial)
            return f;
    }
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

static void instance_begin(rp_state *s, rp_thread *t, const ot_tr_span *span)
{
    int32_t site = rp_site_of(s, span->region);
    if (site < 0)
        return;
    if (t->instances++ == 0 && s->threads_inside++ == 0)
        s->inside_since = span->begin;
    rp_span *x = span->data;
    x->kind = RP_SPAN_INSTANCE;
    x->instance = (rp_frame){.region = span->region, .site = site, .serial = ++s->next_serial,
                             .enter = span->begin, .device = -1};
    ot_rp_site *row = &s->r->sites[site];
    row->count++;
    s->r->summary.constructs[row->kind]++;
    if (span->region->construct == OT_TR_CONSTRUCT_TARGET)
        rp_omp_target_begin(s, (int32_t)(t - s->threads), site, span->begin);
    rp_rank_construct(s, t->loc, span->begin, 1);
}

/* Start-up candidates: the earliest entered instance of each device, and
 * the earliest that launched a kernel on it (with nowait targets an
 * instance entered earlier may end later: it replaces). */
static void startup_offer(rp_startup *c, const rp_frame *f, uint64_t ns)
{
    if (c->seen && c->enter <= f->enter)
        return;
    *c = (rp_startup){.seen = 1, .site = f->site, .serial = f->serial, .enter = f->enter, .host_ns = ns,
                      .kernel_ns = f->kernel_ns, .transfer_ns = f->transfer_ns, .alloc_ns = f->alloc_ns};
}

static void startup_candidate(rp_state *s, const rp_frame *f, uint64_t ns)
{
    if (!rp_device(s, f->device))
        return;
    startup_offer(&s->startup[f->device][0], f, ns);
    if (f->kernels)
        startup_offer(&s->startup[f->device][1], f, ns);
}

/* What the first instance cost beyond the mean of its site's other
 * instances: the part only a first time pays (all of it for a site that ran once). */
static uint64_t excess(uint64_t first, uint64_t site_total, uint64_t count)
{
    if (count < 2)
        return first;
    uint64_t others = (site_total > first ? site_total - first : 0) / (count - 1);
    return first > others ? first - others : 0;
}

/* The device's start-up: its candidates' excess, one instance counted once. */
static void startup_settle(rp_state *s)
{
    for (size_t i = 0; i < s->r->device_count; i++) {
        ot_rp_device *d = &s->r->devices[i];
        d->startup.site = d->startup.launch_site = -1;
        for (int k = 0; k < 2; k++) {
            const rp_startup *c = &s->startup[i][k];
            if (!c->seen || (k == 1 && s->startup[i][0].seen && s->startup[i][0].serial == c->serial))
                continue;
            const ot_rp_site *x = &s->r->sites[c->site];
            *(k ? &d->startup.launch_site : &d->startup.site) = c->site;
            d->startup.seen = 1;
            d->startup.host_ns += excess(c->host_ns, x->host_ns, x->count);
            d->startup.kernel_ns += excess(c->kernel_ns, x->kernel_ns, x->count);
            d->startup.transfer_ns += excess(c->transfer_ns, x->transfer_ns[0] + x->transfer_ns[1], x->count);
            d->startup.alloc_ns += excess(c->alloc_ns, x->alloc_ns, x->count);
        }
    }
}

static void instance_end(rp_state *s, rp_thread *t, rp_frame *f, uint64_t time)
{
    uint64_t ns = time - f->enter;
    f->kernel_ns += f->launch_waiting_ns; /* their kernels did not run inside it: their launches count */
    startup_candidate(s, f, ns);
    if (f->active)
        f->busy_ns += time - f->busy_since;
    ot_rp_site *x = &s->r->sites[f->site];
    x->host_ns += ns;
    if (ns > x->max_ns)
        x->max_ns = ns;
    x->busy_ns += f->busy_ns < ns ? f->busy_ns : ns;
    rp_streak_instance_end(t, f, ns > f->kernel_ns ? ns - f->kernel_ns : 0);
    if (f->region->construct == OT_TR_CONSTRUCT_TARGET)
        rp_omp_target_end(s, (int32_t)(t - s->threads), f->site, f->device, time);
    if (t->instances == 1)
        rp_user_construct_end(s, (int32_t)(t - s->threads), f, ns);
    rp_rank_construct(s, t->loc, time, 0);
    if (--t->instances == 0 && --s->threads_inside == 0)
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

/* A kernel's execution on a device queue (CUPTI) */
static int is_device_kernel(const ot_tr_location *loc, const ot_tr_region *region)
{
    return loc->klass == OT_TR_DEVICE_QUEUE && region->cls == OFFTRACE_CLASS_QUEUE_KERNEL;
}

/* A kernel or transfer keeps its device busy (the host OpenMP gaps between targets): a kernel while it
 * runs, which is its launch unless the device recorded its kernels' own times. */
static int is_device_activity(const rp_state *s, const ot_tr_location *loc, const ot_tr_region *region)
{
    if (loc->klass == OT_TR_KERNEL_STREAM && region->klass == OT_TR_KERNEL)
        return !rp_kernels_on_device(s, loc->device);
    if (is_device_kernel(loc, region))
        return rp_kernels_on_device(s, loc->device);
    return loc->klass == OT_TR_RDMA && region->klass == OT_TR_TRANSFER;
}

static int on_enter(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    rp_state *s = user;
    const ot_tr_region *region = span->region;
    ((rp_span *)span->data)->kind = RP_SPAN_OTHER; /* until it is found to be more */
    rp_rank_time(s, loc, span->begin);
    if (loc->klass == OT_TR_HOST_THREAD && rp_mpi_call(region) && rp_mpi_span(s->r, loc, span, 1))
        return -ENOMEM;
    if (is_device_activity(s, loc, region)) {
        rp_omp_device_activity(s, loc->device, span->begin, 1);
        rp_mpi_device_activity(s->r, loc->device, span->begin, 1);
    }
    if ((loc->klass == OT_TR_KERNEL_STREAM && region->klass == OT_TR_KERNEL) ||
        (is_device_kernel(loc, region) && rp_kernels_on_device(s, loc->device)))
        return rp_kernel_enter(s, loc, span);
    int32_t slot = s->slot_of_location[loc->index];
    if (loc->klass != OT_TR_HOST_THREAD || slot < 0)
        return 0;
    if (region->klass == OT_TR_HOST_OPENMP)
        return rp_omp_enter(s, slot, loc, span);
    if (rp_user_counts(region))
        return rp_user_enter(s, slot, loc, span);
    if (region->klass == OT_TR_DATA_OP && rp_variable_data_op(s, span))
        return -ENOMEM;
    if (is_instance(region))
        instance_begin(s, &s->threads[slot], span);
    else if (region->klass == OT_TR_TARGET_DATA)
        s->r->summary.data_regions++;
    return s->failed ? -ENOMEM : 0;
}

/* Instances never left (an archive whose converter could not close them) are not counted. */
static int on_leave(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    rp_state *s = user;
    rp_span *x = span->data;
    rp_rank_time(s, loc, span->end);
    if (loc->klass == OT_TR_HOST_THREAD && rp_mpi_call(span->region)) {
        if (rp_mpi_span(s->r, loc, span, 0))
            return -ENOMEM;
        rp_mpi_call_end(s->r, loc, span->serial);
    }
    if (x->kind == RP_SPAN_USER) /* also unfinished: the user tables count what stayed open */
        return rp_user_leave(s, s->slot_of_location[loc->index], loc, span);
    if (span->unfinished)
        return 0;
    if (is_device_activity(s, loc, span->region)) {
        rp_omp_device_activity(s, loc->device, span->end, 0);
        rp_mpi_device_activity(s->r, loc->device, span->end, 0);
    }
    if (x->kind == RP_SPAN_KERNEL)
        return rp_kernel_leave(s, loc, span);
    int32_t slot = s->slot_of_location[loc->index];
    if (loc->klass != OT_TR_HOST_THREAD || slot < 0)
        return 0;
    if (x->kind == RP_SPAN_OMP)
        return rp_omp_leave(s, slot, loc, span);
    rp_thread *t = &s->threads[slot];
    if (x->kind == RP_SPAN_INSTANCE)
        instance_end(s, t, &x->instance, span->end);
    else if (is_alloc_op(span->region)) {
        rp_frame *f = rp_top_frame(s, t);
        if (f) {
            s->r->sites[f->site].alloc_ns += span->end - span->begin;
            s->r->sites[f->site].allocs++;
            f->alloc_ns += span->end - span->begin;
        }
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

static int on_value(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_metric *metric,
                    OTF2_MetricValue value)
{
    (void)loc;
    (void)time;
    return rp_user_value(user, metric, value);
}

static int on_issue(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    if (rp_variable_transfer(user, x))
        return -ENOMEM;
    return rp_transfer(user, loc, x);
}

static int on_transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    return rp_transfer_complete(user, loc, x);
}

/* MPI (issue 16): the bytes of each side for its call's row, and the waits */
static int on_message(void *user, const ot_tr_message *m)
{
    rp_state *s = user;
    if ((m->send_call && m->sender && rp_mpi_bytes(s->r, m->send_call, m->bytes, 0)) ||
        (m->recv_call && m->receiver && rp_mpi_bytes(s->r, m->recv_call, 0, m->recv_bytes)))
        return -ENOMEM;
    return rp_mpi_message(s->r, m);
}

static int on_collective(void *user, const ot_tr_location *loc, const ot_tr_collective *c)
{
    rp_state *s = user;
    if (c->call && rp_mpi_bytes(s->r, c->call, c->sent, c->received))
        return -ENOMEM;
    return rp_mpi_collective(s->r, loc, c);
}

static int on_end(void *user, const ot_tr_archive *a)
{
    rp_state *s = user;
    s->r->summary.unmatched_completions = ot_tr_unmatched_completions(a);
    rp_mpi_waits_end(s->r, a);
    rp_kernels_end(s);
    return 0;
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
        if (l->device >= 0 && (size_t)l->device < s->r->device_count)
            s->device_seen[l->device] = 1;
    }
    s->threads = calloc(s->thread_count ? s->thread_count : 1, sizeof *s->threads);
    if (!s->threads)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (s->slot_of_location[i] >= 0)
            s->threads[s->slot_of_location[i]].loc = ot_tr_location_at(a, i);
    s->r->summary.host_threads = s->thread_count;
    if (rp_kernels_begin(s, a))
        return -ENOMEM;
    return rp_omp_begin(s);
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
    s->startup = calloc(r->device_count ? r->device_count : 1, sizeof *s->startup);
    s->region_count = ot_tr_region_count(a);
    s->site_of_region = malloc((s->region_count ? s->region_count : 1) * sizeof *s->site_of_region);
    r->creator = strdup(ot_tr_creator(a));
    if (!r->devices || !s->device_seen || !s->startup || !s->site_of_region || !r->creator)
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
    const char *off = ot_tr_property(a, "OFFTRACE::MEASUREMENT_OFF_SWITCHES");
    r->summary.measurement_off_switches = off ? strtoull(off, NULL, 10) : 0;
    off = ot_tr_property(a, "OFFTRACE::MEASUREMENT_OFF_NS");
    r->summary.measurement_off_ns = off ? strtoull(off, NULL, 10) : 0;
    return rp_ranks_begin(s, a) || rp_mpi_waits_begin(r, a) ? -ENOMEM : setup_locations(s, a);
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
    rp_omp_wrap_up(s);
    startup_settle(s);
    compact_devices(s);
    rp_ranks_wrap_up(s);
}

static void state_free(rp_state *s)
{
    free(s->threads);
    free(s->slot_of_location);
    free(s->site_of_region);
    free(s->device_seen);
    free(s->startup);
    rp_index_free(&s->kernel_rows);
    rp_index_free(&s->xsite_rows);
    rp_history_free(s->history);
    rp_omp_free(s);
    rp_user_free(s);
    rp_variables_free(s);
    rp_kernels_free(s);
}

int ot_report_collect(const char *dir, ot_report *r, char *err, size_t err_size)
{
    memset(r, 0, sizeof *r);
    rp_state s = {.r = r, .outside_site = -1};
    r->archive = strdup(dir);
    s.history = rp_history_new();
    int rc = -ENOMEM;
    if (r->archive && s.history) {
        ot_tr_visitor v = {.span_data = sizeof(rp_span), .transfer_data = sizeof(rp_pending), .begin = on_begin,
                           .enter = on_enter, .leave = on_leave, .issue = on_issue, .transfer = on_transfer,
                           .memory = on_memory, .value = on_value, .message = on_message,
                           .collective = on_collective, .end = on_end};
        rc = ot_trace_read(dir, &v, &s, err, err_size);
    }
    if (rc == 0)
        wrap_up(&s);
    else if (rc == -ENOMEM)
        snprintf(err, err_size, "offtrace: out of memory reading '%s'", dir);
    state_free(&s);
    return rc;
}

/**
 * \file report_kernels.c
 * \brief Kernels: per-device and per-kernel statistics, and which host
 *        construct instance each kernel belongs to.
 *
 * Attribution: a kernel on device D that starts at time T belongs to a
 * `target` instance open at T on some host thread, the innermost one of
 * that thread. Among those, the best is one whose region has the kernel's
 * source line (the converter gives kernel and target the same file:line),
 * then one already known to use device D, then one that has no kernel yet,
 * then the most recently entered. Instances known to work with another
 * device are never chosen. A kernel no instance can claim is counted as
 * unattributed. This is exact for synchronous targets and for `nowait`
 * targets on different lines; two concurrent `nowait` instances of one line
 * on one device may swap kernels, which changes no per-site sum.
 *
 * Kernel time (issue 17). On a host-offload device the launch is the
 * execution: a kernel's time is its launch span. On a GPU the launch
 * returns after a few microseconds and the kernel runs later; when the
 * device's collector recorded each execution (a QUEUE_KERNEL region on a
 * device queue, CUPTI) and the archive pairs them (both Enters carry the
 * host operation), the execution takes over what its launch found (row,
 * site, instance) and its time is the kernel's, from device start to end.
 * The launch waits for it in report_launches.c; one whose kernel never
 * came keeps its launch span and is counted (launches_unpaired).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_state.h"

/* "__omp_offloading_fe00_510078_spmv_l24" -> "spmv_l24"; others unchanged. */
static const char *short_name(const char *name)
{
    static const char prefix[] = "__omp_offloading_";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return name;
    const char *p = name + sizeof prefix - 1;
    for (int group = 0; group < 2; group++) { /* device id and file id, in hex */
        const char *u = strchr(p, '_');
        if (!u || u == p)
            return name;
        p = u + 1;
    }
    return *p ? p : name;
}

static int32_t kernel_row(rp_state *s, const ot_tr_region *region, int device)
{
    uint64_t key = (uint64_t)region->id << 16 | ((uint64_t)device & 0xFFFF);
    int32_t i = rp_index_get(&s->kernel_rows, key);
    if (i >= 0)
        return i;
    ot_report *r = s->r;
    i = rp_add_row((void **)&r->kernels, &r->kernel_count, &r->kernel_cap, sizeof *r->kernels);
    if (i < 0 || rp_index_put(&s->kernel_rows, key, i) != 0)
        return -1;
    ot_rp_kernel *k = &r->kernels[i];
    k->name = strdup(region->name);
    k->short_name = strdup(short_name(region->name));
    k->site = -1;
    k->device = device;
    return k->name && k->short_name ? i : -1;
}

static int score(const rp_frame *f, const ot_tr_region *kernel, int device)
{
    if (f->device >= 0 && f->device != device)
        return -1;
    const ot_tr_region *target = f->region;
    int same_line = target->line == kernel->line && !strcmp(target->file, kernel->file);
    return same_line * 4 + (f->device == device) * 2 + (f->kernels == 0);
}

/* The thread whose innermost target instance claims the kernel, or -1. */
static int claimant(rp_state *s, const ot_tr_region *kernel, int device)
{
    int best = -1, best_score = -1;
    uint64_t best_enter = 0;
    for (size_t i = 0; i < s->thread_count; i++) {
        rp_frame *f = rp_top_frame(s, &s->threads[i]);
        if (!f || s->r->sites[f->site].kind != OT_RP_TARGET)
            continue;
        int sc = score(f, kernel, device);
        if (sc > best_score || (sc == best_score && sc >= 0 && f->enter > best_enter)) {
            best = (int)i;
            best_score = sc;
            best_enter = f->enter;
        }
    }
    return best_score >= 0 ? best : -1;
}

int rp_kernels_on_device(const rp_state *s, int device)
{
    const ot_rp_device *d = device >= 0 && (size_t)device < s->r->device_count ? &s->r->devices[device] : NULL;
    return d && d->kernel_time == OT_RP_KERNEL_TIME_DEVICE;
}

int rp_kernels_begin(rp_state *s, const ot_tr_archive *a)
{
    int queue_kernels = 0;
    for (size_t i = 0; i < ot_tr_region_count(a); i++) {
        const ot_tr_region *region = ot_tr_region_at(a, i); /* NULL: a number the archive skipped */
        queue_kernels |= region && region->cls == OFFTRACE_CLASS_QUEUE_KERNEL;
    }
    if (!queue_kernels)
        return 0;
    int pairs = ot_tr_defines_attribute(a, OT_TR_ATTR_HOST_OPERATION), any = 0;
    for (size_t i = 0; i < ot_tr_location_count(a); i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        if (l->klass != OT_TR_DEVICE_QUEUE || l->device < 0 || (size_t)l->device >= s->r->device_count)
            continue;
        s->r->devices[l->device].kernel_time = pairs ? OT_RP_KERNEL_TIME_DEVICE : OT_RP_KERNEL_TIME_UNPAIRED;
        any |= pairs;
    }
    return any ? rp_launches_init(&s->launches) : 0;
}

/* A kernel's time: to its device, its row, its site and, while it is open, its instance, which it kept busy
 * until \p end (0: it did not mark the instance busy). */
static void account(rp_state *s, int device, const rp_open_kernel *k, uint64_t ns, uint64_t end)
{
    ot_rp_device *d = rp_device(s, device);
    if (d) {
        d->kernel_ns += ns;
        if (ns > d->kernel_max_ns)
            d->kernel_max_ns = ns;
    }
    ot_rp_kernel *row = &s->r->kernels[k->row];
    row->total_ns += ns;
    if (ns > row->max_ns)
        row->max_ns = ns;
    if (k->site < 0)
        return;
    s->r->sites[k->site].kernel_ns += ns;
    rp_frame *f = rp_frame_by_serial(s, &s->threads[k->thread], k->serial);
    if (f) { /* else the instance ended first (both at one timestamp) */
        f->kernel_ns += ns;
        if (end)
            rp_frame_idle(f, end);
    }
}

/* The instance that launched \p k while it is open, else NULL. */
static rp_frame *waiting_in(rp_state *s, const rp_open_kernel *k)
{
    return k->site >= 0 ? rp_frame_by_serial(s, &s->threads[k->thread], k->serial) : NULL;
}

/* A launch whose device kernel never came (by the end of the read, or while RP_LAUNCHES waited) keeps its
 * launch span. */
static void settle(void *user, const rp_launch *l)
{
    rp_state *s = user;
    ot_rp_device *d = rp_device(s, l->device);
    if (d)
        d->launches_unpaired++;
    rp_frame *f = waiting_in(s, &l->kernel);
    if (f) /* account gives it to the instance, which waits no longer */
        f->launch_waiting_ns -= l->end - l->begin;
    account(s, l->device, &l->kernel, l->end - l->begin, 0);
}

/* A launch on a device whose kernel times are its own: it waits for its kernel. */
static int launch_enter(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span, rp_open_kernel *k)
{
    if (k->op && s->launches.live >= RP_LAUNCHES)
        rp_launches_settle(&s->launches, settle, s);
    rp_launch *l = k->op && !rp_launch_find(&s->launches, loc->device, k->op)
                       ? rp_launch_add(&s->launches, loc->device, k->op)
                       : NULL;
    if (!l) { /* no operation, or RP_LAUNCHES open at once: its kernel cannot find it */
        k->op = 0;
        return 0;
    }
    l->begin = span->begin;
    l->kernel = *k;
    return 0;
}

static void launch_leave(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span, const rp_open_kernel *k)
{
    rp_launch *l = k->op ? rp_launch_find(&s->launches, loc->device, k->op) : NULL;
    if (l && l->state == RP_LAUNCH_RUNNING) { /* its kernel began before the launch returned */
        rp_launch_remove(&s->launches, l);
    } else if (l) {
        l->state = RP_LAUNCH_DONE;
        l->end = span->end;
        rp_frame *f = waiting_in(s, k);
        if (f)
            f->launch_waiting_ns += l->end - l->begin;
    } else { /* its kernel cannot find it: the launch span is all there is */
        rp_frame *f = waiting_in(s, k);
        if (f) /* the instance was not marked busy at the launch: its kernel was to do that */
            rp_frame_busy(f, span->begin);
        ot_rp_device *d = rp_device(s, loc->device);
        if (d)
            d->launches_unpaired++;
        account(s, loc->device, k, span->end - span->begin, span->end);
    }
}

/* A kernel's execution on a device queue: it takes over its launch's row, site and instance. */
static int device_kernel_enter(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span)
{
    ot_rp_device *d = rp_device(s, loc->device);
    uint64_t op = span->attrs & 1u << OT_TR_ATTR_HOST_OPERATION ? span->attr[OT_TR_ATTR_HOST_OPERATION] : 0;
    rp_launch *l = rp_launch_find(&s->launches, loc->device, op);
    if (!l || l->state == RP_LAUNCH_RUNNING) {
        if (d)
            d->device_kernels_unpaired++;
        return 0;
    }
    rp_span *x = span->data;
    x->kind = RP_SPAN_KERNEL;
    x->kernel = l->kernel;
    if (d) {
        uint64_t latency = span->begin > l->begin ? span->begin - l->begin : 0;
        d->launches_paired++;
        d->latency_ns += latency;
        if (latency > d->latency_max_ns)
            d->latency_max_ns = latency;
    }
    rp_frame *f = waiting_in(s, &x->kernel);
    if (f && l->state == RP_LAUNCH_DONE)
        f->launch_waiting_ns -= l->end - l->begin;
    if (f)
        rp_frame_busy(f, span->begin);
    if (l->state == RP_LAUNCH_DONE)
        rp_launch_remove(&s->launches, l);
    else
        l->state = RP_LAUNCH_RUNNING;
    return 0;
}

int rp_kernel_enter(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span)
{
    if (loc->klass == OT_TR_DEVICE_QUEUE)
        return device_kernel_enter(s, loc, span);
    int on_device = rp_kernels_on_device(s, loc->device);
    const ot_tr_region *region = span->region;
    ot_rp_device *d = rp_device(s, loc->device);
    if (d)
        d->kernels++;
    int32_t row = kernel_row(s, region, loc->device);
    if (row < 0)
        return -ENOMEM;
    s->r->kernels[row].count++;
    rp_span *x = span->data;
    x->kind = RP_SPAN_KERNEL;
    rp_open_kernel *k = &x->kernel;
    *k = (rp_open_kernel){.row = row, .site = -1, .thread = claimant(s, region, loc->device)};
    if (k->thread >= 0) {
        rp_thread *t = &s->threads[k->thread];
        rp_frame *f = rp_top_frame(s, t);
        k->site = f->site;
        k->serial = f->serial;
        f->kernels++;
        rp_frame_device(s, f, loc->device);
        if (!on_device) /* else busy while its kernel runs on the device */
            rp_frame_busy(f, span->begin);
        s->r->sites[f->site].kernels++;
        if (s->r->kernels[row].site < 0)
            s->r->kernels[row].site = f->site;
        rp_streak_close(s, t); /* transfers on either side of a kernel cannot be merged */
    } else
        s->r->summary.unattributed_kernels++;
    if (!on_device)
        return 0;
    k->op = span->attrs & 1u << OT_TR_ATTR_HOST_OPERATION ? span->attr[OT_TR_ATTR_HOST_OPERATION] : 0;
    return launch_enter(s, loc, span, k);
}

int rp_kernel_leave(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span)
{
    const rp_open_kernel *k = &((const rp_span *)span->data)->kernel;
    if (loc->klass == OT_TR_KERNEL_STREAM && rp_kernels_on_device(s, loc->device))
        launch_leave(s, loc, span, k);
    else
        account(s, loc->device, k, span->end - span->begin, span->end);
    return 0;
}

void rp_kernels_end(rp_state *s)
{
    rp_launches_settle(&s->launches, settle, s);
}

void rp_kernels_free(rp_state *s)
{
    rp_launches_free(&s->launches);
}

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

int rp_kernel_enter(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span)
{
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
        rp_frame_busy(f, span->begin);
        s->r->sites[f->site].kernels++;
        if (s->r->kernels[row].site < 0)
            s->r->kernels[row].site = f->site;
        rp_streak_close(s, t); /* transfers on either side of a kernel cannot be merged */
    } else
        s->r->summary.unattributed_kernels++;
    return 0;
}

int rp_kernel_leave(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span)
{
    const rp_open_kernel *k = &((const rp_span *)span->data)->kernel;
    uint64_t ns = span->end - span->begin;
    ot_rp_device *d = rp_device(s, loc->device);
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
        return 0;
    s->r->sites[k->site].kernel_ns += ns;
    rp_frame *f = rp_frame_by_serial(s, &s->threads[k->thread], k->serial);
    if (f) { /* else the instance ended first (both at one timestamp) */
        f->kernel_ns += ns;
        rp_frame_idle(f, span->end);
    }
    return 0;
}

/**
 * \file report_transfers.c
 * \brief Transfers: per-device, per-site and per-transfer-site statistics,
 *        the range history (findings 1 and 2) and tiny-transfer streaks
 *        (finding 3).
 *
 * A put (host->device) or get (device->host) belongs to the innermost
 * construct instance open on its host thread; its time runs from the
 * put/get to the completion the reader matched with it.
 *
 * Tiny-transfer streak: consecutive transfers below OT_RP_TINY_BYTES of one
 * host thread, from one site, in one direction, to one device, with no
 * kernel of that thread and no larger transfer in between: one transfer of
 * their combined bytes could replace them. What batching saves is all but
 * one of their own times or, when they were issued by separate construct
 * instances (a `target update` per element), all but one instance's
 * non-kernel time; the larger of the two is put at stake.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "report_state.h"

static int32_t xsite_row(rp_state *s, int32_t site, int direction, int device)
{
    uint64_t key = (uint64_t)(uint32_t)site << 20 | (uint64_t)direction << 16 | ((uint64_t)device & 0xFFFF);
    int32_t i = rp_index_get(&s->xsite_rows, key);
    if (i >= 0)
        return i;
    ot_report *r = s->r;
    i = rp_add_row((void **)&r->xsites, &r->xsite_count, &r->xsite_cap, sizeof *r->xsites);
    if (i < 0 || rp_index_put(&s->xsite_rows, key, i) != 0)
        return -1;
    r->xsites[i] = (ot_rp_xsite){.site = site, .direction = direction, .device = device, .min_bytes = UINT64_MAX};
    return i;
}

void rp_streak_close(rp_state *s, rp_thread *t)
{
    rp_streak *st = &t->streak;
    if (!st->id)
        return;
    if (st->transfers >= 2) {
        ot_rp_evidence *ev = &s->r->sites[st->site].ev;
        uint64_t by_transfers = st->ns - st->ns / st->transfers;
        uint64_t by_instances = st->instances >= 2 ? st->region_ns - st->region_ns / st->instances : 0;
        ev->tiny_batchable += st->transfers - 1;
        ev->tiny_stake_ns += by_instances > by_transfers ? by_instances : by_transfers;
    }
    st->id = 0;
}

void rp_streak_instance_end(rp_thread *t, const rp_frame *f, uint64_t non_kernel_ns)
{
    if (t->streak.id && f->streak == t->streak.id)
        t->streak.region_ns += non_kernel_ns;
}

static void streak_add(rp_state *s, rp_thread *t, rp_frame *f, int32_t site, int direction, int device,
                       uint64_t bytes, rp_pending *p)
{
    rp_streak *st = &t->streak;
    if (st->id && (st->site != site || st->direction != direction || st->device != device))
        rp_streak_close(s, t);
    if (!st->id)
        *st = (rp_streak){.id = ++s->next_streak, .site = site, .direction = direction, .device = device};
    st->transfers++;
    st->bytes += bytes;
    uint64_t serial = f ? f->serial : 0;
    if (st->instances == 0 || serial != st->last_serial) {
        st->instances++;
        st->last_serial = serial;
    }
    if (f)
        f->streak = st->id;
    p->streak = st->id;
    s->r->sites[site].ev.tiny++;
    s->r->sites[site].ev.tiny_bytes += bytes;
}

static void count_transfer(rp_state *s, int32_t site, int32_t xsite, int direction, int device, uint64_t bytes)
{
    ot_rp_device *d = rp_device(s, device);
    if (d) {
        d->transfers[direction]++;
        d->bytes[direction] += bytes;
    }
    ot_rp_site *x = &s->r->sites[site];
    x->transfers[direction]++;
    x->bytes[direction] += bytes;
    ot_rp_xsite *xs = &s->r->xsites[xsite];
    xs->count++;
    xs->bytes += bytes;
    if (bytes < xs->min_bytes)
        xs->min_bytes = bytes;
    if (bytes > xs->max_bytes)
        xs->max_bytes = bytes;
}

static void remember_range(rp_state *s, rp_frame *f, const ot_tr_transfer *x, uint64_t time, rp_pending *p)
{
    if (!x->has_addresses) {
        s->r->summary.transfers_without_address++;
        return;
    }
    if (x->bytes < OT_RP_MIN_RANGE_BYTES)
        return;
    p->key = (rp_range_key){.host = x->host_address, .bytes = x->bytes, .device = x->device};
    p->has_key = 1;
    if (x->to_device) /* a transfer outside every instance is an instance of its own */
        rp_history_upload(s->history, s->r, &p->key, p->site, f ? f->serial : ++s->next_serial, time,
                          &p->credit);
    else
        rp_history_download(s->history, &p->key, p->site, time);
}

int rp_transfer(rp_state *s, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    int direction = x->to_device ? OT_RP_H2D : OT_RP_D2H;
    int32_t slot = s->slot_of_location[loc->index];
    if (loc->klass != OT_TR_HOST_THREAD || slot < 0) { /* offtrace issues them on host threads only */
        ot_rp_device *d = rp_device(s, x->device);
        if (d) {
            d->transfers[direction]++;
            d->bytes[direction] += x->bytes;
        }
        return 0;
    }
    rp_thread *t = &s->threads[slot];
    rp_frame *f = rp_top_frame(s, t);
    int32_t site = f ? f->site : rp_outside_site(s);
    int32_t xsite = site >= 0 ? xsite_row(s, site, direction, x->device) : -1;
    if (site < 0 || xsite < 0)
        return -ENOMEM;
    count_transfer(s, site, xsite, direction, x->device, x->bytes);
    rp_pending *p = x->data;
    *p = (rp_pending){.serial = f ? f->serial : 0, .direction = direction, .site = site, .xsite = xsite,
                      .credit = {.repeat_site = -1, .trip_site = -1}};
    if (f) {
        rp_frame_device(s, f, x->device);
        rp_frame_busy(f, x->issued);
    }
    remember_range(s, f, x, x->issued, p);
    if (x->bytes < OT_RP_TINY_BYTES)
        streak_add(s, t, f, site, direction, x->device, x->bytes, p);
    else
        rp_streak_close(s, t);
    if (x->map.variable) { /* the findings' evidence names its variables (issue 15) */
        int32_t row = rp_variable_row(s, &x->map);
        ot_rp_site *sites = s->r->sites;
        if (p->credit.repeat_site >= 0)
            ot_report_named_add(&sites[p->credit.repeat_site].ev.repeat_named, row, x->bytes);
        if (p->credit.trip_site >= 0)
            ot_report_named_add(&sites[p->credit.trip_site].ev.trip_named, row, x->bytes);
        if (p->streak)
            ot_report_named_add(&sites[site].ev.tiny_named, row, x->bytes);
    }
    return 0;
}

static void complete(rp_state *s, rp_thread *t, const rp_pending *p, uint64_t start, uint64_t time)
{
    uint64_t ns = time - start;
    const ot_rp_xsite *xs = &s->r->xsites[p->xsite];
    ot_rp_device *d = rp_device(s, xs->device);
    if (d)
        d->transfer_ns[p->direction] += ns;
    s->r->sites[p->site].transfer_ns[p->direction] += ns;
    s->r->xsites[p->xsite].ns += ns;
    rp_frame *f = p->serial ? rp_frame_by_serial(s, t, p->serial) : NULL;
    if (f) {
        f->transfer_ns += ns;
        rp_frame_idle(f, time);
    }
    if (p->has_key)
        rp_history_complete(s->history, s->r, &p->key, p->direction == OT_RP_H2D, p->site, ns, time, &p->credit);
    if (p->streak && t->streak.id == p->streak)
        t->streak.ns += ns;
}

/* A put/get never completed (the archive ends first) adds no time. */
int rp_transfer_complete(rp_state *s, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    int32_t slot = s->slot_of_location[loc->index];
    if (loc->klass != OT_TR_HOST_THREAD || slot < 0 || !x->completed)
        return 0;
    rp_thread *t = &s->threads[slot];
    complete(s, t, x->data, x->issued, x->completed);
    rp_variable_transfer_done(s, x, ((const rp_pending *)x->data)->site);
    return 0;
}

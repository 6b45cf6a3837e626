/**
 * \file view_rows.c
 * \brief The rows of the timeline, one per location, in the order a reader
 *        follows an offload: host threads, then per device its kernel
 *        streams, device threads, queues and last its RDMA row (where the
 *        transfer arrows land); locations of other producers at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_model.h"

/* Vertical geometry (px). */
#define HEAD_H (OT_VIEW_AXIS_Y + 6u) /* heading and time axis above the rows */
#define GROUP_H 16u         /* a group's heading band ("device 0") */
#define SINGLE_LEVEL_H 16u  /* a row with one level */
#define LEVEL_H 9u          /* each level of a row with several */
#define ROW_GAP 3u
#define LEGEND_GAP 14u

static int kind_order(ot_tr_location_class k)
{
    switch (k) {
    case OT_TR_KERNEL_STREAM: return 0;
    case OT_TR_DEVICE_THREAD: return 1;
    case OT_TR_DEVICE_QUEUE: return 2;
    case OT_TR_RDMA: return 3;
    default: return 4;
    }
}

/* Per rank (one process: rank 0): host threads (group 0), devices in number order (1 + device); others last. */
static long long group_of(const ot_view_row *r)
{
    long long rank = (long long)r->rank << 20;
    if (r->klass == OT_TR_HOST_THREAD)
        return rank;
    if (r->device >= 0 && r->klass != OT_TR_OTHER_LOCATION)
        return rank + 1 + (long long)r->device_number;
    return 1LL << 50;
}

const char *ot_view_group_name(const ot_view_row *r, char *buf, size_t size)
{
    if (r->klass == OT_TR_HOST_THREAD)
        snprintf(buf, size, r->job ? "MPI Rank %u" : "host", r->rank);
    else if (r->device >= 0 && r->klass != OT_TR_OTHER_LOCATION && r->job)
        snprintf(buf, size, "rank %u device %d", r->rank, r->device_number);
    else if (r->device >= 0 && r->klass != OT_TR_OTHER_LOCATION)
        snprintf(buf, size, "device %d", r->device);
    else
        snprintf(buf, size, "other locations");
    return buf;
}

const char *ot_view_device_name(const ot_view_row *r, char *buf, size_t size)
{
    if (r->job)
        snprintf(buf, size, "rank %u device %d", r->rank, r->device_number);
    else
        snprintf(buf, size, "device %d", r->device);
    return buf;
}

static int row_cmp(const void *pa, const void *pb)
{
    const ot_view_row *a = pa, *b = pb;
    long long ga = group_of(a), gb = group_of(b);
    if (ga != gb)
        return ga < gb ? -1 : 1;
    int ka = kind_order(a->klass), kb = kind_order(b->klass);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return a->location < b->location ? -1 : a->location > b->location;
}

int ot_view_make_rows(ot_view *v, const ot_tr_archive *a)
{
    size_t n = ot_tr_location_count(a);
    v->rows = calloc(n ? n : 1, sizeof *v->rows);
    if (!v->rows)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        ot_view_row *r = &v->rows[v->nrows++];
        r->label = strdup(l->name && l->name[0] ? l->name : "(unnamed location)");
        r->group = strdup(l->group ? l->group : "");
        if (!r->label || !r->group)
            return -ENOMEM;
        r->location = l->id;
        r->klass = l->klass;
        r->device = l->device;
        r->rank = l->rank;
        r->device_number = l->device_number;
        r->job = ot_tr_rank_count(a) > 1;
        r->levels = 1;
    }
    qsort(v->rows, v->nrows, sizeof *v->rows, row_cmp);
    return 0;
}

long ot_view_row_of(const ot_view *v, uint64_t location)
{
    for (size_t i = 0; i < v->nrows; i++)
        if (v->rows[i].location == location)
            return (long)i;
    return -1;
}

long ot_view_rdma_row(const ot_view *v, int device)
{
    for (size_t i = 0; i < v->nrows; i++)
        if (v->rows[i].klass == OT_TR_RDMA && v->rows[i].device == device)
            return (long)i;
    return -1;
}

int ot_view_row_starts_group(const ot_view *v, size_t i)
{
    return i == 0 || group_of(&v->rows[i]) != group_of(&v->rows[i - 1]);
}

unsigned ot_view_level_height(const ot_view_row *r)
{
    return r->levels > 1 ? LEVEL_H : SINGLE_LEVEL_H;
}

double ot_view_level_y(const ot_view_row *r, int level)
{
    return r->y + (double)level * ot_view_level_height(r) + (r->levels > 1 ? 0.5 : 1.0);
}

/* A pixel of space between levels, two around a single-level row's bars. */
double ot_view_bar_h(const ot_view_row *r)
{
    return ot_view_level_height(r) - (r->levels > 1 ? 1.0 : 2.0);
}

void ot_view_layout(ot_view *v)
{
    unsigned y = HEAD_H;
    for (size_t i = 0; i < v->nrows; i++) {
        ot_view_row *r = &v->rows[i];
        if (ot_view_row_starts_group(v, i))
            y += GROUP_H;
        r->y = y;
        r->height = (unsigned)r->levels * ot_view_level_height(r);
        y += r->height + ROW_GAP;
    }
    v->rows_bottom = y;
    v->legend_y = y + LEGEND_GAP;
    v->height = v->legend_y + ot_view_legend_height(v);
}

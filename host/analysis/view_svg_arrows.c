/**
 * \file view_svg_arrows.c
 * \brief Arrows: transfers from the host thread row to the device's RDMA row
 *        for host->device, the other way for device->host, each forward in
 *        time (start to completion) with its head where the data arrives;
 *        MPI messages from the sender's row at the send to the receiver's
 *        row at the receive (issue 16). One path per arrow, head included,
 *        because ImageMagick's SVG renderer draws no markers; clipped to the
 *        plot here because it draws no clip paths either.
 *
 * data-k="x" (a transfer arrow) with data-dir="h2d" / "d2h", or data-k="m"
 * (a message arrow); data-count: how many transfers or messages the arrow
 * stands for.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "view_model.h"

#define HEAD_LEN 6.0
#define HEAD_HALF_W 3.0

void ot_view_arrow_path(FILE *f, double x0, double y0, double x1, double y1)
{
    double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
    double ux = len > 0 ? dx / len : 0, uy = len > 0 ? dy / len : 1;
    double bx = x1 - ux * HEAD_LEN, by = y1 - uy * HEAD_LEN; /* middle of the head's base */
    fprintf(f, " d=\"M%.2f,%.1fL%.2f,%.1fM%.2f,%.1fL%.2f,%.2fL%.2f,%.2fZ\"", x0, y0, x1, y1, x1, y1,
            bx - uy * HEAD_HALF_W, by + ux * HEAD_HALF_W, bx + uy * HEAD_HALF_W, by - ux * HEAD_HALF_W);
}

/* Cut the segment to the plot's x range (plot coordinates; x0 <= x1). */
static void clip(const ot_view *v, double *x0, double *y0, double *x1, double *y1)
{
    double w = v->plot_w;
    if (*x0 < 0 && *x1 > *x0) {
        *y0 += (*y1 - *y0) * (0 - *x0) / (*x1 - *x0);
        *x0 = 0;
    }
    if (*x1 > w && *x1 > *x0) {
        *y1 -= (*y1 - *y0) * (*x1 - w) / (*x1 - *x0);
        *x1 = w;
    }
}

/* "MPI message rank 0 → rank 1: 128 bytes, sent at 1.20 ms, received 3.1 µs later" */
static void message_tip(const ot_view *v, const ot_view_flow *fl, const ot_view_arrow *a, FILE *f)
{
    char bytes[32], busy[32], at[32], last[32];
    ot_view_format_bytes(a->bytes, bytes, sizeof bytes);
    ot_view_format_duration(a->busy, busy, sizeof busy);
    ot_view_format_duration(a->t0 - v->trace_start, at, sizeof at);
    ot_view_format_duration(a->last > v->trace_start ? a->last - v->trace_start : 0, last, sizeof last);
    fputs(" data-tip=\"", f);
    if (a->count > 1)
        fprintf(f, "%" PRIu32 " ", a->count);
    fprintf(f, "MPI message%s rank %" PRIu32 " \xe2\x86\x92 rank %" PRIu32 "&#10;", a->count > 1 ? "s" : "",
            v->rows[fl->row_a].rank, v->rows[fl->row_b].rank);
    if (a->count > 1)
        fprintf(f, "%s, sent from %s, the last received at %s, %s in flight in all\"", bytes, at, last, busy);
    else if (a->t1 >= a->t0)
        fprintf(f, "%s, sent at %s, received %s later\"", bytes, at, busy);
    else /* the clock correction across ranks is this precise only (docs/mpi.md) */
        fprintf(f, "%s, sent at %s, received at %s: before it was sent, by the ranks' clocks\"", bytes, at, last);
}

static void tip(const ot_view *v, const ot_view_flow *fl, const ot_view_arrow *a, FILE *f)
{
    if (fl->kind == OT_VIEW_MESSAGE) {
        message_tip(v, fl, a, f);
        return;
    }
    char bytes[32], busy[32], at[32], last[32];
    ot_view_format_bytes(a->bytes, bytes, sizeof bytes);
    ot_view_format_duration(a->busy, busy, sizeof busy);
    ot_view_format_duration(a->t0 - v->trace_start, at, sizeof at);
    ot_view_format_duration(a->last - v->trace_start, last, sizeof last);
    const char *way = fl->kind == OT_VIEW_H2D ? "host\xe2\x86\x92" "device" : "device\xe2\x86\x92host";
    char device[48];
    ot_view_device_name(&v->rows[fl->row_b], device, sizeof device);
    if (a->count == 1)
        fprintf(f, " data-tip=\"transfer %s (%s)&#10;%s in %s, at %s\"", way, device, bytes, busy, at);
    else
        fprintf(f, " data-tip=\"%" PRIu32 " transfers %s (%s) from %s to %s&#10;%s, %s in flight in all\"",
                a->count, way, device, at, last, bytes, busy);
}

static void arrow(const ot_view *v, const ot_view_flow *fl, const ot_view_arrow *a, FILE *f)
{
    const ot_view_row *ra = &v->rows[fl->row_a], *rb = &v->rows[fl->row_b];
    /* a transfer leaves the host row at its bottom for the RDMA row's middle; a message goes from middle to
     * middle (both are host threads) */
    double ay = fl->kind == OT_VIEW_MESSAGE ? ra->y + ra->height / 2.0 : ra->y + ra->height;
    double by = rb->y + rb->height / 2.0;
    /* drawn forward in time: a message received "before" its send (clocks, docs/mpi.md) ends straight below */
    double x0 = ot_view_x(v, a->t0), x1 = ot_view_x(v, a->t1 > a->t0 ? a->t1 : a->t0);
    double y0 = fl->kind == OT_VIEW_D2H ? by : ay, y1 = fl->kind == OT_VIEW_D2H ? ay : by;
    clip(v, &x0, &y0, &x1, &y1);
    /* Thicker for several, but not heavier: where arrows are dense they must
     * not hide the device rows they cross. */
    double width = a->count == 1 ? 1.0 : a->count < 16 ? 1.5 : 2.0;
    const char *colour = ot_view_arrow_colour(fl->kind);
    if (fl->kind == OT_VIEW_MESSAGE)
        fprintf(f, "<path data-k=\"m\" data-count=\"%" PRIu32 "\"", a->count);
    else
        fprintf(f, "<path data-k=\"x\" data-dir=\"%s\" data-count=\"%" PRIu32 "\"",
                fl->kind == OT_VIEW_H2D ? "h2d" : "d2h", a->count);
    ot_view_arrow_path(f, OT_VIEW_LABEL_W + x0, y0, OT_VIEW_LABEL_W + x1, y1);
    fprintf(f, " stroke=\"%s\" fill=\"%s\" stroke-width=\"%.1f\" stroke-opacity=\"%s\" fill-opacity=\"0.9\"", colour,
            colour, width, a->count == 1 ? "0.6" : "0.5");
    tip(v, fl, a, f);
    fputs("/>\n", f);
}

void ot_view_svg_arrows(const ot_view *v, FILE *f)
{
    for (size_t i = 0; i < v->nflows; i++)
        for (size_t c = 0; c < ot_view_arrow_columns(v); c++)
            if (v->flows[i].cells[c].count)
                arrow(v, &v->flows[i], &v->flows[i].cells[c], f);
}

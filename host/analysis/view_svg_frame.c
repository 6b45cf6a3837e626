/**
 * \file view_svg_frame.c
 * \brief Everything around the plot's contents: the heading, the time axis
 *        (ticks at 1/2/5 x 10^k, labelled from the trace start, with grid
 *        lines through the rows), row backgrounds, row labels and the
 *        headings of the host and device groups.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "view_model.h"

#define LABEL_CHARS 30      /* longer labels are cut, the full one is in the tooltip */
#define TICK_SPACING 110    /* px per tick at most */

static void heading(const ot_view *v, FILE *f)
{
    char dur[32], window[112];
    ot_view_format_duration(v->trace_dur, dur, sizeof dur);
    ot_view_format_window(v, window, sizeof window);
    fputs("<text data-k=\"heading\" x=\"8\" y=\"17\" font-size=\"13\" font-weight=\"bold\">", f);
    ot_view_xml_text(f, v->title);
    fprintf(f, "</text>\n<text x=\"%u\" y=\"17\" text-anchor=\"end\" fill=\"#444444\">", v->width - 8);
    fprintf(f, "%s traced, %" PRIu64 " events; showing %s; %" PRIu64 " regions drawn, %" PRIu64
               " merged into pixel marks, %" PRIu64 " transfers",
            dur, v->events, window, v->regions_drawn, v->regions_merged, v->transfers);
    if (v->messages) /* an MPI job (issue 16) */
        fprintf(f, ", %" PRIu64 " MPI messages", v->messages);
    fputs("</text>\n", f);
}

static void axis(const ot_view *v, FILE *f)
{
    uint64_t from = v->w0 - v->trace_start, to = v->w1 - v->trace_start;
    uint64_t step = ot_view_tick_step(to - from, v->plot_w / TICK_SPACING);
    fprintf(f, "<g id=\"ot-axis\" data-step-ns=\"%" PRIu64 "\">\n", step);
    fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\" fill=\"#444444\">time since trace start</text>\n",
            OT_VIEW_LABEL_W - 8, OT_VIEW_AXIS_Y - 10);
    fprintf(f, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#555555\"/>\n", OT_VIEW_LABEL_W,
            OT_VIEW_AXIS_Y, OT_VIEW_LABEL_W + v->plot_w, OT_VIEW_AXIS_Y);
    for (uint64_t t = (from + step - 1) / step * step; t <= to; t += step) {
        double x = OT_VIEW_LABEL_W + ot_view_x(v, v->trace_start + t);
        char label[48];
        ot_view_format_tick(t, step, to, label, sizeof label);
        fprintf(f, "<line data-k=\"grid\" x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" stroke=\"#e4e4e4\"/>\n", x,
                OT_VIEW_AXIS_Y, x, v->rows_bottom);
        fprintf(f, "<line data-k=\"mark\" x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" stroke=\"#555555\"/>\n", x,
                OT_VIEW_AXIS_Y - 5, x, OT_VIEW_AXIS_Y);
        const char *anchor = x > OT_VIEW_LABEL_W + v->plot_w - 20 ? "end"
                             : x < OT_VIEW_LABEL_W + 20           ? "start"
                                                                  : "middle";
        fprintf(f, "<text data-k=\"tick\" x=\"%.1f\" y=\"%u\" text-anchor=\"%s\" data-t-ns=\"%" PRIu64 "\">%s</text>\n",
                x, OT_VIEW_AXIS_Y - 9, anchor, t, label);
        if (t > UINT64_MAX - step)
            break;
    }
    fputs("</g>\n", f);
}

static void group_heading(const ot_view *v, const ot_view_row *r, FILE *f)
{
    char name[48];
    ot_view_group_name(r, name, sizeof name);
    fprintf(f, "<line x1=\"0\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#9a9a9a\"/>\n", r->y - 13, v->width, r->y - 13);
    fprintf(f, "<text data-k=\"group\" x=\"8\" y=\"%u\" font-weight=\"bold\">%s</text>\n", r->y - 2, name);
}

static void row_label(const ot_view_row *r, FILE *f)
{
    char cut[LABEL_CHARS * 4 + 8];
    size_t n = strlen(r->label);
    snprintf(cut, sizeof cut, "%s", r->label);
    if (n > LABEL_CHARS) { /* cut on a UTF-8 character boundary */
        size_t k = LABEL_CHARS;
        while (k > 0 && ((unsigned char)cut[k] & 0xC0) == 0x80)
            k--;
        memcpy(cut + k, "\xe2\x80\xa6", 4);
    }
    fprintf(f,
            "<text data-k=\"label\" data-location=\"%" PRIu64 "\" x=\"%u\" y=\"%.1f\" text-anchor=\"end\" "
            "data-tip=\"",
            r->location, OT_VIEW_LABEL_W - 8, r->y + r->height / 2.0 + 4);
    ot_view_xml_text(f, r->label);
    fputs("\">", f);
    ot_view_xml_text(f, cut);
    fputs("</text>\n", f);
}

void ot_view_svg_frame(const ot_view *v, FILE *f)
{
    heading(v, f);
    fputs("<g id=\"ot-rows\">\n", f);
    for (size_t i = 0; i < v->nrows; i++) {
        const ot_view_row *r = &v->rows[i];
        if (ot_view_row_starts_group(v, i))
            group_heading(v, r, f);
        fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"#f3f3f3\"/>\n", OT_VIEW_LABEL_W, r->y,
                v->plot_w, r->height);
        row_label(r, f);
    }
    fputs("</g>\n", f);
    axis(v, f);
}

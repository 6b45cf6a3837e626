/**
 * \file view_svg.c
 * \brief The SVG document of `offtrace view`: root element with the data
 *        attributes the HTML script and the tests read, then frame, plot and
 *        legend. Static SVG 1.1 that ImageMagick's own renderer draws as
 *        browsers do: no patterns, markers, clip paths, CSS or <title>.
 */
#include <stdio.h>

#include "view_model.h"

void ot_view_xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\n': fputs("&#10;", f); break; /* keeps multi-line tooltips in attributes */
        default:
            if (c >= 0x20 && c != 0x7f) /* XML 1.0 allows no other control characters */
                fputc(c, f);
        }
    }
}

/* The plot's clip, unused here: ImageMagick's renderer drops a clipped
 * group whole, and nothing drawn leaves the plot anyway. The HTML script
 * applies it, since zooming moves elements out. */
static void defs(const ot_view *v, FILE *f)
{
    fprintf(f, "<defs><clipPath id=\"ot-plot-clip\"><rect x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\"/>"
               "</clipPath></defs>\n",
            OT_VIEW_LABEL_W, v->plot_w, v->height);
}

static void root(const ot_view *v, FILE *f, int in_html)
{
    if (!in_html)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fputs("<svg", f);
    if (!in_html)
        fputs(" xmlns=\"http://www.w3.org/2000/svg\"", f);
    fprintf(f,
            " id=\"ot-view\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\""
            " font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" font-size=\"11\" stroke=\"none\""
            " data-trace-ns=\"%llu\" data-from-ns=\"%llu\" data-to-ns=\"%llu\""
            " data-plot-x=\"%u\" data-plot-w=\"%u\" data-axis-y=\"%u\" data-rows-bottom=\"%u\" data-rows=\"%zu\">\n",
            v->width, v->height, v->width, v->height, (unsigned long long)v->trace_dur,
            (unsigned long long)(v->w0 - v->trace_start), (unsigned long long)(v->w1 - v->trace_start),
            OT_VIEW_LABEL_W, v->plot_w, OT_VIEW_AXIS_Y, v->rows_bottom, v->nrows);
}

int ot_view_write_svg(const ot_view *v, FILE *f, int in_html)
{
    root(v, f, in_html);
    defs(v, f);
    fprintf(f, "<rect width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n", v->width, v->height);
    ot_view_svg_frame(v, f);
    ot_view_svg_plot(v, f);
    ot_view_svg_legend(v, f, v->legend_y);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

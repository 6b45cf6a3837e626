/**
 * \file view_svg_plot.c
 * \brief The plot's contents: marks for pixel columns of merged small
 *        regions (first, so that bars lie on top), region bars, then the
 *        arrows (view_svg_arrows.c).
 *
 * Only what ImageMagick's own SVG renderer draws too: plain filled rects,
 * no patterns, no clip paths, no <title> children (it drops an element that
 * has one); tooltips are data-tip attributes, which the HTML page shows.
 * What the tests and the script rely on: data-k="a" merged mark, data-k="r"
 * bar (no class attributes: ImageMagick's renderer fails on thousands).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "view_model.h"

#define MARK_HEIGHT 0.7     /* merged marks, as a share of a bar's height */

/* ---- bars ---- */

static void bar(const ot_view *v, const ot_view_row *r, int level, const ot_view_bar *b, FILE *f)
{
    double x0 = OT_VIEW_LABEL_W + ot_view_x(v, b->a), x1 = OT_VIEW_LABEL_W + ot_view_x(v, b->b);
    if (x1 - x0 >= 3.0) /* a hairline gap where instances abut, as Vampir's outlines do */
        x1 -= 0.5;
    char dur[32], at[32], bytes[32];
    ot_view_format_duration(b->dur, dur, sizeof dur);
    ot_view_format_duration(b->start > v->trace_start ? b->start - v->trace_start : 0, at, sizeof at);
    fprintf(f, "<rect data-k=\"r\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" data-tip=\"", x0,
            ot_view_level_y(r, level), x1 - x0, ot_view_bar_h(r), ot_view_cat_colour((ot_view_cat)b->cat));
    ot_view_xml_text(f, b->region < v->nregions && v->region_names[b->region] ? v->region_names[b->region] : "?");
    fprintf(f, "&#10;%s, at %s", dur, at);
    if (b->bytes) {
        ot_view_format_bytes(b->bytes, bytes, sizeof bytes);
        fprintf(f, "&#10;%s", bytes);
    }
    if (b->has_iterations == 3) /* a host task: which, how made */
        fprintf(f, "&#10;task %llu, flags 0x%llx", (unsigned long long)b->iterations,
                (unsigned long long)b->first_iteration);
    else if (b->has_iterations == 2 && b->iterations) /* a host loop chunk: which iterations, how fast */
        fprintf(f, "&#10;iterations %llu-%llu (%llu), %.0f ns per iteration", (unsigned long long)b->first_iteration,
                (unsigned long long)(b->first_iteration + b->iterations - 1), (unsigned long long)b->iterations,
                (double)b->dur / (double)b->iterations);
    else if (b->has_iterations)
        fprintf(f, "&#10;%llu iterations", (unsigned long long)b->iterations);
    fputs("\"/>\n", f);
}

/* ---- merged marks ---- */

/* The tooltip: how many, how busy, the three largest classes, bytes. */
static void run_tip(const ot_view *v, const ot_view_mark *u, size_t columns, FILE *f)
{
    char busy[32], span[32];
    ot_view_format_duration((uint64_t)u->busy, busy, sizeof busy);
    ot_view_format_duration((uint64_t)((double)columns / v->px_per_ns), span, sizeof span);
    fprintf(f, " data-tip=\"%" PRIu64 " regions, each under a pixel&#10;busy %s of %s", u->count, busy, span);
    double left[OT_VC_COUNT];
    memcpy(left, u->ns, sizeof left);
    for (int shown = 0; shown < 3 && u->busy > 0; shown++) {
        int best = -1;
        for (int k = 0; k < OT_VC_COUNT; k++)
            if (left[k] > 0 && (best < 0 || left[k] > left[best]))
                best = k;
        if (best < 0)
            break;
        fprintf(f, "&#10;%s %.0f%%", ot_view_cat_name((ot_view_cat)best), 100.0 * left[best] / u->busy);
        left[best] = 0;
    }
    if (u->bytes) {
        char bytes[32];
        ot_view_format_bytes(u->bytes, bytes, sizeof bytes);
        fprintf(f, "&#10;%s moved", bytes);
    }
    fputs("\"", f);
}

/* Neighbouring columns with the same leading class and coverage step make
 * one mark. Marks are lower than bars (a bar is one region, a mark many)
 * and paler where the small regions cover less of their columns. */
static void merged_marks(const ot_view *v, const ot_view_row *r, int level, FILE *f)
{
    static const char *opacity[] = {"0.6", "0.75", "0.9", "1"};
    double h = ot_view_bar_h(r) * MARK_HEIGHT, y = ot_view_level_y(r, level) + (ot_view_bar_h(r) - h) / 2;
    ot_view_mark m;
    for (size_t c = 0; ot_view_next_mark(v, &r->level[level], &c, &m);) {
        size_t columns = m.c1 + 1 - m.c0;
        fprintf(f,
                "<rect data-k=\"a\" x=\"%zu\" y=\"%.1f\" width=\"%zu\" height=\"%.1f\" fill=\"%s\" "
                "fill-opacity=\"%s\"",
                OT_VIEW_LABEL_W + m.c0, y, columns, h, ot_view_cat_colour((ot_view_cat)m.cat), opacity[m.step]);
        run_tip(v, &m, columns, f);
        fputs("/>\n", f);
    }
}

void ot_view_svg_plot(const ot_view *v, FILE *f)
{
    fputs("<g id=\"ot-plot\">\n", f);
    for (size_t i = 0; i < v->nrows; i++)
        for (int l = 0; l < v->rows[i].levels; l++)
            merged_marks(v, &v->rows[i], l, f);
    for (size_t i = 0; i < v->nrows; i++)
        for (int l = 0; l < v->rows[i].levels; l++)
            for (size_t k = 0; k < v->rows[i].level[l].nbars; k++)
                bar(v, &v->rows[i], l, &v->rows[i].level[l].bars[k], f);
    ot_view_svg_arrows(v, f);
    fputs("</g>\n", f);
}

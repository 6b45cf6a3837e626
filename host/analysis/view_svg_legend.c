/**
 * \file view_svg_legend.c
 * \brief The legend under the rows: a swatch per region class that the
 *        picture uses, the hatched mark of merged small regions, and the
 *        arrow kinds it draws (transfers both ways, MPI messages); laid out in
 *        columns that wrap.
 */
#include <stdio.h>

#include "view_model.h"

#define SWATCH_W 22u
#define CHAR_W 6.0         /* average advance of 11 px DejaVu Sans, a little over */
#define GAP_W 26u
#define LINE_H 18u
#define TOP_H 20u

typedef enum entry_kind { CLASS, MERGED, ARROW_H2D, ARROW_D2H, ARROW_MESSAGE } entry_kind;

/* Legend entries at most: the classes, the merged mark, three arrows. */
#define MAX_ENTRIES (OT_VC_COUNT + 4)

typedef struct entry {
    entry_kind kind;
    ot_view_cat cat;
    const char *text;
} entry;

static size_t entries(const ot_view *v, entry *out)
{
    size_t n = 0;
    for (int c = 0; c < OT_VC_COUNT; c++)
        if (v->cats_used >> c & 1)
            out[n++] = (entry){CLASS, (ot_view_cat)c, ot_view_cat_name((ot_view_cat)c)};
    if (v->regions_merged)
        out[n++] = (entry){MERGED, OT_VC_KERNEL, "many regions under a pixel, merged (paler: sparser)"};
    if (v->transfers) {
        out[n++] = (entry){ARROW_H2D, OT_VC_H2D, "put host\xe2\x86\x92" "device (thicker: several close together)"};
        out[n++] = (entry){ARROW_D2H, OT_VC_D2H, "get device\xe2\x86\x92host (thicker: several close together)"};
    }
    if (v->messages)
        out[n++] = (entry){ARROW_MESSAGE, OT_VC_MPI_P2P, "MPI message, send \xe2\x86\x92 receive (thicker: several)"};
    return n;
}

/* Width of an entry: swatch, text (estimated: no font metrics here), gap. */
static unsigned entry_w(const entry *e)
{
    unsigned chars = 0;
    for (const unsigned char *p = (const unsigned char *)e->text; *p; p++)
        chars += (*p & 0xC0) != 0x80; /* characters, not UTF-8 bytes */
    return SWATCH_W + 6 + (unsigned)(chars * CHAR_W) + GAP_W;
}

/* Entries flow left to right and wrap; \p x and \p line receive each one's place. */
static unsigned flow(const ot_view *v, const entry *e, size_t n, unsigned *x, unsigned *line)
{
    unsigned cx = 8, cl = 0;
    for (size_t i = 0; i < n; i++) {
        if (cx > 8 && cx + entry_w(&e[i]) > v->width - 8) {
            cx = 8;
            cl++;
        }
        x[i] = cx;
        line[i] = cl;
        cx += entry_w(&e[i]);
    }
    return n ? cl + 1 : 0;
}

unsigned ot_view_legend_height(const ot_view *v)
{
    entry e[MAX_ENTRIES];
    unsigned x[MAX_ENTRIES], line[MAX_ENTRIES];
    size_t n = entries(v, e);
    return TOP_H + flow(v, e, n, x, line) * LINE_H + 8;
}

static void swatch(const entry *e, unsigned x, unsigned y, FILE *f)
{
    if (e->kind == CLASS)
        fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"11\" fill=\"%s\"/>\n", x, y, SWATCH_W,
                ot_view_cat_colour(e->cat));
    else if (e->kind == MERGED) { /* as view_svg_plot.c draws them: lower, paler where sparse */
        fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"7\" fill=\"%s\"/>\n", x, y + 2, SWATCH_W / 2,
                ot_view_cat_colour(e->cat));
        fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"7\" fill=\"%s\" fill-opacity=\"0.6\"/>\n",
                x + SWATCH_W / 2, y + 2, SWATCH_W / 2, ot_view_cat_colour(e->cat));
    } else {
        const char *colour = ot_view_arrow_colour(e->kind == ARROW_MESSAGE ? OT_VIEW_MESSAGE
                                                  : e->kind == ARROW_H2D   ? OT_VIEW_H2D
                                                                           : OT_VIEW_D2H);
        fprintf(f, "<path stroke=\"%s\" fill=\"%s\" stroke-width=\"1.5\"", colour, colour);
        ot_view_arrow_path(f, x, y + 6, x + SWATCH_W, y + 6);
        fputs("/>\n", f);
    }
    fprintf(f, "<text x=\"%u\" y=\"%u\">%s</text>\n", x + SWATCH_W + 6, y + 10, e->text);
}

void ot_view_svg_legend(const ot_view *v, FILE *f, unsigned y)
{
    entry e[MAX_ENTRIES];
    unsigned x[MAX_ENTRIES], line[MAX_ENTRIES];
    size_t n = entries(v, e);
    flow(v, e, n, x, line);
    fprintf(f, "<g id=\"ot-legend\">\n<text x=\"8\" y=\"%u\" font-weight=\"bold\">legend</text>\n", y + 12);
    for (size_t i = 0; i < n; i++)
        swatch(&e[i], x[i], y + TOP_H + line[i] * LINE_H, f);
    fputs("</g>\n", f);
}

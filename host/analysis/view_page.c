/**
 * \file view_page.c
 * \brief The zoomable page of `offtrace view`: one self-contained HTML file
 *        (nothing loaded from anywhere: it works offline and as a mail
 *        attachment) made of the stylesheet and script of
 *        host/analysis/view_page/ (built into offtrace, view_embed.cmake)
 *        and the trace's data as JSON: the tiles that fit the size budget.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_store.h"

/* view_page/page.js and page.css, as the build turned them into C strings. */
extern const char ot_view_page_js[];
extern const char ot_view_page_css[];

static const char before_title[] = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                                   "<title>offtrace view: ";
static const char before_css[] = "</title>\n<style>\n";
static const char before_data[] = "</style>\n</head>\n<body>\n<div id=\"ot-app\"></div>\n"
                                  "<script id=\"ot-data\" type=\"application/json\">";
static const char before_js[] = "</script>\n<script>\n";
static const char after_js[] = "</script>\n</body>\n</html>\n";

/* The title as HTML text. */
static void html_text(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        default:
            if ((unsigned char)*s >= 0x20)
                fputc(*s, f);
        }
}

/* Everything but the tiles, written to \p f (or only measured, f NULL). */
static uint64_t frame_bytes(const ot_view_trace *t, int serve, int complete, FILE *f)
{
    char *text = NULL;
    size_t length = 0;
    FILE *m = open_memstream(&text, &length);
    if (!m)
        return UINT64_MAX;
    fputs(before_title, m);
    html_text(m, t->frame->title);
    fputs(before_css, m);
    fputs(ot_view_page_css, m);
    fputs(before_data, m);
    ot_view_json_head(t, serve, complete, m);
    fclose(m);
    uint64_t bytes = length + strlen("}}") + strlen(before_js) + strlen(ot_view_page_js) + strlen(after_js);
    if (f)
        fwrite(text, 1, length, f);
    free(text);
    return bytes;
}

int ot_view_write_page(ot_view_trace *t, FILE *f, uint64_t budget, int serve, ot_view_page_facts *facts)
{
    uint64_t frame = frame_bytes(t, serve, 0, NULL); /* "false" is the longer */
    if (frame == UINT64_MAX)
        return -ENOMEM;
    ot_view_tile_set set;
    int rc = ot_view_pyramid(t, budget > frame ? budget - frame : 0, &set);
    if (rc)
        return rc;
    uint64_t written = frame_bytes(t, serve, set.complete, f);
    for (size_t i = 0; i < set.n; i++) {
        fprintf(f, "%s\"%u/%" PRIu64 "\":", i ? "," : "", set.at[i].k, set.at[i].i);
        fwrite(set.at[i].json, 1, set.at[i].length, f);
    }
    fputs("}}", f);
    fputs(before_js, f);
    fputs(ot_view_page_js, f);
    fputs(after_js, f);
    *facts = (ot_view_page_facts){.levels = set.levels, .tiles = set.n, .complete = set.complete,
                                  .bytes = written + set.bytes - 1 /* no comma after the last tile */,
                                  .max_level = t->max_level};
    facts->over_budget = facts->bytes > budget;
    ot_view_tile_set_free(&set);
    return ferror(f) ? -1 : 0;
}

void ot_view_print_page_summary(const ot_view_page_facts *p, const char *path, const char *archive, uint64_t budget,
                                FILE *f)
{
    char size[32], limit[32];
    ot_view_format_bytes(p->bytes, size, sizeof size);
    ot_view_format_bytes(budget, limit, sizeof limit);
    fprintf(f, "offtrace: wrote %s: %s, %u zoom level%s in %zu tiles; ", path, size, p->levels,
            p->levels == 1 ? "" : "s", p->tiles);
    if (p->over_budget)
        fprintf(f, "the whole run alone is over the %s budget (--max-size); `offtrace view %s --serve` "
                   "has all detail\n", limit, archive);
    else if (!p->complete)
        fprintf(f, "detail past level %u cut by the %s budget (--max-size); `offtrace view %s --serve` "
                   "has it all\n", p->levels - 1, limit, archive);
    else
        fprintf(f, "all detail\n");
}

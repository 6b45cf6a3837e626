/**
 * \file view.h
 * \brief `offtrace view`: the timeline of an archive as an SVG picture or a
 *        self-contained HTML page that zooms into detail (docs/view.md).
 *
 * The picture (ot_view): the archive is read once (trace_read.h). Every
 * region is either drawn as a bar (one pixel wide or more) or merged into
 * its row's pixel column aggregate; transfers become arrows, several
 * starting in one pixel column become one arrow with a count. So memory and
 * output grow with the picture (rows x levels x width), never with the
 * number of events.
 *
 * The page (ot_view_trace): the archive is read once into memory (its
 * region pieces, transfers and memory samples), and bucketed as the picture
 * is, window by window, into a pyramid of tiles: tile K/I covers the I-th
 * of 2^K equal parts of the trace at OT_VIEW_TILE_PX columns. The page
 * embeds the tiles a size budget allows; `--serve` computes the others on
 * demand.
 */
#ifndef OT_ANALYSIS_VIEW_H
#define OT_ANALYSIS_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Smallest and largest picture width (--width), in pixels. */
#define OT_VIEW_MIN_WIDTH 600u
#define OT_VIEW_MAX_WIDTH 16384u
#define OT_VIEW_DEFAULT_WIDTH 1600u
/** Most nesting levels drawn per row (--depth); the last shows the innermost region. */
#define OT_VIEW_MAX_DEPTH 8
#define OT_VIEW_DEFAULT_DEPTH 4

typedef struct ot_view_options {
    unsigned width;          /**< whole picture, labels included (px) */
    uint64_t from_ns, to_ns; /**< the window, relative to the trace start */
    int has_from, has_to;    /**< unset: the trace's own start / end */
    int depth;               /**< levels per row, 1 .. OT_VIEW_MAX_DEPTH (0: the default) */
    const char *title;       /**< first words of the heading (e.g. the archive path) */
} ot_view_options;

typedef struct ot_view ot_view;

/**
 * \brief Read the archive in \p dir and lay out its timeline.
 * \return 0 and *out (free with ot_view_free); or a negative errno with a
 *         one-line message in \p err: -ENOENT / -EINVAL (no archive, damaged),
 *         -ERANGE (--from at or past the end of the trace), -ENOMEM.
 */
int ot_view_build(const char *dir, const ot_view_options *o, ot_view **out, char *err, size_t err_size);

/**
 * \brief Write the picture as an SVG document.
 * \param in_html nonzero: the form inlined in HTML (no XML declaration and
 *        no namespace attributes, which the HTML parser supplies).
 * \return 0, or -1 when writing failed.
 */
int ot_view_write_svg(const ot_view *v, FILE *f, int in_html);

/** \brief One line on what was drawn into \p path: rows, bars, merged marks, arrows. */
void ot_view_print_summary(const ot_view *v, const char *path, FILE *f);

void ot_view_free(ot_view *v);

/* ---- the zoomable page ---- */

/** Columns of a tile: the page draws a tile whose columns are at most a screen pixel wide. */
#define OT_VIEW_TILE_PX 1024u
/** Size of the HTML page at most (--max-size), unless level 0 alone is larger. */
#define OT_VIEW_DEFAULT_PAGE_BUDGET (32ull << 20)
/** `--serve`'s port unless --port. */
#define OT_VIEW_DEFAULT_PORT 8750u
/** What a served page embeds; the rest it fetches. */
#define OT_VIEW_SERVE_PAGE_BUDGET (2ull << 20)

typedef struct ot_view_trace ot_view_trace;

/**
 * \brief Read the archive in \p dir into memory for the page (the whole
 *        trace; \p o's --from/--to only say the range the page opens at).
 * \return 0 and *out (free with ot_view_trace_free); or as ot_view_build.
 */
int ot_view_trace_load(const char *dir, const ot_view_options *o, ot_view_trace **out, char *err,
                       size_t err_size);

void ot_view_trace_free(ot_view_trace *t);

/** What a page holds. */
typedef struct ot_view_page_facts {
    unsigned levels;         /**< tile levels embedded: 0 .. levels-1 */
    size_t tiles;            /**< tiles embedded */
    int complete;            /**< every embedded tile is exact, on the deepest level, or has its children embedded */
    int over_budget;         /**< level 0 alone is over the budget (embedded all the same) */
    uint64_t bytes;          /**< the page's size */
    unsigned max_level;      /**< the deepest level there is (columns of a nanosecond or less) */
} ot_view_page_facts;

/**
 * \brief Write the page: the tiles of levels 0, 1, ... as long as the page
 *        stays within \p budget bytes (whole levels; level 0 always).
 * \param serve nonzero: the page says that missing tiles are to be fetched.
 * \return 0, -1 when writing failed, -ENOMEM.
 */
int ot_view_write_page(ot_view_trace *t, FILE *f, uint64_t budget, int serve, ot_view_page_facts *facts);

/**
 * \brief The JSON of tile \p k / \p i (computed once, then cached).
 * \return 0 and *json (owned by \p t, valid until the next call), *length;
 *         -ENOENT when there is no such tile (out of range, deeper than the
 *         deepest level, or its parent is exact); -ENOMEM.
 */
int ot_view_tile_json(ot_view_trace *t, unsigned k, uint64_t i, const char **json, size_t *length);

/** \brief One line on what the page holds: levels, tiles, and whether the budget cut detail. */
void ot_view_print_page_summary(const ot_view_page_facts *facts, const char *path, const char *archive,
                                uint64_t budget, FILE *f);

/**
 * \brief Parse a time such as "12.5ms", "300us", "300µs", "1.2s", "250000ns".
 *        A unit is required (a bare number is ambiguous).
 * \return 0 and *ns, or -1 for a malformed, negative or too large value.
 */
int ot_view_parse_time(const char *text, uint64_t *ns);

/** \brief A duration with three significant digits and a unit: "836 ns", "12.3 µs", "1.25 ms", "2.01 s". */
void ot_view_format_duration(uint64_t ns, char *buf, size_t size);

#endif /* OT_ANALYSIS_VIEW_H */

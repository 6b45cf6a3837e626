/**
 * \file view.h
 * \brief `offtrace view`: the timeline of an archive as an SVG picture or a
 *        self-contained HTML page (docs/view.md).
 *
 * The archive is read once (trace_read.h). Every region is either drawn as a
 * bar (one pixel wide or more) or merged into its row's pixel column
 * aggregate; transfers become arrows, several starting in one pixel column
 * become one arrow with a count. So memory and output grow with the picture
 * (rows x levels x width), never with the number of events.
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

/** \brief Write the HTML page: the SVG, a stylesheet and the zoom/hover script, nothing external. */
int ot_view_write_html(const ot_view *v, FILE *f);

/** \brief One line on what was drawn into \p path: rows, bars, merged marks, arrows. */
void ot_view_print_summary(const ot_view *v, const char *path, FILE *f);

void ot_view_free(ot_view *v);

/**
 * \brief Parse a time such as "12.5ms", "300us", "300µs", "1.2s", "250000ns".
 *        A unit is required (a bare number is ambiguous).
 * \return 0 and *ns, or -1 for a malformed, negative or too large value.
 */
int ot_view_parse_time(const char *text, uint64_t *ns);

/** \brief A duration with three significant digits and a unit: "836 ns", "12.3 µs", "1.25 ms", "2.01 s". */
void ot_view_format_duration(uint64_t ns, char *buf, size_t size);

#endif /* OT_ANALYSIS_VIEW_H */

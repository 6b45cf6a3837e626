/**
 * \file view_cmd.c
 * \brief `offtrace view DIR [-o FILE.html|FILE.svg] [--from T] [--to T] [--width PX] [--depth N]
 *        [--max-size SIZE] | DIR --serve [--port N]`: the options come parsed and checked
 *        (options.c); host/analysis/view.h does the drawing, view_serve.c the serving. Runs in
 *        a child (ot_cli_isolated) like every archive reader, serving included: a damaged
 *        archive that crashes the reader ends in a message, never in a crash of offtrace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "view.h"
#include "view_serve.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcasecmp(s + n - k, suffix) == 0;
}

/* Options that make no sense together. \return 0, or 2 after one line. */
static int check_serve(const ot_cli_args *a)
{
    if (a->text[OT_OPT_OUTPUT])
        return ot_cli_usage_error(a->verb, "--serve writes no file: drop -o, or drop --serve to write '%s'",
                                  a->text[OT_OPT_OUTPUT]);
    if (a->text[OT_OPT_MAX_SIZE])
        return ot_cli_usage_error(a->verb, "--max-size limits the HTML file; --serve has no limit");
    if (a->text[OT_OPT_WIDTH])
        return ot_cli_usage_error(a->verb, "--width is the SVG picture's; the page fits the window");
    return 0;
}

/* What the table cannot check alone: the output and the range.
 * \return 0, or 2 after one line. */
static int check(const ot_cli_args *a, const ot_view_options *o, const char *out, int *html)
{
    if (o->has_from && o->has_to && o->from_ns >= o->to_ns)
        return ot_cli_usage_error(a->verb, "--from must be earlier than --to");
    if (a->text[OT_OPT_SERVE])
        return check_serve(a);
    if (a->text[OT_OPT_PORT])
        return ot_cli_usage_error(a->verb, "--port is for --serve");
    if (!out)
        return ot_cli_usage_error(a->verb, "'%s' has no name to call its picture by: give -o FILE.html or "
                                  "-o FILE.svg", a->dir);
    *html = ends_with(out, ".html") || ends_with(out, ".htm");
    if (!*html && !ends_with(out, ".svg"))
        return ot_cli_usage_error(a->verb, "cannot tell the format of '%s': name it .html or .svg", out);
    if (*html && a->text[OT_OPT_WIDTH])
        return ot_cli_usage_error(a->verb, "--width is the SVG picture's; the page fits the window");
    if (!*html && a->text[OT_OPT_MAX_SIZE])
        return ot_cli_usage_error(a->verb, "--max-size is the HTML page's; the SVG is as large as its width");
    return 0;
}

/* Exit status of a failed build: 1 for memory, 2 for the archive or the range. */
static int build_failed(int rc, const char *err)
{
    fprintf(stderr, "%s\n", err);
    return rc == -ENOMEM ? 1 : 2;
}

static int write_svg(const ot_cli_args *a, const ot_view_options *o, const char *path)
{
    ot_view *v;
    char err[512];
    int rc = ot_view_build(a->dir, o, &v, err, sizeof err);
    if (rc != 0)
        return build_failed(rc, err);
    ot_cli_output out;
    if (ot_cli_output_open(&out, path) != 0) {
        ot_view_free(v);
        return 1;
    }
    if (ot_view_write_svg(v, out.file, 0) != 0) {
        fprintf(stderr, "offtrace view: writing '%s' failed\n", path);
        ot_cli_output_abandon(&out);
        ot_view_free(v);
        return 1;
    }
    rc = ot_cli_output_commit(&out) == 0 ? 0 : 1;
    if (rc == 0)
        ot_view_print_summary(v, path, stdout);
    ot_view_free(v);
    return rc;
}

static int write_html(const ot_cli_args *a, const ot_view_options *o, const char *path)
{
    ot_view_trace *t;
    char err[512];
    int rc = ot_view_trace_load(a->dir, o, &t, err, sizeof err);
    if (rc != 0)
        return build_failed(rc, err);
    ot_cli_output out;
    if (ot_cli_output_open(&out, path) != 0) {
        ot_view_trace_free(t);
        return 1;
    }
    uint64_t budget = a->value[OT_OPT_MAX_SIZE];
    ot_view_page_facts facts;
    rc = ot_view_write_page(t, out.file, budget, 0, &facts);
    if (rc != 0) {
        fprintf(stderr, rc == -ENOMEM ? "offtrace view: out of memory\n" : "offtrace view: writing '%s' failed\n",
                path);
        ot_cli_output_abandon(&out);
        ot_view_trace_free(t);
        return 1;
    }
    rc = ot_cli_output_commit(&out) == 0 ? 0 : 1;
    if (rc == 0)
        ot_view_print_page_summary(&facts, path, a->dir, budget, stdout);
    ot_view_trace_free(t);
    return rc;
}

static int serve(const ot_cli_args *a, const ot_view_options *o)
{
    ot_view_trace *t;
    char err[512];
    int rc = ot_view_trace_load(a->dir, o, &t, err, sizeof err);
    if (rc != 0)
        return build_failed(rc, err);
    rc = ot_cli_view_serve(t, a->dir, (unsigned)a->value[OT_OPT_PORT]);
    ot_view_trace_free(t);
    return rc;
}

int ot_cmd_view(const ot_cli_args *a)
{
    ot_view_options o = {.width = (unsigned)a->value[OT_OPT_WIDTH],
                         .depth = (int)a->value[OT_OPT_DEPTH],
                         .has_from = a->text[OT_OPT_FROM] != NULL,
                         .from_ns = a->value[OT_OPT_FROM],
                         .has_to = a->text[OT_OPT_TO] != NULL,
                         .to_ns = a->value[OT_OPT_TO],
                         .title = a->dir};
    /* Without -o: DIR.html beside the archive (ot_cli_output_of); the
     * summary line below says where it went. */
    char fallback[4200];
    const char *out = a->text[OT_OPT_SERVE] ? NULL : ot_cli_output_of(a, fallback, sizeof fallback);
    int html = 0, rc = check(a, &o, out, &html);
    if (rc)
        return rc;
    if (out && !ot_cli_output_allowed("view", out, a->dir))
        return 2;
    if ((rc = ot_cli_archive_ready("view", a->dir)) != 0)
        return rc;
    if (!out)
        return serve(a, &o);
    return html ? write_html(a, &o, out) : write_svg(a, &o, out);
}

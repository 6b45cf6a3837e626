/**
 * \file view_cmd.c
 * \brief `offtrace view DIR [-o FILE.svg|FILE.html] [--from T] [--to T] [--width PX] [--depth N]`:
 *        the options come parsed and checked (options.c); host/analysis/view.h
 *        does the drawing. Runs in a child (ot_cli_isolated) like every
 *        archive reader.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "view.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcasecmp(s + n - k, suffix) == 0;
}

/* What the table cannot check alone: the output and the range.
 * \return 0, or 2 after one line. */
static int check(const ot_cli_args *a, const ot_view_options *o, const char *out, int *html)
{
    if (!out)
        return ot_cli_usage_error(a->verb, "'%s' has no name to call its picture by: give -o FILE.svg or "
                                  "-o FILE.html", a->dir);
    *html = ends_with(out, ".html") || ends_with(out, ".htm");
    if (!*html && !ends_with(out, ".svg"))
        return ot_cli_usage_error(a->verb, "cannot tell the format of '%s': name it .svg or .html", out);
    if (o->has_from && o->has_to && o->from_ns >= o->to_ns)
        return ot_cli_usage_error(a->verb, "--from must be earlier than --to");
    return 0;
}

static int write_out(const ot_view *v, const char *path, int html)
{
    ot_cli_output out;
    if (ot_cli_output_open(&out, path) != 0)
        return 1;
    int rc = html ? ot_view_write_html(v, out.file) : ot_view_write_svg(v, out.file, 0);
    if (rc != 0) {
        fprintf(stderr, "offtrace view: writing '%s' failed\n", path);
        ot_cli_output_abandon(&out);
        return 1;
    }
    return ot_cli_output_commit(&out) == 0 ? 0 : 1;
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
    const char *out = ot_cli_output_of(a, fallback, sizeof fallback);
    int html, rc = check(a, &o, out, &html);
    if (rc)
        return rc;
    if (!ot_cli_output_allowed("view", out, a->dir))
        return 2;
    if ((rc = ot_cli_archive_ready("view", a->dir)) != 0)
        return rc;
    ot_view *v;
    char err[512];
    rc = ot_view_build(a->dir, &o, &v, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return rc == -ENOMEM ? 1 : 2;
    }
    rc = write_out(v, out, html);
    if (rc == 0)
        ot_view_print_summary(v, out, stdout);
    ot_view_free(v);
    return rc;
}

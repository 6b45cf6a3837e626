/**
 * \file view_cmd.c
 * \brief `offtrace view DIR -o FILE.svg|FILE.html [--from T] [--to T] [--width PX] [--depth N]`:
 *        options, then host/analysis/view.h does the drawing. Runs in a
 *        child (ot_cli_isolated) like every archive reader.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"
#include "view.h"

typedef struct view_args {
    const char *dir, *out;
    int html;
    ot_view_options o;
} view_args;

static void usage(FILE *to)
{
    fprintf(to,
            "usage: offtrace view DIR -o FILE.svg|FILE.html [--from T] [--to T] [--width PX] [--depth N]\n"
            "  Draws the timeline of the archive in DIR: host threads, device streams, device threads\n"
            "  and RDMA rows, regions as coloured bars, transfers as arrows, a time axis and a legend.\n"
            "  .svg is a static picture; .html adds zoom (wheel, drag) and tooltips, with nothing external.\n"
            "  -o FILE      output; its extension (.svg, .html) chooses the format\n"
            "  --from T     start of the range drawn, from the trace start: 250000ns, 300us, 12.5ms, 1.2s\n"
            "  --to T       end of the range drawn (past the end of the trace: the end)\n"
            "  --width PX   picture width, labels included (%u .. %u, default %u)\n"
            "  --depth N    nesting levels per row (1 .. %d, default %d); the last shows the innermost region\n",
            OT_VIEW_MIN_WIDTH, OT_VIEW_MAX_WIDTH, OT_VIEW_DEFAULT_WIDTH, OT_VIEW_MAX_DEPTH, OT_VIEW_DEFAULT_DEPTH);
}

/* A usage error: one line, pointing at --help. \return -1. */
__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "offtrace view: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see offtrace view --help)\n");
    va_end(ap);
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && strcasecmp(s + n - k, suffix) == 0;
}

/* "--opt value" or "--opt=value"; *i moves past what was used. NULL: not this option. */
static const char *value_of(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int set_time(const char *text, const char *option, uint64_t *ns, int *has)
{
    if (ot_view_parse_time(text, ns) != 0) {
        fprintf(stderr, "offtrace view: %s takes a time with its unit, such as 250000ns, 300us, 12.5ms or 1.2s; "
                        "not '%s'\n", option, text);
        return -1;
    }
    *has = 1;
    return 0;
}

/* A whole number in [low, high] for \p option. \return 0, or -1 after a one-line message. */
static int set_number(const char *text, const char *option, unsigned long low, unsigned long high, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || n < low || n > high) {
        fprintf(stderr, "offtrace view: %s takes a whole number from %lu to %lu, not '%s'\n", option, low, high,
                text);
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

/* One option at argv[*i]. \return 0, or -1 after a one-line message. */
static int option(int argc, char **argv, int *i, view_args *a)
{
    int missing = 0;
    const char *v, *arg = argv[*i];
    if ((v = value_of(argc, argv, i, "-o", &missing)) || (v = value_of(argc, argv, i, "--output", &missing)))
        a->out = v;
    else if ((v = value_of(argc, argv, i, "--from", &missing)))
        return set_time(v, "--from", &a->o.from_ns, &a->o.has_from);
    else if ((v = value_of(argc, argv, i, "--to", &missing)))
        return set_time(v, "--to", &a->o.to_ns, &a->o.has_to);
    else if ((v = value_of(argc, argv, i, "--width", &missing)))
        return set_number(v, "--width", OT_VIEW_MIN_WIDTH, OT_VIEW_MAX_WIDTH, &a->o.width);
    else if ((v = value_of(argc, argv, i, "--depth", &missing))) {
        unsigned depth;
        if (set_number(v, "--depth", 1, OT_VIEW_MAX_DEPTH, &depth) != 0)
            return -1;
        a->o.depth = (int)depth;
    }
    else
        return missing ? bad("%s needs a value", arg) : bad("unknown option '%s'", arg);
    return 0;
}

/* \return 0 to draw, 1 after --help, -1 after a one-line message. */
static int parse(int argc, char **argv, view_args *a)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 1;
        }
        if (argv[i][0] == '-' && argv[i][1]) {
            if (option(argc, argv, &i, a) != 0)
                return -1;
        } else if (a->dir)
            return bad("takes one archive directory; '%s' is a second one", argv[i]);
        else
            a->dir = argv[i];
    }
    if (!a->dir)
        return bad("names no archive directory");
    if (!a->out)
        return bad("needs -o FILE.svg or -o FILE.html");
    if (ends_with(a->out, ".html") || ends_with(a->out, ".htm"))
        a->html = 1;
    else if (!ends_with(a->out, ".svg"))
        return bad("cannot tell the format of '%s': name it .svg or .html", a->out);
    if (a->o.has_from && a->o.has_to && a->o.from_ns >= a->o.to_ns)
        return bad("--from must be earlier than --to");
    return 0;
}

static int write_out(const ot_view *v, const view_args *a)
{
    ot_cli_output out;
    if (ot_cli_output_open(&out, a->out) != 0)
        return 1;
    int rc = a->html ? ot_view_write_html(v, out.file) : ot_view_write_svg(v, out.file, 0);
    if (rc != 0) {
        fprintf(stderr, "offtrace view: writing '%s' failed\n", a->out);
        ot_cli_output_abandon(&out);
        return 1;
    }
    return ot_cli_output_commit(&out) == 0 ? 0 : 1;
}

int ot_cmd_view(int argc, char **argv)
{
    view_args a = {.o = {.width = OT_VIEW_DEFAULT_WIDTH, .depth = OT_VIEW_DEFAULT_DEPTH}};
    int p = parse(argc, argv, &a);
    if (p)
        return p > 0 ? 0 : 2;
    if (!ot_cli_output_allowed("view", a.out, a.dir))
        return 2;
    if (ot_cli_refuse_recording(a.dir))
        return 1;
    a.o.title = a.dir;
    ot_view *v;
    char err[512];
    int rc = ot_view_build(a.dir, &a.o, &v, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return rc == -ENOMEM ? 1 : 2;
    }
    rc = write_out(v, &a);
    if (rc == 0)
        ot_view_print_summary(v, a.out, stdout);
    ot_view_free(v);
    return rc;
}

/**
 * \file report_cmd.c
 * \brief `offtrace report [options] DIR`: where the time went and which
 *        transfers were avoidable (host/analysis/report.h, docs/report.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "report.h"

typedef struct report_args {
    const char *dir, *output;
    ot_rp_options options;
    int json, limit_given;
} report_args;

static void usage(FILE *to)
{
    fprintf(to, "usage: offtrace report [--sort KEY] [--limit N] [--json] [-o FILE] DIR\n"
                "  --sort KEY   order of the tables: total (default), count, mean, bytes, name\n"
                "  --limit N    rows per table (default 10; 0 = all; --json shows all unless given)\n"
                "  --json       one JSON object instead of the tables\n"
                "  -o FILE      write the report to FILE instead of standard output\n"
                "The report starts with the three things to know about the run; docs/report.md explains\n"
                "every column and finding.\n");
}

/* A usage error: one line on stderr, exit status 2. */
__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "offtrace report: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (offtrace report --help)\n");
    va_end(ap);
    return 2;
}

static int parse_sort(const char *v, ot_rp_sort *sort)
{
    static const char *keys[] = {"total", "count", "mean", "bytes", "name"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(v, keys[i])) {
            *sort = (ot_rp_sort)i;
            return 0;
        }
    return -1;
}

static int parse_limit(const char *v, size_t *limit)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || n > 1000000000ull)
        return -1;
    *limit = (size_t)n;
    return 0;
}

/* "--sort X" or "--sort=X": the value, advancing *i past it; NULL if missing. */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static int is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

static int parse_option(int argc, char **argv, int *i, report_args *a)
{
    const char *arg = argv[*i], *v;
    if (is_option(arg, "--sort")) {
        if (!(v = value_of(argc, argv, i, "--sort")) || parse_sort(v, &a->options.sort) != 0)
            return bad("--sort needs one of total, count, mean, bytes, name, not '%s'", v ? v : "");
    } else if (is_option(arg, "--limit")) {
        if (!(v = value_of(argc, argv, i, "--limit")) || parse_limit(v, &a->options.limit) != 0)
            return bad("--limit needs a number of rows (0 = all), not '%s'", v ? v : "");
        a->limit_given = 1;
    } else if (!strcmp(arg, "--json"))
        a->json = 1;
    else if (!strcmp(arg, "-o")) {
        if (*i + 1 >= argc)
            return bad("%s needs a file name", arg);
        a->output = argv[++*i];
    } else
        return bad("unknown option '%s'", arg);
    return 0;
}

static int parse(int argc, char **argv, report_args *a)
{
    a->options.limit = 10;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            usage(stdout);
            return -1;
        }
        if (arg[0] == '-' && arg[1]) {
            if (parse_option(argc, argv, &i, a))
                return 2;
        } else if (a->dir)
            return bad("one archive at a time ('%s' is one too many)", arg);
        else
            a->dir = arg;
    }
    if (!a->dir)
        return bad("no archive directory given");
    if (a->json && !a->limit_given)
        a->options.limit = 0;
    return 0;
}

static int write_report(const report_args *a, const ot_report *r)
{
    ot_cli_output out;
    FILE *to = stdout;
    if (a->output) {
        if (ot_cli_output_open(&out, a->output) != 0)
            return 1;
        to = out.file;
    }
    if (a->json)
        ot_report_print_json(r, &a->options, to);
    else
        ot_report_print_text(r, &a->options, to);
    if (a->output)
        return ot_cli_output_commit(&out) == 0 ? 0 : 1;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "offtrace report: writing the report failed: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

int ot_cmd_report(int argc, char **argv)
{
    report_args a = {0};
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.output && !ot_cli_output_allowed("report", a.output, a.dir))
        return 2;
    if (ot_cli_refuse_recording(a.dir))
        return 1;
    ot_report r;
    char err[512];
    rc = ot_report_collect(a.dir, &r, err, sizeof err);
    if (rc == 0 && ot_report_find(&r) != 0) {
        snprintf(err, sizeof err, "offtrace: out of memory judging '%s'", a.dir);
        rc = -ENOMEM;
    }
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        ot_report_free(&r);
        return rc == -ENOMEM ? 1 : 2;
    }
    rc = write_report(&a, &r);
    ot_report_free(&r);
    return rc;
}

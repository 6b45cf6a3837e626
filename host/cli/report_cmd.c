/**
 * \file report_cmd.c
 * \brief `offtrace report [options] DIR`: where the time went and which
 *        transfers were avoidable (host/analysis/report.h, docs/report.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static int write_report(const ot_cli_args *a, const ot_rp_options *options, const ot_report *r)
{
    const char *output = a->text[OT_OPT_OUTPUT];
    ot_cli_output out;
    FILE *to = stdout;
    if (output) {
        if (ot_cli_output_open(&out, output) != 0)
            return 1;
        to = out.file;
    }
    if (a->text[OT_OPT_JSON])
        ot_report_print_json(r, options, to);
    else
        ot_report_print_text(r, options, to);
    if (output)
        return ot_cli_output_commit(&out) == 0 ? 0 : 1;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "offtrace report: writing the report failed: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

int ot_cmd_report(const ot_cli_args *a)
{
    /* --sort's choices are listed in ot_rp_sort's order (options.c). */
    ot_rp_options options = {.sort = (ot_rp_sort)a->value[OT_OPT_SORT], .limit = (size_t)a->value[OT_OPT_LIMIT]};
    if (a->text[OT_OPT_JSON] && !a->text[OT_OPT_LIMIT])
        options.limit = 0; /* JSON is for programs: every row */
    if (a->text[OT_OPT_OUTPUT] && !ot_cli_output_allowed("report", a->text[OT_OPT_OUTPUT], a->dir))
        return 2;
    int rc = ot_cli_archive_ready("report", a->dir);
    if (rc)
        return rc;
    ot_report r;
    char err[512];
    rc = ot_report_collect(a->dir, &r, err, sizeof err);
    if (rc == 0 && ot_report_find(&r) != 0) {
        snprintf(err, sizeof err, "offtrace: out of memory judging '%s'", a->dir);
        rc = -ENOMEM;
    }
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        ot_report_free(&r);
        return rc == -ENOMEM ? 1 : 2;
    }
    rc = write_report(a, &options, &r);
    ot_report_free(&r);
    return rc;
}

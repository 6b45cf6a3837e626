/* `offtrace info DIR`: what the archive holds (the record summary). */
#include <stdio.h>

#include "cli.h"
#include "summary.h"

int ot_cmd_info(const ot_cli_args *args)
{
    int rc = ot_cli_archive_ready("info", args->dir);
    if (rc)
        return rc;
    ot_summary s;
    char err[512];
    if (ot_summary_read(args->dir, &s, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    ot_summary_print(&s, args->dir, stdout);
    return 0;
}

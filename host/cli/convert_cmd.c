#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "convert.h"
#include "summary.h"

int ot_cmd_convert(int argc, char **argv)
{
    ot_convert_options opts = {0};
    int quiet = 0;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--reason") && i + 1 < argc)
            opts.reason = argv[++i];
        else if (!strcmp(argv[i], "--keep-raw"))
            opts.keep_raw = 1;
        else if (!strcmp(argv[i], "--quiet")) /* the library's helper process: one line on failure only */
            quiet = 1;
        else if (!strcmp(argv[i], "--force")) /* convert even while the recording's process is alive */
            ;
        else
            break;
    }
    if (i != argc - 1) {
        fprintf(stderr, "usage: offtrace convert [--reason TEXT] [--keep-raw] [--quiet] [--force] DIR\n");
        return 2;
    }
    char raw[4200];
    snprintf(raw, sizeof raw, "%s/raw", argv[i]);
    if (!opts.reason && !ot_cli_raw_recorded(raw))
        opts.reason = "converted after the program ended without finishing its trace";
    char msg[512];
    if (ot_convert_directory(argv[i], &opts, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    if (quiet)
        return 0;
    ot_summary s;
    if (ot_summary_read(argv[i], &s, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    ot_summary_print(&s, argv[i], stderr);
    return 0;
}

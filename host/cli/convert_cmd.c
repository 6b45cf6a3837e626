#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "convert.h"
#include "summary.h"

int ot_cmd_convert(int argc, char **argv)
{
    ot_convert_options opts = {0};
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--reason") && i + 1 < argc)
            opts.reason = argv[++i];
        else if (!strcmp(argv[i], "--keep-raw"))
            opts.keep_raw = 1;
        else
            break;
    }
    if (i != argc - 1) {
        fprintf(stderr, "usage: offtrace convert [--reason TEXT] [--keep-raw] DIR\n");
        return 2;
    }
    if (!opts.reason)
        opts.reason = "converted after the program ended without finishing its trace";
    char msg[512];
    if (ot_convert_directory(argv[i], &opts, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    ot_summary s;
    if (ot_summary_read(argv[i], &s, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    ot_summary_print(&s, argv[i], stderr);
    return 0;
}

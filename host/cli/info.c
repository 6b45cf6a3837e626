#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "summary.h"

int ot_cmd_info(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: offtrace info DIR\n");
        return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
    }
    const char *dir = argv[1];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "offtrace: '%s' is not a directory\n", dir);
        return 2;
    }
    if (ot_cli_refuse_recording(dir))
        return 1;
    ot_summary s;
    char err[512];
    if (ot_summary_read(dir, &s, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    ot_summary_print(&s, dir, stdout);
    return 0;
}

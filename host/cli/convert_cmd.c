/**
 * \file convert_cmd.c
 * \brief `offtrace convert DIR`: turn the raw recording in DIR into an
 *        archive. A recording whose writer still runs is refused (converting
 *        it would remove raw/ under the running program) unless --force,
 *        which then keeps raw/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "convert.h"
#include "liveness.h"
#include "offtrace/offtrace.h"
#include "summary.h"

static void usage(FILE *to)
{
    fprintf(to, "usage: offtrace convert [--reason TEXT] [--keep-raw] [--force] DIR\n"
                "  turn the recording DIR/raw into the archive DIR/traces.otf2 (`offtrace record` does it\n"
                "  itself; this is for a recording left unconverted)\n"
                "  --reason TEXT  why the recording is partial (shown as PARTIAL)\n"
                "  --keep-raw     keep DIR/raw after the conversion\n"
                "  --force        convert a recording whose process still runs (what it wrote so far;\n"
                "                 raw/ is kept)\n");
}

int ot_cmd_convert(int argc, char **argv)
{
    ot_convert_options opts = {0};
    int quiet = 0, force = 0, force_on_live = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--reason") && i + 1 < argc)
            opts.reason = argv[++i];
        else if (!strcmp(argv[i], "--keep-raw"))
            opts.keep_raw = 1;
        else if (!strcmp(argv[i], "--quiet")) /* the library's helper process: one line on failure only */
            quiet = 1;
        else if (!strcmp(argv[i], "--force"))
            force = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else
            break;
    }
    if (i != argc - 1 || argv[i][0] == '-') {
        if (i < argc && argv[i][0] == '-')
            fprintf(stderr, "offtrace convert: unknown option '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }
    const char *dir = argv[i];
    char raw[4200], status[32], forced_reason[128];
    snprintf(raw, sizeof raw, "%s/raw", dir);
    pid_t owner;
    struct stat st;
    char anchor[4300];
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    if (stat(raw, &st) != 0 && stat(anchor, &st) == 0) {
        fprintf(stderr, "offtrace convert: '%s' is converted already (%s)\n", dir, anchor);
        return 0;
    }
    if (ot_conversion_running(raw, &owner)) {
        fprintf(stderr, "offtrace convert: '%s' is being converted by process %d already\n", dir, (int)owner);
        return 1;
    }
    /* The writer may hand its recording over to a convert it started and
     * waits for (the library's exit and crash paths): its own child. */
    if (ot_recording_alive(raw, &owner) && owner != getppid()) {
        if (!force) {
            fprintf(stderr, "offtrace convert: '%s' is still being recorded by process %d; its archive appears "
                            "when that process ends (--force converts what was written so far)\n", dir,
                    (int)owner);
            return 1;
        }
        snprintf(forced_reason, sizeof forced_reason, "converted with --force while process %d was still "
                 "recording", (int)owner);
        opts.reason = forced_reason;
        opts.keep_raw = 1; /* the recording goes on writing there */
        force_on_live = 1;
    }
    ot_cli_raw_status(raw, status, sizeof status);
    if (!opts.reason && strcmp(status, "recorded") != 0) /* "recorded": its writer finished it cleanly */
        opts.reason = "converted after the program ended without finishing its trace";
    int claim = ot_converter_claim(raw, &owner);
    if (claim == -EBUSY) { /* another convert started at the same moment */
        fprintf(stderr, "offtrace convert: '%s' is being converted by process %d already\n", dir, (int)owner);
        return 1;
    }
    if (claim == -ENOENT && stat(anchor, &st) == 0) { /* ... and has finished since */
        fprintf(stderr, "offtrace convert: '%s' is converted already (%s)\n", dir, anchor);
        return 0;
    }
    char msg[512];
    if (ot_convert_directory(dir, &opts, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    if (opts.keep_raw && !force_on_live)
        ot_cli_raw_mark_converted(raw);
    if (quiet)
        return 0;
    ot_summary s;
    if (ot_summary_read(dir, &s, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    ot_summary_print(&s, dir, stderr);
    return 0;
}

/**
 * \file convert_cmd.c
 * \brief `offtrace convert DIR`: turn the raw recording in DIR into an
 *        archive. A recording whose writer still runs is refused (converting
 *        it would remove raw/ under the running program) unless --force,
 *        which then keeps raw/.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "convert.h"
#include "liveness.h" /* ot_converter_claim */
#include "merge.h"    /* issue 16: ot_merge_job */
#include "offtrace/offtrace.h"
#include "summary.h"

/* Nothing to do: exit 0, with one line saying so. */
static int converted_already(const char *dir, const char *anchor)
{
    fprintf(stderr, "offtrace convert: '%s' is converted already (%s)\n", dir, anchor);
    return 0;
}

/* Issue 16: a job directory (`job`, `rank.N/part/`) without its archive:
 * merge the ranks' parts into one (docs/mpi.md "One archive: the merge").
 * Parts not converted yet (a rank killed with the job) are part 1's. */
static int merge_job(const char *dir, int quiet)
{
    char why[512];
    if (ot_merge_job(dir, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    if (!quiet)
        fprintf(stderr, "offtrace convert: merged the ranks' parts into '%s/%s.otf2' (each rank's state: '%s/ranks')\n",
                dir, OFFTRACE_ARCHIVE_NAME, dir);
    return 0;
}

int ot_cmd_convert(const ot_cli_args *args)
{
    ot_convert_options opts = {.reason = args->text[OT_OPT_REASON], .keep_raw = args->text[OT_OPT_KEEP_RAW] != NULL};
    int quiet = args->text[OT_OPT_QUIET] != NULL, force = args->text[OT_OPT_FORCE] != NULL, force_on_live = 0;
    const char *dir = args->dir;
    char forced_reason[128];
    struct stat st;
    char anchor[4300];
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    if (ot_merge_job_pending(dir))
        return merge_job(dir, quiet);
    ot_cli_recording rec;
    switch (ot_cli_recording_inspect(dir, &rec)) {
    case OT_RECORDING_NONE:
        if (stat(anchor, &st) == 0)
            return converted_already(dir, anchor);
        break; /* the converter says what is missing */
    case OT_RECORDING_BEING_CONVERTED:
        ot_cli_recording_explain("convert", dir, &rec);
        return 1;
    case OT_RECORDING_LIVE:
        /* The writer may hand its recording over to a convert it started and
         * waits for (the library's exit and crash paths): its own child. */
        if (rec.pid == getppid())
            break;
        if (!force) {
            ot_cli_recording_explain("convert", dir, &rec);
            return 1;
        }
        snprintf(forced_reason, sizeof forced_reason, "converted with --force while process %d was still "
                 "recording", (int)rec.pid);
        opts.reason = forced_reason;
        opts.keep_raw = 1; /* the recording goes on writing there */
        force_on_live = 1;
        break;
    default: /* a kept raw/ of a converted recording is converted again */
        break;
    }
    const char *raw = rec.raw_dir;
    if (!opts.reason && rec.state != OT_RECORDING_FINISHED) /* complete only if its writer finished it */
        opts.reason = "converted after the program ended without finishing its trace";
    int claim = ot_converter_claim(raw, &rec.pid);
    if (claim == -EBUSY) { /* another convert started at the same moment */
        rec.state = OT_RECORDING_BEING_CONVERTED;
        ot_cli_recording_explain("convert", dir, &rec);
        return 1;
    }
    if (claim == -ENOENT && stat(anchor, &st) == 0) /* ... and has finished since */
        return converted_already(dir, anchor);
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

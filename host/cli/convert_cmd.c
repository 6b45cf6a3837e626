/**
 * \file convert_cmd.c
 * \brief `offtrace convert DIR`: turn the raw recording in DIR into an
 *        archive. A recording whose writer still runs is refused (converting
 *        it would remove raw/ under the running program) unless --force,
 *        which then keeps raw/. A rank's directory of an MPI job converts
 *        into its part and takes part in the job's finish; a job directory
 *        converts every rank left unconverted, then merges (convert_job.h).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "convert.h"
#include "convert_job.h" /* issue 16 */
#include "liveness.h" /* ot_converter_claim */
#include "offtrace/offtrace.h"
#include "summary.h"
#include "write_counts.h"

/* Nothing to do: exit 0, with one line saying so. */
static int converted_already(const char *dir, const char *anchor)
{
    fprintf(stderr, "offtrace convert: '%s' is converted already (%s)\n", dir, anchor);
    return 0;
}

/* What the job's finish did, in one line where there is something to say;
 * the job's summary when this process merged. \return the exit status. */
static int job_outcome(ot_job_finish outcome, const char *job_dir, unsigned size, const char *msg, int quiet)
{
    ot_summary s;
    char error[512];
    switch (outcome) {
    case OT_JOB_MERGED:
        if (quiet)
            return 0;
        if (ot_summary_read(job_dir, &s, error, sizeof error) != 0) {
            fprintf(stderr, "%s\n", error);
            return 1;
        }
        ot_summary_print(&s, job_dir, stderr);
        return 0;
    case OT_JOB_MERGE_FAILED:
        fprintf(stderr, "offtrace convert: %s\n", msg);
        return 2;
    default:
        return 0;
    }
}

/* One rank of `convert run`: its recording converted into its part when it
 * is not yet, and marked done when its part is there. \return 0, or the
 * exit status after saying why (1: still recorded or being converted, 2:
 * its conversion failed). */
static int convert_job_rank(const ot_job_place *place, unsigned rank, const ot_convert_options *given,
                            unsigned *converted)
{
    char rank_dir[4300], anchor[4400], msg[512];
    struct stat st;
    ot_job_rank_dir(place->job_dir, rank, rank_dir, sizeof rank_dir);
    snprintf(anchor, sizeof anchor, "%s/part/%s.otf2", rank_dir, OFFTRACE_ARCHIVE_NAME);
    if (stat(rank_dir, &st) != 0) /* it never started recording: the merge lists it missing */
        return 0;
    ot_cli_recording rec;
    ot_cli_recording_inspect(rank_dir, &rec);
    if (rec.state == OT_RECORDING_BEING_CONVERTED || rec.state == OT_RECORDING_LIVE) {
        ot_cli_recording_explain("convert", rank_dir, &rec);
        return 1;
    }
    if (ot_cli_recording_unconverted(&rec)) {
        ot_convert_options opts = *given;
        if (!opts.reason)
            opts.reason = ot_cli_recording_partial_reason(&rec);
        int claim = ot_converter_claim(rec.raw_dir, &rec.pid);
        if (claim == -EBUSY) {
            rec.state = OT_RECORDING_BEING_CONVERTED;
            ot_cli_recording_explain("convert", rank_dir, &rec);
            return 1;
        }
        if (ot_convert_directory(rank_dir, &opts, msg, sizeof msg) != 0) {
            fprintf(stderr, "%s\n", msg);
            return 2;
        }
        if (opts.keep_raw)
            ot_cli_raw_mark_converted(rec.raw_dir, opts.reason);
        (*converted)++;
    }
    if (stat(anchor, &st) == 0)
        ot_job_mark_done(place->job_dir, rank);
    return 0;
}

/* `offtrace convert run` on a job directory: after a job that aborted (no
 * rank lived to merge), every rank's recording, then the merge. */
static int convert_job(const ot_job_place *place, const ot_convert_options *opts, int quiet)
{
    char anchor[4300], msg[4600];
    struct stat st;
    unsigned converted = 0;
    for (unsigned rank = 0; rank < place->job.size; rank++) {
        int status = convert_job_rank(place, rank, opts, &converted);
        if (status)
            return status;
    }
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", place->job_dir, OFFTRACE_ARCHIVE_NAME);
    if (!converted && stat(anchor, &st) == 0)
        return converted_already(place->job_dir, anchor);
    ot_job_claim_merge(place->job_dir); /* asked for: a claim left by a merge that died does not stop it */
    return job_outcome(ot_convert_job_merge(place->job_dir, msg, sizeof msg), place->job_dir, place->job.size, msg,
                       quiet);
}

int ot_cmd_convert(const ot_cli_args *args)
{
    ot_convert_options opts = {.reason = args->text[OT_OPT_REASON], .keep_raw = args->text[OT_OPT_KEEP_RAW] != NULL};
    int quiet = args->text[OT_OPT_QUIET] != NULL, force = args->text[OT_OPT_FORCE] != NULL, force_on_live = 0;
    const char *dir = args->dir;
    char forced_reason[128];
    struct stat st;
    char anchor[4300];
    ot_job_place place;
    switch (ot_job_locate(dir, &place)) {
    case OT_JOB_PLACE_JOB:
        return convert_job(&place, &opts, quiet);
    case OT_JOB_PLACE_RANK: /* its archive is its part */
        snprintf(anchor, sizeof anchor, "%s/part/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
        break;
    default:
        snprintf(anchor, sizeof anchor, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
        break;
    }
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
    if (!opts.reason) /* complete only if its writer finished it; a kept raw/ as its conversion was */
        opts.reason = ot_cli_recording_partial_reason(&rec);
    int claim = ot_converter_claim(raw, &rec.pid);
    if (claim == -EBUSY) { /* another convert started at the same moment */
        rec.state = OT_RECORDING_BEING_CONVERTED;
        ot_cli_recording_explain("convert", dir, &rec);
        return 1;
    }
    if (claim == -ENOENT && stat(anchor, &st) == 0) /* ... and has finished since */
        return converted_already(dir, anchor);
    char msg[512];
    ot_write_counts *counts = NULL; /* what was written: the summary without reading it back */
    opts.counts = quiet || place.kind == OT_JOB_PLACE_RANK ? NULL : &counts;
    if (ot_convert_directory(dir, &opts, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s\n", msg);
        return 2;
    }
    if (opts.keep_raw && !force_on_live)
        ot_cli_raw_mark_converted(raw, opts.reason);
    if (place.kind == OT_JOB_PLACE_RANK) { /* the rank's finish: the last one out merges */
        char why[4600];
        ot_job_finish outcome = ot_convert_job_rank_done(place.job_dir, &place.job, place.job.rank, why, sizeof why);
        if (!quiet && (outcome == OT_JOB_OTHERS_TO_FINISH || outcome == OT_JOB_MERGED_ELSEWHERE))
            fprintf(stderr, "offtrace convert: rank %u's part is written (%s/part); the job's archive is made in %s "
                            "when its last rank is done\n", place.job.rank, dir, place.job_dir);
        return job_outcome(outcome, place.job_dir, place.job.size, why, quiet);
    }
    if (quiet)
        return 0;
    ot_summary s;
    int rc = ot_summary_after_conversion(dir, counts, &s, msg, sizeof msg);
    ot_write_counts_free(counts);
    if (rc != 0) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    ot_summary_print(&s, dir, stderr);
    return 0;
}

/**
 * \file preconditions.c
 * \brief The one place where the CLI tells what state a recording
 *        directory is in (cli.h): whether raw/ is still to convert, whether
 *        its writer or a converter runs (liveness.h), and whether there is
 *        an archive to read. Every verb asks here instead of reading
 *        raw/status, raw/owner or raw/converter itself. Also what a
 *        directory operand names (DIR or DIR/traces.otf2).
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "job.h" /* issue 16 */
#include "liveness.h"
#include "offtrace/offtrace.h"
#include "regular_file.h"

/* `<raw_dir>/status`'s first line ("recording", "recorded", "converted",
 * ...), "" when there is none, and its second line (after "converted": how
 * that conversion ended) in \p detail. */
static void raw_status(const char *raw_dir, char *status, size_t size, char *detail, size_t detail_size)
{
    char path[4300], text[512];
    snprintf(path, sizeof path, "%s/status", raw_dir);
    status[0] = detail[0] = '\0';
    FILE *f = ot_fopen_regular(path); /* a FIFO named status must not block a reader */
    if (!f)
        return;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    size_t first = strcspn(text, "\n");
    snprintf(status, size, "%.*s", (int)first, text);
    if (text[first] == '\n') {
        const char *rest = text + first + 1;
        snprintf(detail, detail_size, "%.*s", (int)strcspn(rest, "\n"), rest);
    }
}

/* The second line of a kept raw/'s status: "complete", or "partial: " and
 * the archive's reason. */
static const char converted_complete[] = "complete", converted_partial[] = "partial: ";

/* Kept raw/ from before that line (the status "converted" alone) did not
 * say whether its recording was finished: converting it again says so. */
static const char unknown_end[] = "converted after the program ended without finishing its trace";

/* A converter running is asked first: while it runs, even a kept raw/ that
 * says "converted" (a second `convert --keep-raw`) has its archive rewritten
 * under a reader. */
ot_cli_recording_state ot_cli_recording_inspect(const char *dir, ot_cli_recording *r)
{
    struct stat st;
    char status[32], detail[sizeof r->converted_reason + sizeof converted_partial];
    r->pid = 0;
    r->converted_reason[0] = '\0';
    snprintf(r->raw_dir, sizeof r->raw_dir, "%s/raw", dir);
    if (stat(r->raw_dir, &st) != 0)
        return r->state = OT_RECORDING_NONE;
    if (ot_conversion_running(r->raw_dir, &r->pid))
        return r->state = OT_RECORDING_BEING_CONVERTED;
    raw_status(r->raw_dir, status, sizeof status, detail, sizeof detail);
    if (!strcmp(status, "converted")) {
        size_t k = sizeof converted_partial - 1;
        if (!strncmp(detail, converted_partial, k) && detail[k])
            snprintf(r->converted_reason, sizeof r->converted_reason, "%s", detail + k);
        else if (strcmp(detail, converted_complete) != 0)
            snprintf(r->converted_reason, sizeof r->converted_reason, "%s", unknown_end);
        return r->state = OT_RECORDING_CONVERTED;
    }
    if (ot_recording_alive(r->raw_dir, &r->pid))
        return r->state = OT_RECORDING_LIVE;
    return r->state = !strcmp(status, "recorded") ? OT_RECORDING_FINISHED : OT_RECORDING_UNFINISHED;
}

const char *ot_cli_recording_partial_reason(const ot_cli_recording *r)
{
    if (r->state == OT_RECORDING_FINISHED || (r->state == OT_RECORDING_CONVERTED && !r->converted_reason[0]))
        return NULL;
    return r->state == OT_RECORDING_CONVERTED ? r->converted_reason : unknown_end;
}

int ot_cli_recording_unconverted(const ot_cli_recording *r)
{
    return r->state != OT_RECORDING_NONE && r->state != OT_RECORDING_CONVERTED;
}

void ot_cli_recording_explain(const char *verb, const char *dir, const ot_cli_recording *r)
{
    switch (r->state) {
    case OT_RECORDING_BEING_CONVERTED:
        fprintf(stderr, "offtrace %s: '%s' is being converted by process %d; its archive appears when that "
                        "process ends\n", verb, dir, (int)r->pid);
        break;
    case OT_RECORDING_LIVE:
        fprintf(stderr, "offtrace %s: '%s' is still being recorded by process %d; its archive appears when that "
                        "process ends%s\n", verb, dir, (int)r->pid,
                !strcmp(verb, "convert") ? " (--force converts what was written so far)" : "");
        break;
    case OT_RECORDING_FINISHED:
        fprintf(stderr, "offtrace %s: '%s' holds a finished recording that was not converted yet; run: offtrace "
                        "convert %s\n", verb, dir, dir);
        break;
    case OT_RECORDING_UNFINISHED:
        fprintf(stderr, "offtrace %s: '%s' holds an unconverted recording (the process that wrote it ended before "
                        "finishing it); run: offtrace convert %s\n", verb, dir, dir);
        break;
    default:
        break;
    }
}

int ot_cli_archive_ready(const char *verb, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "offtrace %s: '%s' is not a directory\n", verb, dir);
        return 2;
    }
    /* A rank's part of an MPI job is an intermediate: the job's archive is
     * the one to read (its locations are all there, with their partners). */
    ot_job_place job;
    ot_job_place_kind place = ot_job_locate(dir, &job);
    if (place == OT_JOB_PLACE_RANK || place == OT_JOB_PLACE_PART) {
        fprintf(stderr, "offtrace %s: '%s' is rank %u's part of the MPI job in '%s': read the job: offtrace %s %s\n",
                verb, dir, job.job.rank, job.job_dir, verb, job.job_dir);
        return 2;
    }
    ot_cli_recording r;
    ot_cli_recording_inspect(dir, &r);
    if (ot_cli_recording_unconverted(&r)) {
        ot_cli_recording_explain(verb, dir, &r);
        return 1;
    }
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    if (place == OT_JOB_PLACE_JOB && stat(anchor, &st) != 0) {
        fprintf(stderr, "offtrace %s: '%s' holds an MPI job of %u ranks whose parts are not merged into one archive "
                        "yet; run: offtrace convert %s\n", verb, dir, job.job.size, dir);
        return 1;
    }
    if (stat(anchor, &st) != 0) {
        fprintf(stderr, "offtrace %s: '%s' holds no trace (no %s.otf2)\n", verb, dir, OFFTRACE_ARCHIVE_NAME);
        return 2;
    }
    return 0;
}

/* `record` ends by printing DIR/traces.otf2, so that is what users paste:
 * it must mean DIR to every verb, as OTF2 tools take the anchor file. */
const char *ot_cli_archive_dir(const char *operand, char *buf, size_t size)
{
    static const char anchor[] = OFFTRACE_ARCHIVE_NAME ".otf2";
    const char *slash = strrchr(operand, '/');
    const char *base = slash ? slash + 1 : operand;
    struct stat st;
    if (strcmp(base, anchor) != 0 || (stat(operand, &st) == 0 && S_ISDIR(st.st_mode)))
        return operand;
    if (!slash)
        return ".";
    size_t n = (size_t)(slash - operand);
    while (n > 1 && operand[n - 1] == '/') /* DIR//traces.otf2 */
        n--;
    snprintf(buf, size, "%.*s", (int)(n ? n : 1), operand); /* /traces.otf2: "/" */
    return buf;
}

void ot_cli_raw_mark_converted(const char *raw_dir, const char *reason)
{
    char path[4300], tmp[4400];
    snprintf(path, sizeof path, "%s/status", raw_dir);
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        return;
    int bad = reason ? fprintf(f, "converted\n%s%s\n", converted_partial, reason) < 0
                     : fprintf(f, "converted\n%s\n", converted_complete) < 0;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0)
        unlink(tmp);
}

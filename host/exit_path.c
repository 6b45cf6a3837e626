/**
 * \file exit_path.c
 * \brief Ending the recording at OMPT finalize or exit; see exit_path.h.
 */
#define _GNU_SOURCE
#include "exit_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "convert_process.h"
#include "device_link.h"
#include "lineage.h"
#include "offtrace/offtrace.h"
#include "session.h"
#include "stream.h"

static int finished;        /* atomic: the exit path runs once */
static pid_t recording_pid; /* the process whose recording this is (not a forked child) */
static int output_claimed;  /* under `offtrace record`, which converts after the program */

void ot_exit_path_prepare(int claimed)
{
    recording_pid = getpid();
    output_claimed = claimed;
}

void ot_exit_path_arm(void)
{
    atexit(ot_exit_path_run);
}

void ot_exit_path_disown(void)
{
    __atomic_store_n(&finished, 1, __ATOMIC_RELEASE);
}

/* Without the CLI: the archive must exist when the program has exited, but
 * the converter's memory and failures must not be the program's, so it runs
 * in a process of its own (convert_process.h) and the program waits for it. */
static void convert_in_helper_process(void)
{
    const char *dir = ot_the_session.dir;
    switch (ot_convert_process_run(NULL, 0)) {
    case OT_CONVERTED:
        if (ot_the_session.verbose && ot_the_session.job_rank >= 0) /* the job's archive: convert_job.h */
            fprintf(stderr, "offtrace: rank %d's part written to %s/part/%s.otf2\n", ot_the_session.job_rank, dir,
                    OFFTRACE_ARCHIVE_NAME);
        else if (ot_the_session.verbose)
            fprintf(stderr, "offtrace: trace written to %s/%s.otf2\n", dir, OFFTRACE_ARCHIVE_NAME);
        break;
    case OT_CONVERT_NOT_STARTED:
        fprintf(stderr, "offtrace: no converter could be started (%s); the recording is kept: run `offtrace "
                        "convert %s`\n", ot_convert_process_cli(), dir);
        break;
    case OT_CONVERT_TIMED_OUT:
        fprintf(stderr, "offtrace: converting the recording took longer than %d s and was stopped; it is kept: "
                        "run `offtrace convert %s`\n", OT_CONVERT_PROCESS_SECONDS, dir);
        break;
    case OT_CONVERT_DIED:
        fprintf(stderr, "offtrace: the converter died; the recording is kept: run `offtrace convert %s`\n", dir);
        break;
    case OT_CONVERT_FAILED:     /* it said why */
    case OT_CONVERT_ALREADY_RUN: /* by the crash handler */
        break;
    }
}

/* Everything the converter needs is in raw/ after this; status "recorded"
 * tells it the recording is complete. */
void ot_exit_path_run(void)
{
    if (getpid() != recording_pid || __atomic_exchange_n(&finished, 1, __ATOMIC_ACQ_REL))
        return;
    ot_device_link_finish();
    ot_recording = 0;
    ot_stream_stop_preparer();
    ot_session_clock_pair();
    ot_session_snapshot_maps();
    ot_session_set_status("recorded");
    if (!output_claimed) {
        /* Under record, record says it after the program. */
        ot_lineage_report_untraced(ot_the_session.dir, getpid(), NULL, 0, stderr);
        convert_in_helper_process();
    }
}

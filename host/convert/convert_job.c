#include "convert_job.h"
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The ranks' parts into one archive (merge.h, docs/mpi.md "One archive: the merge"). */
static ot_job_finish merge_parts(const char *job_dir, char *msg, size_t msg_size)
{
    return ot_merge_job(job_dir, msg, msg_size) == 0 ? OT_JOB_MERGED : OT_JOB_MERGE_FAILED;
}

ot_job_finish ot_convert_job_merge(const char *job_dir, char *msg, size_t msg_size)
{
    ot_job_finish outcome = merge_parts(job_dir, msg, msg_size);
    if (outcome != OT_JOB_MERGED) {
        char merging[4200];
        snprintf(merging, sizeof merging, "%s/merging", job_dir);
        rmdir(merging);
    }
    return outcome;
}

ot_job_finish ot_convert_job_rank_done(const char *job_dir, const ot_job *job, unsigned rank, char *msg,
                                       size_t msg_size)
{
    msg[0] = '\0';
    int rc = ot_job_mark_done(job_dir, rank);
    if (rc != 0 && rc != -EEXIST) {
        snprintf(msg, msg_size, "cannot create '%s/done.%u': %s; run `offtrace convert %s` after the job", job_dir,
                 rank, strerror(-rc), job_dir);
        return OT_JOB_MERGE_FAILED;
    }
    if (ot_job_count_done(job_dir, job->size) < job->size)
        return OT_JOB_OTHERS_TO_FINISH;
    if (ot_job_claim_merge(job_dir) != 0)
        return OT_JOB_MERGED_ELSEWHERE;
    return ot_convert_job_merge(job_dir, msg, msg_size);
}

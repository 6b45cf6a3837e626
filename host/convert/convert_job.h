/**
 * \file convert_job.h
 * \brief The finish of an MPI job's recording (issue 16, docs/mpi.md "Job
 *        directory"): after a rank's part is written, the last rank out
 *        merges the parts into the job's one archive. No rank waits for
 *        another.
 *
 * Shared by `offtrace record` (each rank's), `offtrace convert run/rank.N`
 * (what the library's helper process runs without the CLI) and `offtrace
 * convert run` (the user, after a job that aborted).
 */
#ifndef OT_CONVERT_CONVERT_JOB_H
#define OT_CONVERT_CONVERT_JOB_H

#include <stddef.h>

#include "job.h"

/** What the finish of one rank (or of `convert run`) did. */
typedef enum ot_job_finish {
    OT_JOB_OTHERS_TO_FINISH, /**< this rank is done; others are not: one of them merges */
    OT_JOB_MERGED_ELSEWHERE, /**< all are done and another process claimed the merge */
    OT_JOB_MERGED,           /**< this process merged: `<job>/traces.otf2` */
    OT_JOB_MERGE_FAILED,     /**< this process tried to merge; one line in msg */
} ot_job_finish;

/**
 * \brief Rank \p rank's part is written (or it left nothing to convert):
 *        create `done.N` and, when this makes every rank of the job done,
 *        claim `merging` and merge (ot_convert_job_merge).
 */
ot_job_finish ot_convert_job_rank_done(const char *job_dir, const ot_job *job, unsigned rank, char *msg,
                                       size_t msg_size);

/**
 * \brief Merge every `<job>/rank.N/part` into `<job>/traces.otf2`, once all
 *        parts that can exist do. `offtrace convert run` calls it directly
 *        (after converting what was left); ranks through
 *        ot_convert_job_rank_done. On failure `merging` is removed so that a
 *        later `offtrace convert run` tries again.
 */
ot_job_finish ot_convert_job_merge(const char *job_dir, char *msg, size_t msg_size);

#endif

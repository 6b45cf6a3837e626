/**
 * \file job.h
 * \brief MPI jobs (issue 16, docs/mpi.md "Job directory"): which rank of
 *        which job this process is, from the launcher's environment, and
 *        the job directory's layout.
 *
 * A job directory `run/` holds `job` ("offtrace-job 1", "id <job id>",
 * "size <N>"), one `rank.<N>/` per rank (`raw/` as any recording, then
 * `part/traces.otf2`, the rank's converted part), `done.<N>` once rank N's
 * part is written, `merging` (made by the last one out) and finally the
 * job's archive `traces.otf2` + `traces/` and `ranks`.
 *
 * libc only: used by `offtrace record`, the converter and libofftrace.so
 * (the library's session, where the program may start OpenMP before
 * MPI_Init: the rank must come from the environment, not from MPI).
 * A process that is not one of several ranks (no variables, or a job of
 * size 1) is "not a job" and everything stays as without MPI.
 */
#ifndef OT_JOB_H
#define OT_JOB_H

#include <stddef.h>

/** Longest launcher job id kept (PMIX_NAMESPACE, PMI_KVSNAME, SLURM job.step). */
#define OT_JOB_ID_MAX 128
/** The most ranks a job may have: location ids keep bits 40-63 for the rank. */
#define OT_JOB_MAX_SIZE (1u << 24)
/** The first line of `run/job`. */
#define OT_JOB_FILE_MAGIC "offtrace-job 1"

/** One rank of one job. */
typedef struct ot_job {
    unsigned rank;           /**< MPI_COMM_WORLD rank, 0 .. size-1 */
    unsigned size;           /**< number of ranks; 1: not a job */
    char id[OT_JOB_ID_MAX];  /**< the launcher's job id; "" when it gives none */
} ot_job;

/**
 * \brief This process's rank, job size and job id from the environment:
 *        Open MPI (OMPI_COMM_WORLD_RANK/SIZE), MPICH/Hydra (PMI_RANK/PMI_SIZE),
 *        PMIx (PMIX_RANK with one of those sizes), Slurm (SLURM_PROCID/
 *        SLURM_NTASKS, only inside a job step: SLURM_STEP_ID set). The id is
 *        PMIX_NAMESPACE, else PMI_KVSNAME, else SLURM_JOB_ID.SLURM_STEP_ID.
 * \param why one line (without "offtrace: ") when a variable is malformed.
 * \return 1: one rank of a job of 2 or more ranks; 0: not a job (\p job is
 *         rank 0 of size 1); -1: a launcher variable is malformed.
 */
int ot_job_detect(ot_job *job, char *why, size_t why_size);

/** What a directory is in the job layout (ot_job_locate). */
typedef enum ot_job_place_kind {
    OT_JOB_PLACE_NONE, /**< not part of a job directory */
    OT_JOB_PLACE_JOB,  /**< a job directory (holds a valid `job` file) */
    OT_JOB_PLACE_RANK, /**< `<job>/rank.N` */
    OT_JOB_PLACE_PART, /**< `<job>/rank.N/part` */
} ot_job_place_kind;

typedef struct ot_job_place {
    ot_job_place_kind kind;
    ot_job job;          /**< from `<job>/job`; job.rank is the rank of a RANK or PART */
    char job_dir[4096];  /**< the job directory, spelled from the operand where possible */
} ot_job_place;

/** \brief Where \p dir lies in a job directory's layout (never fails:
 *         anything else, or a damaged `job` file, is NONE). */
ot_job_place_kind ot_job_locate(const char *dir, ot_job_place *place);

/** \brief Read `<job_dir>/job`. \return 0, -ENOENT when absent, -EPROTO when
 *         it is not a job file. job->rank is set to 0. */
int ot_job_read(const char *job_dir, ot_job *job);

/** \brief `<job_dir>/rank.<rank>`; `<job_dir>/rank.<rank>/part`. */
void ot_job_rank_dir(const char *job_dir, unsigned rank, char *buf, size_t size);
void ot_job_part_dir(const char *job_dir, unsigned rank, char *buf, size_t size);

/** \brief The name every rank of \p job picks for itself without talking
 *         to the others when no directory is given: `offtrace-<program's
 *         base name>.job<id>` (the id's characters outside [A-Za-z0-9._-]
 *         as '_'). */
void ot_job_default_dir(const char *program, const ot_job *job, char *buf, size_t size);

/**
 * \brief Make or join the job directory \p job_dir, then make this rank's
 *        `rank.N` in it. Whoever creates the directory writes `job` at once
 *        (linked into place whole); a rank that finds the directory joins
 *        only when its `job` names the same job id and size (waiting up to
 *        2 s for the creator to write it). A directory of another job, or
 *        one holding an archive, is refused: offtrace never overwrites a trace.
 * \param why one line (without "offtrace: ") on failure.
 * \return 0, or a negative errno (-EEXIST: refused as above).
 */
int ot_job_join(const char *job_dir, const ot_job *job, char *why, size_t why_size);

/** \brief Create `<job_dir>/done.<rank>` (O_EXCL) once rank's part is written
 *         (or it has nothing to convert). \return 0, -EEXIST, or -errno. */
int ot_job_mark_done(const char *job_dir, unsigned rank);

/** \brief How many of ranks 0 .. size-1 have their `done.N`. */
unsigned ot_job_count_done(const char *job_dir, unsigned size);

/** \brief `mkdir <job_dir>/merging`: atomic (also on NFS), so exactly one
 *         last-one-out merges. \return 0 (this process merges), -EEXIST, -errno. */
int ot_job_claim_merge(const char *job_dir);

#endif

/**
 * \file merge.h
 * \brief One archive for an MPI job (issue 16, docs/mpi.md "One archive: the
 *        merge"): the ranks' parts `job_dir/rank.N/part/traces.otf2` become
 *        `job_dir/traces.otf2`.
 *
 * The merge unifies the parts' global definitions (strings, attributes,
 * regions, the system tree, groups, communicators, RMA windows, metrics),
 * writes one local definition file per location holding OTF2 mapping tables
 * from the part's ids to the job's, and moves (rename) every part's event
 * files in unchanged: it costs O(definitions) plus one rename per location,
 * never O(events). Parts and job directory must be on one file system.
 */
#ifndef OT_CONVERT_MERGE_H
#define OT_CONVERT_MERGE_H

#include <stddef.h>

/**
 * \brief Merge the parts of the job in \p job_dir.
 *
 * Reads `job_dir/job` (`offtrace-job 1`, `id <id>`, `size <N>`) and the part
 * of every rank 0..N-1. A rank without a readable part is listed "missing",
 * one whose part says OFFTRACE::PARTIAL is listed "partial <reason>", in
 * `job_dir/ranks` (one "rank state reason" line per rank) and in the archive
 * property OFFTRACE::PARTIAL_RANKS. Writes `job_dir/traces.otf2`,
 * `traces.def`, `traces/` (the event files moved in from the parts) and
 * `ranks`. Refuses a job directory that holds `traces.otf2` already.
 *
 * \param why one line (no newline) when it fails.
 * \return 0, or -1.
 */
int ot_merge_job(const char *job_dir, char *why, size_t why_size);

/**
 * \brief Whether \p dir is a job directory waiting for its merge: it holds
 *        `job` and no `traces.otf2`. For `offtrace convert DIR`.
 * \return 1 or 0.
 */
int ot_merge_job_pending(const char *dir);

#endif

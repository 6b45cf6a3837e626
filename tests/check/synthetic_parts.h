/**
 * \file synthetic_parts.h
 * \brief Test-side writer of MPI job parts (issue 16) in the shape each
 *        rank's conversion gives them (docs/mpi.md "One archive: the
 *        merge"), for the merge's tests: `<job>/rank.R/part/traces.otf2`
 *        whose definitions overlap with the other ranks' and differ from
 *        them, under ids that differ from rank to rank.
 *
 * Rank R's part: location ids R << 40 | 0 ("Master thread", group "MPI Rank
 * R", host "node-a" for ranks 0 and 1, "node-b" from rank 2 on) and
 * R << 40 | (1 << 32 | 0xFFFF) ("device 0 RDMA", group "MPI Rank R device
 * 0"); strings written in an order rotated by rank, so no two parts give a
 * string the same ref; regions "main", "target @cg.c:10" (class TARGET),
 * "data op host->device @cg.c:11", "transfer host->device" and "rank R only"
 * (in no other part); attributes "host address" (UINT64) and "note"
 * (STRING) in every part, "odd rank attr" (UINT32) only in odd ranks' and
 * before the others there; an offload transfer COMM_LOCATIONS group, COMM_GROUP,
 * Comm and RmaWin, odd ranks with a "scratch window" first (so their window
 * and comm ids differ); the metric "device memory in use", rank 2 with a
 * user metric "rank 2 value" defined first. Events: see write_part_events
 * in synthetic_parts.c. Properties: OFFTRACE::CATALOGUE_VERSION, JOB_PART R,
 * PARTIAL ("no" or \p partial), RECORDS (100 + R: differs), SAME ("x").
 */
#ifndef OT_TEST_SYNTHETIC_PARTS_H
#define OT_TEST_SYNTHETIC_PARTS_H

/**
 * \brief Write rank \p rank's part under \p job_dir, \p partial the reason
 *        it is partial (NULL: complete).
 * \return 0, or -1 when OTF2 failed.
 */
int write_synthetic_part(const char *job_dir, int rank, const char *partial);

/**
 * \brief Write `<job_dir>/job` for a job of \p size ranks with id \p id
 *        (creating job_dir).
 * \return 0, or -1.
 */
int write_job_file(const char *job_dir, const char *id, int size);

#endif

/**
 * \file shifted_part.h
 * \brief Test-side, until each rank's conversion gives its locations their
 *        rank (issue 16 part 1): turn a plain recording's archive into rank
 *        R's part of a job by copying its global definitions with every
 *        location id shifted by R << 40 (locations, their properties, the
 *        members of COMM_LOCATIONS and LOCATIONS groups), setting
 *        OFFTRACE::JOB_PART, and moving its event files over under their new
 *        names. Event files hold no location id, so they are not rewritten.
 */
#ifndef OT_TEST_SHIFTED_PART_H
#define OT_TEST_SHIFTED_PART_H

/**
 * \brief Make `<job_dir>/rank.<rank>/part/traces.otf2` from the archive in
 *        \p recording (its event files are moved, the rest is left).
 * \return 0, or -1.
 */
int make_shifted_part(const char *recording, const char *job_dir, int rank);

#endif

/**
 * \file lineage.h
 * \brief Whether this process descends from a traced one, and the note its
 *        parent gives of the descendants it did not trace.
 *
 * A traced program's children (fork+exec, system(), posix_spawn) inherit
 * OMP_TOOL_LIBRARIES and would each start a recording of their own and
 * speak on their own stderr, which is the program's output. Without
 * touching the program's environment, a child recognises its traced
 * ancestor by the recording it has mapped (raw/counters in
 * /proc/<pid>/maps), stays silent and untraced, and leaves a line in the
 * ancestor's untraced-processes (liveness.h), which the ancestor says once
 * at its exit (without the CLI) or `offtrace record` says after the program.
 * Slow path only: session open and the exit path.
 */
#ifndef OT_HOST_LINEAGE_H
#define OT_HOST_LINEAGE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/** \brief How many ancestors are looked at, nearest first. */
#define OT_LINEAGE_MAX_DEPTH 32

/**
 * \brief Find the recording of the nearest ancestor that is being traced:
 *        an ancestor (parent, grandparent, ... up to OT_LINEAGE_MAX_DEPTH,
 *        never pid 1) maps a `<dir>/raw/counters` whose recording is live
 *        (ot_recording_alive). `offtrace record` maps none, so the program
 *        it runs is not taken for a descendant.
 * \param raw_dir set to that recording's raw/ directory.
 * \return 1 found, 0 not (including ancestors whose maps cannot be read).
 */
int ot_lineage_traced_ancestor(char *raw_dir, size_t size);

/**
 * \brief Say in one line on \p out which other processes left a note in
 *        `<dir>/untraced-processes` (ot_note_untraced_process), then remove
 *        the note (said once). Used by `offtrace record` and, without the
 *        CLI, by the traced process at exit, so both say it in one wording.
 * \param program the traced process: its own note (an image after an exec
 *        of itself) is not counted among the others; its executable goes to
 *        \p program_exe ("" when it left none; may be NULL).
 * \return the number of other processes named.
 */
unsigned ot_lineage_report_untraced(const char *dir, pid_t program, char *program_exe, size_t exe_size, FILE *out);

#endif

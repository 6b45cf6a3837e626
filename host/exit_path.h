/**
 * \file exit_path.h
 * \brief The end of a recording in the traced process: whichever comes first
 *        of OMPT finalize and exit ends it, once, in the recording process
 *        only, and (without `offtrace record`) has it converted in a helper
 *        process.
 */
#ifndef OT_HOST_EXIT_PATH_H
#define OT_HOST_EXIT_PATH_H

/**
 * \brief Make the calling process the recording process (at ompt_start_tool).
 * \param output_claimed 1 under `offtrace record`, which converts after the
 *        program and says what it did; 0: the exit path converts and says it.
 */
void ot_exit_path_prepare(int output_claimed);

/** \brief Run ot_exit_path_run at exit too (at tool initialisation). */
void ot_exit_path_arm(void);

/**
 * \brief End the recording: detach the devices, stop the chunk preparer,
 *        take the last clock pair and address map, mark raw/status
 *        "recorded", then convert unless `offtrace record` does. Runs once
 *        and only in the recording process; later calls return at once.
 */
void ot_exit_path_run(void);

/** \brief In a forked child: the exit path is the parent's, never run here. */
void ot_exit_path_disown(void);

#endif /* OT_HOST_EXIT_PATH_H */

/**
 * \file crash.h
 * \brief Leave an archive (or one line saying how to make it) when a program
 *        traced without `offtrace record` dies of a fatal signal.
 *
 * The handler cannot run the converter in the dying process (its heap may be
 * the reason it dies), so it starts `offtrace convert` in a helper process
 * (convert_process.h: no fork, no allocation, a bounded wait), writes one
 * line, and re-raises the signal so that the program ends as it would have.
 * It runs on an alternate signal stack, so a stack overflow is handled too:
 * the thread that installs it and every OpenMP thread get one
 * (ot_crash_thread_begin). In a forked child (another pid than the recording
 * process) it only re-raises: a child never converts its parent's live
 * recording. Under `offtrace record` no handler is installed: the CLI
 * converts after the program has gone, whatever killed it.
 */
#ifndef OT_HOST_CRASH_H
#define OT_HOST_CRASH_H

/**
 * \brief Install handlers for the fatal signals whose disposition is the
 *        default, for the recording in \p output_dir; needs
 *        ot_convert_process_prepare() first.
 */
void ot_crash_install(const char *output_dir);

/** \brief Give the calling thread an alternate signal stack, unless it has one (OMPT thread_begin). */
void ot_crash_thread_begin(void);

/** \brief Free the stack ot_crash_thread_begin gave this thread (OMPT thread_end). */
void ot_crash_thread_end(void);

#endif

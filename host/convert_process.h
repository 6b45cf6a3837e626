/**
 * \file convert_process.h
 * \brief Without `offtrace record`: convert the recording in a helper
 *        process (`offtrace convert`), never in the traced program.
 *
 * The converter reads every raw file and builds the whole archive; inside the
 * program it would hold the trace in the program's memory at exit and could
 * crash the program it traces (issue 10). So the program starts the CLI
 * found next to the library (`<libdir>/../bin/offtrace`) and waits for it.
 *
 * Everything that needs allocation or the C library (finding the CLI, the
 * argument and environment arrays, the messages) is prepared at start-up;
 * ot_convert_process_run() uses only async-signal-safe system calls, so the
 * crash handler can call it with a broken heap, on its alternate stack, in a
 * program that ignores SIGCHLD:
 * - the child is made with clone(CLONE_VM | CLONE_VFORK) on a static stack:
 *   no fork handlers (libomp's, malloc's arena locks), no copy of the heap;
 *   and with no exit signal, so the program's SIGCHLD handler never sees it
 *   and its waitpid(-1) never reaps it;
 * - the child's stdin and stdout are /dev/null (the program's output is never
 *   touched), its other descriptors closed, its environment the program's at
 *   start-up without OMP_TOOL_LIBRARIES and LD_PRELOAD (no tracing of the
 *   converter);
 * - the wait polls (WNOHANG, then nanosleep) and loops only while the child
 *   runs: EINTR is retried, ECHILD (someone else reaped it) ends the wait and
 *   success is read from the archive's anchor file. After
 *   OT_CONVERT_PROCESS_SECONDS the converter is killed (raw/ stays; the
 *   caller says how to convert it).
 */
#ifndef OT_HOST_CONVERT_PROCESS_H
#define OT_HOST_CONVERT_PROCESS_H

/** \brief The longest a program waits for its converter (at exit or in the crash handler). */
#define OT_CONVERT_PROCESS_SECONDS 300

/** \brief What ot_convert_process_run() did. */
typedef enum ot_convert_outcome {
    OT_CONVERTED = 0,         /**< the archive is written */
    OT_CONVERT_FAILED,        /**< the converter failed and said why (unless silent) */
    OT_CONVERT_DIED,          /**< the converter died of a signal (or vanished): nothing said */
    OT_CONVERT_TIMED_OUT,     /**< killed after OT_CONVERT_PROCESS_SECONDS */
    OT_CONVERT_NOT_STARTED,   /**< no CLI, not prepared, or the process could not be made */
    OT_CONVERT_ALREADY_RUN,   /**< a conversion was started before in this process */
} ot_convert_outcome;

/**
 * \brief At start-up, in the recording process: find the CLI and build the
 *        converter's arguments and environment for \p dir.
 * \return 0 when the CLI was found, -1 otherwise (the run then returns
 *         OT_CONVERT_NOT_STARTED; ot_convert_process_cli() names where it was looked for).
 */
int ot_convert_process_prepare(const char *dir, int keep_raw);

/** \brief Where the CLI is (or was looked for): `<libdir>/../bin/offtrace`. */
const char *ot_convert_process_cli(void);

/**
 * \brief Run `offtrace convert --force --quiet [--reason REASON] [--keep-raw] DIR`
 *        and wait for it, at most once per process. Async-signal-safe.
 * \param reason why the recording is partial, NULL when it is complete.
 * \param silent send the converter's stderr to /dev/null too (the crash
 *        handler says one line itself); otherwise it shares the program's.
 */
ot_convert_outcome ot_convert_process_run(const char *reason, int silent);

#endif

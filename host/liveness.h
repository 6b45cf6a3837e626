/**
 * \file liveness.h
 * \brief Who is writing a recording: raw/owner names the recording process
 *        ("<pid> <start time>", the start time from /proc/<pid>/stat field
 *        22), so that a reader can tell a recording still being written
 *        from one whose writer died, and pid reuse cannot fool it.
 *
 * Also the note a second process leaves when it finds the recording
 * directory already taken (a child of the recorded program, or the program
 * itself after exec), read back by `offtrace record`.
 */
#ifndef OT_HOST_LIVENESS_H
#define OT_HOST_LIVENESS_H

#include <stddef.h>
#include <sys/types.h>

/**
 * \brief Read /proc/<pid>/stat into \p buf and return where its fields after
 *        the command name start (the name may hold spaces and ')'), i.e. at
 *        " <state> <ppid> ...". \return NULL when the process is unknown.
 */
const char *ot_proc_stat_fields(pid_t pid, char *buf, size_t size);

/** \brief Write `<raw_dir>/owner` for the calling process (atomic rename).
 *  \return 0 or a negative errno. */
int ot_owner_write(const char *raw_dir);

/**
 * \brief Whether the recording is still being written: the process named by
 *        `<raw_dir>/owner` still runs (same pid and same start time) and
 *        raw/status does not say it finished ("recorded", "converted").
 * \param pid set to the owner's pid when known (may be NULL).
 * \return 1 alive, 0 not (or no owner file: a recording from before owners
 *         were written, or a writer that died before writing it).
 */
int ot_recording_alive(const char *raw_dir, pid_t *pid);

/**
 * \brief Claim the conversion of a recording for the calling process
 *        (`offtrace record`, `convert`): an exclusive lock on
 *        `<raw_dir>/converter`, which also names the process, held until
 *        the process ends. Two converters started at once cannot both
 *        claim it, and a converter that dies releases it.
 * \param holder set to the pid of the process holding it, when refused.
 * \return 0 claimed, -EBUSY held by another process, another negative
 *         errno when the file cannot be used (then there is no claim).
 */
int ot_converter_claim(const char *raw_dir, pid_t *holder);

/** \brief Whether another process holds the conversion claim.
 *  \param pid set to its pid when known (may be NULL). */
int ot_conversion_running(const char *raw_dir, pid_t *pid);

/**
 * \brief Append "<pid> <executable>" to `<raw_dir>/../untraced-processes`:
 *        the calling process found the recording taken by another process
 *        (or by its own image before an exec) and is not traced. Next to
 *        raw/, not in it, because a library that converts at exit removes
 *        raw/ before `offtrace record` reads the note (record then removes
 *        it). One write of one short line on O_APPEND: no lock needed
 *        between processes.
 */
void ot_note_untraced_process(const char *raw_dir);

/** \brief Name of the file ot_note_untraced_process appends to. */
#define OT_UNTRACED_PROCESSES_FILE "untraced-processes"

#endif

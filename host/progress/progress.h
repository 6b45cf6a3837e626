/**
 * \file progress.h
 * \brief How far a long pass is, on one line of a terminal's stderr.
 *
 * The one progress line of the CLI: the conversion (`record`, `convert`:
 * "writing the archive") and every reader pass (`report`, `view`, `export`,
 * `info`, the summary: "reading the archive") show it the same way. A pass
 * that takes over a second says how far it is, on one line of stderr
 * rewritten four times a second and erased when the pass ends, and only when
 * stderr is a terminal: never in a pipe, a file or a test's captured output.
 * A thread of its own draws it, so the pass itself only counts (one relaxed
 * atomic add or store) and reads no clock.
 *
 * Errors: ot_progress_start returns NULL where no line is to be shown
 * (stderr is not a terminal) or none could be (no thread, no memory); every
 * other function takes NULL and does nothing, so a pass calls them
 * unconditionally.
 *
 * Tests: OFFTRACE_TEST_PROGRESS_AFTER_MS (milliseconds, 0 .. 3600000) in the
 * environment replaces the one second for passes that do not give their
 * own threshold, so that a test sees the line on a small archive.
 */
#ifndef OT_PROGRESS_PROGRESS_H
#define OT_PROGRESS_PROGRESS_H

#include <stdint.h>
#include <time.h>

typedef struct ot_progress ot_progress;

/**
 * \brief Start showing "offtrace: DOING: N % of OF_WHAT, S s" once \p after_ns
 *        have passed since \p begin (CLOCK_MONOTONIC).
 * \param doing   what the pass does, e.g. "reading the archive"
 * \param of_what what \p total counts, e.g. "the events"
 * \param total   the count at 100 %
 * \param after_ns the threshold; 0: OFFTRACE_TEST_PROGRESS_AFTER_MS, else a second
 * \return the line's handle, or NULL (see the file's comment).
 */
ot_progress *ot_progress_start(const char *doing, const char *of_what, uint64_t total,
                               const struct timespec *begin, int64_t after_ns);

/** \brief \p n more of the total are done (any thread). */
void ot_progress_add(ot_progress *p, uint64_t n);

/** \brief \p done of the total are done now. */
void ot_progress_set(ot_progress *p, uint64_t done);

/** \brief End the line: drawn once at its last state if the threshold passed
 *         before any drawing, then erased ("\r\033[K"); frees \p p. */
void ot_progress_stop(ot_progress *p);

#endif

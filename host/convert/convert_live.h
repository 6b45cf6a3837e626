/**
 * \file convert_live.h
 * \brief `offtrace record` converts while the program runs (issue 18,
 *        sixth round): a thread of record's writes the program's first
 *        host stream into the archive as the program leaves its chunks, so
 *        that at the end only the tail is left.
 *
 * The attempt is speculative: at the end it is checked against the
 * finished recording (convert_live.c says what it assumed), and kept only
 * when the archive it gives is the one ot_convert_directory would write
 * (the same traces.def and events; the trace id and CONVERSION_SECONDS
 * aside). Otherwise it is dropped without a trace and the caller converts
 * the usual way. The thread runs at SCHED_IDLE while the program runs: it
 * takes a core the program leaves idle, never one it wants. Not for an MPI
 * rank (the caller does not start it). OFFTRACE_LIVE_CONVERSION=off turns
 * it off.
 */
#ifndef OT_CONVERT_LIVE_H
#define OT_CONVERT_LIVE_H

#include <stddef.h>
#include <stdint.h>

struct ot_convert_options;

typedef struct ot_convert_live ot_convert_live;

/** What the attempt did, for the summary and the tests. */
typedef struct ot_convert_live_result {
    int began;                   /**< it started converting (the program left a first chunk) */
    int converted;               /**< its archive is the recording's archive */
    uint64_t records_before_end; /**< records of the first stream's chunks converted before the program ended */
    double seconds_before_end;   /**< the thread's CPU time until it saw the program's end */
    double seconds_after_end;    /**< from the program's end to the archive's close (its CONVERSION_SECONDS) */
} ot_convert_live_result;

/**
 * \brief Start converting `<dir>/raw` while the program records into it.
 *        Call with the signals the caller handles blocked (the thread
 *        inherits the mask and must not take them).
 * \return the attempt, or NULL: turned off (OFFTRACE_LIVE_CONVERSION=off),
 *         or no thread could be started.
 */
ot_convert_live *ot_convert_live_start(const char *dir);

/** \brief The program has ended: the attempt reads its recording to the end. */
void ot_convert_live_program_ended(ot_convert_live *live);

/**
 * \brief Finish the attempt after the program's end (and the converter's
 *        claim of raw/): check it, then write the rest with \p opts as
 *        ot_convert_directory would; frees \p live (NULL: nothing to do).
 * \param result what it did (all zero for NULL).
 * \return 0: the archive is written and raw/ dealt with as \p opts says;
 *         1: nothing was kept (dropped, or it failed): convert the usual way.
 */
int ot_convert_live_finish(ot_convert_live *live, const struct ot_convert_options *opts,
                           ot_convert_live_result *result, char *msg, size_t msg_size);

/** \brief End the attempt without keeping anything (the caller does not
 *         convert here after all); frees \p live (NULL: nothing). */
void ot_convert_live_drop(ot_convert_live *live);

#endif

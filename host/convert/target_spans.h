/**
 * \file target_spans.h
 * \brief Host time span of every target region, by its id: the frame that
 *        device events are placed in (they must lie inside their region).
 *
 * A long trace has millions of target regions, so the table lives in a
 * scratch file (spill_file.h) and memory holds a bounded part of it. Ids are
 * made per host thread ((thread index + 1) << 40 | a counter) and the host
 * pass puts a thread's regions in the order they end, so each thread's ids
 * come in increasing order: they go to disk in sorted blocks of
 * OT_SPANS_BLOCK, found again by a binary search over the blocks' index and
 * read through a small cache. An id put out of that order (a put again, or
 * damage) is kept in memory, and wins over what the blocks say. A look-up
 * first tries where the last one found its span (the same span, the next,
 * the same block): the device pass asks for one region in runs, then the
 * next.
 *
 * Memory: OT_SPANS_OPEN_BLOCKS blocks being filled and OT_SPANS_CACHED_BLOCKS
 * read (24 KiB each), one small entry per host thread, and 40 bytes of index
 * per block written (0.04 bytes per target region).
 */
#ifndef OT_CONVERT_TARGET_SPANS_H
#define OT_CONVERT_TARGET_SPANS_H

#include <stdint.h>

#define OT_SPANS_BLOCK 1024u        /**< spans per block on disk */
#define OT_SPANS_OPEN_BLOCKS 16u    /**< threads whose blocks are filled at once */
#define OT_SPANS_CACHED_BLOCKS 16u  /**< blocks read back kept in memory */

typedef struct ot_target_spans ot_target_spans;

/** \brief An empty table whose scratch file goes in \p scratch_dir, or NULL when out of memory. */
ot_target_spans *ot_target_spans_new(const char *scratch_dir);

/** \brief Remember region \p id from \p begin to \p end (host ns). \return 0 or a negative errno. */
int ot_target_spans_put(ot_target_spans *t, uint64_t id, uint64_t begin, uint64_t end);

/** \brief Look region \p id up. \return 0 and the span, -ENOENT, or another negative errno (disk). */
int ot_target_spans_get(ot_target_spans *t, uint64_t id, uint64_t *begin, uint64_t *end);

/** \brief Free (NULL is fine). */
void ot_target_spans_free(ot_target_spans *t);

#endif

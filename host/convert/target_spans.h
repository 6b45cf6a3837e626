/**
 * \file target_spans.h
 * \brief Host time span of every target region, by its id: the frame that
 *        device events are placed in (they must lie inside their region).
 */
#ifndef OT_CONVERT_TARGET_SPANS_H
#define OT_CONVERT_TARGET_SPANS_H

#include <stdint.h>

typedef struct ot_target_spans ot_target_spans;

/** \brief An empty table, or NULL when out of memory. */
ot_target_spans *ot_target_spans_new(void);

/** \brief Remember region \p id from \p begin to \p end (host ns). \return 0 or -ENOMEM. */
int ot_target_spans_put(ot_target_spans *t, uint64_t id, uint64_t begin, uint64_t end);

/** \brief Look region \p id up. \return 0 and the span, or -ENOENT. */
int ot_target_spans_get(const ot_target_spans *t, uint64_t id, uint64_t *begin, uint64_t *end);

/** \brief Free (NULL is fine). */
void ot_target_spans_free(ot_target_spans *t);

#endif

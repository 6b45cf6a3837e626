/**
 * \file region_memo.h
 * \brief What a region-naming recipe gave for the same inputs before.
 *
 * A host event's region is named from its class and call site: a
 * symbolizer lookup, a formatted "class @file:line" name and an interned
 * key, several hundred ns, while a program has a few hundred call sites and
 * millions of events. The answer is a function of the inputs alone (the
 * symbolizer's maps are all loaded before the first pass), so the first
 * event of a site pays for it and the others find it here. Regions are
 * still defined in the order their first event asked for them: the archive
 * does not change.
 */
#ifndef OT_CONVERT_REGION_MEMO_H
#define OT_CONVERT_REGION_MEMO_H

#include <stdint.h>

typedef struct ot_region_memo ot_region_memo;

/** Which recipe a key belongs to (the key's first word holds it). */
enum ot_region_recipe {
    OT_MEMO_SITED = 1,      /**< class, call site */
    OT_MEMO_KERNEL,         /**< the target's call site */
    OT_MEMO_DATA_OP,        /**< data op kind */
    OT_MEMO_API_CALL,       /**< data op kind, call site */
    OT_MEMO_PLAIN,          /**< class (its catalogue name, no site) */
    OT_MEMO_HOST_OPENMP,    /**< class and kind, call site */
    OT_MEMO_TARGET_DATA,    /**< enter-data sites whose data region has its end line (host_pass.c) */
    OT_MEMO_MAP_OP,         /**< map_names.c: its own entry index */
    OT_MEMO_HOST_MUTEX,     /**< host_mutex.c: class and variant (mutex kind, nested; nest kind), call site, cancel flags */
};

/** \brief An empty memo; NULL when out of memory. */
ot_region_memo *ot_region_memo_new(void);

/** \brief Free it (NULL is fine). */
void ot_region_memo_free(ot_region_memo *m);

/** \brief A key of the recipe \p recipe with a small operand (class, kind) and two words. */
static inline uint64_t ot_region_memo_head(enum ot_region_recipe recipe, uint32_t small)
{
    return (uint64_t)recipe << 56 | small;
}

/** \brief The value kept for (head, a, b): 1 and *value, or 0 when none is. */
int ot_region_memo_find(const ot_region_memo *m, uint64_t head, uint64_t a, uint64_t b, uint32_t *value);

/** \brief Keep \p value for (head, a, b); a memo that cannot grow keeps
 *         nothing (the next ask pays the recipe again). */
void ot_region_memo_keep(ot_region_memo *m, uint64_t head, uint64_t a, uint64_t b, uint32_t value);

#endif

/**
 * \file map_repeats.h
 * \brief What a named data op's Enter leaves out where it repeats (issue 18,
 *        tenth round, docs/variables.md "The attributes"): per location, the
 *        variable, map type and map site of the previous Enter of each data-op
 *        region. The converter writes them only where they differ from what
 *        the table holds; the reader gives an Enter that carries none of them
 *        what the table holds. Shared so that both keep the same record.
 */
#ifndef OT_OTF2UTIL_MAP_REPEATS_H
#define OT_OTF2UTIL_MAP_REPEATS_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

/** The previous Enter of one region on one location. */
typedef struct ot_map_repeat {
    OTF2_RegionRef region;   /**< OTF2_UNDEFINED_REGION: a free slot */
    int known;               /**< 0: no Enter of the region carried them yet on the location */
    OTF2_StringRef variable; /**< OTF2_UNDEFINED_STRING where that Enter did not carry it */
    OTF2_StringRef map_type;
    OTF2_StringRef site;
} ot_map_repeat;

/** One location's table: open addressing on the region ref, grown at half full. Zero-initialised: empty. */
typedef struct ot_map_repeats {
    ot_map_repeat *slots;
    size_t capacity, count;
} ot_map_repeats;

/** Where \p region's slot is looked for first: refs are dense small integers, a multiplicative hash spreads
 *  neighbours. */
static inline size_t ot_map_repeats_home(OTF2_RegionRef region, size_t capacity)
{
    return (size_t)((region * 2654435761u) & (uint32_t)(capacity - 1));
}

/** \brief The slot of \p region, NULL when the table has none. Inline: it runs on every named data op's
 *         Enter (about 50 instructions a call when it was not). */
static inline ot_map_repeat *ot_map_repeats_find(const ot_map_repeats *t, OTF2_RegionRef region)
{
    if (!t->capacity)
        return NULL;
    size_t mask = t->capacity - 1, i = ot_map_repeats_home(region, t->capacity);
    while (t->slots[i].region != region) {
        if (t->slots[i].region == OTF2_UNDEFINED_REGION)
            return NULL;
        i = (i + 1) & mask;
    }
    return &t->slots[i];
}

/** \brief A new slot for \p region (known 0), which ot_map_repeats_find did not find; NULL when the table
 *         cannot grow (-ENOMEM) or \p region is undefined: the caller then carries the values, which a reader
 *         always takes. */
ot_map_repeat *ot_map_repeats_add(ot_map_repeats *t, OTF2_RegionRef region);

/** \brief The slot of \p region, added when new (ot_map_repeats_add's NULL). */
static inline ot_map_repeat *ot_map_repeats_slot(ot_map_repeats *t, OTF2_RegionRef region)
{
    ot_map_repeat *s = region != OTF2_UNDEFINED_REGION ? ot_map_repeats_find(t, region) : NULL;
    return s ? s : ot_map_repeats_add(t, region);
}

/** \brief 1 when \p slot holds exactly these three (an Enter of them may leave all three out). */
static inline int ot_map_repeats_same(const ot_map_repeat *slot, OTF2_StringRef variable, OTF2_StringRef map_type,
                                      OTF2_StringRef site)
{
    return slot && slot->known && slot->variable == variable && slot->map_type == map_type && slot->site == site;
}

/** \brief Keep what an Enter carried as its region's latest on the location. */
static inline void ot_map_repeats_keep(ot_map_repeat *slot, OTF2_StringRef variable, OTF2_StringRef map_type,
                                       OTF2_StringRef site)
{
    if (slot)
        *slot = (ot_map_repeat){slot->region, 1, variable, map_type, site};
}

void ot_map_repeats_free(ot_map_repeats *t);

#endif

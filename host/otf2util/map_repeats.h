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

/** \brief The slot of \p region (known 0 the first time), or NULL when the table cannot grow (-ENOMEM): the
 *         caller then carries the values, which a reader always takes. */
ot_map_repeat *ot_map_repeats_slot(ot_map_repeats *t, OTF2_RegionRef region);

/** \brief The slot of \p region, NULL when the table has none. */
const ot_map_repeat *ot_map_repeats_find(const ot_map_repeats *t, OTF2_RegionRef region);

/** \brief 1 when \p slot holds exactly these three (an Enter of them may leave all three out). */
int ot_map_repeats_same(const ot_map_repeat *slot, OTF2_StringRef variable, OTF2_StringRef map_type,
                        OTF2_StringRef site);

/** \brief Keep what an Enter carried as its region's latest on the location. */
void ot_map_repeats_keep(ot_map_repeat *slot, OTF2_StringRef variable, OTF2_StringRef map_type, OTF2_StringRef site);

void ot_map_repeats_free(ot_map_repeats *t);

#endif

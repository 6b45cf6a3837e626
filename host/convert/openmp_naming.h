/**
 * \file openmp_naming.h
 * \brief The names and OTF2 roles of OpenMP constructs by their OMPT kind.
 */
#ifndef OT_OPENMP_NAMING_H
#define OT_OPENMP_NAMING_H

#include <stdint.h>

#include <otf2/otf2.h>

/** A region's name stem and its OTF2 role. */
typedef struct ot_naming {
    const char *name;
    OTF2_RegionRole role;
} ot_naming;

/** \brief A worksharing construct of ompt_work_t \p subkind ("loop (dynamic)", LOOP). */
ot_naming ot_work_naming(uint8_t subkind);

/** \brief A sync region of ompt_sync_region_t \p subkind ("implicit barrier (parallel end)", IMPLICIT_BARRIER). */
ot_naming ot_sync_naming(uint8_t subkind);

/** \brief What one dispatch of ompt_dispatch_t \p subkind hands a thread ("chunk", "section"). */
ot_naming ot_chunk_naming(uint8_t subkind);

#endif

/**
 * \file otf2_definitions.h
 * \brief Test-side: an archive's global definitions (strings, regions,
 *        locations, attributes, metric members and classes) as OTF2's
 *        global definition reader hands them over, with a small lookup API,
 *        for the tests that read an archive back and name what they see
 *        (one table instead of one per test).
 *
 * The definitions are read through otf2_read_in_time_order(): its user
 * pointer is passed to the definition and the event callbacks alike, so the
 * caller's state starts with an otf2_definitions (first member) and its event
 * callbacks reach the table through the same pointer.
 */
#ifndef OT_TEST_OTF2_DEFINITIONS_H
#define OT_TEST_OTF2_DEFINITIONS_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "string_table.h"

/** A Region definition; where undefined: no name or file, paradigm UNKNOWN. */
typedef struct otf2_region_def {
    OTF2_StringRef name, file;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    uint32_t line; /**< its first line */
} otf2_region_def;

/** A Location definition, in the order they were defined. */
typedef struct otf2_location_def {
    OTF2_LocationRef id;
    OTF2_StringRef name;
    OTF2_LocationType type;
} otf2_location_def;

/** An Attribute definition. */
typedef struct otf2_attribute_def {
    OTF2_StringRef name;
    OTF2_Type type;
} otf2_attribute_def;

/** A MetricMember definition. */
typedef struct otf2_metric_member_def {
    OTF2_StringRef name;
    OTF2_Type type; /**< its values' type */
} otf2_metric_member_def;

typedef struct otf2_definitions {
    check_string_table strings;
    otf2_region_def *regions;           /**< by OTF2_RegionRef */
    size_t region_count;
    otf2_attribute_def *attributes;     /**< by OTF2_AttributeRef */
    size_t attribute_count;
    otf2_metric_member_def *members;    /**< by OTF2_MetricMemberRef */
    size_t member_count;
    OTF2_MetricMemberRef *class_member; /**< by OTF2_MetricRef: a one-member class's member, else undefined */
    size_t class_count;
    otf2_location_def *locations;
    size_t location_count;
    size_t location_limit; /**< at most this many locations kept (0: all); otf2_read_with_definitions sets it */
    unsigned out_of_memory; /**< definitions lost to a failed allocation */
} otf2_definitions;

/**
 * \brief Read DIR/traces.otf2 in time order (otf2_time_order.h): the global
 *        definitions into \p defs (zeroed by the caller), then every
 *        location's events through the callbacks \p events sets, each called
 *        with \p defs as its user pointer (the caller's state, starting with
 *        the table).
 * \param location_limit the first this many locations are read, the others
 *        left out (a caller's per-location arrays); 0: all.
 * \return 0, or -1 when the archive cannot be read or a definition was lost.
 */
int otf2_read_with_definitions(const char *dir, otf2_definitions *defs, size_t location_limit,
                               void (*events)(OTF2_GlobalEvtReaderCallbacks *callbacks));

/** \brief String \p ref, or "?" where undefined. */
const char *otf2_defs_string(const otf2_definitions *d, OTF2_StringRef ref);
/** \brief Region \p ref; one without name or file, paradigm UNKNOWN, where undefined. */
const otf2_region_def *otf2_defs_region(const otf2_definitions *d, OTF2_RegionRef ref);
/** \brief Region \p ref's name, or "?" where undefined. */
const char *otf2_defs_region_name(const otf2_definitions *d, OTF2_RegionRef ref);
/** \brief Whether region \p ref is defined with paradigm USER. */
int otf2_defs_is_user_region(const otf2_definitions *d, OTF2_RegionRef ref);
/** \brief Where location \p id stands among the locations, 0 where it is not one of them. */
size_t otf2_defs_location_index(const otf2_definitions *d, OTF2_LocationRef id);
/** \brief Attribute \p ref, or NULL where undefined. */
const otf2_attribute_def *otf2_defs_attribute(const otf2_definitions *d, OTF2_AttributeRef ref);
/** \brief The attribute defined with this name and type; UINT32_MAX when none is. */
OTF2_AttributeRef otf2_defs_attribute_named(const otf2_definitions *d, const char *name, OTF2_Type type);
/** \brief The member of the one-member metric class \p metric, or NULL where there is none. */
const otf2_metric_member_def *otf2_defs_metric_member(const otf2_definitions *d, OTF2_MetricRef metric);
/** \brief Free the table; it is empty afterwards. */
void otf2_definitions_free(otf2_definitions *d);

#endif

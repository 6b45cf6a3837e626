/**
 * \file merge_internal.h
 * \brief One rank's part as the merge reads it (merge_read.c): its global
 *        definitions in the order OTF2 handed them over, with the part's own
 *        ids, before anything is unified (merge.c). Reading a part whole
 *        first means a part that cannot be read adds nothing to the job's
 *        definitions: its rank is listed missing instead.
 */
#ifndef OT_CONVERT_MERGE_INTERNAL_H
#define OT_CONVERT_MERGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

/** A growable array of \p elem-sized items. */
typedef struct ot_mg_vec {
    void *data;
    size_t count, capacity;
} ot_mg_vec;

/** Append \p item (elem bytes); 0, or -1 when out of memory. */
int ot_mg_push(ot_mg_vec *v, size_t elem, const void *item);
#define OT_MG_AT(vec, type, i) (((type *)(vec).data)[i])

/** A typed property (of a paradigm, system tree node, location group or location). */
typedef struct ot_mg_property {
    uint64_t owner;
    uint32_t name; /**< a string ref, or the paradigm property for paradigms */
    OTF2_Type type;
    OTF2_AttributeValue value;
} ot_mg_property;

typedef struct ot_mg_paradigm { OTF2_Paradigm paradigm; OTF2_StringRef name; OTF2_ParadigmClass cls; } ot_mg_paradigm;
typedef struct ot_mg_attribute { uint32_t self; OTF2_StringRef name, description; OTF2_Type type; } ot_mg_attribute;
typedef struct ot_mg_node { uint32_t self; OTF2_StringRef name, cls; uint32_t parent; } ot_mg_node;
typedef struct ot_mg_domain { uint32_t node; OTF2_SystemTreeDomain domain; } ot_mg_domain;
typedef struct ot_mg_location_group {
    uint32_t self;
    OTF2_StringRef name;
    OTF2_LocationGroupType type;
    uint32_t node, creator;
} ot_mg_location_group;
typedef struct ot_mg_location {
    uint64_t self;
    OTF2_StringRef name;
    OTF2_LocationType type;
    uint64_t events;
    uint32_t group;
} ot_mg_location;
typedef struct ot_mg_region {
    uint32_t self;
    OTF2_StringRef name, canonical, description, file;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    OTF2_RegionFlag flags;
    uint32_t begin_line, end_line;
} ot_mg_region;
typedef struct ot_mg_group {
    uint32_t self;
    OTF2_StringRef name;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    OTF2_GroupFlag flags;
    uint32_t count;
    uint64_t *members; /**< malloc'd */
} ot_mg_group;
typedef struct ot_mg_comm { uint32_t self; OTF2_StringRef name; uint32_t group, parent; OTF2_CommFlag flags; } ot_mg_comm;
typedef struct ot_mg_window { uint32_t self; OTF2_StringRef name; uint32_t comm; OTF2_RmaWinFlag flags; } ot_mg_window;
typedef struct ot_mg_metric_member {
    uint32_t self;
    OTF2_StringRef name, description, unit;
    OTF2_MetricType metric_type;
    OTF2_MetricMode mode;
    OTF2_Type value_type;
    OTF2_Base base;
    int64_t exponent;
} ot_mg_metric_member;
typedef struct ot_mg_metric_class {
    uint32_t self;
    uint8_t count;
    uint32_t members[256];
    OTF2_MetricOccurrence occurrence;
    OTF2_RecorderKind recorder;
} ot_mg_metric_class;

/** One rank's part, read. Vectors hold the types their names say. */
typedef struct ot_mg_part {
    int rank;
    char **strings;          /**< by the part's string ref; NULL where none */
    uint32_t string_count;   /**< 1 + the largest string ref */
    int have_clock;
    uint64_t resolution, offset, length, realtime;
    ot_mg_vec paradigms, paradigm_properties, attributes, nodes, domains, node_properties;
    ot_mg_vec location_groups, location_group_properties, locations, location_properties;
    ot_mg_vec regions, groups, comms, windows, metric_members, metric_classes;
    uint32_t property_count;
    char **property_names, **property_values; /**< the archive's properties */
    char *creator, *description;
    uint64_t event_chunk;
    const char *unsupported; /**< a kind of definition the merge does not unify, NULL if none */
} ot_mg_part;

/**
 * \brief Read the global definitions and archive properties of the part
 *        whose anchor file is \p anchor.
 * \param why one line when it cannot be read (the rank is then missing).
 * \return 0, or -1.
 */
int ot_mg_read_part(const char *anchor, ot_mg_part *part, char *why, size_t why_size);

/** \brief Free what ot_mg_read_part allocated (the struct itself is the caller's). */
void ot_mg_free_part(ot_mg_part *part);

/** \brief The value of archive property \p name of \p part, or NULL. */
const char *ot_mg_part_property(const ot_mg_part *part, const char *name);

/* ---- the job's definitions as the merge builds them (merge.c) and writes them (merge_write.c) ---- */

/** An id no definition of the job has (yet). */
#define UNMAPPED UINT32_MAX

/* A table from a byte key to a dense id (merge.c). */
typedef struct km_slot { char *key; uint32_t len, id; } km_slot;
typedef struct keymap { km_slot *slots; size_t capacity, count; } keymap;

/* A key built from fixed-size fields and member lists. */
typedef struct keybuf { unsigned char *b; size_t n, cap; int failed; } keybuf;

typedef struct job_group {
    OTF2_StringRef name;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    OTF2_GroupFlag flags;
    ot_mg_vec members; /* uint64_t */
    int union_members; /* REGIONS: sorted and unique when written */
} job_group;

typedef enum rank_state { RANK_COMPLETE, RANK_PARTIAL, RANK_MISSING } rank_state;

/* What stays of a part once it is unified: its maps to the job's ids, for
 * the mapping tables, and its locations, for the event files. */
typedef struct part_map {
    int rank;
    rank_state state;
    char reason[256];
    uint32_t *map[7];         /* by OT_MG_MAP_*: the part's id -> the job's */
    uint32_t map_count[7];
    uint64_t *locations;
    size_t location_count;
    uint32_t process_group; /* the job's id of the rank's process location group, UNMAPPED if none */
    uint64_t empty_location; /* a missing rank's master thread without events, UINT64_MAX if none */
    uint32_t property_count;
    char **property_names, **property_values; /* taken over from the part */
} part_map;

enum { OT_MG_MAP_STRING, OT_MG_MAP_ATTRIBUTE, OT_MG_MAP_REGION, OT_MG_MAP_GROUP, OT_MG_MAP_COMM, OT_MG_MAP_WINDOW,
       OT_MG_MAP_METRIC, OT_MG_MAP_KINDS };

typedef struct merger {
    const char *dir;
    int size;
    char job_id[256];
    keymap string_keys, attribute_keys, paradigm_keys, paradigm_property_keys, node_keys, domain_keys,
        node_property_keys, location_keys, region_keys, group_keys, comm_location_keys, comm_keys, window_keys,
        member_keys, class_keys;
    ot_mg_vec strings;              /* char * */
    ot_mg_vec attributes, paradigms, paradigm_properties, nodes, domains, node_properties;
    ot_mg_vec location_groups, location_group_properties, locations, location_properties;
    ot_mg_vec regions, groups, comms, windows, metric_members, metric_classes;
    uint32_t root;                  /* the system tree's root, UNMAPPED until a part gave one */
    int have_clock;
    uint64_t resolution, first, end, realtime;
    char *creator, *description;
    char catalogue[32];
    uint64_t event_chunk;
    part_map *parts;                /* by rank */
    keybuf key;
    int out_of_memory;
} merger;

/** \brief Set the job's archive properties (and the per-rank location group
 *         properties of those that differ); merge.c. */
void ot_mg_job_properties(merger *m, OTF2_Archive *archive);

/**
 * \brief Write the job's archive: global definitions, each location's
 *        mapping tables, the parts' event files moved in (merge_write.c).
 * \return 0, or -1 with one line in \p why (event files moved back).
 */
int ot_mg_write_archive(merger *m, char *why, size_t why_size);

/** \brief Remove what a failed ot_mg_write_archive wrote (not the event files). */
void ot_mg_remove_archive(const merger *m);

/** \brief Move event files in the job's traces/ back into their parts. */
void ot_mg_return_event_files(const merger *m);

/**
 * \brief Undo a merge that was killed before its anchor file: event files
 *        back to their parts, its other files removed.
 * \return 0, or -1 with one line in \p why when traces/ holds other files.
 */
int ot_mg_undo_stopped_merge(merger *m, char *why, size_t why_size);

#endif

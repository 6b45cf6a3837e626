/**
 * \file map_names.h
 * \brief The variable of every data operation (issue 15,
 *        docs/variables.md): the map sites of raw/map-sites.defs, parsed
 *        with care, and a data op's region name and attributes from its map
 *        reference (include/offtrace/raw_format.h).
 */
#ifndef OT_CONVERT_MAP_NAMES_H
#define OT_CONVERT_MAP_NAMES_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "map_repeats.h"
#include "offtrace/raw_format.h"

struct converter;

/** What a data operation moved, as the archive says it. */
typedef struct ot_map_op {
    const char *variable;  /**< the expression as written, or "unknown" */
    char map_type[96];     /**< decoded: "tofrom", "always,from", "present,to", "delete", ... or "unknown" */
    int implicit;          /**< 1: an implicit map */
    const char *member_of; /**< the parent entry's expression, NULL when none */
    char site[320];        /**< the construct's "file:line" (or what the symbolizer knows) */
    const char *entry;     /**< "entry" (map_names.c's one string of it), "mapper component", "pointer fix-up", "none" */
    const char *problem;   /**< why variable is "unknown", NULL when it is not */
    uint32_t memo;         /**< 1 + its entry in map_names.c's memo (its attributes' strings), 0: none */
} ot_map_op;

/** \brief Read raw/map-sites.defs (absent: nothing is named). 0 or -ENOMEM.
 *         A live conversion (c->live) reads it again when a record names a
 *         site it does not know yet (the recorder writes a site's line
 *         before any record names it). */
int ot_map_names_load(struct converter *c, const char *raw_dir);

/** \brief A live conversion's end: the rest of the finished file read as
 *         a whole reading reads it. -EPROTO where the result could differ
 *         from the conversion after the end (the file no longer begins
 *         with the lines read, or a site asked for in vain was defined
 *         since), -ENOMEM; 0: the same. */
int ot_map_names_live_end(struct converter *c);
void ot_map_names_free(struct converter *c);

/**
 * \brief The region of a data op that carries a map reference
 *        (OFFTRACE_RAW_FLAG_MAP_ENTRY), named "h2d x[0:n] (tofrom,
 *        implicit) @file:line", and what it moved in \p out.
 * \param cls the class its region has (DATA_OP_TO_DEVICE, ...).
 * \param construct_site, construct_kind, construct_codeptr the enclosing
 *        TARGET record's map site, ompt_target_t and call site.
 * \return the region, or UINT32_MAX when \p r carries no map reference (it
 *         is then counted as a data op of a construct the capture did not see).
 *         \p out's map type and site are empty once its attributes' strings
 *         are interned (its memo's: ot_map_add_attributes takes them there).
 */
OTF2_RegionRef ot_map_data_op(struct converter *c, const offtrace_raw_record *r, int device, int cls,
                              uint32_t construct_site, uint8_t construct_kind, uint64_t construct_codeptr,
                              ot_map_op *out);

/** \brief Put \p op's attributes (event_catalogue.h, OFFTRACE_MAP_ATTRIBUTES) on \p a: the Enter of its
 *         data op's region carries them all, but implicit and map entry at their usual values
 *         (OFFTRACE_MAP_IMPLICIT_USUAL, OFFTRACE_MAP_ENTRY_USUAL), and the variable, map type and site where
 *         all three are those of \p previous, which readers take for absent ones.
 * \param previous the previous Enter of the region on the location (map_repeats.h), updated; NULL: carry
 *        all (a put/get without its Enter). */
void ot_map_add_attributes(struct converter *c, OTF2_AttributeList *a, const ot_map_op *op,
                           ot_map_repeat *previous);

/** \brief Put \p op's variable alone on \p a: its put/get, written right after that Enter on the same
 *         location, which has the rest (docs/variables.md "The attributes"). Call after
 *         ot_map_add_attributes for the same \p op: its strings are interned by then. */
void ot_map_add_variable(struct converter *c, OTF2_AttributeList *a, const ot_map_op *op);

/** \brief An allocation ended: its device address keeps its map reference,
 *         for the delete that frees it (deletes name the device address only). */
void ot_map_alloc_done(struct converter *c, int device, const offtrace_raw_record *end);

/** \brief The archive's map properties (OFFTRACE::MAP_*), read by the summary's hint. */
void ot_map_names_properties(struct converter *c);

#endif

/**
 * \file export_groups.h
 * \brief The location-group name of each location ("generic-64bit device 0"),
 *        which names the devices' processes in the export.
 *
 * Why a second, definitions-only pass: trace_read.h does not expose location
 * groups, and the device kind is only in their names (docs/trace-model.md).
 * This reads the global definitions alone (no events), so it costs little;
 * it goes away once ot_tr_location carries its group's name.
 */
#ifndef OT_ANALYSIS_EXPORT_GROUPS_H
#define OT_ANALYSIS_EXPORT_GROUPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct ot_export_groups {
    uint64_t *location; /**< location ids */
    char **group;       /**< the name of each one's location group */
    size_t count;
} ot_export_groups;

/**
 * \brief Read the names from `<dir>/traces.otf2` (or an anchor file path).
 *        OTF2's error printing is silenced; the anchor is opened with
 *        ot_otf2_open_reader, so a damaged one fails fast.
 * \return 0; -1 when OTF2 cannot open the anchor file (damaged, not OTF2);
 *         -2 when the definitions cannot be read; -3 when there is no anchor
 *         file. \p g is then empty (the export names devices without their kind).
 */
int ot_export_groups_read(const char *dir, ot_export_groups *g);

/** \brief The group name of \p location, or NULL if unknown. */
const char *ot_export_group_of(const ot_export_groups *g, uint64_t location);

void ot_export_groups_free(ot_export_groups *g);

#endif /* OT_ANALYSIS_EXPORT_GROUPS_H */

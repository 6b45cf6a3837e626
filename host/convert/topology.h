/**
 * \file topology.h
 * \brief What the system tree says about the machine, read with hwloc.
 */
#ifndef OT_CONVERT_TOPOLOGY_H
#define OT_CONVERT_TOPOLOGY_H

#define OT_TOPOLOGY_MAX_PROPS 8

typedef struct ot_topology {
    char machine[128];  /**< DMI product name, else "Linux" */
    char hostname[256];
    int prop_count;
    char prop_name[OT_TOPOLOGY_MAX_PROPS][32];
    char prop_value[OT_TOPOLOGY_MAX_PROPS][128];
} ot_topology;

/**
 * \brief Describe this machine: names and counts of packages, NUMA nodes,
 *        cores and hardware threads, CPU model and memory; from the
 *        per-machine cache when it holds this machine's description
 *        (topology_cache.h), else from hwloc, then kept there.
 * \return 0, or -EIO when hwloc could not read the topology (names are
 *         still filled from uname).
 */
int ot_topology_describe(ot_topology *out);

#endif

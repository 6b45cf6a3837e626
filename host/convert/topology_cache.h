/**
 * \file topology_cache.h
 * \brief The machine's description (topology.h) kept once per machine, so
 *        that a conversion need not run hwloc's discovery (1.5-8 ms of every
 *        conversion on a 2-core VM, issue 18).
 *
 * The cache is one small text file per host name,
 * `$XDG_CACHE_HOME/offtrace/topology-HOST` (else `~/.cache/offtrace/...`),
 * holding the description and the key it is valid for: this boot (the
 * kernel's boot id), the hwloc API offtrace was built against (the
 * library is loaded only when the cache has nothing: an upgrade of hwloc
 * that keeps its soname shows at the next boot), the online CPUs and the memory's total (hotplug without a
 * reboot), and the CPUs and memory nodes this process may use (what hwloc
 * restricts its tree to). A file whose key differs, or that is damaged in
 * any way, is ignored without a word and written anew; one that cannot be
 * written leaves the conversion as it was (hwloc every time). Not used at
 * all while any `HWLOC_*` variable is set (they change what hwloc
 * describes) or when `OFFTRACE_TOPOLOGY_CACHE` is off.
 */
#ifndef OT_CONVERT_TOPOLOGY_CACHE_H
#define OT_CONVERT_TOPOLOGY_CACHE_H

#include <limits.h>

#include "topology.h"

/** Where this process's cache file is and the key its content must carry. */
typedef struct ot_topology_cache {
    char path[PATH_MAX];
    char key[2048];
} ot_topology_cache;

/**
 * \brief Decide whether the cache can be used here, and where it is.
 * \param hwloc_version the hwloc API version offtrace was built against
 *        (`HWLOC_API_VERSION`), part of the key
 * \return 0 when it can; -ENOENT when it is off (`OFFTRACE_TOPOLOGY_CACHE`,
 *         a `HWLOC_*` variable, no home or cache directory, no boot id),
 *         -EINVAL when `OFFTRACE_TOPOLOGY_CACHE` has a value that is not a
 *         switch (said in one line on stderr; the cache is then off).
 */
int ot_topology_cache_open(ot_topology_cache *cache, unsigned hwloc_version);

/**
 * \brief The cached description, when the file holds one for this key.
 * \param out the machine and properties (its host name is left alone)
 * \return 0 on a hit; -ENOENT when there is no file, -ESTALE when it was
 *         made for another key, -EBADMSG when it is damaged (out is then
 *         unspecified: describe the machine with hwloc).
 */
int ot_topology_cache_read(const ot_topology_cache *cache, ot_topology *out);

/**
 * \brief Keep \p described for the next conversions on this machine:
 *        written to a new file renamed over the old one, so a reader sees
 *        the old file or the new one, never half of either.
 * \return 0, or a negative errno (nothing written; harmless).
 */
int ot_topology_cache_write(const ot_topology_cache *cache, const ot_topology *described);

#endif

#include "topology.h"
#include "topology_cache.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void add_prop(ot_topology *t, const char *name, const char *value)
{
    if (t->prop_count >= OT_TOPOLOGY_MAX_PROPS || !value || !*value)
        return;
    snprintf(t->prop_name[t->prop_count], sizeof t->prop_name[0], "%s", name);
    snprintf(t->prop_value[t->prop_count], sizeof t->prop_value[0], "%s", value);
    t->prop_count++;
}

static void add_count(ot_topology *t, hwloc_topology_t topo, const char *name, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);
    char value[32];
    if (n <= 0)
        return;
    snprintf(value, sizeof value, "%d", n);
    add_prop(t, name, value);
}

/* hwloc loads its plugins (XML import, OpenCL, GL, PCI here; CUDA, NVML
 * and others where they are installed) at init, each a dlopen with its own
 * libraries: 3 ms of CPU of every conversion on this machine, more where a
 * GPU's libraries load (issue 18). What is described below (packages,
 * cores, memory, OS, product name) comes from hwloc's built-in components,
 * so the plugins' search path points at no directory for the time of the
 * init, and the caller's setting comes back after it. */
static int init_without_plugins(hwloc_topology_t *topo)
{
    static const char name[] = "HWLOC_PLUGINS_PATH";
    const char *was = getenv(name);
    char *saved = was ? strdup(was) : NULL;
    if (was && !saved)
        return hwloc_topology_init(topo);
    setenv(name, "/dev/null", 1);
    int rc = hwloc_topology_init(topo);
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
    return rc;
}

/* What hwloc's discovery says (1.4 ms of CPU and up to 8 ms of wall in a
 * conversion here, most of it reading /proc and /sys). */
static int describe_with_hwloc(ot_topology *out)
{
    hwloc_topology_t topo;
    if (init_without_plugins(&topo) != 0)
        return -EIO;
    /* Caches, groups and misc objects are nothing the description uses, and
     * reading every CPU's cache files is a large part of the discovery (17 %
     * on 2 CPUs here, more with more CPUs); I/O devices are off by default. */
    hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_GROUP, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -EIO;
    }
    hwloc_obj_t root = hwloc_get_root_obj(topo);
    const char *product = hwloc_obj_get_info_by_name(root, "DMIProductName");
    if (product && *product)
        snprintf(out->machine, sizeof out->machine, "%s", product);
    hwloc_obj_t package = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    if (package)
        add_prop(out, "CPU model", hwloc_obj_get_info_by_name(package, "CPUModel"));
    add_count(out, topo, "packages", HWLOC_OBJ_PACKAGE);
    add_count(out, topo, "NUMA nodes", HWLOC_OBJ_NUMANODE);
    add_count(out, topo, "cores", HWLOC_OBJ_CORE);
    add_count(out, topo, "hardware threads", HWLOC_OBJ_PU);
    char mem[32];
    snprintf(mem, sizeof mem, "%llu MiB", (unsigned long long)(root->total_memory >> 20));
    add_prop(out, "memory", mem);
    add_prop(out, "OS", hwloc_obj_get_info_by_name(root, "OSName"));
    hwloc_topology_destroy(topo);
    return 0;
}

int ot_topology_describe(ot_topology *out)
{
    memset(out, 0, sizeof *out);
    strcpy(out->machine, "Linux");
    if (gethostname(out->hostname, sizeof out->hostname - 1) != 0)
        strcpy(out->hostname, "localhost");

    /* The machine does not change between conversions: its description is
     * kept once per machine (topology_cache.h), hwloc asked only when the
     * cache has none for this boot, library and allowed set. */
    ot_topology_cache cache;
    int cached = ot_topology_cache_open(&cache, hwloc_get_api_version()) == 0;
    if (cached && ot_topology_cache_read(&cache, out) == 0)
        return 0;
    strcpy(out->machine, "Linux");
    out->prop_count = 0;
    int rc = describe_with_hwloc(out);
    if (rc == 0 && cached)
        ot_topology_cache_write(&cache, out);
    return rc;
}

#include "topology.h"
#include "topology_cache.h"

#include <dlfcn.h>
#include <errno.h>
#include <hwloc.h> /* its types and constants; the library is loaded when needed (hwloc_library) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef OFFTRACE_HWLOC_SONAME
#define OFFTRACE_HWLOC_SONAME "libhwloc.so.15"
#endif
#ifndef OFFTRACE_HWLOC_PATH /* the file offtrace was built against (host/CMakeLists.txt) */
#define OFFTRACE_HWLOC_PATH OFFTRACE_HWLOC_SONAME
#endif

/* The hwloc functions the description calls, from the library loaded the
 * first time they are needed: most conversions find the description in the
 * cache and never load hwloc and libudev behind it, which every command of
 * the CLI paid at its start (16 page faults, 0.1-0.15 ms of CPU here; issue
 * 18, sixth round). hwloc's inline helpers call its functions by name, so
 * the few used are written out below with these. */
typedef struct hwloc_library {
    int (*topology_init)(hwloc_topology_t *);
    int (*set_type_filter)(hwloc_topology_t, hwloc_obj_type_t, enum hwloc_type_filter_e);
    int (*topology_load)(hwloc_topology_t);
    void (*topology_destroy)(hwloc_topology_t);
    int (*type_depth)(hwloc_topology_t, hwloc_obj_type_t);
    unsigned (*objects_at_depth)(hwloc_topology_t, int);
    hwloc_obj_t (*object_at_depth)(hwloc_topology_t, int, unsigned);
} hwloc_library;

/* \return the functions, or NULL when the library or one of them is missing
 * (the description is then the host name alone, as for a failed discovery).
 * Loaded once and kept: hwloc is not unloaded before the process ends. */
static const hwloc_library *hwloc_functions(void)
{
    static hwloc_library lib;
    static int state; /* 0 not tried, 1 loaded, -1 missing */
    if (state)
        return state > 0 ? &lib : NULL;
    state = -1;
    void *h = dlopen(OFFTRACE_HWLOC_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen(OFFTRACE_HWLOC_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    *(void **)&lib.topology_init = dlsym(h, "hwloc_topology_init");
    *(void **)&lib.set_type_filter = dlsym(h, "hwloc_topology_set_type_filter");
    *(void **)&lib.topology_load = dlsym(h, "hwloc_topology_load");
    *(void **)&lib.topology_destroy = dlsym(h, "hwloc_topology_destroy");
    *(void **)&lib.type_depth = dlsym(h, "hwloc_get_type_depth");
    *(void **)&lib.objects_at_depth = dlsym(h, "hwloc_get_nbobjs_by_depth");
    *(void **)&lib.object_at_depth = dlsym(h, "hwloc_get_obj_by_depth");
    if (!lib.topology_init || !lib.set_type_filter || !lib.topology_load || !lib.topology_destroy ||
        !lib.type_depth || !lib.objects_at_depth || !lib.object_at_depth)
        return NULL;
    state = 1;
    return &lib;
}

/* hwloc_get_nbobjs_by_type and hwloc_get_obj_by_type of hwloc's inlines.h. */
static int objects_of_type(const hwloc_library *lib, hwloc_topology_t topo, hwloc_obj_type_t type)
{
    int depth = lib->type_depth(topo, type);
    if (depth == HWLOC_TYPE_DEPTH_UNKNOWN)
        return 0;
    return depth == HWLOC_TYPE_DEPTH_MULTIPLE ? -1 : (int)lib->objects_at_depth(topo, depth);
}

static hwloc_obj_t object_of_type(const hwloc_library *lib, hwloc_topology_t topo, hwloc_obj_type_t type,
                                  unsigned index)
{
    int depth = lib->type_depth(topo, type);
    if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE)
        return NULL;
    return lib->object_at_depth(topo, depth, index);
}

static void add_prop(ot_topology *t, const char *name, const char *value)
{
    if (t->prop_count >= OT_TOPOLOGY_MAX_PROPS || !value || !*value)
        return;
    snprintf(t->prop_name[t->prop_count], sizeof t->prop_name[0], "%s", name);
    snprintf(t->prop_value[t->prop_count], sizeof t->prop_value[0], "%s", value);
    t->prop_count++;
}

static void add_count(ot_topology *t, const hwloc_library *lib, hwloc_topology_t topo, const char *name,
                      hwloc_obj_type_t type)
{
    int n = objects_of_type(lib, topo, type);
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
static int init_without_plugins(const hwloc_library *lib, hwloc_topology_t *topo)
{
    static const char name[] = "HWLOC_PLUGINS_PATH";
    const char *was = getenv(name);
    char *saved = was ? strdup(was) : NULL;
    if (was && !saved)
        return lib->topology_init(topo);
    setenv(name, "/dev/null", 1);
    int rc = lib->topology_init(topo);
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
    const hwloc_library *lib = hwloc_functions();
    hwloc_topology_t topo;
    if (!lib || init_without_plugins(lib, &topo) != 0)
        return -EIO;
    /* Caches, groups and misc objects are nothing the description uses, and
     * reading every CPU's cache files is a large part of the discovery (17 %
     * on 2 CPUs here, more with more CPUs); I/O devices are off by default.
     * (The types hwloc's set_cache_types, set_icache_types and
     * set_io_types filters name.) */
    static const hwloc_obj_type_t unused[] = {
        HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
        HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_GROUP, HWLOC_OBJ_MISC,
        HWLOC_OBJ_BRIDGE, HWLOC_OBJ_PCI_DEVICE, HWLOC_OBJ_OS_DEVICE};
    for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
        lib->set_type_filter(topo, unused[i], HWLOC_TYPE_FILTER_KEEP_NONE);
    if (lib->topology_load(topo) != 0) {
        lib->topology_destroy(topo);
        return -EIO;
    }
    hwloc_obj_t root = lib->object_at_depth(topo, 0, 0);
    const char *product = hwloc_obj_get_info_by_name(root, "DMIProductName");
    if (product && *product)
        snprintf(out->machine, sizeof out->machine, "%s", product);
    hwloc_obj_t package = object_of_type(lib, topo, HWLOC_OBJ_PACKAGE, 0);
    if (package)
        add_prop(out, "CPU model", hwloc_obj_get_info_by_name(package, "CPUModel"));
    add_count(out, lib, topo, "packages", HWLOC_OBJ_PACKAGE);
    add_count(out, lib, topo, "NUMA nodes", HWLOC_OBJ_NUMANODE);
    add_count(out, lib, topo, "cores", HWLOC_OBJ_CORE);
    add_count(out, lib, topo, "hardware threads", HWLOC_OBJ_PU);
    char mem[32];
    snprintf(mem, sizeof mem, "%llu MiB", (unsigned long long)(root->total_memory >> 20));
    add_prop(out, "memory", mem);
    add_prop(out, "OS", hwloc_obj_get_info_by_name(root, "OSName"));
    lib->topology_destroy(topo);
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
    int cached = ot_topology_cache_open(&cache, HWLOC_API_VERSION) == 0;
    if (cached && ot_topology_cache_read(&cache, out) == 0)
        return 0;
    strcpy(out->machine, "Linux");
    out->prop_count = 0;
    int rc = describe_with_hwloc(out);
    if (rc == 0 && cached)
        ot_topology_cache_write(&cache, out);
    return rc;
}

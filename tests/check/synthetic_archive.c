/**
 * \file synthetic_archive.c
 * \brief The odd archive of synthetic_archive.h, written with OTF2's writer.
 */
#include "synthetic_archive.h"

#include <stdint.h>
#include <stdio.h>

#include <otf2/otf2.h>

#include "offtrace/event_catalogue.h"

enum { S_EMPTY, S_MACHINE, S_NODE, S_PROCESS, S_MASTER, S_WORKER, S_ODD, S_TARGET, S_NEST, S_FILE, S_ROLE_KEY,
       S_HOST_THREAD, S_TARGET_CLASS, S_COUNT };
enum { R_ODD, R_TARGET, R_NEST };

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre_flush};

static uint64_t write_master(OTF2_EvtWriter *w, int mismatched)
{
    OTF2_EvtWriter_Enter(w, NULL, 1000, R_ODD);
    OTF2_EvtWriter_Enter(w, NULL, 2000, R_TARGET);
    OTF2_EvtWriter_Leave(w, NULL, 3000, mismatched ? R_ODD : R_TARGET);
    OTF2_EvtWriter_Leave(w, NULL, 4000, mismatched ? R_TARGET : R_ODD);
    OTF2_EvtWriter_Enter(w, NULL, 5000, R_ODD);
    return 5;
}

static uint64_t write_worker(OTF2_EvtWriter *w, unsigned depth)
{
    for (unsigned i = 0; i < depth; i++)
        OTF2_EvtWriter_Enter(w, NULL, 10000 + i, R_NEST);
    for (unsigned i = 0; i < depth; i++)
        OTF2_EvtWriter_Leave(w, NULL, 10000 + depth + i, R_NEST);
    return 2 * (uint64_t)depth;
}

/* The strings, then one machine with one process of two host threads (locations 0 and 1, \p events each). */
static void write_two_threads(OTF2_GlobalDefWriter *g, const char *const *strings, unsigned nstrings,
                              uint32_t machine, uint32_t process, uint32_t master, uint32_t worker,
                              const uint64_t *events)
{
    for (unsigned i = 0; i < nstrings; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, process, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, master, OTF2_LOCATION_TYPE_CPU_THREAD, events[0], 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 1, worker, OTF2_LOCATION_TYPE_CPU_THREAD, events[1], 0);
}

static void write_definitions(OTF2_GlobalDefWriter *g, unsigned depth, const uint64_t *events)
{
    static const char *strings[S_COUNT] = {"", "machine", "node", "Process", "Master thread",
                                           "OpenMP thread 1 (tid 2)", ODD_REGION_NAME, "target @odd.c:7",
                                           "nest", "odd.c", OFFTRACE_LOCATION_ROLE_PROPERTY, "HOST_THREAD",
                                           OFFTRACE_REGION_CLASS_GROUP_PREFIX "TARGET"};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 1000, 10000 + 2 * (uint64_t)depth - 1000, 0);
    write_two_threads(g, strings, S_COUNT, S_MACHINE, S_PROCESS, S_MASTER, S_WORKER, events);
    OTF2_GlobalDefWriter_WriteRegion(g, R_ODD, S_ODD, S_ODD, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, S_FILE, 3, 3);
    OTF2_GlobalDefWriter_WriteRegion(g, R_TARGET, S_TARGET, S_TARGET, S_EMPTY, OTF2_REGION_ROLE_TASK_WAIT,
                                     OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, S_FILE, 7, 7);
    OTF2_GlobalDefWriter_WriteRegion(g, R_NEST, S_NEST, S_NEST, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    /* It claims to be offtrace's: its class table and location roles say
     * what "target @odd.c:7" and the threads are; the odd regions are in no
     * class, as a newer offtrace's unknown ones would be. */
    OTF2_AttributeValue host_thread = {.stringRef = S_HOST_THREAD};
    for (OTF2_LocationRef l = 0; l < 2; l++)
        OTF2_GlobalDefWriter_WriteLocationProperty(g, l, S_ROLE_KEY, OTF2_TYPE_STRING, host_thread);
    uint64_t target[] = {R_TARGET};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, S_TARGET_CLASS, OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 1, target);
}

/* An archive of two locations: events(w, 0 or 1, arg) writes a location's
 * events and returns their number; defs writes the global definitions. */
static int write_two_locations(const char *dir, const OTF2_LocationRef ids[2],
                               uint64_t (*events)(OTF2_EvtWriter *w, int which, const void *arg),
                               void (*defs)(OTF2_GlobalDefWriter *g, const uint64_t *counts, const void *arg),
                               const void *arg)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (!a)
        return -1;
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, "offtrace 0.1.0 (synthetic test archive)");
    char version[16];
    snprintf(version, sizeof version, "%u", OFFTRACE_CATALOGUE_VERSION);
    OTF2_Archive_SetProperty(a, OFFTRACE_CATALOGUE_PROPERTY, version, true);
    OTF2_Archive_OpenEvtFiles(a);
    uint64_t counts[2];
    for (int i = 0; i < 2; i++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, ids[i]);
        counts[i] = events(w, i, arg);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    for (int i = 0; i < 2; i++)
        OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, ids[i]));
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    defs(g, counts, arg);
    OTF2_Archive_CloseGlobalDefWriter(a, g);
    return OTF2_Archive_Close(a) == OTF2_SUCCESS ? 0 : -1;
}

typedef struct odd_shape {
    unsigned depth;
    int mismatched;
} odd_shape;

static uint64_t odd_events(OTF2_EvtWriter *w, int which, const void *arg)
{
    const odd_shape *shape = arg;
    return which == 0 ? write_master(w, shape->mismatched) : write_worker(w, shape->depth);
}

static void odd_definitions(OTF2_GlobalDefWriter *g, const uint64_t *counts, const void *arg)
{
    write_definitions(g, ((const odd_shape *)arg)->depth, counts);
}

static int write_archive(const char *dir, unsigned depth, int mismatched)
{
    static const OTF2_LocationRef ids[2] = {0, 1};
    odd_shape shape = {depth, mismatched};
    return write_two_locations(dir, ids, odd_events, odd_definitions, &shape);
}

int write_odd_archive(const char *dir, unsigned depth)
{
    return write_archive(dir, depth, 0);
}

int write_mismatched_archive(const char *dir)
{
    return write_archive(dir, 2, 1);
}

/* ---- the paired archive ---- */

enum {
    P_EMPTY, P_MACHINE, P_PROCESS, P_DEVICE, P_MASTER, P_RDMA, P_TARGET, P_OP, P_TRANSFER, P_FILE,
    P_ROLE_KEY, P_DEVICE_KEY, P_HOST_THREAD, P_RDMA_ROLE, P_TARGET_CLASS, P_OP_CLASS, P_TRANSFER_CLASS, P_COUNT
};
enum { PR_TARGET, PR_OP, PR_TRANSFER };
#define RDMA_LOCATION ((1ull << 32) | 0xFFFFu) /* device 0's RDMA row (docs/trace-model.md) */

static uint64_t write_paired_host(OTF2_EvtWriter *w)
{
    OTF2_EvtWriter_Enter(w, NULL, 100, PR_TARGET);
    OTF2_EvtWriter_Enter(w, NULL, 110, PR_OP);
    OTF2_EvtWriter_RmaPut(w, NULL, 110, 0, 1, 800, 7);
    OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, 150, 0, 7);
    OTF2_EvtWriter_Leave(w, NULL, 150, PR_OP);
    OTF2_EvtWriter_Enter(w, NULL, 200, PR_OP);
    OTF2_EvtWriter_RmaPut(w, NULL, 200, 0, 1, 16, 8);
    OTF2_EvtWriter_Leave(w, NULL, 210, PR_OP);
    OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, 220, 0, 99);
    return 9;
}

static uint64_t write_paired_rdma(OTF2_EvtWriter *w)
{
    OTF2_EvtWriter_Enter(w, NULL, 110, PR_TRANSFER);
    OTF2_EvtWriter_Leave(w, NULL, 150, PR_TRANSFER);
    OTF2_EvtWriter_Enter(w, NULL, 200, PR_TRANSFER);
    OTF2_EvtWriter_Leave(w, NULL, 230, PR_TRANSFER);
    return 4;
}

static void write_paired_definitions(OTF2_GlobalDefWriter *g, const uint64_t *events, const char *device_group)
{
    const char *strings[P_COUNT] = {"", "machine", "Process", device_group, "Master thread",
                                    "device 0 RDMA", "target @paired.c:3",
                                    "data op host->device @paired.c:4", "transfer host->device", "paired.c",
                                    OFFTRACE_LOCATION_ROLE_PROPERTY, OFFTRACE_LOCATION_DEVICE_PROPERTY,
                                    "HOST_THREAD", "RDMA", OFFTRACE_REGION_CLASS_GROUP_PREFIX "TARGET",
                                    OFFTRACE_REGION_CLASS_GROUP_PREFIX "DATA_OP_TO_DEVICE",
                                    OFFTRACE_REGION_CLASS_GROUP_PREFIX "TRANSFER_TO_DEVICE"};
    static const uint64_t ranks[2] = {0, RDMA_LOCATION};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 100, 131, 0);
    for (unsigned i = 0; i < P_COUNT; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, P_MACHINE, P_MACHINE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, P_PROCESS, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, P_DEVICE, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 0, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, P_MASTER, OTF2_LOCATION_TYPE_CPU_THREAD, events[0], 0);
    OTF2_GlobalDefWriter_WriteLocation(g, RDMA_LOCATION, P_RDMA, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, events[1], 1);
    OTF2_GlobalDefWriter_WriteRegion(g, PR_TARGET, P_TARGET, P_TARGET, P_EMPTY, OTF2_REGION_ROLE_TASK_WAIT,
                                     OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, P_FILE, 3, 3);
    OTF2_GlobalDefWriter_WriteRegion(g, PR_OP, P_OP, P_OP, P_EMPTY, OTF2_REGION_ROLE_DATA_TRANSFER,
                                     OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, P_FILE, 4, 4);
    OTF2_GlobalDefWriter_WriteRegion(g, PR_TRANSFER, P_TRANSFER, P_TRANSFER, P_EMPTY, OTF2_REGION_ROLE_DATA_TRANSFER,
                                     OTF2_PARADIGM_UNKNOWN, OTF2_REGION_FLAG_NONE, P_EMPTY, 0, 0);
    OTF2_GlobalDefWriter_WriteGroup(g, 0, P_EMPTY, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    /* offtrace's class table and location roles (event_catalogue.h) */
    OTF2_GlobalDefWriter_WriteLocationProperty(g, 0, P_ROLE_KEY, OTF2_TYPE_STRING,
                                               (OTF2_AttributeValue){.stringRef = P_HOST_THREAD});
    OTF2_GlobalDefWriter_WriteLocationProperty(g, RDMA_LOCATION, P_ROLE_KEY, OTF2_TYPE_STRING,
                                               (OTF2_AttributeValue){.stringRef = P_RDMA_ROLE});
    OTF2_GlobalDefWriter_WriteLocationProperty(g, RDMA_LOCATION, P_DEVICE_KEY, OTF2_TYPE_UINT32,
                                               (OTF2_AttributeValue){.uint32 = 0});
    static const struct { uint32_t name; uint64_t region; } classes[] = {
        {P_TARGET_CLASS, PR_TARGET}, {P_OP_CLASS, PR_OP}, {P_TRANSFER_CLASS, PR_TRANSFER}};
    for (unsigned i = 0; i < 3; i++)
        OTF2_GlobalDefWriter_WriteGroup(g, 1 + i, classes[i].name, OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                        OTF2_GROUP_FLAG_NONE, 1, &classes[i].region);
}

static uint64_t paired_events(OTF2_EvtWriter *w, int which, const void *arg)
{
    return which == 0 ? write_paired_host(w) : write_paired_rdma(w);
}

static void paired_definitions(OTF2_GlobalDefWriter *g, const uint64_t *counts, const void *arg)
{
    write_paired_definitions(g, counts, arg);
}

int write_paired_archive_with_group(const char *dir, const char *device_group)
{
    static const OTF2_LocationRef ids[2] = {0, RDMA_LOCATION};
    return write_two_locations(dir, ids, paired_events, paired_definitions, device_group);
}

int write_paired_archive(const char *dir)
{
    return write_paired_archive_with_group(dir, "generic-64bit device 0");
}

/* ---- the paired archive with map attributes ---- */

enum { M_X = P_COUNT, M_Y, M_TO, M_TOFROM, M_SITE, M_ENTRY, M_STRUCT, M_NAMES, M_COUNT = M_NAMES + OFFTRACE_MAP_ATTRIBUTE_COUNT };

/* A data op's map: \p which 0: x[0:100] (to, implicit); 1: y (tofrom, explicit, member of s). \p all 0: the
 * variable alone; \p usual 0: implicit 0 and map entry `entry` left out (event_catalogue.h); \p repeat 1: the
 * variable, map type and site left out (those of the previous Enter of its region, docs/variables.md). */
static void add_map_repeated(OTF2_AttributeList *a, int which, int all, int usual, int repeat)
{
    if (!repeat)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_VARIABLE, which ? M_Y : M_X);
    if (!all)
        return;
    if (!repeat)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MAP_TYPE, which ? M_TOFROM : M_TO);
    if (!which || usual)
        OTF2_AttributeList_AddUint8(a, OFFTRACE_MAP_ATTR_IMPLICIT, which ? 0 : 1);
    if (which)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MEMBER_OF, M_STRUCT);
    if (!repeat)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MAP_SITE, M_SITE);
    if (usual)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MAP_ENTRY, M_ENTRY);
}

static void add_map(OTF2_AttributeList *a, int which, int all, int usual)
{
    add_map_repeated(a, which, all, usual, 0);
}

static uint64_t mapped_events(OTF2_EvtWriter *w, int which, const void *arg)
{
    if (which)
        return write_paired_rdma(w);
    int layout = *(const int *)arg, on_puts = layout == OT_MAPPED_ON_PUTS, usual = layout != OT_MAPPED_NOW;
    OTF2_AttributeList *a = OTF2_AttributeList_New();
    OTF2_EvtWriter_Enter(w, NULL, 100, PR_TARGET);
    add_map(a, 0, 1, usual);
    OTF2_EvtWriter_Enter(w, a, 110, PR_OP);
    add_map(a, 0, on_puts, usual);
    OTF2_EvtWriter_RmaPut(w, a, 110, 0, 1, 800, 7);
    OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, 150, 0, 7);
    OTF2_EvtWriter_Leave(w, NULL, 150, PR_OP);
    add_map(a, 1, 1, usual);
    OTF2_EvtWriter_Enter(w, a, 200, PR_OP);
    add_map(a, 1, on_puts, usual);
    OTF2_EvtWriter_RmaPut(w, a, 200, 0, 1, 16, 8);
    OTF2_EvtWriter_Leave(w, NULL, 210, PR_OP);
    OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, 220, 0, 99);
    add_map_repeated(a, 1, 1, usual, layout == OT_MAPPED_NOW); /* y's again: the layouts before carry it all */
    OTF2_EvtWriter_Enter(w, a, 300, PR_OP);
    OTF2_EvtWriter_Leave(w, NULL, 310, PR_OP);
    OTF2_AttributeList_Delete(a);
    return 11;
}

static void mapped_definitions(OTF2_GlobalDefWriter *g, const uint64_t *counts, const void *arg)
{
    write_paired_definitions(g, counts, "generic-64bit device 0");
    static const char *values[M_NAMES - P_COUNT] = {"x[0:100]", "y", "to", "tofrom", "paired.c:4", "entry", "s"};
    for (unsigned i = P_COUNT; i < M_NAMES; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, values[i - P_COUNT]);
#define MAP_ATTRIBUTE(attr, offset, type, name, description)                                                      \
    OTF2_GlobalDefWriter_WriteString(g, M_NAMES + (offset), name);                                               \
    OTF2_GlobalDefWriter_WriteAttribute(g, OFFTRACE_MAP_ATTR_##attr, M_NAMES + (offset), P_EMPTY, OTF2_TYPE_##type);
    OFFTRACE_MAP_ATTRIBUTES(MAP_ATTRIBUTE)
#undef MAP_ATTRIBUTE
}

int write_mapped_archive(const char *dir, int layout)
{
    static const OTF2_LocationRef ids[2] = {0, RDMA_LOCATION};
    return write_two_locations(dir, ids, mapped_events, mapped_definitions, &layout);
}

/* ---- the chunked archive ---- */

enum { C_EMPTY, C_MACHINE, C_PROCESS, C_MASTER, C_WORKER, C_LOOP, C_CHUNK, C_NEST, C_ROLE_KEY, C_HOST_THREAD,
       C_WORK_CLASS, C_CHUNK_CLASS, C_FIRST, C_ITERATIONS, C_TASK, C_TASK_CLASS, C_TEAM_SIZE, C_THREAD_NUMBER,
       C_COUNT };
enum { CR_LOOP, CR_CHUNK, CR_NEST, CR_TASK };
enum { CA_FIRST = 2, CA_ITERATIONS = 3, CA_TEAM_SIZE = 4, CA_THREAD_NUMBER = 5 }; /* as offtrace numbers them;
                                                                                 readers go by name */

/* Each loop is in an implicit task: location 0's second changes its team size and keeps its thread number,
 * location 1's first is too deep to deliver and its second keeps both. Left out (carry_all 0): 0's second's
 * thread number, 1's second's both: the 3 OT_SYNTHETIC_TEAMS_USUAL. */
const ot_synthetic_team ot_synthetic_teams[OT_SYNTHETIC_TEAMS] = {{0, 2, 0}, {0, 3, 0}, {1, 2, 1}, {1, 2, 1}};

/* Location \p which's next implicit task Enter (*task: its index in ot_synthetic_teams, moved on). */
static void enter_task(OTF2_EvtWriter *w, OTF2_AttributeList *a, int which, int carry_all, unsigned *task,
                       uint64_t t)
{
    const ot_synthetic_team *previous = NULL;
    while (ot_synthetic_teams[*task].location != which)
        ++*task;
    for (unsigned i = 0; i < *task; i++)
        if (ot_synthetic_teams[i].location == which)
            previous = &ot_synthetic_teams[i];
    const ot_synthetic_team *team = &ot_synthetic_teams[(*task)++];
    if (carry_all || !previous || team->size != previous->size)
        OTF2_AttributeList_AddUint64(a, CA_TEAM_SIZE, team->size);
    if (carry_all || !previous || team->number != previous->number)
        OTF2_AttributeList_AddUint64(a, CA_THREAD_NUMBER, team->number);
    OTF2_EvtWriter_Enter(w, a, t, CR_TASK);
}

/* Location 0: two instances of a loop; location 1: one chunk too deep to deliver, then one following on from it
 * in another loop. Left out (carry_all 0): 0's second (both), third (iterations), fourth (first), fifth and
 * sixth (iterations); 1's second (both): the 8 OT_SYNTHETIC_CHUNKS_USUAL. */
const ot_synthetic_chunk ot_synthetic_chunks[OT_SYNTHETIC_CHUNKS] = {
    {0, 0, 2}, {0, 2, 2}, {0, 6, 2}, {0, 8, 1}, {0, 0, 1}, {0, 5, 1}, {1, 4, 2}, {1, 6, 2}};

static void add_chunk(OTF2_AttributeList *a, const ot_synthetic_chunk *c, const ot_synthetic_chunk *previous,
                      int carry_all)
{
    if (carry_all || !previous || c->first != previous->first + previous->iterations)
        OTF2_AttributeList_AddUint64(a, CA_FIRST, c->first);
    if (carry_all || !previous || c->iterations != previous->iterations)
        OTF2_AttributeList_AddUint64(a, CA_ITERATIONS, c->iterations);
}

static uint64_t chunked_events(OTF2_EvtWriter *w, int which, const void *arg)
{
    int carry_all = *(const int *)arg;
    OTF2_AttributeList *a = OTF2_AttributeList_New();
    const ot_synthetic_chunk *previous = NULL;
    uint64_t t = 100, events = 0;
    unsigned task = 0;
    unsigned depth = which ? 1025 : 0; /* location 1: its first chunk deeper than OT_TR_MAX_DEPTH (1024) */
    for (unsigned i = 0; i < depth; i++, events++)
        OTF2_EvtWriter_Enter(w, NULL, t++, CR_NEST);
    for (int i = 0; i < OT_SYNTHETIC_CHUNKS; i++) {
        const ot_synthetic_chunk *c = &ot_synthetic_chunks[i];
        if (c->location != which)
            continue;
        int opens_loop = !previous || (which == 0 && c->first == 0);
        if (previous && (opens_loop || which == 1)) {
            OTF2_EvtWriter_Leave(w, NULL, t++, CR_LOOP);
            OTF2_EvtWriter_Leave(w, NULL, t++, CR_TASK);
            events += 2;
        }
        if (which == 1 && previous) /* location 1's second chunk: back at the top */
            for (unsigned j = 0; j < depth; j++, events++)
                OTF2_EvtWriter_Leave(w, NULL, t++, CR_NEST);
        if (opens_loop || which == 1) {
            enter_task(w, a, which, carry_all, &task, t++);
            OTF2_AttributeList_AddUint64(a, CA_ITERATIONS, 10);
            OTF2_EvtWriter_Enter(w, a, t++, CR_LOOP);
            events += 2;
        }
        add_chunk(a, c, previous, carry_all);
        OTF2_EvtWriter_Enter(w, a, t++, CR_CHUNK);
        OTF2_EvtWriter_Leave(w, NULL, t++, CR_CHUNK);
        events += 2;
        previous = c;
    }
    OTF2_EvtWriter_Leave(w, NULL, t++, CR_LOOP);
    OTF2_EvtWriter_Leave(w, NULL, t++, CR_TASK);
    events += 2;
    OTF2_AttributeList_Delete(a);
    return events;
}

static void chunked_definitions(OTF2_GlobalDefWriter *g, const uint64_t *counts, const void *arg)
{
    static const char *strings[C_COUNT] = {"", "machine", "Process", "Master thread", "OpenMP thread 1 (tid 2)",
                                           "loop @chunks.c:3", "loop chunk @chunks.c:3", "nest",
                                           OFFTRACE_LOCATION_ROLE_PROPERTY, "HOST_THREAD",
                                           OFFTRACE_REGION_CLASS_GROUP_PREFIX "HOST_WORK",
                                           OFFTRACE_REGION_CLASS_GROUP_PREFIX "HOST_CHUNK", "first iteration",
                                           "iterations", "implicit task",
                                           OFFTRACE_REGION_CLASS_GROUP_PREFIX "HOST_IMPLICIT_TASK", "team size",
                                           "thread number"};
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, 100, 2300, 0);
    write_two_threads(g, strings, C_COUNT, C_MACHINE, C_PROCESS, C_MASTER, C_WORKER, counts);
    static const struct { uint32_t name; OTF2_RegionRole role; OTF2_Paradigm paradigm; } regions[] = {
        [CR_LOOP] = {C_LOOP, OTF2_REGION_ROLE_LOOP, OTF2_PARADIGM_OPENMP},
        [CR_CHUNK] = {C_CHUNK, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_OPENMP},
        [CR_NEST] = {C_NEST, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER},
        [CR_TASK] = {C_TASK, OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_OPENMP}};
    for (OTF2_RegionRef r = 0; r < sizeof regions / sizeof regions[0]; r++)
        OTF2_GlobalDefWriter_WriteRegion(g, r, regions[r].name, regions[r].name, C_EMPTY, regions[r].role,
                                         regions[r].paradigm, OTF2_REGION_FLAG_NONE, C_EMPTY, 0, 0);
    OTF2_GlobalDefWriter_WriteAttribute(g, CA_FIRST, C_FIRST, C_EMPTY, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, CA_ITERATIONS, C_ITERATIONS, C_EMPTY, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, CA_TEAM_SIZE, C_TEAM_SIZE, C_EMPTY, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, CA_THREAD_NUMBER, C_THREAD_NUMBER, C_EMPTY, OTF2_TYPE_UINT64);
    for (OTF2_LocationRef l = 0; l < 2; l++)
        OTF2_GlobalDefWriter_WriteLocationProperty(g, l, C_ROLE_KEY, OTF2_TYPE_STRING,
                                                   (OTF2_AttributeValue){.stringRef = C_HOST_THREAD});
    static const uint64_t work[1] = {CR_LOOP}, chunk[1] = {CR_CHUNK}, task[1] = {CR_TASK};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, C_WORK_CLASS, OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 1, work);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, C_CHUNK_CLASS, OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 1, chunk);
    OTF2_GlobalDefWriter_WriteGroup(g, 2, C_TASK_CLASS, OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 1, task);
}

int write_chunked_archive(const char *dir, int carry_all)
{
    static const OTF2_LocationRef ids[2] = {0, 1};
    return write_two_locations(dir, ids, chunked_events, chunked_definitions, &carry_all);
}

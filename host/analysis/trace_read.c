/**
 * \file trace_read.c
 * \brief The streaming archive reader of trace_read.h: global definitions
 *        into tables, then OTF2's global event reader through a visitor.
 */
#define _GNU_SOURCE
#include "trace_read.h"

#include "offtrace/event_catalogue.h"
#include "map_repeats.h"
#include "otf2_open.h"
#include "progress.h"
#include "trace_read_mpi.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define NO_ATTRIBUTE UINT32_MAX

/* More strings, regions or location groups than offtrace ever writes: a
 * damaged file's reference. The tables are indexed by reference, so this
 * bounds them (64 MiB of regions); one flipped byte must not cost GiBs. */
#define MAX_DEFINITION_REF (1u << 20)

/* The highest MPI rank (a job of 2^24 ranks, the location ids' rank bits) and device key a reader's tables
 * are sized for. */
#define MAX_RANK ((1u << 24) - 1)
#define MAX_DEVICE_KEY ((1u << 24) - 1)

/* A group of type REGIONS: a class of the class table if its name says so. */
typedef struct region_group {
    OTF2_StringRef name;
    uint64_t *members;
    uint32_t count;
} region_group;

/* A group of locations or of ranks (COMM_LOCATIONS, COMM_GROUP, COMM_SELF): what an RMA remote resolves through. */
typedef struct comm_group {
    OTF2_GroupRef self;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint64_t *members;
    uint32_t count;
} comm_group;

/* A communicator's group, or a window's communicator: (self, what it names). */
typedef struct ref_pair {
    uint32_t self, names;
} ref_pair;

/* A location property, resolved once every string and location is in. */
typedef struct location_property {
    OTF2_LocationRef location;
    OTF2_StringRef name;
    OTF2_Type type;
    OTF2_AttributeValue value;
} location_property;

/* The MPI calls a location remembers after their end: a message is delivered at its later side, when the
 * earlier side's call may have ended (a send's call long before a late receive completes). */
#define ENDED_CALLS 4

/* Two attributes of a kind of Enter that a location leaves out at their usual values: the last such Enter's
 * (seen: there was one). */
struct usual_pair {
    uint64_t a, b;
    int seen;
};

/* What the read keeps of one location: its open region instances (a stack)
 * and its transfers in flight (oldest first). Records are ot_tr_span /
 * ot_tr_transfer followed by the visitor's scratch bytes. */
typedef struct lane {
    unsigned char *spans;
    uint32_t depth, span_room;
    uint32_t too_deep;           /* Enters past OT_TR_MAX_DEPTH still open */
    unsigned char *transfers;
    uint32_t in_flight, transfer_room;
    int waiting;                 /* RDMA location: a put/get of its device came before its transfer region */
    ot_tr_transfer waiting_transfer;
    uint64_t collective_begin;   /* its open MpiCollectiveBegin's time, 0: none open */
    struct { uint64_t serial, end; } ended[ENDED_CALLS]; /* its MPI calls that ended last (a message's end) */
    uint32_t ended_next;
    struct usual_pair chunk; /* its last chunk Enter's first iteration and iterations */
    struct usual_pair team;  /* its last host implicit task Enter's team size and thread number */
    ot_map_repeats map_repeats; /* each data-op region's last variable, map type and site (map_repeats.h) */
} lane;

/* An MPI communicator as the reader maps its ranks: rank in it -> world rank. */
typedef struct mpi_comm {
    int defined;
    int self;                    /* MPI_COMM_SELF: rank 0 is the event's own rank */
    uint32_t size;
    uint32_t *world;             /* NULL: its group is unknown (ranks are taken as world ranks) */
    const char *name;
} mpi_comm;

struct ot_tr_archive {
    char **strings;
    size_t string_count;
    ot_tr_region *regions;       /* indexed by OTF2 region ref */
    uint8_t *region_defined;
    size_t region_count;
    ot_tr_location *locations;   /* definition order */
    size_t location_count;
    comm_group *comm_groups;     /* COMM_LOCATIONS / COMM_GROUP / COMM_SELF groups, definition order */
    size_t comm_group_count;
    ref_pair *comms;             /* communicator -> its group */
    size_t comm_count;
    OTF2_StringRef *comm_names;  /* by index in comms */
    ref_pair *windows;           /* RMA window -> its communicator */
    size_t window_count;
    OTF2_StringRef *group_names; /* location group ref -> name */
    size_t group_count;
    uint32_t rank_count;         /* 1 + the highest rank of a location */
    int device_stride;           /* device key = rank * device_stride + device number */
    region_group *region_groups;
    size_t region_group_count;
    location_property *location_properties;
    size_t location_property_count;
    int other_catalogue;         /* an offtrace archive without this catalogue's class table */
    uint32_t host_address_attr, device_address_attr;
    uint32_t span_attr[OT_TR_ATTRS]; /* OTF2 attribute of each ot_tr_attribute, NO_ATTRIBUTE if undefined */
    int span_attrs;                  /* the archive defines one of them */
    uint32_t map_attr[OFFTRACE_MAP_ATTRIBUTE_COUNT]; /* by catalogue offset: its ref if the archive defines it */
    int map_attrs;                   /* the archive defines one of them */
    uint64_t first_time, duration, realtime, resolution;
    size_t accelerator_groups;
    char *creator;
    struct { OTF2_StringRef name; OTF2_Type type; int user; } *members; /* by metric member ref */
    size_t member_count;
    OTF2_MetricMemberRef *metric_member; /* metric ref -> its one member + 1 (0: none) */
    size_t metric_count;
    OTF2_Reader *reader;
    char **properties;           /* name, value, name, value, ... (read on demand) */
    size_t property_count;
    uint64_t handled_events, unknown_events;
    /* the read in progress */
    ot_tr_visitor visitor;       /* a copy: one indirection less per event */
    void *user;
    int stop;                    /* a visitor's nonzero return, or -EINVAL for a bad reference */
    char bad_reference[160];
    lane *lanes;                 /* by location index: open instances and transfers in flight */
    int32_t *rdma_lane;          /* device key -> its RDMA location's index, -1 */
    int32_t **window_target;     /* RMA window -> (remote rank -> location index, -1), NULL: none resolved */
    uint32_t *window_size;       /* RMA window -> its remote ranks */
    size_t window_targets;
    int32_t *fallback_target;    /* remote -> location index through the first COMM_LOCATIONS group (an
                                    archive without windows), -1 */
    uint32_t fallback_size;
    size_t rdma_devices;
    size_t span_stride, transfer_stride; /* a record and the visitor's scratch after it */
    uint64_t last_time, next_serial, unmatched_completions, regions_too_deep;
    size_t last_location;        /* index of the location of the last event (location_of's cache) */
    ot_trm *mpi;                 /* messages with one side read, Irecv postings (NULL: no `message` visitor) */
    mpi_comm *mpi_comms;         /* by communicator ref */
    size_t mpi_comm_count;
    uint64_t unmatched_messages, clock_violations;
    ot_progress *progress;       /* the line on a terminal, NULL elsewhere */
};

/* OTF2 prints its errors on stderr; the reader says one line of its own. */
static char otf2_first_error[256];

static OTF2_ErrorCode keep_first_error(void *user, const char *file, uint64_t line, const char *function,
                                       OTF2_ErrorCode code, const char *format, va_list va)
{
    if (!otf2_first_error[0])
        vsnprintf(otf2_first_error, sizeof otf2_first_error, format, va);
    return code;
}

static void *grow(void *array, size_t *count, size_t need, size_t size)
{
    if (need <= *count)
        return array;
    size_t n = *count ? *count : 16;
    while (n < need)
        n *= 2;
    char *p = realloc(array, n * size);
    if (!p)
        return NULL;
    memset(p + *count * size, 0, (n - *count) * size);
    *count = n;
    return p;
}

static const char *string_of(const ot_tr_archive *a, OTF2_StringRef ref)
{
    return ref < a->string_count && a->strings[ref] ? a->strings[ref] : "";
}

/* ---- global definitions ---- */

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *text)
{
    ot_tr_archive *a = u;
    size_t count = a->string_count;
    if (self > MAX_DEFINITION_REF)
        return OTF2_CALLBACK_INTERRUPT;
    char **s = grow(a->strings, &count, (size_t)self + 1, sizeof *s);
    if (!s)
        return OTF2_CALLBACK_INTERRUPT;
    a->strings = s;
    a->string_count = count;
    free(s[self]);
    s[self] = strdup(text ? text : "");
    return s[self] ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    ot_tr_archive *a = u;
    size_t count = a->region_count, defined_count = a->region_count;
    if (self > MAX_DEFINITION_REF)
        return OTF2_CALLBACK_INTERRUPT;
    ot_tr_region *r = grow(a->regions, &count, (size_t)self + 1, sizeof *r);
    if (!r)
        return OTF2_CALLBACK_INTERRUPT;
    a->regions = r;
    uint8_t *d = grow(a->region_defined, &defined_count, (size_t)self + 1, 1);
    if (!d)
        return OTF2_CALLBACK_INTERRUPT;
    a->region_defined = d;
    a->region_count = count;
    d[self] = 1;
    /* Names are resolved after all strings are in (OTF2 writes strings first,
     * but a foreign producer need not): keep the refs for now. */
    r[self] = (ot_tr_region){.id = self, .line = begin, .role = role, .paradigm = paradigm};
    r[self].name = (const char *)(uintptr_t)name;
    r[self].file = (const char *)(uintptr_t)file;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t events, OTF2_LocationGroupRef group)
{
    ot_tr_archive *a = u;
    size_t count = a->location_count;
    ot_tr_location *l = realloc(a->locations, (count + 1) * sizeof *l);
    if (!l)
        return OTF2_CALLBACK_INTERRUPT;
    a->locations = l;
    l[count] = (ot_tr_location){.id = self, .index = (uint32_t)count, .events = events, .device = -1};
    l[count].name = (const char *)(uintptr_t)name;
    l[count].group = (const char *)(uintptr_t)group; /* the group ref until resolve_names */
    a->location_count++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                            OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                            OTF2_LocationGroupRef creator)
{
    ot_tr_archive *a = u;
    size_t count = a->group_count;
    if (self > MAX_DEFINITION_REF)
        return OTF2_CALLBACK_INTERRUPT;
    OTF2_StringRef *g = grow(a->group_names, &count, (size_t)self + 1, sizeof *g);
    if (!g)
        return OTF2_CALLBACK_INTERRUPT;
    a->group_names = g;
    a->group_count = count;
    g[self] = name;
    a->accelerator_groups += type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR;
    return OTF2_CALLBACK_SUCCESS;
}

/* Groups of regions are kept until the strings are in: their names say
 * which are the class table's. */
static OTF2_CallbackCode keep_region_group(ot_tr_archive *a, OTF2_StringRef name, uint32_t n, const uint64_t *members)
{
    region_group *g = realloc(a->region_groups, (a->region_group_count + 1) * sizeof *g);
    if (!g)
        return OTF2_CALLBACK_INTERRUPT;
    a->region_groups = g;
    g = &g[a->region_group_count];
    *g = (region_group){name, malloc((n ? n : 1) * sizeof *members), n};
    if (!g->members)
        return OTF2_CALLBACK_INTERRUPT;
    memcpy(g->members, members, n * sizeof *members);
    a->region_group_count++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    ot_tr_archive *a = u;
    if (type == OTF2_GROUP_TYPE_REGIONS)
        return keep_region_group(a, name, n, members);
    if (type != OTF2_GROUP_TYPE_COMM_LOCATIONS && type != OTF2_GROUP_TYPE_COMM_GROUP &&
        type != OTF2_GROUP_TYPE_COMM_SELF)
        return OTF2_CALLBACK_SUCCESS;
    comm_group *g = realloc(a->comm_groups, (a->comm_group_count + 1) * sizeof *g);
    if (!g)
        return OTF2_CALLBACK_INTERRUPT;
    a->comm_groups = g;
    g = &g[a->comm_group_count];
    *g = (comm_group){self, type, paradigm, malloc((n ? n : 1) * sizeof *members), n};
    if (!g->members)
        return OTF2_CALLBACK_INTERRUPT;
    memcpy(g->members, members, n * sizeof *members);
    a->comm_group_count++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode keep_pair(ref_pair **pairs, size_t *count, uint32_t self, uint32_t names)
{
    ref_pair *p = realloc(*pairs, (*count + 1) * sizeof *p);
    if (!p)
        return OTF2_CALLBACK_INTERRUPT;
    *pairs = p;
    p[(*count)++] = (ref_pair){self, names};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    ot_tr_archive *a = u;
    OTF2_StringRef *names = realloc(a->comm_names, (a->comm_count + 1) * sizeof *names);
    if (!names)
        return OTF2_CALLBACK_INTERRUPT;
    a->comm_names = names;
    names[a->comm_count] = name;
    return keep_pair(&a->comms, &a->comm_count, self, group);
}

static OTF2_CallbackCode def_window(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                    OTF2_RmaWinFlag flags)
{
    ot_tr_archive *a = u;
    return keep_pair(&a->windows, &a->window_count, self, comm);
}

static OTF2_CallbackCode def_location_property(void *u, OTF2_LocationRef location, OTF2_StringRef name,
                                               OTF2_Type type, OTF2_AttributeValue value)
{
    ot_tr_archive *a = u;
    location_property *p = realloc(a->location_properties, (a->location_property_count + 1) * sizeof *p);
    if (!p)
        return OTF2_CALLBACK_INTERRUPT;
    a->location_properties = p;
    p[a->location_property_count++] = (location_property){location, name, type, value};
    return OTF2_CALLBACK_SUCCESS;
}

/* The OTF2 type of each span attribute: UINT64 but where named. */
static OTF2_Type span_attribute_type(int k)
{
    switch (k) {
    case OT_TR_ATTR_LOCK_ID:
    case OT_TR_ATTR_NVTX_CATEGORY:
    case OT_TR_ATTR_NVTX_COLOR: return OTF2_TYPE_UINT32;
    case OT_TR_ATTR_NVTX_PAYLOAD: return OTF2_TYPE_INT64;
    case OT_TR_ATTR_NVTX_PAYLOAD_FLOAT: return OTF2_TYPE_DOUBLE;
    default: return OTF2_TYPE_UINT64;
    }
}

/* The map attributes (issue 15) are the catalogue's refs: one counts when its ref, name and type are the
 * catalogue's (an archive of another catalogue version keeps its own meaning for that ref). */
static void def_map_attribute(ot_tr_archive *a, OTF2_AttributeRef self, const char *name, OTF2_Type type)
{
#define MAP_ATTRIBUTE_MATCH(attr, offset, attr_type, attr_name, description)                     \
    if (self == OFFTRACE_MAP_ATTR_##attr && type == OTF2_TYPE_##attr_type && !strcmp(name, attr_name)) { \
        a->map_attr[offset] = self;                                                              \
        a->map_attrs = 1;                                                                        \
    }
    OFFTRACE_MAP_ATTRIBUTES(MAP_ATTRIBUTE_MATCH)
#undef MAP_ATTRIBUTE_MATCH
}

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    ot_tr_archive *a = u;
    def_map_attribute(a, self, string_of(a, name), type);
    static const char *const nvtx_names[4] = {"nvtx category", "nvtx color", "nvtx payload",
                                              "nvtx payload (floating)"};
    for (int k = OT_TR_ATTR_NVTX_CATEGORY; k <= OT_TR_ATTR_NVTX_PAYLOAD_FLOAT; k++)
        if (type == span_attribute_type(k) && !strcmp(string_of(a, name), nvtx_names[k - OT_TR_ATTR_NVTX_CATEGORY])) {
            a->span_attr[k] = self;
            a->span_attrs = 1;
        }
    if (type == OTF2_TYPE_UINT32 && !strcmp(string_of(a, name), "lock id")) {
        a->span_attr[OT_TR_ATTR_LOCK_ID] = self;
        a->span_attrs = 1;
    }
    if (type != OTF2_TYPE_UINT64)
        return OTF2_CALLBACK_SUCCESS;
    if (!strcmp(string_of(a, name), "host address"))
        a->host_address_attr = self;
    else if (!strcmp(string_of(a, name), "device address"))
        a->device_address_attr = self;
    static const char *const span_attribute_names[OT_TR_ATTRS] = {
        [OT_TR_ATTR_FIRST_ITERATION] = "first iteration", [OT_TR_ATTR_ITERATIONS] = "iterations",
        [OT_TR_ATTR_TEAM_SIZE] = "team size", [OT_TR_ATTR_THREAD_NUMBER] = "thread number",
        [OT_TR_ATTR_TASK_ID] = "task id", [OT_TR_ATTR_TASK_FLAGS] = "task flags",
        [OT_TR_ATTR_PARENT_TASK] = "parent task", [OT_TR_ATTR_PREDECESSOR_TASK] = "predecessor task",
        [OT_TR_ATTR_LOCK_ID] = "(a uint32: above)", [OT_TR_ATTR_NVTX_CATEGORY] = "(a uint32: above)",
        [OT_TR_ATTR_NVTX_COLOR] = "(a uint32: above)", [OT_TR_ATTR_NVTX_PAYLOAD] = "(an int64: above)",
        [OT_TR_ATTR_NVTX_PAYLOAD_FLOAT] = "(a double: above)", [OT_TR_ATTR_HOST_OPERATION] = "host operation"};
    for (int k = 0; k < OT_TR_ATTRS; k++)
        if (!strcmp(string_of(a, name), span_attribute_names[k])) {
            a->span_attr[k] = self;
            a->span_attrs = 1;
        }
    return OTF2_CALLBACK_SUCCESS;
}

/* Metrics: which are user values (their one member of metric type USER), with the member's name and type. */
static OTF2_CallbackCode def_metric_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                           OTF2_StringRef description, OTF2_MetricType metric_type,
                                           OTF2_MetricMode mode, OTF2_Type type, OTF2_Base base, int64_t exponent,
                                           OTF2_StringRef unit)
{
    ot_tr_archive *a = u;
    if (self >= (1u << 20)) /* far beyond what offtrace writes: not a table of that size */
        return OTF2_CALLBACK_SUCCESS;
    void *p = grow(a->members, &a->member_count, (size_t)self + 1, sizeof *a->members);
    if (!p)
        return OTF2_CALLBACK_INTERRUPT;
    a->members = p;
    a->members[self].name = name;
    a->members[self].type = type;
    a->members[self].user = metric_type == OTF2_METRIC_TYPE_USER;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_metric_class(void *u, OTF2_MetricRef self, uint8_t n,
                                          const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occurrence,
                                          OTF2_RecorderKind kind)
{
    ot_tr_archive *a = u;
    if (self >= (1u << 20) || n != 1)
        return OTF2_CALLBACK_SUCCESS;
    void *p = grow(a->metric_member, &a->metric_count, (size_t)self + 1, sizeof *a->metric_member);
    if (!p)
        return OTF2_CALLBACK_INTERRUPT;
    a->metric_member = p;
    a->metric_member[self] = members[0] + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length,
                                   uint64_t realtime)
{
    ot_tr_archive *a = u;
    a->resolution = resolution;
    a->first_time = offset;
    a->duration = length;
    a->realtime = realtime;
    return OTF2_CALLBACK_SUCCESS;
}

static int read_global_definitions(ot_tr_archive *a)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(a->reader);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!g || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return -EINVAL;
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_location_group);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, def_window);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, def_location_property);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, def_metric_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, def_metric_class);
    OTF2_Reader_RegisterGlobalDefCallbacks(a->reader, g, cb, a);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(a->reader, g, &n);
    OTF2_Reader_CloseGlobalDefReader(a->reader, g);
    return rc == OTF2_SUCCESS ? 0 : -EINVAL;
}

/* ---- classification ---- */

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The reader's columns of the catalogue, by class. */
static const struct {
    uint8_t klass, construct, op;
} reader_columns[OFFTRACE_CLASS_COUNT] = {
    [OFFTRACE_CLASS_NONE] = {OT_TR_OTHER_REGION, OT_TR_CONSTRUCT_NONE, OT_TR_OP_OTHER},
#define READER_COLUMNS(c, source, name, form, role, paradigm, location, reader, construct, op, nowait, view, export, \
                       report)                                                                                      \
    [OFFTRACE_CLASS_##c] = {OT_TR_##reader, OT_TR_CONSTRUCT_##construct, OT_TR_OP_##op},
    OFFTRACE_EVENT_CLASSES(READER_COLUMNS)
#undef READER_COLUMNS
};

/* What a region is comes from its class; its name only gives the site
 * shown to people (the part after " @"). */
static void classify_region(ot_tr_region *r, offtrace_event_class cls)
{
    const char *at = strstr(r->name, " @");
    r->site = at ? at + 2 : "";
    r->cls = cls;
    r->klass = (ot_tr_region_class)reader_columns[cls].klass;
    r->construct = reader_columns[cls].construct;
    r->op = reader_columns[cls].op;
    r->nowait = cls != OFFTRACE_CLASS_NONE && offtrace_class(cls)->nowait;
}

/* The class table: each region's class, from the groups named
 * OFFTRACE_REGION_CLASS_GROUP_PREFIX + class (0: in none). */
static uint8_t *region_classes(const ot_tr_archive *a)
{
    uint8_t *cls = calloc(a->region_count ? a->region_count : 1, 1);
    size_t prefix = strlen(OFFTRACE_REGION_CLASS_GROUP_PREFIX);
    for (size_t g = 0; cls && g < a->region_group_count; g++) {
        const char *name = string_of(a, a->region_groups[g].name);
        if (strncmp(name, OFFTRACE_REGION_CLASS_GROUP_PREFIX, prefix) != 0)
            continue;
        offtrace_event_class c = offtrace_class_by_name(name + prefix);
        for (uint32_t i = 0; c != OFFTRACE_CLASS_NONE && i < a->region_groups[g].count; i++)
            if (a->region_groups[g].members[i] < a->region_count)
                cls[a->region_groups[g].members[i]] = (uint8_t)c;
    }
    return cls;
}

/* The reader's location class of each catalogue location role (same names). */
static const uint8_t location_classes[OFFTRACE_LOC_ROLE_COUNT + 1] = {
#define LOCATION_CLASS(role, type, space, what) [OFFTRACE_LOC_##role] = OT_TR_##role,
    OFFTRACE_LOCATION_ROLES(LOCATION_CLASS)
#undef LOCATION_CLASS
    [OFFTRACE_LOC_ROLE_COUNT] = OT_TR_OTHER_LOCATION,
};

static int integer_value(OTF2_Type type, OTF2_AttributeValue v, uint64_t *out)
{
    switch (type) {
    case OTF2_TYPE_UINT8: *out = v.uint8; return 0;
    case OTF2_TYPE_UINT16: *out = v.uint16; return 0;
    case OTF2_TYPE_UINT32: *out = v.uint32; return 0;
    case OTF2_TYPE_UINT64: *out = v.uint64; return 0;
    default: return -1;
    }
}

/* A location is what its OFFTRACE::LOCATION_ROLE property says, on the
 * device its OFFTRACE::DEVICE property names; a location without a role is
 * OT_TR_OTHER_LOCATION. */
static int device_keys(ot_tr_archive *a);

static int classify_locations(ot_tr_archive *a)
{
    for (size_t i = 0; i < a->location_count; i++) {
        a->locations[i].klass = OT_TR_OTHER_LOCATION;
        a->locations[i].device = -1;
        a->locations[i].rank = (uint32_t)(a->locations[i].id >> 40); /* the job's location ids, until a property says */
    }
    for (size_t i = 0; i < a->location_property_count; i++) {
        const location_property *p = &a->location_properties[i];
        ot_tr_location *l = NULL;
        for (size_t j = 0; j < a->location_count && !l; j++)
            if (a->locations[j].id == p->location)
                l = &a->locations[j];
        const char *key = string_of(a, p->name);
        uint64_t device;
        if (!l)
            continue;
        if (!strcmp(key, OFFTRACE_LOCATION_ROLE_PROPERTY) && p->type == OTF2_TYPE_STRING)
            l->klass = (ot_tr_location_class)location_classes[offtrace_location_role_by_name(
                string_of(a, p->value.stringRef))];
        else if (!strcmp(key, OFFTRACE_LOCATION_DEVICE_PROPERTY) && integer_value(p->type, p->value, &device) == 0 &&
                 device < 0x10000)
            l->device = (int)device;
        else if (!strcmp(key, OFFTRACE_LOCATION_MPI_RANK_PROPERTY) && integer_value(p->type, p->value, &device) == 0 &&
                 device <= MAX_RANK)
            l->rank = (uint32_t)device;
    }
    return device_keys(a);
}

/* Devices are keyed by (rank, device number): key = rank * stride + number, so that one process's keys are
 * its device numbers and two ranks' device 0 stay two devices. */
static int device_keys(ot_tr_archive *a)
{
    int max_number = -1;
    a->rank_count = 1;
    for (size_t i = 0; i < a->location_count; i++) {
        ot_tr_location *l = &a->locations[i];
        l->device_number = l->device;
        if (l->device > max_number)
            max_number = l->device;
        if (l->rank >= a->rank_count)
            a->rank_count = l->rank + 1;
    }
    a->device_stride = max_number + 1 > 0 ? max_number + 1 : 1;
    for (size_t i = 0; i < a->location_count; i++) {
        ot_tr_location *l = &a->locations[i];
        if (l->device < 0)
            continue;
        uint64_t key = (uint64_t)l->rank * (uint64_t)a->device_stride + (uint64_t)l->device;
        if (key > MAX_DEVICE_KEY) {
            snprintf(a->bad_reference, sizeof a->bad_reference,
                     "its ranks times devices per rank (%u x %d) are more devices than offtrace reads",
                     a->rank_count, a->device_stride);
            return -EINVAL;
        }
        l->device = (int)key;
    }
    return 0;
}

static int resolve_names(ot_tr_archive *a)
{
    uint8_t *cls = region_classes(a);
    if (!cls)
        return -ENOMEM;
    for (size_t i = 0; i < a->region_count; i++) {
        ot_tr_region *r = &a->regions[i];
        r->name = string_of(a, (OTF2_StringRef)(uintptr_t)r->name);
        r->file = string_of(a, (OTF2_StringRef)(uintptr_t)r->file);
        if (a->region_defined[i])
            classify_region(r, (offtrace_event_class)cls[i]);
    }
    free(cls);
    for (size_t i = 0; i < a->location_count; i++) {
        ot_tr_location *l = &a->locations[i];
        l->name = string_of(a, (OTF2_StringRef)(uintptr_t)l->name);
        size_t group = (size_t)(uintptr_t)l->group;
        /* grow() zero-fills, so an undefined group in range reads as string 0 */
        l->group = group < a->group_count ? string_of(a, a->group_names[group]) : "";
    }
    return classify_locations(a);
}

/* ---- events ---- */

static const ot_tr_location *location_of(ot_tr_archive *a, OTF2_LocationRef id)
{
    /* Locations are few; offtrace's ids are sparse, so search. A cache of
     * the last hit makes runs of one location cheap. */
    size_t last = a->last_location;
    if (last < a->location_count && a->locations[last].id == id)
        return &a->locations[last];
    for (size_t i = 0; i < a->location_count; i++)
        if (a->locations[i].id == id) {
            a->last_location = i;
            return &a->locations[i];
        }
    return NULL;
}

static OTF2_CallbackCode bad_reference(ot_tr_archive *a, const char *what, uint64_t ref)
{
    snprintf(a->bad_reference, sizeof a->bad_reference, "an event refers to an undefined %s (%llu)", what,
             (unsigned long long)ref);
    a->stop = -EINVAL;
    return OTF2_CALLBACK_INTERRUPT;
}

/* Events between two updates of the progress line: a store per 65536
 * events, nothing else per event. */
#define PROGRESS_STEP 65536

static OTF2_CallbackCode deliver(ot_tr_archive *a, int rc)
{
    if ((++a->handled_events & (PROGRESS_STEP - 1)) == 0)
        ot_progress_set(a->progress, a->handled_events);
    if (rc) {
        a->stop = rc;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Events the definitions announce: the progress line's 100 %, and what a complete read has. */
static uint64_t announced_events(const ot_tr_archive *a)
{
    uint64_t n = 0;
    for (size_t i = 0; i < a->location_count; i++)
        n += a->locations[i].events;
    return n;
}

/* ---- paired delivery ---- */

#define SCRATCH_ALIGN 16
#define SPAN_HEAD ((sizeof(ot_tr_span) + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN)
#define TRANSFER_HEAD ((sizeof(ot_tr_transfer) + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN)

static ot_tr_span *span_at(const ot_tr_archive *a, const lane *l, uint32_t depth)
{
    return (ot_tr_span *)(l->spans + (size_t)depth * a->span_stride);
}

static ot_tr_transfer *transfer_at(const ot_tr_archive *a, const lane *l, uint32_t i)
{
    return (ot_tr_transfer *)(l->transfers + (size_t)i * a->transfer_stride);
}

/* Room for one more record; the scratch pointers follow the records when they move. */
static int make_room(unsigned char **records, uint32_t *room, uint32_t used, size_t stride, size_t head,
                     size_t data_size, size_t data_offset)
{
    if (used < *room)
        return 0;
    uint32_t n = *room ? 2 * *room : 8;
    unsigned char *p = realloc(*records, (size_t)n * stride);
    if (!p)
        return -ENOMEM;
    *records = p;
    *room = n;
    if (data_size)
        for (uint32_t i = 0; i < used; i++)
            *(void **)(p + (size_t)i * stride + data_offset) = p + (size_t)i * stride + head;
    return 0;
}

static void note_time(ot_tr_archive *a, uint64_t t)
{
    if (t > a->last_time)
        a->last_time = t;
}

static OTF2_CallbackCode out_of_memory(ot_tr_archive *a)
{
    a->stop = -ENOMEM;
    return OTF2_CALLBACK_INTERRUPT;
}

/* A put/get counts for the innermost open instance of its location. */
static void attach(ot_tr_span *s, const ot_tr_transfer *x)
{
    s->transfers++;
    s->bytes += x->bytes;
    s->last = *x;
    s->last.data = NULL;
}

/* The span attributes an Enter carries (only an archive that defines them looks). */
static void read_span_attributes(const ot_tr_archive *a, OTF2_AttributeList *al, ot_tr_span *s)
{
    s->attrs = 0;
    if (!al || !a->span_attrs || OTF2_AttributeList_GetNumberOfElements(al) == 0)
        return;
    /* one pass over the list (each GetUint64 would scan it again) */
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(al);
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue value;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &type, &value) != OTF2_SUCCESS)
            continue;
        for (int k = 0; k < OT_TR_ATTRS; k++) {
            if (a->span_attr[k] != ref)
                continue;
            if (type == span_attribute_type(k)) {
                if (type == OTF2_TYPE_UINT32)
                    s->attr[k] = value.uint32;
                else if (type == OTF2_TYPE_INT64)
                    s->attr[k] = (uint64_t)value.int64;
                else if (type == OTF2_TYPE_DOUBLE)
                    memcpy(&s->attr[k], &value.float64, sizeof s->attr[k]);
                else
                    s->attr[k] = value.uint64;
                s->attrs |= 1u << k;
            }
            break;
        }
    }
}

/* The string refs of the map attributes an Enter leaves out where they repeat (map_repeats.h). */
struct map_refs {
    OTF2_StringRef variable, map_type, site;
};

/* The map attributes of a data op's Enter or its put/get (only an archive that defines them looks), and the refs
 * of the repeatable ones in \p refs (NULL: not wanted). */
static void read_map(const ot_tr_archive *a, OTF2_AttributeList *al, ot_tr_map *m, struct map_refs *refs)
{
    *m = (ot_tr_map){.implicit = -1};
    if (refs)
        *refs = (struct map_refs){OTF2_UNDEFINED_STRING, OTF2_UNDEFINED_STRING, OTF2_UNDEFINED_STRING};
    if (!al || !a->map_attrs)
        return;
    uint32_t n = OTF2_AttributeList_GetNumberOfElements(al);
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue value;
        if (OTF2_AttributeList_GetAttributeByIndex(al, i, &ref, &type, &value) != OTF2_SUCCESS ||
            ref < OFFTRACE_MAP_ATTRIBUTE_FIRST || ref >= OFFTRACE_MAP_ATTRIBUTE_FIRST + OFFTRACE_MAP_ATTRIBUTE_COUNT)
            continue;
        uint32_t offset = ref - OFFTRACE_MAP_ATTRIBUTE_FIRST;
        if (a->map_attr[offset] != ref)
            continue;
        if (ref == OFFTRACE_MAP_ATTR_IMPLICIT) {
            if (type == OTF2_TYPE_UINT8)
                m->implicit = value.uint8 != 0;
            continue;
        }
        if (type != OTF2_TYPE_STRING || value.stringRef >= a->string_count)
            continue;
        const char *text = string_of(a, value.stringRef);
        switch (ref) {
        case OFFTRACE_MAP_ATTR_VARIABLE:
            m->variable = text;
            if (refs)
                refs->variable = value.stringRef;
            break;
        case OFFTRACE_MAP_ATTR_MAP_TYPE:
            m->map_type = text;
            if (refs)
                refs->map_type = value.stringRef;
            break;
        case OFFTRACE_MAP_ATTR_MEMBER_OF: m->member_of = text; break;
        case OFFTRACE_MAP_ATTR_MAP_SITE:
            m->site = text;
            if (refs)
                refs->site = value.stringRef;
            break;
        case OFFTRACE_MAP_ATTR_MAP_ENTRY: m->entry = text; break;
        case OFFTRACE_MAP_ATTR_NAME_PROBLEM: m->name_problem = text; break;
        default: break;
        }
    }
}

/* A named data op's Enter leaves implicit and map entry out at their usual values (issue 18, fourth round;
 * event_catalogue.h), and its variable, map type and site where all three are those of the previous Enter of
 * its region on its location (tenth round, map_repeats.h): a reader is given them as if carried. Archives
 * written before carry them always. */
static void read_data_op_map(const ot_tr_archive *a, OTF2_AttributeList *al, ot_tr_map *m, lane *l,
                             OTF2_RegionRef region)
{
    struct map_refs refs;
    read_map(a, al, m, &refs);
    if (!a->map_attrs)
        return;
    if (m->variable || m->map_type || m->site) {
        ot_map_repeats_keep(ot_map_repeats_slot(&l->map_repeats, region), refs.variable, refs.map_type, refs.site);
    } else {
        const ot_map_repeat *previous = ot_map_repeats_find(&l->map_repeats, region);
        if (previous && previous->known) {
            m->variable = previous->variable != OTF2_UNDEFINED_STRING ? string_of(a, previous->variable) : NULL;
            m->map_type = previous->map_type != OTF2_UNDEFINED_STRING ? string_of(a, previous->map_type) : NULL;
            m->site = previous->site != OTF2_UNDEFINED_STRING ? string_of(a, previous->site) : NULL;
        }
    }
    if (!m->variable)
        return;
    if (m->implicit < 0)
        m->implicit = OFFTRACE_MAP_IMPLICIT_USUAL;
    if (!m->entry)
        m->entry = OFFTRACE_MAP_ENTRY_USUAL;
}

/* A put/get carries its variable alone (issue 18, third round), the rest of its map being on the Enter of
 * the data op it is issued in, on the same location at the same time: what it does not carry is taken from
 * there, when that op is of the same variable. An archive written before carries them all on the put/get
 * too; taking the absent ones (member of, name problem) from the Enter changes nothing there, as both
 * were written from the same map. */
static void map_from_data_op(ot_tr_map *m, const ot_tr_map *op)
{
    if (!op->variable || (m->variable && m->variable != op->variable && strcmp(m->variable, op->variable)))
        return;
    m->variable = op->variable;
    if (!m->map_type)
        m->map_type = op->map_type;
    if (!m->member_of)
        m->member_of = op->member_of;
    if (!m->site)
        m->site = op->site;
    if (!m->entry)
        m->entry = op->entry;
    if (!m->name_problem)
        m->name_problem = op->name_problem;
    if (m->implicit < 0)
        m->implicit = op->implicit;
}

/* Give \p s attributes \p ka and \p kb where it left them out, at \p usual_a and \p usual_b (the location had such
 * an Enter before), and keep what it then has as the location's \p last. */
static void supply_pair(struct usual_pair *last, ot_tr_span *s, int ka, uint64_t usual_a, int kb, uint64_t usual_b)
{
    const unsigned bit_a = 1u << ka, bit_b = 1u << kb;
    if (last->seen && !(s->attrs & bit_a)) {
        s->attr[ka] = usual_a;
        s->attrs |= bit_a;
    }
    if (last->seen && !(s->attrs & bit_b)) {
        s->attr[kb] = usual_b;
        s->attrs |= bit_b;
    }
    if ((s->attrs & bit_a) && (s->attrs & bit_b))
        *last = (struct usual_pair){s->attr[ka], s->attr[kb], 1};
}

/* The attributes an Enter leaves out where they follow from the Enters before it on its location; a reader is
 * given them as if carried, and archives written before carry them always (docs/host-openmp.md):
 * - a host chunk's (a region of class HOST_CHUNK) iterations where they are those of the previous chunk Enter
 *   on its location, its first iteration where it follows on from that chunk (issue 18, seventh round, "A
 *   chunk's iterations");
 * - a host implicit task's team size and thread number where they are those of the previous one (eighth round,
 *   "An implicit task's team size and thread number"). */
static void supply_usual(lane *l, const ot_tr_region *region, ot_tr_span *s)
{
    if (region->cls == OFFTRACE_CLASS_HOST_CHUNK)
        supply_pair(&l->chunk, s, OT_TR_ATTR_FIRST_ITERATION, l->chunk.a + l->chunk.b, OT_TR_ATTR_ITERATIONS,
                    l->chunk.b);
    else if (region->cls == OFFTRACE_CLASS_HOST_IMPLICIT_TASK)
        supply_pair(&l->team, s, OT_TR_ATTR_TEAM_SIZE, l->team.a, OT_TR_ATTR_THREAD_NUMBER, l->team.b);
}

static OTF2_CallbackCode enter(ot_tr_archive *a, const ot_tr_location *loc, lane *l, uint64_t t,
                               const ot_tr_region *region, OTF2_AttributeList *al)
{
    if (l->too_deep || l->depth == OT_TR_MAX_DEPTH) {
        ot_tr_span skipped; /* a chunk or implicit task too deep to keep still gives the next one its values */
        read_span_attributes(a, al, &skipped);
        supply_usual(l, region, &skipped);
        if (region->klass == OT_TR_DATA_OP) /* and a data op the map attributes its next Enter may leave out */
            read_data_op_map(a, al, &skipped.map, l, region->id);
        l->too_deep++;
        a->regions_too_deep++;
        return deliver(a, 0);
    }
    if (make_room(&l->spans, &l->span_room, l->depth, a->span_stride, SPAN_HEAD, a->visitor.span_data,
                  offsetof(ot_tr_span, data)))
        return out_of_memory(a);
    ot_tr_span *s = span_at(a, l, l->depth);
    /* Field by field: `last` is read only when `transfers` says so. */
    s->region = region;
    s->begin = t;
    s->end = 0;
    s->depth = l->depth++;
    s->unfinished = 0;
    s->serial = ++a->next_serial;
    s->transfers = s->bytes = 0;
    read_span_attributes(a, al, s);
    supply_usual(l, region, s);
    if (region->klass == OT_TR_DATA_OP)
        read_data_op_map(a, al, &s->map, l, region->id);
    else
        s->map = (ot_tr_map){.implicit = -1};
    s->data = a->visitor.span_data ? (unsigned char *)s + SPAN_HEAD : NULL;
    /* The put/get this transfer region shows came first (same time, another location). */
    if (l->waiting && region->klass == OT_TR_TRANSFER && l->waiting_transfer.issued == t) {
        attach(s, &l->waiting_transfer);
        l->waiting = 0;
    }
    return deliver(a, a->visitor.enter ? a->visitor.enter(a->user, loc, s) : 0);
}

static OTF2_CallbackCode leave(ot_tr_archive *a, const ot_tr_location *loc, lane *l, uint64_t t,
                               const ot_tr_region *region)
{
    if (l->too_deep) { /* the Leave of an Enter that was too deep */
        l->too_deep--;
        return deliver(a, 0);
    }
    ot_tr_span *s = l->depth ? span_at(a, l, l->depth - 1) : NULL;
    if (!s || s->region != region) {
        if (s)
            snprintf(a->bad_reference, sizeof a->bad_reference,
                     "on location %llu at time %llu, a Leave of region %u does not end the innermost open "
                     "region (%u)", (unsigned long long)loc->id, (unsigned long long)t, region->id, s->region->id);
        else
            snprintf(a->bad_reference, sizeof a->bad_reference,
                     "on location %llu at time %llu, a Leave of region %u ends no open region",
                     (unsigned long long)loc->id, (unsigned long long)t, region->id);
        a->stop = -EINVAL;
        return OTF2_CALLBACK_INTERRUPT;
    }
    s->end = t;
    if (region->paradigm == OTF2_PARADIGM_MPI) {
        l->ended[l->ended_next % ENDED_CALLS].serial = s->serial;
        l->ended[l->ended_next++ % ENDED_CALLS].end = t;
    }
    int rc = a->visitor.leave ? a->visitor.leave(a->user, loc, s) : 0;
    l->depth--;
    return deliver(a, rc);
}

static OTF2_CallbackCode region_event(ot_tr_archive *a, OTF2_LocationRef l, OTF2_TimeStamp t, OTF2_RegionRef r,
                                      int is_enter, OTF2_AttributeList *al)
{
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    if (r >= a->region_count || !a->region_defined[r])
        return bad_reference(a, "region", r);
    note_time(a, t);
    lane *ln = &a->lanes[loc->index];
    return is_enter ? enter(a, loc, ln, t, &a->regions[r], al) : leave(a, loc, ln, t, &a->regions[r]);
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                  OTF2_RegionRef r)
{
    return region_event(u, l, t, r, 1, al);
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                  OTF2_RegionRef r)
{
    return region_event(u, l, t, r, 0, NULL);
}

static void read_addresses(const ot_tr_archive *a, OTF2_AttributeList *al, ot_tr_transfer *x)
{
    if (!al || a->host_address_attr == NO_ATTRIBUTE || a->device_address_attr == NO_ATTRIBUTE)
        return;
    x->has_addresses = OTF2_AttributeList_GetUint64(al, a->host_address_attr, &x->host_address) == OTF2_SUCCESS &&
                       OTF2_AttributeList_GetUint64(al, a->device_address_attr, &x->device_address) ==
                           OTF2_SUCCESS;
}

/* Hand over the transfer in flight at \p i (completed or not) and forget it. */
static int finish_transfer(ot_tr_archive *a, const ot_tr_location *loc, lane *l, uint32_t i)
{
    ot_tr_transfer *x = transfer_at(a, l, i);
    int rc = a->visitor.transfer ? a->visitor.transfer(a->user, loc, x) : 0;
    size_t stride = a->transfer_stride;
    if (i + 1 < l->in_flight) {
        memmove(x, (unsigned char *)x + stride, (size_t)(l->in_flight - i - 1) * stride);
        if (a->visitor.transfer_data)
            for (uint32_t k = i; k + 1 < l->in_flight; k++)
                transfer_at(a, l, k)->data = (unsigned char *)transfer_at(a, l, k) + TRANSFER_HEAD;
    }
    l->in_flight--;
    return rc;
}

/* The transfer region on the device's RDMA location shows this put/get: it
 * began at the same time, before it or (waiting) right after. */
static void join_rdma(ot_tr_archive *a, const lane *issuer, const ot_tr_transfer *x)
{
    if (x->device < 0 || (size_t)x->device >= a->rdma_devices || a->rdma_lane[x->device] < 0)
        return;
    lane *r = &a->lanes[a->rdma_lane[x->device]];
    if (r == issuer)
        return;
    ot_tr_span *top = r->depth ? span_at(a, r, r->depth - 1) : NULL;
    if (top && top->begin == x->issued && top->region->klass == OT_TR_TRANSFER && !top->transfers)
        attach(top, x);
    else {
        r->waiting = 1;
        r->waiting_transfer = *x;
    }
}

/* The location a put/get's remote rank names: through its window's table, else (an archive without windows)
 * through the first COMM_LOCATIONS group; -1 when neither knows it. */
static int32_t remote_target(const ot_tr_archive *a, OTF2_RmaWinRef win, uint32_t remote)
{
    if (win < a->window_targets && a->window_target[win])
        return remote < a->window_size[win] ? a->window_target[win][remote] : -1;
    return remote < a->fallback_size ? a->fallback_target[remote] : -1;
}

static OTF2_CallbackCode rma(ot_tr_archive *a, OTF2_LocationRef l, OTF2_TimeStamp t, OTF2_AttributeList *al,
                             OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id, int to_device)
{
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    note_time(a, t);
    lane *ln = &a->lanes[loc->index];
    int rc = 0;
    if (ln->in_flight == OT_TR_MAX_PENDING && (rc = finish_transfer(a, loc, ln, 0)) != 0)
        return deliver(a, rc);
    if (make_room(&ln->transfers, &ln->transfer_room, ln->in_flight, a->transfer_stride, TRANSFER_HEAD,
                  a->visitor.transfer_data, offsetof(ot_tr_transfer, data)))
        return out_of_memory(a);
    ot_tr_transfer *x = transfer_at(a, ln, ln->in_flight++);
    *x = (ot_tr_transfer){.to_device = to_device, .device = -1, .bytes = bytes, .id = id, .issued = t};
    int32_t target = remote_target(a, win, remote);
    if (target >= 0)
        x->device = a->locations[target].device;
    if (!a->visitor.without_addresses)
        read_addresses(a, al, x);
    read_map(a, al, &x->map, NULL);
    if (ln->depth && !ln->too_deep) {
        ot_tr_span *op = span_at(a, ln, ln->depth - 1);
        attach(op, x);
        if (op->region->klass == OT_TR_DATA_OP)
            map_from_data_op(&x->map, &op->map);
    }
    if (!a->visitor.unordered) /* the RDMA location is read at another time */
        join_rdma(a, ln, x);
    x->data = a->visitor.transfer_data ? (unsigned char *)x + TRANSFER_HEAD : NULL;
    return deliver(a, a->visitor.issue ? a->visitor.issue(a->user, loc, x) : 0);
}

static OTF2_CallbackCode ev_put(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    return rma(u, l, t, al, win, remote, bytes, id, 1);
}

static OTF2_CallbackCode ev_get(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    return rma(u, l, t, al, win, remote, bytes, id, 0);
}

/* The completion ends the latest put/get with its id on its location. */
static OTF2_CallbackCode ev_complete(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                     OTF2_RmaWinRef win, uint64_t id)
{
    ot_tr_archive *a = u;
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    note_time(a, t);
    lane *ln = &a->lanes[loc->index];
    for (uint32_t i = ln->in_flight; i-- > 0;)
        if (transfer_at(a, ln, i)->id == id) {
            transfer_at(a, ln, i)->completed = t;
            return deliver(a, finish_transfer(a, loc, ln, i));
        }
    a->unmatched_completions++;
    return deliver(a, 0);
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                   OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    ot_tr_archive *a = u;
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    note_time(a, t);
    OTF2_MetricMemberRef m = metric < a->metric_count ? a->metric_member[metric] : 0;
    if (m && m - 1 < a->member_count && a->members[m - 1].user) {
        ot_tr_metric which = {.id = metric, .name = string_of(a, a->members[m - 1].name),
                              .type = a->members[m - 1].type};
        return deliver(a, n && a->visitor.value ? a->visitor.value(a->user, loc, t, &which, values[0]) : 0);
    }
    uint64_t bytes = n && types[0] == OTF2_TYPE_UINT64 ? values[0].unsigned_int : 0;
    return deliver(a, a->visitor.memory ? a->visitor.memory(a->user, loc, t, bytes) : 0);
}

/* ---- MPI (issue 16): messages paired, collectives per rank ---- */

/* The world rank of rank \p r of communicator \p comm, for an event of rank \p own. */
static uint32_t world_rank(const ot_tr_archive *a, OTF2_CommRef comm, uint32_t r, uint32_t own)
{
    const mpi_comm *c = comm < a->mpi_comm_count && a->mpi_comms[comm].defined ? &a->mpi_comms[comm] : NULL;
    if (!c || !c->world)
        return c && c->self ? own : r;
    return r < c->size ? c->world[r] : r;
}

/* The innermost open MPI call on \p l, or NULL. */
static const ot_tr_span *mpi_call_of(const ot_tr_archive *a, const lane *l)
{
    for (uint32_t d = l->depth; d-- > 0;) {
        const ot_tr_span *s = span_at(a, l, d);
        if (s->region->paradigm == OTF2_PARADIGM_MPI)
            return s;
    }
    return NULL;
}

/* The end of MPI call \p serial of \p loc if it has ended lately, else 0 (open, or forgotten). */
static uint64_t call_end(const ot_tr_archive *a, const ot_tr_location *loc, uint64_t serial)
{
    if (!loc || !serial)
        return 0;
    const lane *l = &a->lanes[loc->index];
    for (uint32_t k = 0; k < ENDED_CALLS; k++)
        if (l->ended[k].serial == serial)
            return l->ended[k].end;
    return 0;
}

static int deliver_message(ot_tr_archive *a, ot_tr_message *m)
{
    m->send_call_end = call_end(a, m->sender, m->send_call_serial);
    m->recv_call_end = call_end(a, m->receiver, m->recv_call_serial);
    if (!m->sender || !m->receiver)
        a->unmatched_messages++;
    else if (m->recv_time < (m->send_call ? m->send_call_begin : m->send_time))
        a->clock_violations++;
    return a->visitor.message(a->user, m);
}

/* A send (\p is_send) or a receive of a message on location \p l at \p t; \p peer is the other side's rank in
 * \p comm, \p request the Irecv's (a non-blocking receive). */
static OTF2_CallbackCode mpi_side(ot_tr_archive *a, OTF2_LocationRef l, OTF2_TimeStamp t, int is_send, int blocking,
                                  uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request)
{
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    note_time(a, t);
    if (!a->mpi) /* no visitor takes messages: nothing to pair */
        return deliver(a, 0);
    const lane *ln = &a->lanes[loc->index];
    const ot_tr_span *call = mpi_call_of(a, ln);
    uint32_t other = world_rank(a, comm, peer, loc->rank);
    ot_tr_message m = {.comm = comm, .tag = tag};
    if (is_send) {
        m.sender = loc;
        m.send_rank = loc->rank;
        m.recv_rank = other;
        m.bytes = bytes;
        m.send_time = t;
        m.send_blocking = blocking;
        m.send_call = call ? call->region : NULL;
        m.send_call_begin = call ? call->begin : 0;
        m.send_call_serial = call ? call->serial : 0;
    } else {
        m.receiver = loc;
        m.recv_rank = loc->rank;
        m.send_rank = other;
        m.recv_bytes = bytes;
        m.recv_time = t;
        m.recv_blocking = blocking;
        m.recv_call = call ? call->region : NULL;
        m.recv_call_begin = call ? call->begin : 0;
        m.recv_call_serial = call ? call->serial : 0;
        m.recv_posted = blocking ? m.recv_call_begin : ot_trm_take_post(a->mpi, loc->rank, request);
    }
    ot_tr_message oldest;
    int rc = ot_trm_full(a->mpi) && ot_trm_oldest(a->mpi, &oldest) ? deliver_message(a, &oldest) : 0;
    if (rc)
        return deliver(a, rc);
    int matched = ot_trm_arrive(a->mpi, is_send, &m);
    if (matched < 0)
        return out_of_memory(a);
    return deliver(a, matched ? deliver_message(a, &m) : 0);
}

/* MpiIrecvRequest: the posting's time, for its completion; the other request events need nothing. */
static OTF2_CallbackCode mpi_request(ot_tr_archive *a, OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t request,
                                     int posted, int cancelled)
{
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    note_time(a, t);
    if (a->mpi && posted && ot_trm_post(a->mpi, loc->rank, request, t))
        return out_of_memory(a);
    if (a->mpi && cancelled)
        ot_trm_take_post(a->mpi, loc->rank, request);
    return deliver(a, 0);
}

static const char *collective_name(OTF2_CollectiveOp op)
{
    static const char *const names[] = {
        [OTF2_COLLECTIVE_OP_BARRIER] = "MPI_Barrier", [OTF2_COLLECTIVE_OP_BCAST] = "MPI_Bcast",
        [OTF2_COLLECTIVE_OP_GATHER] = "MPI_Gather", [OTF2_COLLECTIVE_OP_GATHERV] = "MPI_Gatherv",
        [OTF2_COLLECTIVE_OP_SCATTER] = "MPI_Scatter", [OTF2_COLLECTIVE_OP_SCATTERV] = "MPI_Scatterv",
        [OTF2_COLLECTIVE_OP_ALLGATHER] = "MPI_Allgather", [OTF2_COLLECTIVE_OP_ALLGATHERV] = "MPI_Allgatherv",
        [OTF2_COLLECTIVE_OP_ALLTOALL] = "MPI_Alltoall", [OTF2_COLLECTIVE_OP_ALLTOALLV] = "MPI_Alltoallv",
        [OTF2_COLLECTIVE_OP_ALLTOALLW] = "MPI_Alltoallw", [OTF2_COLLECTIVE_OP_ALLREDUCE] = "MPI_Allreduce",
        [OTF2_COLLECTIVE_OP_REDUCE] = "MPI_Reduce", [OTF2_COLLECTIVE_OP_REDUCE_SCATTER] = "MPI_Reduce_scatter",
        [OTF2_COLLECTIVE_OP_SCAN] = "MPI_Scan", [OTF2_COLLECTIVE_OP_EXSCAN] = "MPI_Exscan",
        [OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK] = "MPI_Reduce_scatter_block"};
    return op < sizeof names / sizeof *names && names[op] ? names[op] : "MPI collective";
}

static OTF2_CallbackCode mpi_collective_begin(ot_tr_archive *a, OTF2_LocationRef l, OTF2_TimeStamp t)
{
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    note_time(a, t);
    a->lanes[loc->index].collective_begin = t ? t : 1;
    return deliver(a, 0);
}

static OTF2_CallbackCode mpi_collective_end(ot_tr_archive *a, OTF2_LocationRef l, OTF2_TimeStamp t,
                                            OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                            uint64_t received)
{
    const ot_tr_location *loc = location_of(a, l);
    if (!loc)
        return bad_reference(a, "location", l);
    note_time(a, t);
    lane *ln = &a->lanes[loc->index];
    uint64_t begin = ln->collective_begin && ln->collective_begin <= t ? ln->collective_begin : t;
    ln->collective_begin = 0;
    if (!a->visitor.collective)
        return deliver(a, 0);
    const mpi_comm *c = comm < a->mpi_comm_count && a->mpi_comms[comm].defined ? &a->mpi_comms[comm] : NULL;
    const ot_tr_span *call = mpi_call_of(a, ln);
    ot_tr_collective x = {.op = op, .op_name = collective_name(op), .comm = comm, .root = root, .sent = sent,
                          .received = received, .begin = begin, .end = t, .size = c ? (c->self ? 1 : c->size) : 0,
                          .root_rank = root == OTF2_UNDEFINED_UINT32 ? OTF2_UNDEFINED_UINT32
                                                                     : world_rank(a, comm, root, loc->rank),
                          .call = call ? call->region : NULL, .call_begin = call ? call->begin : 0,
                          .call_serial = call ? call->serial : 0};
    return deliver(a, a->visitor.collective(a->user, loc, &x));
}

static OTF2_CallbackCode ev_mpi_send(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                     uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
    return mpi_side(u, l, t, 1, 1, receiver, comm, tag, bytes, 0);
}

static OTF2_CallbackCode ev_mpi_isend(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                      uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                                      uint64_t request)
{
    return mpi_side(u, l, t, 1, 0, receiver, comm, tag, bytes, request);
}

static OTF2_CallbackCode ev_mpi_recv(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                     uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
    return mpi_side(u, l, t, 0, 1, sender, comm, tag, bytes, 0);
}

static OTF2_CallbackCode ev_mpi_irecv(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                      uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                                      uint64_t request)
{
    return mpi_side(u, l, t, 0, 0, sender, comm, tag, bytes, request);
}

static OTF2_CallbackCode ev_mpi_irecv_request(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                              uint64_t request)
{
    return mpi_request(u, l, t, request, 1, 0);
}

static OTF2_CallbackCode ev_mpi_request_done(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                             uint64_t request)
{
    return mpi_request(u, l, t, request, 0, 0);
}

static OTF2_CallbackCode ev_mpi_cancelled(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                          uint64_t request)
{
    return mpi_request(u, l, t, request, 0, 1);
}

static OTF2_CallbackCode ev_mpi_collective_begin(OTF2_LocationRef l, OTF2_TimeStamp t, void *u,
                                                 OTF2_AttributeList *al)
{
    return mpi_collective_begin(u, l, t);
}

static OTF2_CallbackCode ev_mpi_collective_end(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *al,
                                               OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                               uint64_t received)
{
    return mpi_collective_end(u, l, t, op, comm, root, sent, received);
}

/* The same through the local (per-location) reader: its callbacks carry the event's position. */
static OTF2_CallbackCode local_mpi_send(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                        uint64_t bytes)
{
    return mpi_side(u, l, t, 1, 1, receiver, comm, tag, bytes, 0);
}

static OTF2_CallbackCode local_mpi_isend(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                         OTF2_AttributeList *al, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                         uint64_t bytes, uint64_t request)
{
    return mpi_side(u, l, t, 1, 0, receiver, comm, tag, bytes, request);
}

static OTF2_CallbackCode local_mpi_recv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                        uint64_t bytes)
{
    return mpi_side(u, l, t, 0, 1, sender, comm, tag, bytes, 0);
}

static OTF2_CallbackCode local_mpi_irecv(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                         OTF2_AttributeList *al, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                         uint64_t bytes, uint64_t request)
{
    return mpi_side(u, l, t, 0, 0, sender, comm, tag, bytes, request);
}

static OTF2_CallbackCode local_mpi_irecv_request(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                                 OTF2_AttributeList *al, uint64_t request)
{
    return mpi_request(u, l, t, request, 1, 0);
}

static OTF2_CallbackCode local_mpi_request_done(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                                OTF2_AttributeList *al, uint64_t request)
{
    return mpi_request(u, l, t, request, 0, 0);
}

static OTF2_CallbackCode local_mpi_cancelled(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                             OTF2_AttributeList *al, uint64_t request)
{
    return mpi_request(u, l, t, request, 0, 1);
}

static OTF2_CallbackCode local_mpi_collective_begin(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                                    OTF2_AttributeList *al)
{
    return mpi_collective_begin(u, l, t);
}

static OTF2_CallbackCode local_mpi_collective_end(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                                  OTF2_AttributeList *al, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                                  uint32_t root, uint64_t sent, uint64_t received)
{
    return mpi_collective_end(u, l, t, op, comm, root, sent, received);
}

static int check_read(ot_tr_archive *a, OTF2_ErrorCode otf2_rc, uint64_t read);

static int open_event_readers(ot_tr_archive *a)
{
    for (size_t i = 0; i < a->location_count; i++)
        OTF2_Reader_SelectLocation(a->reader, a->locations[i].id);
    if (OTF2_Reader_OpenDefFiles(a->reader) != OTF2_SUCCESS || OTF2_Reader_OpenEvtFiles(a->reader) != OTF2_SUCCESS)
        return -EINVAL;
    for (size_t i = 0; i < a->location_count; i++) {
        OTF2_DefReader *d = OTF2_Reader_GetDefReader(a->reader, a->locations[i].id);
        if (d) {
            uint64_t n;
            OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(a->reader, d, &n);
            OTF2_Reader_CloseDefReader(a->reader, d);
            if (rc != OTF2_SUCCESS)
                return -EINVAL;
        }
        if (!OTF2_Reader_GetEvtReader(a->reader, a->locations[i].id))
            return -EINVAL;
    }
    OTF2_Reader_CloseDefFiles(a->reader);
    return 0;
}

/* ---- per-location reading (ot_tr_visitor.unordered): OTF2's local callbacks carry the event's position ---- */

static OTF2_CallbackCode local_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *al, OTF2_RegionRef r)
{
    return region_event(u, l, t, r, 1, al);
}

static OTF2_CallbackCode local_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *al, OTF2_RegionRef r)
{
    return region_event(u, l, t, r, 0, NULL);
}

static OTF2_CallbackCode local_put(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *al,
                                   OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    return rma(u, l, t, al, win, remote, bytes, id, 1);
}

static OTF2_CallbackCode local_get(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *al,
                                   OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    return rma(u, l, t, al, win, remote, bytes, id, 0);
}

static OTF2_CallbackCode local_complete(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *al, OTF2_RmaWinRef win, uint64_t id)
{
    return ev_complete(l, t, u, al, win, id);
}

static OTF2_CallbackCode local_metric(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                      OTF2_AttributeList *al, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                      const OTF2_MetricValue *values)
{
    return ev_metric(l, t, u, al, metric, n, types, values);
}

/* Each location's events in order, one location after the other: no merge. */
static OTF2_ErrorCode read_locations_one_by_one(ot_tr_archive *a, uint64_t *read)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, local_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, local_leave);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, local_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, local_get);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, local_complete);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, local_metric);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, local_mpi_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, local_mpi_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, local_mpi_request_done);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, local_mpi_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, local_mpi_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, local_mpi_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, local_mpi_request_done);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, local_mpi_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, local_mpi_collective_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, local_mpi_collective_end);
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (size_t i = 0; rc == OTF2_SUCCESS && !a->stop && i < a->location_count; i++) {
        OTF2_EvtReader *r = OTF2_Reader_GetEvtReader(a->reader, a->locations[i].id);
        uint64_t n = 0;
        rc = r ? OTF2_Reader_RegisterEvtCallbacks(a->reader, r, cb, a) : OTF2_ERROR_INVALID_ARGUMENT;
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Reader_ReadAllLocalEvents(a->reader, r, &n);
        *read += n;
        if (r)
            OTF2_Reader_CloseEvtReader(a->reader, r);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(a->reader);
    return rc;
}

static int read_events(ot_tr_archive *a)
{
    int rc = a->location_count ? open_event_readers(a) : 0;
    if (rc || !a->location_count)
        return rc;
    if (a->visitor.unordered) {
        uint64_t read = 0;
        return check_read(a, read_locations_one_by_one(a, &read), read);
    }
    OTF2_GlobalEvtReader *g = OTF2_Reader_GetGlobalEvtReader(a->reader);
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    if (!g || !cb) {
        OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        return -EINVAL;
    }
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(cb, ev_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(cb, ev_get);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, ev_complete);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, ev_metric);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_mpi_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_mpi_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_mpi_request_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_mpi_irecv_request);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_mpi_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_mpi_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback(cb, ev_mpi_request_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_mpi_cancelled);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_mpi_collective_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_mpi_collective_end);
    OTF2_Reader_RegisterGlobalEvtCallbacks(a->reader, g, cb, a);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    uint64_t read = 0;
    OTF2_ErrorCode otf2_rc = OTF2_Reader_ReadAllGlobalEvents(a->reader, g, &read);
    OTF2_Reader_CloseGlobalEvtReader(a->reader, g);
    OTF2_Reader_CloseEvtFiles(a->reader);
    return check_read(a, otf2_rc, read);
}

/* How the read ended: a visitor's stop, OTF2's error, or fewer events than announced. */
static int check_read(ot_tr_archive *a, OTF2_ErrorCode otf2_rc, uint64_t read)
{
    if (a->stop)
        return a->stop;
    a->unknown_events = read > a->handled_events ? read - a->handled_events : 0;
    if (otf2_rc != OTF2_SUCCESS)
        return -EINVAL;
    /* OTF2 ends a location quietly where its event file is cut short: the
     * definitions say how many events there should have been. */
    uint64_t announced = announced_events(a);
    if (read < announced) {
        snprintf(a->bad_reference, sizeof a->bad_reference, "only %llu of its %llu events could be read",
                 (unsigned long long)read, (unsigned long long)announced);
        return -EINVAL;
    }
    return 0;
}

/* What the archive left open: per location, its transfers in flight (oldest
 * first, never completed), then its open regions (innermost first, ended at
 * the last event). */
static int deliver_leftovers(ot_tr_archive *a)
{
    int rc = 0;
    ot_tr_message m;
    while (rc == 0 && a->mpi && ot_trm_oldest(a->mpi, &m))
        rc = deliver_message(a, &m);
    for (size_t i = 0; rc == 0 && i < a->location_count; i++) {
        const ot_tr_location *loc = &a->locations[i];
        lane *l = &a->lanes[i];
        while (rc == 0 && l->in_flight)
            rc = finish_transfer(a, loc, l, 0);
        while (rc == 0 && l->depth) {
            ot_tr_span *s = span_at(a, l, l->depth - 1);
            s->end = a->last_time;
            s->unfinished = 1;
            rc = a->visitor.leave ? a->visitor.leave(a->user, loc, s) : 0;
            l->depth--;
        }
    }
    return rc;
}

/* \p n location ids as location indexes (-1: not defined), malloc'd. */
static int32_t *target_indexes(ot_tr_archive *a, const uint64_t *ids, uint32_t n)
{
    int32_t *t = malloc((n ? n : 1) * sizeof *t);
    for (uint32_t i = 0; t && i < n; i++) {
        const ot_tr_location *l = location_of(a, ids[i]);
        t[i] = l ? (int32_t)l->index : -1;
    }
    return t;
}

static const comm_group *comm_group_of(const ot_tr_archive *a, OTF2_GroupRef ref)
{
    for (size_t i = 0; i < a->comm_group_count; i++)
        if (a->comm_groups[i].self == ref)
            return &a->comm_groups[i];
    return NULL;
}

static const comm_group *comm_locations_of(const ot_tr_archive *a, OTF2_Paradigm paradigm)
{
    for (size_t i = 0; i < a->comm_group_count; i++)
        if (a->comm_groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && a->comm_groups[i].paradigm == paradigm)
            return &a->comm_groups[i];
    return NULL;
}

/* What a put/get's remote rank names, per window: OTF2 defines it as a rank of the window's communicator,
 * whose group's members index the COMM_LOCATIONS group of its paradigm. In a job's archive every rank has
 * its own window, so each rank's transfers land on its own device's RDMA location. */
static int resolve_windows(ot_tr_archive *a)
{
    for (size_t i = 0; i < a->comm_group_count; i++)
        if (a->comm_groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            a->fallback_target = target_indexes(a, a->comm_groups[i].members, a->comm_groups[i].count);
            if (!a->fallback_target)
                return -ENOMEM;
            a->fallback_size = a->comm_groups[i].count;
            break;
        }
    for (size_t w = 0; w < a->window_count; w++)
        if (a->windows[w].self < MAX_DEFINITION_REF && a->windows[w].self >= a->window_targets)
            a->window_targets = a->windows[w].self + 1;
    a->window_target = calloc(a->window_targets ? a->window_targets : 1, sizeof *a->window_target);
    a->window_size = calloc(a->window_targets ? a->window_targets : 1, sizeof *a->window_size);
    if (!a->window_target || !a->window_size)
        return -ENOMEM;
    for (size_t w = 0; w < a->window_count; w++) {
        const ref_pair *win = &a->windows[w];
        const comm_group *g = NULL, *locations = NULL;
        for (size_t c = 0; c < a->comm_count && !g; c++)
            if (a->comms[c].self == win->names)
                g = comm_group_of(a, a->comms[c].names);
        if (g && g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
            locations = g;
        else if (g)
            locations = comm_locations_of(a, g->paradigm);
        if (!locations || win->self >= a->window_targets || a->window_target[win->self])
            continue;
        int32_t *t = malloc((g->count ? g->count : 1) * sizeof *t);
        if (!t)
            return -ENOMEM;
        for (uint32_t r = 0; r < g->count; r++) {
            uint64_t id = g == locations ? g->members[r]
                          : g->members[r] < locations->count ? locations->members[g->members[r]] : UINT64_MAX;
            const ot_tr_location *l = id == UINT64_MAX ? NULL : location_of(a, id);
            t[r] = l ? (int32_t)l->index : -1;
        }
        a->window_target[win->self] = t;
        a->window_size[win->self] = g->count;
    }
    return 0;
}

/* The world rank of each rank of each communicator: a COMM_GROUP's members index the COMM_LOCATIONS group of its
 * paradigm ("MPI ranks": member i is rank i's master thread), a COMM_LOCATIONS group's are locations. */
static int map_communicators(ot_tr_archive *a)
{
    for (size_t c = 0; c < a->comm_count; c++)
        if (a->comms[c].self < MAX_DEFINITION_REF && a->comms[c].self >= a->mpi_comm_count)
            a->mpi_comm_count = a->comms[c].self + 1;
    a->mpi_comms = calloc(a->mpi_comm_count ? a->mpi_comm_count : 1, sizeof *a->mpi_comms);
    if (!a->mpi_comms)
        return -ENOMEM;
    for (size_t c = 0; c < a->comm_count; c++) {
        if (a->comms[c].self >= a->mpi_comm_count || a->mpi_comms[a->comms[c].self].defined)
            continue;
        mpi_comm *m = &a->mpi_comms[a->comms[c].self];
        m->defined = 1;
        m->name = string_of(a, a->comm_names[c]);
        const comm_group *g = comm_group_of(a, a->comms[c].names);
        if (!g)
            continue;
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF) {
            m->self = 1;
            continue;
        }
        const comm_group *locations = g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS ? g : comm_locations_of(a, g->paradigm);
        m->size = g->count;
        m->world = malloc((g->count ? g->count : 1) * sizeof *m->world);
        if (!m->world)
            return -ENOMEM;
        for (uint32_t r = 0; r < g->count; r++) {
            uint64_t index = g == locations ? r : g->members[r];
            const ot_tr_location *l =
                locations && index < locations->count ? location_of(a, locations->members[index]) : NULL;
            m->world[r] = l ? l->rank : (uint32_t)index;
        }
    }
    return 0;
}

/* The read's per-location state, and which location is each device's RDMA row. */
static int prepare_delivery(ot_tr_archive *a)
{
    a->span_stride = SPAN_HEAD + (a->visitor.span_data + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
    a->transfer_stride =
        TRANSFER_HEAD + (a->visitor.transfer_data + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN;
    a->last_time = a->first_time;
    a->lanes = calloc(a->location_count ? a->location_count : 1, sizeof *a->lanes);
    int max_device = ot_tr_max_device(a);
    a->rdma_devices = (size_t)(max_device + 1);
    a->rdma_lane = malloc((a->rdma_devices ? a->rdma_devices : 1) * sizeof *a->rdma_lane);
    if (!a->lanes || !a->rdma_lane)
        return -ENOMEM;
    for (size_t d = 0; d < a->rdma_devices; d++)
        a->rdma_lane[d] = -1;
    for (size_t i = 0; i < a->location_count; i++) {
        const ot_tr_location *l = &a->locations[i];
        if (l->klass == OT_TR_RDMA && l->device >= 0 && a->rdma_lane[l->device] < 0)
            a->rdma_lane[l->device] = (int32_t)i;
    }
    if (a->visitor.message && !(a->mpi = ot_trm_new(OT_TR_MAX_MESSAGES)))
        return -ENOMEM;
    int rc = map_communicators(a);
    return rc ? rc : resolve_windows(a);
}

/* ---- the read ---- */

static void archive_free(ot_tr_archive *a)
{
    for (size_t i = 0; a->lanes && i < a->location_count; i++) {
        free(a->lanes[i].spans);
        free(a->lanes[i].transfers);
        ot_map_repeats_free(&a->lanes[i].map_repeats);
    }
    free(a->lanes);
    free(a->rdma_lane);
    ot_trm_free(a->mpi);
    for (size_t i = 0; a->mpi_comms && i < a->mpi_comm_count; i++)
        free(a->mpi_comms[i].world);
    free(a->mpi_comms);
    for (size_t i = 0; a->window_target && i < a->window_targets; i++)
        free(a->window_target[i]);
    free(a->window_target);
    free(a->window_size);
    free(a->fallback_target);
    for (size_t i = 0; i < a->comm_group_count; i++)
        free(a->comm_groups[i].members);
    free(a->comm_groups);
    free(a->comms);
    free(a->comm_names);
    free(a->windows);
    for (size_t i = 0; i < a->string_count; i++)
        free(a->strings[i]);
    for (size_t i = 0; i < a->property_count; i++)
        free(a->properties[i]);
    free(a->strings);
    free(a->properties);
    free(a->regions);
    free(a->region_defined);
    free(a->locations);
    for (size_t i = 0; i < a->region_group_count; i++)
        free(a->region_groups[i].members);
    free(a->region_groups);
    free(a->location_properties);
    free(a->group_names);
    free(a->creator);
    free(a->members);
    free(a->metric_member);
    if (a->reader)
        OTF2_Reader_Close(a->reader);
    free(a);
}

/* Whether the archive says what its regions and locations are in the way
 * this reader understands (event_catalogue.h). */
static int has_this_catalogue(const ot_tr_archive *a)
{
    const char *version = ot_tr_property(a, OFFTRACE_CATALOGUE_PROPERTY);
    char expected[16];
    snprintf(expected, sizeof expected, "%u", OFFTRACE_CATALOGUE_VERSION);
    return version && !strcmp(version, expected);
}

/* A directory holds traces.otf2 (even one named "x.otf2"); any other path ending ".otf2" is the anchor. */
static void anchor_path(const char *dir, char *anchor, size_t size)
{
    size_t n = strlen(dir);
    struct stat st;
    if (n > 5 && !strcmp(dir + n - 5, ".otf2") && !(stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
        snprintf(anchor, size, "%s", dir);
    else
        snprintf(anchor, size, "%s/traces.otf2", dir);
}

static int fail(char *err, size_t err_size, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
    return rc;
}

int ot_trace_read(const char *dir, const ot_tr_visitor *v, void *user, char *err, size_t err_size)
{
    struct timespec begin;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    char anchor[4200];
    struct stat st;
    anchor_path(dir, anchor, sizeof anchor);
    if (stat(anchor, &st) != 0 || !S_ISREG(st.st_mode))
        return fail(err, err_size, -ENOENT, "offtrace: '%s' holds no trace (no %s)", dir, anchor);
    ot_tr_archive *a = calloc(1, sizeof *a);
    if (!a)
        return fail(err, err_size, -ENOMEM, "offtrace: out of memory");
    a->host_address_attr = a->device_address_attr = NO_ATTRIBUTE;
    for (int k = 0; k < OT_TR_ATTRS; k++)
        a->span_attr[k] = NO_ATTRIBUTE;
    for (int k = 0; k < OFFTRACE_MAP_ATTRIBUTE_COUNT; k++)
        a->map_attr[k] = NO_ATTRIBUTE;
    a->visitor = *v;
    a->user = user;
    otf2_first_error[0] = '\0';
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(keep_first_error, NULL);
    int rc = -EINVAL;
    a->reader = ot_otf2_open_reader(anchor); /* bounded: a damaged anchor must fail fast */
    if (a->reader && OTF2_Reader_SetSerialCollectiveCallbacks(a->reader) == OTF2_SUCCESS &&
        read_global_definitions(a) == 0) {
        OTF2_Reader_GetCreator(a->reader, &a->creator);
        rc = starts(a->creator ? a->creator : "", "offtrace") ? 0 : -EPROTO;
        if (rc == 0 && !has_this_catalogue(a)) {
            a->other_catalogue = 1;
            rc = -EPROTO;
        }
        if (rc == 0)
            rc = resolve_names(a);
        if (rc == 0)
            rc = prepare_delivery(a);
        if (rc == 0)
            rc = v->begin ? v->begin(user, a) : 0;
        if (rc == 0 && !v->output_on_terminal) /* past a second, on a terminal only; erased before `end` writes */
            a->progress = ot_progress_start("reading the archive", "the events", announced_events(a), &begin, 0);
        if (rc == 0)
            rc = read_events(a);
        ot_progress_set(a->progress, a->handled_events);
        ot_progress_stop(a->progress);
        a->progress = NULL;
        if (rc == 0)
            rc = deliver_leftovers(a);
        if (rc == 0)
            rc = v->end ? v->end(user, a) : 0;
    }
    if (a->reader) /* closing a damaged archive reports errors too: keep them quiet */
        OTF2_Reader_Close(a->reader);
    a->reader = NULL;
    OTF2_Error_RegisterCallback(previous, NULL);
    if (rc == -EPROTO && a->other_catalogue)
        fail(err, err_size, rc,
             "offtrace: '%s' was written by '%s' without the class table of event catalogue version %u "
             "(an older offtrace); read it with the offtrace that wrote it, or convert its recording again",
             dir, a->creator, OFFTRACE_CATALOGUE_VERSION);
    else if (rc == -EPROTO)
        fail(err, err_size, rc,
             "offtrace: '%s' was written by '%s', not by offtrace; offtrace reads only its own archives",
             dir, a->creator && *a->creator ? a->creator : "an unnamed producer");
    else if (rc < 0 && a->bad_reference[0])
        fail(err, err_size, rc, "offtrace: '%s' is damaged: %s", dir, a->bad_reference);
    else if (rc == -EINVAL)
        fail(err, err_size, rc, "offtrace: '%s' is damaged or not an OTF2 archive%s%s", dir,
             otf2_first_error[0] ? ": " : "", otf2_first_error);
    else if (rc == -ENOMEM)
        fail(err, err_size, rc, "offtrace: out of memory reading '%s'", dir);
    archive_free(a);
    return rc;
}

/* ---- accessors ---- */

size_t ot_tr_location_count(const ot_tr_archive *a) { return a->location_count; }
const ot_tr_location *ot_tr_location_at(const ot_tr_archive *a, size_t i)
{
    return i < a->location_count ? &a->locations[i] : NULL;
}

size_t ot_tr_region_count(const ot_tr_archive *a) { return a->region_count; }
const ot_tr_region *ot_tr_region_at(const ot_tr_archive *a, size_t i)
{
    return i < a->region_count && a->region_defined[i] ? &a->regions[i] : NULL;
}

uint64_t ot_tr_first_time(const ot_tr_archive *a) { return a->first_time; }
uint64_t ot_tr_duration(const ot_tr_archive *a) { return a->duration; }
uint64_t ot_tr_realtime(const ot_tr_archive *a) { return a->realtime; }
const char *ot_tr_creator(const ot_tr_archive *a) { return a->creator ? a->creator : ""; }
int ot_tr_defines_attribute(const ot_tr_archive *a, int k)
{
    return k >= 0 && k < OT_TR_ATTRS && a->span_attr[k] != NO_ATTRIBUTE;
}
uint64_t ot_tr_unknown_events(const ot_tr_archive *a) { return a->unknown_events; }
uint64_t ot_tr_events(const ot_tr_archive *a) { return a->handled_events; }
uint64_t ot_tr_last_time(const ot_tr_archive *a) { return a->last_time; }
uint64_t ot_tr_clock_resolution(const ot_tr_archive *a) { return a->resolution; }
size_t ot_tr_accelerator_groups(const ot_tr_archive *a) { return a->accelerator_groups; }
uint64_t ot_tr_unmatched_completions(const ot_tr_archive *a) { return a->unmatched_completions; }
uint64_t ot_tr_regions_too_deep(const ot_tr_archive *a) { return a->regions_too_deep; }
uint64_t ot_tr_unmatched_messages(const ot_tr_archive *a) { return a->unmatched_messages; }
uint64_t ot_tr_clock_violations(const ot_tr_archive *a) { return a->clock_violations; }
const char *ot_tr_comm_name(const ot_tr_archive *a, uint32_t comm)
{
    return comm < a->mpi_comm_count && a->mpi_comms[comm].defined ? a->mpi_comms[comm].name : "";
}

uint32_t ot_tr_open_count(const ot_tr_archive *a, const ot_tr_location *loc)
{
    return a->lanes && loc->index < a->location_count ? a->lanes[loc->index].depth : 0;
}

const ot_tr_span *ot_tr_open_span(const ot_tr_archive *a, const ot_tr_location *loc, uint32_t depth)
{
    if (depth >= ot_tr_open_count(a, loc))
        return NULL;
    return span_at(a, &a->lanes[loc->index], depth);
}

int ot_tr_device_count(const ot_tr_archive *a)
{
    int max = ot_tr_max_device(a);
    uint64_t *seen = calloc((size_t)(max + 1) / 64 + 1, sizeof *seen);
    int n = 0;
    for (size_t i = 0; seen && i < a->location_count; i++) {
        int d = a->locations[i].device;
        if (d >= 0 && !(seen[d / 64] >> (d % 64) & 1)) {
            seen[d / 64] |= 1ull << (d % 64);
            n++;
        }
    }
    free(seen);
    return n;
}

int ot_tr_device_stride(const ot_tr_archive *a) { return a->device_stride > 0 ? a->device_stride : 1; }
uint32_t ot_tr_rank_count(const ot_tr_archive *a) { return a->rank_count ? a->rank_count : 1; }

int ot_tr_max_device(const ot_tr_archive *a)
{
    int max = -1;
    for (size_t i = 0; i < a->location_count; i++)
        if (a->locations[i].device > max)
            max = a->locations[i].device;
    return max;
}

const char *ot_tr_property(const ot_tr_archive *a, const char *name)
{
    for (size_t i = 0; i + 1 < a->property_count; i += 2)
        if (!strcmp(a->properties[i], name))
            return a->properties[i + 1];
    char *value = NULL;
    if (!a->reader || OTF2_Reader_GetProperty(a->reader, name, &value) != OTF2_SUCCESS || !value)
        return NULL;
    /* Cache it: callers keep the pointer for the rest of the read. */
    ot_tr_archive *m = (ot_tr_archive *)a;
    char **p = realloc(m->properties, (m->property_count + 2) * sizeof *p);
    if (!p) {
        free(value);
        return NULL;
    }
    m->properties = p;
    char *key = strdup(name);
    if (!key) {
        free(value);
        return NULL;
    }
    p[m->property_count++] = key;
    p[m->property_count++] = value;
    return value;
}

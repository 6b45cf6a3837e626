/**
 * \file otf2_rules.c
 * \brief The OTF2 3.0 structural rules of otf2_rules.h, checked with OTF2's
 *        reader: global definitions first (in their order, so that "defined
 *        before use" holds for definitions too), then every location's events
 *        with a local event reader (so each location's own order and count
 *        are what is checked).
 *
 * Every rule quotes the header sentence it comes from. Where a header says a
 * field "References a X definition", the reference must name a definition of
 * that kind written before it (rule `reference`); the OTF2_UNDEFINED_* value
 * is accepted where the header allows it, and for strings, whose undefined
 * value OTF2's writers use for absent names.
 */
#define _GNU_SOURCE
#include "otf2_rules.h"
#include "otf2_each_location.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- id maps */

/* Definition id -> index into the kind's array (open addressing). */
typedef struct idmap {
    uint64_t *keys;
    uint32_t *values;
    unsigned char *used;
    size_t capacity, count;
} idmap;

static size_t slot_of(uint64_t key, size_t capacity)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

static int idmap_get(const idmap *m, uint64_t key, uint32_t *value)
{
    if (!m->capacity)
        return 0;
    for (size_t i = slot_of(key, m->capacity);; i = (i + 1) & (m->capacity - 1)) {
        if (!m->used[i])
            return 0;
        if (m->keys[i] == key) {
            if (value)
                *value = m->values[i];
            return 1;
        }
    }
}

/* 1 when added, 0 when the key was there already, -1 out of memory. */
static int idmap_put(idmap *m, uint64_t key, uint32_t value)
{
    if (idmap_get(m, key, NULL))
        return 0;
    if (2 * (m->count + 1) > m->capacity) {
        idmap bigger = {0};
        bigger.capacity = m->capacity ? 2 * m->capacity : 64;
        bigger.keys = calloc(bigger.capacity, sizeof *bigger.keys);
        bigger.values = calloc(bigger.capacity, sizeof *bigger.values);
        bigger.used = calloc(bigger.capacity, 1);
        if (!bigger.keys || !bigger.values || !bigger.used) {
            free(bigger.keys);
            free(bigger.values);
            free(bigger.used);
            return -1;
        }
        for (size_t i = 0; i < m->capacity; i++)
            if (m->used[i])
                idmap_put(&bigger, m->keys[i], m->values[i]);
        free(m->keys);
        free(m->values);
        free(m->used);
        *m = bigger;
    }
    size_t i = slot_of(key, m->capacity);
    while (m->used[i])
        i = (i + 1) & (m->capacity - 1);
    m->used[i] = 1;
    m->keys[i] = key;
    m->values[i] = value;
    m->count++;
    return 1;
}

static void idmap_free(idmap *m)
{
    free(m->keys);
    free(m->values);
    free(m->used);
}

/* ------------------------------------------------------------ definitions */

typedef struct pending_op {
    uint64_t matching_id;
    OTF2_RmaWinRef win;
    int locally_complete;
} pending_op;

typedef struct location {
    uint64_t id;
    OTF2_StringRef name;
    OTF2_LocationType type;
    OTF2_LocationGroupRef group;
    uint64_t declared_events;
    /* event state, while this location is read */
    uint64_t last_time, min_time, max_time, events;
    OTF2_RegionRef *stack;
    size_t depth, stack_capacity;
    pending_op *ops;
    size_t op_count, op_capacity;
    int last_was_region_event; /* the previous event was an Enter or Leave ... */
    uint64_t last_region_time; /* ... at this time */
    unsigned program_begins, program_ends;
    uint64_t program_begin_time, program_end_time;
} location;

typedef struct location_group {
    OTF2_LocationGroupRef id;
    OTF2_LocationGroupType type;
    uint64_t cpu_threads, streams;
    uint64_t min_time, max_time; /* over its locations' events */
    unsigned program_begins, program_ends;
    uint64_t program_begin_time, program_end_time;
} location_group;

typedef struct group {
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint32_t size;
    uint64_t *members; /* COMM_LOCATIONS and COMM_GROUP: for the peers of MPI messages */
} group;

typedef struct comm {
    uint32_t size; /* ranks of its group: members of a COMM_GROUP, 1 for COMM_SELF */
    OTF2_CommFlag flags;
    uint32_t group; /* index into group_defs; UINT32_MAX: none */
} comm;

/* One MPI message end: a send or a receive, between two processes (LocationGroups). */
typedef struct mpi_message {
    OTF2_CommRef comm;
    uint64_t sender, receiver; /* LocationGroup refs */
    uint32_t tag;
    uint64_t length, time, location, position;
} mpi_message;

typedef struct rma_win {
    OTF2_CommRef comm;
    OTF2_RmaWinFlag flags;
} rma_win;

typedef struct metric {
    int is_instance;
    uint8_t member_count;
    OTF2_Type types[256]; /* value type of each member, in order */
    OTF2_MetricOccurrence occurrence;
    OTF2_RecorderKind recorder_kind;
    uint64_t recorder; /* instances: the location that records it */
} metric;

typedef struct checker {
    otf2_rules_report *report;
    idmap strings, attributes, nodes, groups_of_locations, locations, regions, groups, comms, windows, members,
        metrics, parameters, paradigms, paradigm_properties;
    OTF2_Type *attribute_types;
    size_t attribute_count;
    location_group *location_groups;
    size_t location_group_count;
    location *locs;
    size_t loc_count;
    group *group_defs;
    size_t group_count;
    comm *comm_defs;
    size_t comm_count;
    rma_win *window_defs;
    size_t window_count;
    OTF2_Type *member_types;
    size_t member_count;
    metric *metric_defs;
    size_t metric_count;
    unsigned clock_properties, roots;
    uint64_t clock_begin, clock_end;
    int comm_locations_of[256]; /* per paradigm: index + 1 of its COMM_LOCATIONS group, 0 if none */
    int comm_self_of[256];
    /* the event being checked */
    location *current;
    uint64_t position, time;
    const char *event;
    idmap op_index; /* matching ids of the current location's RMA operations -> index into its ops */
    mpi_message *sends, *receives;
    size_t send_count, receive_count;
    int out_of_memory;
} checker;

static const char *const rule_names[OTF2_RULE_COUNT] = {
#define OTF2_RULE_NAME(id, name) name,
    OTF2_RULES(OTF2_RULE_NAME)
#undef OTF2_RULE_NAME
};

const char *otf2_rule_name(otf2_rule rule)
{
    return rule < OTF2_RULE_COUNT ? rule_names[rule] : "?";
}

static void violation(checker *c, otf2_rule rule, const char *where, const char *fmt, va_list ap)
{
    otf2_rules_report *r = c->report;
    if (r->violations[rule]++)
        return;
    char detail[200];
    vsnprintf(detail, sizeof detail, fmt, ap);
    snprintf(r->first[rule], sizeof r->first[rule], "OTF2 rule %s: %s: %s", rule_names[rule], where, detail);
}

/* A definition breaks \p rule; \p where names it ("Location 3"). */
static void def_violation(checker *c, otf2_rule rule, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void def_violation(checker *c, otf2_rule rule, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    violation(c, rule, where, fmt, ap);
    va_end(ap);
}

/* The current event breaks \p rule. */
static void evt_violation(checker *c, otf2_rule rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void evt_violation(checker *c, otf2_rule rule, const char *fmt, ...)
{
    char where[120];
    snprintf(where, sizeof where, "location %llu, event %llu (%s at %llu)", (unsigned long long)c->current->id,
             (unsigned long long)c->position, c->event, (unsigned long long)c->time);
    va_list ap;
    va_start(ap, fmt);
    violation(c, rule, where, fmt, ap);
    va_end(ap);
}

static void *grow(checker *c, void *array, size_t count, size_t size)
{
    if (count & (count - 1) && count > 16)
        return array;
    void *bigger = realloc(array, (count < 16 ? 16 : 2 * count) * size);
    if (!bigger)
        c->out_of_memory = 1;
    return bigger;
}

/* Append one element to a definition array and map \p id to it; a second
 * definition with the same id breaks:
 * OTF2_GlobalDefWriter.h, every definition: "self: The unique identifier for this ... definition." */
#define ADD_DEF(c, map, array, count, id, what)                                                          \
    ({                                                                                                     \
        __typeof__(array) added_ = NULL;                                                                   \
        char where_[64];                                                                                   \
        snprintf(where_, sizeof where_, "%s %llu", what, (unsigned long long)(id));                       \
        int put_ = idmap_put(&(map), (id), (uint32_t)(count));                                            \
        if (put_ == 0)                                                                                     \
            def_violation(c, OTF2_RULE_UNIQUE_ID, where_, "a second %s definition with this id", what);  \
        else if (put_ < 0)                                                                                 \
            c->out_of_memory = 1;                                                                          \
        else {                                                                                             \
            __typeof__(array) grown_ = grow(c, (array), (count), sizeof *(array));                        \
            if (grown_) {                                                                                  \
                (array) = grown_;                                                                          \
                added_ = &(array)[(count)++];                                                              \
                memset(added_, 0, sizeof *added_);                                                         \
            }                                                                                              \
        }                                                                                                  \
        added_;                                                                                            \
    })

/* A set of ids (strings, regions, parameters): uniqueness only. */
static void add_id(checker *c, idmap *map, uint64_t id, const char *what)
{
    int put = idmap_put(map, id, 0);
    if (put == 0) {
        char where[64];
        snprintf(where, sizeof where, "%s %llu", what, (unsigned long long)id);
        def_violation(c, OTF2_RULE_UNIQUE_ID, where, "a second %s definition with this id", what);
    } else if (put < 0)
        c->out_of_memory = 1;
}

/* "References a X definition": \p ref must name an X defined before. */
static int def_reference(checker *c, const char *where, const char *field, const idmap *map, const char *kind,
                         uint64_t ref, uint64_t undefined, int undefined_allowed)
{
    if (ref == undefined && undefined_allowed)
        return 1;
    if (idmap_get(map, ref, NULL))
        return 1;
    def_violation(c, OTF2_RULE_REFERENCE, where, "%s %llu is no %s defined before it", field,
                  (unsigned long long)ref, kind);
    return 0;
}

#define STRING_REF(c, where, field, ref)                                                                   \
    def_reference(c, where, field, &(c)->strings, "String", ref, OTF2_UNDEFINED_STRING, 1)

/* Whether an attribute value of type \p type names a definition that exists
 * (for definition-reference types; other types are plain values). */
static int value_reference_ok(checker *c, OTF2_Type type, OTF2_AttributeValue v, const char **kind)
{
    switch (type) {
    case OTF2_TYPE_STRING:
        *kind = "String";
        return v.stringRef == OTF2_UNDEFINED_STRING || idmap_get(&c->strings, v.stringRef, NULL);
    case OTF2_TYPE_ATTRIBUTE:
        *kind = "Attribute";
        return idmap_get(&c->attributes, v.attributeRef, NULL);
    case OTF2_TYPE_LOCATION:
        *kind = "Location";
        return idmap_get(&c->locations, v.locationRef, NULL);
    case OTF2_TYPE_REGION:
        *kind = "Region";
        return idmap_get(&c->regions, v.regionRef, NULL);
    case OTF2_TYPE_GROUP:
        *kind = "Group";
        return idmap_get(&c->groups, v.groupRef, NULL);
    case OTF2_TYPE_METRIC:
        *kind = "Metric";
        return idmap_get(&c->metrics, v.metricRef, NULL);
    case OTF2_TYPE_COMM:
        *kind = "Comm";
        return idmap_get(&c->comms, v.commRef, NULL);
    case OTF2_TYPE_PARAMETER:
        *kind = "Parameter";
        return idmap_get(&c->parameters, v.parameterRef, NULL);
    case OTF2_TYPE_RMA_WIN:
        *kind = "RmaWin";
        return idmap_get(&c->windows, v.rmaWinRef, NULL);
    case OTF2_TYPE_LOCATION_GROUP:
        *kind = "LocationGroup";
        return idmap_get(&c->groups_of_locations, v.locationGroupRef, NULL);
    default:
        return 1; /* numbers, and references to definitions this checker does not track */
    }
}

static OTF2_CallbackCode d_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
    checker *c = u;
    /* OTF2_GlobalDefWriter.h, ClockProperties: "Defines the timer resolution and time range of this trace."
     * One definition, resolution in "Ticks per seconds" (so not 0). */
    if (c->clock_properties++)
        def_violation(c, OTF2_RULE_CLOCK_PROPERTIES, "ClockProperties", "defined twice");
    if (resolution == 0)
        def_violation(c, OTF2_RULE_CLOCK_PROPERTIES, "ClockProperties", "timer resolution 0 ticks per second");
    c->clock_begin = offset;
    c->clock_end = offset + length;
    if (c->clock_end < offset)
        c->clock_end = UINT64_MAX;
    return OTF2_CALLBACK_SUCCESS;
}

/* The paradigm class each known paradigm has (OTF2_GeneralDefinitions.h: "@pclass{...}" of each paradigm). */
static int expected_class(OTF2_Paradigm p)
{
    switch (p) {
    case OTF2_PARADIGM_OPENMP: case OTF2_PARADIGM_OMPSS: case OTF2_PARADIGM_TBBTHREAD: case OTF2_PARADIGM_MTAPI:
        return OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN;
    case OTF2_PARADIGM_MPI: case OTF2_PARADIGM_GASPI: case OTF2_PARADIGM_UPC: case OTF2_PARADIGM_SHMEM:
        return OTF2_PARADIGM_CLASS_PROCESS;
    case OTF2_PARADIGM_CUDA: case OTF2_PARADIGM_HMPP: case OTF2_PARADIGM_OPENACC: case OTF2_PARADIGM_OPENCL:
    case OTF2_PARADIGM_HIP: case OTF2_PARADIGM_KOKKOS:
        return OTF2_PARADIGM_CLASS_ACCELERATOR;
    case OTF2_PARADIGM_PTHREAD: case OTF2_PARADIGM_WINTHREAD: case OTF2_PARADIGM_QTTHREAD:
    case OTF2_PARADIGM_ACETHREAD:
        return OTF2_PARADIGM_CLASS_THREAD_CREATE_WAIT;
    default:
        return -1;
    }
}

static OTF2_CallbackCode d_paradigm(void *u, OTF2_Paradigm paradigm, OTF2_StringRef name, OTF2_ParadigmClass cls)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "Paradigm %u", paradigm);
    STRING_REF(c, where, "name", name);
    /* OTF2_GlobalDefWriter.h, Paradigm: "This definition is only allowed to appear at most once in the
     * definitions per Paradigm." */
    if (idmap_put(&c->paradigms, paradigm, 0) == 0)
        def_violation(c, OTF2_RULE_PARADIGM, where, "defined more than once");
    /* OTF2_GeneralDefinitions.h: known paradigms have "their expected paradigm class" (@pclass). */
    if (expected_class(paradigm) >= 0 && expected_class(paradigm) != cls)
        def_violation(c, OTF2_RULE_PARADIGM, where, "class %u, the header gives this paradigm class %d", cls,
                      expected_class(paradigm));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_paradigm_property(void *u, OTF2_Paradigm paradigm, OTF2_ParadigmProperty property,
                                             OTF2_Type type, OTF2_AttributeValue value)
{
    checker *c = u;
    char where[64];
    snprintf(where, sizeof where, "ParadigmProperty (%u, %u)", paradigm, property);
    /* OTF2_GlobalDefWriter.h, ParadigmProperty: "The tuple (paradigm, property) must be unique." */
    if (idmap_put(&c->paradigm_properties, (uint64_t)paradigm << 8 | property, 0) == 0)
        def_violation(c, OTF2_RULE_PARADIGM, where, "the tuple (paradigm, property) is not unique");
    /* "type: The type of this property. Must match with the defined type of the property."
     * OTF2_GeneralDefinitions.h: NAME_TEMPLATEs are "Type: String", RMA_ONLY is "Type: OTF2_Boolean". */
    OTF2_Type want = property == OTF2_PARADIGM_PROPERTY_RMA_ONLY ? OTF2_TYPE_UINT8 : OTF2_TYPE_STRING;
    if (property <= OTF2_PARADIGM_PROPERTY_RMA_ONLY && type != want)
        def_violation(c, OTF2_RULE_PARADIGM, where, "value of type %u, the property's type is %u", type, want);
    else if (property == OTF2_PARADIGM_PROPERTY_RMA_ONLY && value.uint8 > OTF2_TRUE)
        def_violation(c, OTF2_RULE_PARADIGM, where, "boolean value %u", value.uint8);
    else if (type == OTF2_TYPE_STRING)
        STRING_REF(c, where, "value", value.stringRef);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *text)
{
    add_id(u, &((checker *)u)->strings, self, "String");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                     OTF2_StringRef description, OTF2_Type type)
{
    checker *c = u;
    OTF2_Type *t = ADD_DEF(c, c->attributes, c->attribute_types, c->attribute_count, self, "Attribute");
    if (t)
        *t = type;
    char where[48];
    snprintf(where, sizeof where, "Attribute %u", self);
    STRING_REF(c, where, "name", name);
    STRING_REF(c, where, "description", description);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                OTF2_SystemTreeNodeRef parent)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "SystemTreeNode %u", self);
    STRING_REF(c, where, "name", name);
    STRING_REF(c, where, "className", cls);
    /* OTF2_GlobalDefWriter.h, SystemTreeNode: "parent: Parent ID of this node. May be
     * OTF2_UNDEFINED_SYSTEM_TREE_NODE to indicate that there is no parent. References a SystemTreeNode
     * definition." A parent defined before its children makes the nodes one tree (no cycle); that it
     * is one tree, with one root, is checked once all are read. */
    def_reference(c, where, "parent", &c->nodes, "SystemTreeNode", parent, OTF2_UNDEFINED_SYSTEM_TREE_NODE, 1);
    if (parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE)
        c->roots++;
    add_id(c, &c->nodes, self, "SystemTreeNode");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                          OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                          OTF2_LocationGroupRef creator)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "LocationGroup %u", self);
    STRING_REF(c, where, "name", name);
    /* OTF2_GlobalDefWriter.h, LocationGroup: "systemTreeParent: Parent of this location group in the
     * system tree. References a SystemTreeNode definition." (no undefined value allowed) */
    def_reference(c, where, "systemTreeParent", &c->nodes, "SystemTreeNode", parent, OTF2_UNDEFINED_SYSTEM_TREE_NODE,
                  0);
    /* OTF2_Definitions.h: PROCESS "The creatingLocationGroup attribute of the location group may reference
     * a location group of type OTF2_LOCATION_GROUP_TYPE_PROCESS or OTF2_UNDEFINED_LOCATION_GROUP";
     * ACCELERATOR "The creatingLocationGroup attribute of the location group must reference a location group
     * of type OTF2_LOCATION_GROUP_TYPE_PROCESS." */
    uint32_t index;
    if (creator == OTF2_UNDEFINED_LOCATION_GROUP) {
        if (type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR)
            def_violation(c, OTF2_RULE_LOCATION_GROUP_CREATOR, where,
                          "an ACCELERATOR group without its creating PROCESS group");
    } else if (!idmap_get(&c->groups_of_locations, creator, &index))
        def_violation(c, OTF2_RULE_REFERENCE, where, "creatingLocationGroup %u is no LocationGroup defined before it",
                      creator);
    else if (c->location_groups[index].type != OTF2_LOCATION_GROUP_TYPE_PROCESS &&
             (type == OTF2_LOCATION_GROUP_TYPE_PROCESS || type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR))
        def_violation(c, OTF2_RULE_LOCATION_GROUP_CREATOR, where, "created by group %u, which is no PROCESS group",
                      creator);
    location_group *g = ADD_DEF(c, c->groups_of_locations, c->location_groups, c->location_group_count, self,
                                "LocationGroup");
    if (g) {
        g->id = self;
        g->type = type;
        g->min_time = UINT64_MAX;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t events, OTF2_LocationGroupRef group)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "Location %llu", (unsigned long long)self);
    STRING_REF(c, where, "name", name);
    /* OTF2_GlobalDefWriter.h, Location: "locationGroup: Location group which includes this location.
     * References a LocationGroup definition." */
    uint32_t index;
    if (!idmap_get(&c->groups_of_locations, group, &index))
        def_violation(c, OTF2_RULE_REFERENCE, where, "locationGroup %u is no LocationGroup defined before it", group);
    else if (type == OTF2_LOCATION_TYPE_CPU_THREAD)
        c->location_groups[index].cpu_threads++;
    else if (type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM)
        c->location_groups[index].streams++;
    location *l = ADD_DEF(c, c->locations, c->locs, c->loc_count, self, "Location");
    if (l) {
        l->id = self;
        l->name = name;
        l->type = type;
        l->group = group;
        l->declared_events = events;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                  OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "Region %u", self);
    STRING_REF(c, where, "name", name);
    STRING_REF(c, where, "canonicalName", canonical);
    STRING_REF(c, where, "description", description);
    STRING_REF(c, where, "sourceFile", file);
    add_id(c, &c->regions, self, "Region");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                 OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t count, const uint64_t *members)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "Group %u", self);
    STRING_REF(c, where, "name", name);
    /* OTF2_Definitions.h, OTF2_GroupType: the members of a group of LOCATIONS / COMM_LOCATIONS are
     * locations ("Each entry in the list is a Location reference"), of REGIONS regions, of METRIC metrics;
     * a COMM_GROUP "is formed by listing the indexes of the OTF2_GROUP_TYPE_COMM_LOCATIONS group" of the
     * same paradigm, and "This group [COMM_LOCATIONS] needs to be defined, before any group of type
     * OTF2_GROUP_TYPE_COMM_GROUP and the same paradigm". COMM_SELF: "At most one definition of this type is
     * allowed to exist per paradigm." */
    uint32_t comm_locations_size = 0;
    if (type == OTF2_GROUP_TYPE_COMM_GROUP) {
        if (!c->comm_locations_of[paradigm])
            def_violation(c, OTF2_RULE_GROUP_MEMBERS, where,
                          "a COMM_GROUP of paradigm %u before (or without) its COMM_LOCATIONS group", paradigm);
        else
            comm_locations_size = c->group_defs[c->comm_locations_of[paradigm] - 1].size;
    }
    if (type == OTF2_GROUP_TYPE_COMM_SELF && c->comm_self_of[paradigm]++)
        def_violation(c, OTF2_RULE_GROUP_MEMBERS, where, "a second COMM_SELF group of paradigm %u", paradigm);
    for (uint32_t i = 0; i < count; i++) {
        int ok = 1;
        const char *kind = "";
        switch (type) {
        case OTF2_GROUP_TYPE_LOCATIONS:
        case OTF2_GROUP_TYPE_COMM_LOCATIONS:
            kind = "Location defined before the group";
            ok = idmap_get(&c->locations, members[i], NULL);
            break;
        case OTF2_GROUP_TYPE_REGIONS:
            kind = "Region defined before the group";
            ok = idmap_get(&c->regions, members[i], NULL);
            break;
        case OTF2_GROUP_TYPE_METRIC:
            kind = "Metric defined before the group";
            ok = idmap_get(&c->metrics, members[i], NULL) || idmap_get(&c->members, members[i], NULL);
            break;
        case OTF2_GROUP_TYPE_COMM_GROUP:
            kind = "index into the paradigm's COMM_LOCATIONS group";
            ok = !c->comm_locations_of[paradigm] || members[i] < comm_locations_size;
            break;
        default:
            break;
        }
        if (!ok) {
            def_violation(c, OTF2_RULE_GROUP_MEMBERS, where, "member %u (%llu) is no %s", i,
                          (unsigned long long)members[i], kind);
            break;
        }
    }
    group *g = ADD_DEF(c, c->groups, c->group_defs, c->group_count, self, "Group");
    if (g) {
        g->type = type;
        g->paradigm = paradigm;
        g->size = count;
        g->members = NULL;
        if ((type == OTF2_GROUP_TYPE_COMM_LOCATIONS || type == OTF2_GROUP_TYPE_COMM_GROUP) && count) {
            g->members = malloc(count * sizeof *members);
            if (g->members)
                memcpy(g->members, members, count * sizeof *members);
            else
                c->out_of_memory = 1;
        }
        if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            /* "the corresponding group definition with type COMM_LOCATIONS and the same paradigm": one. */
            if (c->comm_locations_of[paradigm])
                def_violation(c, OTF2_RULE_GROUP_MEMBERS, where, "a second COMM_LOCATIONS group of paradigm %u",
                              paradigm);
            else
                c->comm_locations_of[paradigm] = (int)c->group_count;
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef description,
                                  OTF2_MetricType metric_type, OTF2_MetricMode mode, OTF2_Type value_type,
                                  OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "MetricMember %u", self);
    STRING_REF(c, where, "name", name);
    STRING_REF(c, where, "description", description);
    STRING_REF(c, where, "unit", unit);
    /* OTF2_GlobalDefWriter.h, MetricMember: "valueType: Type of the value. Only OTF2_TYPE_INT64,
     * OTF2_TYPE_UINT64, and OTF2_TYPE_DOUBLE are valid types." */
    if (value_type != OTF2_TYPE_INT64 && value_type != OTF2_TYPE_UINT64 && value_type != OTF2_TYPE_DOUBLE)
        def_violation(c, OTF2_RULE_METRIC_MEMBER_TYPE, where, "value type %u is none of INT64, UINT64, DOUBLE",
                      value_type);
    OTF2_Type *t = ADD_DEF(c, c->members, c->member_types, c->member_count, self, "MetricMember");
    if (t)
        *t = value_type;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_metric_class(void *u, OTF2_MetricRef self, uint8_t count,
                                        const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occurrence,
                                        OTF2_RecorderKind kind)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "MetricClass %u", self);
    /* Classes and instances "share same ID space" (OTF2_EvtWriter.h, Metric). */
    metric *m = ADD_DEF(c, c->metrics, c->metric_defs, c->metric_count, self, "MetricClass/MetricInstance");
    if (!m)
        return OTF2_CALLBACK_SUCCESS;
    m->member_count = count;
    m->occurrence = occurrence;
    m->recorder_kind = kind;
    for (unsigned i = 0; i < count; i++) {
        uint32_t index;
        /* "metricMembers: List of metric members. References a MetricMember definition." */
        if (!idmap_get(&c->members, members[i], &index)) {
            def_violation(c, OTF2_RULE_REFERENCE, where, "member %u (%u) is no MetricMember defined before it", i,
                          members[i]);
            m->types[i] = OTF2_TYPE_NONE;
        } else
            m->types[i] = c->member_types[index];
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_metric_instance(void *u, OTF2_MetricRef self, OTF2_MetricRef metric_class,
                                           OTF2_LocationRef recorder, OTF2_MetricScope scope_type, uint64_t scope)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "MetricInstance %u", self);
    uint32_t index;
    metric base = {0};
    /* OTF2_GlobalDefWriter.h, MetricInstance: "metricClass: The instanced MetricClass. This metric class
     * must be of kind OTF2_RECORDER_KIND_ABSTRACT." */
    if (!idmap_get(&c->metrics, metric_class, &index))
        def_violation(c, OTF2_RULE_REFERENCE, where, "metricClass %u is no MetricClass defined before it",
                      metric_class);
    else {
        base = c->metric_defs[index];
        if (base.recorder_kind != OTF2_RECORDER_KIND_ABSTRACT)
            def_violation(c, OTF2_RULE_METRIC_INSTANCE, where, "instances class %u, whose kind is %u, not ABSTRACT",
                          metric_class, base.recorder_kind);
    }
    /* "recorder: Recorder of the metric: location ID. References a Location definition." */
    def_reference(c, where, "recorder", &c->locations, "Location", recorder, OTF2_UNDEFINED_LOCATION, 0);
    /* "scope: Scope of metric: ID of a location, location group, system tree node, or a generic group of
     * locations." */
    static const char *const scope_kinds[] = {"Location", "LocationGroup", "SystemTreeNode", "Group"};
    const idmap *scope_maps[] = {&c->locations, &c->groups_of_locations, &c->nodes, &c->groups};
    if (scope_type <= OTF2_SCOPE_GROUP)
        def_reference(c, where, "scope", scope_maps[scope_type], scope_kinds[scope_type], scope, UINT64_MAX, 0);
    metric *m = ADD_DEF(c, c->metrics, c->metric_defs, c->metric_count, self, "MetricClass/MetricInstance");
    if (m) {
        *m = base;
        m->is_instance = 1;
        m->recorder = recorder;
        /* "The occurrence of a metric instance is implicitly of type OTF2_METRIC_ASYNCHRONOUS." */
        m->occurrence = OTF2_METRIC_ASYNCHRONOUS;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_metric_class_recorder(void *u, OTF2_MetricRef metric_ref, OTF2_LocationRef recorder)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "MetricClassRecorder of %u", metric_ref);
    def_reference(c, where, "metric", &c->metrics, "MetricClass or MetricInstance", metric_ref,
                  OTF2_UNDEFINED_METRIC, 0);
    def_reference(c, where, "recorder", &c->locations, "Location", recorder, OTF2_UNDEFINED_LOCATION, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group_ref,
                                OTF2_CommRef parent, OTF2_CommFlag flags)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "Comm %u", self);
    STRING_REF(c, where, "name", name);
    /* "parent: ... Use OTF2_UNDEFINED_COMM to indicate no parent. References a Comm definition." */
    def_reference(c, where, "parent", &c->comms, "Comm", parent, OTF2_UNDEFINED_COMM, 1);
    /* OTF2_GlobalDefWriter.h, Comm: "group: The describing MPI group of this MPI communicator  The group
     * needs to be of type OTF2_GROUP_TYPE_COMM_GROUP or OTF2_GROUP_TYPE_COMM_SELF. References a Group
     * definition." */
    uint32_t index, size = 0;
    if (!idmap_get(&c->groups, group_ref, &index))
        def_violation(c, OTF2_RULE_REFERENCE, where, "group %u is no Group defined before it", group_ref);
    else if (c->group_defs[index].type == OTF2_GROUP_TYPE_COMM_GROUP)
        size = c->group_defs[index].size;
    else if (c->group_defs[index].type == OTF2_GROUP_TYPE_COMM_SELF)
        size = 1;
    else
        def_violation(c, OTF2_RULE_COMM_GROUP_TYPE, where, "group %u is of type %u, neither COMM_GROUP nor COMM_SELF",
                      group_ref, c->group_defs[index].type);
    comm *m = ADD_DEF(c, c->comms, c->comm_defs, c->comm_count, self, "Comm");
    if (m) {
        m->size = size;
        m->flags = flags;
        m->group = idmap_get(&c->groups, group_ref, &index) ? index : UINT32_MAX;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_parameter(void *u, OTF2_ParameterRef self, OTF2_StringRef name, OTF2_ParameterType type)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "Parameter %u", self);
    STRING_REF(c, where, "name", name);
    add_id(c, &c->parameters, self, "Parameter");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_window(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm_ref,
                                  OTF2_RmaWinFlag flags)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "RmaWin %u", self);
    STRING_REF(c, where, "name", name);
    /* OTF2_GlobalDefWriter.h, RmaWin: "comm: Communicator object used to create the window. References a
     * Comm definition." */
    def_reference(c, where, "comm", &c->comms, "Comm", comm_ref, OTF2_UNDEFINED_COMM, 0);
    rma_win *w = ADD_DEF(c, c->windows, c->window_defs, c->window_count, self, "RmaWin");
    if (w) {
        w->comm = comm_ref;
        w->flags = flags;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The three kinds of Property definitions: "Parent X definition to which this one is a supplementary
 * definition. References a X definition.", "name ... References a String definition.", and a value of
 * the given type (rule property-value: a value of a definition-reference type names a definition). */
static void property(checker *c, const char *where, const idmap *owners, const char *owner_kind, uint64_t owner,
                     OTF2_StringRef name, OTF2_Type type, OTF2_AttributeValue value)
{
    def_reference(c, where, owner_kind, owners, owner_kind, owner, UINT64_MAX, 0);
    STRING_REF(c, where, "name", name);
    const char *kind = "";
    if (!value_reference_ok(c, type, value, &kind))
        def_violation(c, OTF2_RULE_PROPERTY_VALUE, where, "value of type %u names no %s", type, kind);
}

static OTF2_CallbackCode d_node_property(void *u, OTF2_SystemTreeNodeRef node, OTF2_StringRef name, OTF2_Type type,
                                         OTF2_AttributeValue value)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "SystemTreeNodeProperty of %u", node);
    property(c, where, &c->nodes, "SystemTreeNode", node, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_node_domain(void *u, OTF2_SystemTreeNodeRef node, OTF2_SystemTreeDomain domain)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "SystemTreeNodeDomain of %u", node);
    def_reference(c, where, "systemTreeNode", &c->nodes, "SystemTreeNode", node, UINT64_MAX, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group_property(void *u, OTF2_LocationGroupRef g, OTF2_StringRef name, OTF2_Type type,
                                          OTF2_AttributeValue value)
{
    checker *c = u;
    char where[48];
    snprintf(where, sizeof where, "LocationGroupProperty of %u", g);
    property(c, where, &c->groups_of_locations, "LocationGroup", g, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location_property(void *u, OTF2_LocationRef l, OTF2_StringRef name, OTF2_Type type,
                                             OTF2_AttributeValue value)
{
    checker *c = u;
    char where[64];
    snprintf(where, sizeof where, "LocationProperty of %llu", (unsigned long long)l);
    property(c, where, &c->locations, "Location", l, name, type, value);
    return OTF2_CALLBACK_SUCCESS;
}

static int read_definitions(OTF2_Reader *reader, checker *c)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!g || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return -1;
    }
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, d_clock);
    OTF2_GlobalDefReaderCallbacks_SetParadigmCallback(cb, d_paradigm);
    OTF2_GlobalDefReaderCallbacks_SetParadigmPropertyCallback(cb, d_paradigm_property);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, d_attribute);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, d_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, d_location_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, d_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, d_metric_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, d_metric_instance);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassRecorderCallback(cb, d_metric_class_recorder);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, d_parameter);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, d_window);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback(cb, d_node_property);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback(cb, d_node_domain);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, d_group_property);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, d_location_property);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, g, cb, c);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, g, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseGlobalDefReader(reader, g);
    return rc;
}

/* Rules about the definitions as a whole. */
static void check_definitions(checker *c)
{
    /* The system tree is a tree: one node without a parent (SystemTreeNode: "May be
     * OTF2_UNDEFINED_SYSTEM_TREE_NODE to indicate that there is no parent"). */
    if (c->roots != 1)
        def_violation(c, OTF2_RULE_SYSTEM_TREE_ROOT, "SystemTreeNodes", "%u nodes without a parent, not 1", c->roots);
    /* OTF2_GlobalDefWriter.h, ClockProperties: events lie in its range, so it must be there. */
    if (!c->clock_properties)
        def_violation(c, OTF2_RULE_CLOCK_PROPERTIES, "ClockProperties", "missing");
    /* OTF2_Definitions.h, OTF2_LOCATION_GROUP_TYPE_PROCESS: "Must contain at least one location of type
     * OTF2_LOCATION_TYPE_CPU_THREAD, any number of locations of type OTF2_LOCATION_TYPE_METRIC, and no
     * locations of type OTF2_LOCATION_TYPE_ACCELERATOR_STREAM."
     * OTF2_LOCATION_GROUP_TYPE_ACCELERATOR: "Must contain at least one location of type
     * OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, any number of locations of type OTF2_LOCATION_TYPE_METRIC,
     * and may not no locations of type OTF2_LOCATION_TYPE_CPU_THREAD." */
    for (size_t i = 0; i < c->location_group_count; i++) {
        const location_group *g = &c->location_groups[i];
        char where[48];
        snprintf(where, sizeof where, "LocationGroup %u", g->id);
        if (g->type == OTF2_LOCATION_GROUP_TYPE_PROCESS && (!g->cpu_threads || g->streams))
            def_violation(c, OTF2_RULE_LOCATION_GROUP_CONTENTS, where,
                          "a PROCESS group with %llu CPU threads and %llu accelerator streams (must be >= 1 and 0)",
                          (unsigned long long)g->cpu_threads, (unsigned long long)g->streams);
        if (g->type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR && (!g->streams || g->cpu_threads))
            def_violation(c, OTF2_RULE_LOCATION_GROUP_CONTENTS, where,
                          "an ACCELERATOR group with %llu accelerator streams and %llu CPU threads (must be >= 1 and 0)",
                          (unsigned long long)g->streams, (unsigned long long)g->cpu_threads);
    }
}

/* ----------------------------------------------------------------- events */

/* OTF2 readers hand out a location's events one by one; the rules below keep
 * what they need per location and check the rest when it ends. */


static void check_attributes(checker *c, OTF2_AttributeList *list)
{
    uint32_t n = list ? OTF2_AttributeList_GetNumberOfElements(list) : 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        OTF2_AttributeValue value;
        if (OTF2_AttributeList_GetAttributeByIndex(list, i, &id, &type, &value) != OTF2_SUCCESS)
            continue;
        uint32_t index;
        const char *kind = "";
        /* "attributeList: Generic attributes for the event." Each names an Attribute definition ... */
        if (!idmap_get(&c->attributes, id, &index))
            evt_violation(c, OTF2_RULE_REFERENCE, "attribute %u is no Attribute definition", id);
        /* ... whose "type: Type of the attribute value." (OTF2_GlobalDefWriter.h, Attribute) */
        else if (c->attribute_types[index] != type)
            evt_violation(c, OTF2_RULE_ATTRIBUTE_VALUE, "attribute %u carries a value of type %u, its definition says %u",
                          id, type, c->attribute_types[index]);
        else if (!value_reference_ok(c, type, value, &kind))
            evt_violation(c, OTF2_RULE_ATTRIBUTE_VALUE, "attribute %u's value names no %s", id, kind);
    }
}

/* Every event: its place in time and its attributes. */
static location *begin_event(checker *c, OTF2_TimeStamp t, uint64_t position, const char *name,
                             OTF2_AttributeList *attributes)
{
    location *l = c->current;
    c->position = position;
    c->time = t;
    c->event = name;
    /* A location's events come in the order they happened. OTF2_GlobalEvtReader.h: the global reader is
     * "Used to read from multiple local event readers, and provide them in a timely ordered sequence",
     * a merge that is in time order only if each location's events are; and Metric events "are always
     * located right immediately the corresponding Enter and Leave event" (OTF2_EvtWriter.h). (OTF2's
     * writer also refuses a timestamp earlier than the last one it wrote.) */
    if (l->events && t < l->last_time)
        evt_violation(c, OTF2_RULE_TIME_ORDER, "time %llu is before the previous event's %llu",
                      (unsigned long long)t, (unsigned long long)l->last_time);
    /* OTF2_GlobalDefWriter.h, ClockProperties: "There will be no event with a timestamp less than
     * globalOffset, and no event with timestamp greater than (globalOffset + traceLength)." */
    if (c->clock_properties && (t < c->clock_begin || t > c->clock_end))
        evt_violation(c, OTF2_RULE_CLOCK_RANGE, "outside the ClockProperties range [%llu, %llu]",
                      (unsigned long long)c->clock_begin, (unsigned long long)c->clock_end);
    l->events++;
    l->last_time = t;
    if (t < l->min_time)
        l->min_time = t;
    if (t > l->max_time)
        l->max_time = t;
    check_attributes(c, attributes);
    l->last_was_region_event = 0;
    return l;
}

/* "References a X definition" in an event. */
static int evt_reference(checker *c, const char *field, const idmap *map, const char *kind, uint64_t ref)
{
    if (idmap_get(map, ref, NULL))
        return 1;
    evt_violation(c, OTF2_RULE_REFERENCE, "%s %llu is no %s definition", field, (unsigned long long)ref, kind);
    return 0;
}

#define EVENT_ARGS OTF2_LocationRef loc_ref, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *attrs

static OTF2_CallbackCode e_enter(EVENT_ARGS, OTF2_RegionRef region)
{
    checker *c = u;
    location *l = begin_event(c, t, pos, "Enter", attrs);
    /* OTF2_EvtWriter.h, Enter: "region: Needs to be defined in a definition record References a Region
     * definition" */
    evt_reference(c, "region", &c->regions, "Region", region);
    OTF2_RegionRef *stack = grow(c, l->stack, l->depth, sizeof *l->stack);
    if (stack) {
        l->stack = stack;
        l->stack[l->depth++] = region;
    }
    l->last_was_region_event = 1;
    l->last_region_time = t;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(EVENT_ARGS, OTF2_RegionRef region)
{
    checker *c = u;
    location *l = begin_event(c, t, pos, "Leave", attrs);
    evt_reference(c, "region", &c->regions, "Region", region);
    /* OTF2_EvtWriter.h: "An Enter record indicates that the program enters a code region", "A Leave record
     * indicates that the program leaves a code region": a location leaves the region it entered last and
     * has not left (regions nest; a Leave of any other region leaves its inner regions open, and no reader
     * can tell which Enter it ends). */
    if (!l->depth)
        evt_violation(c, OTF2_RULE_REGION_NESTING, "Leave of region %u, but no region is open", region);
    else if (l->stack[l->depth - 1] != region) {
        evt_violation(c, OTF2_RULE_REGION_NESTING, "Leave of region %u, but the innermost open region is %u", region,
                      l->stack[l->depth - 1]);
        size_t d = l->depth;
        while (d && l->stack[d - 1] != region)
            d--;
        if (d)
            l->depth = d - 1;
    } else
        l->depth--;
    l->last_was_region_event = 1;
    l->last_region_time = t;
    return OTF2_CALLBACK_SUCCESS;
}

static const rma_win *window_of(checker *c, OTF2_RmaWinRef win)
{
    uint32_t index;
    /* OTF2_EvtWriter.h, every RMA event: "win: ID of the window used for this operation. References a
     * RmaWin definition" */
    if (!idmap_get(&c->windows, win, &index)) {
        evt_violation(c, OTF2_RULE_REFERENCE, "window %u is no RmaWin definition", win);
        return NULL;
    }
    return &c->window_defs[index];
}

static void rma_issue(checker *c, location *l, OTF2_RmaWinRef win, uint32_t remote, uint64_t matching_id)
{
    const rma_win *w = window_of(c, win);
    /* OTF2_EvtWriter.h, RmaPut/RmaGet/RmaAtomic: "remote: Rank of the target process." -- a rank of the
     * window's communicator ("comm: Communicator object used to create the window"), whose group lists
     * its ranks. */
    uint32_t index;
    if (w && idmap_get(&c->comms, w->comm, &index) && remote >= c->comm_defs[index].size)
        evt_violation(c, OTF2_RULE_RMA_REMOTE_RANK, "remote rank %u, but window %u's communicator has %u ranks",
                      remote, win, c->comm_defs[index].size);
    /* "matchingId: ID used for matching the corresponding completion record": while an operation waits for
     * its completion, no other operation of the location may use its id, or the completion would match
     * either. */
    if (idmap_get(&c->op_index, matching_id, &index) && !l->ops[index].locally_complete)
        evt_violation(c, OTF2_RULE_RMA_MATCHING, "matching id %llu is already used by an operation not yet completed",
                      (unsigned long long)matching_id);
    pending_op *ops = grow(c, l->ops, l->op_count, sizeof *l->ops);
    if (!ops)
        return;
    l->ops = ops;
    l->ops[l->op_count] = (pending_op){matching_id, win, 0};
    /* a completed id may be used again: the map then names the newer operation */
    if (idmap_put(&c->op_index, matching_id, (uint32_t)l->op_count) == 0)
        for (size_t i = slot_of(matching_id, c->op_index.capacity);; i = (i + 1) & (c->op_index.capacity - 1))
            if (c->op_index.used[i] && c->op_index.keys[i] == matching_id) {
                c->op_index.values[i] = (uint32_t)l->op_count;
                break;
            }
    l->op_count++;
}

static OTF2_CallbackCode e_put(EVENT_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    checker *c = u;
    rma_issue(c, begin_event(c, t, pos, "RmaPut", attrs), win, remote, id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_get(EVENT_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    checker *c = u;
    rma_issue(c, begin_event(c, t, pos, "RmaGet", attrs), win, remote, id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_atomic(EVENT_ARGS, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaAtomicType type,
                                  uint64_t sent, uint64_t received, uint64_t id)
{
    checker *c = u;
    rma_issue(c, begin_event(c, t, pos, "RmaAtomic", attrs), win, remote, id);
    return OTF2_CALLBACK_SUCCESS;
}

/* OTF2_EvtWriter.h, RmaOpCompleteBlocking/NonBlocking/Remote and RmaOpTest: "matchingId: ID used for matching
 * the corresponding RMA operation record" and "win: ID of the window used for this operation": an earlier
 * RmaPut/RmaGet/RmaAtomic of this location with the same matching id and window. A local completion (and
 * a test) needs one not yet completed locally, and completes it; a remote completion needs one issued. */
static void rma_complete(checker *c, const char *event, OTF2_TimeStamp t, uint64_t pos, OTF2_AttributeList *attrs,
                         OTF2_RmaWinRef win, uint64_t matching_id, int local, int completes)
{
    location *l = begin_event(c, t, pos, event, attrs);
    window_of(c, win);
    uint32_t index;
    if (!idmap_get(&c->op_index, matching_id, &index) || (local && l->ops[index].locally_complete)) {
        evt_violation(c, OTF2_RULE_RMA_MATCHING, "no earlier RMA operation %s with matching id %llu on this location",
                      local ? "waiting for completion" : "", (unsigned long long)matching_id);
        return;
    }
    if (l->ops[index].win != win)
        evt_violation(c, OTF2_RULE_RMA_MATCHING, "window %u, but the operation with matching id %llu used window %u",
                      win, (unsigned long long)matching_id, l->ops[index].win);
    if (completes)
        l->ops[index].locally_complete = 1;
}

static OTF2_CallbackCode e_complete_blocking(EVENT_ARGS, OTF2_RmaWinRef win, uint64_t id)
{
    rma_complete(u, "RmaOpCompleteBlocking", t, pos, attrs, win, id, 1, 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_complete_nonblocking(EVENT_ARGS, OTF2_RmaWinRef win, uint64_t id)
{
    rma_complete(u, "RmaOpCompleteNonBlocking", t, pos, attrs, win, id, 1, 1);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_op_test(EVENT_ARGS, OTF2_RmaWinRef win, uint64_t id)
{
    rma_complete(u, "RmaOpTest", t, pos, attrs, win, id, 1, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_complete_remote(EVENT_ARGS, OTF2_RmaWinRef win, uint64_t id)
{
    rma_complete(u, "RmaOpCompleteRemote", t, pos, attrs, win, id, 0, 0);
    return OTF2_CALLBACK_SUCCESS;
}

/* RmaWinCreate/RmaWinDestroy: "Only valid if the RmaWin definition was flagged with
 * OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS." */
static void window_life(checker *c, const char *event, OTF2_TimeStamp t, uint64_t pos, OTF2_AttributeList *attrs,
                        OTF2_RmaWinRef win)
{
    begin_event(c, t, pos, event, attrs);
    const rma_win *w = window_of(c, win);
    if (w && !(w->flags & OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS))
        evt_violation(c, OTF2_RULE_CREATE_DESTROY_FLAG, "window %u is not flagged CREATE_DESTROY_EVENTS", win);
}

static OTF2_CallbackCode e_win_create(EVENT_ARGS, OTF2_RmaWinRef win)
{
    window_life(u, "RmaWinCreate", t, pos, attrs, win);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_win_destroy(EVENT_ARGS, OTF2_RmaWinRef win)
{
    window_life(u, "RmaWinDestroy", t, pos, attrs, win);
    return OTF2_CALLBACK_SUCCESS;
}

/* CommCreate/CommDestroy: "Only valid if the Comm definition was flagged with
 * OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS." */
static void comm_life(checker *c, const char *event, OTF2_TimeStamp t, uint64_t pos, OTF2_AttributeList *attrs,
                      OTF2_CommRef comm_ref)
{
    begin_event(c, t, pos, event, attrs);
    uint32_t index;
    if (!idmap_get(&c->comms, comm_ref, &index))
        evt_violation(c, OTF2_RULE_REFERENCE, "communicator %u is no Comm definition", comm_ref);
    else if (!(c->comm_defs[index].flags & OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS))
        evt_violation(c, OTF2_RULE_CREATE_DESTROY_FLAG, "communicator %u is not flagged CREATE_DESTROY_EVENTS",
                      comm_ref);
}

/* ---- MPI messages ----
 * OTF2_Events.h, MpiSend: "receiver: MPI rank of receiver in communicator";
 * MpiRecv: "sender: MPI rank of sender in communicator"; a COMM_GROUP's
 * members are indexes into its paradigm's COMM_LOCATIONS group. MPI matches
 * a receive to the oldest pending send of the same communicator, sender and
 * tag (MPI standard, "Semantics of point-to-point communication": order),
 * so per (communicator, sending process, receiving process, tag) the n-th
 * send is the n-th receive, and their lengths agree. A process is a
 * LocationGroup: any of its threads may send or receive. */

/* The LocationGroup of rank \p rank of \p comm_ref, seen from the current location; UINT64_MAX: none. */
static uint64_t process_of_rank(checker *c, OTF2_CommRef comm_ref, uint32_t rank)
{
    uint32_t index;
    if (!idmap_get(&c->comms, comm_ref, &index) || c->comm_defs[index].group == UINT32_MAX)
        return UINT64_MAX;
    const group *g = &c->group_defs[c->comm_defs[index].group];
    if (g->type == OTF2_GROUP_TYPE_COMM_SELF)
        return rank == 0 ? c->current->group : UINT64_MAX;
    if (g->type != OTF2_GROUP_TYPE_COMM_GROUP || rank >= g->size || !g->members ||
        !c->comm_locations_of[g->paradigm])
        return UINT64_MAX;
    const group *all = &c->group_defs[c->comm_locations_of[g->paradigm] - 1];
    uint64_t member = g->members[rank];
    if (member >= all->size || !all->members || !idmap_get(&c->locations, all->members[member], &index))
        return UINT64_MAX;
    return c->locs[index].group;
}

static void mpi_message_end(checker *c, const char *event, OTF2_TimeStamp t, uint64_t pos, OTF2_AttributeList *attrs,
                            int is_send, uint32_t peer, OTF2_CommRef comm_ref, uint32_t tag, uint64_t length)
{
    begin_event(c, t, pos, event, attrs);
    if (!evt_reference(c, "communicator", &c->comms, "Comm", comm_ref))
        return;
    uint64_t other = process_of_rank(c, comm_ref, peer);
    if (other == UINT64_MAX) {
        evt_violation(c, OTF2_RULE_MPI_PEER_RANK, "%s %u is no rank of communicator %u with a location",
                      is_send ? "receiver" : "sender", peer, comm_ref);
        return;
    }
    mpi_message m = {comm_ref, is_send ? c->current->group : other, is_send ? other : c->current->group, tag, length,
                     t, c->current->id, pos};
    mpi_message **list = is_send ? &c->sends : &c->receives;
    size_t *count = is_send ? &c->send_count : &c->receive_count;
    mpi_message *grown = grow(c, *list, *count, sizeof **list);
    if (!grown)
        return;
    *list = grown;
    grown[(*count)++] = m;
}

static OTF2_CallbackCode e_mpi_send(EVENT_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length)
{
    mpi_message_end(u, "MpiSend", t, pos, attrs, 1, receiver, comm, tag, length);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_mpi_isend(EVENT_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t length,
                                     uint64_t request)
{
    (void)request;
    mpi_message_end(u, "MpiIsend", t, pos, attrs, 1, receiver, comm, tag, length);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_mpi_recv(EVENT_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length)
{
    mpi_message_end(u, "MpiRecv", t, pos, attrs, 0, sender, comm, tag, length);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_mpi_irecv(EVENT_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t length,
                                     uint64_t request)
{
    (void)request;
    mpi_message_end(u, "MpiIrecv", t, pos, attrs, 0, sender, comm, tag, length);
    return OTF2_CALLBACK_SUCCESS;
}

static int by_channel(const mpi_message *a, const mpi_message *b)
{
#define OT_CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1;
    OT_CMP(comm) OT_CMP(sender) OT_CMP(receiver) OT_CMP(tag)
#undef OT_CMP
    return 0;
}

static int by_channel_then_time(const void *x, const void *y)
{
    const mpi_message *a = x, *b = y;
    int k = by_channel(a, b);
    if (k)
        return k;
    return a->time != b->time ? (a->time < b->time ? -1 : 1) : (a->position > b->position) - (a->position < b->position);
}

static void mpi_violation(checker *c, const mpi_message *m, const char *what, uint64_t bytes)
{
    char where[160];
    snprintf(where, sizeof where, "location %llu, event at %llu (comm %u, tag %u, from process %llu to %llu)",
             (unsigned long long)m->location, (unsigned long long)m->time, m->comm, m->tag,
             (unsigned long long)m->sender, (unsigned long long)m->receiver);
    def_violation(c, OTF2_RULE_MPI_MATCHING, where, "%s (%llu bytes)", what, (unsigned long long)bytes);
}

static void check_mpi_matching(checker *c)
{
    qsort(c->sends, c->send_count, sizeof *c->sends, by_channel_then_time);
    qsort(c->receives, c->receive_count, sizeof *c->receives, by_channel_then_time);
    size_t s = 0, r = 0;
    while (s < c->send_count || r < c->receive_count) {
        int k = s == c->send_count ? 1 : r == c->receive_count ? -1 : by_channel(&c->sends[s], &c->receives[r]);
        if (k < 0) {
            mpi_violation(c, &c->sends[s], "a send no receive matches", c->sends[s].length);
            s++;
        } else if (k > 0) {
            mpi_violation(c, &c->receives[r], "a receive no send matches", c->receives[r].length);
            r++;
        } else {
            if (c->sends[s].length != c->receives[r].length)
                mpi_violation(c, &c->receives[r], "a receive of another length than its send's", c->sends[s].length);
            s++;
            r++;
        }
    }
}

static OTF2_CallbackCode e_comm_create(EVENT_ARGS, OTF2_CommRef comm_ref)
{
    comm_life(u, "CommCreate", t, pos, attrs, comm_ref);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_comm_destroy(EVENT_ARGS, OTF2_CommRef comm_ref)
{
    comm_life(u, "CommDestroy", t, pos, attrs, comm_ref);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_metric(EVENT_ARGS, OTF2_MetricRef metric_ref, uint8_t count, const OTF2_Type *types,
                                  const OTF2_MetricValue *values)
{
    checker *c = u;
    location *l = c->current;
    int after_region_event = l->last_was_region_event && l->last_region_time == t;
    begin_event(c, t, pos, "Metric", attrs);
    uint32_t index;
    /* OTF2_EvtWriter.h, Metric: "metric: Could be a metric class or a metric instance. References a
     * MetricClass, or a MetricInstance definition" ("It is not allowed to reference a metric member ID in a
     * Metric event, but only metric class IDs", OTF2_GlobalDefWriter.h). */
    if (!idmap_get(&c->metrics, metric_ref, &index)) {
        evt_violation(c, OTF2_RULE_REFERENCE, "metric %u is no MetricClass or MetricInstance definition", metric_ref);
        return OTF2_CALLBACK_SUCCESS;
    }
    const metric *m = &c->metric_defs[index];
    /* "numberOfMetrics: Number of metrics with in the set." "typeIDs: List of metric types. These types must
     * match that of the corresponding MetricMember definitions." */
    if (count != m->member_count)
        evt_violation(c, OTF2_RULE_METRIC_VALUES, "%u values for metric %u, which has %u members", count, metric_ref,
                      m->member_count);
    else
        for (unsigned i = 0; i < count; i++)
            if (types[i] != m->types[i]) {
                evt_violation(c, OTF2_RULE_METRIC_VALUES, "value %u of metric %u has type %u, its member's is %u", i,
                              metric_ref, types[i], m->types[i]);
                break;
            }
    /* OTF2_Definitions.h, OTF2_RecorderKind: ABSTRACT "The metric class will only be recorded via a
     * MetricInstance definitions", CPU "This metric class will only be recorded by locations of type
     * OTF2_LOCATION_TYPE_CPU_THREAD", GPU "... by locations of type OTF2_LOCATION_TYPE_GPU" (=
     * ACCELERATOR_STREAM). OTF2_EvtWriter.h: "A Metric event is always stored at the location that recorded
     * the metric", and an instance's "recorder: Recorder of the metric: location ID". */
    if (m->is_instance) {
        if (m->recorder != l->id)
            evt_violation(c, OTF2_RULE_METRIC_RECORDER, "metric instance %u is recorded by location %llu, not here",
                          metric_ref, (unsigned long long)m->recorder);
    } else if (m->recorder_kind == OTF2_RECORDER_KIND_ABSTRACT)
        evt_violation(c, OTF2_RULE_METRIC_RECORDER,
                      "metric class %u is of kind ABSTRACT: only a MetricInstance of it may be recorded", metric_ref);
    else if (m->recorder_kind == OTF2_RECORDER_KIND_CPU && l->type != OTF2_LOCATION_TYPE_CPU_THREAD)
        evt_violation(c, OTF2_RULE_METRIC_RECORDER, "metric class %u of kind CPU recorded on a location of type %u",
                      metric_ref, l->type);
    else if (m->recorder_kind == OTF2_RECORDER_KIND_GPU && l->type != OTF2_LOCATION_TYPE_ACCELERATOR_STREAM)
        evt_violation(c, OTF2_RULE_METRIC_RECORDER, "metric class %u of kind GPU recorded on a location of type %u",
                      metric_ref, l->type);
    /* OTF2_EvtWriter.h, Metric: "Synchronous metrics are always located right immediately the corresponding
     * Enter and Leave event." (several metrics may follow one Enter or Leave) */
    if (m->occurrence != OTF2_METRIC_ASYNCHRONOUS && !after_region_event)
        evt_violation(c, OTF2_RULE_METRIC_OCCURRENCE,
                      "synchronous metric %u does not follow an Enter or Leave at the same time", metric_ref);
    l->last_was_region_event = after_region_event;
    return OTF2_CALLBACK_SUCCESS;
}

/* ProgramBegin/ProgramEnd (OTF2_EvtWriter.h): "This event is restricted to happen at most once on any
 * Location in a LocationGroup that is of type OTF2_LOCATION_GROUP_TYPE_PROCESS." The pairing and the
 * time bounds are checked per group once all its locations are read. */
static void program_event(checker *c, const char *event, OTF2_TimeStamp t, uint64_t pos, OTF2_AttributeList *attrs,
                          int begin)
{
    location *l = begin_event(c, t, pos, event, attrs);
    uint32_t index;
    if (!idmap_get(&c->groups_of_locations, l->group, &index))
        return;
    location_group *g = &c->location_groups[index];
    if (g->type != OTF2_LOCATION_GROUP_TYPE_PROCESS)
        evt_violation(c, OTF2_RULE_PROGRAM_BEGIN_END, "on a location outside a PROCESS group");
    else if ((begin ? g->program_begins++ : g->program_ends++) > 0)
        evt_violation(c, OTF2_RULE_PROGRAM_BEGIN_END, "a second %s in location group %u", event, l->group);
    if (begin)
        g->program_begin_time = t;
    else
        g->program_end_time = t;
}

static OTF2_CallbackCode e_program_begin(EVENT_ARGS, OTF2_StringRef name, uint32_t argc, const OTF2_StringRef *argv)
{
    checker *c = u;
    program_event(c, "ProgramBegin", t, pos, attrs, 1);
    if (!idmap_get(&c->strings, name, NULL))
        evt_violation(c, OTF2_RULE_REFERENCE, "programName %u is no String definition", name);
    for (uint32_t i = 0; i < argc; i++)
        if (!idmap_get(&c->strings, argv[i], NULL)) {
            evt_violation(c, OTF2_RULE_REFERENCE, "programArguments[%u] %u is no String definition", i, argv[i]);
            break;
        }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_program_end(EVENT_ARGS, int64_t status)
{
    program_event(u, "ProgramEnd", t, pos, attrs, 0);
    return OTF2_CALLBACK_SUCCESS;
}

/* Events whose only structure is a reference to a Comm (thread teams and contingents) or a Parameter. */
static void comm_reference(checker *c, const char *event, OTF2_TimeStamp t, uint64_t pos, OTF2_AttributeList *attrs,
                           OTF2_CommRef comm_ref)
{
    begin_event(c, t, pos, event, attrs);
    evt_reference(c, "communicator", &c->comms, "Comm", comm_ref);
}

#define COMM_EVENT(fn, name, ...)                                                                          \
    static OTF2_CallbackCode fn(EVENT_ARGS, OTF2_CommRef comm_ref, ##__VA_ARGS__)                            \
    {                                                                                                      \
        comm_reference(u, name, t, pos, attrs, comm_ref);                                                  \
        return OTF2_CALLBACK_SUCCESS;                                                                      \
    }
COMM_EVENT(e_team_begin, "ThreadTeamBegin")
COMM_EVENT(e_team_end, "ThreadTeamEnd")
COMM_EVENT(e_task_create, "ThreadTaskCreate", uint32_t creator_, uint32_t generation_)
COMM_EVENT(e_task_switch, "ThreadTaskSwitch", uint32_t creator_, uint32_t generation_)
COMM_EVENT(e_task_complete, "ThreadTaskComplete", uint32_t creator_, uint32_t generation_)
COMM_EVENT(e_thread_create, "ThreadCreate", uint64_t sequence_)
COMM_EVENT(e_thread_begin, "ThreadBegin", uint64_t sequence_)
COMM_EVENT(e_thread_wait, "ThreadWait", uint64_t sequence_)
COMM_EVENT(e_thread_end, "ThreadEnd", uint64_t sequence_)
#undef COMM_EVENT

static OTF2_CallbackCode e_parameter_string(EVENT_ARGS, OTF2_ParameterRef parameter, OTF2_StringRef string)
{
    checker *c = u;
    begin_event(c, t, pos, "ParameterString", attrs);
    evt_reference(c, "parameter", &c->parameters, "Parameter", parameter);
    evt_reference(c, "string", &c->strings, "String", string);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_parameter_int(EVENT_ARGS, OTF2_ParameterRef parameter, int64_t value)
{
    checker *c = u;
    begin_event(c, t, pos, "ParameterInt", attrs);
    evt_reference(c, "parameter", &c->parameters, "Parameter", parameter);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_parameter_uint(EVENT_ARGS, OTF2_ParameterRef parameter, uint64_t value)
{
    checker *c = u;
    begin_event(c, t, pos, "ParameterUnsignedInt", attrs);
    evt_reference(c, "parameter", &c->parameters, "Parameter", parameter);
    return OTF2_CALLBACK_SUCCESS;
}

/* Events with nothing to check but their time and attributes. */
static OTF2_CallbackCode e_flush(EVENT_ARGS, OTF2_TimeStamp stop)
{
    begin_event(u, t, pos, "BufferFlush", attrs);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_measurement(EVENT_ARGS, OTF2_MeasurementMode mode)
{
    begin_event(u, t, pos, "MeasurementOnOff", attrs);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_fork(EVENT_ARGS, OTF2_Paradigm model, uint32_t threads)
{
    begin_event(u, t, pos, "ThreadFork", attrs);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_join(EVENT_ARGS, OTF2_Paradigm model)
{
    begin_event(u, t, pos, "ThreadJoin", attrs);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_acquire(EVENT_ARGS, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    begin_event(u, t, pos, "ThreadAcquireLock", attrs);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_release(EVENT_ARGS, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    begin_event(u, t, pos, "ThreadReleaseLock", attrs);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_EvtReaderCallbacks *event_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, e_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, e_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, e_atomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, e_complete_blocking);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, e_complete_nonblocking);
    OTF2_EvtReaderCallbacks_SetRmaOpTestCallback(cb, e_op_test);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, e_complete_remote);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, e_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, e_win_destroy);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, e_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, e_comm_destroy);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, e_metric);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, e_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, e_program_end);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, e_team_begin);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, e_team_end);
    OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, e_task_create);
    OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, e_task_switch);
    OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, e_task_complete);
    OTF2_EvtReaderCallbacks_SetThreadCreateCallback(cb, e_thread_create);
    OTF2_EvtReaderCallbacks_SetThreadBeginCallback(cb, e_thread_begin);
    OTF2_EvtReaderCallbacks_SetThreadWaitCallback(cb, e_thread_wait);
    OTF2_EvtReaderCallbacks_SetThreadEndCallback(cb, e_thread_end);
    OTF2_EvtReaderCallbacks_SetParameterStringCallback(cb, e_parameter_string);
    OTF2_EvtReaderCallbacks_SetParameterIntCallback(cb, e_parameter_int);
    OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(cb, e_parameter_uint);
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, e_flush);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, e_measurement);
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, e_fork);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, e_join);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, e_mpi_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, e_mpi_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, e_mpi_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, e_mpi_irecv);
    OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, e_acquire);
    OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, e_release);
    return cb;
}

/* What a location owes once its last event is read. */
static void end_location(checker *c, location *l, uint64_t read)
{
    char where[64];
    snprintf(where, sizeof where, "location %llu, after its last event", (unsigned long long)l->id);
    /* OTF2_GlobalDefWriter.h, Location: "numberOfEvents: Number of events this location has recorded." */
    if (read != l->declared_events)
        def_violation(c, OTF2_RULE_LOCATION_EVENT_COUNT, where, "the definition declares %llu events, %llu were read",
                      (unsigned long long)l->declared_events, (unsigned long long)read);
    /* Enter/Leave: every region entered is left (see e_leave). */
    if (l->depth)
        def_violation(c, OTF2_RULE_REGION_NESTING, where, "%zu regions never left (innermost %u)", l->depth,
                      l->stack[l->depth - 1]);
    /* RmaPut/RmaGet/RmaAtomic: "matchingId: ID used for matching the corresponding completion record". */
    for (size_t i = 0; i < l->op_count; i++)
        if (!l->ops[i].locally_complete) {
            def_violation(c, OTF2_RULE_RMA_MATCHING, where, "RMA operation with matching id %llu never completed",
                          (unsigned long long)l->ops[i].matching_id);
            break;
        }
    uint32_t index;
    if (l->events && idmap_get(&c->groups_of_locations, l->group, &index)) {
        location_group *g = &c->location_groups[index];
        if (l->min_time < g->min_time)
            g->min_time = l->min_time;
        if (l->max_time > g->max_time)
            g->max_time = l->max_time;
    }
    free(l->stack);
    free(l->ops);
    l->stack = NULL;
    l->ops = NULL;
    l->depth = l->op_count = 0;
    idmap_free(&c->op_index);
    memset(&c->op_index, 0, sizeof c->op_index);
}

/* ProgramBegin/ProgramEnd: "If there is a ProgramBegin record, a corresponding ProgramEnd record on any
 * Location in the same LocationGroup is mandatory and vice versa." "None of the timestamps recorded
 * within the same LocationGroup must be smaller than ProgramBegin's timestamp." "... must be larger than
 * ProgramEnd's timestamp." */
static void check_programs(checker *c)
{
    for (size_t i = 0; i < c->location_group_count; i++) {
        const location_group *g = &c->location_groups[i];
        char where[48];
        snprintf(where, sizeof where, "LocationGroup %u", g->id);
        if ((g->program_begins > 0) != (g->program_ends > 0))
            def_violation(c, OTF2_RULE_PROGRAM_BEGIN_END, where, "a %s without its %s",
                          g->program_begins ? "ProgramBegin" : "ProgramEnd",
                          g->program_begins ? "ProgramEnd" : "ProgramBegin");
        if (g->program_begins && g->min_time < g->program_begin_time)
            def_violation(c, OTF2_RULE_PROGRAM_BEGIN_END, where, "an event at %llu, before ProgramBegin at %llu",
                          (unsigned long long)g->min_time, (unsigned long long)g->program_begin_time);
        if (g->program_ends && g->max_time > g->program_end_time)
            def_violation(c, OTF2_RULE_PROGRAM_BEGIN_END, where, "an event at %llu, after ProgramEnd at %llu",
                          (unsigned long long)g->max_time, (unsigned long long)g->program_end_time);
    }
}

static uint64_t location_id(void *user, size_t i)
{
    return ((checker *)user)->locs[i].id;
}

static void begin_location(void *user, size_t i)
{
    checker *c = user;
    c->locs[i].min_time = UINT64_MAX;
    c->current = &c->locs[i];
}

static void location_read(void *user, size_t i, uint64_t read)
{
    checker *c = user;
    end_location(c, &c->locs[i], read);
    c->report->events += read;
}

static int read_events(OTF2_Reader *reader, checker *c)
{
    OTF2_EvtReaderCallbacks *cb = event_callbacks();
    if (!cb)
        return -1;
    otf2_each_location each = {.count = c->loc_count, .id = location_id, .begin = begin_location,
                               .end = location_read, .user = c};
    int rc = otf2_read_each_location(reader, &each, cb);
    OTF2_EvtReaderCallbacks_Delete(cb);
    return rc;
}

static void free_checker(checker *c)
{
    idmap *maps[] = {&c->strings, &c->attributes, &c->nodes, &c->groups_of_locations, &c->locations, &c->regions,
                     &c->groups, &c->comms, &c->windows, &c->members, &c->metrics, &c->parameters, &c->paradigms,
                     &c->paradigm_properties};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        idmap_free(maps[i]);
    for (size_t i = 0; i < c->loc_count; i++) {
        free(c->locs[i].stack);
        free(c->locs[i].ops);
    }
    idmap_free(&c->op_index);
    memset(&c->op_index, 0, sizeof c->op_index);
    free(c->attribute_types);
    free(c->location_groups);
    free(c->locs);
    for (size_t i = 0; i < c->group_count; i++)
        free(c->group_defs[i].members);
    free(c->group_defs);
    free(c->comm_defs);
    free(c->sends);
    free(c->receives);
    free(c->window_defs);
    free(c->member_types);
    free(c->metric_defs);
    free(c);
}

int otf2_rules_check(const char *anchor, otf2_rules_report *report)
{
    memset(report, 0, sizeof *report);
    OTF2_Reader *reader = OTF2_Reader_Open(anchor);
    if (!reader)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    checker *c = calloc(1, sizeof *c);
    int rc = -1;
    if (c) {
        c->report = report;
        rc = read_definitions(reader, c);
        if (rc == 0) {
            check_definitions(c);
            report->locations = c->loc_count;
            rc = read_events(reader, c);
        }
        if (rc == 0) {
            check_programs(c);
            check_mpi_matching(c);
        }
        if (c->out_of_memory)
            rc = -1;
        free_checker(c);
    }
    OTF2_Reader_Close(reader);
    return rc;
}

uint64_t otf2_rules_total(const otf2_rules_report *report)
{
    uint64_t total = 0;
    for (int i = 0; i < OTF2_RULE_COUNT; i++)
        total += report->violations[i];
    return total;
}

void otf2_rules_summary(const otf2_rules_report *report, char *buf, unsigned size)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < OTF2_RULE_COUNT && used < size; i++)
        if (report->violations[i]) {
            int n = snprintf(buf + used, size - used, "%s%s (%llu times)", used ? "\n" : "", report->first[i],
                             (unsigned long long)report->violations[i]);
            if (n < 0)
                break;
            used += (size_t)n;
        }
}

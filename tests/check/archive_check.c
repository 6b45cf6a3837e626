#define _GNU_SOURCE
#include "archive_check.h"
#include "string_table.h"

#include <otf2/otf2.h>
#include <stdarg.h>

#include "offtrace/event_catalogue_otf2.h"
#include "otf2_rules.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOC 1024
#define MAX_GROUPS 1024
#define MAX_DEPTH 512
#define MAX_INTERVALS 200000

/* Two values a kind of Enter leaves out where usual: the location's last such Enter's (seen: there was one). */
typedef struct usual_pair {
    uint64_t a, b;
    int seen;
} usual_pair;

/* The map attributes the last Enter of a data-op region carried on a location (docs/variables.md: the next Enter
 * of the region there leaves all three out where they are the same). */
struct region_map {
    uint32_t region, variable, map_type, site;
};

typedef struct loc_state {
    uint64_t id;
    OTF2_LocationType type;
    uint32_t group;
    offtrace_location_role role; /* OFFTRACE_LOC_ROLE_COUNT: none given */
    int is_rdma, is_device_thread, is_kernel_stream;
    uint32_t stack[MAX_DEPTH];
    uint64_t begin[MAX_DEPTH];
    uint32_t variable[MAX_DEPTH]; /* the "variable" string of a data op's Enter, NO_VARIABLE */
    size_t depth;
    usual_pair chunk; /* its last chunk Enter's first iteration and iterations */
    usual_pair team;  /* its last host implicit task Enter's team size and thread number */
    struct region_map *maps; size_t nmaps; /* each named data op region's last variable, map type and site */
} loc_state;

typedef struct interval { uint64_t begin, end; uint32_t line; } interval;

#define NO_VARIABLE UINT32_MAX

/* The map attributes, by catalogue offset, as the archive defines them (name and type). */
enum {
#define MAP_OFFSET(a, offset, type, name, description) MAP_##a = offset,
    OFFTRACE_MAP_ATTRIBUTES(MAP_OFFSET)
#undef MAP_OFFSET
};

typedef struct state {
    archive_facts *f;
    check_string_table strings;
    char **region_name; uint32_t *region_line; size_t nregions;
    OTF2_RegionRole *region_role; OTF2_Paradigm *region_paradigm;
    uint8_t *region_class; size_t nclasses;  /* offtrace_event_class by region ref, from the class table */
    loc_state locs[MAX_LOC]; size_t nlocs;
    int group_is_accel[MAX_GROUPS];
    uint64_t comm_members[MAX_LOC]; size_t ncomm;
    interval *targets; size_t ntargets;
    interval *kernels; size_t nkernels;
    uint64_t *device_times; size_t ndevice_times;      /* every device-thread event */
    uint64_t *device_parallels; size_t ndevice_parallels; /* Enter times of device parallel regions */
    OTF2_AttributeRef map_attr[OFFTRACE_MAP_ATTRIBUTE_COUNT]; /* by catalogue offset; UINT32_MAX: undefined */
    OTF2_AttributeRef first_iteration, iterations;            /* UINT32_MAX: undefined */
    OTF2_AttributeRef team_size, thread_number;               /* UINT32_MAX: undefined */
    uint64_t wanted_location;  /* archive_location_times: the location whose times are kept */
    uint64_t *wanted_times; size_t nwanted_times;
} state;

static void problem(state *s, const char *fmt, ...)
{
    if (s->f->first_problem[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->f->first_problem, sizeof s->f->first_problem, fmt, ap);
    va_end(ap);
}

static loc_state *loc(state *s, uint64_t id)
{
    for (size_t i = 0; i < s->nlocs; i++)
        if (s->locs[i].id == id)
            return &s->locs[i];
    return NULL;
}

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *t)
{
    state *s = u;
    return check_string_put(&s->strings, self, t) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static const char *str(state *s, OTF2_StringRef r)
{
    return check_string_at(&s->strings, r);
}

static OTF2_CallbackCode d_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef d,
                                     OTF2_Type type)
{
    state *s = u;
#define MAP_DEFINED(a, offset, attr_type, attr_name, description)             \
    if (type == OTF2_TYPE_##attr_type && !strcmp(str(s, name), attr_name)) \
        s->map_attr[offset] = self;
    OFFTRACE_MAP_ATTRIBUTES(MAP_DEFINED)
#undef MAP_DEFINED
    if (type == OTF2_TYPE_UINT64 && !strcmp(str(s, name), "first iteration"))
        s->first_iteration = self;
    else if (type == OTF2_TYPE_UINT64 && !strcmp(str(s, name), "iterations"))
        s->iterations = self;
    else if (type == OTF2_TYPE_UINT64 && !strcmp(str(s, name), "team size"))
        s->team_size = self;
    else if (type == OTF2_TYPE_UINT64 && !strcmp(str(s, name), "thread number"))
        s->thread_number = self;
    return OTF2_CALLBACK_SUCCESS;
}

static int has_map(const state *s, OTF2_AttributeList *a, int offset)
{
    return a && s->map_attr[offset] != UINT32_MAX && OTF2_AttributeList_TestAttributeByID(a, s->map_attr[offset]);
}

/* The variable a list carries, NO_VARIABLE when none. */
static uint32_t variable_of(const state *s, OTF2_AttributeList *a)
{
    OTF2_StringRef v;
    if (!has_map(s, a, MAP_VARIABLE) || OTF2_AttributeList_GetStringRef(a, s->map_attr[MAP_VARIABLE], &v) != OTF2_SUCCESS)
        return NO_VARIABLE;
    return v;
}

/* 1 when a list carries implicit or map entry at the usual value the converter leaves out. */
static int usual_map_value(state *s, OTF2_AttributeList *a)
{
    uint8_t implicit;
    OTF2_StringRef entry;
    const char *text;
    if (has_map(s, a, MAP_IMPLICIT) && OTF2_AttributeList_GetUint8(a, s->map_attr[MAP_IMPLICIT], &implicit) ==
                                           OTF2_SUCCESS && implicit == OFFTRACE_MAP_IMPLICIT_USUAL)
        return 1;
    return has_map(s, a, MAP_MAP_ENTRY) &&
           OTF2_AttributeList_GetStringRef(a, s->map_attr[MAP_MAP_ENTRY], &entry) == OTF2_SUCCESS &&
           (text = str(s, entry)) && !strcmp(text, OFFTRACE_MAP_ENTRY_USUAL);
}

static void bad_map(state *s, const char *what, uint64_t location, uint64_t t)
{
    s->f->bad_map_placement++;
    problem(s, "location %llu at %llu: %s", (unsigned long long)location, (unsigned long long)t, what);
}

static uint32_t map_string(const state *s, OTF2_AttributeList *a, int offset)
{
    OTF2_StringRef v;
    if (!has_map(s, a, offset) || OTF2_AttributeList_GetStringRef(a, s->map_attr[offset], &v) != OTF2_SUCCESS)
        return NO_VARIABLE;
    return v;
}

/* The last map attributes a data-op region's Enter carried on \p ls; NULL when none did (a linear search: test
 * archives name few regions). */
static struct region_map *region_map_of(loc_state *ls, uint32_t region)
{
    for (size_t i = 0; i < ls->nmaps; i++)
        if (ls->maps[i].region == region)
            return &ls->maps[i];
    return NULL;
}

/* The variable of a data op's Enter, carried or left out as the previous Enter of its region on the location's
 * (docs/variables.md "The attributes"); a repeat carried is misplaced. */
static uint32_t data_op_variable(state *s, loc_state *ls, OTF2_AttributeList *a, uint32_t r, uint64_t l, uint64_t t)
{
    struct region_map now = {r, map_string(s, a, MAP_VARIABLE), map_string(s, a, MAP_MAP_TYPE),
                             map_string(s, a, MAP_MAP_SITE)};
    struct region_map *before = region_map_of(ls, r);
    if (now.variable == NO_VARIABLE && now.map_type == NO_VARIABLE && now.site == NO_VARIABLE)
        return before ? before->variable : NO_VARIABLE;
    if (before && before->variable == now.variable && before->map_type == now.map_type && before->site == now.site)
        bad_map(s, "a named data op's Enter carrying the variable, map type and site of its region's previous Enter "
                   "on its location (left out there)", l, t);
    if (!before) {
        if (ls->nmaps % 64 == 0)
            ls->maps = realloc(ls->maps, (ls->nmaps + 64) * sizeof *ls->maps);
        before = &ls->maps[ls->nmaps++];
    }
    *before = now;
    return now.variable;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef c,
                                  OTF2_StringRef d, OTF2_RegionRole role, OTF2_Paradigm p, OTF2_RegionFlag fl,
                                  OTF2_StringRef file, uint32_t b, uint32_t e)
{
    state *s = u;
    if (self >= s->nregions) {
        size_t n = self + 256;
        s->region_name = realloc(s->region_name, n * sizeof *s->region_name);
        s->region_line = realloc(s->region_line, n * sizeof *s->region_line);
        s->region_role = realloc(s->region_role, n * sizeof *s->region_role);
        s->region_paradigm = realloc(s->region_paradigm, n * sizeof *s->region_paradigm);
        memset(s->region_name + s->nregions, 0, (n - s->nregions) * sizeof *s->region_name);
        memset(s->region_line + s->nregions, 0, (n - s->nregions) * sizeof *s->region_line);
        s->nregions = n;
    }
    s->region_name[self] = strdup(str(s, name));
    s->region_line[self] = b;
    s->region_role[self] = role;
    s->region_paradigm[self] = p;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                 OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                 OTF2_LocationGroupRef creator)
{
    state *s = u;
    if (self < MAX_GROUPS)
        s->group_is_accel[self] = type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR;
    if (type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR)
        s->f->devices++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t n, OTF2_LocationGroupRef group)
{
    state *s = u;
    if (s->nlocs == MAX_LOC)
        return OTF2_CALLBACK_INTERRUPT;
    loc_state *l = &s->locs[s->nlocs++];
    memset(l, 0, sizeof *l);
    l->id = self;
    l->type = type;
    l->group = group;
    l->role = OFFTRACE_LOC_ROLE_COUNT;
    int accel = group < MAX_GROUPS && s->group_is_accel[group];
    if (type == OTF2_LOCATION_TYPE_CPU_THREAD && !accel)
        s->f->host_threads++;
    /* offtrace puts every device location in its device's group (OTF2's
     * own rules on group contents are otf2_rules.c's) */
    if (type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM && !accel) {
        s->f->bad_groups++;
        problem(s, "location %s outside an accelerator location group", str(s, name));
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The location role offtrace's writer gives every location, as a property. */
static OTF2_CallbackCode d_location_property(void *u, OTF2_LocationRef location, OTF2_StringRef name, OTF2_Type type,
                                             OTF2_AttributeValue value)
{
    state *s = u;
    loc_state *l = loc(s, location);
    if (l && type == OTF2_TYPE_STRING && !strcmp(str(s, name), OFFTRACE_LOCATION_ROLE_PROPERTY))
        l->role = offtrace_location_role_by_name(str(s, value.stringRef));
    return OTF2_CALLBACK_SUCCESS;
}

/* The class table: REGIONS groups named OFFTRACE_REGION_CLASS_GROUP_PREFIX + class. */
static void class_group(state *s, const char *name, uint32_t n, const uint64_t *members)
{
    size_t prefix = strlen(OFFTRACE_REGION_CLASS_GROUP_PREFIX);
    if (strncmp(name, OFFTRACE_REGION_CLASS_GROUP_PREFIX, prefix) != 0)
        return;
    offtrace_event_class c = offtrace_class_by_name(name + prefix);
    if (c == OFFTRACE_CLASS_NONE) {
        s->f->bad_groups++;
        problem(s, "class table names an unknown class %s", name);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (members[i] >= s->nclasses) {
            size_t grown = members[i] + 256;
            s->region_class = realloc(s->region_class, grown);
            memset(s->region_class + s->nclasses, 0, grown - s->nclasses);
            s->nclasses = grown;
        }
        if (s->region_class[members[i]])
            problem(s, "region %llu is in two classes", (unsigned long long)members[i]);
        s->region_class[members[i]] = (uint8_t)c;
    }
}

static offtrace_event_class class_of(const state *s, OTF2_RegionRef r)
{
    return r < s->nclasses ? (offtrace_event_class)s->region_class[r] : OFFTRACE_CLASS_NONE;
}

static OTF2_CallbackCode d_grp(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                               OTF2_Paradigm p, OTF2_GroupFlag fl, uint32_t n, const uint64_t *members)
{
    state *s = u;
    if (type == OTF2_GROUP_TYPE_REGIONS)
        class_group(s, str(s, name), n, members);
    if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        for (uint32_t i = 0; i < n && s->ncomm < MAX_LOC; i++)
            s->comm_members[s->ncomm++] = members[i];
    return OTF2_CALLBACK_SUCCESS;
}

/* Common bookkeeping for every event: time order, clock range, count. */
static void push_time(uint64_t **v, size_t *n, uint64_t t);

static loc_state *on_event(state *s, OTF2_LocationRef l, OTF2_TimeStamp t)
{
    loc_state *ls = loc(s, l);
    s->f->events++;
    if (!ls)
        return NULL;
    if (ls->is_device_thread)
        push_time(&s->device_times, &s->ndevice_times, t);
    if (l == s->wanted_location)
        push_time(&s->wanted_times, &s->nwanted_times, t);
    return ls;
}

/* Which construct a class is, from the catalogue's construct column. */
enum { AC_CONSTRUCT_NONE, AC_CONSTRUCT_TARGET, AC_CONSTRUCT_ENTER_DATA, AC_CONSTRUCT_EXIT_DATA, AC_CONSTRUCT_UPDATE };
static const uint8_t construct_of[OFFTRACE_CLASS_COUNT] = {
#define CONSTRUCT_COLUMN(c, source, name, form, role, paradigm, location, reader, construct, op, nowait, view, \
                         export, report)                                                                      \
    [OFFTRACE_CLASS_##c] = AC_CONSTRUCT_##construct,
    OFFTRACE_EVENT_CLASSES(CONSTRUCT_COLUMN)
#undef CONSTRUCT_COLUMN
};

static void count_construct(state *s, offtrace_event_class c)
{
    archive_facts *f = s->f;
    switch (construct_of[c]) {
    case AC_CONSTRUCT_TARGET: f->target++; break;
    case AC_CONSTRUCT_ENTER_DATA: f->enter_data++; break;
    case AC_CONSTRUCT_EXIT_DATA: f->exit_data++; break;
    case AC_CONSTRUCT_UPDATE: f->update++; break;
    default: f->data_regions += c == OFFTRACE_CLASS_TARGET_DATA; break;
    }
}

static void push_time(uint64_t **v, size_t *n, uint64_t t)
{
    if (*n % 4096 == 0)
        *v = realloc(*v, (*n + 4096) * sizeof **v);
    (*v)[(*n)++] = t;
}

/* Loops and barriers are told apart from the other worksharing and
 * synchronisation regions by their OTF2 role, as the counting tool tells
 * them by OMPT kind (tests/support/ompt_counter.c): loops are role LOOP
 * (loop kinds, distribute, taskloop); barriers are every sync region but a
 * reduction (barriers, implicit barriers, taskwait, taskgroup). */
static int is_loop_role(OTF2_RegionRole role) { return role == OTF2_REGION_ROLE_LOOP; }
static int is_barrier_role(OTF2_RegionRole role)
{
    return role == OTF2_REGION_ROLE_BARRIER || role == OTF2_REGION_ROLE_IMPLICIT_BARRIER ||
           role == OTF2_REGION_ROLE_TASK_WAIT;
}

static void count_device_construct(state *s, offtrace_event_class c, OTF2_RegionRole role, uint64_t t)
{
    archive_facts *f = s->f;
    f->device_enters++;
    switch (c) {
    case OFFTRACE_CLASS_DEVICE_PARALLEL: /* parallel and teams */
        f->device_parallel++;
        push_time(&s->device_parallels, &s->ndevice_parallels, t);
        break;
    case OFFTRACE_CLASS_DEVICE_WORK: f->device_loops += is_loop_role(role); break;
    case OFFTRACE_CLASS_DEVICE_SYNC: f->device_barriers += is_barrier_role(role); break;
    case OFFTRACE_CLASS_DEVICE_IMPLICIT_TASK: f->device_implicit_tasks++; break;
    case OFFTRACE_CLASS_DEVICE_TASK: f->device_tasks++; break;
    case OFFTRACE_CLASS_DEVICE_RECORDS_LOST: f->device_lost_markers++; break;
    default: break;
    }
}

static int carried(const state *s, OTF2_AttributeList *a, OTF2_AttributeRef ref, uint64_t *v)
{
    return a && ref != UINT32_MAX && OTF2_AttributeList_TestAttributeByID(a, ref) &&
           OTF2_AttributeList_GetUint64(a, ref, v) == OTF2_SUCCESS;
}

/* An Enter (\p what) that carries its values \p ra (\p name_a) and \p rb (\p name_b) unless they are the usual
 * ones, \p usual_a and \p usual_b, which follow from the location's \p last such Enter; a location's first carries
 * both. Misplaced: a usual value carried, or a first Enter without both. */
static void check_usual_pair(state *s, usual_pair *last, OTF2_AttributeList *a, const char *what,
                             OTF2_AttributeRef ra, const char *name_a, uint64_t usual_a, OTF2_AttributeRef rb,
                             const char *name_b, uint64_t usual_b, uint64_t l, uint64_t t)
{
    uint64_t va, vb;
    int has_a = carried(s, a, ra, &va), has_b = carried(s, a, rb, &vb);
    char problem[256];
    if (!last->seen && !(has_a && has_b)) {
        snprintf(problem, sizeof problem, "a location's first %s Enter without its %s or %s", what, name_a, name_b);
        bad_map(s, problem, l, t);
        return;
    }
    for (int k = 0; k < 2; k++)
        if (last->seen && (k ? has_b && vb == usual_b : has_a && va == usual_a)) {
            snprintf(problem, sizeof problem, "a %s Enter carrying its usual %s (the location's previous one's)", what,
                     k ? name_b : name_a);
            bad_map(s, problem, l, t);
        }
    *last = (usual_pair){has_a ? va : usual_a, has_b ? vb : usual_b, 1};
}

/* docs/host-openmp.md "A chunk's iterations": a host chunk's Enter carries its iterations unless they are
 * those of the previous chunk Enter on its location, and its first iteration unless it follows on from that
 * chunk's. */
static void check_chunk_iterations(state *s, loc_state *ls, OTF2_AttributeList *a, uint64_t l, uint64_t t)
{
    check_usual_pair(s, &ls->chunk, a, "chunk", s->first_iteration, "first iteration", ls->chunk.a + ls->chunk.b,
                     s->iterations, "iterations", ls->chunk.b, l, t);
}

/* docs/host-openmp.md "An implicit task's team size and thread number": a host implicit task's Enter carries
 * each of the two unless it is that of the previous host implicit task Enter on its location. */
static void check_implicit_task_team(state *s, loc_state *ls, OTF2_AttributeList *a, uint64_t l, uint64_t t)
{
    check_usual_pair(s, &ls->team, a, "implicit task", s->team_size, "team size", ls->team.a, s->thread_number,
                     "thread number", ls->team.b, l, t);
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    loc_state *ls = on_event(s, l, t);
    if (!ls)
        return OTF2_CALLBACK_SUCCESS;
    offtrace_event_class c = class_of(s, r);
    if (c == OFFTRACE_CLASS_HOST_CHUNK)
        check_chunk_iterations(s, ls, a, l, t);
    else if (c == OFFTRACE_CLASS_HOST_IMPLICIT_TASK)
        check_implicit_task_team(s, ls, a, l, t);
    /* docs/variables.md: a named data op's Enter carries its map attributes, implicit and map entry but at
     * their usual values (event_catalogue.h), and the variable, map type and site but where all three repeat
     * its region's previous Enter on the location */
    int data_op = offtrace_class(c) && offtrace_class(c)->source == OFFTRACE_SOURCE_DATA_OP;
    uint32_t carried = variable_of(s, a);
    uint32_t variable = data_op ? data_op_variable(s, ls, a, r, l, t) : carried;
    if (ls->depth == MAX_DEPTH)
        return OTF2_CALLBACK_SUCCESS;
    if (carried != NO_VARIABLE && (!data_op || !has_map(s, a, MAP_MAP_TYPE) || !has_map(s, a, MAP_MAP_SITE)))
        bad_map(s, data_op ? "a named data op's Enter without its map type or site"
                           : "a variable on the Enter of a region that is no data op", l, t);
    else if (variable != NO_VARIABLE && usual_map_value(s, a))
        bad_map(s, "a named data op's Enter carrying implicit 0 or map entry `entry` (left out at those)", l, t);
    else if (carried == NO_VARIABLE && (has_map(s, a, MAP_MAP_TYPE) || has_map(s, a, MAP_MAP_SITE)))
        bad_map(s, "map attributes without the variable on an Enter", l, t);
    ls->variable[ls->depth] = data_op ? variable : NO_VARIABLE;
    ls->stack[ls->depth] = r;
    ls->begin[ls->depth++] = t;
    s->f->enters[c]++;
    if (c == OFFTRACE_CLASS_NONE) {
        s->f->bad_groups++;
        problem(s, "region %u is in no class of the class table", r);
    }
    if (ls->is_kernel_stream)
        s->f->kernels++;
    else if (ls->is_device_thread)
        count_device_construct(s, c, r < s->nregions ? s->region_role[r] : OTF2_REGION_ROLE_UNKNOWN, t);
    else if (ls->role == OFFTRACE_LOC_HOST_THREAD)
        count_construct(s, c);
    return OTF2_CALLBACK_SUCCESS;
}

static void add_interval(interval **v, size_t *n, uint64_t b, uint64_t e, uint32_t line)
{
    if (*n % 1024 == 0)
        *v = realloc(*v, (*n + 1024) * sizeof **v);
    (*v)[(*n)++] = (interval){b, e, line};
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    loc_state *ls = on_event(s, l, t);
    if (!ls)
        return OTF2_CALLBACK_SUCCESS;
    if (!ls->depth || ls->stack[ls->depth - 1] != r) /* region-nesting, counted by otf2_rules.c */
        return OTF2_CALLBACK_SUCCESS;
    uint64_t begin = ls->begin[--ls->depth];
    if (ls->is_kernel_stream)
        add_interval(&s->kernels, &s->nkernels, begin, t, s->region_line[r]);
    else if (ls->role == OFFTRACE_LOC_HOST_THREAD && construct_of[class_of(s, r)] == AC_CONSTRUCT_TARGET)
        add_interval(&s->targets, &s->ntargets, begin, t, s->region_line[r]);
    return OTF2_CALLBACK_SUCCESS;
}

/* offtrace's transfers go to a device's RDMA location (that the rank is in
 * the window's communicator, and the matching of completions, are OTF2's
 * rules: otf2_rules.c). */
static void rma_op(state *s, OTF2_LocationRef l, OTF2_TimeStamp t, uint32_t remote, uint64_t id,
                   OTF2_AttributeList *a)
{
    loc_state *ls = on_event(s, l, t);
    /* docs/variables.md: a put/get carries its variable alone, inside its data op's Enter of that variable */
    uint32_t variable = variable_of(s, a);
    for (int k = 0; k < OFFTRACE_MAP_ATTRIBUTE_COUNT; k++)
        if (k != MAP_VARIABLE && has_map(s, a, k)) {
            bad_map(s, "a put/get with a map attribute other than the variable", l, t);
            break;
        }
    if (variable != NO_VARIABLE) {
        s->f->named_transfers++;
        if (!ls || !ls->depth || ls->depth > MAX_DEPTH || ls->variable[ls->depth - 1] != variable)
            bad_map(s, "a put/get's variable is not that of the data op it is issued in", l, t);
    }
    if (remote >= s->ncomm || !loc(s, s->comm_members[remote]) || !loc(s, s->comm_members[remote])->is_rdma) {
        s->f->bad_remote++;
        problem(s, "RMA remote rank %u is not an RDMA location", remote);
    }
}

static OTF2_CallbackCode e_put(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id)
{
    state *s = u;
    s->f->puts++;
    s->f->put_bytes += bytes;
    rma_op(s, l, t, remote, id, a);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_get(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id)
{
    state *s = u;
    s->f->gets++;
    s->f->get_bytes += bytes;
    rma_op(s, l, t, remote, id, a);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_complete(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                    OTF2_RmaWinRef w, uint64_t id)
{
    state *s = u;
    on_event(s, l, t);
    s->f->completions++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_metric(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                  OTF2_MetricRef m, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *v)
{
    state *s = u;
    on_event(s, l, t);
    s->f->metrics++;
    return OTF2_CALLBACK_SUCCESS;
}

static int read_defs(OTF2_Reader *rd, state *s)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, d_attribute);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, d_grp);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, d_location_property);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, g, cb, s);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, g, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseGlobalDefReader(rd, g);
    return rc;
}

/* A region's role and paradigm are its class's (DEVICE_WORK and DEVICE_SYNC
 * refine the role by subkind). */
static void check_region_classes(state *s)
{
    for (size_t r = 0; r < s->nregions && r < s->nclasses; r++) {
        offtrace_event_class c = class_of(s, r);
        if (!s->region_name[r] || c == OFFTRACE_CLASS_NONE)
            continue;
        int refined = c == OFFTRACE_CLASS_DEVICE_WORK || c == OFFTRACE_CLASS_DEVICE_SYNC || c == OFFTRACE_CLASS_HOST_WORK ||
                      c == OFFTRACE_CLASS_HOST_CHUNK || c == OFFTRACE_CLASS_HOST_SYNC || c == OFFTRACE_CLASS_HOST_SYNC_WAIT ||
                      c == OFFTRACE_CLASS_HOST_MUTEX;
        if (s->region_paradigm[r] != offtrace_class_paradigm(c) ||
            (!refined && s->region_role[r] != offtrace_class_role(c))) {
            s->f->bad_groups++;
            problem(s, "region %s: role %d, paradigm %d, not those of its class %s", s->region_name[r],
                    (int)s->region_role[r], (int)s->region_paradigm[r], offtrace_class(c)->class_name);
        }
    }
}

/* What each location is, from its role property: every location of an
 * offtrace archive has one, and the role must fit the location's type. */
static void classify_locations(state *s)
{
    for (size_t i = 0; i < s->nlocs; i++) {
        loc_state *l = &s->locs[i];
        if (l->role == OFFTRACE_LOC_ROLE_COUNT) {
            s->f->bad_groups++;
            problem(s, "location %llu has no %s", (unsigned long long)l->id, OFFTRACE_LOCATION_ROLE_PROPERTY);
            continue;
        }
        int cpu = l->role == OFFTRACE_LOC_HOST_THREAD;
        if (cpu != (l->type == OTF2_LOCATION_TYPE_CPU_THREAD)) {
            s->f->bad_groups++;
            problem(s, "location %llu: role %s on a location of OTF2 type %d", (unsigned long long)l->id,
                    offtrace_location_role_name(l->role), (int)l->type);
        }
        l->is_rdma = l->role == OFFTRACE_LOC_RDMA;
        l->is_device_thread = l->role == OFFTRACE_LOC_DEVICE_THREAD;
        l->is_kernel_stream = l->role == OFFTRACE_LOC_KERNEL_STREAM;
        s->f->device_threads += l->is_device_thread;
        s->f->rdma_locations += l->is_rdma;
    }
}

static int read_events(OTF2_Reader *rd, state *s)
{
    for (size_t i = 0; i < s->nlocs; i++)
        OTF2_Reader_SelectLocation(rd, s->locs[i].id);
    OTF2_Reader_OpenDefFiles(rd);
    OTF2_Reader_OpenEvtFiles(rd);
    for (size_t i = 0; i < s->nlocs; i++) {
        OTF2_DefReader *d = OTF2_Reader_GetDefReader(rd, s->locs[i].id);
        uint64_t n;
        if (d) {
            OTF2_Reader_ReadAllLocalDefinitions(rd, d, &n);
            OTF2_Reader_CloseDefReader(rd, d);
        }
        if (!OTF2_Reader_GetEvtReader(rd, s->locs[i].id))
            return -1;
    }
    OTF2_Reader_CloseDefFiles(rd);
    OTF2_GlobalEvtReader *g = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(cb, e_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(cb, e_get);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, e_complete);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, e_metric);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, g, cb, s);
    OTF2_GlobalEvtReaderCallbacks_Delete(cb);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllGlobalEvents(rd, g, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseGlobalEvtReader(rd, g);
    OTF2_Reader_CloseEvtFiles(rd);
    return rc;
}

/* Each kernel must lie inside a host `target` region of the same source line. */
static void check_kernels(state *s)
{
    for (size_t k = 0; k < s->nkernels; k++) {
        int inside = 0;
        for (size_t t = 0; t < s->ntargets && !inside; t++)
            inside = s->targets[t].line == s->kernels[k].line && s->targets[t].begin <= s->kernels[k].begin &&
                     s->kernels[k].end <= s->targets[t].end;
        if (!inside) {
            s->f->kernel_outside++;
            problem(s, "kernel of line %u at %llu lies in no host target region", s->kernels[k].line,
                    (unsigned long long)s->kernels[k].begin);
        }
    }
}

static int by_begin(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Host target regions merged into disjoint spans (nowait targets overlap). */
static size_t merge_targets(state *s, interval *merged)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ntargets; i++) {
        if (n && s->targets[i].begin <= merged[n - 1].end) {
            if (s->targets[i].end > merged[n - 1].end)
                merged[n - 1].end = s->targets[i].end;
        } else
            merged[n++] = s->targets[i];
    }
    return n;
}

/* Device-thread events must lie inside host target regions, and every host
 * target region should hold a device parallel region (a fact, not a rule:
 * host-only traces have none). */
static void check_device_detail(state *s)
{
    qsort(s->targets, s->ntargets, sizeof *s->targets, by_begin);
    interval *merged = malloc((s->ntargets + 1) * sizeof *merged);
    size_t n = merge_targets(s, merged);
    for (size_t i = 0; i < s->ndevice_times; i++) {
        uint64_t t = s->device_times[i];
        size_t lo = 0, hi = n; /* first span with begin > t */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (merged[mid].begin <= t)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0 || t > merged[lo - 1].end) {
            s->f->device_outside++;
            problem(s, "device-thread event at %llu lies in no host target region", (unsigned long long)t);
        }
    }
    free(merged);
    qsort(s->device_parallels, s->ndevice_parallels, sizeof *s->device_parallels, by_value);
    for (size_t k = 0; k < s->ntargets; k++) {
        size_t lo = 0, hi = s->ndevice_parallels;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (s->device_parallels[mid] < s->targets[k].begin)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == s->ndevice_parallels || s->device_parallels[lo] > s->targets[k].end)
            s->f->targets_without_device_parallel++;
    }
}

static void final_checks(state *s)
{
    check_kernels(s);
    check_device_detail(s);
}

static int run_check(const char *dir, archive_facts *f, uint64_t wanted, uint64_t **times, size_t *ntimes)
{
    memset(f, 0, sizeof *f);
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    state *s = calloc(1, sizeof *s);
    s->f = f;
    s->wanted_location = wanted;
    for (int k = 0; k < OFFTRACE_MAP_ATTRIBUTE_COUNT; k++)
        s->map_attr[k] = UINT32_MAX;
    s->first_iteration = s->iterations = s->team_size = s->thread_number = UINT32_MAX;
    int rc = read_defs(rd, s);
    char *version = NULL;
    if (rc == 0 && (OTF2_Reader_GetProperty(rd, OFFTRACE_CATALOGUE_PROPERTY, &version) != OTF2_SUCCESS || !version ||
                    strtoul(version, NULL, 10) != OFFTRACE_CATALOGUE_VERSION)) {
        f->bad_groups++;
        problem(s, "no %s %u", OFFTRACE_CATALOGUE_PROPERTY, OFFTRACE_CATALOGUE_VERSION);
    }
    free(version);
    if (rc == 0) {
        classify_locations(s);
        check_region_classes(s);
    }
    if (rc == 0)
        rc = read_events(rd, s);
    if (rc == 0)
        final_checks(s);
    OTF2_Reader_Close(rd);
    /* Every structural rule of the OTF2 3.0 headers, by the producer-
     * independent checker; this file checks what offtrace's archives mean. */
    otf2_rules_report rules;
    if (rc == 0 && otf2_rules_check(anchor, &rules) != 0)
        rc = -1;
    if (rc == 0 && (f->otf2_rules = otf2_rules_total(&rules)) && !f->first_problem[0])
        otf2_rules_summary(&rules, f->first_problem, sizeof f->first_problem);
    check_string_free(&s->strings);
    for (size_t i = 0; i < s->nregions; i++)
        free(s->region_name[i]);
    free(s->region_name);
    free(s->region_line);
    free(s->region_class);
    free(s->region_role);
    free(s->region_paradigm);
    for (size_t i = 0; i < s->nlocs; i++)
        free(s->locs[i].maps);
    free(s->targets);
    free(s->kernels);
    free(s->device_times);
    free(s->device_parallels);
    if (times) {
        *times = s->wanted_times;
        *ntimes = s->nwanted_times;
    } else
        free(s->wanted_times);
    free(s);
    return rc;
}

int archive_check(const char *dir, archive_facts *f)
{
    return run_check(dir, f, UINT64_MAX, NULL, NULL);
}

int archive_location_times(const char *dir, uint64_t location, uint64_t **times, size_t *n)
{
    archive_facts f;
    return run_check(dir, &f, location, times, n);
}

int archive_property(const char *dir, const char *name, uint64_t *value)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return -1;
    char *text = NULL;
    int rc = -1;
    if (OTF2_Reader_GetProperty(rd, name, &text) == OTF2_SUCCESS && text) {
        *value = strtoull(text, NULL, 10);
        rc = 0;
    }
    free(text);
    OTF2_Reader_Close(rd);
    return rc;
}

uint64_t archive_violations(const archive_facts *f)
{
    return f->otf2_rules + f->bad_remote + f->kernel_outside + f->bad_groups + f->device_outside +
           f->bad_map_placement;
}

/*
 * host_openmp_check.c - the tests' reading of host OpenMP in an archive.
 * Regions are classified by the archive's class table (groups named
 * "OFFTRACE::REGION_CLASS::<class>") and their OTF2 role; chunk bounds and
 * trip counts are read from the attributes named "iterations" and
 * "first iteration". Independent of offtrace's reader (host/analysis).
 */
#define _GNU_SOURCE
#include "check/host_openmp_check.h"
#include "otf2_time_order.h"
#include "string_table.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOCS 512
#define MAX_DEPTH 256
#define MAX_LOOPS_PER_LOC 64

enum kind { K_OTHER, K_PARALLEL, K_IMPLICIT, K_WORK, K_CHUNK, K_SYNC, K_WAIT, K_MASKED, K_TARGET };

typedef struct loop_instance {
    uint32_t region;
    uint64_t occurrence, trip, chunk_sum;
    int has_chunks;
} loop_instance;

typedef struct frame {
    uint32_t region;
    uint64_t enter;
    uint64_t trip, chunk_sum;
    int has_chunks, implicit_task;
} frame;

typedef struct loc {
    uint64_t id;
    int host;
    uint64_t last_time;
    frame stack[MAX_DEPTH];
    size_t depth;
    uint64_t implicit_tasks, barriers;
    uint32_t loop_region[MAX_LOOPS_PER_LOC];
    uint64_t loop_seen[MAX_LOOPS_PER_LOC];
    unsigned nloops;
} loc;

typedef struct state {
    host_openmp_facts *f;
    check_string_table strings;
    uint8_t *region_kind;
    OTF2_RegionRole *region_role;
    uint32_t *region_name;
    size_t nregions;
    OTF2_AttributeRef iterations, first_iteration;
    loc *locs;
    size_t nlocs;
    loop_instance *instances;
    size_t ninstances;
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

static const char *str(const state *s, OTF2_StringRef r)
{
    return check_string_at(&s->strings, r);
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *text)
{
    state *s = u;
    return check_string_put(&s->strings, self, text) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    state *s = u;
    if (self >= s->nregions) {
        size_t n = self + 1024;
        s->region_kind = realloc(s->region_kind, n);
        s->region_role = realloc(s->region_role, n * sizeof *s->region_role);
        s->region_name = realloc(s->region_name, n * sizeof *s->region_name);
        memset(s->region_kind + s->nregions, K_OTHER, n - s->nregions);
        s->nregions = n;
    }
    s->region_role[self] = role;
    s->region_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    static const struct { const char *name; enum kind kind; } classes[] = {
        {"OFFTRACE::REGION_CLASS::HOST_PARALLEL", K_PARALLEL},
        {"OFFTRACE::REGION_CLASS::HOST_IMPLICIT_TASK", K_IMPLICIT},
        {"OFFTRACE::REGION_CLASS::HOST_WORK", K_WORK},
        {"OFFTRACE::REGION_CLASS::HOST_CHUNK", K_CHUNK},
        {"OFFTRACE::REGION_CLASS::HOST_SYNC", K_SYNC},
        {"OFFTRACE::REGION_CLASS::HOST_SYNC_WAIT", K_WAIT},
        {"OFFTRACE::REGION_CLASS::HOST_MASKED", K_MASKED},
        {"OFFTRACE::REGION_CLASS::TARGET", K_TARGET},
        {"OFFTRACE::REGION_CLASS::TARGET_NOWAIT", K_TARGET},
    };
    state *s = u;
    if (type != OTF2_GROUP_TYPE_REGIONS)
        return OTF2_CALLBACK_SUCCESS;
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
        if (!strcmp(str(s, name), classes[c].name))
            for (uint32_t i = 0; i < n; i++)
                if (members[i] < s->nregions)
                    s->region_kind[members[i]] = (uint8_t)classes[c].kind;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    state *s = u;
    if (!strcmp(str(s, name), "iterations"))
        s->iterations = self;
    else if (!strcmp(str(s, name), "first iteration"))
        s->first_iteration = self;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t events, OTF2_LocationGroupRef group)
{
    state *s = u;
    if (s->nlocs < MAX_LOCS)
        s->locs[s->nlocs++] = (loc){.id = self, .host = type == OTF2_LOCATION_TYPE_CPU_THREAD};
    return OTF2_CALLBACK_SUCCESS;
}

static loc *find(state *s, OTF2_LocationRef id, OTF2_TimeStamp t)
{
    for (size_t i = 0; i < s->nlocs; i++)
        if (s->locs[i].id == id) {
            loc *l = &s->locs[i];
            if (t < l->last_time)
                s->f->time_reversals++;
            l->last_time = t;
            return l->host ? l : NULL;
        }
    return NULL;
}

static enum kind kind_of(const state *s, OTF2_RegionRef r)
{
    return r < s->nregions ? (enum kind)s->region_kind[r] : K_OTHER;
}

static int is_barrier_role(OTF2_RegionRole role)
{
    return role == OTF2_REGION_ROLE_BARRIER || role == OTF2_REGION_ROLE_IMPLICIT_BARRIER ||
           role == OTF2_REGION_ROLE_TASK_WAIT;
}

static int inside_implicit_task(const loc *l)
{
    for (size_t i = 0; i < l->depth; i++)
        if (l->stack[i].implicit_task)
            return 1;
    return 0;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    host_openmp_facts *f = s->f;
    loc *l = find(s, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (l->depth == MAX_DEPTH) {
        problem(s, "nesting deeper than %d", MAX_DEPTH);
        return OTF2_CALLBACK_INTERRUPT;
    }
    enum kind k = kind_of(s, r);
    OTF2_RegionRole role = s->region_role[r];
    frame *parent = l->depth ? &l->stack[l->depth - 1] : NULL;
    frame *fr = &l->stack[l->depth++];
    *fr = (frame){.region = r, .enter = t};
    uint64_t v = 0;
    switch (k) {
    case K_PARALLEL: f->parallel++; break;
    case K_IMPLICIT:
        f->implicit_tasks++;
        l->implicit_tasks++;
        fr->implicit_task = 1;
        break;
    case K_WORK:
        if (role == OTF2_REGION_ROLE_LOOP) {
            f->loops++;
            fr->has_chunks = 0;
            if (!s->iterations || OTF2_AttributeList_GetUint64(a, s->iterations, &fr->trip) != OTF2_SUCCESS)
                problem(s, "a loop without its trip count");
        } else if (role == OTF2_REGION_ROLE_SECTIONS) {
            f->sections++;
        } else if (role == OTF2_REGION_ROLE_SINGLE) {
            f->singles++;
        }
        break;
    case K_CHUNK:
        if (role != OTF2_REGION_ROLE_CODE) /* a section, not a loop chunk */
            break;
        f->chunks++;
        if (!s->iterations || OTF2_AttributeList_GetUint64(a, s->iterations, &v) != OTF2_SUCCESS)
            problem(s, "a chunk without its iterations");
        f->chunk_iterations += v;
        if (!parent || kind_of(s, parent->region) != K_WORK || s->region_role[parent->region] != OTF2_REGION_ROLE_LOOP) {
            f->chunks_outside_loop++;
            problem(s, "a chunk outside a loop (in %s)", parent ? str(s, s->region_name[parent->region]) : "nothing");
        } else {
            parent->chunk_sum += v;
            parent->has_chunks = 1;
        }
        break;
    case K_SYNC:
        if (is_barrier_role(role)) {
            f->barriers++;
            l->barriers++;
        }
        break;
    case K_WAIT:
        f->waits++;
        if (!parent || kind_of(s, parent->region) != K_SYNC) {
            f->waits_outside_sync++;
            problem(s, "a waiting part outside its sync region");
        }
        break;
    case K_MASKED: f->masked++; break;
    case K_TARGET:
        f->targets++;
        l->depth--; /* not on the stack while asking */
        f->targets_in_parallel += inside_implicit_task(l);
        l->depth++;
        break;
    default: break;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static void add_instance(state *s, loc *l, const frame *fr)
{
    unsigned i = 0;
    while (i < l->nloops && l->loop_region[i] != fr->region)
        i++;
    if (i == l->nloops) {
        if (l->nloops == MAX_LOOPS_PER_LOC) {
            problem(s, "more than %d loop regions", MAX_LOOPS_PER_LOC);
            return;
        }
        l->loop_region[l->nloops] = fr->region;
        l->loop_seen[l->nloops++] = 0;
    }
    if (s->ninstances % 1024 == 0)
        s->instances = realloc(s->instances, (s->ninstances + 1024) * sizeof *s->instances);
    s->instances[s->ninstances++] = (loop_instance){fr->region, l->loop_seen[i]++, fr->trip, fr->chunk_sum,
                                                    fr->has_chunks};
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    loc *l = find(s, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (!l->depth || l->stack[l->depth - 1].region != r) {
        s->f->unmatched++;
        problem(s, "a Leave of %s that is not the innermost open region", str(s, s->region_name[r]));
        return OTF2_CALLBACK_SUCCESS;
    }
    frame *fr = &l->stack[--l->depth];
    if (kind_of(s, r) == K_WORK && s->region_role[r] == OTF2_REGION_ROLE_LOOP)
        add_instance(s, l, fr);
    if (kind_of(s, r) == K_CHUNK && s->region_role[r] == OTF2_REGION_ROLE_CODE)
        s->f->chunk_ns += t - fr->enter;
    return OTF2_CALLBACK_SUCCESS;
}

static int by_instance(const void *a, const void *b)
{
    const loop_instance *x = a, *y = b;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->occurrence > y->occurrence) - (x->occurrence < y->occurrence);
}

static void sum_instances(state *s)
{
    qsort(s->instances, s->ninstances, sizeof *s->instances, by_instance);
    for (size_t i = 0, j; i < s->ninstances; i = j) {
        uint64_t sum = 0;
        int chunks = 0;
        for (j = i; j < s->ninstances && by_instance(&s->instances[i], &s->instances[j]) == 0; j++) {
            sum += s->instances[j].chunk_sum;
            chunks |= s->instances[j].has_chunks;
        }
        s->f->loop_trip += s->instances[i].trip;
        if (!chunks)
            continue;
        s->f->loop_instances_with_chunks++;
        if (sum != s->instances[i].trip) {
            s->f->loop_instances_miscovered++;
            problem(s, "loop %s instance %llu: chunks cover %llu iterations of %llu",
                    str(s, s->region_name[s->instances[i].region]), (unsigned long long)s->instances[i].occurrence,
                    (unsigned long long)sum, (unsigned long long)s->instances[i].trip);
        }
    }
}

static void set_definitions(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
}

static size_t location_count(void *user)
{
    return ((state *)user)->nlocs;
}

static uint64_t location_id(void *user, size_t i)
{
    return ((state *)user)->locs[i].id;
}

int host_openmp_check(const char *dir, host_openmp_facts *f)
{
    memset(f, 0, sizeof *f);
    state s = {.f = f, .locs = calloc(MAX_LOCS, sizeof(loc))};
    otf2_time_ordered_read how = {.definitions = set_definitions, .events = set_events,
                                  .location_count = location_count, .location_id = location_id, .user = &s};
    if (otf2_read_in_time_order(dir, &how)) {
        free(s.locs);
        return -1;
    }
    for (size_t i = 0; i < s.nlocs; i++) {
        loc *l = &s.locs[i];
        if (l->depth) {
            f->unmatched += l->depth;
            problem(&s, "location %llu ends with %zu regions open", (unsigned long long)l->id, l->depth);
        }
        if (l->host && l->implicit_tasks && f->threads < HOST_CHECK_MAX_THREADS) {
            f->thread_implicit_tasks[f->threads] = l->implicit_tasks;
            f->thread_barriers[f->threads++] = l->barriers;
        }
    }
    sum_instances(&s);
    check_string_free(&s.strings);
    free(s.region_kind);
    free(s.region_role);
    free(s.region_name);
    free(s.locs);
    free(s.instances);
    return 0;
}

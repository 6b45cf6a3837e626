/*
 * host_openmp_check.c - the tests' reading of host OpenMP in an archive.
 * Regions are classified by the archive's class table (groups named
 * "OFFTRACE::REGION_CLASS::<class>") and their OTF2 role; chunk bounds and
 * trip counts are read from the attributes named "iterations" and
 * "first iteration". Independent of offtrace's reader (host/analysis).
 */
#include "check/host_openmp_check.h"
#include "host_check_base.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256
#define MAX_LOOPS_PER_LOC 64

/* 0 (K_OTHER): a region of no class the checker reads (host_check_base.h) */
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

/* two attributes an Enter carries or leaves out at their usual values: the location's last such Enter's (seen:
 * there was one) */
typedef struct pair {
    uint64_t a, b;
    int seen;
} pair;

/* what the checker keeps per location (the base's location facts) */
typedef struct loc {
    frame stack[MAX_DEPTH];
    size_t depth;
    uint64_t implicit_tasks, barriers;
    uint32_t loop_region[MAX_LOOPS_PER_LOC];
    uint64_t loop_seen[MAX_LOOPS_PER_LOC];
    unsigned nloops;
    pair chunk; /* its last chunk Enter's first iteration and iterations */
    pair team;  /* its last implicit task Enter's team size and thread number */
} loc;

typedef struct state {
    host_check_base base; /* first: the base's callbacks get the state */
    host_openmp_facts *f;
    OTF2_AttributeRef iterations, first_iteration, team_size, thread_number;
    loop_instance *instances;
    size_t ninstances;
} state;

static const host_check_class classes[] = {
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

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    state *s = u;
    host_check_base *base = &s->base;
    if (!strcmp(host_check_string(base, name), "iterations"))
        s->iterations = self;
    else if (!strcmp(host_check_string(base, name), "first iteration"))
        s->first_iteration = self;
    else if (!strcmp(host_check_string(base, name), "team size"))
        s->team_size = self;
    else if (!strcmp(host_check_string(base, name), "thread number"))
        s->thread_number = self;
    return OTF2_CALLBACK_SUCCESS;
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

/* Whether \p a carries the UINT64 attribute \p ref (0: undefined), and its value. */
static int carried(const state *s, OTF2_AttributeList *a, OTF2_AttributeRef ref, uint64_t *v)
{
    return ref && a && OTF2_AttributeList_TestAttributeByID(a, ref) &&
           OTF2_AttributeList_GetUint64(a, ref, v) == OTF2_SUCCESS;
}

/* An Enter's two values \p ra and \p rb: carried, or left out at \p usual_a and \p usual_b (those that follow from
 * the location's \p last such Enter); kept as the next one's last. 0: none to be had (a location's first without
 * both). */
static int take_pair(state *s, pair *last, OTF2_AttributeList *a, OTF2_AttributeRef ra, uint64_t usual_a, uint64_t *va,
                     OTF2_AttributeRef rb, uint64_t usual_b, uint64_t *vb)
{
    int has_a = carried(s, a, ra, va), has_b = carried(s, a, rb, vb);
    if (!last->seen && !(has_a && has_b))
        return 0;
    if (!has_a)
        *va = usual_a;
    if (!has_b)
        *vb = usual_b;
    *last = (pair){*va, *vb, 1};
    return 1;
}

/* A chunk's (docs/host-openmp.md "A chunk's iterations"; a section's too): its first iteration follows on from
 * the previous chunk Enter on the location, its iterations are the previous one's. */
static int chunk_bounds(state *s, loc *l, OTF2_AttributeList *a, uint64_t *first, uint64_t *v)
{
    return take_pair(s, &l->chunk, a, s->first_iteration, l->chunk.a + l->chunk.b, first, s->iterations, l->chunk.b, v);
}

/* An implicit task's (docs/host-openmp.md "An implicit task's team size and thread number"): the previous
 * one's. */
static int implicit_team(state *s, loc *l, OTF2_AttributeList *a, uint64_t *size, uint64_t *number)
{
    return take_pair(s, &l->team, a, s->team_size, l->team.a, size, s->thread_number, l->team.b, number);
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    host_check_base *base = &s->base;
    host_openmp_facts *f = s->f;
    loc *l = host_check_find(base, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (!host_check_has_room(base, l->depth, MAX_DEPTH))
        return OTF2_CALLBACK_INTERRUPT;
    enum kind k = host_check_kind(base, r);
    OTF2_RegionRole role = host_check_role(base, r);
    frame *parent = l->depth ? &l->stack[l->depth - 1] : NULL;
    frame *fr = &l->stack[l->depth++];
    *fr = (frame){.region = r, .enter = t};
    uint64_t v = 0, first = 0;
    switch (k) {
    case K_PARALLEL: f->parallel++; break;
    case K_IMPLICIT: {
        f->implicit_tasks++;
        l->implicit_tasks++;
        fr->implicit_task = 1;
        uint64_t size = 0, number = 0;
        if (!implicit_team(s, l, a, &size, &number)) {
            f->implicit_tasks_without_team++;
            host_check_problem(base, "an implicit task without its team size or thread number");
        }
        f->team_size_sum += size;
        f->thread_number_sum += number;
        break;
    }
    case K_WORK:
        if (role == OTF2_REGION_ROLE_LOOP) {
            f->loops++;
            fr->has_chunks = 0;
            if (!s->iterations || OTF2_AttributeList_GetUint64(a, s->iterations, &fr->trip) != OTF2_SUCCESS)
                host_check_problem(base, "a loop without its trip count");
        } else if (role == OTF2_REGION_ROLE_SECTIONS) {
            f->sections++;
        } else if (role == OTF2_REGION_ROLE_SINGLE) {
            f->singles++;
        }
        break;
    case K_CHUNK: {
        int bounded = chunk_bounds(s, l, a, &first, &v); /* a section's too: the next chunk may follow on */
        if (role != OTF2_REGION_ROLE_CODE) /* a section, not a loop chunk */
            break;
        f->chunks++;
        if (!bounded) {
            f->chunks_without_iterations++;
            host_check_problem(base, "a chunk without its first iteration or iterations");
        }
        f->chunk_iterations += v;
        if (!parent || host_check_kind(base, parent->region) != K_WORK ||
            host_check_role(base, parent->region) != OTF2_REGION_ROLE_LOOP) {
            f->chunks_outside_loop++;
            host_check_problem(base, "a chunk outside a loop (in %s)",
                               parent ? host_check_region_name(base, parent->region) : "nothing");
        } else {
            parent->chunk_sum += v;
            parent->has_chunks = 1;
        }
        break;
    }
    case K_SYNC:
        if (is_barrier_role(role)) {
            f->barriers++;
            l->barriers++;
        }
        break;
    case K_WAIT:
        f->waits++;
        if (!parent || host_check_kind(base, parent->region) != K_SYNC) {
            f->waits_outside_sync++;
            host_check_problem(base, "a waiting part outside its sync region");
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
            host_check_problem(&s->base, "more than %d loop regions", MAX_LOOPS_PER_LOC);
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
    host_check_base *base = &s->base;
    loc *l = host_check_find(base, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (!host_check_leaves_innermost(base, l->depth, l->depth ? l->stack[l->depth - 1].region : 0, r)) {
        s->f->unmatched++;
        return OTF2_CALLBACK_SUCCESS;
    }
    frame *fr = &l->stack[--l->depth];
    if (host_check_kind(base, r) == K_WORK && host_check_role(base, r) == OTF2_REGION_ROLE_LOOP)
        add_instance(s, l, fr);
    if (host_check_kind(base, r) == K_CHUNK && host_check_role(base, r) == OTF2_REGION_ROLE_CODE)
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
        host_check_base *base = &s->base;
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
            host_check_problem(base, "loop %s instance %llu: chunks cover %llu iterations of %llu",
                               host_check_region_name(base, s->instances[i].region),
                               (unsigned long long)s->instances[i].occurrence, (unsigned long long)sum,
                               (unsigned long long)s->instances[i].trip);
        }
    }
}

static void set_definitions(OTF2_GlobalDefReaderCallbacks *cb)
{
    host_check_definitions(cb);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
}

static const host_check_reading reading = {classes, sizeof classes / sizeof classes[0], sizeof(loc),
                                           set_definitions, set_events};

int host_openmp_check(const char *dir, host_openmp_facts *f)
{
    memset(f, 0, sizeof *f);
    state s = {.f = f};
    int rc = host_check_read(&s.base, dir, &reading, f->first_problem, sizeof f->first_problem);
    f->time_reversals = s.base.time_reversals;
    if (rc) {
        free(s.instances);
        return -1;
    }
    for (size_t i = 0; i < s.base.location_count; i++) {
        loc *l = host_check_facts_at(&s.base, i);
        f->unmatched += host_check_left_open(&s.base, i, l->depth);
        if (s.base.locations[i].host && l->implicit_tasks && f->threads < HOST_CHECK_MAX_THREADS) {
            f->thread_implicit_tasks[f->threads] = l->implicit_tasks;
            f->thread_barriers[f->threads++] = l->barriers;
        }
    }
    sum_instances(&s);
    host_check_end(&s.base);
    free(s.instances);
    return 0;
}

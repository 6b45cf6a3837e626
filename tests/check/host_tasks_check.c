/*
 * host_tasks_check.c - the tests' reading of explicit tasks in an archive.
 * Regions are classified by the archive's class table (groups named
 * "OFFTRACE::REGION_CLASS::HOST_TASK..."), task ids, flags, predecessors and
 * how a period ended are read from the attributes named "task id", "task
 * flags", "predecessor task" and "task end". Independent of offtrace's reader.
 */
#include "check/host_tasks_check.h"
#include "host_check_base.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 512

/* ompt_task_flag_t and ompt_task_status_t values (OpenMP 5.1, section 4.4.4.18 and 4.4.4.19) */
#define FLAG_TARGET 0x8u
#define FLAG_TASKWAIT 0x10u
#define FLAG_UNDEFERRED 0x08000000u
#define FLAG_UNTIED 0x10000000u
#define FLAG_FINAL 0x20000000u
#define FLAG_MERGEABLE 0x40000000u
#define STATUS_COMPLETE 1u

/* 0 (K_OTHER): a region of no class the checker reads (host_check_base.h) */
enum kind { K_OTHER, K_TASK, K_CREATE, K_DEPEND, K_EDGE, K_SYNC };

typedef struct frame {
    uint32_t region;
    uint64_t task;
} frame;

/* what the checker keeps per location (the base's location facts) */
typedef struct loc {
    uint64_t periods;
    frame stack[MAX_DEPTH];
    size_t depth;
} loc;

typedef struct pair {
    uint64_t a, b;
} pair;

typedef struct list {
    pair *v;
    size_t n;
} list;

typedef struct state {
    host_check_base base; /* first: the base's callbacks get the state */
    host_tasks_facts *f;
    OTF2_AttributeRef task_id, task_flags, task_end, predecessor;
    int have_attrs[4];
    list created;   /* id, flags */
    list completed; /* id, 0 */
    list periods;   /* id, 0 */
    list edges;     /* sink, source */
} state;

static void append(list *l, uint64_t a, uint64_t b)
{
    if (l->n % 4096 == 0)
        l->v = realloc(l->v, (l->n + 4096) * sizeof *l->v);
    l->v[l->n++] = (pair){a, b};
}

static int by_first(const void *x, const void *y)
{
    const pair *a = x, *b = y;
    return (a->a > b->a) - (a->a < b->a);
}

static const pair *lookup(const list *l, uint64_t key)
{
    pair k = {key, 0};
    return bsearch(&k, l->v, l->n, sizeof *l->v, by_first);
}

static const host_check_class classes[] = {
    {"OFFTRACE::REGION_CLASS::HOST_TASK", K_TASK},
    {"OFFTRACE::REGION_CLASS::HOST_TASK_CREATE", K_CREATE},
    {"OFFTRACE::REGION_CLASS::HOST_TASK_DEPEND", K_DEPEND},
    {"OFFTRACE::REGION_CLASS::HOST_TASK_DEPENDENCE", K_EDGE},
    {"OFFTRACE::REGION_CLASS::HOST_SYNC", K_SYNC},
};

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    static const char *names[4] = {"task id", "task flags", "task end", "predecessor task"};
    state *s = u;
    OTF2_AttributeRef *refs[4] = {&s->task_id, &s->task_flags, &s->task_end, &s->predecessor};
    for (int i = 0; i < 4; i++)
        if (!strcmp(host_check_string(&s->base, name), names[i])) {
            *refs[i] = self;
            s->have_attrs[i] = 1;
        }
    return OTF2_CALLBACK_SUCCESS;
}

static uint64_t attribute(state *s, OTF2_AttributeList *a, int which, OTF2_AttributeRef ref, const char *what)
{
    uint64_t v = 0;
    if (!s->have_attrs[which] || !a || OTF2_AttributeList_GetUint64(a, ref, &v) != OTF2_SUCCESS)
        host_check_problem(&s->base, "a task region without its %s", what);
    return v;
}

/* Whether the innermost open sync region is a taskwait or a taskgroup. */
static int innermost_sync_is_taskwait(const state *s, const loc *l)
{
    const host_check_base *base = &s->base;
    for (size_t i = l->depth; i-- > 0;) {
        if (host_check_kind(base, l->stack[i].region) != K_SYNC)
            continue;
        const char *name = host_check_region_name(base, l->stack[i].region);
        return !strncmp(name, "taskwait", 8) || !strncmp(name, "taskgroup", 9);
    }
    return 0;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    host_check_base *base = &s->base;
    host_tasks_facts *f = s->f;
    loc *l = host_check_find(base, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (!host_check_has_room(base, l->depth, MAX_DEPTH))
        return OTF2_CALLBACK_INTERRUPT;
    uint64_t task = 0, flags;
    switch (host_check_kind(base, r)) {
    case K_TASK:
        task = attribute(s, a, 0, s->task_id, "task id");
        f->periods++;
        l->periods++;
        f->periods_in_taskwait += innermost_sync_is_taskwait(s, l);
        append(&s->periods, task, 0);
        break;
    case K_CREATE:
        task = attribute(s, a, 0, s->task_id, "task id");
        flags = attribute(s, a, 1, s->task_flags, "task flags");
        f->creates++;
        f->undeferred += !!(flags & FLAG_UNDEFERRED);
        f->final += !!(flags & FLAG_FINAL);
        f->untied += !!(flags & FLAG_UNTIED);
        f->mergeable += !!(flags & FLAG_MERGEABLE);
        f->target += !!(flags & FLAG_TARGET);
        f->taskwait += !!(flags & FLAG_TASKWAIT);
        append(&s->created, task, flags);
        break;
    case K_DEPEND: f->depend_items++; break;
    case K_EDGE:
        f->edges++;
        append(&s->edges, attribute(s, a, 0, s->task_id, "task id"),
               attribute(s, a, 3, s->predecessor, "predecessor task"));
        break;
    default: break;
    }
    l->stack[l->depth++] = (frame){r, task};
    return OTF2_CALLBACK_SUCCESS;
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
    if (host_check_kind(base, r) == K_TASK) {
        s->f->period_ends++;
        if (attribute(s, a, 2, s->task_end, "task end") == STATUS_COMPLETE) {
            s->f->completes++;
            append(&s->completed, fr->task, 0);
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_task_create(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                       OTF2_CommRef team, uint32_t creator, uint32_t generation)
{
    state *s = u;
    if (host_check_find(&s->base, id, t))
        s->f->otf2_creates++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_task_complete(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                         OTF2_CommRef team, uint32_t creator, uint32_t generation)
{
    state *s = u;
    if (host_check_find(&s->base, id, t))
        s->f->otf2_completes++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_task_switch(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                       OTF2_CommRef team, uint32_t creator, uint32_t generation)
{
    state *s = u;
    if (host_check_find(&s->base, id, t) && generation)
        s->f->otf2_switches_to_explicit++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Every created task but a taskwait's completes once; every period and
 * edge names created tasks; edges from host tasks to target tasks. */
static void relate(state *s)
{
    host_check_base *base = &s->base;
    host_tasks_facts *f = s->f;
    qsort(s->created.v, s->created.n, sizeof *s->created.v, by_first);
    qsort(s->completed.v, s->completed.n, sizeof *s->completed.v, by_first);
    size_t j = 0;
    for (size_t i = 0; i < s->created.n; i++) {
        uint64_t id = s->created.v[i].a;
        size_t times = 0;
        while (j < s->completed.n && s->completed.v[j].a < id) {
            f->not_completed_once++; /* completed, never created */
            host_check_problem(base, "task %llu completed but never created",
                               (unsigned long long)s->completed.v[j].a);
            j++;
        }
        while (j < s->completed.n && s->completed.v[j].a == id)
            times++, j++;
        if (times != ((s->created.v[i].b & FLAG_TASKWAIT) ? 0u : 1u)) {
            f->not_completed_once++;
            host_check_problem(base, "task %llu completed %zu times", (unsigned long long)id, times);
        }
    }
    f->not_completed_once += s->completed.n - j;
    for (size_t i = 0; i < s->periods.n; i++)
        if (!lookup(&s->created, s->periods.v[i].a)) {
            f->periods_of_unknown++;
            host_check_problem(base, "a period of task %llu, never created", (unsigned long long)s->periods.v[i].a);
        }
    for (size_t i = 0; i < s->edges.n; i++) {
        const pair *sink = lookup(&s->created, s->edges.v[i].a), *source = lookup(&s->created, s->edges.v[i].b);
        if (!sink || !source) {
            f->edges_of_unknown++;
            host_check_problem(base, "an edge %llu -> %llu naming a task never created",
                               (unsigned long long)s->edges.v[i].b, (unsigned long long)s->edges.v[i].a);
            continue;
        }
        f->edges_host_to_target += (sink->b & FLAG_TARGET) && !(source->b & FLAG_TARGET);
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
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCreateCallback(cb, e_task_create);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, e_task_complete);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, e_task_switch);
}

static void free_lists(state *s)
{
    free(s->created.v);
    free(s->completed.v);
    free(s->periods.v);
    free(s->edges.v);
}

static const host_check_reading reading = {classes, sizeof classes / sizeof classes[0], sizeof(loc),
                                           set_definitions, set_events};

int host_tasks_check(const char *dir, host_tasks_facts *f)
{
    memset(f, 0, sizeof *f);
    state s = {.f = f};
    int rc = host_check_read(&s.base, dir, &reading, f->first_problem, sizeof f->first_problem);
    f->time_reversals = s.base.time_reversals;
    if (rc) {
        free_lists(&s);
        return -1;
    }
    for (size_t i = 0; i < s.base.location_count; i++) {
        loc *l = host_check_facts_at(&s.base, i);
        f->unmatched += host_check_left_open(&s.base, i, l->depth);
        if (s.base.locations[i].host && l->periods && f->threads < TASK_CHECK_MAX_THREADS)
            f->thread_periods[f->threads++] = l->periods;
    }
    relate(&s);
    host_check_end(&s.base);
    free_lists(&s);
    return 0;
}

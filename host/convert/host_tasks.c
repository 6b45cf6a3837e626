/**
 * \file host_tasks.c
 * \brief The program's explicit tasks in the archive (level all): periods,
 *        creations, depend items and dependence edges (host_tasks.h).
 *
 * A period of a task is a region `task @file:line` (the creation site) on
 * the thread that ran it: entered when the runtime switches to the task,
 * left when it switches away (a switch, a yield, a detach, the task's
 * completion), inside whatever the thread was in (a barrier's wait, a
 * taskwait, a taskgroup). A task that suspends while something it opened
 * is still open (it waits in a taskwait and the thread runs another task
 * there) stays entered: the task run in its taskwait nests inside it, as
 * it does on the thread's stack. The Leave carries how the period ended.
 *
 * The creation is a point region `task create @file:line` on the creating
 * thread, with the task's id, flags and parent; each depend item a point
 * region `depend` with the variable's address and the dependence type, and
 * each edge the runtime resolved a point region `after task` naming the
 * predecessor: a reader follows an edge from a task's id to its
 * predecessor's `task create` and periods (the same id), be the
 * predecessor a host task or a `target nowait` task on a hidden helper
 * thread.
 *
 * OTF2's own task events go with them (ThreadTaskCreate at the creation,
 * ThreadTaskSwitch at every switch, ThreadTaskComplete at the completion),
 * in one thread team over all host threads (below), so that OTF2 readers
 * that know tasks (Vampir) see them as tasks.
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "host_tasks.h"

typedef struct task_entry {
    uint64_t id, codeptr, parent;
    uint32_t flags;
    OTF2_RegionRef region; /* its `task @site`, found at its first period */
} task_entry;

typedef struct site_entry {
    uint64_t codeptr;
    OTF2_RegionRef task, create;
} site_entry;

struct ot_host_task_table {
    task_entry *tasks; /* open addressing by id; id 0 = empty */
    size_t task_capacity, task_count;
    site_entry *sites; /* open addressing by codeptr + 1 */
    size_t site_capacity, site_count;
    /* the thread team: host thread indices in rank order (as trace_writer.c
     * ranks them: by location id), and whether the current pass began it */
    uint64_t *ranks;
    size_t rank_count;
    int ranks_ready, team_open;
};

static size_t slot_of(uint64_t key, size_t capacity)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

static task_entry *find_task(const struct ot_host_task_table *t, uint64_t id)
{
    if (!t || !t->task_capacity || !id)
        return NULL;
    for (size_t i = slot_of(id, t->task_capacity);; i = (i + 1) & (t->task_capacity - 1)) {
        if (t->tasks[i].id == id)
            return &t->tasks[i];
        if (!t->tasks[i].id)
            return NULL;
    }
}

static int grow_tasks(struct ot_host_task_table *t)
{
    size_t capacity = t->task_capacity ? t->task_capacity * 2 : 1024;
    task_entry *more = calloc(capacity, sizeof *more);
    if (!more)
        return -ENOMEM;
    for (size_t j = 0; j < t->task_capacity; j++) {
        if (!t->tasks[j].id)
            continue;
        size_t i = slot_of(t->tasks[j].id, capacity);
        while (more[i].id)
            i = (i + 1) & (capacity - 1);
        more[i] = t->tasks[j];
    }
    free(t->tasks);
    t->tasks = more;
    t->task_capacity = capacity;
    return 0;
}

int ot_host_tasks_note(converter *c, const offtrace_raw_record *r)
{
    if (r->event != OFFTRACE_RAW_OMP_TASK_CREATE || !r->id)
        return 0;
    if (!c->tasks && !(c->tasks = calloc(1, sizeof *c->tasks)))
        return -ENOMEM;
    struct ot_host_task_table *t = c->tasks;
    if (find_task(t, r->id)) /* ids are unique: a second one is a damaged record */
        return 0;
    if ((t->task_count + 1) * 2 > t->task_capacity && grow_tasks(t) != 0)
        return -ENOMEM;
    size_t i = slot_of(r->id, t->task_capacity);
    while (t->tasks[i].id)
        i = (i + 1) & (t->task_capacity - 1);
    t->tasks[i] = (task_entry){r->id, r->codeptr, r->target_id, (uint32_t)r->bytes, UINT32_MAX};
    t->task_count++;
    return 0;
}

void ot_host_tasks_free(converter *c)
{
    if (!c->tasks)
        return;
    free(c->tasks->tasks);
    free(c->tasks->sites);
    free(c->tasks->ranks);
    free(c->tasks);
    c->tasks = NULL;
}

/* ---- regions by site: one symbolizer look-up per creation site ---- */

static OTF2_RegionRef new_sited_region(converter *c, offtrace_event_class cls, uint64_t codeptr)
{
    ot_srcloc loc;
    char label[512], name[640];
    if (ot_symbolizer_lookup(c->sym, codeptr, &loc) != 0)
        memset(&loc, 0, sizeof loc);
    ot_srcloc_format(&loc, codeptr, label, sizeof label);
    snprintf(name, sizeof name, "%s @%s", offtrace_class(cls)->name, label);
    return ot_tw_region(c->tw, cls, name, loc.file, loc.line, loc.line);
}

static site_entry *site(converter *c, uint64_t codeptr)
{
    struct ot_host_task_table *t = c->tasks;
    if (!t)
        return NULL;
    uint64_t key = codeptr + 1;
    if ((t->site_count + 1) * 2 > t->site_capacity) {
        size_t capacity = t->site_capacity ? t->site_capacity * 2 : 64;
        site_entry *more = calloc(capacity, sizeof *more);
        if (!more)
            return NULL;
        for (size_t j = 0; j < t->site_capacity; j++) {
            if (!t->sites[j].codeptr)
                continue;
            size_t i = slot_of(t->sites[j].codeptr, capacity);
            while (more[i].codeptr)
                i = (i + 1) & (capacity - 1);
            more[i] = t->sites[j];
        }
        free(t->sites);
        t->sites = more;
        t->site_capacity = capacity;
    }
    size_t i = slot_of(key, t->site_capacity);
    for (; t->sites[i].codeptr; i = (i + 1) & (t->site_capacity - 1))
        if (t->sites[i].codeptr == key)
            return &t->sites[i];
    t->sites[i] = (site_entry){key, new_sited_region(c, OFFTRACE_CLASS_HOST_TASK, codeptr),
                               new_sited_region(c, OFFTRACE_CLASS_HOST_TASK_CREATE, codeptr)};
    t->site_count++;
    return &t->sites[i];
}

static OTF2_RegionRef plain_region(converter *c, offtrace_event_class cls)
{
    return ot_tw_region(c->tw, cls, offtrace_class(cls)->name, NULL, 0, 0);
}

/* ---- OTF2's thread team and task events ----
 * A task is named in OTF2 by (thread team, creating thread's rank in it,
 * generation number): offtrace's id already is that pair, the creating
 * thread's index (id >> 40, minus 1) and its own counter (the low 40 bits;
 * the low 32 of it as generation). The team is one communicator over every
 * host thread (trace_writer.c), begun on a thread's location at its first
 * task event and ended at its last event. An implicit task is generation 0
 * of the thread that runs it. */

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The host locations: every stream's thread, and the master thread's
 * location when the converter added an empty one. */
static int make_ranks(converter *c)
{
    struct ot_host_task_table *t = c->tasks;
    t->ranks = malloc((c->rec.stream_count + 1) * sizeof *t->ranks);
    if (!t->ranks)
        return -ENOMEM;
    int has_zero = 0;
    for (size_t i = 0; i < c->rec.stream_count; i++) {
        t->ranks[t->rank_count++] = c->rec.streams[i].header.thread_index;
        has_zero |= c->rec.streams[i].header.thread_index == 0;
    }
    if (!has_zero && ot_tw_has_location(c->tw, 0))
        t->ranks[t->rank_count++] = 0;
    qsort(t->ranks, t->rank_count, sizeof *t->ranks, by_value);
    t->ranks_ready = 1;
    return 0;
}

/* The rank of thread \p index in the team; -1 when it has no location. */
static int64_t rank_of(converter *c, uint64_t index)
{
    struct ot_host_task_table *t = c->tasks;
    if (!t->ranks_ready && make_ranks(c) != 0)
        return -1;
    const uint64_t *at = bsearch(&index, t->ranks, t->rank_count, sizeof *t->ranks, by_value);
    return at ? at - t->ranks : -1;
}

typedef enum task_event { TASK_CREATED, TASK_SWITCHED_TO, TASK_COMPLETED } task_event;

/* One of OTF2's task events for task \p id (0: this thread's implicit task). */
static void task_event_of(struct thread_pass *p, task_event what, uint64_t id, uint64_t t)
{
    converter *c = ot_hp_converter(p);
    if (!c->tasks)
        return;
    int64_t rank = rank_of(c, id ? (id >> 40) - 1 : ot_hp_thread_index(p));
    if (rank < 0)
        return;
    OTF2_EvtWriter *w = ot_hp_writer(p);
    OTF2_CommRef team = ot_tw_thread_team(c->tw);
    if (!c->tasks->team_open) {
        OTF2_EvtWriter_ThreadTeamBegin(w, NULL, t, team);
        c->tasks->team_open = 1;
    }
    uint32_t generation = (uint32_t)(id & 0xFFFFFFFFu);
    if (what == TASK_CREATED)
        OTF2_EvtWriter_ThreadTaskCreate(w, NULL, t, team, (uint32_t)rank, generation);
    else if (what == TASK_SWITCHED_TO)
        OTF2_EvtWriter_ThreadTaskSwitch(w, NULL, t, team, (uint32_t)rank, generation);
    else
        OTF2_EvtWriter_ThreadTaskComplete(w, NULL, t, team, (uint32_t)rank, generation);
    ot_tw_cover(c->tw, t);
}

void ot_host_tasks_end_thread(struct thread_pass *p, uint64_t t)
{
    converter *c = ot_hp_converter(p);
    if (!c->tasks || !c->tasks->team_open)
        return;
    OTF2_EvtWriter_ThreadTeamEnd(ot_hp_writer(p), NULL, t, ot_tw_thread_team(c->tw));
    ot_tw_cover(c->tw, t);
    c->tasks->team_open = 0;
}

/* ---- one thread's records ---- */

static void add_task_attributes(OTF2_AttributeList *a, uint64_t id, uint64_t flags, uint64_t parent)
{
    OTF2_AttributeList_AddUint64(a, OT_ATTR_TASK_ID, id);
    OTF2_AttributeList_AddUint64(a, OT_ATTR_TASK_FLAGS, flags);
    OTF2_AttributeList_AddUint64(a, OT_ATTR_PARENT_TASK, parent);
}

static void on_create(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_hp_converter(p);
    site_entry *s = site(c, r->codeptr);
    if (!s)
        return;
    add_task_attributes(ot_hp_attributes(p), r->id, r->bytes, r->target_id);
    ot_hp_mark(p, s->create, t);
    task_event_of(p, TASK_CREATED, r->id, t);
}

static int fulfils_only(uint8_t status)
{
    return status == ompt_task_early_fulfill || status == ompt_task_late_fulfill;
}

/* The prior task's period ends here unless something it opened is still
 * open above it (it waits there; the next task runs inside that wait). */
static void on_schedule(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_hp_converter(p);
    if (fulfils_only(r->subkind)) /* the event of a detached task: nothing changes on this thread */
        return;
    if (r->id && ot_hp_where(p, OFFTRACE_RAW_OMP_TASK_SCHEDULE, r->id) == 1) {
        OTF2_AttributeList_AddUint64(ot_hp_attributes(p), OT_ATTR_TASK_END, r->subkind);
        ot_hp_close_innermost(p, t);
    }
    if (r->id && r->subkind == ompt_task_complete && find_task(c->tasks, r->id))
        task_event_of(p, TASK_COMPLETED, r->id, t);
    task_entry *task = find_task(c->tasks, r->target_id);
    /* OTF2: the thread runs this task now (0: its implicit one), but after a
     * `taskwait depend`'s own task (next: none) the task that waited goes on */
    if (task || (!r->target_id && r->subkind != ompt_taskwait_complete))
        task_event_of(p, TASK_SWITCHED_TO, r->target_id, t);
    if (!r->target_id || ot_hp_where(p, OFFTRACE_RAW_OMP_TASK_SCHEDULE, r->target_id))
        return;
    if (!task) { /* created before the recording, or its creation was lost */
        c->unmatched++;
        return;
    }
    if (task->region == UINT32_MAX) {
        site_entry *s = site(c, task->codeptr);
        if (!s)
            return;
        task->region = s->task;
    }
    add_task_attributes(ot_hp_attributes(p), task->id, task->flags, task->parent);
    ot_hp_open(p, OFFTRACE_RAW_OMP_TASK_SCHEDULE, task->id, task->region, t);
}

void ot_host_tasks_convert(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_hp_converter(p);
    OTF2_AttributeList *a = ot_hp_attributes(p);
    switch (r->event) {
    case OFFTRACE_RAW_OMP_TASK_CREATE:
        on_create(p, r, t);
        break;
    case OFFTRACE_RAW_OMP_TASK_SCHEDULE:
        on_schedule(p, r, t);
        break;
    case OFFTRACE_RAW_OMP_TASK_DEPENDENCES:
        OTF2_AttributeList_AddUint64(a, OT_ATTR_TASK_ID, r->id);
        OTF2_AttributeList_AddUint64(a, OT_ATTR_DEPEND_ADDRESS, r->src_addr);
        OTF2_AttributeList_AddUint64(a, OT_ATTR_DEPEND_TYPE, r->subkind);
        ot_hp_mark(p, plain_region(c, OFFTRACE_CLASS_HOST_TASK_DEPEND), t);
        break;
    case OFFTRACE_RAW_OMP_TASK_DEPENDENCE:
        OTF2_AttributeList_AddUint64(a, OT_ATTR_TASK_ID, r->id);
        OTF2_AttributeList_AddUint64(a, OT_ATTR_PREDECESSOR_TASK, r->target_id);
        ot_hp_mark(p, plain_region(c, OFFTRACE_CLASS_HOST_TASK_DEPENDENCE), t);
        break;
    default:
        break;
    }
}

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
#include "external_sort.h"
#include "host_tasks.h"
#include "spill_file.h"

/* What a period needs of its task's creation (site, flags, parent) is
 * learned in bounded memory (docs/architecture.md, the conversion) rather
 * than kept in a table of every task: the first pass puts every creation
 * into an external sort by id, and every task switch's question (is the
 * prior task known, what created the next one) into another by id; the two
 * are joined front to back, and the answers go through a third sort by
 * thread and time into a scratch file that the thread being converted reads
 * front to back as its switches come (a thread's records are in time order
 * in its stream). Only the creation sites and the thread team's ranks stay
 * in memory. */

typedef struct task_creation {
    uint64_t id, seq, codeptr, parent; /* seq: the first pass's order, so that a repeated id keeps its first */
    uint32_t flags, unused;
} task_creation;

enum { PRIOR_TASK, NEXT_TASK };

typedef struct task_question {
    uint64_t id, time, prior, next; /* about task id, asked by the switch (thread, time, prior, next) */
    uint32_t thread, role;
} task_question;

typedef struct task_answer {
    uint64_t time, prior, next, codeptr, parent;
    uint32_t thread, role, flags, unused;
} task_answer;

typedef struct thread_start {
    uint32_t thread;
    uint64_t first; /* index of its first answer in the scratch file */
} thread_start;

#define ANSWER_WINDOW 1024u /* answers read at a time */

typedef struct site_entry {
    uint64_t codeptr;
    OTF2_RegionRef task, create;
} site_entry;

struct ot_host_task_table {
    ot_external_sort *creations, *questions; /* filled by the first pass */
    uint64_t creation_count;
    uint64_t first_asked; /* the earliest question's time (asker_key) */
    int built, failed;
    ot_spill_file *answers; /* task_answer, by thread, time, prior, next, role */
    uint64_t answer_count;
    thread_start *starts; /* one per thread with answers, by thread */
    size_t start_count;
    /* the thread being read: window of answers[window_first, window_first + window_len) */
    task_answer window[ANSWER_WINDOW];
    uint64_t window_first, position, thread_end;
    uint64_t last_time, last_prior, last_next; /* the last question asked */
    size_t window_len;
    uint32_t window_thread;
    int window_valid;
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

static int cmp_u64(uint64_t x, uint64_t y)
{
    return (x > y) - (x < y);
}

static int by_id_then_seq(const void *a, const void *b)
{
    const task_creation *x = a, *y = b;
    return x->id != y->id ? cmp_u64(x->id, y->id) : cmp_u64(x->seq, y->seq);
}

static int by_asked_id(const void *a, const void *b)
{
    const task_question *x = a, *y = b;
    return cmp_u64(x->id, y->id);
}

/* Answers in the order a thread's pass asks: thread, time, prior, next, role. */
static int answer_vs(const task_answer *x, uint32_t thread, uint64_t time, uint64_t prior, uint64_t next)
{
    if (x->thread != thread)
        return x->thread < thread ? -1 : 1;
    if (x->time != time)
        return cmp_u64(x->time, time);
    if (x->prior != prior)
        return cmp_u64(x->prior, prior);
    return cmp_u64(x->next, next);
}

static int by_asker(const void *a, const void *b)
{
    const task_answer *x = a, *y = b;
    int cmp = answer_vs(x, y->thread, y->time, y->prior, y->next);
    return cmp ? cmp : (x->role > y->role) - (x->role < y->role);
}

/* by_asker's order in 64 bits, for the sort's integer comparisons
 * (ot_es_add_keyed): the thread in the top 20 bits, the time since the
 * first question in the low 44 (4.8 hours). Threads from 2^20 - 1 on and
 * later times share the largest key, and by_asker tells them apart. */
static uint64_t asker_key(const struct ot_host_task_table *t, uint32_t thread, uint64_t time)
{
    const uint64_t most = (1ull << 44) - 1;
    if (thread >= (1u << 20) - 1)
        return UINT64_MAX;
    uint64_t since = time > t->first_asked ? time - t->first_asked : 0;
    return (uint64_t)thread << 44 | (since < most ? since : most);
}

static struct ot_host_task_table *table_of(converter *c)
{
    if (c->tasks)
        return c->tasks;
    struct ot_host_task_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->creations = ot_es_new(c->dir, sizeof(task_creation), by_id_then_seq);
    t->questions = ot_es_new(c->dir, sizeof(task_question), by_asked_id);
    t->first_asked = UINT64_MAX;
    if (!t->creations || !t->questions) {
        ot_es_free(t->creations);
        ot_es_free(t->questions);
        free(t);
        return NULL;
    }
    return c->tasks = t;
}

static int ask(struct ot_host_task_table *t, uint64_t id, const offtrace_raw_record *r, uint32_t thread,
               uint32_t role)
{
    if (!id)
        return 0;
    if (r->time < t->first_asked)
        t->first_asked = r->time;
    return ot_es_add_keyed(t->questions, &(task_question){id, r->time, r->id, r->target_id, thread, role}, id);
}

int ot_host_tasks_note(converter *c, const offtrace_raw_record *r, uint32_t thread)
{
    int create = r->event == OFFTRACE_RAW_OMP_TASK_CREATE && r->id;
    int schedule = r->event == OFFTRACE_RAW_OMP_TASK_SCHEDULE && (r->id || r->target_id);
    if (!create && !schedule)
        return 0;
    struct ot_host_task_table *t = table_of(c);
    if (!t)
        return -ENOMEM;
    if (t->built) /* too late: the answers are written */
        return 0;
    if (create) {
        task_creation k = {r->id, t->creation_count, r->codeptr, r->target_id, (uint32_t)r->bytes, 0};
        int rc = ot_es_add_keyed(t->creations, &k, k.id);
        t->creation_count += rc == 0;
        return rc;
    }
    /* on_schedule asks of the prior task only whether it was created, and only at its completion */
    int rc = r->subkind == ompt_task_complete ? ask(t, r->id, r, thread, PRIOR_TASK) : 0;
    return rc ? rc : ask(t, r->target_id, r, thread, NEXT_TASK);
}

static int grow_starts(struct ot_host_task_table *t, size_t *capacity)
{
    if (t->start_count < *capacity)
        return 0;
    size_t more = *capacity ? *capacity * 2 : 16;
    thread_start *starts = realloc(t->starts, more * sizeof *starts);
    if (!starts)
        return -ENOMEM;
    t->starts = starts;
    *capacity = more;
    return 0;
}

/* Join the creations and the questions, both by id, into \p by_asker_sort. */
static int join(struct ot_host_task_table *t, ot_external_sort *by_asker_sort)
{
    int rc = ot_es_finish(t->creations);
    if (!rc)
        rc = ot_es_finish(t->questions);
    /* k: the first creation of its id (a repeated id is a damaged record: the first one counts) */
    const task_creation *k = rc ? NULL : ot_es_next(t->creations);
    const task_question *q;
    while (!rc && (q = ot_es_next(t->questions))) {
        while (k && k->id < q->id) {
            uint64_t id = k->id;
            while ((k = ot_es_next(t->creations)) && k->id == id)
                ;
        }
        if (k && k->id == q->id)
            rc = ot_es_add_keyed(by_asker_sort,
                                 &(task_answer){q->time, q->prior, q->next, k->codeptr, k->parent, q->thread, q->role,
                                                k->flags, 0},
                                 asker_key(t, q->thread, q->time));
    }
    if (!rc)
        rc = ot_es_error(t->creations);
    return rc ? rc : ot_es_error(t->questions);
}

/* The answers, by thread, into the scratch file, and where each thread's begin. */
static int write_answers(struct ot_host_task_table *t, ot_external_sort *by_asker_sort, const char *dir)
{
    int rc = ot_es_finish(by_asker_sort);
    if (!rc && !(t->answers = ot_spill_open(dir)))
        rc = errno ? -errno : -ENOMEM;
    size_t start_capacity = 0;
    const task_answer *a;
    while (!rc && (a = ot_es_next(by_asker_sort))) {
        if ((!t->start_count || t->starts[t->start_count - 1].thread != a->thread) &&
            !(rc = grow_starts(t, &start_capacity)))
            t->starts[t->start_count++] = (thread_start){a->thread, t->answer_count};
        if (!rc && !(rc = ot_spill_append(t->answers, a, sizeof *a)))
            t->answer_count++;
    }
    return rc ? rc : ot_es_error(by_asker_sort);
}

static void build(converter *c, struct ot_host_task_table *t)
{
    t->built = 1;
    ot_external_sort *by_asker_sort = ot_es_new(c->dir, sizeof(task_answer), by_asker);
    int rc = by_asker_sort ? join(t, by_asker_sort) : -ENOMEM;
    ot_es_free(t->creations);
    ot_es_free(t->questions);
    t->creations = t->questions = NULL;
    if (!rc)
        rc = write_answers(t, by_asker_sort, c->dir);
    ot_es_free(by_asker_sort);
    t->failed = rc != 0;
}

/* Read from \p thread's first answer again. */
static int rewind_thread(struct ot_host_task_table *t, uint32_t thread)
{
    size_t lo = 0, hi = t->start_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->starts[mid].thread < thread)
            lo = mid + 1;
        else
            hi = mid;
    }
    t->window_valid = 0;
    if (lo == t->start_count || t->starts[lo].thread != thread)
        return -ENOENT;
    t->window_thread = thread;
    t->position = t->starts[lo].first;
    t->thread_end = lo + 1 < t->start_count ? t->starts[lo + 1].first : t->answer_count;
    t->window_first = t->position;
    t->window_len = 0;
    t->window_valid = 1;
    return 0;
}

/* The answer at \p index (of the thread read), or NULL past its last. */
static const task_answer *answer_at(struct ot_host_task_table *t, uint64_t index)
{
    if (index >= t->thread_end)
        return NULL;
    if (index < t->window_first || index >= t->window_first + t->window_len) {
        uint64_t left = t->thread_end - index;
        size_t len = left < ANSWER_WINDOW ? (size_t)left : ANSWER_WINDOW;
        if (ot_spill_read(t->answers, index * sizeof *t->window, t->window, len * sizeof *t->window) != 0) {
            t->window_valid = 0;
            return NULL;
        }
        t->window_first = index;
        t->window_len = len;
    }
    return &t->window[index - t->window_first];
}

typedef struct switch_facts {
    int prior_known;          /* the prior task's creation was recorded */
    const task_answer *next; /* the next task's creation, NULL if not recorded */
    task_answer next_copy;
} switch_facts;

/* What the task switch \p r on \p thread needs of its tasks' creations.
 * Asked in time order per thread, it reads on where the last question
 * stopped; asked out of order or for another thread, it starts over at the
 * thread's first answer. */
static switch_facts facts_of(converter *c, const offtrace_raw_record *r, uint32_t thread)
{
    switch_facts f = {0};
    struct ot_host_task_table *t = c->tasks;
    if (!t)
        return f;
    if (!t->built)
        build(c, t);
    if (t->failed)
        return f;
    int before_last = r->time != t->last_time ? r->time < t->last_time
                      : r->id != t->last_prior ? r->id < t->last_prior
                                               : r->target_id < t->last_next;
    if ((!t->window_valid || t->window_thread != thread || before_last) && rewind_thread(t, thread) != 0)
        return f;
    t->last_time = r->time;
    t->last_prior = r->id;
    t->last_next = r->target_id;
    const task_answer *a;
    while ((a = answer_at(t, t->position)) && answer_vs(a, thread, r->time, r->id, r->target_id) < 0)
        t->position++;
    for (uint64_t i = t->position; (a = answer_at(t, i)) && answer_vs(a, thread, r->time, r->id, r->target_id) == 0;
         i++) {
        if (a->role == PRIOR_TASK)
            f.prior_known = 1;
        else {
            f.next_copy = *a;
            f.next = &f.next_copy;
        }
    }
    return f;
}

void ot_host_tasks_free(converter *c)
{
    if (!c->tasks)
        return;
    ot_es_free(c->tasks->creations);
    ot_es_free(c->tasks->questions);
    ot_spill_close(c->tasks->answers);
    free(c->tasks->starts);
    free(c->tasks->sites);
    free(c->tasks->ranks);
    free(c->tasks);
    c->tasks = NULL;
}

/* Whether any task's creation was recorded (OTF2's task events need one). */
static int has_tasks(const converter *c)
{
    return c->tasks && c->tasks->creation_count;
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
    if (!has_tasks(c))
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
    switch_facts f = facts_of(c, r, ot_hp_thread_index(p));
    if (r->id && r->subkind == ompt_task_complete && f.prior_known)
        task_event_of(p, TASK_COMPLETED, r->id, t);
    const task_answer *task = f.next;
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
    site_entry *s = site(c, task->codeptr);
    if (!s)
        return;
    add_task_attributes(ot_hp_attributes(p), r->target_id, task->flags, task->parent);
    ot_hp_open(p, OFFTRACE_RAW_OMP_TASK_SCHEDULE, r->target_id, s->task, t);
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

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
 * than kept in a table of every task: the first pass writes the creations
 * to a scratch file by id, the first of each id only (a thread creates its
 * tasks in id order and the pass reads one stream after another: they come
 * in order), or, once one comes out of order, puts them through an
 * external sort by id that fills the file when the first switch is
 * converted. A task switch then looks its tasks up
 * there, where it is converted: through a few cached blocks of the file
 * (a thread's switches name tasks created near one another, so most
 * look-ups find their block cached), else a binary search over an index of
 * the blocks' first ids (of every block up to 512 blocks, of every other
 * one up to 1,024, ...: a constant size) and the blocks between two of its
 * entries. Only the creation sites, the cached blocks, the index and the
 * thread team's ranks stay in memory. */

typedef struct task_creation {
    uint64_t id, seq, codeptr, parent; /* seq: the first pass's order, so that a repeated id keeps its first */
    uint32_t flags, unused;
} task_creation;

/* A task's creation as the switches look it up: the creations' file, by id. */
typedef struct known_task {
    uint64_t id, codeptr, parent;
    uint32_t flags, unused;
} known_task;

#define BLOCK_TASKS 256u  /* known tasks read at once: 8 KiB */
#define CACHED_BLOCKS 8u  /* 64 KiB */
#define INDEX_ENTRIES 512u /* first ids of blocks: 4 KiB, however many tasks (past 131,072 every other block, ...) */

typedef struct task_block {
    uint64_t first; /* the index of items[0] in the file */
    size_t len;     /* 0: holds nothing */
    uint64_t used;  /* when it last served, for the replacement */
    known_task items[BLOCK_TASKS];
} task_block;

typedef struct site_entry {
    uint64_t codeptr;
    OTF2_RegionRef task, create;
} site_entry;

struct ot_host_task_table {
    uint64_t creation_count;
    int built, failed;
    ot_spill_file *known; /* known_task, by id, one per id */
    uint64_t known_count, last_known; /* and the last one's id */
    int sorting; /* the creations came out of order: they wait in creations, sorted when read */
    ot_external_sort *creations;
    task_block blocks[CACHED_BLOCKS];
    task_block *last_served; /* one of blocks */
    uint64_t index[INDEX_ENTRIES]; /* the first id of every index_stride-th block */
    size_t index_count;
    uint64_t index_stride;
    uint64_t look_ups;
    uint64_t asked_last; /* look_up's last question (0: none), whether it was known, and its answer */
    int asked_last_known;
    known_task answered_last;
    site_entry *sites; /* open addressing by codeptr + 1 */
    size_t site_capacity, site_count;
    /* the thread team: host thread indices in rank order (as trace_writer.c
     * ranks them: by location id), and whether the current pass began it */
    uint64_t *ranks;
    size_t rank_count;
    int ranks_ready, team_open;
    int rank_asked_valid; /* the last thread index rank_of was asked about, and its answer */
    uint64_t rank_asked;
    int64_t rank_answered;
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

static struct ot_host_task_table *table_of(converter *c)
{
    if (c->tasks)
        return c->tasks;
    struct ot_host_task_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->last_served = &t->blocks[0];
    t->index_stride = 1;
    return c->tasks = t;
}

/* Block \p block of the creations' file begins with task \p id: into the
 * index if it is one of every index_stride-th; a full index keeps every
 * other entry and doubles its stride. */
static void index_block(struct ot_host_task_table *t, uint64_t block, uint64_t id)
{
    if (block % t->index_stride)
        return;
    if (t->index_count == INDEX_ENTRIES) {
        for (size_t i = 0; i < INDEX_ENTRIES / 2; i++)
            t->index[i] = t->index[2 * i];
        t->index_count = INDEX_ENTRIES / 2;
        t->index_stride *= 2;
        if (block % t->index_stride)
            return;
    }
    t->index[t->index_count++] = id;
}

/* Append \p k to the creations' file (opened at the first), the first of
 * its id: \p k's id is not below the last one's. */
static int append_known(struct ot_host_task_table *t, const char *dir, const known_task *k)
{
    if (t->known_count && k->id == t->last_known)
        return 0; /* a repeated id is a damaged record: the first one counts */
    if (!t->known && !(t->known = ot_spill_open(dir)))
        return errno ? -errno : -ENOMEM;
    if (t->known_count % BLOCK_TASKS == 0)
        index_block(t, t->known_count / BLOCK_TASKS, k->id);
    int rc = ot_spill_append(t->known, k, sizeof *k);
    if (!rc) {
        t->known_count++;
        t->last_known = k->id;
    }
    return rc;
}

/* A creation came with an id below the last one's: the creations go
 * through the sort from now on, those in the file first (in their order,
 * so a later repeat of an id still comes after them), and the file and its
 * index start over when the sort is read. */
static int start_sorting(converter *c, struct ot_host_task_table *t)
{
    if (!(t->creations = ot_es_new(c->dir, sizeof(task_creation), by_id_then_seq)))
        return -ENOMEM;
    t->sorting = 1;
    known_task *window = t->blocks[0].items; /* no look-up before the file is written again */
    int rc = 0;
    for (uint64_t first = 0; !rc && first < t->known_count; first += BLOCK_TASKS) {
        uint64_t left = t->known_count - first;
        size_t len = left < BLOCK_TASKS ? (size_t)left : BLOCK_TASKS;
        rc = ot_spill_read(t->known, first * sizeof *window, window, len * sizeof *window);
        for (size_t i = 0; !rc && i < len; i++) {
            const known_task *k = &window[i];
            task_creation sorted = {k->id, first + i, k->codeptr, k->parent, k->flags, 0};
            rc = ot_es_add_keyed(t->creations, &sorted, k->id);
        }
    }
    ot_spill_close(t->known);
    t->known = NULL;
    t->known_count = t->index_count = 0;
    t->index_stride = 1;
    return rc;
}

int ot_host_tasks_note(converter *c, const offtrace_raw_record *r)
{
    if (r->event != OFFTRACE_RAW_OMP_TASK_CREATE || !r->id)
        return 0;
    struct ot_host_task_table *t = table_of(c);
    if (!t)
        return -ENOMEM;
    if (t->built) /* too late: the creations' file is written */
        return 0;
    int rc = 0;
    /* in id order (each thread creates its tasks so, one stream after another) straight into the file */
    if (!t->sorting && t->known_count && r->id < t->last_known)
        rc = start_sorting(c, t);
    if (!rc && !t->sorting)
        rc = append_known(t, c->dir, &(known_task){r->id, r->codeptr, r->target_id, (uint32_t)r->bytes, 0});
    else if (!rc) {
        task_creation k = {r->id, t->creation_count, r->codeptr, r->target_id, (uint32_t)r->bytes, 0};
        rc = ot_es_add_keyed(t->creations, &k, k.id);
    }
    t->creation_count += rc == 0;
    return rc;
}

/* The sorted creations into the creations' file. */
static int write_known(struct ot_host_task_table *t, const char *dir)
{
    int rc = ot_es_finish(t->creations);
    const task_creation *k;
    while (!rc && (k = ot_es_next(t->creations)))
        rc = append_known(t, dir, &(known_task){k->id, k->codeptr, k->parent, k->flags, 0});
    return rc ? rc : ot_es_error(t->creations);
}

static void build(converter *c, struct ot_host_task_table *t)
{
    t->built = 1;
    t->failed = t->sorting && write_known(t, c->dir) != 0;
    ot_es_free(t->creations);
    t->creations = NULL;
}

/* The known task \p id in \p b, which covers it; NULL when it has none. */
static const known_task *find_in_block(const task_block *b, uint64_t id)
{
    /* the last item whose id is not above id (items[0]'s is not: b covers
     * id), halving the range by a data dependency rather than a branch: the
     * ids a thread asks about jump around the block */
    const known_task *base = b->items;
    for (size_t n = b->len; n > 1; n -= n / 2)
        base = base[n / 2].id <= id ? base + n / 2 : base;
    return base->id == id ? base : NULL;
}

/* A cached block covers id when id lies between its first and last: the file is sorted. */
static int covers(const task_block *b, uint64_t id)
{
    return b->len && b->items[0].id <= id && id <= b->items[b->len - 1].id;
}

static int read_id(struct ot_host_task_table *t, uint64_t index, uint64_t *id)
{
    return ot_spill_read(t->known, index * sizeof(known_task), id, sizeof *id);
}

/* The creation of task \p id, NULL when none was recorded (or the file
 * cannot be read: then no task is known, as when the build failed). */
static const known_task *look_up_in_file(struct ot_host_task_table *t, uint64_t id)
{
    t->look_ups++;
    /* the block that served last first (consecutive switches name nearby tasks) */
    if (covers(t->last_served, id)) {
        t->last_served->used = t->look_ups;
        return find_in_block(t->last_served, id);
    }
    task_block *victim = &t->blocks[0];
    for (size_t i = 0; i < CACHED_BLOCKS; i++) {
        task_block *b = &t->blocks[i];
        if (covers(b, id)) {
            b->used = t->look_ups;
            t->last_served = b;
            return find_in_block(b, id);
        }
        if (!b->len || b->used < victim->used)
            victim = b;
    }
    /* the first block whose first id is after id (the one before it holds
     * id if anything does): between two index entries, then by reading the
     * first ids of the blocks between them */
    size_t entry = 0, entries = t->index_count;
    while (entry < entries) {
        size_t mid = entry + (entries - entry) / 2;
        if (t->index[mid] <= id)
            entry = mid + 1;
        else
            entries = mid;
    }
    if (!entry) /* before the first known task */
        return NULL;
    uint64_t blocks = (t->known_count + BLOCK_TASKS - 1) / BLOCK_TASKS, first;
    uint64_t lo = (entry - 1) * t->index_stride + 1, hi = entry * t->index_stride;
    if (hi > blocks)
        hi = blocks;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (read_id(t, mid * BLOCK_TASKS, &first) != 0) {
            t->failed = 1;
            return NULL;
        }
        if (first <= id)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t index = (lo - 1) * BLOCK_TASKS, left = t->known_count - index;
    size_t len = left < BLOCK_TASKS ? (size_t)left : BLOCK_TASKS;
    if (ot_spill_read(t->known, index * sizeof(known_task), victim->items, len * sizeof(known_task)) != 0) {
        victim->len = 0;
        t->failed = 1;
        return NULL;
    }
    victim->first = index;
    victim->len = len;
    victim->used = t->look_ups;
    t->last_served = victim;
    return find_in_block(victim, id);
}

/* look_up_in_file, but the task asked last again at once: a task that
 * creates none is asked as the next task when it starts and as the prior
 * one when it completes, with no other question between. */
static const known_task *look_up(struct ot_host_task_table *t, uint64_t id)
{
    if (!id || t->failed || !t->known_count)
        return NULL;
    if (id != t->asked_last) {
        const known_task *k = look_up_in_file(t, id);
        t->asked_last = id;
        t->asked_last_known = k != NULL;
        if (k)
            t->answered_last = *k;
    }
    return t->asked_last_known ? &t->answered_last : NULL;
}

typedef struct switch_facts {
    int prior_known;         /* the prior task's creation was recorded */
    const known_task *next; /* the next task's creation, NULL if not recorded */
    known_task next_copy;
} switch_facts;

/* What the task switch \p r needs of its tasks' creations (of the prior
 * task only whether it was created, and only at its completion). */
static switch_facts facts_of(converter *c, const offtrace_raw_record *r)
{
    switch_facts f = {0};
    struct ot_host_task_table *t = c->tasks;
    if (!t)
        return f;
    if (!t->built)
        build(c, t);
    if (t->failed)
        return f;
    f.prior_known = r->subkind == ompt_task_complete && look_up(t, r->id) != NULL;
    const known_task *next = look_up(t, r->target_id);
    if (next) {
        f.next_copy = *next;
        f.next = &f.next_copy;
    }
    return f;
}

void ot_host_tasks_free(converter *c)
{
    if (!c->tasks)
        return;
    ot_es_free(c->tasks->creations);
    ot_spill_close(c->tasks->known);
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
    if (t->rank_asked_valid && t->rank_asked == index) /* a thread's events name its own tasks, mostly */
        return t->rank_answered;
    const uint64_t *at = bsearch(&index, t->ranks, t->rank_count, sizeof *t->ranks, by_value);
    t->rank_asked = index;
    t->rank_answered = at ? at - t->ranks : -1;
    t->rank_asked_valid = 1;
    return t->rank_answered;
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
    switch_facts f = facts_of(c, r);
    if (r->id && r->subkind == ompt_task_complete && f.prior_known)
        task_event_of(p, TASK_COMPLETED, r->id, t);
    const known_task *task = f.next;
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

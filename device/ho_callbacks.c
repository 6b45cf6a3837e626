/**
 * \file ho_callbacks.c
 * \brief The host-offload backend's handlers of the host runtime's OpenMP
 *        events and the per-thread context that tells them whether a
 *        thread is doing device work.
 *
 * The host library registers the runtime's callbacks and forwards these
 * events through the collector table's `openmp` (offtrace/collector.h),
 * arguments unchanged, once a host-offload device is attached.
 *
 * A thread does device work from target_begin to target_end (the thread that
 * runs the target region), or from an implicit task of a parallel region
 * opened inside device work to the matching implicit-task end (a team
 * worker). The parallel region carries the context to its workers through
 * parallel_data: its value is the registry index of the encountering
 * thread + 1, set in parallel_begin (0 for host parallel regions).
 *
 * Hot path: one TLS load and a compare for host OpenMP events; for device
 * events also a clock read and a 48-byte store into the thread's buffer. No
 * lock, no allocation except when a block fills.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device_clock.h"
#include "device_config.h"
#include "ho_internal.h"

#define REGISTRY_SIZE 4096
/* Marks task_data of explicit device tasks; user-space code addresses never have bit 63 set. */
#define TASK_MARK (1ull << 63)

static __thread __attribute__((tls_model("initial-exec"))) ho_thread *self;
static ho_thread *registry[REGISTRY_SIZE];
static uint32_t registry_count; /* atomic */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* A thread that ends gives its state and its slots back for reuse, so that
 * threads which come and go do not use up slots or memory. */
static void on_thread_exit(void *arg)
{
    ho_thread *t = arg;
    for (int d = 0; d < OT_DEV_MAX_DEVICES; d++)
        if (t->slots[d]) {
            __atomic_store_n(&t->slots[d]->owned, 0, __ATOMIC_RELEASE);
            t->slots[d] = NULL;
        }
    t->device = -1;
    t->slot = NULL;
    __atomic_store_n(&t->in_use, 0, __ATOMIC_RELEASE);
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

static ho_thread *reuse_or_register(void)
{
    uint32_t n = __atomic_load_n(&registry_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        ho_thread *t = registry[i];
        int idle = 0;
        if (t && __atomic_compare_exchange_n(&t->in_use, &idle, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
            return t;
    }
    uint32_t index = __atomic_fetch_add(&registry_count, 1, __ATOMIC_ACQ_REL);
    if (index >= REGISTRY_SIZE)
        return NULL;
    /* A line of its own: its first fields are read at every OpenMP event. */
    ho_thread *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    t->registry_index = index;
    t->in_use = 1;
    __atomic_store_n(&registry[index], t, __ATOMIC_RELEASE);
    return t;
}

ho_thread *ot_ho_self_if_any(void)
{
    return self;
}

ho_thread *ot_ho_self(void)
{
    if (self)
        return self;
    pthread_once(&exit_key_once, make_exit_key);
    ho_thread *t = reuse_or_register();
    if (!t)
        return NULL;
    t->device = -1;
    t->slot = NULL;
    t->depth = 0;
    t->adopted = 0;
    pthread_setspecific(exit_key, t);
    self = t;
    return t;
}

ho_thread *ot_ho_registered(uint64_t registry_index)
{
    if (registry_index >= REGISTRY_SIZE)
        return NULL;
    return __atomic_load_n(&registry[registry_index], __ATOMIC_ACQUIRE);
}

static inline ho_thread *in_device_work(void)
{
    ho_thread *t = self;
    return (t && t->device >= 0) ? t : NULL;
}

/* Records one event of \p t; returns its time. */
static uint64_t emit(ho_thread *t, uint8_t kind, uint8_t subkind, uint8_t endpoint, const void *codeptr,
                     uint64_t value, uint64_t op_id, uint8_t flags)
{
    uint64_t now = ot_device_clock_now();
    ho_slot *s = t->slot;
    offtrace_device_record *r = s ? ot_thread_buffer_slot(&s->buffer) : NULL;
    if (!r) {
        if (!s) /* a full buffer counts its own losses */
            __atomic_fetch_add(&ot_ho_devices[t->device].unbuffered, 1, __ATOMIC_RELAXED);
        return now;
    }
    *r = (offtrace_device_record){
        .time = now,
        .target_id = t->target_id,
        .op_id = op_id,
        .codeptr = (uint64_t)(uintptr_t)codeptr,
        .value = value,
        .thread = s->index,
        .kind = kind,
        .subkind = subkind,
        .endpoint = endpoint,
        .flags = flags,
    };
    ot_thread_buffer_publish(&s->buffer);
    return now;
}

int ot_ho_in_device_work(void)
{
    return in_device_work() != NULL;
}

static uint8_t endpoint_of(ompt_scope_endpoint_t e)
{
    return e == ompt_scope_begin ? OFFTRACE_DEVICE_BEGIN : OFFTRACE_DEVICE_END;
}

/* parallel_data of a device parallel region: the encountering thread's
 * registry index + 1 in bits 0-31 (what its workers adopt), and which of its
 * team summaries the region uses + 1 in bits 32-39 (0: none). */
#define PARALLEL_OWNER(value) ((uint32_t)(value))
#define PARALLEL_TEAM(value) ((uint32_t)((value) >> 32 & 0xffu))

static int is_league(int flags)
{
    return (flags & ompt_parallel_league) != 0;
}

/* Whether a parallel region's PARALLEL records are written at this level:
 * at `kernels` only the kernel's outermost region, the league or (without
 * one) the parallel region the target region's own thread opens first. */
static int parallel_recorded(const ho_thread *t, int flags, uint32_t nesting)
{
    return ot_ho_detail != OT_DEVICE_DETAIL_KERNELS || is_league(flags) || (!t->adopted && nesting == 0);
}

static ho_team *own_team(ho_thread *t, uint32_t nesting)
{
    if (nesting >= OT_HO_TEAM_NESTING)
        return NULL;
    if (!t->teams) {
        ho_team *teams = aligned_alloc(64, OT_HO_TEAM_NESTING * sizeof *teams);
        if (!teams)
            return NULL;
        memset(teams, 0, OT_HO_TEAM_NESTING * sizeof *teams);
        for (int i = 0; i < OT_HO_TEAM_NESTING; i++)
            teams[i].extra_min = UINT64_MAX;
        t->teams = teams;
    }
    return &t->teams[nesting];
}

void ot_ho_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    ho_thread *t = in_device_work();
    if (!t) {
        parallel->value = 0;
        return;
    }
    uint32_t nesting = t->parallel_depth++;
    uint64_t value = t->registry_index + 1u;
    ho_team *team = NULL;
    if (ot_ho_detail == OT_DEVICE_DETAIL_TEAMS && !is_league(flags) && (team = own_team(t, nesting))) {
        __atomic_store_n(&team->generation, team->generation + 1, __ATOMIC_RELAXED);
        team->threads = 0;
        value |= (uint64_t)(nesting + 1) << 32;
    }
    parallel->value = value;
    if (parallel_recorded(t, flags, nesting)) {
        uint64_t now = emit(t, OFFTRACE_DEVICE_PARALLEL, is_league(flags), OFFTRACE_DEVICE_BEGIN, codeptr,
                            requested, 0, 0);
        if (team)
            team->begin = now;
    }
}

/* The team's summary, read from its slots (which are cleared for the next region). */
static uint64_t gather_summary(ho_team *team, uint64_t *earliest, uint64_t *latest)
{
    /* Loaded first: threads numbered past the slots are rare, and the
     * exchange is a locked instruction at every team's end (the barrier
     * orders their adds before this load). */
    uint64_t count = __atomic_load_n(&team->extra_count, __ATOMIC_ACQUIRE);
    uint64_t sum = 0, low = UINT64_MAX, high = 0;
    if (count) {
        count = __atomic_exchange_n(&team->extra_count, 0, __ATOMIC_RELAXED);
        sum = __atomic_exchange_n(&team->extra_sum, 0, __ATOMIC_RELAXED);
        low = __atomic_exchange_n(&team->extra_min, UINT64_MAX, __ATOMIC_RELAXED);
        high = __atomic_exchange_n(&team->extra_max, 0, __ATOMIC_RELAXED);
    }
    /* Only the team's own slots: its size as its first thread's implicit
     * task said, all of them where none did (the slots past it are 0). */
    uint32_t slots = team->threads && team->threads < OT_HO_TEAM_SLOTS ? team->threads : OT_HO_TEAM_SLOTS;
    for (uint32_t i = 0; i < slots; i++) {
        uint64_t a = __atomic_load_n(&team->arrival[i].value, __ATOMIC_RELAXED);
        if (!a)
            continue;
        __atomic_store_n(&team->arrival[i].value, 0, __ATOMIC_RELAXED);
        a--;
        count++;
        sum += a;
        low = a < low ? a : low;
        high = a > high ? a : high;
    }
    *earliest = count ? low : 0;
    *latest = high;
    return offtrace_team_summary(count, sum);
}

void ot_ho_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
    ho_thread *t = in_device_work();
    if (!t)
        return;
    uint32_t nesting = t->parallel_depth ? --t->parallel_depth : 0;
    if (!parallel_recorded(t, flags, nesting))
        return;
    uint32_t summary = PARALLEL_TEAM(parallel->value);
    if (summary && t->teams && summary - 1 == nesting) {
        uint64_t earliest, latest, value = gather_summary(&t->teams[nesting], &earliest, &latest);
        emit(t, OFFTRACE_DEVICE_PARALLEL, 0, OFFTRACE_DEVICE_END, (const void *)(uintptr_t)latest, value, earliest,
             OFFTRACE_DEVICE_FLAG_SUMMARY);
        return;
    }
    emit(t, OFFTRACE_DEVICE_PARALLEL, is_league(flags), OFFTRACE_DEVICE_END, codeptr, 0, 0, 0);
}

/* A worker of a device parallel region takes over the encountering thread's
 * device and target region for as long as it is in the region's implicit task. */
static ho_thread *adopt_context(const ompt_data_t *parallel)
{
    if (!parallel || PARALLEL_OWNER(parallel->value) == 0)
        return NULL;
    ho_thread *owner = ot_ho_registered(PARALLEL_OWNER(parallel->value) - 1);
    if (!owner || owner->device < 0)
        return NULL;
    ho_thread *t = ot_ho_self();
    if (!t)
        return NULL;
    ot_ho_enter_device(t, owner->device, owner->target_id);
    t->adopted = 1;
    return t;
}

/* The team summary this thread's implicit task at nesting \p depth belongs to. */
static void join_team(ho_thread *t, uint32_t depth, const ompt_data_t *parallel, uint32_t actual, uint32_t index)
{
    if (depth >= OT_HO_TEAM_NESTING)
        return;
    t->member[depth].team = NULL;
    uint32_t summary = parallel ? PARALLEL_TEAM(parallel->value) : 0;
    if (!summary)
        return;
    ho_thread *owner = ot_ho_registered(PARALLEL_OWNER(parallel->value) - 1);
    ho_team *team = owner ? owner->teams : NULL; /* the owner made them before the region began */
    if (!team)
        return;
    team += summary - 1;
    t->member[depth].team = team;
    t->member[depth].generation = __atomic_load_n(&team->generation, __ATOMIC_RELAXED);
    t->member[depth].begin = team->begin; /* set before the region's threads start (its BEGIN) */
    t->member[depth].index = index;
    if (index == 0) /* the encountering thread itself, before its parallel_end reads it */
        team->threads = actual;
}

static void atomic_min(uint64_t *p, uint64_t v)
{
    uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static void atomic_max(uint64_t *p, uint64_t v)
{
    uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

/* This thread arrives at the end of its team's region: once per region
 * (the first of barrier begin and implicit-task end counts). */
static void arrive(ho_thread *t)
{
    if (!t->depth || t->depth > OT_HO_TEAM_NESTING)
        return;
    ho_team *team = t->member[t->depth - 1].team;
    if (!team)
        return;
    t->member[t->depth - 1].team = NULL;
    if (__atomic_load_n(&team->generation, __ATOMIC_RELAXED) != t->member[t->depth - 1].generation)
        return; /* a late event of a region already summarised */
    uint64_t now = ot_device_clock_now(), begin = t->member[t->depth - 1].begin;
    uint64_t since = now > begin ? now - begin : 0;
    uint32_t index = t->member[t->depth - 1].index;
    if (index < OT_HO_TEAM_SLOTS) {
        __atomic_store_n(&team->arrival[index].value, since + 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_fetch_add(&team->extra_sum, since, __ATOMIC_RELAXED);
    atomic_min(&team->extra_min, since);
    atomic_max(&team->extra_max, since);
    __atomic_fetch_add(&team->extra_count, 1, __ATOMIC_RELEASE);
}

void ot_ho_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
    ho_thread *t = in_device_work();
    uint8_t initial = (flags & ompt_task_initial) ? 1 : 0;
    if (endpoint == ompt_scope_begin) {
        if (!t && !(t = adopt_context(parallel)))
            return;
        if (ot_ho_detail == OT_DEVICE_DETAIL_TEAMS)
            join_team(t, t->depth, initial ? NULL : parallel, actual, index);
        t->depth++;
        if (ot_ho_detail == OT_DEVICE_DETAIL_THREADS)
            emit(t, OFFTRACE_DEVICE_IMPLICIT_TASK, initial, OFFTRACE_DEVICE_BEGIN, NULL,
                 (uint64_t)actual | (uint64_t)index << 32, 0, 0);
        return;
    }
    if (!t)
        return;
    if (ot_ho_detail == OT_DEVICE_DETAIL_TEAMS)
        arrive(t);
    if (ot_ho_detail == OT_DEVICE_DETAIL_THREADS)
        emit(t, OFFTRACE_DEVICE_IMPLICIT_TASK, initial, OFFTRACE_DEVICE_END, NULL, 0, 0, 0);
    if (t->depth && --t->depth == 0 && t->adopted)
        ot_ho_leave_device(t);
}

void ot_ho_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                    uint64_t count, const void *codeptr)
{
    ho_thread *t;
    if (ot_ho_detail == OT_DEVICE_DETAIL_THREADS && (t = in_device_work()))
        emit(t, OFFTRACE_DEVICE_WORK, (uint8_t)kind, endpoint_of(endpoint), codeptr, count, 0, 0);
}

static int closes_region(ompt_sync_region_t kind)
{
    return kind == ompt_sync_region_barrier_implicit_parallel || kind == ompt_sync_region_barrier_implicit;
}

void ot_ho_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr)
{
    ho_thread *t = in_device_work();
    if (!t)
        return;
    if (ot_ho_detail == OT_DEVICE_DETAIL_THREADS)
        emit(t, OFFTRACE_DEVICE_SYNC, (uint8_t)kind, endpoint_of(endpoint), codeptr, 0, 0, 0);
    else if (ot_ho_detail == OT_DEVICE_DETAIL_TEAMS && endpoint == ompt_scope_begin && closes_region(kind))
        arrive(t);
}

/* An explicit task created in device work is marked by storing where it was
 * created in its task_data; every other task gets 0. */
void ot_ho_task_create(ompt_data_t *encountering, const ompt_frame_t *frame, ompt_data_t *new_task, int flags,
                           int has_dependences, const void *codeptr)
{
    ho_thread *t = in_device_work();
    new_task->value = (t && (flags & ompt_task_explicit)) ? ((uint64_t)(uintptr_t)codeptr | TASK_MARK) : 0u;
}

void ot_ho_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    ho_thread *t = in_device_work();
    if (!t || ot_ho_detail != OT_DEVICE_DETAIL_THREADS)
        return;
    /* Fulfilment events do not change what runs on this thread. */
    int runs_change = status != ompt_task_early_fulfill && status != ompt_task_late_fulfill;
    if (runs_change && prior && prior->value)
        emit(t, OFFTRACE_DEVICE_TASK, 0, OFFTRACE_DEVICE_END, (const void *)(uintptr_t)(prior->value & ~TASK_MARK), 0,
             0, 0);
    if (runs_change && next && next->value)
        emit(t, OFFTRACE_DEVICE_TASK, 0, OFFTRACE_DEVICE_BEGIN, (const void *)(uintptr_t)(next->value & ~TASK_MARK), 0,
             0, 0);
}

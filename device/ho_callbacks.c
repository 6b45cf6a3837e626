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
    ho_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
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

static void emit(ho_thread *t, uint8_t kind, uint8_t subkind, uint8_t endpoint, const void *codeptr,
                 uint64_t value)
{
    uint64_t now = ot_device_clock_now();
    ho_slot *s = t->slot;
    offtrace_device_record *r = s ? ot_thread_buffer_slot(&s->buffer) : NULL;
    if (!r) {
        if (!s) /* a full buffer counts its own losses */
            __atomic_fetch_add(&ot_ho_devices[t->device].unbuffered, 1, __ATOMIC_RELAXED);
        return;
    }
    *r = (offtrace_device_record){
        .time = now,
        .target_id = t->target_id,
        .codeptr = (uint64_t)(uintptr_t)codeptr,
        .value = value,
        .thread = s->index,
        .kind = kind,
        .subkind = subkind,
        .endpoint = endpoint,
    };
    ot_thread_buffer_publish(&s->buffer);
}

int ot_ho_in_device_work(void)
{
    return in_device_work() != NULL;
}

static uint8_t endpoint_of(ompt_scope_endpoint_t e)
{
    return e == ompt_scope_begin ? OFFTRACE_DEVICE_BEGIN : OFFTRACE_DEVICE_END;
}

void ot_ho_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    ho_thread *t = in_device_work();
    parallel->value = t ? t->registry_index + 1u : 0u;
    if (t)
        emit(t, OFFTRACE_DEVICE_PARALLEL, (flags & ompt_parallel_league) ? 1 : 0, OFFTRACE_DEVICE_BEGIN, codeptr,
             requested);
}

void ot_ho_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
    ho_thread *t = in_device_work();
    if (t)
        emit(t, OFFTRACE_DEVICE_PARALLEL, (flags & ompt_parallel_league) ? 1 : 0, OFFTRACE_DEVICE_END, codeptr, 0);
}

/* A worker of a device parallel region takes over the encountering thread's
 * device and target region for as long as it is in the region's implicit task. */
static ho_thread *adopt_context(const ompt_data_t *parallel)
{
    if (!parallel || parallel->value == 0)
        return NULL;
    ho_thread *owner = ot_ho_registered(parallel->value - 1);
    if (!owner || owner->device < 0)
        return NULL;
    ho_thread *t = ot_ho_self();
    if (!t)
        return NULL;
    ot_ho_enter_device(t, owner->device, owner->target_id);
    t->adopted = 1;
    return t;
}

void ot_ho_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
    ho_thread *t = in_device_work();
    uint8_t initial = (flags & ompt_task_initial) ? 1 : 0;
    if (endpoint == ompt_scope_begin) {
        if (!t && !(t = adopt_context(parallel)))
            return;
        t->depth++;
        emit(t, OFFTRACE_DEVICE_IMPLICIT_TASK, initial, OFFTRACE_DEVICE_BEGIN, NULL,
             (uint64_t)actual | (uint64_t)index << 32);
        return;
    }
    if (!t)
        return;
    emit(t, OFFTRACE_DEVICE_IMPLICIT_TASK, initial, OFFTRACE_DEVICE_END, NULL, 0);
    if (t->depth && --t->depth == 0 && t->adopted)
        ot_ho_leave_device(t);
}

void ot_ho_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                    uint64_t count, const void *codeptr)
{
    ho_thread *t = in_device_work();
    if (t)
        emit(t, OFFTRACE_DEVICE_WORK, (uint8_t)kind, endpoint_of(endpoint), codeptr, count);
}

void ot_ho_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr)
{
    ho_thread *t = in_device_work();
    if (t)
        emit(t, OFFTRACE_DEVICE_SYNC, (uint8_t)kind, endpoint_of(endpoint), codeptr, 0);
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
    if (!t)
        return;
    /* Fulfilment events do not change what runs on this thread. */
    int runs_change = status != ompt_task_early_fulfill && status != ompt_task_late_fulfill;
    if (runs_change && prior && prior->value)
        emit(t, OFFTRACE_DEVICE_TASK, 0, OFFTRACE_DEVICE_END, (const void *)(uintptr_t)(prior->value & ~TASK_MARK), 0);
    if (runs_change && next && next->value)
        emit(t, OFFTRACE_DEVICE_TASK, 0, OFFTRACE_DEVICE_BEGIN, (const void *)(uintptr_t)(next->value & ~TASK_MARK), 0);
}

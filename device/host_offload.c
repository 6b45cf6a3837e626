/**
 * \file host_offload.c
 * \brief The host-offload backend: attach, device threads' buffers, flush.
 *
 * Each device keeps one slot (a buffer and a device thread number) per OS
 * thread that did work for it, at most OT_HO_MAX_THREADS; a slot given back
 * by an ended thread is reused by the next one. Flushes of one device are
 * serialised by the device's lock and run while its threads keep recording:
 * each slot is a single-writer chain that the flush drains up to what has
 * been published.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device_clock.h"
#include "device_config.h"
#include "ho_internal.h"

ho_device ot_ho_devices[OT_DEV_MAX_DEVICES];
int ot_ho_detail = OT_DEVICE_DETAIL_DEFAULT;

static ho_slot *claim_free_slot(ho_device *dev)
{
    uint32_t n = __atomic_load_n(&dev->slot_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        int free_slot = 0;
        if (__atomic_compare_exchange_n(&dev->slots[i]->owned, &free_slot, 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return dev->slots[i];
    }
    return NULL;
}

/* Slow path, once per (thread, device): reuse a slot or make one. */
static ho_slot *acquire_slot(int device)
{
    ho_device *dev = &ot_ho_devices[device];
    ho_slot *s = claim_free_slot(dev);
    if (s)
        return s;
    pthread_mutex_lock(&dev->lock);
    uint32_t n = dev->slot_count;
    if (n < OT_HO_MAX_THREADS && (s = calloc(1, sizeof *s))) {
        if (ot_thread_buffer_init(&s->buffer, ot_dev_thread_budget()) == 0) {
            s->index = n;
            s->owned = 1;
            dev->slots[n] = s;
            __atomic_store_n(&dev->slot_count, n + 1, __ATOMIC_RELEASE);
        } else {
            free(s);
            s = NULL;
        }
    }
    pthread_mutex_unlock(&dev->lock);
    return s;
}

void ot_ho_enter_device(ho_thread *t, int device, uint64_t target_id)
{
    if (!t->slots[device])
        t->slots[device] = acquire_slot(device);
    t->slot = t->slots[device];
    t->target_id = target_id;
    t->depth = 0;
    t->parallel_depth = 0;
    t->adopted = 0;
    t->device = device; /* last: callbacks on this thread test it first */
}

void ot_ho_leave_device(ho_thread *t)
{
    t->device = -1;
    t->slot = NULL;
    t->adopted = 0;
    t->depth = 0;
}

static int claims(const char *device_type)
{
    /* LLVM names its host-offload plugin's devices "generic-64bit" (older
     * releases: "generic-elf-64bit"). */
    return device_type && strstr(device_type, "generic") != NULL;
}

static int ho_attach(ot_dev_device *d, const char *device_type, ompt_device_t *device,
                     ompt_function_lookup_t device_lookup)
{
    if (!claims(device_type) || d->num < 0 || d->num >= OT_DEV_MAX_DEVICES)
        return -ENOTSUP;
    ho_device *dev = &ot_ho_devices[d->num];
    ot_ho_detail = ot_dev_detail(); /* before the device's first event: the host forwards them after attach */
    pthread_mutex_init(&dev->lock, NULL);
    __atomic_store_n(&dev->attached, 1, __ATOMIC_RELEASE);
    return 0;
}

static int is_kernel_construct(int kind)
{
    return kind == ompt_target || kind == ompt_target_nowait;
}

static void ho_target_begin(ot_dev_device *d, uint64_t target_id, int kind)
{
    ho_thread *t;
    if (is_kernel_construct(kind) && (t = ot_ho_self()))
        ot_ho_enter_device(t, d->num, target_id);
}

static void ho_target_end(ot_dev_device *d, uint64_t target_id, int kind)
{
    ho_thread *t = ot_ho_self_if_any();
    if (is_kernel_construct(kind) && t && t->device == d->num && t->target_id == target_id)
        ot_ho_leave_device(t);
}

static uint64_t ho_device_time(ot_dev_device *d)
{
    return ot_device_clock_now();
}

typedef struct flush_sink {
    ot_dev_device *d;
} flush_sink;

static void deliver_records(void *context, const offtrace_device_record *records, size_t count)
{
    ot_dev_deliver(((flush_sink *)context)->d, records, count);
}

static void deliver_loss(ot_dev_device *d, uint32_t thread, uint64_t lost)
{
    offtrace_device_record r = {
        .time = ot_device_clock_now(),
        .value = lost,
        .thread = thread,
        .kind = OFFTRACE_DEVICE_LOST,
        .endpoint = OFFTRACE_DEVICE_POINT,
    };
    ot_dev_deliver(d, &r, 1);
}

static long ho_flush(ot_dev_device *d)
{
    ho_device *dev = &ot_ho_devices[d->num];
    flush_sink sink = {d};
    size_t delivered = 0;
    pthread_mutex_lock(&dev->lock);
    uint32_t n = __atomic_load_n(&dev->slot_count, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t lost = ot_thread_buffer_drain(&dev->slots[i]->buffer, deliver_records, &sink, &delivered);
        if (lost)
            deliver_loss(d, dev->slots[i]->index, lost);
    }
    uint64_t unbuffered = 0; /* loaded first: rare, and the exchange is a locked instruction */
    if (__atomic_load_n(&dev->unbuffered, __ATOMIC_RELAXED))
        unbuffered = __atomic_exchange_n(&dev->unbuffered, 0, __ATOMIC_RELAXED);
    if (unbuffered) /* threads beyond OT_HO_MAX_THREADS, or no memory for a slot */
        deliver_loss(d, UINT32_MAX, unbuffered);
    pthread_mutex_unlock(&dev->lock);
    return (long)delivered;
}

static void ho_detach(ot_dev_device *d)
{
    ho_flush(d);
    __atomic_store_n(&ot_ho_devices[d->num].attached, 0, __ATOMIC_RELEASE);
}

const ot_dev_backend ot_host_offload_backend = {
    .name = "host-offload",
    .wants_operations = 0,
    .wants_host_openmp = 1, /* its device's OpenMP runs on the host runtime: ho_callbacks.c */
    .attach = ho_attach,
    .target_begin = ho_target_begin,
    .target_end = ho_target_end,
    .device_time = ho_device_time,
    .flush = ho_flush,
    .detach = ho_detach,
};

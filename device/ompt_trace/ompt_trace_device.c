/* One traced device: state, device table, delivery (see ompt_trace_device.h). */
#include "ompt_trace_device.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompt_trace.h"

static _Atomic(ot_ompt_dev *) the_devices[OT_OMPT_TRACE_MAX_DEVICES];

void ot_ompt_say(int level, int device_num, const char *fmt, ...)
{
    if (ot_dev_verbose() < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "offtrace: ompt-trace: device %d: ", device_num);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

ot_ompt_dev *ot_ompt_dev_new(ot_dev_device *d, ompt_device_t *device, const ot_ompt_entries *fn)
{
    ot_ompt_dev *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->d = d;
    st->device = device;
    st->fn = *fn;
    pthread_mutex_init(&st->lock, NULL);
    pthread_mutex_init(&st->deliver_lock, NULL);
    ot_ompt_targets_init(&st->targets);
    ot_ompt_batch_init(&st->pending);
    return st;
}

void ot_ompt_dev_free(ot_ompt_dev *st)
{
    ot_ompt_batch_free(&st->pending);
    pthread_mutex_destroy(&st->lock);
    pthread_mutex_destroy(&st->deliver_lock);
    free(st);
}

int ot_ompt_table_claim(int num, ot_ompt_dev *st)
{
    ot_ompt_dev *expected = NULL;
    return atomic_compare_exchange_strong(&the_devices[num], &expected, st);
}

void ot_ompt_table_release(int num)
{
    atomic_store(&the_devices[num], NULL);
}

ot_ompt_dev *ot_ompt_table_find(int num)
{
    if (num < 0 || num >= OT_OMPT_TRACE_MAX_DEVICES)
        return NULL;
    return atomic_load_explicit(&the_devices[num], memory_order_acquire);
}

/* Stream 0 is the only stream, so the loss is reported there too. */
static offtrace_device_record lost_record(ot_ompt_dev *st, uint64_t lost)
{
    offtrace_device_record r;
    memset(&r, 0, sizeof r);
    r.time = st->fn.ompt_get_device_time(st->device);
    r.value = lost;
    r.kind = OFFTRACE_DEVICE_LOST;
    r.endpoint = OFFTRACE_DEVICE_POINT;
    r.flags = OFFTRACE_DEVICE_FLAG_STREAM;
    return r;
}

size_t ot_ompt_dev_deliver(ot_ompt_dev *st, int report_lost)
{
    pthread_mutex_lock(&st->deliver_lock);
    pthread_mutex_lock(&st->lock);
    ot_ompt_batch batch = st->pending;
    ot_ompt_batch_init(&st->pending);
    uint64_t lost = report_lost ? st->lost : 0;
    st->lost -= lost;
    pthread_mutex_unlock(&st->lock);

    ot_ompt_sort_by_time(batch.records, batch.count);
    size_t delivered = batch.count;
    if (batch.count)
        ot_dev_deliver(st->d, batch.records, batch.count);
    ot_ompt_batch_free(&batch);
    if (lost) {
        /* Read now, after every activity above completed: it sorts last. */
        offtrace_device_record r = lost_record(st, lost);
        ot_dev_deliver(st->d, &r, 1);
        delivered++;
    }

    pthread_mutex_lock(&st->lock);
    st->delivered += delivered;
    pthread_mutex_unlock(&st->lock);
    pthread_mutex_unlock(&st->deliver_lock);
    return delivered;
}

uint64_t ot_ompt_dev_take_delivered(ot_ompt_dev *st)
{
    pthread_mutex_lock(&st->lock);
    uint64_t n = st->delivered;
    st->delivered = 0;
    pthread_mutex_unlock(&st->lock);
    return n;
}

/* The OMPT device-tracing backend: detection, set-up and the host's calls (see ompt_trace.h). */
#include "ompt_trace.h"

#include <errno.h>

#include "ompt_trace_device.h"

/* The _emi event type of each pair first; its plain twin only when the
 * runtime cannot trace the _emi one, so that no activity is recorded twice
 * by a runtime that would honour both. */
static const ompt_callbacks_t event_pairs[][2] = {
    {ompt_callback_target_emi, ompt_callback_target},
    {ompt_callback_target_data_op_emi, ompt_callback_target_data_op},
    {ompt_callback_target_submit_emi, ompt_callback_target_submit},
};

/* Without any of these, tracing would deliver nothing. */
#define ACTIVITY_EVENTS                                                                        \
    ((1ull << ompt_callback_target_data_op_emi) | (1ull << ompt_callback_target_data_op) |     \
     (1ull << ompt_callback_target_submit_emi) | (1ull << ompt_callback_target_submit))

/* The entry points, or the name of the first one missing that the backend
 * cannot do without (NULL when none is). */
static const char *find_entries(ompt_function_lookup_t lookup, ot_ompt_entries *fn)
{
#define OT_FIND(name) (fn->name = (name##_t)lookup(#name))
    OT_FIND(ompt_set_trace_ompt);
    OT_FIND(ompt_start_trace);
    OT_FIND(ompt_flush_trace);
    OT_FIND(ompt_stop_trace);
    OT_FIND(ompt_advance_buffer_cursor);
    OT_FIND(ompt_get_record_type);
    OT_FIND(ompt_get_record_ompt);
    OT_FIND(ompt_get_device_time);
#undef OT_FIND
    if (!fn->ompt_start_trace)
        return "ompt_start_trace";
    if (!fn->ompt_set_trace_ompt)
        return "ompt_set_trace_ompt";
    if (!fn->ompt_flush_trace)
        return "ompt_flush_trace";
    if (!fn->ompt_advance_buffer_cursor)
        return "ompt_advance_buffer_cursor";
    if (!fn->ompt_get_record_ompt)
        return "ompt_get_record_ompt";
    if (!fn->ompt_get_device_time)
        return "ompt_get_device_time";
    return NULL;
}

/* ompt_set_error, _never and _impossible all mean: no records of this type. */
static int traceable(ompt_set_result_t r)
{
    return r >= ompt_set_sometimes && r <= ompt_set_always;
}

static uint64_t enable_events(ot_ompt_dev *st)
{
    uint64_t enabled = 0;
    for (size_t i = 0; i < sizeof event_pairs / sizeof event_pairs[0]; i++) {
        for (size_t j = 0; j < 2; j++) {
            if (traceable(st->fn.ompt_set_trace_ompt(st->device, 1, event_pairs[i][j]))) {
                enabled |= 1ull << event_pairs[i][j];
                break;
            }
        }
    }
    return enabled;
}

static void disable_events(ot_ompt_dev *st)
{
    for (unsigned type = 0; type < 64; type++)
        if (st->enabled & (1ull << type))
            st->fn.ompt_set_trace_ompt(st->device, 0, type);
    st->enabled = 0;
}

/* Enable the events, take the device's table slot, start the runtime. */
static int start_tracing(ot_ompt_dev *st)
{
    int num = st->d->num;
    st->enabled = enable_events(st);
    if (!(st->enabled & ACTIVITY_EVENTS)) {
        ot_ompt_say(2, num, "the runtime traces neither kernels nor data operations");
        disable_events(st);
        return -ENOTSUP;
    }
    if (!ot_ompt_table_claim(num, st)) {
        ot_ompt_say(1, num, "attached twice");
        disable_events(st);
        return -EBUSY;
    }
    if (!st->fn.ompt_start_trace(st->device, ot_ompt_on_buffer_request, ot_ompt_on_buffer_complete)) {
        ot_ompt_say(2, num, "ompt_start_trace failed");
        ot_ompt_table_release(num);
        disable_events(st);
        return -ENOTSUP;
    }
    return 0;
}

static int ompt_trace_attach(ot_dev_device *d, const char *device_type, ompt_device_t *device,
                             ompt_function_lookup_t device_lookup)
{
    (void)device_type;
    ot_ompt_entries fn;
    const char *missing = device_lookup ? find_entries(device_lookup, &fn) : "the device lookup";
    if (missing) {
        ot_ompt_say(2, d->num, "no OMPT device tracing (%s is missing)", missing);
        return -ENOTSUP;
    }
    if (d->num < 0 || d->num >= OT_OMPT_TRACE_MAX_DEVICES) {
        ot_ompt_say(1, d->num, "device number out of the backend's range 0..%d",
                    OT_OMPT_TRACE_MAX_DEVICES - 1);
        return -ENOTSUP;
    }
    ot_ompt_dev *st = ot_ompt_dev_new(d, device, &fn);
    if (!st)
        return -ENOMEM;
    int rc = start_tracing(st);
    if (rc != 0) {
        ot_ompt_dev_free(st);
        return rc;
    }
    d->state = st;
    return 0;
}

static void ompt_trace_target_begin(ot_dev_device *d, uint64_t target_id, int kind)
{
    ot_ompt_dev *st = d->state;
    pthread_mutex_lock(&st->lock);
    ot_ompt_targets_host_begin(&st->targets, target_id, kind);
    pthread_mutex_unlock(&st->lock);
}

/* The device's records of the construct arrive at the next flush; the
 * pairing learnt from them does not need to know when the host saw it end. */
static void ompt_trace_target_end(ot_dev_device *d, uint64_t target_id, int kind)
{
    (void)d;
    (void)target_id;
    (void)kind;
}

static uint64_t ompt_trace_device_time(ot_dev_device *d)
{
    ot_ompt_dev *st = d->state;
    return st->fn.ompt_get_device_time(st->device);
}

/* The runtime hands over its buffers (ot_ompt_on_buffer_complete) before
 * ompt_flush_trace returns; what they held is delivered here, with what
 * earlier buffers left since the last flush. A failed ompt_flush_trace
 * still delivers what arrived; the records it kept come at a later flush. */
static long ompt_trace_flush(ot_dev_device *d)
{
    ot_ompt_dev *st = d->state;
    if (!st)
        return -ENODEV;
    if (!st->fn.ompt_flush_trace(st->device))
        ot_ompt_say(2, d->num, "ompt_flush_trace failed");
    ot_ompt_dev_deliver(st, 1);
    return (long)ot_ompt_dev_take_delivered(st);
}

static void ompt_trace_detach(ot_dev_device *d)
{
    ot_ompt_dev *st = d->state;
    if (!st)
        return;
    st->fn.ompt_flush_trace(st->device);
    if (st->fn.ompt_stop_trace)
        st->fn.ompt_stop_trace(st->device);
    else
        disable_events(st); /* at least no new records */
    ot_ompt_dev_deliver(st, 1);
    ot_ompt_table_release(d->num);
    ot_ompt_dev_free(st);
    d->state = NULL;
}

const ot_dev_backend ot_ompt_trace_backend = {
    .name = "ompt-trace",
    .wants_operations = 0,
    .attach = ompt_trace_attach,
    .target_begin = ompt_trace_target_begin,
    .target_end = ompt_trace_target_end,
    .operation_begin = NULL,
    .operation_end = NULL,
    .device_time = ompt_trace_device_time,
    .flush = ompt_trace_flush,
    .detach = ompt_trace_detach,
};

/* The runtime's buffer callbacks: lend buffers, read back their records
 * (see ompt_trace_device.h). */
#include <stdint.h>
#include <stdlib.h>

#include "ompt_trace_device.h"
#include "ompt_trace_translate.h"

void ot_ompt_on_buffer_request(int device_num, ompt_buffer_t **buffer, size_t *bytes)
{
    *buffer = malloc(OT_OMPT_TRACE_BUFFER_BYTES);
    *bytes = *buffer ? OT_OMPT_TRACE_BUFFER_BYTES : 0;
    if (!*buffer)
        ot_ompt_say(1, device_num, "no memory for a trace buffer: the runtime drops records uncounted");
}

/* One record at \p cursor; st->lock held. */
static void take_record(ot_ompt_dev *st, ompt_buffer_t *buffer, ompt_buffer_cursor_t cursor)
{
    if (st->fn.ompt_get_record_type && st->fn.ompt_get_record_type(buffer, cursor) != ompt_record_ompt)
        return;
    ompt_record_ompt_t *r = st->fn.ompt_get_record_ompt(buffer, cursor);
    if (!r)
        return;
    uint64_t runtime_id = ot_ompt_runtime_target_id(r);
    switch (ot_ompt_classify(r)) {
    case OT_OMPT_TARGET_BEGIN:
        ot_ompt_targets_runtime_begin(&st->targets, runtime_id, r->record.target.kind,
                                      (uint64_t)(uintptr_t)r->record.target.codeptr_ra);
        break;
    case OT_OMPT_ACTIVITY: {
        uint64_t host_id, codeptr;
        offtrace_device_record out[OT_OMPT_TRANSLATE_MAX];
        ot_ompt_targets_find(&st->targets, runtime_id, &host_id, &codeptr);
        size_t n = ot_ompt_translate(r, host_id, codeptr, out);
        if (n && ot_ompt_batch_add(&st->pending, out, n) != 0)
            st->lost += n;
        break;
    }
    case OT_OMPT_SKIP:
        break;
    }
}

/* Every record from \p begin on, in buffer order: a target's begin record
 * comes before its activities, which is what the pairing needs.
 * \return 1 when enough records are pending to deliver them now. */
static int take_records(ot_ompt_dev *st, ompt_buffer_t *buffer, size_t bytes, ompt_buffer_cursor_t begin)
{
    pthread_mutex_lock(&st->lock);
    for (ompt_buffer_cursor_t cursor = begin;;) {
        take_record(st, buffer, cursor);
        ompt_buffer_cursor_t next = cursor;
        /* A cursor that does not move would loop forever: stop there. */
        if (!st->fn.ompt_advance_buffer_cursor(st->device, buffer, bytes, cursor, &next) || next == cursor)
            break;
        cursor = next;
    }
    int full = st->pending.count >= OT_OMPT_TRACE_DELIVER_AT;
    pthread_mutex_unlock(&st->lock);
    return full;
}

/* A device that is not (or no longer) attached still gets its owned buffer
 * freed: the runtime gave it up. */
void ot_ompt_on_buffer_complete(int device_num, ompt_buffer_t *buffer, size_t bytes,
                                ompt_buffer_cursor_t begin, int buffer_owned)
{
    ot_ompt_dev *st = ot_ompt_table_find(device_num);
    if (st && buffer && bytes > 0 && take_records(st, buffer, bytes, begin))
        ot_ompt_dev_deliver(st, 0);
    if (buffer_owned)
        free(buffer);
}

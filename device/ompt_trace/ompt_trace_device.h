/**
 * \file ompt_trace_device.h
 * \brief Inside the ompt-trace backend: the state of one traced device, the
 *        table that finds it from a device number, delivery, and the
 *        runtime's buffer callbacks.
 *
 * The runtime's buffer callbacks name a device only by its number, so each
 * attached device has a slot in a fixed table (OT_OMPT_TRACE_MAX_DEVICES),
 * taken at attach before tracing starts and given back at detach after it
 * stopped.
 *
 * Locks: `lock` guards the pairing, the pending records and the counters;
 * it is held while a buffer is walked and never while calling out to the
 * host. `deliver_lock` makes the deliveries of one device follow each other
 * in the order their records were taken, whichever thread delivers.
 */
#ifndef OT_DEVICE_OMPT_TRACE_DEVICE_H
#define OT_DEVICE_OMPT_TRACE_DEVICE_H

#include <pthread.h>
#include <stdint.h>

#include "backend.h"
#include "ompt_trace_batch.h"
#include "ompt_trace_targets.h"

/** Size of each buffer lent to the runtime. */
#define OT_OMPT_TRACE_BUFFER_BYTES (256u * 1024u)

/** Pending records past which a buffer completion delivers without waiting
 *  for the flush (bounds memory: about 3 MiB per device). */
#define OT_OMPT_TRACE_DELIVER_AT 65536u

/** The runtime's entry points, named as the lookup names them; the ones
 *  ompt_trace_backend.c requires are non-NULL. */
typedef struct ot_ompt_entries {
    ompt_set_trace_ompt_t ompt_set_trace_ompt;
    ompt_start_trace_t ompt_start_trace;
    ompt_flush_trace_t ompt_flush_trace;
    ompt_stop_trace_t ompt_stop_trace;                 /**< may be NULL */
    ompt_advance_buffer_cursor_t ompt_advance_buffer_cursor;
    ompt_get_record_type_t ompt_get_record_type;       /**< may be NULL */
    ompt_get_record_ompt_t ompt_get_record_ompt;
    ompt_get_device_time_t ompt_get_device_time;
} ot_ompt_entries;

/** One traced device. */
typedef struct ot_ompt_dev {
    ot_dev_device *d;          /**< the core's device, for ot_dev_deliver */
    ompt_device_t *device;     /**< the runtime's handle */
    ot_ompt_entries fn;
    uint64_t enabled;          /**< bit n: trace records of event type n enabled */
    pthread_mutex_t lock;
    pthread_mutex_t deliver_lock;
    ot_ompt_targets targets;   /**< host <-> runtime target ids */
    ot_ompt_batch pending;     /**< translated, not yet delivered */
    uint64_t lost;             /**< records not buffered, not yet reported */
    uint64_t delivered;        /**< records delivered since the last flush */
} ot_ompt_dev;

/** \brief A message on stderr when OFFTRACE_VERBOSE >= \p level. */
__attribute__((format(printf, 3, 4))) void ot_ompt_say(int level, int device_num, const char *fmt, ...);

/** \brief New state for \p d (not yet in the table). \return NULL when out of memory. */
ot_ompt_dev *ot_ompt_dev_new(ot_dev_device *d, ompt_device_t *device, const ot_ompt_entries *fn);

/** \brief Free the state (out of the table, tracing stopped). */
void ot_ompt_dev_free(ot_ompt_dev *st);

/** \brief Take slot \p num (0 <= num < OT_OMPT_TRACE_MAX_DEVICES). \return 1, or 0 when taken. */
int ot_ompt_table_claim(int num, ot_ompt_dev *st);

/** \brief Give slot \p num back. */
void ot_ompt_table_release(int num);

/** \brief The device in slot \p num, or NULL (also for numbers out of range). */
ot_ompt_dev *ot_ompt_table_find(int num);

/**
 * \brief Sort the pending records by time and hand them to ot_dev_deliver;
 *        with \p report_lost, also an OFFTRACE_DEVICE_LOST record (stamped
 *        with the device time now) when records were lost.
 * \return the number of records delivered.
 */
size_t ot_ompt_dev_deliver(ot_ompt_dev *st, int report_lost);

/** \brief Records delivered since the last call (resets the count). */
uint64_t ot_ompt_dev_take_delivered(ot_ompt_dev *st);

/** \brief ompt_callback_buffer_request_t: lends a buffer of OT_OMPT_TRACE_BUFFER_BYTES. */
void ot_ompt_on_buffer_request(int device_num, ompt_buffer_t **buffer, size_t *bytes);

/** \brief ompt_callback_buffer_complete_t: translates the records, frees an owned buffer. */
void ot_ompt_on_buffer_complete(int device_num, ompt_buffer_t *buffer, size_t bytes,
                                ompt_buffer_cursor_t begin, int buffer_owned);

#endif /* OT_DEVICE_OMPT_TRACE_DEVICE_H */

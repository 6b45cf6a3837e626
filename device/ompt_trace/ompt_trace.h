/**
 * \file ompt_trace.h
 * \brief The OMPT device-tracing backend ("ompt-trace"): device activity
 *        (kernels, transfers) from the trace records an OpenMP 5.x runtime
 *        produces through the device tracing interface.
 *
 * The interface is reached through the lookup that ompt_callback_device_initialize
 * hands over: ompt_set_trace_ompt, ompt_start_trace, ompt_flush_trace,
 * ompt_stop_trace, ompt_advance_buffer_cursor, ompt_get_record_type,
 * ompt_get_record_ompt, ompt_get_device_time. When the lookup lacks any of
 * the ones the backend cannot do without (LLVM 19's libomptarget returns
 * NULL for all of them), attach answers -ENOTSUP and the core asks the next
 * backend; a device no backend serves is traced without device detail.
 *
 * Once attached, the runtime fills buffers the backend allocates (256 KiB
 * each) and hands them back at ompt_flush_trace, when full, or at
 * ompt_stop_trace. Each kernel record (target_submit) becomes a KERNEL
 * BEGIN/END pair and each transfer record (target_data_op) a MEMCPY pair, on
 * stream 0 of the device (OFFTRACE_DEVICE_FLAG_STREAM: the runtime names no
 * stream), stamped with the runtime's device time; device_time reads the
 * same clock. Allocations, deletions and (dis)associations move no data and
 * are left to the host's own data-op records.
 *
 * Target ids: trace records carry the runtime's target id, not the host
 * tool's. The backend keeps the host ids given to target_begin in order of
 * arrival and pairs each with the runtime's target-begin records in order of
 * appearance (same construct kind, nowait or not). This is exact while the
 * target constructs of one device begin one after the other, as they do
 * from one host thread without nowait; constructs of the same kind that
 * begin concurrently (several host threads, nowait constructs on hidden
 * helper threads) may have their ids swapped. Records that cannot be paired
 * carry target id 0 (unknown).
 *
 * Order: records are delivered sorted by time (stable) within each
 * delivery, which is every flush and, between flushes, every 64 Ki records.
 * Across deliveries the order is the runtime's: an activity it hands back
 * only after a delivery, but that began before that delivery's last record,
 * arrives out of order.
 *
 * Thread safety: the buffer callbacks may run on any runtime thread and
 * concurrently with target_begin and flush; each device has its own lock.
 * At most OT_OMPT_TRACE_MAX_DEVICES devices (numbers 0 .. max-1) can be
 * attached, because the runtime's buffer callbacks name a device only by
 * number.
 */
#ifndef OT_DEVICE_OMPT_TRACE_H
#define OT_DEVICE_OMPT_TRACE_H

#include "backend.h"

/** Devices the backend can serve at once (device numbers 0 .. this - 1). */
#define OT_OMPT_TRACE_MAX_DEVICES 64

/** The backend: name "ompt-trace", wants_operations 0, operation_* NULL. */
extern const ot_dev_backend ot_ompt_trace_backend;

#endif /* OT_DEVICE_OMPT_TRACE_H */

/**
 * \file device_link.h
 * \brief The host side of the collector interface (offtrace/collector.h):
 *        finds the preloaded device collector, attaches devices, takes the
 *        clock sync points, asks for flushes, and writes what the collector
 *        delivers to raw/device-<N>.rec.
 *
 * Without a collector (not preloaded, or of another interface version) every
 * function here is a no-op after one message; tracing goes on without
 * device detail.
 *
 * Host OpenMP events a device needs (collector interface v2: a host-offload
 * device runs its OpenMP on the host's runtime) are registered by tool.c,
 * whose callbacks call ot_device_link_openmp's entries: one indirect call,
 * no test, since they are registered only once such a device is attached.
 */
#ifndef OT_HOST_DEVICE_LINK_H
#define OT_HOST_DEVICE_LINK_H

#include <stdint.h>

#include <omp-tools.h>

#include "offtrace/collector.h"

/** Bit d set: device d is attached to the collector (read on the hot path). */
extern uint64_t ot_device_link_attached;
/** Bit d set: device d wants operation_begin/operation_end (CUPTI correlation). */
extern uint64_t ot_device_link_wants_operations;

/** Where the host OpenMP events are forwarded: handlers that do nothing
 *  until ot_device_link_attach first returns 1, the collector's from then
 *  on, never cleared (the collector's entries stay callable until the
 *  process ends). Always callable. */
extern offtrace_collector_openmp ot_device_link_openmp;

/** 1 once ot_device_link_openmp holds a collector's entries (a host-offload
 *  device attached): from then on the collector owns the parallel_data of
 *  parallel regions and tells device work (in_device_work); before, the
 *  host library tells it itself (tool.c). */
extern int ot_device_link_forwards_openmp;

/** \brief Find and open the collector (at tool initialisation). */
void ot_device_link_open(void);

/** \brief 1 when a collector is open: its devices may want host OpenMP
 *  events, so offtrace may register their callbacks itself (tool_chain.c). */
int ot_device_link_present(void);

/**
 * \brief Attach a device (ompt_callback_device_initialize) and take a sync point.
 * \return 1 when the device wants the host OpenMP events forwarded to
 *         ot_device_link_openmp (the caller registers their callbacks), else 0.
 */
int ot_device_link_attach(int device_num, const char *type, ompt_device_t *device, ompt_function_lookup_t lookup);

/** \brief 1 when device \p num is attached. */
static inline int ot_device_link_has(int num)
{
    return num >= 0 && num < 64 && (ot_device_link_attached >> num & 1u);
}

/** \brief A target construct begins on an attached device: mark it, take
 *         a sync point when one is due. \p now: the host clock's ticks
 *         (ot_clock_ticks) the caller read for the construct's record, which
 *         paces the sync points without a clock read of its own. */
void ot_device_link_target_begin(int device_num, uint64_t target_id, int kind, uint64_t now);

/** \brief A target construct ends: mark it, take a sync point and flush
 *         the device when due (\p now as for the begin). */
void ot_device_link_target_end(int device_num, uint64_t target_id, int kind, uint64_t now);

/** \brief A submit or data operation begins/ends (only for devices that want it). */
void ot_device_link_operation_begin(int device_num, uint64_t target_id, uint64_t op_id);
void ot_device_link_operation_end(int device_num, uint64_t op_id);

/** \brief At exit: flush, sync and detach every device, close the collector. */
/**
 * \brief A device's last flush, clock pair and detach, when the runtime
 *        finalizes it (ompt_callback_device_finalize): while its driver and
 *        context still exist. A backend that talks to a driver (CUPTI) must
 *        not be flushed after the offload runtime tore the device down at
 *        exit. Nothing for a device not attached.
 */
void ot_device_link_finish_device(int num);

void ot_device_link_finish(void);

/** \brief In a forked child: no device is attached here (the collector's
 *  files are the parent's). */
void ot_device_link_forget(void);

#endif /* OT_HOST_DEVICE_LINK_H */

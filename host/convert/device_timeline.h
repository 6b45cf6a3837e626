/**
 * \file device_timeline.h
 * \brief Device-side events of one offload device, gathered from every host
 *        thread during conversion and written once all are known.
 *
 * Host threads are converted one after another, so a device's events arrive
 * out of time order; they are sorted here, in bounded memory (external_sort.h:
 * a long trace's events go to a scratch file and are merged back). Kernels that overlap in time go
 * to separate stream locations ("virtual streams", as Score-P does for OMPT
 * targets), so every location stays properly nested. The one RDMA location
 * per device shows each transfer as a region; a transfer that starts while
 * another is in flight is drawn nested inside it and clipped to its end (its
 * full duration stays on the host thread's RMA events), and the number of
 * clipped transfers is reported.
 */
#ifndef OT_CONVERT_DEVICE_TIMELINE_H
#define OT_CONVERT_DEVICE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "trace_writer.h"

typedef struct ot_device_timeline ot_device_timeline;

/**
 * \brief New, empty timeline for device \p num; NULL on ENOMEM.
 * \param scratch_dir where a long trace's events wait, sorted, for ot_dt_write.
 */
ot_device_timeline *ot_dt_new(int num, const char *scratch_dir);

/** \brief A kernel was launched from \p begin to \p end (ns) by host operation \p op (0: unknown), written
 *         on its Enter (OFFTRACE_ACTIVITY_ATTR_HOST_OPERATION). */
int ot_dt_add_kernel(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region, uint64_t op);

/** \brief A transfer occupied the device's link from \p begin to \p end. */
int ot_dt_add_transfer(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region);

/** \brief Device memory in use changed by \p delta bytes at \p time. */
int ot_dt_add_memory(ot_device_timeline *d, uint64_t time, int64_t delta);

/**
 * \brief Create the device's locations and write its events.
 * \param rdma_writer the device's RDMA location, already created.
 * \param clipped incremented by the number of clipped transfers.
 * \return 0 or a negative errno.
 */
int ot_dt_write(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma_writer,
                uint64_t *clipped);

/** \brief Free the timeline. */
void ot_dt_free(ot_device_timeline *d);

#endif

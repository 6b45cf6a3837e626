/**
 * \file device_timeline.h
 * \brief Device-side events of one offload device, gathered from every host
 *        thread during conversion and written once all are known.
 *
 * Host threads are converted one after another, so a device's events may
 * arrive out of time order. When they cannot (no later host thread adds any:
 * ot_dt_source), they are written as they come, with no sort and no scratch
 * file: one host thread offloads, the usual case. Otherwise they are sorted,
 * in bounded memory (external_sort.h: a long trace's events go to a scratch
 * file and are merged back), and written by ot_dt_write. Both ways write the
 * same archive: the events written as they came wait a little (64 of a
 * kind), in order, for one a few items late (an operation around others on
 * its thread), and are checked to be in the order the sort would give; one
 * that is not, after others were written, makes ot_dt_write ask for the
 * conversion to start again, sorting (OT_DT_START_AGAIN_SORTED). Kernels that overlap in time go
 * to separate stream locations ("virtual streams", as Score-P does for OMPT
 * targets), so every location stays properly nested. The one RDMA location
 * per device shows each transfer as a region; a transfer that starts while
 * another is in flight is drawn nested inside it and clipped to its end (its
 * full duration stays on the host thread's RMA events), and the number of
 * clipped transfers is reported.
 */
#ifndef OT_CONVERT_DEVICE_TIMELINE_H
#define OT_CONVERT_DEVICE_TIMELINE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_writer.h"

typedef struct ot_device_timeline ot_device_timeline;

/**
 * \brief New, empty timeline for device \p num; NULL on ENOMEM.
 * \param scratch_dir where a long trace's events wait, sorted, for ot_dt_write.
 */
ot_device_timeline *ot_dt_new(int num, const char *scratch_dir);

/** What ot_dt_write returns when an item came out of order after items
 *  behind it were written as they came: the archive cannot be the sorted
 *  one; convert it again with every item sorted. */
#define OT_DT_START_AGAIN_SORTED (-ERESTART)

/**
 * \brief The items from now on come from a new source (a host thread's
 *        pass): \p last says that no source after it adds any, so they may
 *        be written as they come, to \p w's locations of the device (\p rdma:
 *        its RDMA location, already created). Before the first call, and
 *        once an item went to the sort, items are sorted.
 */
void ot_dt_source(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma, int last);

/** \brief Items written as they came, and items that went through the sort. */
void ot_dt_counts(const ot_device_timeline *d, uint64_t *as_they_came, uint64_t *sorted);

/** \brief A kernel was launched from \p begin to \p end (ns) by host operation \p op (0: unknown), written
 *         on its Enter (OFFTRACE_ACTIVITY_ATTR_HOST_OPERATION). */
int ot_dt_add_kernel(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region, uint64_t op);

/** \brief A transfer occupied the device's link from \p begin to \p end. */
int ot_dt_add_transfer(ot_device_timeline *d, uint64_t begin, uint64_t end, OTF2_RegionRef region);

/** \brief Device memory in use changed by \p delta bytes at \p time. */
int ot_dt_add_memory(ot_device_timeline *d, uint64_t time, int64_t delta);

/**
 * \brief Write the events not written yet (the sorted ones) and define the
 *        device's kernel stream locations; every location of the device ends.
 * \param rdma_writer the device's RDMA location, already created.
 * \param clipped incremented by the number of clipped transfers.
 * \return 0, OT_DT_START_AGAIN_SORTED, or a negative errno.
 */
int ot_dt_write(ot_device_timeline *d, ot_trace_writer *w, OTF2_EvtWriter *rdma_writer,
                uint64_t *clipped);

/** \brief Free the timeline. */
void ot_dt_free(ot_device_timeline *d);

#endif

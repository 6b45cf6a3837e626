/**
 * \file host_offload.h
 * \brief Backend for host-offload devices (LLVM's generic-64bit plugin):
 *        the device's OpenMP code runs on the host's own OpenMP runtime, so
 *        the backend records it through that runtime's OMPT callbacks.
 */
#ifndef OT_DEVICE_HOST_OFFLOAD_H
#define OT_DEVICE_HOST_OFFLOAD_H

#include "backend.h"

/** The backend ("host-offload"). */
extern const ot_dev_backend ot_host_offload_backend;

/**
 * The backend's handlers of the host runtime's OpenMP events, the entries of
 * the collector table's `openmp` (offtrace_collector_openmp): each records
 * the event if the calling thread is doing work of an attached host-offload
 * device, and does nothing else otherwise (ho_callbacks.c).
 */
void ot_ho_parallel_begin(ompt_data_t *encountering_task, const ompt_frame_t *frame, ompt_data_t *parallel,
                          unsigned int requested, int flags, const void *codeptr);
void ot_ho_parallel_end(ompt_data_t *parallel, ompt_data_t *encountering_task, int flags, const void *codeptr);
void ot_ho_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                         unsigned int actual, unsigned int index, int flags);
void ot_ho_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                uint64_t count, const void *codeptr);
void ot_ho_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                       ompt_data_t *task, const void *codeptr);
void ot_ho_task_create(ompt_data_t *encountering_task, const ompt_frame_t *frame, ompt_data_t *new_task, int flags,
                       int has_dependences, const void *codeptr);
void ot_ho_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next);
/** \brief Whether the calling thread does device work now (collector.h). */
int ot_ho_in_device_work(void);

/** Device threads per device that get a buffer (and a location in the trace). */
#define OT_HO_MAX_THREADS 256

#endif /* OT_DEVICE_HOST_OFFLOAD_H */

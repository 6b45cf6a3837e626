/**
 * \file backend.h
 * \brief Inside the collector: what a backend (host-offload, CUPTI, OMPT
 *        device tracing) implements and what the collector core gives it.
 *
 * The core (collector.c) owns the public table of include/offtrace/collector.h,
 * keeps one ot_dev_device per attached device, asks each backend in turn
 * whether it serves a device, and forwards the host's calls to the backend
 * that said yes. Backends never see the host; they hand records to
 * ot_dev_deliver.
 */
#ifndef OT_DEVICE_BACKEND_H
#define OT_DEVICE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/collector.h"

typedef struct ot_dev_backend ot_dev_backend;

/** One attached device; it stays at the same address from attach until
 *  detach returns, so backends may keep the pointer for runtime threads. */
typedef struct ot_dev_device {
    int num;                        /**< OpenMP device number */
    const ot_dev_backend *backend;  /**< the backend serving it */
    void *state;                    /**< the backend's own per-device state */
} ot_dev_device;

/**
 * A backend. Every function pointer is non-NULL except where noted.
 * attach returns -ENOTSUP when the device is not this backend's kind; the
 * core then asks the next backend.
 */
struct ot_dev_backend {
    const char *name;
    int wants_operations; /**< see offtrace_collector_device_info */
    int (*attach)(ot_dev_device *d, const char *device_type, ompt_device_t *device,
                  ompt_function_lookup_t device_lookup);
    void (*target_begin)(ot_dev_device *d, uint64_t target_id, int kind);
    void (*target_end)(ot_dev_device *d, uint64_t target_id, int kind);
    void (*operation_begin)(ot_dev_device *d, uint64_t target_id, uint64_t op_id); /**< may be NULL */
    void (*operation_end)(ot_dev_device *d, uint64_t op_id);                     /**< may be NULL */
    uint64_t (*device_time)(ot_dev_device *d);
    long (*flush)(ot_dev_device *d);
    void (*detach)(ot_dev_device *d);
};

/**
 * \brief Hand records of device \p d to the host (thread-safe).
 * Provided by the core; tests may provide their own to capture records.
 */
void ot_dev_deliver(ot_dev_device *d, const offtrace_device_record *records, size_t count);

/**
 * The CUPTI backend lives in its own module, linked against libcupti, so
 * that the collector itself loads on machines without CUDA. The core
 * dlopens OT_CUPTI_MODULE_NAME (from the directory the collector was loaded
 * from) only when a device looks like an NVIDIA GPU, and calls its entry.
 */
#define OT_CUPTI_MODULE_NAME "libofftrace-device-cupti.so"
#define OT_CUPTI_ENTRY_NAME "ot_cupti_backend_entry"
typedef void (*ot_dev_deliver_fn)(ot_dev_device *d, const offtrace_device_record *records, size_t count);
typedef const ot_dev_backend *(*ot_cupti_entry_fn)(ot_dev_deliver_fn deliver, int verbose);

/** \brief The host's OpenMP runtime lookup given at open (NULL before). */
ompt_function_lookup_t ot_dev_host_lookup(void);

/** \brief OFFTRACE_VERBOSE as the host passed it. */
int ot_dev_verbose(void);

/** \brief OFFTRACE_DEVICE_BUFFER_SIZE: bytes one device thread may buffer between flushes. */
size_t ot_dev_thread_budget(void);

/** \brief The collector's public table (exported by exported.c). */
const offtrace_collector *ot_dev_collector_table(void);

/** Most devices the collector serves; device numbers must be below it. */
#define OT_DEV_MAX_DEVICES 64

#endif /* OT_DEVICE_BACKEND_H */

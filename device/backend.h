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
    int wants_operations;  /**< see offtrace_collector_device_info */
    int wants_host_openmp; /**< see offtrace_collector_device_info; the events
                                reach the host-offload backend only (collector.c) */
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
 * from) only when a device looks like an NVIDIA GPU, and calls its one
 * exported function, OT_CUPTI_ENTRY_NAME. The name carries the layout
 * version, so that a module built for another layout is not even found; the
 * descriptor it returns says its version and sizes again, and the core uses
 * it only if ot_cupti_module_fits (a module built from other headers of the
 * same version would otherwise be called through the wrong layout).
 */
#define OT_CUPTI_MODULE_NAME "libofftrace-device-cupti.so"
#define OT_CUPTI_MODULE_VERSION 1u
#define OT_CUPTI_ENTRY_NAME "offtrace_cupti_module_v1"
typedef void (*ot_dev_deliver_fn)(ot_dev_device *d, const offtrace_device_record *records, size_t count);

/** What the CUPTI module's entry returns (a static object of the module). */
typedef struct ot_cupti_module {
    uint32_t version;      /**< OT_CUPTI_MODULE_VERSION the module was built with */
    uint32_t size;         /**< sizeof(ot_cupti_module) of the module */
    uint32_t backend_size; /**< sizeof(ot_dev_backend) of the module */
    uint32_t record_size;  /**< sizeof(offtrace_device_record) of the module */
    /** \brief Start the backend: \p deliver takes its records. \return the backend (never NULL). */
    const ot_dev_backend *(*open)(ot_dev_deliver_fn deliver, int verbose);
} ot_cupti_module;

/** \brief The CUPTI module's entry (OT_CUPTI_ENTRY_NAME). \return its descriptor (never NULL). */
typedef const ot_cupti_module *(*ot_cupti_entry_fn)(void);

/** \brief 1 when \p m has this collector's version and layout. */
static inline int ot_cupti_module_fits(const ot_cupti_module *m)
{
    return m && m->version == OT_CUPTI_MODULE_VERSION && m->size == sizeof(ot_cupti_module) &&
           m->backend_size == sizeof(ot_dev_backend) && m->record_size == sizeof(offtrace_device_record);
}

/** \brief OFFTRACE_VERBOSE as the host passed it. */
int ot_dev_verbose(void);

/** \brief OFFTRACE_DEVICE_BUFFER_SIZE: bytes one device thread may buffer between flushes. */
size_t ot_dev_thread_budget(void);

/** \brief OFFTRACE_DEVICE_DETAIL: enum ot_device_detail (device_config.h). */
int ot_dev_detail(void);

/** \brief The collector's public table (exported by exported.c). */
const offtrace_collector *ot_dev_collector_table(void);

/** Most devices the collector serves; device numbers must be below it. */
#define OT_DEV_MAX_DEVICES 64

#endif /* OT_DEVICE_BACKEND_H */

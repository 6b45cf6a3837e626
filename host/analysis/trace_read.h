/**
 * \file trace_read.h
 * \brief Streaming reader of an offtrace archive for the analysis verbs
 *        (report, view, export): definitions classified once, then every
 *        event in time order through a visitor.
 *
 * Memory: definitions (strings, regions, locations) are held; events are
 * not: OTF2's global event reader merges the locations' event files chunk by
 * chunk, so memory does not grow with the number of events.
 *
 * Bad input: a directory without an archive, a truncated or damaged one, an
 * archive another producer wrote (its creator is not "offtrace ..."), or
 * events that refer to undefined regions or locations end the read with a
 * one-line message in `err` and a negative return; OTF2's own error printing
 * is silenced. An offtrace archive without the class table of
 * offtrace/event_catalogue.h (written before it existed, or of another
 * catalogue version) is refused the same way. Events of kinds offtrace does not write in an offtrace
 * archive (a newer version) are counted (ot_tr_unknown_events), not fatal.
 */
#ifndef OT_ANALYSIS_TRACE_READ_H
#define OT_ANALYSIS_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "offtrace/event_catalogue.h"

/** What a location is: its OFFTRACE::LOCATION_ROLE property (the location
 *  roles of offtrace/event_catalogue.h, whose names these mirror). */
typedef enum ot_tr_location_class {
    OT_TR_HOST_THREAD,
    OT_TR_KERNEL_STREAM,  /**< "device N stream K": kernels */
    OT_TR_RDMA,           /**< "device N RDMA": transfers, memory metric */
    OT_TR_DEVICE_THREAD,  /**< "device N thread T": OpenMP on the device */
    OT_TR_DEVICE_QUEUE,   /**< "device N queue Q": CUPTI / OMPT-trace activity */
    OT_TR_OTHER_LOCATION, /**< an archive from another producer */
} ot_tr_location_class;

typedef struct ot_tr_location {
    uint64_t id;
    const char *name;
    const char *group;    /**< its location group's name ("Process", "generic-64bit device 0"), or "" */
    ot_tr_location_class klass;
    int device;           /**< device number, -1 for host threads */
    uint32_t index;       /**< 0 .. location_count-1, in definition order */
    uint64_t events;      /**< number of events the definition announces */
} ot_tr_location;

/** What a region is: the reader column of its class in the archive's class
 *  table (offtrace/event_catalogue.h); OT_TR_OTHER_REGION for a region in
 *  no class. */
typedef enum ot_tr_region_class {
    OT_TR_TARGET,         /**< a target construct on a host thread; see construct */
    OT_TR_TARGET_DATA,    /**< "target data @..." span */
    OT_TR_KERNEL,         /**< a kernel on a kernel stream */
    OT_TR_DATA_OP,        /**< "data op ..." on a host thread; see op */
    OT_TR_API,            /**< omp_target_* wrapper */
    OT_TR_TRANSFER,       /**< "transfer host->device" / "device->host" on an RDMA location */
    OT_TR_DEVICE_OPENMP,  /**< device-thread regions (parallel, loop, barrier, task, ...) */
    OT_TR_DEVICE_ACTIVITY,/**< device-queue regions (kernel, memcpy, memset) */
    OT_TR_MEASUREMENT,    /**< offtrace's own (e.g. "device records lost") */
    OT_TR_OTHER_REGION,
} ot_tr_region_class;

/** For OT_TR_TARGET: which construct. */
enum ot_tr_construct {
    OT_TR_CONSTRUCT_NONE = 0,
    OT_TR_CONSTRUCT_TARGET,
    OT_TR_CONSTRUCT_ENTER_DATA,
    OT_TR_CONSTRUCT_EXIT_DATA,
    OT_TR_CONSTRUCT_UPDATE,
};

/** For OT_TR_DATA_OP and OT_TR_TRANSFER: which operation. */
enum ot_tr_op {
    OT_TR_OP_OTHER = 0,
    OT_TR_OP_TO_DEVICE,
    OT_TR_OP_FROM_DEVICE,
    OT_TR_OP_ALLOC,
    OT_TR_OP_DELETE,
};

typedef struct ot_tr_region {
    uint32_t id;
    const char *name;     /**< full name, e.g. "target @cg.c:23" */
    const char *site;     /**< the "file:line" (or other) part after '@', "" if none */
    const char *file;     /**< source file or "" */
    uint32_t line;        /**< begin line or 0 */
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    ot_tr_region_class klass;
    int cls;              /**< enum offtrace_event_class: its catalogue class, 0 if none */
    int construct;        /**< enum ot_tr_construct for OT_TR_TARGET, else 0 */
    int op;               /**< enum ot_tr_op for data ops and transfers, else 0 */
    int nowait;           /**< 1 for the nowait forms */
} ot_tr_region;

/** A put (host->device) or get (device->host) on a host thread. */
typedef struct ot_tr_transfer {
    int to_device;
    int device;           /**< from the remote RDMA location, -1 if unknown */
    uint64_t bytes;
    uint64_t id;          /**< matches the completion */
    int has_addresses;    /**< offtrace >= 0.1 archives carry both addresses */
    uint64_t host_address, device_address;
} ot_tr_transfer;

typedef struct ot_tr_archive ot_tr_archive;

/** Events, in time order across all locations. A nonzero return stops the read (it returns that value). */
typedef struct ot_tr_visitor {
    int (*begin)(void *user, const ot_tr_archive *archive); /**< definitions read, before any event */
    int (*enter)(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_region *region);
    int (*leave)(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_region *region);
    int (*transfer)(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_transfer *transfer);
    int (*transfer_complete)(void *user, const ot_tr_location *loc, uint64_t time, uint64_t id);
    int (*memory)(void *user, const ot_tr_location *loc, uint64_t time, uint64_t bytes_in_use);
} ot_tr_visitor;

/**
 * \brief Read `<dir>/traces.otf2` (or an anchor file path) through \p v.
 * Every callback may be NULL.
 * \return 0, a visitor's nonzero return, or a negative errno with a one-line
 *         message in \p err (-ENOENT: no archive, -EINVAL: damaged or not
 *         OTF2, -EPROTO: written by another producer, or by an offtrace of
 *         another catalogue version, -ENOMEM).
 */
int ot_trace_read(const char *dir, const ot_tr_visitor *v, void *user, char *err, size_t err_size);

/* ---- what ot_tr_archive tells (valid during the read) ---- */

/** \brief Locations, in definition order. */
size_t ot_tr_location_count(const ot_tr_archive *a);
const ot_tr_location *ot_tr_location_at(const ot_tr_archive *a, size_t index);

/** \brief Regions by index (not by OTF2 id; use the pointer an event gives). */
size_t ot_tr_region_count(const ot_tr_archive *a);
const ot_tr_region *ot_tr_region_at(const ot_tr_archive *a, size_t index);

/** \brief Clock: first event time, duration (ns), wall-clock ns of the first event. */
uint64_t ot_tr_first_time(const ot_tr_archive *a);
uint64_t ot_tr_duration(const ot_tr_archive *a);
uint64_t ot_tr_realtime(const ot_tr_archive *a);

/** \brief Number of devices with a location, and the highest device number (-1 if none). */
int ot_tr_device_count(const ot_tr_archive *a);
int ot_tr_max_device(const ot_tr_archive *a);

/** \brief An archive property ("OFFTRACE::LOST_RECORDS"), or NULL. */
const char *ot_tr_property(const ot_tr_archive *a, const char *name);

/** \brief The archive's creator string ("" if none). */
const char *ot_tr_creator(const ot_tr_archive *a);

/** \brief Events read so far of kinds this reader does not interpret. */
uint64_t ot_tr_unknown_events(const ot_tr_archive *a);

#endif /* OT_ANALYSIS_TRACE_READ_H */

/**
 * \file trace_read.h
 * \brief The one streaming reader of an offtrace archive: definitions
 *        classified once, then every event in time order, already paired,
 *        through a visitor. report, view, export and the summary of `info`
 *        and `record` (summary.h) are its visitors.
 *
 * Paired delivery: the reader keeps, per location, the stack of open region
 * instances and the table of issued transfers, so no visitor keeps either.
 * A region instance is an ot_tr_span: handed to `enter` at its Enter (with
 * its nesting depth) and to `leave` at its Leave with its begin and end. A
 * put or get is an ot_tr_transfer: handed to `issue` when it is issued and
 * to `transfer` with its completion time once the completion with its
 * matching id comes on its location. A visitor that needs its own state per
 * open instance or pending transfer asks for scratch bytes
 * (ot_tr_visitor.span_data, .transfer_data) that travel with it, and may
 * look at the instances open on any location (ot_tr_open_span).
 *
 * What is left at the end (a region never left, a put never completed: an
 * archive whose converter could not close them) is delivered after the last
 * event, before `end`: per location (definition order), its pending
 * transfers oldest first with `completed` 0, then its open regions innermost
 * first with `unfinished` set and `end` = the archive's last event time.
 *
 * An MPI job's archive (docs/mpi.md): every location has its rank
 * (OFFTRACE::MPI_RANK, else the id's bits 40-63; 0 in one process); devices
 * are keyed by (rank, device number) (ot_tr_location.device, see
 * ot_tr_device_stride), and a put/get's remote is resolved through its RMA
 * window, the window's communicator and that communicator's group, so each
 * rank's transfers land on its own device's RDMA location. An archive of
 * one process reads exactly as before (its device keys are its device
 * numbers). Its MPI events: a point-to-point message is paired (its send
 * with its receive, FIFO per communicator, sender, receiver and tag, the
 * ranks mapped to world ranks through the communicator's group) and handed
 * to `message` once, a collective to `collective` per rank at its
 * CollectiveEnd; the request events (MpiIrecvRequest: an Irecv's posting
 * time; MpiIsendComplete, MpiRequestTest, MpiRequestCancelled) are read,
 * not delivered. A read without a `message` visitor pairs nothing.
 *
 * Memory: definitions (strings, regions, locations) are held; events are
 * not: OTF2's global event reader merges the locations' event files chunk by
 * chunk, and the per-location stacks grow only with nesting (at most
 * OT_TR_MAX_DEPTH) and the tables with transfers in flight (at most
 * OT_TR_MAX_PENDING per location) and with MPI messages of which one side
 * was read (at most OT_TR_MAX_MESSAGES, the oldest then delivered
 * unmatched).
 *
 * Bad input: a directory without an archive, a truncated or damaged one, an
 * archive another producer wrote (its creator is not "offtrace ..."),
 * events that refer to undefined regions or locations, or a Leave that does
 * not match the innermost open region of its location end the read with a
 * one-line message in `err` and a negative return; OTF2's own error printing
 * is silenced. An offtrace archive without the class table of
 * offtrace/event_catalogue.h (written before it existed, or of another
 * catalogue version) is refused the same way. Events of kinds offtrace
 * does not write in an offtrace archive (a newer version) are counted
 * (ot_tr_unknown_events), not fatal;
 * so are completions that match no issued transfer
 * (ot_tr_unmatched_completions), MPI messages without a partner
 * (ot_tr_unmatched_messages) and regions nested deeper than
 * OT_TR_MAX_DEPTH (ot_tr_regions_too_deep: neither their Enter nor their
 * Leave is delivered).
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
    /** Its device, -1 for host threads: the device's key, one per (rank, device number) in the archive,
     *  rank * ot_tr_device_stride() + device_number; in an archive of one process (rank 0) the device
     *  number itself. */
    int device;
    int device_number;    /**< the device's number in its rank's process, -1 for host threads */
    uint32_t rank;        /**< its MPI rank: OFFTRACE::MPI_RANK, else id >> 40; 0 outside a job */
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
    OT_TR_HOST_OPENMP,    /**< the program's own OpenMP on a host thread (parallel, loop, chunk, barrier, ...) */
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

/** Open region instances one location may hold; deeper Enters (and their Leaves) are counted, not delivered. */
#define OT_TR_MAX_DEPTH 1024
/** Transfers one location may have in flight; past it the oldest is delivered as never completed. */
#define OT_TR_MAX_PENDING 1024

/** The variable of a data operation (issue 15): the map attributes (offtrace/event_catalogue.h,
 *  OFFTRACE_MAP_ATTRIBUTES) its data op's Enter or its put/get carried. Strings are the archive's
 *  definitions (valid until ot_tr_close); NULL where the event did not carry the attribute
 *  (an archive without names, an operation no map entry matched). A named data op's implicit and
 *  entry, left out of the archive at their usual values (0, "entry"), are given as those. */
typedef struct ot_tr_map {
    const char *variable;      /**< "x[0:n]", "s.data[0:len]", "unknown" (see name_problem) */
    const char *map_type;      /**< "tofrom", "always,from", ... */
    const char *member_of;     /**< a struct member's parent */
    const char *site;          /**< file:line of the construct */
    const char *entry;         /**< "entry", "mapper component", "pointer fix-up", "none" */
    const char *name_problem;  /**< why the variable is unknown */
    int implicit;              /**< 1 implicit map, 0 explicit, -1 not carried */
} ot_tr_map;

/** A put (host->device) or get (device->host), with its completion once it came. */
typedef struct ot_tr_transfer {
    int to_device;
    int device;           /**< the device's key (ot_tr_location.device) of the remote RDMA location, resolved
                               through the put/get's window, its communicator and group; -1 if unknown */
    uint64_t bytes;
    uint64_t id;          /**< the matching id of the put/get and its completion */
    int has_addresses;    /**< offtrace >= 0.1 archives carry both addresses */
    uint64_t host_address, device_address;
    uint64_t issued;      /**< time of the put/get */
    uint64_t completed;   /**< time of its completion; 0 at `issue`, and for one never completed */
    ot_tr_map map;        /**< its variable (issue 15): what its put/get carried (the variable), completed
                               from the Enter of the data op it was issued in (the rest) */
    void *data;           /**< ot_tr_visitor.transfer_data bytes kept from `issue` to `transfer` (not zeroed: `issue`
                               writes them), or NULL */
} ot_tr_transfer;

/** The attributes offtrace writes on region Enters that a span carries (ot_tr_span.attr), by name. */
enum ot_tr_attribute {
    OT_TR_ATTR_FIRST_ITERATION, /**< "first iteration": a host loop chunk's first logical iteration */
    OT_TR_ATTR_ITERATIONS,      /**< "iterations": a chunk's iteration count, a worksharing construct's count */
    OT_TR_ATTR_TEAM_SIZE,       /**< "team size": an implicit task's actual team size */
    OT_TR_ATTR_THREAD_NUMBER,   /**< "thread number": an implicit task's thread number in its team */
    OT_TR_ATTR_TASK_ID,         /**< "task id": an explicit task's id (its creation and periods) */
    OT_TR_ATTR_TASK_FLAGS,      /**< "task flags": its ompt_task_flag_t bits */
    OT_TR_ATTR_PARENT_TASK,     /**< "parent task": the id of the task that created it (0: implicit) */
    OT_TR_ATTR_PREDECESSOR_TASK, /**< "predecessor task": a dependence edge's task waited for */
    OT_TR_ATTR_LOCK_ID,         /**< "lock id": a lock, critical or ordered region's lock (an OTF2 uint32) */
    /* NVTX (issue 14): the values as written, widened to 64 bits */
    OT_TR_ATTR_NVTX_CATEGORY,   /**< "nvtx category" (an OTF2 uint32) */
    OT_TR_ATTR_NVTX_COLOR,      /**< "nvtx color": 0xAARRGGBB (an OTF2 uint32) */
    OT_TR_ATTR_NVTX_PAYLOAD,    /**< "nvtx payload": an OTF2 int64, its bits */
    OT_TR_ATTR_NVTX_PAYLOAD_FLOAT, /**< "nvtx payload (floating)": an OTF2 double, its bits */
    /** "host operation" (issue 17): the host operation of a kernel launch (on its kernel stream), of a data op,
     *  and of the device activity it caused (on a device queue); equal values pair them */
    OT_TR_ATTR_HOST_OPERATION,
    OT_TR_ATTRS
};

/** A region instance on one location: Enter .. Leave. */
typedef struct ot_tr_span {
    const ot_tr_region *region;
    uint64_t begin;
    uint64_t end;         /**< 0 until its Leave */
    uint32_t depth;       /**< instances open around it on its location (0: outermost) */
    int unfinished;       /**< never left: `end` is the archive's last event time */
    uint64_t serial;      /**< this instance, unique in the read (1, 2, ...) */
    /** Puts/gets issued on its location while it was the innermost open instance, and, for a
     *  transfer region (OT_TR_TRANSFER) on an RDMA location, the put/get of its device issued at its
     *  begin: their number, summed bytes, and the last one (valid when transfers > 0). */
    uint64_t transfers, bytes;
    ot_tr_transfer last;
    /** The ot_tr_attribute values its Enter carried: attr[k] is valid when bit 1u << k of `attrs` is set. */
    uint32_t attrs;
    uint64_t attr[OT_TR_ATTRS];
    /** A data op's (OT_TR_DATA_OP) variable, as its Enter carried it (issue 15); all NULL and implicit -1
     *  for other regions. */
    ot_tr_map map;
    void *data;           /**< ot_tr_visitor.span_data bytes kept from `enter` to `leave` (not zeroed: `enter`
                               writes them), or NULL */
} ot_tr_span;

/** A user value's metric (OTF2 metric of one member of metric type USER: offtrace's user values, issue 14). */
typedef struct ot_tr_metric {
    uint32_t id;          /**< its OTF2 metric ref */
    const char *name;     /**< its member's name */
    OTF2_Type type;       /**< OTF2_TYPE_INT64, _UINT64 or _DOUBLE */
} ot_tr_metric;

/** MPI messages one read may hold with one side only (sent and not yet received, or received and not yet
 *  sent), and Irecv postings waiting for their completion; past it the oldest is delivered unmatched. */
#define OT_TR_MAX_MESSAGES 65536

/**
 * An MPI point-to-point message (issue 16, docs/mpi.md): its send (MpiSend / MpiIsend) paired with its
 * receive (MpiRecv / MpiIrecv) in MPI's order, the k-th send of a channel (communicator, sender's rank,
 * receiver's rank, tag) with its k-th receive. The ranks of the events are ranks in the communicator; here
 * they are world ranks, through the communicator's group.
 *
 * The MPI call around a side is the innermost open region of paradigm MPI on the event's location when the
 * event was read: for a send its MPI_Send / MPI_Isend / MPI_Sendrecv, for a receive the call in which it
 * completed (MPI_Recv, MPI_Sendrecv, or the MPI_Wait / MPI_Test of an MPI_Irecv).
 */
typedef struct ot_tr_message {
    const ot_tr_location *sender;    /**< the location of the MpiSend/MpiIsend, NULL if never sent */
    const ot_tr_location *receiver;  /**< the location of the MpiRecv/MpiIrecv, NULL if never received */
    uint32_t send_rank, recv_rank;   /**< world ranks (the locations' ranks; the peer's when a side is missing) */
    uint32_t comm;                   /**< the OTF2 communicator ref */
    uint32_t tag;
    uint64_t bytes;                  /**< as the send said (0 if never sent) */
    uint64_t send_time;              /**< MpiSend / MpiIsend event time, 0 if never sent */
    uint64_t recv_time;              /**< MpiRecv / MpiIrecv event time (the completion), 0 if never received */
    uint64_t recv_bytes;             /**< as the receive said (what arrived; 0 if never received) */
    int send_blocking;               /**< 1: MpiSend (a blocking send, or Sendrecv's), 0: MpiIsend */
    int recv_blocking;               /**< 1: MpiRecv (a blocking receive, or Sendrecv's), 0: MpiIrecv */
    /** When the receive was posted: the Irecv's MpiIrecvRequest time, for a blocking receive the begin of
     *  its call; 0 when unknown (no call around it, a posting not seen). */
    uint64_t recv_posted;
    /** The MPI call around each side (NULL: none open), its begin and its ot_tr_span.serial; its end when the
     *  call had ended before this delivery, 0 while it is still open (ot_tr_open_span finds it). */
    const ot_tr_region *send_call, *recv_call;
    uint64_t send_call_begin, recv_call_begin;
    uint64_t send_call_serial, recv_call_serial;
    uint64_t send_call_end, recv_call_end;
} ot_tr_message;

/** One rank's part in one collective operation (MpiCollectiveBegin .. MpiCollectiveEnd on one location). */
typedef struct ot_tr_collective {
    OTF2_CollectiveOp op;
    /** The MPI function of \p op ("MPI_Allreduce"), from OTF2's operation (not the region's name: the
     *  event says what it is even outside a region); "MPI collective" for an operation MPI has no name for. */
    const char *op_name;
    uint32_t comm;
    uint32_t root;                   /**< the root's rank in comm, OTF2_UNDEFINED_UINT32 when rootless */
    uint64_t sent, received;         /**< bytes */
    uint64_t begin, end;             /**< CollectiveBegin and CollectiveEnd times */
    uint32_t size;                   /**< members of the communicator (0: its group is unknown) */
    uint32_t root_rank;              /**< the root's world rank, OTF2_UNDEFINED_UINT32 when rootless or unknown */
    /** The MPI call around it (NULL: none), its begin and its ot_tr_span.serial. */
    const ot_tr_region *call;
    uint64_t call_begin, call_serial;
} ot_tr_collective;

typedef struct ot_tr_archive ot_tr_archive;

/** Events, in time order across all locations. A nonzero return stops the read (it returns that value).
 *  Pointers handed to a callback are valid during that callback only. */
typedef struct ot_tr_visitor {
    size_t span_data;     /**< scratch bytes per open region instance (ot_tr_span.data), 0 for none;
                               a visitor that asks for them has an `enter` */
    size_t transfer_data; /**< scratch bytes per transfer in flight (ot_tr_transfer.data), 0 for none;
                               a visitor that asks for them has an `issue` */
    /** Nonzero: time order across locations is not needed. Each location's events come in order, one
     *  location after the other (no merge: faster), and a transfer region on an RDMA location gets no
     *  put/get (its span's `transfers` stay 0). */
    int unordered;
    /** Nonzero: puts/gets come without their addresses (has_addresses 0); reading them costs. */
    int without_addresses;
    /** Nonzero: the visitor writes to a terminal while events are read (`export -o -` on one). A read
     *  that takes over a second shows how far it is on a terminal's stderr (progress.h), unless this is
     *  set: the line would mix into that output. */
    int output_on_terminal;
    int (*begin)(void *user, const ot_tr_archive *archive); /**< definitions read, before any event */
    /** A region instance begins (`end` 0); it is the innermost open one of \p loc. */
    int (*enter)(void *user, const ot_tr_location *loc, const ot_tr_span *span);
    /** It ends; still the innermost open one of \p loc during the call. */
    int (*leave)(void *user, const ot_tr_location *loc, const ot_tr_span *span);
    /** A put/get is issued (`completed` 0). */
    int (*issue)(void *user, const ot_tr_location *loc, const ot_tr_transfer *transfer);
    /** A put/get with its completion (or `completed` 0: never completed, at the end or when
     *  OT_TR_MAX_PENDING were in flight). Every put/get comes here exactly once. */
    int (*transfer)(void *user, const ot_tr_location *loc, const ot_tr_transfer *transfer);
    int (*memory)(void *user, const ot_tr_location *loc, uint64_t time, uint64_t bytes_in_use);
    /** A user value: a Metric event of a metric whose one member is of metric type USER (these come here,
     *  not to `memory`; every other metric goes to `memory` as its first value's uint64). */
    int (*value)(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_metric *metric,
                 OTF2_MetricValue value);
    /** An MPI point-to-point message, delivered once both its send and its receive were read (at the later
     *  of the two, in time order), or at the end (or when OT_TR_MAX_MESSAGES were held) with the missing side
     *  NULL/0. Every MpiSend/MpiIsend and MpiRecv/MpiIrecv comes here exactly once. */
    int (*message)(void *user, const ot_tr_message *m);
    /** One rank's part in one collective operation, at its CollectiveEnd (\p loc: where it was). */
    int (*collective)(void *user, const ot_tr_location *loc, const ot_tr_collective *c);
    int (*end)(void *user, const ot_tr_archive *archive); /**< after the last event and what was left open */
} ot_tr_visitor;

/**
 * \brief Read `<dir>/traces.otf2` (or an anchor file: a path ending ".otf2"
 *        that is not a directory) through \p v. Every callback may be NULL.
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

/** \brief Number of devices with a location (one per (rank, device number)), and the highest device key
 *         (ot_tr_location.device; -1 if none). */
int ot_tr_device_count(const ot_tr_archive *a);
int ot_tr_max_device(const ot_tr_archive *a);

/** \brief The device keys of one rank: key = rank * stride + device number (1 + the highest device
 *         number of any rank; 1 when there is no device). */
int ot_tr_device_stride(const ot_tr_archive *a);

/** \brief Ranks of an MPI job's archive: 1 + the highest rank of a location (1 for one process). */
uint32_t ot_tr_rank_count(const ot_tr_archive *a);

/** \brief An archive property ("OFFTRACE::LOST_RECORDS"), or NULL. */
const char *ot_tr_property(const ot_tr_archive *a, const char *name);

/** \brief The archive's creator string ("" if none). */
const char *ot_tr_creator(const ot_tr_archive *a);

/** \brief Whether the archive defines span attribute \p k (enum ot_tr_attribute): an archive written before
 *         offtrace wrote it has no such definition, and none of its Enters carries it. */
int ot_tr_defines_attribute(const ot_tr_archive *a, int k);

/** \brief Events read so far of kinds this reader does not interpret. */
uint64_t ot_tr_unknown_events(const ot_tr_archive *a);

/** \brief Events read so far, of every kind this reader interprets (delivered or counted). */
uint64_t ot_tr_events(const ot_tr_archive *a);

/** \brief The latest event time read so far (the clock's offset before the first event). */
uint64_t ot_tr_last_time(const ot_tr_archive *a);

/** \brief Clock ticks per second (ClockProperties' resolution). */
uint64_t ot_tr_clock_resolution(const ot_tr_archive *a);

/** \brief Location groups of type ACCELERATOR that the definitions hold. */
size_t ot_tr_accelerator_groups(const ot_tr_archive *a);

/** \brief Completions read so far that matched no put/get in flight on their location. */
uint64_t ot_tr_unmatched_completions(const ot_tr_archive *a);

/** \brief MPI messages delivered so far with one side missing (never sent, never received, or pushed out
 *         by OT_TR_MAX_MESSAGES). */
uint64_t ot_tr_unmatched_messages(const ot_tr_archive *a);

/** \brief Paired MPI messages delivered so far whose receive completed before their send began (the send's
 *         call's begin, or the send event without a call): what the clock correction across ranks left
 *         (docs/mpi.md, "Clocks across ranks"). */
uint64_t ot_tr_clock_violations(const ot_tr_archive *a);

/** \brief The name of communicator \p comm ("MPI_COMM_WORLD", "MPI comm 1234"), "" if not defined. */
const char *ot_tr_comm_name(const ot_tr_archive *a, uint32_t comm);

/** \brief Enters read so far that were nested deeper than OT_TR_MAX_DEPTH (not delivered). */
uint64_t ot_tr_regions_too_deep(const ot_tr_archive *a);

/** \brief Region instances open on \p loc now, and the one at \p depth (0: outermost), or NULL. */
uint32_t ot_tr_open_count(const ot_tr_archive *a, const ot_tr_location *loc);
const ot_tr_span *ot_tr_open_span(const ot_tr_archive *a, const ot_tr_location *loc, uint32_t depth);

#endif /* OT_ANALYSIS_TRACE_READ_H */

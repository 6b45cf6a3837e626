/**
 * \file trace_writer.h
 * \brief Writes the OTF2 archive: interns strings and regions, creates
 *        locations and their event writers, and writes the global
 *        definitions in the order OTF2 expects when the archive is closed.
 *
 * Single-threaded: the converter is the only user. Event times are host
 * CLOCK_MONOTONIC nanoseconds; each location must be written in
 * non-decreasing time, which the converter guarantees and OTF2 enforces.
 */
#ifndef OT_CONVERT_TRACE_WRITER_H
#define OT_CONVERT_TRACE_WRITER_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "offtrace/event_catalogue_otf2.h"
#include "write_counts.h"

typedef struct ot_trace_writer ot_trace_writer;

/** Attributes on RmaPut/RmaGet: the host and device address of the transfer
 *  (OTF2_TYPE_UINT64), so that readers can tell which host range moved. */
#define OT_ATTR_HOST_ADDRESS ((OTF2_AttributeRef)0)
#define OT_ATTR_DEVICE_ADDRESS ((OTF2_AttributeRef)1)
/** Attributes on the Enter of a host OpenMP chunk (HOST_CHUNK): its first
 *  logical iteration and its number of iterations; on the Enter of a
 *  worksharing construct (HOST_WORK): the count the runtime gave at its
 *  begin as iterations (a loop's trip count); on the Enter of an
 *  implicit task (HOST_IMPLICIT_TASK): the team's actual size and the
 *  thread's number in it (all OTF2_TYPE_UINT64). */
#define OT_ATTR_FIRST_ITERATION ((OTF2_AttributeRef)2)
#define OT_ATTR_ITERATIONS ((OTF2_AttributeRef)3)
#define OT_ATTR_TEAM_SIZE ((OTF2_AttributeRef)4)
#define OT_ATTR_THREAD_NUMBER ((OTF2_AttributeRef)5)
/** Attributes of explicit tasks (host_tasks.c, all OTF2_TYPE_UINT64): on
 *  the Enter of a task's period and of its creation: its id, its
 *  ompt_task_flag_t bits and its parent's id (0: an implicit task); on the
 *  Leave of a period: how it ended (ompt_task_status_t); on a depend item:
 *  the task, the variable's address and the ompt_dependence_type_t; on a
 *  dependence edge: the task and its predecessor's id. (OTF2 wants
 *  attribute references dense and in order: the locks' take 13-15, a new
 *  attribute 16.) */
#define OT_ATTR_TASK_ID ((OTF2_AttributeRef)6)
#define OT_ATTR_TASK_FLAGS ((OTF2_AttributeRef)7)
#define OT_ATTR_PARENT_TASK ((OTF2_AttributeRef)8)
#define OT_ATTR_TASK_END ((OTF2_AttributeRef)9)
#define OT_ATTR_DEPEND_ADDRESS ((OTF2_AttributeRef)10)
#define OT_ATTR_DEPEND_TYPE ((OTF2_AttributeRef)11)
#define OT_ATTR_PREDECESSOR_TASK ((OTF2_AttributeRef)12)

/** The OpenMP thread team of explicit tasks: a communicator over every host
 *  thread (ranked by location id), defined only once asked for. */
#define OT_THREAD_TEAM_COMM ((OTF2_CommRef)1)

/** \brief The thread team's communicator; asking defines it in the archive. */
OTF2_CommRef ot_tw_thread_team(ot_trace_writer *w);

/** Mutual exclusion (issue 13, level all): on the Enter of a lock, critical
 *  or ordered region (HOST_MUTEX), of a nest lock's inner set and of a lock
 *  init or destroy: the lock id its ThreadAcquireLock/ReleaseLock events
 *  carry (OTF2_TYPE_UINT32, one per wait id); on the Enter of a HOST_MUTEX
 *  region and a lock init: the implementation the runtime reports
 *  (ompt_mutex_impl_t: 1 spin, 2 queuing, 3 speculative) and the hint of
 *  omp_init_lock_with_hint (omp_sync_hint_t bits), OTF2_TYPE_UINT64. OTF2
 *  wants attribute refs dense and defined in order: these follow the
 *  tasks' (written after them, trace_writer.c). */
#define OT_ATTR_LOCK_ID ((OTF2_AttributeRef)13)
#define OT_ATTR_LOCK_IMPLEMENTATION ((OTF2_AttributeRef)14)
#define OT_ATTR_LOCK_HINT ((OTF2_AttributeRef)15)

/** NVTX (issue 14, nvtx_pass.c): on the Enter of an NVTX range or mark,
 *  when the program gave them: its category (OTF2_TYPE_UINT32; the name is
 *  the archive property NVTX_CATEGORY_<domain>_<n>), its ARGB colour
 *  (OTF2_TYPE_UINT32, 0xAARRGGBB), its payload: an integer one
 *  (OTF2_TYPE_INT64; a uint64 above INT64_MAX keeps its bits) or a floating
 *  one (OTF2_TYPE_DOUBLE). Dense and in order after the locks'. */
#define OT_ATTR_NVTX_CATEGORY ((OTF2_AttributeRef)16)
#define OT_ATTR_NVTX_COLOR ((OTF2_AttributeRef)17)
#define OT_ATTR_NVTX_PAYLOAD_INT ((OTF2_AttributeRef)18)
#define OT_ATTR_NVTX_PAYLOAD_FLOAT ((OTF2_AttributeRef)19)

/**
 * \brief This archive holds MPI events of a job of \p size ranks (issue 16,
 *        docs/mpi.md): defines MPI_COMM_WORLD, MPI_COMM_SELF and the group
 *        of the ranks' master threads (rank i: location i << 40) they and
 *        every communicator of ot_tw_mpi_add_comm index. Before events name
 *        a communicator (ot_tw_mpi_comm).
 */
void ot_tw_mpi_world(ot_trace_writer *w, uint32_t size);

/**
 * \brief Define the derived communicator of job-wide id \p id (raw
 *        mpi.comms), made from \p parent, whose member i is world rank
 *        \p world_ranks[i]. An id already defined is left as it is.
 * \return 0, -EINVAL for a rank past the world, -ENOMEM.
 */
int ot_tw_mpi_add_comm(ot_trace_writer *w, uint64_t id, uint64_t parent, uint32_t size, const uint32_t *world_ranks);

/** \brief The communicator of job-wide id \p id; OTF2_UNDEFINED_COMM when
 *         not defined (no ot_tw_mpi_world, or an id mpi.comms did not name). */
OTF2_CommRef ot_tw_mpi_comm(const ot_trace_writer *w, uint64_t id);

/**
 * \brief Open `<dir>/traces.otf2` for writing.
 * \param max_locations  an upper bound of the locations to come (OTF2's
 *        definition chunks must hold 10 bytes per location).
 * \return the writer or NULL (message in \p err).
 */
ot_trace_writer *ot_tw_open(const char *dir, size_t max_locations, char *err, size_t err_size);

/** \brief The definition chunk ot_tw_open gives an archive of \p max_locations
 *         (the anchor file holds it): the live conversion checks that the
 *         threads started after its archive was opened leave it the same. */
uint64_t ot_tw_definition_chunk(size_t max_locations);

/**
 * \brief Make this archive rank \p rank's part of an MPI job of \p size ranks
 *        (issue 16, docs/mpi.md): every location id given to
 *        ot_tw_add_location and ot_tw_has_location gets the rank's bits
 *        (offtrace_job_location_id) as it is written, so the converter's
 *        passes keep their one-process ids; the process group is named
 *        "MPI Rank N", every location carries OFFTRACE::MPI_RANK, and the
 *        archive OFFTRACE::JOB_PART, JOB_SIZE and JOB_ID. Call before
 *        anything else is written. Without it the archive is as always.
 */
void ot_tw_set_job_part(ot_trace_writer *w, uint32_t rank, uint32_t size, const char *job_id);

/** \brief Intern a string; returns its id. */
OTF2_StringRef ot_tw_string(ot_trace_writer *w, const char *text);

/**
 * \brief Intern a region of catalogue class \p cls (same class, name, file
 *        and lines -> same id); its role and paradigm are the class's, and
 *        it becomes a member of the class's group in the archive's class
 *        table (event_catalogue.h).
 * \param file NULL for none.
 */
OTF2_RegionRef ot_tw_region(ot_trace_writer *w, offtrace_event_class cls, const char *name, const char *file,
                            uint32_t begin_line, uint32_t end_line);

/**
 * \brief Give a region a canonical name other than its name (OTF2's
 *        `canonicalName`): the raw symbol of a kernel whose name was made
 *        readable. A region interned again keeps the first one set.
 */
void ot_tw_region_canonical(ot_trace_writer *w, OTF2_RegionRef region, const char *canonical);

/** \brief Set a region's end line after it was interned (a data region's,
 *         known at its first exit: host_pass.c). Its key stays the one it
 *         was interned with. */
void ot_tw_region_set_end_line(ot_trace_writer *w, OTF2_RegionRef region, uint32_t end_line);

/** \brief ot_tw_region with a role of its own, for the classes whose
 *         subkind refines the catalogue's role (DEVICE_WORK, DEVICE_SYNC). */
OTF2_RegionRef ot_tw_region_with_role(ot_trace_writer *w, offtrace_event_class cls, OTF2_RegionRole role,
                                      const char *name, const char *file, uint32_t begin_line,
                                      uint32_t end_line);

/**
 * \brief Declare an offload device; creates its accelerator location group.
 * \return 0 or -ENOMEM.
 */
int ot_tw_add_device(ot_trace_writer *w, int device_num, const char *kind);

/**
 * \brief Create a location and its event writer. Its definition carries its
 *        role (and device) as location properties (event_catalogue.h).
 * \param device device number (ignored for host threads).
 * \param comm_member 1 if it takes part in the RMA window (host threads that
 *        transfer, RDMA locations).
 * \param rank_out for a member whose rank events name (an RDMA location:
 *        the puts and gets that reach it), where its rank goes: such
 *        members are ranked first, in the order of their calls, whenever
 *        they are added (a device's RDMA location is created where the
 *        conversion first meets the device, after host threads); NULL: the
 *        member is ranked after them, in the order of its call.
 * \return the event writer, NULL on failure: no memory, or an id already
 *         in use (OTF2 would hand out that location's writer again).
 */
OTF2_EvtWriter *ot_tw_add_location(ot_trace_writer *w, uint64_t location_id, const char *name,
                                   offtrace_location_role role, int device, int comm_member,
                                   uint32_t *rank_out);

/**
 * \brief The event writer of a location to be defined later: events go to
 *        it now, while the location's place in the definitions (their
 *        order, its name's string, its counts) is fixed by the
 *        ot_tw_add_location with the same id, which adopts this writer and
 *        returns it. (The device timeline writes a kernel stream's events as
 *        they come; the stream is defined after the host threads, as it
 *        always was.) A writer never adopted is closed with the archive.
 * \return NULL: no memory, or an id already defined or opened ahead.
 */
OTF2_EvtWriter *ot_tw_location_writer_ahead(ot_trace_writer *w, uint64_t location_id);

/**
 * \brief A location's events are all written: its writer goes to disk and
 *        its memory is released now, not at ot_tw_close. The writer must not
 *        be used again.
 */
void ot_tw_end_location(ot_trace_writer *w, OTF2_EvtWriter *writer);

/**
 * \brief Write an Enter, Leave, RmaPut or RmaGet on a writer of
 *        ot_tw_add_location, counting it when the writer counts
 *        (ot_tw_count_events, write_counts.h): every one of these
 *        events the converter writes goes through them, so that the counts
 *        are what the archive holds (OTF2_EvtWriter_* has the same
 *        arguments).
 */
static inline void ot_tw_enter(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t,
                               OTF2_RegionRef region);
static inline void ot_tw_leave(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t,
                               OTF2_RegionRef region);
void ot_tw_rma_put(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t, OTF2_RmaWinRef window,
                   uint32_t remote, uint64_t bytes, uint64_t id);
void ot_tw_rma_get(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t, OTF2_RmaWinRef window,
                   uint32_t remote, uint64_t bytes, uint64_t id);

/**
 * \brief Count the events written from now on (write_counts.h), for
 *        ot_tw_take_counts; a writer not asked counts nothing. Call before
 *        the first location.
 * \return 0, -EINVAL after a location, -ENOMEM.
 */
int ot_tw_count_events(ot_trace_writer *w);

/**
 * \brief The counts of everything written so far (write_counts.h), handed
 *        to the caller (who frees them with ot_write_counts_free); the writer
 *        counts no more. Call when every event is written, before
 *        ot_tw_close. NULL when not counted (ot_tw_count_events) or
 *        taken already.
 */
ot_write_counts *ot_tw_take_counts(ot_trace_writer *w);

/** \brief Whether a location with this id was already created. */
int ot_tw_has_location(const ot_trace_writer *w, uint64_t location_id);

/** \brief The RMA window every transfer is written to. */
OTF2_RmaWinRef ot_tw_window(const ot_trace_writer *w);

/** \brief The "device memory in use" metric class. */
OTF2_MetricRef ot_tw_memory_metric(const ot_trace_writer *w);

/** \brief A metric of its own for the user value \p name (issue 14): one
 *         member of \p type in one asynchronous class, refs from 1; each
 *         call defines a new one. OTF2_UNDEFINED_METRIC when out of memory. */
OTF2_MetricRef ot_tw_user_metric(ot_trace_writer *w, const char *name, OTF2_Type type);

/** The counts of the event writer written to last (trace_writer.c): a location's events are written in runs,
 *  and its counts are OTF2's user data, a call into the library away. With the common case of ot_tw_enter and
 *  ot_tw_leave inline (issue 18, eighth round: their calls were 7 % of a host OpenMP conversion's
 *  instructions). One converter writes one archive at a time. */
typedef struct ot_tw_last_written {
    const OTF2_EvtWriter *writer[2]; /**< the last written first; two: a host thread's data ops alternate with
                                          their device's RDMA location (tenth round: the one entry missed at each) */
    ot_location_counts *counts[2];
} ot_tw_last_written;
extern ot_tw_last_written ot_tw_last;

/** \brief The counts of \p ew (NULL: not counted), made the last written, the one before kept second. */
ot_location_counts *ot_tw_counts_of_another(const OTF2_EvtWriter *ew);

/** \brief One more Enter of \p region on \p l, unless nested past what readers deliver; its table grown when
 *         the region is new to it. */
void ot_tw_count_enter(ot_location_counts *l, OTF2_RegionRef region);

static inline ot_location_counts *ot_tw_counts_of(const OTF2_EvtWriter *ew)
{
    return ew == ot_tw_last.writer[0] ? ot_tw_last.counts[0]
         : ew == ot_tw_last.writer[1] ? ot_tw_last.counts[1] : ot_tw_counts_of_another(ew);
}

static inline void ot_tw_enter(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t, OTF2_RegionRef region)
{
    ot_location_counts *l = ot_tw_counts_of(ew);
    if (OTF2_EvtWriter_Enter(ew, attributes, t, region) != OTF2_SUCCESS || !l)
        return;
    if (__builtin_expect(region < l->regions && l->depth < OT_WRITE_COUNTS_MAX_DEPTH, 1)) {
        l->depth++;
        l->enters[region]++;
    } else {
        ot_tw_count_enter(l, region);
    }
}

static inline void ot_tw_leave(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t, OTF2_RegionRef region)
{
    ot_location_counts *l = ot_tw_counts_of(ew);
    if (OTF2_EvtWriter_Leave(ew, attributes, t, region) == OTF2_SUCCESS && l && l->depth)
        l->depth--;
}

/** The time range ClockProperties covers: the writer's first member (trace_writer.c), so that ot_tw_cover, which
 *  every event written pays, is inline (issue 18, eighth round: a call per event was 3 % of a host OpenMP
 *  conversion's instructions). */
typedef struct ot_tw_time_range {
    uint64_t first, last;
} ot_tw_time_range;

/** \brief Extend the time range covered by ClockProperties. */
static inline void ot_tw_cover(ot_trace_writer *w, uint64_t t)
{
    ot_tw_time_range *covered = (ot_tw_time_range *)w;
    if (t < covered->first)
        covered->first = t;
    if (t > covered->last)
        covered->last = t;
}

/** \brief Attach a key = value property to the archive (OFFTRACE::<key>). */
void ot_tw_property(ot_trace_writer *w, const char *key, const char *value);

/**
 * \brief Write definitions and close everything.
 * \param realtime_offset_ns realtime minus monotonic, for the archive's wall clock.
 * \return 0 or a negative errno (message in \p err).
 */
int ot_tw_close(ot_trace_writer *w, int64_t realtime_offset_ns, char *err, size_t err_size);

/** \brief Abandon a writer after an error (files are left for the caller to remove). */
void ot_tw_abort(ot_trace_writer *w);

#endif

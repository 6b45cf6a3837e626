/**
 * \file event_catalogue.h
 * \brief The event catalogue: what every kind of event offtrace records is,
 *        once, for the recorder, the converter, the archive reader and the
 *        tests' oracle.
 *
 * Two X-macro lists (as LLVM's OMPT multiplexer builds its tables from one
 * list, and OTF2 generates its reader and writer from one spec):
 *
 *  - OFFTRACE_SOURCES: one line per raw record kind a recorder writes (the
 *    `event` byte of offtrace_raw_record, the `kind` of
 *    offtrace_device_record): the OMPT callback(s) it comes from, the record
 *    fields it uses, and which of its fields names a device that it puts to
 *    use (that device gets a location group in the archive).
 *  - OFFTRACE_EVENT_CLASSES: one line per region or event class the converter
 *    writes: the source kind it comes from, its name (or the stem of its
 *    name), its OTF2 form (event type, region role, paradigm, the location
 *    role it goes on), its reader class, and its category in `view`,
 *    `export` and `report`.
 *
 * The lists hold tokens; each user expands them with the columns it needs
 * and pastes its own prefix (`OTF2_REGION_ROLE_##role`, `OT_TR_##reader`,
 * `OT_VC_##view`, `OT_RP_##report`), so this header needs neither OTF2 nor
 * the analysis headers. event_catalogue_otf2.h maps roles and paradigms to
 * OTF2 for the code that includes OTF2.
 *
 * In the archive the meaning travels explicitly (docs/trace-model.md): each
 * region is a member of the OTF2 Group (type REGIONS) named
 * OFFTRACE_REGION_CLASS_GROUP_PREFIX + its class name, and each location has
 * the location properties OFFTRACE_LOCATION_ROLE_PROPERTY (a role name of
 * OFFTRACE_LOCATION_ROLES) and, on devices, OFFTRACE_LOCATION_DEVICE_PROPERTY.
 * The archive property OFFTRACE_CATALOGUE_PROPERTY holds
 * OFFTRACE_CATALOGUE_VERSION; readers refuse an offtrace archive without it.
 * Names are for humans only.
 *
 * Adding a kind: its raw kind in raw_format.h or collector.h, one
 * OFFTRACE_SOURCES line, one OFFTRACE_EVENT_CLASSES line per class it
 * writes, and the code truly specific to it (its callback, its conversion).
 * Class names and role names are part of the archive format: never rename
 * one; a new one raises OFFTRACE_CATALOGUE_VERSION only if old readers would
 * misread it.
 */
#ifndef OFFTRACE_EVENT_CATALOGUE_H
#define OFFTRACE_EVENT_CATALOGUE_H

#include <stdint.h>

#include "offtrace/collector.h"
#include "offtrace/raw_format.h"

/** Version of the class table and location properties in the archive. */
#define OFFTRACE_CATALOGUE_VERSION 1u

/** OTF2 3.1's OTF2_PARADIGM_OPENMP_TARGET; on OTF2 3.0 offtrace declares it
 *  with a Paradigm definition (class ACCELERATOR, RMA_ONLY) as Score-P 9 does. */
#define OFFTRACE_PARADIGM_OPENMP_TARGET 25

/** Archive properties are "OFFTRACE::<key>". */
#define OFFTRACE_PROPERTY_PREFIX "OFFTRACE::"
/** The archive property that says the class table below is there. */
#define OFFTRACE_CATALOGUE_PROPERTY "OFFTRACE::CATALOGUE_VERSION"
/** Groups of type REGIONS named this + class name ("OFFTRACE::REGION_CLASS::TARGET"). */
#define OFFTRACE_REGION_CLASS_GROUP_PREFIX "OFFTRACE::REGION_CLASS::"
/** Location property (string): the location's role name, e.g. "DEVICE_THREAD". */
#define OFFTRACE_LOCATION_ROLE_PROPERTY "OFFTRACE::LOCATION_ROLE"
/** Location property (uint32): the OpenMP device number of a device location. */
#define OFFTRACE_LOCATION_DEVICE_PROPERTY "OFFTRACE::DEVICE"

/* ---- MPI jobs (issue 16, docs/mpi.md): one archive per job, a location group per rank ---- */
/** Location property (uint32): the MPI_COMM_WORLD rank of the process the location belongs to. */
#define OFFTRACE_LOCATION_MPI_RANK_PROPERTY "OFFTRACE::MPI_RANK"
/** Archive property (uint32): the number of ranks of the job. */
#define OFFTRACE_JOB_SIZE_PROPERTY "OFFTRACE::JOB_SIZE"
/** Archive property (string): the launcher's job id (PMIX_NAMESPACE, PMI_KVSNAME, SLURM job.step). */
#define OFFTRACE_JOB_ID_PROPERTY "OFFTRACE::JOB_ID"
/** Archive property (string): "rank state reason" lines of the ranks whose part is partial or missing. */
#define OFFTRACE_PARTIAL_RANKS_PROPERTY "OFFTRACE::PARTIAL_RANKS"
/** Archive property (uint32) on a rank's intermediate part: its rank (readers send the user to the job). */
#define OFFTRACE_JOB_PART_PROPERTY "OFFTRACE::JOB_PART"

/** \brief Whether two strings are equal (strcmp without <string.h>). */
static inline int offtrace_catalogue_same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* ---- location roles ---------------------------------------------------- */

/**
 * X(role, OTF2 location type, id space, what it holds)
 *
 * Location ids (offtrace_location_id): host threads use their thread index
 * (space 0); device locations `space << 32 | device << 16 | number`, with
 * number 0xFFFF for the RDMA row. Readers use the location properties, not
 * these bits; the ids only keep locations apart and stable. Bits 40-63 hold
 * the MPI rank in a job's archive (offtrace_job_location_id, docs/mpi.md);
 * rank 0 gives these ids unchanged.
 */
#define OFFTRACE_LOCATION_ROLES(X)                                                                      \
    X(HOST_THREAD, CPU_THREAD, 0, "a host thread: constructs, data ops, RMA put/get/complete")           \
    X(KERNEL_STREAM, ACCELERATOR_STREAM, 1, "\"device N stream K\": kernels, overlapping ones on K > 0") \
    X(RDMA, ACCELERATOR_STREAM, 1, "\"device N RDMA\": transfers, the device memory metric")             \
    X(DEVICE_THREAD, ACCELERATOR_STREAM, 2, "\"device N thread T\": OpenMP executing on the device")      \
    X(DEVICE_QUEUE, ACCELERATOR_STREAM, 3, "\"device N queue Q\": CUPTI / OMPT-trace activity")

typedef enum offtrace_location_role {
#define OFFTRACE_LOCATION_ROLE_ENUM(role, type, space, what) OFFTRACE_LOC_##role,
    OFFTRACE_LOCATION_ROLES(OFFTRACE_LOCATION_ROLE_ENUM)
#undef OFFTRACE_LOCATION_ROLE_ENUM
    OFFTRACE_LOC_ROLE_COUNT
} offtrace_location_role;

/** The number the RDMA row takes in its id. */
#define OFFTRACE_RDMA_LOCATION_NUMBER 0xFFFFu

/** \brief A location's id: \p number is the thread index of a host thread,
 *  else the stream, thread or queue number (below 0x10000) on \p device. */
static inline uint64_t offtrace_location_id(offtrace_location_role role, int device, uint32_t number)
{
    static const uint8_t space[OFFTRACE_LOC_ROLE_COUNT] = {
#define OFFTRACE_LOCATION_ROLE_SPACE(role, type, sp, what) [OFFTRACE_LOC_##role] = sp,
        OFFTRACE_LOCATION_ROLES(OFFTRACE_LOCATION_ROLE_SPACE)
#undef OFFTRACE_LOCATION_ROLE_SPACE
    };
    if (role == OFFTRACE_LOC_HOST_THREAD)
        return number;
    if (role == OFFTRACE_LOC_RDMA)
        number = OFFTRACE_RDMA_LOCATION_NUMBER;
    return (uint64_t)space[role] << 32 | (uint64_t)(uint16_t)device << 16 | (number & 0xFFFFu);
}

/** \brief The id of a location of MPI rank \p rank in a job's archive:
 *  `rank << 40 | id`, \p id being what offtrace_location_id (or a host
 *  thread's index) gives in one process. The converter applies it in one
 *  place (the trace writer of a rank's part); rank 0 keeps every id. */
static inline uint64_t offtrace_job_location_id(uint32_t rank, uint64_t id)
{
    return (uint64_t)rank << 40 | id;
}

/** \brief The role's name as the archive writes it ("DEVICE_THREAD"). */
static inline const char *offtrace_location_role_name(offtrace_location_role role)
{
    switch (role) {
#define OFFTRACE_LOCATION_ROLE_NAME(r, type, space, what) case OFFTRACE_LOC_##r: return #r;
        OFFTRACE_LOCATION_ROLES(OFFTRACE_LOCATION_ROLE_NAME)
#undef OFFTRACE_LOCATION_ROLE_NAME
    default: return "";
    }
}

/** \brief The role of a name, or OFFTRACE_LOC_ROLE_COUNT if none has it. */
static inline offtrace_location_role offtrace_location_role_by_name(const char *name)
{
    for (int r = 0; r < OFFTRACE_LOC_ROLE_COUNT; r++)
        if (offtrace_catalogue_same(offtrace_location_role_name((offtrace_location_role)r), name))
            return (offtrace_location_role)r;
    return OFFTRACE_LOC_ROLE_COUNT;
}

/* ---- sources: the raw record kinds ------------------------------------ */

/**
 * X(source, record, kind, OMPT callback(s), fields used, device put to use)
 *
 * record: RAW (offtrace_raw_record of a host thread's stream, `event` =
 * OFFTRACE_RAW_<kind>) or DEVICE (offtrace_device_record of a device file,
 * `kind` = OFFTRACE_DEVICE_<kind>).
 * device put to use: which field names a device that thereby gets a
 * location group and rows (DST_DEVICE: dst_device; OP_DEVICE: the end of a
 * data op that is an offload device; DEVICE_FILE: the device file it is in;
 * NONE: it names none, or one only for its clock map (SYNC)).
 */
#define OFFTRACE_SOURCES(X)                                                                                   \
    X(TARGET, RAW, TARGET, "target_emi", "id, dst_device, codeptr, subkind = ompt_target_t; BEGIN and END",   \
      DST_DEVICE)                                                                                             \
    X(DATA_OP, RAW, DATA_OP, "target_data_op_emi",                                                           \
      "id, src/dst address and device, bytes, codeptr, subkind = ompt_target_data_op_t, flags IN_CONSTRUCT; " \
      "COMPLETE (end_time), or BEGIN/END (target_id) when nested",                                           \
      OP_DEVICE)                                                                                              \
    X(SUBMIT, RAW, SUBMIT, "target_submit_emi",                                                              \
      "id, bytes = requested teams; COMPLETE, or BEGIN/END (target_id); the device is its target's", NONE)   \
    X(SYNC, RAW, SYNC, "device_initialize, target_emi begin/end with a collector, exit",                     \
      "time, src_addr = read width, bytes = device clock, dst_device, subkind = reason, target_id", NONE)     \
    X(FLUSH, RAW, FLUSH, "(the recorder: memory budget exceeded)", "id, bytes written; BEGIN/END", NONE)     \
    X(LOST, RAW, LOST, "(the recorder: records could not be stored)",                                       \
      "time, end_time, bytes = records lost, subkind = loss cause; COMPLETE", NONE)                           \
    X(OMP_PARALLEL, RAW, OMP_PARALLEL, "parallel_begin, parallel_end (the program's host OpenMP)",           \
      "codeptr, bytes = requested threads, subkind 1 = league; BEGIN/END", NONE)                              \
    X(OMP_IMPLICIT_TASK, RAW, OMP_IMPLICIT_TASK, "implicit_task (not the initial task)",                     \
      "bytes = actual team size, src_addr = thread number; BEGIN/END", NONE)                                  \
    X(OMP_WORK, RAW, OMP_WORK, "work", "codeptr, subkind = ompt_work_t, bytes = count; BEGIN/END", NONE)     \
    X(OMP_CHUNK, RAW, OMP_CHUNK, "dispatch (level loops)",                                                  \
      "subkind = ompt_dispatch_t, src_addr = first iteration, bytes = iterations; BEGIN, ends at the next "  \
      "chunk or the construct's end", NONE)                                                                   \
    X(OMP_SYNC, RAW, OMP_SYNC, "sync_region", "codeptr, subkind = ompt_sync_region_t; BEGIN/END", NONE)       \
    X(OMP_SYNC_WAIT, RAW, OMP_SYNC_WAIT, "sync_region_wait",                                                 \
      "codeptr, subkind = ompt_sync_region_t; BEGIN/END, inside its OMP_SYNC", NONE)                          \
    X(OMP_MASKED, RAW, OMP_MASKED, "masked", "codeptr; BEGIN/END", NONE)                                     \
    /* explicit tasks (issue 13, step 2) */                                                                  \
    X(OMP_TASK_CREATE, RAW, OMP_TASK_CREATE, "task_create (level all)",                                      \
      "id = task, target_id = parent, codeptr, bytes = flags, subkind 1 = has dependences; BEGIN", NONE)     \
    X(OMP_TASK_SCHEDULE, RAW, OMP_TASK_SCHEDULE, "task_schedule (level all)",                                \
      "id = prior task, target_id = next task, subkind = ompt_task_status_t; BEGIN", NONE)                   \
    X(OMP_TASK_DEPENDENCES, RAW, OMP_TASK_DEPENDENCES, "dependences (level all)",                            \
      "id = task, src_addr = variable, subkind = ompt_dependence_type_t, bytes = items; BEGIN", NONE)        \
    X(OMP_TASK_DEPENDENCE, RAW, OMP_TASK_DEPENDENCE, "task_dependence (level all)",                          \
      "id = sink task, target_id = source task; BEGIN", NONE)                                                 \
    /* mutual exclusion, cancellation, flush (issue 13, level all) */                                        \
    X(OMP_MUTEX, RAW, OMP_MUTEX, "mutex_acquire (BEGIN), mutex_released (END)",                              \
      "codeptr, subkind = ompt_mutex_t, src_addr = wait id, bytes = hint, dst_addr = implementation; "         \
      "COMPLETE (end_time = its mutex_acquired) when nothing came between", NONE)                              \
    X(OMP_MUTEX_ACQUIRED, RAW, OMP_MUTEX_ACQUIRED, "mutex_acquired",                                         \
      "codeptr, subkind = ompt_mutex_t, src_addr = wait id; BEGIN, ends its OMP_MUTEX's wait", NONE)          \
    X(OMP_NEST_LOCK, RAW, OMP_NEST_LOCK, "nest_lock", "codeptr, src_addr = wait id; BEGIN/END", NONE)        \
    X(OMP_LOCK_INIT, RAW, OMP_LOCK_INIT, "lock_init",                                                        \
      "codeptr, subkind = ompt_mutex_t, src_addr = wait id, bytes = hint, dst_addr = implementation; BEGIN", \
      NONE)                                                                                                    \
    X(OMP_LOCK_DESTROY, RAW, OMP_LOCK_DESTROY, "lock_destroy",                                               \
      "codeptr, subkind = ompt_mutex_t, src_addr = wait id; BEGIN", NONE)                                     \
    X(OMP_CANCEL, RAW, OMP_CANCEL, "cancel", "codeptr, bytes = ompt_cancel_flag_t bits; BEGIN", NONE)        \
    X(OMP_FLUSH, RAW, OMP_FLUSH, "flush", "codeptr; BEGIN", NONE)                                            \
    X(USER_REGION, RAW, USER_REGION, "(libofftrace-user.so: offtrace_user_region_*)", "id; BEGIN/END", NONE) \
    X(USER_EVENT, RAW, USER_EVENT, "(libofftrace-user.so: offtrace_user_event_*)", "id; BEGIN/END", NONE)    \
    X(USER_VALUE, RAW, USER_VALUE, "(libofftrace-user.so: offtrace_user_value_*)", "id, bytes = bits; BEGIN", \
      NONE)                                                                                                  \
    /* NVTX v3 through its injection interface (issue 14, host/nvtx_injection.c) */                          \
    X(NVTX_RANGE, RAW, NVTX_RANGE, "(NVTX: nvtxRangePush*/Pop, nvtxDomainRangePushEx/PopEx)",                  \
      "dst_addr = text id, target_id = domain, codeptr = category, bytes = payload, subkind = payload type, "   \
      "src_addr = colour; BEGIN/END", NONE)                                                                     \
    X(NVTX_START_END, RAW, NVTX_START_END, "(NVTX: nvtxRangeStart*/End, nvtxDomainRangeStartEx/End)",          \
      "id = range id, as NVTX_RANGE; BEGIN/END, the END on any thread", NONE)                                   \
    X(NVTX_MARK, RAW, NVTX_MARK, "(NVTX: nvtxMark*, nvtxDomainMarkEx)", "as NVTX_RANGE; BEGIN", NONE)         \
    X(NVTX_PROBLEM, RAW, NVTX_PROBLEM, "(NVTX: bad or unsupported input)", "subkind = cause, bytes = count; BEGIN", \
      NONE)                                                                                                     \
    /* measurement control (issue 14) */                                                                     \
    X(MEASUREMENT, RAW, MEASUREMENT, "control_tool, ot_measurement_set, OFFTRACE_START_PAUSED",              \
      "subkind 0 off (BEGIN) / 1 on (END): an off window on the switching thread", NONE)                      \
    /* MPI through libofftrace-mpi.so's PMPI wrappers (issue 16, docs/mpi.md; fields in raw_format.h) */     \
    X(MPI_CALL, RAW, MPI_CALL, "(libofftrace-mpi.so: every MPI_* call of offtrace/mpi_calls.h)",             \
      "subkind = call number, codeptr = caller; COMPLETE, or BEGIN/END around its other MPI records", NONE)   \
    X(MPI_SEND, RAW, MPI_SEND, "(libofftrace-mpi.so: MPI_Send, Bsend, Ssend, Rsend, Sendrecv*)",             \
      "id = comm, src_addr = destination, dst_addr = tag, bytes; BEGIN", NONE)                                \
    X(MPI_RECV, RAW, MPI_RECV, "(libofftrace-mpi.so: MPI_Recv, Sendrecv*)",                                  \
      "id = comm, src_addr = source, dst_addr = tag, bytes; BEGIN", NONE)                                     \
    X(MPI_ISEND, RAW, MPI_ISEND, "(libofftrace-mpi.so: MPI_Isend, Ibsend, Issend, Irsend)",                  \
      "as MPI_SEND, target_id = request id; BEGIN", NONE)                                                     \
    X(MPI_IRECV_REQUEST, RAW, MPI_IRECV_REQUEST, "(libofftrace-mpi.so: MPI_Irecv)",                          \
      "id = comm, target_id = request id; BEGIN", NONE)                                                       \
    X(MPI_REQUEST_DONE, RAW, MPI_REQUEST_DONE, "(libofftrace-mpi.so: MPI_Wait*, MPI_Test*)",                 \
      "target_id = request id, subkind = how; a receive's comm, source, tag, bytes; BEGIN", NONE)            \
    X(MPI_REQUEST_TEST, RAW, MPI_REQUEST_TEST, "(libofftrace-mpi.so: MPI_Test* that completed nothing)",    \
      "target_id = request id; BEGIN", NONE)                                                                  \
    X(MPI_COLLECTIVE, RAW, MPI_COLLECTIVE, "(libofftrace-mpi.so: collectives)",                              \
      "END: id = comm, subkind = operation, src_addr = root, bytes = sent, dst_addr = received; BEGIN/END",  \
      NONE)                                                                                                   \
    X(MPI_COMM, RAW, MPI_COMM, "(libofftrace-mpi.so: MPI_Init, MPI_Comm_dup/split/split_type/create/free)",  \
      "id = comm, subkind = operation, bytes = size, src_addr = own rank, target_id = parent; BEGIN", NONE)  \
    X(MPI_CLOCK, RAW, MPI_CLOCK, "(libofftrace-mpi.so: MPI_Init, MPI_Finalize)",                             \
      "subkind = phase, id = same boot, bytes = offset ns, src_addr = round trip, dst_addr = rank 0 time; "  \
      "BEGIN", NONE)                                                                                          \
    X(DEVICE_PARALLEL, DEVICE, PARALLEL, "parallel_begin, parallel_end (host-offload collector)",            \
      "thread, codeptr, value = team size, subkind 1 = league; BEGIN/END", DEVICE_FILE)                       \
    X(DEVICE_IMPLICIT_TASK, DEVICE, IMPLICIT_TASK, "implicit_task (host-offload collector)",                \
      "thread, value = team size, subkind 1 = initial task; BEGIN/END", DEVICE_FILE)                          \
    X(DEVICE_WORK, DEVICE, WORK, "work (host-offload collector)",                                            \
      "thread, codeptr, subkind = ompt_work_t, value = iterations; BEGIN/END", DEVICE_FILE)                    \
    X(DEVICE_SYNC, DEVICE, SYNC, "sync_region (host-offload collector)",                                     \
      "thread, codeptr, subkind = ompt_sync_region_t; BEGIN/END", DEVICE_FILE)                                 \
    X(DEVICE_TASK, DEVICE, TASK, "task_create, task_schedule (host-offload collector)",                      \
      "thread, codeptr = creation site; BEGIN/END per execution interval", DEVICE_FILE)                        \
    X(DEVICE_KERNEL, DEVICE, KERNEL, "CUPTI kernel activity, OMPT device tracing",                          \
      "thread = queue (flag STREAM), op_id = host submit; BEGIN/END", DEVICE_FILE)                             \
    X(DEVICE_MEMCPY, DEVICE, MEMCPY, "CUPTI memcpy activity, OMPT device tracing",                          \
      "thread = queue, subkind = enum offtrace_device_copy, value = bytes; BEGIN/END", DEVICE_FILE)            \
    X(DEVICE_MEMSET, DEVICE, MEMSET, "CUPTI memset activity", "thread = queue, value = bytes; BEGIN/END",    \
      DEVICE_FILE)                                                                                             \
    X(DEVICE_LOST, DEVICE, LOST, "(the collector: a device thread's buffer was full)",                       \
      "thread, value = records lost; POINT", DEVICE_FILE)

typedef enum offtrace_source {
    OFFTRACE_SOURCE_NONE = 0,
#define OFFTRACE_SOURCE_ENUM(source, record, kind, callbacks, fields, device) OFFTRACE_SOURCE_##source,
    OFFTRACE_SOURCES(OFFTRACE_SOURCE_ENUM)
#undef OFFTRACE_SOURCE_ENUM
    OFFTRACE_SOURCE_COUNT
} offtrace_source;

/** Which field of a record names the device it puts to use. */
typedef enum offtrace_device_field {
    OFFTRACE_DEVICE_FIELD_NONE = 0,
    OFFTRACE_DEVICE_FIELD_DST_DEVICE,
    OFFTRACE_DEVICE_FIELD_OP_DEVICE,
    OFFTRACE_DEVICE_FIELD_DEVICE_FILE,
} offtrace_device_field;

#define OFFTRACE_SOURCE_IS_RAW_RAW 1
#define OFFTRACE_SOURCE_IS_RAW_DEVICE 0

/** \brief The source of a host stream record's `event` byte; NONE for a kind no recorder writes. */
static inline offtrace_source offtrace_raw_source(unsigned event)
{
#define OFFTRACE_RAW_SOURCE_IF(source, record, kind, callbacks, fields, device) \
    if (OFFTRACE_SOURCE_IS_RAW_##record && event == (unsigned)OFFTRACE_##record##_##kind) \
        return OFFTRACE_SOURCE_##source;
    OFFTRACE_SOURCES(OFFTRACE_RAW_SOURCE_IF)
#undef OFFTRACE_RAW_SOURCE_IF
    return OFFTRACE_SOURCE_NONE;
}

/** \brief The source of a device record's `kind`; NONE for a kind no collector writes. */
static inline offtrace_source offtrace_device_source(unsigned kind)
{
#define OFFTRACE_DEVICE_SOURCE_IF(source, record, k, callbacks, fields, device) \
    if (!OFFTRACE_SOURCE_IS_RAW_##record && kind == (unsigned)OFFTRACE_##record##_##k) \
        return OFFTRACE_SOURCE_##source;
    OFFTRACE_SOURCES(OFFTRACE_DEVICE_SOURCE_IF)
#undef OFFTRACE_DEVICE_SOURCE_IF
    return OFFTRACE_SOURCE_NONE;
}

/** \brief Which field of a record of \p source names the device it puts to use. */
static inline offtrace_device_field offtrace_source_device_field(offtrace_source source)
{
    switch (source) {
#define OFFTRACE_SOURCE_DEVICE_CASE(s, record, kind, callbacks, fields, device) \
    case OFFTRACE_SOURCE_##s: return OFFTRACE_DEVICE_FIELD_##device;
        OFFTRACE_SOURCES(OFFTRACE_SOURCE_DEVICE_CASE)
#undef OFFTRACE_SOURCE_DEVICE_CASE
    default: return OFFTRACE_DEVICE_FIELD_NONE;
    }
}

/* ---- classes: what the archive holds ------------------------------------ */

/**
 * X(class, source, name, form, role, paradigm, location,
 *   reader, construct, op, nowait, view, export, report)
 *
 *  - class: the name the archive's class table uses (never renamed).
 *  - source: the OFFTRACE_SOURCES line it comes from.
 *  - name: the region's name, or the stem its specific code completes
 *    ("target" -> "target @cg.c:23"; "parallel" -> "teams @..." for a league).
 *  - form: ENTER_LEAVE (a region), RMA_PUT, RMA_GET, RMA_COMPLETE, METRIC.
 *  - role, paradigm: OTF2 region role and paradigm (event_catalogue_otf2.h);
 *    DEVICE_WORK, DEVICE_SYNC and the HOST_ work, chunk, sync, wait and
 *    mutex classes refine the role by their subkind (LOOP, ORDERED,
 *    SINGLE, IMPLICIT_BARRIER, ...), the column holds the default.
 *  - location: the OFFTRACE_LOCATION_ROLES role it is written on.
 *  - reader: trace_read.h's class (OT_TR_<reader>); construct
 *    (OT_TR_CONSTRUCT_<construct>), op (OT_TR_OP_<op>) and nowait refine it.
 *  - view: the legend class of `offtrace view` (OT_VC_<view>).
 *  - export: the "cat" of `offtrace export --format chrome`.
 *  - report: the construct kind of `offtrace report` (OT_RP_<report>), NONE
 *    for what is no construct instance.
 */
#define OFFTRACE_EVENT_CLASSES(X)                                                                                   \
    /* host constructs (target_emi) */                                                                               \
    X(TARGET, TARGET, "target", ENTER_LEAVE, TASK_WAIT, OPENMP_TARGET, HOST_THREAD,                                 \
      TARGET, TARGET, OTHER, 0, TARGET, "target", TARGET)                                                            \
    X(TARGET_NOWAIT, TARGET, "target nowait", ENTER_LEAVE, TASK_WAIT, OPENMP_TARGET, HOST_THREAD,                   \
      TARGET, TARGET, OTHER, 1, TARGET, "target", TARGET)                                                            \
    X(ENTER_DATA, TARGET, "target enter data", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, HOST_THREAD,              \
      TARGET, ENTER_DATA, OTHER, 0, DATA_CONSTRUCT, "target", ENTER_DATA)                                            \
    X(ENTER_DATA_NOWAIT, TARGET, "target enter data nowait", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET,             \
      HOST_THREAD, TARGET, ENTER_DATA, OTHER, 1, DATA_CONSTRUCT, "target", ENTER_DATA)                               \
    X(EXIT_DATA, TARGET, "target exit data", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, HOST_THREAD,                \
      TARGET, EXIT_DATA, OTHER, 0, DATA_CONSTRUCT, "target", EXIT_DATA)                                              \
    X(EXIT_DATA_NOWAIT, TARGET, "target exit data nowait", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET,               \
      HOST_THREAD, TARGET, EXIT_DATA, OTHER, 1, DATA_CONSTRUCT, "target", EXIT_DATA)                                 \
    X(UPDATE, TARGET, "target update", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, HOST_THREAD,                      \
      TARGET, UPDATE, OTHER, 0, DATA_CONSTRUCT, "target", UPDATE)                                                    \
    X(UPDATE_NOWAIT, TARGET, "target update nowait", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, HOST_THREAD,        \
      TARGET, UPDATE, OTHER, 1, DATA_CONSTRUCT, "target", UPDATE)                                                    \
    X(TARGET_OTHER_KIND, TARGET, "target (unknown kind)", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, HOST_THREAD,   \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "other", NONE)                                                            \
    /* an enter data and its exit data in one function */                                                            \
    X(TARGET_DATA, TARGET, "target data", ENTER_LEAVE, CODE, OPENMP_TARGET, HOST_THREAD,                            \
      TARGET_DATA, NONE, OTHER, 0, TARGET_DATA, "target data", NONE)                                                 \
    /* kernels (target_submit_emi), named after their symbol, else "kernel @site" */                                 \
    X(KERNEL, SUBMIT, "kernel", ENTER_LEAVE, FUNCTION, OPENMP_TARGET, KERNEL_STREAM,                                \
      KERNEL, NONE, OTHER, 0, KERNEL, "kernel", NONE)                                                                \
    /* data operations (target_data_op_emi) on the host thread */                                                    \
    X(DATA_OP_TO_DEVICE, DATA_OP, "data op host->device", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, HOST_THREAD,  \
      DATA_OP, NONE, TO_DEVICE, 0, H2D, "data op", NONE)                                                             \
    X(DATA_OP_FROM_DEVICE, DATA_OP, "data op device->host", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET,             \
      HOST_THREAD, DATA_OP, NONE, FROM_DEVICE, 0, D2H, "data op", NONE)                                              \
    X(DATA_OP_ALLOC, DATA_OP, "data op alloc", ENTER_LEAVE, ALLOCATE, OPENMP_TARGET, HOST_THREAD,                   \
      DATA_OP, NONE, ALLOC, 0, ALLOC, "data op", NONE)                                                               \
    X(DATA_OP_DELETE, DATA_OP, "data op delete", ENTER_LEAVE, DEALLOCATE, OPENMP_TARGET, HOST_THREAD,               \
      DATA_OP, NONE, DELETE, 0, ALLOC, "data op", NONE)                                                              \
    X(DATA_OP_ASSOCIATE, DATA_OP, "data op associate", ENTER_LEAVE, CODE, OPENMP_TARGET, HOST_THREAD,               \
      DATA_OP, NONE, OTHER, 0, OTHER, "data op", NONE)                                                               \
    X(DATA_OP_DISASSOCIATE, DATA_OP, "data op disassociate", ENTER_LEAVE, CODE, OPENMP_TARGET, HOST_THREAD,         \
      DATA_OP, NONE, OTHER, 0, OTHER, "data op", NONE)                                                               \
    /* a data op outside every construct: the omp_target_* call around it */                                         \
    X(API_CALL, DATA_OP, "omp_target_*",      ENTER_LEAVE, WRAPPER, OPENMP_TARGET, HOST_THREAD,                     \
      API, NONE, OTHER, 0, API, "api", API)                                                                          \
    /* transfers: RMA on the host thread, a region on the device's RDMA row */                                       \
    X(RMA_PUT, DATA_OP, "", RMA_PUT, UNKNOWN, OPENMP_TARGET, HOST_THREAD,                                           \
      OTHER_REGION, NONE, TO_DEVICE, 0, OTHER, "transfer", NONE)                                                     \
    X(RMA_GET, DATA_OP, "", RMA_GET, UNKNOWN, OPENMP_TARGET, HOST_THREAD,                                           \
      OTHER_REGION, NONE, FROM_DEVICE, 0, OTHER, "transfer", NONE)                                                   \
    X(RMA_COMPLETE, DATA_OP, "", RMA_COMPLETE, UNKNOWN, OPENMP_TARGET, HOST_THREAD,                                 \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "transfer", NONE)                                                         \
    X(TRANSFER_TO_DEVICE, DATA_OP, "transfer host->device", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, RDMA,        \
      TRANSFER, NONE, TO_DEVICE, 0, H2D, "transfer", NONE)                                                           \
    X(TRANSFER_FROM_DEVICE, DATA_OP, "transfer device->host", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, RDMA,      \
      TRANSFER, NONE, FROM_DEVICE, 0, D2H, "transfer", NONE)                                                         \
    X(MEMORY_METRIC, DATA_OP, "device memory in use", METRIC, UNKNOWN, OPENMP_TARGET, RDMA,                        \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "memory", NONE)                                                           \
    /* the program's own OpenMP on its host threads; work, chunk, sync and wait refine the role by subkind */      \
    X(HOST_PARALLEL, OMP_PARALLEL, "parallel", ENTER_LEAVE, PARALLEL, OPENMP, HOST_THREAD,                         \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_IMPLICIT_TASK, OMP_IMPLICIT_TASK, "implicit task", ENTER_LEAVE, TASK, OPENMP, HOST_THREAD,              \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_WORK, OMP_WORK, "worksharing", ENTER_LEAVE, WORKSHARE, OPENMP, HOST_THREAD,                             \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_CHUNK, OMP_CHUNK, "chunk", ENTER_LEAVE, CODE, OPENMP, HOST_THREAD,                                      \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_SYNC, OMP_SYNC, "synchronization", ENTER_LEAVE, BARRIER, OPENMP, HOST_THREAD,                           \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_SYNC_WAIT, OMP_SYNC_WAIT, "waiting", ENTER_LEAVE, CODE, OPENMP, HOST_THREAD,                            \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_MASKED, OMP_MASKED, "masked", ENTER_LEAVE, MASTER, OPENMP, HOST_THREAD,                                 \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    /* explicit tasks (issue 13, step 2): a period of a task, its creation, its depend items and edges */           \
    X(HOST_TASK, OMP_TASK_SCHEDULE, "task", ENTER_LEAVE, TASK, OPENMP, HOST_THREAD,                                \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_TASK_CREATE, OMP_TASK_CREATE, "task create", ENTER_LEAVE, TASK_CREATE, OPENMP, HOST_THREAD,             \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_TASK_DEPEND, OMP_TASK_DEPENDENCES, "depend", ENTER_LEAVE, ARTIFICIAL, OPENMP, HOST_THREAD,              \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_TASK_DEPENDENCE, OMP_TASK_DEPENDENCE, "after task", ENTER_LEAVE, ARTIFICIAL, OPENMP, HOST_THREAD,       \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    /* mutual exclusion ... (issue 13, level all): a lock, critical or ordered from its acquire to its release (the  \
     * kind refines name and role), its waiting part inside it, a nest lock's inner sets; instants (lock init and    \
     * destroy, cancellation, flush) are zero-length regions */                                                      \
    X(HOST_MUTEX, OMP_MUTEX, "critical", ENTER_LEAVE, CRITICAL, OPENMP, HOST_THREAD,                               \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_MUTEX_WAIT, OMP_MUTEX_ACQUIRED, "waiting", ENTER_LEAVE, CODE, OPENMP, HOST_THREAD,                      \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_NEST_LOCK_NESTED, OMP_NEST_LOCK, "nest lock (nested)", ENTER_LEAVE, CRITICAL, OPENMP, HOST_THREAD,      \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_LOCK_INIT, OMP_LOCK_INIT, "omp_init_lock", ENTER_LEAVE, WRAPPER, OPENMP, HOST_THREAD,                   \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_LOCK_DESTROY, OMP_LOCK_DESTROY, "omp_destroy_lock", ENTER_LEAVE, WRAPPER, OPENMP, HOST_THREAD,          \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_CANCEL, OMP_CANCEL, "cancel", ENTER_LEAVE, CODE, OPENMP, HOST_THREAD,                                   \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    X(HOST_FLUSH, OMP_FLUSH, "flush", ENTER_LEAVE, FLUSH, OPENMP, HOST_THREAD,                                     \
      HOST_OPENMP, NONE, OTHER, 0, OTHER, "host openmp", NONE)                                                       \
    /* the program's own words (user API, issue 14): named by the program; a value is one metric per name */    \
    X(USER_REGION, USER_REGION, "user region", ENTER_LEAVE, FUNCTION, USER, HOST_THREAD,                           \
      OTHER_REGION, NONE, OTHER, 0, USER, "user", NONE)                                                              \
    X(USER_EVENT, USER_EVENT, "user event", ENTER_LEAVE, CODE, USER, HOST_THREAD,                                  \
      OTHER_REGION, NONE, OTHER, 0, USER, "user", NONE)                                                              \
    X(USER_VALUE, USER_VALUE, "user value", METRIC, UNKNOWN, USER, HOST_THREAD,                                    \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "user", NONE)                                                             \
    /* NVTX ranges and marks (issue 14, host/convert/nvtx_pass.c): named "message" or "domain: message" */          \
    X(NVTX_RANGE, NVTX_RANGE, "nvtx range", ENTER_LEAVE, FUNCTION, USER, HOST_THREAD,                              \
      OTHER_REGION, NONE, OTHER, 0, USER, "nvtx", NONE)                                                              \
    X(NVTX_START_END, NVTX_START_END, "nvtx start/end range", ENTER_LEAVE, CODE, USER, HOST_THREAD,                \
      OTHER_REGION, NONE, OTHER, 0, USER, "nvtx", NONE)                                                              \
    X(NVTX_MARK, NVTX_MARK, "nvtx mark", ENTER_LEAVE, ARTIFICIAL, USER, HOST_THREAD,                               \
      OTHER_REGION, NONE, OTHER, 0, USER, "nvtx", NONE)                                                              \
    /* MPI (issue 16, docs/mpi.md): one region per MPI function ("MPI_Send"), its role from offtrace/mpi_calls.h;   \
     * the message, request and collective records are OTF2's MPI events (the forms MPI_*, host/convert/mpi_pass.c) \
     * inside the call's region. Communicators and clocks are definitions and properties, no class. */               \
    X(MPI_P2P, MPI_CALL, "MPI point-to-point", ENTER_LEAVE, POINT2POINT, MPI, HOST_THREAD,                          \
      OTHER_REGION, NONE, OTHER, 0, MPI_P2P, "mpi.p2p", NONE)                                                        \
    X(MPI_COLLECTIVE, MPI_CALL, "MPI collective", ENTER_LEAVE, COLL_ALL2ALL, MPI, HOST_THREAD,                      \
      OTHER_REGION, NONE, OTHER, 0, MPI_COLLECTIVE, "mpi.collective", NONE)                                          \
    X(MPI_OTHER, MPI_CALL, "MPI", ENTER_LEAVE, FUNCTION, MPI, HOST_THREAD,                                          \
      OTHER_REGION, NONE, OTHER, 0, MPI_OTHER, "mpi.other", NONE)                                                    \
    X(MPI_SEND, MPI_SEND, "", MPI_SEND, UNKNOWN, MPI, HOST_THREAD,                                                  \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "mpi", NONE)                                                              \
    X(MPI_RECV, MPI_RECV, "", MPI_RECV, UNKNOWN, MPI, HOST_THREAD,                                                  \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "mpi", NONE)                                                              \
    X(MPI_ISEND, MPI_ISEND, "", MPI_ISEND, UNKNOWN, MPI, HOST_THREAD,                                               \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "mpi", NONE)                                                              \
    X(MPI_IRECV_REQUEST, MPI_IRECV_REQUEST, "", MPI_IRECV_REQUEST, UNKNOWN, MPI, HOST_THREAD,                       \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "mpi", NONE)                                                              \
    X(MPI_REQUEST_DONE, MPI_REQUEST_DONE, "", MPI_REQUEST_DONE, UNKNOWN, MPI, HOST_THREAD,                          \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "mpi", NONE)                                                              \
    X(MPI_REQUEST_TEST, MPI_REQUEST_TEST, "", MPI_REQUEST_TEST, UNKNOWN, MPI, HOST_THREAD,                          \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "mpi", NONE)                                                              \
    X(MPI_COLLECTIVE_BEGIN_END, MPI_COLLECTIVE, "", MPI_COLLECTIVE, UNKNOWN, MPI, HOST_THREAD,                      \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "mpi", NONE)                                                              \
    /* OpenMP executing on the device (host-offload collector) */                                                    \
    X(DEVICE_PARALLEL, DEVICE_PARALLEL, "parallel", ENTER_LEAVE, PARALLEL, OPENMP, DEVICE_THREAD,                   \
      DEVICE_OPENMP, NONE, OTHER, 0, DEV_PARALLEL, "device openmp", NONE)                                            \
    X(DEVICE_IMPLICIT_TASK, DEVICE_IMPLICIT_TASK, "implicit task", ENTER_LEAVE, TASK, OPENMP, DEVICE_THREAD,        \
      DEVICE_OPENMP, NONE, OTHER, 0, DEV_PARALLEL, "device openmp", NONE)                                            \
    X(DEVICE_WORK, DEVICE_WORK, "worksharing", ENTER_LEAVE, WORKSHARE, OPENMP, DEVICE_THREAD,                       \
      DEVICE_OPENMP, NONE, OTHER, 0, DEV_LOOP, "device openmp", NONE)                                                \
    X(DEVICE_SYNC, DEVICE_SYNC, "synchronization", ENTER_LEAVE, BARRIER, OPENMP, DEVICE_THREAD,                     \
      DEVICE_OPENMP, NONE, OTHER, 0, DEV_SYNC, "device openmp", NONE)                                                \
    X(DEVICE_TASK, DEVICE_TASK, "task", ENTER_LEAVE, TASK, OPENMP, DEVICE_THREAD,                                   \
      DEVICE_OPENMP, NONE, OTHER, 0, DEV_TASK, "device openmp", NONE)                                                \
    /* device activity on queues (CUPTI, OMPT device tracing) */                                                     \
    X(QUEUE_KERNEL, DEVICE_KERNEL, "kernel (device)", ENTER_LEAVE, FUNCTION, OPENMP_TARGET, DEVICE_QUEUE,          \
      DEVICE_ACTIVITY, NONE, OTHER, 0, KERNEL, "device activity", NONE)                                              \
    X(QUEUE_MEMCPY_TO_DEVICE, DEVICE_MEMCPY, "memcpy host->device", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET,      \
      DEVICE_QUEUE, DEVICE_ACTIVITY, NONE, TO_DEVICE, 0, H2D, "device activity", NONE)                              \
    X(QUEUE_MEMCPY_FROM_DEVICE, DEVICE_MEMCPY, "memcpy device->host", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET,    \
      DEVICE_QUEUE, DEVICE_ACTIVITY, NONE, FROM_DEVICE, 0, D2H, "device activity", NONE)                            \
    X(QUEUE_MEMCPY, DEVICE_MEMCPY, "memcpy", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, DEVICE_QUEUE,               \
      DEVICE_ACTIVITY, NONE, OTHER, 0, OTHER, "device activity", NONE)                                               \
    X(QUEUE_MEMSET, DEVICE_MEMSET, "memset", ENTER_LEAVE, DATA_TRANSFER, OPENMP_TARGET, DEVICE_QUEUE,               \
      DEVICE_ACTIVITY, NONE, OTHER, 0, OTHER, "device activity", NONE)                                               \
    /* offtrace's own: where measuring cost time or lost records */                                                  \
    X(BUFFER_FLUSH, FLUSH, "offtrace: buffer flush", ENTER_LEAVE, ARTIFICIAL, MEASUREMENT_SYSTEM, HOST_THREAD,     \
      MEASUREMENT, NONE, OTHER, 0, MEASUREMENT, "measurement", NONE)                                                 \
    X(RECORDS_LOST, LOST, "offtrace: records lost", ENTER_LEAVE, ARTIFICIAL, MEASUREMENT_SYSTEM, HOST_THREAD,      \
      MEASUREMENT, NONE, OTHER, 0, MEASUREMENT, "measurement", NONE)                                                 \
    X(SIZE_LIMIT, LOST, "offtrace: size limit reached", ENTER_LEAVE, ARTIFICIAL, MEASUREMENT_SYSTEM, HOST_THREAD,  \
      MEASUREMENT, NONE, OTHER, 0, MEASUREMENT, "measurement", NONE)                                                 \
    X(DEVICE_RECORDS_LOST, DEVICE_LOST, "offtrace: device records lost", ENTER_LEAVE, ARTIFICIAL,                  \
      MEASUREMENT_SYSTEM, DEVICE_THREAD, MEASUREMENT, NONE, OTHER, 0, MEASUREMENT, "measurement", NONE)             \
    /* measurement control (issue 14): a window in which recording was off, with MeasurementOnOff at its edges */   \
    X(MEASUREMENT_OFF, MEASUREMENT, "offtrace: measurement off", ENTER_LEAVE, ARTIFICIAL, MEASUREMENT_SYSTEM,       \
      HOST_THREAD, MEASUREMENT, NONE, OTHER, 0, MEASUREMENT, "measurement", NONE)                                    \
    /* a device record of a kind this converter does not know (a newer collector, or damage) */                      \
    X(DEVICE_OTHER_KIND, NONE, "device activity (unknown kind)", ENTER_LEAVE, UNKNOWN, OPENMP_TARGET, DEVICE_THREAD, \
      OTHER_REGION, NONE, OTHER, 0, OTHER, "other", NONE)

typedef enum offtrace_event_class {
    OFFTRACE_CLASS_NONE = 0, /**< not in the catalogue (a region of another producer) */
#define OFFTRACE_CLASS_ENUM(c, source, name, form, role, paradigm, location, reader, construct, op, nowait, view, \
                            export, report)                                                                     \
    OFFTRACE_CLASS_##c,
    OFFTRACE_EVENT_CLASSES(OFFTRACE_CLASS_ENUM)
#undef OFFTRACE_CLASS_ENUM
    OFFTRACE_CLASS_COUNT
} offtrace_event_class;

/** The OTF2 form of a class. */
typedef enum offtrace_event_form {
    OFFTRACE_FORM_ENTER_LEAVE,
    OFFTRACE_FORM_RMA_PUT,
    OFFTRACE_FORM_RMA_GET,
    OFFTRACE_FORM_RMA_COMPLETE,
    OFFTRACE_FORM_METRIC,
    /* OTF2's MPI events (issue 16); not written yet (the converter counts them) */
    OFFTRACE_FORM_MPI_SEND,          /**< MpiSend */
    OFFTRACE_FORM_MPI_RECV,          /**< MpiRecv */
    OFFTRACE_FORM_MPI_ISEND,         /**< MpiIsend */
    OFFTRACE_FORM_MPI_IRECV_REQUEST, /**< MpiIrecvRequest */
    OFFTRACE_FORM_MPI_REQUEST_DONE,  /**< MpiIsendComplete, MpiIrecv or MpiRequestCancelled */
    OFFTRACE_FORM_MPI_REQUEST_TEST,  /**< MpiRequestTest */
    OFFTRACE_FORM_MPI_COLLECTIVE,    /**< MpiCollectiveBegin, MpiCollectiveEnd */
} offtrace_event_form;

/** What every user of the catalogue needs of a class, as plain values. */
typedef struct offtrace_class_info {
    const char *class_name;   /**< "TARGET": the archive's class table */
    const char *name;         /**< region name or its stem */
    offtrace_source source;
    offtrace_event_form form;
    offtrace_location_role location;
    int nowait;
    const char *export_category;
} offtrace_class_info;

/** \brief The plain columns of \p c; NULL for NONE or out of range. */
static inline const offtrace_class_info *offtrace_class(offtrace_event_class c)
{
    static const offtrace_class_info info[OFFTRACE_CLASS_COUNT] = {
#define OFFTRACE_CLASS_INFO(c, source, name, form, role, paradigm, location, reader, construct, op, nowait, view, \
                            export, report)                                                                     \
    [OFFTRACE_CLASS_##c] = {#c, name, OFFTRACE_SOURCE_##source, OFFTRACE_FORM_##form, OFFTRACE_LOC_##location,    \
                            nowait, export},
        OFFTRACE_EVENT_CLASSES(OFFTRACE_CLASS_INFO)
#undef OFFTRACE_CLASS_INFO
    };
    return c > OFFTRACE_CLASS_NONE && c < OFFTRACE_CLASS_COUNT ? &info[c] : (const offtrace_class_info *)0;
}

/** \brief The class whose archive name is \p class_name ("TARGET"), NONE if none. */
static inline offtrace_event_class offtrace_class_by_name(const char *class_name)
{
    for (int c = OFFTRACE_CLASS_NONE + 1; c < OFFTRACE_CLASS_COUNT; c++)
        if (offtrace_catalogue_same(offtrace_class((offtrace_event_class)c)->class_name, class_name))
            return (offtrace_event_class)c;
    return OFFTRACE_CLASS_NONE;
}

/* ---- the variable of a data operation (issue 15, docs/variables.md) ---- */

/**
 * X(attribute, offset, OTF2 type, name, description): the attributes the
 * converter puts on the Enter of every data operation of a construct the
 * map capture saw (on its RMA put or get: VARIABLE alone, docs/variables.md).
 * Their OTF2 attribute refs are
 * OFFTRACE_MAP_ATTRIBUTE_FIRST + offset: OTF2 wants refs dense and in
 * order (otf2-print -Werror refuses a gap), so the first follows the last
 * attribute defined before them (NVTX's 19, host/convert/trace_writer.h):
 * renumbering is this one number.
 */
/* OTF2 attributes 27-31: device activity detail (issue 17, host/convert/trace_writer.h); 32: the host operation of a
 * kernel launch, a data op or a device activity (issue 17); 33-36: a device team's summary (issue 18). */
#define OFFTRACE_MAP_ATTRIBUTE_FIRST 20u
#define OFFTRACE_MAP_ATTRIBUTES(X)                                                                              \
    X(VARIABLE, 0, STRING, "variable",                                                                          \
      "the mapped expression as written (x[0:n], s.data[0:len]); unknown without debug info (see name problem)") \
    X(MAP_TYPE, 1, STRING, "map type",                                                                          \
      "the entry's map type: modifiers then type (tofrom, always,from, present,to, alloc, release, delete, "    \
      "firstprivate)")                                                                                          \
    X(IMPLICIT, 2, UINT8, "implicit", "1: the program did not name the variable in a map clause (implicit map)") \
    X(MEMBER_OF, 3, STRING, "member of", "the entry's parent (a struct member's struct), when it is one")        \
    X(MAP_SITE, 4, STRING, "map site", "file:line of the construct (the program's call of libomptarget)")      \
    X(MAP_ENTRY, 5, STRING, "map entry",                                                                        \
      "what the operation is of its construct's maps: entry, mapper component, pointer fix-up (libomptarget's "  \
      "store of a device pointer into the entry's device copy), or none (no entry matched)")                    \
    X(NAME_PROBLEM, 6, STRING, "name problem",                                                                  \
      "why the variable is unknown: no debug info, not named by the compiler, malformed, truncated")

enum offtrace_map_attribute {
#define OFFTRACE_MAP_ATTRIBUTE_ENUM(a, offset, type, name, description) \
    OFFTRACE_MAP_ATTR_##a = OFFTRACE_MAP_ATTRIBUTE_FIRST + offset,
    OFFTRACE_MAP_ATTRIBUTES(OFFTRACE_MAP_ATTRIBUTE_ENUM)
#undef OFFTRACE_MAP_ATTRIBUTE_ENUM
    OFFTRACE_MAP_ATTRIBUTE_COUNT = 7
};

/* Their usual values, left out of a named data op's Enter (issue 18, fourth round: two attributes fewer on
 * most data ops): an Enter that carries the VARIABLE but not IMPLICIT is of an explicit map (0), one without
 * MAP_ENTRY is of an entry of its construct (OFFTRACE_MAP_ENTRY_USUAL). Archives written before carry them
 * always; a put/get carries neither (its data op's Enter has them). VARIABLE, MAP_TYPE and MAP_SITE are left out
 * together where all three are those of the previous Enter of the same region on the same location (tenth round,
 * docs/variables.md; host/otf2util/map_repeats.h keeps that record for the converter and the reader). */
#define OFFTRACE_MAP_IMPLICIT_USUAL 0
#define OFFTRACE_MAP_ENTRY_USUAL "entry"

/* ---- device activity detail (issue 17, docs/gpu.md) ---- */

/**
 * X(attribute, offset, OTF2 type, name, description): the attributes the
 * converter puts on the Enter of a device activity on a queue (CUPTI) when
 * the collector's records carry them (collector.h, OFFTRACE_DEVICE_KERNEL
 * and MEMCPY/MEMSET): refs OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST +
 * offset, right after the map attributes (dense and in order, as OTF2 wants).
 */
#define OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST 27u
#define OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTES(X)                                                                   \
    X(BYTES, 0, UINT64, "bytes", "bytes the device copied or set (the driver's own count of the activity)")    \
    X(GRID, 1, STRING, "grid", "the kernel's grid: blocks in x, y and z (\"256x1x1\")")                        \
    X(BLOCK, 2, STRING, "block", "the kernel's thread block: threads in x, y and z (\"128x1x1\")")            \
    X(REGISTERS, 3, UINT32, "registers per thread", "registers the kernel's code uses per thread")            \
    X(SHARED_MEMORY, 4, UINT32, "shared memory per block", "bytes of shared memory per block, static + dynamic") \
    X(HOST_OPERATION, 5, UINT64, "host operation",                                                             \
      "the host operation (OMPT host_op_id of a kernel submit or data op) that caused it: on the launch of a "   \
      "kernel, on a data op, and on the device activity it caused; equal values pair them")

enum offtrace_device_activity_attribute {
#define OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_ENUM(a, offset, type, name, description) \
    OFFTRACE_ACTIVITY_ATTR_##a = OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST + offset,
    OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTES(OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_ENUM)
#undef OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_ENUM
    OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_COUNT = 6
};
_Static_assert(OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST == OFFTRACE_MAP_ATTRIBUTE_FIRST + OFFTRACE_MAP_ATTRIBUTE_COUNT,
               "device activity attributes follow the map attributes without a gap");

/* ---- team summaries (issue 18, docs/record.md: device detail levels) ---- */

/**
 * X(attribute, offset, OTF2 type, name, description): the attributes the
 * converter puts on the Leave of a device parallel region whose collector
 * record summarises its team (OFFTRACE_DEVICE_DETAIL=teams, collector.h's
 * OFFTRACE_DEVICE_FLAG_SUMMARY): refs OFFTRACE_TEAM_ATTRIBUTE_FIRST + offset
 * (the next after the device activity attributes: OTF2 wants refs dense
 * and in order). A thread's arrival is the time from the
 * region's begin to its arrival at the region's closing barrier.
 */
#define OFFTRACE_TEAM_ATTRIBUTE_FIRST 33u
#define OFFTRACE_TEAM_ATTRIBUTES(X)                                                                           \
    X(THREADS, 0, UINT32, "team threads", "threads of the team whose arrival at its closing barrier was seen")  \
    X(EARLIEST_ARRIVAL, 1, UINT64, "earliest arrival",                                                      \
      "ns from the region's begin to the first of its threads reaching the closing barrier")                  \
    X(MEAN_ARRIVAL, 2, UINT64, "mean arrival", "ns from the region's begin to its threads' arrivals, mean")    \
    X(LATEST_ARRIVAL, 3, UINT64, "latest arrival",                                                          \
      "ns from the region's begin to the last thread's arrival; the team's barrier wait summed over its "     \
      "threads is threads x (latest - mean)")

enum offtrace_team_attribute {
#define OFFTRACE_TEAM_ATTRIBUTE_ENUM(a, offset, type, name, description) \
    OFFTRACE_TEAM_ATTR_##a = OFFTRACE_TEAM_ATTRIBUTE_FIRST + offset,
    OFFTRACE_TEAM_ATTRIBUTES(OFFTRACE_TEAM_ATTRIBUTE_ENUM)
#undef OFFTRACE_TEAM_ATTRIBUTE_ENUM
    OFFTRACE_TEAM_ATTRIBUTE_COUNT = 4
};
_Static_assert(OFFTRACE_TEAM_ATTRIBUTE_FIRST ==
                   OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST + OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_COUNT,
               "the team summary attributes follow the device activity attributes without a gap");

#endif /* OFFTRACE_EVENT_CATALOGUE_H */

/**
 * \file tool.c
 * \brief The OMPT tool's callbacks: ompt_start_tool, initialize and
 *        finalize, and the event callbacks (the hot path).
 *
 * Every event callback is: read the clock, reserve a slot in the thread's
 * stream, build the record on the stack, store it into the slot (event byte
 * last). Data operations and submits keep their begin in the stream header's
 * pending slot and are written once, as a COMPLETE record, at their end
 * (raw_format.h). Nothing here calls back into OpenMP, so no recursion guard
 * is needed. No lock, no allocation, no I/O, except:
 *  - a thread's first record creates its stream (allocation, file, mapping),
 *    and a full chunk maps the next one (stream.h; a preparer thread
 *    normally has it ready, under the stream's lock);
 *  - with a device attached to the collector (device_link.h), a target
 *    begin and end each take a sync point (one to three device clock reads
 *    and a record), and a target end flushes the device: the host-offload
 *    backend takes the device's mutex, drains every device thread's buffer
 *    (freeing drained blocks) and the host's device sink takes its own
 *    mutex to copy the records into a mapped chunk of raw/device-<N>.rec,
 *    mapping the next chunk (open, posix_fallocate, mmap) when one is full;
 *    the CUPTI backend's flush is CUPTI's (device/cupti). The host-offload
 *    backend also allocates a thread's state and buffer the first time the
 *    thread does work for a device (calloc, malloc, the device's mutex);
 *  - device_initialize attaches the device (files, a sync point) and may
 *    register the host OpenMP callbacks; device_load rereads the address
 *    map (/proc/self/maps).
 *
 * Host OpenMP events (parallel, implicit task, work, sync region, task
 * create and schedule) are registered only once an attached device needs
 * them (a host-offload device runs its OpenMP on this runtime) and are
 * forwarded to the collector unchanged: a trace without such a device keeps
 * libomp's fast paths. A host record of the event goes next to the forward.
 *
 * Measurement control (measurement.h): every recording path first asks
 * ot_measurement_recording() (one relaxed load); what began while off is
 * left out whole, what began while on is recorded whole; omp_control_tool
 * arrives in on_control_tool.
 *
 * The exit path is exit_path.c, fork handling fork_child.c, the
 * benchmark's stage hooks bench_stages.h.
 */
#define _GNU_SOURCE
#include <omp-tools.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_stages.h"
#include "clock.h"
#include "config.h"
#include "convert_process.h"
#include "crash.h"
#include "device_link.h"
#include "exit_path.h"
#include "filter_record.h"
#include "fork_child.h"
#include "measurement.h"
#include "session.h"
#include "stream.h"
#include "tool_chain.h"
#include "mpi_binding.h"
#include "user_binding.h"
#include "map_capture.h" /* issue 15: variable names */

#define OT_EXPORT __attribute__((visibility("default")))
/* The whole path of a callback whose common begin is written in the
 * callback: `used` keeps clang from dropping its unused arguments, so that
 * the callback's call of it is a jump that leaves the arguments where they
 * came in (issue 18, ninth round). */
#define OT_WHOLE_PATH __attribute__((noinline, used))
/* A return that must be a jump: clang makes the target callback's calls of
 * its paths (seven arguments, one on the stack) calls otherwise. */
#if defined(__has_attribute) && __has_attribute(musttail)
#define OT_JUMP __attribute__((musttail))
#else
#define OT_JUMP
#endif

static ompt_set_callback_t set_callback;

static int register_callback(ompt_callbacks_t event, ompt_callback_t fn, const char *name)
{
    int rc = set_callback(event, fn);
    if (rc == ompt_set_never || rc == ompt_set_error) {
        fprintf(stderr, "offtrace: the OpenMP runtime does not deliver %s; it is missing from the trace\n",
                name);
        return -1;
    }
    ot_chain_note_own(event, fn);
    return 0;
}

#define REGISTER(event, fn) register_callback(event, (ompt_callback_t)(fn), #event)

/* The device of the target construct this thread is in: submits do not say. */
static OT_TLS int current_target_device = -1;
/* Target constructs (of any kind, on any device) this thread is inside: a
 * measurement switch is refused there. */
static OT_TLS int target_depth;

static int host_openmp_level; /* enum ot_host_openmp_level, set before any callback is registered */
static uint64_t offload_devices; /* bit n: device n was initialised (never the host's own number) */

/* Without a collector's entries (no host-offload device attached yet, or
 * no collector: --host-only) this library tells a kernel's OpenMP from the
 * program's as the collector would: a thread is in a kernel between the
 * begin and end of a target construct for an offload device, and a team
 * worker while it runs an implicit task of a team forked inside a kernel,
 * which parallel_begin marks in parallel_data with KERNEL_TEAM (bit 63: the
 * collector, should it take over meanwhile, finds no thread of its own
 * under that value). */
#define KERNEL_TEAM (1ull << 63 | 1u)
#define MAX_TEAM_NESTING 64
static OT_TLS int kernel_depth;      /* target constructs for an offload device this thread is in */
static OT_TLS int team_nesting;      /* implicit tasks open on this thread, the initial one included */
static OT_TLS uint64_t kernel_teams; /* bit n: the implicit task at nesting n is a kernel's */

static inline int in_kernel_by_itself(void)
{
    return kernel_depth > 0 ||
           (team_nesting > 0 && team_nesting <= MAX_TEAM_NESTING && (kernel_teams >> (team_nesting - 1) & 1u));
}

static inline int host_openmp(void)
{
    if (__atomic_load_n(&ot_device_link_forwards_openmp, __ATOMIC_RELAXED))
        return !ot_device_link_openmp.in_device_work();
    return !in_kernel_by_itself();
}

static void on_thread_begin(ompt_thread_t kind, ompt_data_t *thread_data)
{
    ot_thread_kind = (uint32_t)kind;
    ot_crash_thread_begin(); /* a stack for the crash handler: this thread may overflow its own */
    if (kind == ompt_thread_initial) /* before the program's first construct; not a worker: its team waits */
        ot_stream_prepare_current();
}

static void on_thread_end(ompt_data_t *thread_data)
{
    ot_stream_close_current();
    ot_crash_thread_end();
}

/* A TARGET record, the same on the whole path and the plain one (the
 * capture names it afterwards: ot_map_capture_mark_target or the plain
 * path's own naming). */
static inline offtrace_raw_record target_record(uint64_t now, uint64_t id, ompt_target_t kind,
                                                ompt_scope_endpoint_t endpoint, int device_num,
                                                const void *codeptr_ra)
{
    return (offtrace_raw_record){
        .time = now,
        .id = id,
        .target_id = id,
        .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
        .dst_device = (int16_t)device_num,
        .subkind = (uint8_t)kind,
        .endpoint = (uint8_t)endpoint,
        .event = OFFTRACE_RAW_TARGET,
    };
}

/* The thread's target bookkeeping, on both paths: the kernel depth that
 * tells a kernel's OpenMP from the program's, the device submits belong to
 * and the depth a measurement switch is refused in. */
static inline void count_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num)
{
    if ((kind == ompt_target || kind == ompt_target_nowait) && device_num >= 0 && device_num < 64 &&
        (__atomic_load_n(&offload_devices, __ATOMIC_RELAXED) >> device_num & 1u))
        kernel_depth += endpoint == ompt_scope_begin ? 1 : -1; /* its body runs here on a host-offload device */
    if (endpoint == ompt_scope_begin) {
        current_target_device = device_num;
        target_depth++;
    } else if (target_depth > 0) {
        target_depth--;
    }
}

static OT_WHOLE_PATH void target_any(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                                     ompt_data_t *task_data, ompt_data_t *target_task_data,
                                     ompt_data_t *target_data, const void *codeptr_ra)
{
    count_target(kind, endpoint, device_num);
    /* Measurement control: a construct begun while off is not recorded at
     * all, one begun while on is recorded whole (measurement.h). */
    if (endpoint == ompt_scope_begin ? !ot_measurement_recording() : target_data->value == OT_MEASUREMENT_OFF_TARGET_ID) {
        target_data->value = OT_MEASUREMENT_OFF_TARGET_ID;
        if (ot_device_link_has(device_num)) { /* the collector's clock pairs and flushes go on */
            if (endpoint == ompt_scope_begin)
                ot_device_link_target_begin(device_num, target_data->value, (int)kind, ot_clock_ticks());
            else
                ot_device_link_target_end(device_num, target_data->value, (int)kind, ot_clock_ticks());
        }
        return;
    }
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve();
    if (endpoint == ompt_scope_begin)
        target_data->value = ot_stream_new_id();
    offtrace_raw_record r = target_record(now, target_data->value, kind, endpoint, device_num, codeptr_ra);
    ot_map_capture_mark_target(&r); /* the real call site and the map site (issue 15) */
    ot_stream_store(slot, &r);
    if (ot_device_link_has(device_num)) { /* the record's time paces the sync points: no second read */
        if (endpoint == ompt_scope_begin)
            ot_device_link_target_begin(device_num, target_data->value, (int)kind, now);
        else
            ot_device_link_target_end(device_num, target_data->value, (int)kind, now);
    }
}

/* CUPTI's correlation wants every submit and data operation bracketed. */
static inline void mark_operation(int device, ompt_scope_endpoint_t endpoint, uint64_t target_id, uint64_t op_id)
{
    if (device < 0 || device >= 64 || !(ot_device_link_wants_operations >> device & 1u))
        return;
    if (endpoint == ompt_scope_begin)
        ot_device_link_operation_begin(device, target_id, op_id);
    else
        ot_device_link_operation_end(device, op_id);
}

/* A data op or submit: its begin goes to the stream's pending slot (with a
 * fresh id), its end becomes the COMPLETE record (stream.h). NULL at the end. */
static inline offtrace_raw_record *operation_begin_slot(ompt_scope_endpoint_t endpoint, ompt_id_t *host_op_id)
{
    if (endpoint != ompt_scope_begin)
        return NULL;
    if (!ot_measurement_recording()) { /* not recorded, its end neither: 0 is no stream id */
        *host_op_id = 0;
        return NULL;
    }
    offtrace_raw_record *slot = ot_stream_pending_slot(); /* creates the stream the id comes from */
    *host_op_id = ot_stream_new_id();
    return slot;
}

static inline void put_operation(offtrace_raw_record *begin_slot, offtrace_raw_record *r)
{
    if (begin_slot)
        ot_stream_store(begin_slot, r);
    else
        ot_stream_put_end(r);
}

/* A data op's record, the same at its begin and its end. */
static inline offtrace_raw_record data_op_record(uint64_t now, uint64_t id, uint64_t target_id,
                                                 ompt_scope_endpoint_t endpoint, ompt_target_data_op_t optype,
                                                 void *src_addr, int src_device_num, void *dest_addr,
                                                 int dest_device_num, size_t bytes, const void *codeptr_ra)
{
    return (offtrace_raw_record){
        .time = now,
        .id = id,
        .target_id = target_id,
        .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
        .bytes = bytes,
        .src_addr = (uint64_t)(uintptr_t)src_addr,
        .dst_addr = (uint64_t)(uintptr_t)dest_addr,
        .src_device = (int16_t)src_device_num,
        .dst_device = (int16_t)dest_device_num,
        .subkind = (uint8_t)optype,
        .endpoint = (uint8_t)endpoint,
        .flags = target_id ? OFFTRACE_RAW_FLAG_IN_CONSTRUCT : 0,
        .event = OFFTRACE_RAW_DATA_OP,
    };
}

/* A submit's record, the same at its begin and its end. */
static inline offtrace_raw_record submit_record(uint64_t now, uint64_t id, uint64_t target_id,
                                                ompt_scope_endpoint_t endpoint, unsigned int requested_num_teams)
{
    return (offtrace_raw_record){
        .time = now,
        .id = id,
        .target_id = target_id,
        .bytes = requested_num_teams,
        .endpoint = (uint8_t)endpoint,
        .flags = target_id ? OFFTRACE_RAW_FLAG_IN_CONSTRUCT : 0,
        .event = OFFTRACE_RAW_SUBMIT,
    };
}

static OT_WHOLE_PATH void data_op_any(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                                      ompt_data_t *target_data, ompt_id_t *host_op_id,
                                      ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                                      void *dest_addr, int dest_device_num, size_t bytes,
                                      const void *codeptr_ra)
{
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *begin_slot = operation_begin_slot(endpoint, host_op_id);
    uint64_t target_id = target_data ? target_data->value : 0;
    if (*host_op_id == 0) { /* begun while recording was off */
        if (__builtin_expect(ot_device_link_wants_operations != 0, 0))
            mark_operation(ot_device_link_has(dest_device_num) ? dest_device_num : src_device_num, endpoint,
                           OT_MEASUREMENT_OFF_TARGET_ID, 0);
        return;
    }
    offtrace_raw_record r = data_op_record(now, *host_op_id, target_id, endpoint, optype, src_addr, src_device_num,
                                           dest_addr, dest_device_num, bytes, codeptr_ra);
    ot_map_capture_mark_data_op(&r); /* its map entry (issue 15) */
    put_operation(begin_slot, &r);
    if (__builtin_expect(ot_device_link_wants_operations != 0, 0))
        mark_operation(ot_device_link_has(dest_device_num) ? dest_device_num : src_device_num, endpoint,
                       target_id, *host_op_id);
}

static OT_WHOLE_PATH void submit_any(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                                     ompt_id_t *host_op_id, unsigned int requested_num_teams)
{
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *begin_slot = operation_begin_slot(endpoint, host_op_id);
    uint64_t target_id = target_data ? target_data->value : 0;
    if (*host_op_id == 0) { /* begun while recording was off */
        if (__builtin_expect(ot_device_link_wants_operations != 0, 0))
            mark_operation(current_target_device, endpoint, OT_MEASUREMENT_OFF_TARGET_ID, 0);
        return;
    }
    offtrace_raw_record r = submit_record(now, *host_op_id, target_id, endpoint, requested_num_teams);
    put_operation(begin_slot, &r);
    if (__builtin_expect(ot_device_link_wants_operations != 0, 0))
        mark_operation(current_target_device, endpoint, target_id, *host_op_id | OFFTRACE_OPERATION_SUBMIT_BIT);
}

/*
 * The data op and submit callbacks themselves. A begin on the common path
 * (TSC clock, recording, the thread's stream with its pending slot free,
 * no device that brackets operations: operation_begin_is_plain) is written
 * in the callback, which calls nothing on that path; everything else,
 * every end included, goes to the whole path above (*_any), which records
 * exactly what the plain begin would have, by a jump with the arguments
 * where they came in. So the begin no longer pays for the slow paths'
 * frame (six callee-saved registers saved and restored, the arguments
 * moved for the calls), and the end pays a test and a jump (issue 18,
 * ninth round; instructions per region in docs/performance.md).
 */
static inline int operation_begin_is_plain(ompt_scope_endpoint_t endpoint, const ot_stream *s)
{
#if defined(__x86_64__)
    return endpoint == ompt_scope_begin && ot_clock_use_tsc && ot_measurement_recording() && s &&
           s->pending->event == OFFTRACE_RAW_NONE && ot_device_link_wants_operations == 0;
#else
    (void)endpoint, (void)s;
    return 0;
#endif
}

/* An end whose begin is pending (ot_stream_end_completes), with the TSC
 * the clock and no device bracketing operations: its COMPLETE record needs
 * no call. (Its id is not 0: a pending begin's never is.) */
static inline int operation_end_is_plain(ompt_scope_endpoint_t endpoint, const ot_stream *s, uint8_t event,
                                         const ompt_id_t *host_op_id)
{
#if defined(__x86_64__)
    /* the device first: where it brackets operations (CUPTI) no end is
     * plain, and that test says so before the others */
    return ot_device_link_wants_operations == 0 && endpoint == ompt_scope_end && ot_clock_use_tsc &&
           ot_stream_end_completes(s, event, *host_op_id);
#else
    (void)endpoint, (void)s, (void)event, (void)host_op_id;
    return 0;
#endif
}

/* ot_clock_ticks where operation_begin_is_plain said the TSC is the clock:
 * without the fallback's call, the plain begin needs no frame. */
static inline uint64_t plain_ticks(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#else
    return ot_clock_ticks(); /* not reached: no begin is plain here */
#endif
}

/* A plain begin's id, in *host_op_id too (its stream known: no orphan case). */
static inline uint64_t plain_begin_id(ot_stream *s, ompt_id_t *host_op_id)
{
    uint64_t id = ot_stream_next_id(s);
    *host_op_id = id;
    return id;
}

/* The data op's end on the plain path: its begin pending, its region's
 * construct and site known (ot_map_capture_known_construct). No call but
 * where the map entries must be searched (an allocation's end, 1 of the 4
 * ends of a mapped variable's region: the others are found by the
 * thread's last search or are a delete, named by the site alone). A
 * function of its own, so that its registers are not the begin's; every
 * end of such a region runs through it, so that its code stays in cache
 * (the allocation's end through the whole path touched 17 instruction
 * lines of it per region that nothing else did). */
static OT_WHOLE_PATH void data_op_end(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                                      ompt_data_t *target_data, ompt_id_t *host_op_id,
                                      ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                                      void *dest_addr, int dest_device_num, size_t bytes,
                                      const void *codeptr_ra)
{
    ot_stream *s = ot_stream_current;
    uint64_t target_id;
    offtrace_capture_construct *c;
    if (!operation_end_is_plain(endpoint, s, OFFTRACE_RAW_DATA_OP, host_op_id) || !target_data ||
        !(c = ot_map_capture_known_construct(target_id = target_data->value))) {
        data_op_any(endpoint, target_task_data, target_data, host_op_id, optype, src_addr, src_device_num,
                    dest_addr, dest_device_num, bytes, codeptr_ra);
        return;
    }
    uint64_t now = plain_ticks();
    uint64_t ref = ot_map_capture_ref(c, target_id, optype, (uint64_t)(uintptr_t)src_addr,
                                      (uint64_t)(uintptr_t)dest_addr, bytes);
    offtrace_raw_record r = data_op_record(now, *host_op_id, target_id, endpoint, optype, src_addr, src_device_num,
                                           dest_addr, dest_device_num, bytes, (const void *)(uintptr_t)ref);
    r.flags |= OFFTRACE_RAW_FLAG_MAP_ENTRY;
    ot_stream_put_complete(s, &r); /* the same stream, with room: the search writes no record */
}

static void on_data_op_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                           ompt_data_t *target_data, ompt_id_t *host_op_id,
                           ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                           void *dest_addr, int dest_device_num, size_t bytes,
                           const void *codeptr_ra)
{
    OT_BENCH_STAGE_HOOK();
    if (endpoint != ompt_scope_begin) {
        data_op_end(endpoint, target_task_data, target_data, host_op_id, optype, src_addr, src_device_num,
                    dest_addr, dest_device_num, bytes, codeptr_ra);
        return;
    }
    ot_stream *s = ot_stream_current;
    if (!operation_begin_is_plain(endpoint, s)) {
        data_op_any(endpoint, target_task_data, target_data, host_op_id, optype, src_addr, src_device_num,
                    dest_addr, dest_device_num, bytes, codeptr_ra);
        return;
    }
    uint64_t now = plain_ticks();
    uint64_t id = plain_begin_id(s, host_op_id);
    uint64_t target_id = target_data ? target_data->value : 0;
    offtrace_raw_record r = data_op_record(now, id, target_id, endpoint, optype, src_addr, src_device_num, dest_addr,
                                           dest_device_num, bytes, codeptr_ra);
    ot_stream_store(s->pending, &r);
}

/* Four arguments, all in registers: neither the plain begin nor the plain
 * end needs a frame (the end's whole path was 81 instructions). */
static void on_submit_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                          ompt_id_t *host_op_id, unsigned int requested_num_teams)
{
    OT_BENCH_STAGE_HOOK();
    ot_stream *s = ot_stream_current;
    uint64_t target_id;
    if (operation_begin_is_plain(endpoint, s)) {
        uint64_t now = plain_ticks();
        uint64_t id = plain_begin_id(s, host_op_id);
        target_id = target_data ? target_data->value : 0;
        offtrace_raw_record r = submit_record(now, id, target_id, endpoint, requested_num_teams);
        ot_stream_store(s->pending, &r);
        return;
    }
    if (!operation_end_is_plain(endpoint, s, OFFTRACE_RAW_SUBMIT, host_op_id)) {
        submit_any(endpoint, target_data, host_op_id, requested_num_teams);
        return;
    }
    uint64_t now = plain_ticks();
    target_id = target_data ? target_data->value : 0;
    offtrace_raw_record r = submit_record(now, *host_op_id, target_id, endpoint, requested_num_teams);
    ot_stream_put_complete(s, &r);
}

/*
 * The target callback itself, on the model of the data op's (above). A
 * call on the common path (TSC clock, room in the thread's stream, the
 * capture in the process, no collector attached to the device) is written
 * by target_begin or target_end; every other goes to the whole path
 * (target_any) by a jump. A
 * plain end calls nothing: its construct and map site are the ones its
 * begin found (ot_map_capture_known_construct), so it needs no frame. A
 * plain begin calls the capture's query once: the record is written into
 * its slot before the call (its event byte, which publishes it, after), so
 * only the slot stays live across the call, not the record's fields (issue
 * 18, tenth round; instructions per region in docs/performance.md).
 */
static inline int target_is_plain(const ot_stream *s)
{
#if defined(__x86_64__)
    return ot_clock_use_tsc && ot_stream_has_room(s) && ot_map_capture_query != 0;
#else
    (void)s;
    return 0;
#endif
}

/* A plain end: calls nothing, no frame. */
static OT_WHOLE_PATH void target_end(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                                     ompt_data_t *task_data, ompt_data_t *target_task_data,
                                     ompt_data_t *target_data, const void *codeptr_ra)
{
    ot_stream *s = ot_stream_current;
    const offtrace_capture_construct *known;
    if (endpoint != ompt_scope_end || !target_is_plain(s) ||
        !(known = ot_map_capture_known_construct(target_data->value))) {
        target_any(kind, endpoint, device_num, task_data, target_task_data, target_data, codeptr_ra);
        return;
    }
    count_target(kind, endpoint, device_num);
    uint64_t now = plain_ticks();
    offtrace_raw_record *slot = ot_stream_reserve_in(s);
    /* known: the region is recorded (its id is not the off one) */
    offtrace_raw_record r = target_record(now, target_data->value, kind, endpoint, device_num, codeptr_ra);
    ot_map_capture_name_target(&r, known, ot_map_capture_known_site(known));
    ot_map_capture_current.target_id = 0; /* the region is over */
    ot_stream_store(slot, &r);
}

/* A plain begin: one call, the capture's query, with the record written
 * into its slot before it (published by its event byte after), so that
 * only the slot stays live across it, not the record's fields. */
static OT_WHOLE_PATH void target_begin(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                                       ompt_data_t *task_data, ompt_data_t *target_task_data,
                                       ompt_data_t *target_data, const void *codeptr_ra)
{
    ot_stream *s = ot_stream_current;
    if (!target_is_plain(s) || !ot_measurement_recording()) {
        target_any(kind, endpoint, device_num, task_data, target_task_data, target_data, codeptr_ra);
        return;
    }
    count_target(kind, endpoint, device_num);
    uint64_t now = plain_ticks();
    offtrace_raw_record *slot = ot_stream_reserve_in(s);
    uint64_t id = ot_stream_next_id(s);
    target_data->value = id;
    offtrace_raw_record r = target_record(now, id, kind, endpoint, device_num, codeptr_ra);
    __builtin_memcpy(slot, &r, offsetof(offtrace_raw_record, event)); /* unpublished until its event byte */
    offtrace_capture_construct *c = ot_map_capture_query();
    ot_map_capture_current.target_id = slot->id;
    ot_map_capture_current.construct = c;
    if (c)
        ot_map_capture_name_target(slot, c, ot_map_capture_site_cached(c));
    __atomic_store_n(&slot->event, (uint8_t)OFFTRACE_RAW_TARGET, __ATOMIC_RELEASE);
}

/* The callback: jumps only (no frame). With device detail (a collector
 * attached to the device) every call takes the whole path: that test
 * first. */
static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra)
{
    OT_BENCH_STAGE_HOOK();
    if (ot_device_link_has(device_num))
        OT_JUMP return target_any(kind, endpoint, device_num, task_data, target_task_data, target_data, codeptr_ra);
    if (endpoint == ompt_scope_begin)
        OT_JUMP return target_begin(kind, endpoint, device_num, task_data, target_task_data, target_data,
                                    codeptr_ra);
    OT_JUMP return target_end(kind, endpoint, device_num, task_data, target_task_data, target_data, codeptr_ra);
}

/* ---- host OpenMP events ----
 *
 * Registered at initialisation when OFFTRACE_HOST_OPENMP records them, else
 * once a device needs them. Each is forwarded to the collector (a no-op
 * without a host-offload device) and, when the collector says the thread
 * is not doing device work and the level asks for it, recorded as the
 * program's own host OpenMP: one record, paired at conversion last in,
 * first out per thread and kind. The collector is asked after a begin is
 * forwarded and before an end is: a team worker takes up a kernel's device
 * work in its implicit task's begin and gives it up in its end. */

/* Measurement control (measurement.h): a host OpenMP region begun while
 * recording was off is not recorded, nor anything inside it on this
 * thread; one begun while on is recorded whole. Per thread, because a team
 * worker reports the end of its implicit task and barrier only when it is
 * woken for the next parallel region, possibly after a switch: the regions
 * of one thread nest, so a depth says which ends to leave out. */
static OT_TLS unsigned openmp_off_depth;

static inline int openmp_recorded(uint8_t event, int endpoint)
{
    if (event == OFFTRACE_RAW_OMP_CHUNK || event == OFFTRACE_RAW_OMP_CANCEL || event == OFFTRACE_RAW_OMP_FLUSH)
        return !openmp_off_depth && ot_measurement_recording(); /* instants */
    if (endpoint == ompt_scope_begin) {
        if (!openmp_off_depth && ot_measurement_recording())
            return 1;
        openmp_off_depth++;
        return 0;
    }
    if (!openmp_off_depth)
        return 1;
    openmp_off_depth--;
    return 0;
}

/* Instants and explicit tasks: recorded while on, outside regions left out. */
static inline int openmp_instant_recorded(void)
{
    return !openmp_off_depth && ot_measurement_recording();
}

/* Filters (filter_record.h, docs/filters.md): a construct the filter
 * removes loses its begin and its end, and what has no call site of its
 * own follows the construct it belongs to: the waiting part of a barrier,
 * loop chunks, an implicit task (its parallel region's decision, found in
 * the parallel's data on a team worker). What is inside a removed construct
 * and has its own call site is decided by its own rules, and stays nested
 * in the constructs around it. Scoped events of one thread nest, so one bit
 * per open event says at its end what its begin decided; past 64 levels
 * events are kept. */
static OT_TLS uint64_t filter_bits;
static OT_TLS unsigned filter_depth;

/* parallel->value of a removed host parallel region, set after the forward
 * where the collector left 0 (a host team; shaped like KERNEL_TEAM, so a
 * collector finds no thread of its own under it): the runtime copies it to
 * the team, and a worker's implicit task, which has no call site and runs
 * on another thread, reads there that its team was removed. */
#define FILTERED_TEAM (1ull << 63 | 2u)

static inline int filter_enclosing(void)
{
    return filter_depth && filter_depth <= 64 && (filter_bits & 1u);
}

/* 1 when the filter removes this record. follows: 1 to remove a begin
 * whatever the enclosing construct says (a removed team's implicit task). */
static int openmp_filtered(uint8_t event, int endpoint, uint8_t subkind, const void *codeptr, int follows)
{
    if (event == OFFTRACE_RAW_OMP_CHUNK || event == OFFTRACE_RAW_OMP_CANCEL || event == OFFTRACE_RAW_OMP_FLUSH) {
        if (!filter_enclosing())
            return 0;
    } else if (endpoint != ompt_scope_begin) {
        if (!filter_depth)
            return 0;
        int removed = filter_depth <= 64 && (filter_bits & 1u);
        filter_depth--;
        filter_bits >>= 1;
        return removed;
    } else {
        int removed = follows;
        if (event == OFFTRACE_RAW_OMP_SYNC_WAIT || event == OFFTRACE_RAW_OMP_IMPLICIT_TASK || !codeptr)
            removed |= filter_enclosing(); /* no call site of its own: its construct's decision */
        if (event != OFFTRACE_RAW_OMP_SYNC_WAIT && event != OFFTRACE_RAW_OMP_IMPLICIT_TASK)
            removed |= ot_filter_openmp_removed(event, subkind, codeptr);
        if (++filter_depth <= 64)
            filter_bits = filter_bits << 1 | (uint64_t)removed;
        if (!removed)
            return 0;
    }
    /* counted when it would have been recorded (not in a forked child, which records nothing) */
    if (__atomic_load_n(&ot_recording, __ATOMIC_RELAXED) && !openmp_off_depth && ot_measurement_recording())
        ot_filter_count_removed(OFFTRACE_RAW_FILTERED_OPENMP);
    return 1;
}

/* 1 when recorded. */
static inline int put_openmp_following(uint8_t event, int endpoint, uint8_t subkind, const void *codeptr,
                                       uint64_t bytes, uint64_t src_addr, int follows)
{
    if (__builtin_expect(ot_filter_openmp_active, 0) && openmp_filtered(event, endpoint, subkind, codeptr, follows))
        return 0;
    if (!openmp_recorded(event, endpoint))
        return 0;
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve_host_openmp();
    offtrace_raw_record r = {
        .time = now,
        .codeptr = (uint64_t)(uintptr_t)codeptr,
        .bytes = bytes,
        .src_addr = src_addr,
        .subkind = subkind,
        .endpoint = (uint8_t)(endpoint == ompt_scope_begin ? OFFTRACE_RAW_BEGIN : OFFTRACE_RAW_END),
        .event = event,
    };
    ot_stream_store(slot, &r);
    return 1;
}

static inline void put_openmp(uint8_t event, int endpoint, uint8_t subkind, const void *codeptr, uint64_t bytes,
                              uint64_t src_addr)
{
    put_openmp_following(event, endpoint, subkind, codeptr, bytes, src_addr, 0);
}

static void on_parallel_begin(ompt_data_t *encountering_task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    ot_device_link_openmp.parallel_begin(encountering_task, frame, parallel, requested, flags, codeptr);
    if (!__atomic_load_n(&ot_device_link_forwards_openmp, __ATOMIC_RELAXED))
        parallel->value = in_kernel_by_itself() ? KERNEL_TEAM : 0;
    if (host_openmp_level && host_openmp() &&
        !put_openmp_following(OFFTRACE_RAW_OMP_PARALLEL, ompt_scope_begin, (flags & ompt_parallel_league) ? 1 : 0,
                              codeptr, requested, 0, 0) &&
        filter_enclosing() && parallel->value == 0)
        parallel->value = FILTERED_TEAM; /* the team's workers leave out their implicit tasks too */
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *encountering_task, int flags, const void *codeptr)
{
    if (host_openmp_level && host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_PARALLEL, ompt_scope_end, (flags & ompt_parallel_league) ? 1 : 0, codeptr, 0, 0);
    ot_device_link_openmp.parallel_end(parallel, encountering_task, flags, codeptr);
}

/* The initial task spans the program (its end comes after the recording's
 * end): it is not recorded. */
static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
    int record = host_openmp_level && !(flags & ompt_task_initial);
    if (endpoint == ompt_scope_begin) {
        ot_device_link_openmp.implicit_task(endpoint, parallel, task, actual, index, flags);
        int kernel = in_kernel_by_itself() || (parallel && parallel->value == KERNEL_TEAM);
        if (team_nesting < MAX_TEAM_NESTING)
            kernel_teams = (kernel_teams & ~(1ull << team_nesting)) | (uint64_t)kernel << team_nesting;
        team_nesting++;
        if (record && host_openmp())
            put_openmp_following(OFFTRACE_RAW_OMP_IMPLICIT_TASK, endpoint, 0, NULL, actual, index,
                                 parallel && parallel->value == FILTERED_TEAM);
        return;
    }
    if (record && host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_IMPLICIT_TASK, endpoint, 0, NULL, 0, index);
    if (team_nesting > 0)
        team_nesting--;
    ot_device_link_openmp.implicit_task(endpoint, parallel, task, actual, index, flags);
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                    uint64_t count, const void *codeptr)
{
    ot_device_link_openmp.work(kind, endpoint, parallel, task, count, codeptr);
    if (host_openmp_level && host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_WORK, endpoint, (uint8_t)kind, codeptr, count, 0);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                           ompt_data_t *task, const void *codeptr)
{
    ot_device_link_openmp.sync_region(kind, endpoint, parallel, task, codeptr);
    if (host_openmp_level && host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_SYNC, endpoint, (uint8_t)kind, codeptr, 0, 0);
}

static void record_task_create(ompt_data_t *encountering_task, ompt_data_t *new_task, int flags,
                               int has_dependences, const void *codeptr);
static void record_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next);

/* At level all, the program's own tasks are recorded too (explicit tasks,
 * below); the collector's value is 0 for those, so the task's id goes
 * there after the forward. */
static void on_task_create(ompt_data_t *encountering_task, const ompt_frame_t *frame, ompt_data_t *new_task,
                           int flags, int has_dependences, const void *codeptr)
{
    ot_device_link_openmp.task_create(encountering_task, frame, new_task, flags, has_dependences, codeptr);
    if (host_openmp_level >= OT_HOST_OPENMP_ALL && host_openmp())
        record_task_create(encountering_task, new_task, flags, has_dependences, codeptr);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    ot_device_link_openmp.task_schedule(prior, status, next);
    if (host_openmp_level >= OT_HOST_OPENMP_ALL && host_openmp())
        record_task_schedule(prior, status, next);
}

/* Host OpenMP only: the collector does not take these. */
static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                                ompt_data_t *task, const void *codeptr)
{
    if (host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_SYNC_WAIT, endpoint, (uint8_t)kind, codeptr, 0, 0);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    if (host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_MASKED, endpoint, 0, codeptr, 0, 0);
}

/* A chunk, a section or a distribute chunk handed to this thread: one
 * record; it lasts until the thread's next one or the construct's end. */
static void on_dispatch(ompt_data_t *parallel, ompt_data_t *task, ompt_dispatch_t kind, ompt_data_t instance)
{
    if (!host_openmp())
        return;
    uint64_t start = 0, iterations = 0;
    const void *site = NULL;
    if (kind == ompt_dispatch_ws_loop_chunk || kind == ompt_dispatch_taskloop_chunk ||
        kind == ompt_dispatch_distribute_chunk) {
        const ompt_dispatch_chunk_t *chunk = instance.ptr;
        if (chunk) {
            start = chunk->start;
            iterations = chunk->iterations;
        }
    } else if (kind == ompt_dispatch_section) {
        site = instance.ptr;
        iterations = 1;
    } else {
        start = instance.value;
        iterations = 1;
    }
    put_openmp(OFFTRACE_RAW_OMP_CHUNK, ompt_scope_begin, (uint8_t)kind, site, iterations, start);
}

/* ---- explicit tasks (level all; issue 13, step 2) ----
 *
 * A task's id is made where it is created, without synchronisation: the
 * creating thread's stream id (its index in the high bits, its own counter
 * in the low ones, as AfterOMPT labels instances), kept in the task's
 * ompt_data_t, where task_schedule and the dependence callbacks find it
 * again on whatever thread runs or names the task. 0 is an implicit task
 * (or one created in device work, whose value is the collector's). */

static void record_task_create(ompt_data_t *encountering_task, ompt_data_t *new_task, int flags,
                               int has_dependences, const void *codeptr)
{
    if (!openmp_instant_recorded()) /* the task keeps id 0: its later events are not recorded either */
        return;
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve_host_openmp(); /* first: the id comes from the stream */
    new_task->value = ot_stream_new_id();
    offtrace_raw_record r = {
        .time = now,
        .id = new_task->value,
        .target_id = encountering_task ? encountering_task->value : 0,
        .codeptr = (uint64_t)(uintptr_t)codeptr,
        .bytes = (uint32_t)flags,
        .subkind = has_dependences ? 1 : 0,
        .endpoint = OFFTRACE_RAW_BEGIN,
        .event = OFFTRACE_RAW_OMP_TASK_CREATE,
    };
    ot_stream_store(slot, &r);
}

/* One record per switch on the thread that switches: the task it leaves
 * (and why) and the task it runs, either possibly an implicit task (0). */
static void record_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    if (!openmp_instant_recorded())
        return;
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve_host_openmp();
    offtrace_raw_record r = {
        .time = now,
        .id = prior ? prior->value : 0,
        .target_id = next ? next->value : 0,
        .subkind = (uint8_t)status,
        .endpoint = OFFTRACE_RAW_BEGIN,
        .event = OFFTRACE_RAW_OMP_TASK_SCHEDULE,
    };
    ot_stream_store(slot, &r);
}

/* A task's dependence clauses, one record per variable, right after its
 * creation on the creating thread. */
static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
    if (!host_openmp() || !task || !task->value || !openmp_instant_recorded())
        return;
    for (int i = 0; i < ndeps; i++) {
        uint64_t now = ot_clock_ticks();
        offtrace_raw_record *slot = ot_stream_reserve_host_openmp();
        offtrace_raw_record r = {
            .time = now,
            .id = task->value,
            .bytes = (uint64_t)ndeps,
            .src_addr = (uint64_t)(uintptr_t)deps[i].variable.ptr,
            .subkind = (uint8_t)deps[i].dependence_type,
            .endpoint = OFFTRACE_RAW_BEGIN,
            .event = OFFTRACE_RAW_OMP_TASK_DEPENDENCES,
        };
        ot_stream_store(slot, &r);
    }
}

/* A resolved edge: sink cannot start before src completes. */
static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
    if (!host_openmp() || !sink || !sink->value || !openmp_instant_recorded())
        return;
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve_host_openmp();
    offtrace_raw_record r = {
        .time = now,
        .id = sink->value,
        .target_id = src ? src->value : 0,
        .endpoint = OFFTRACE_RAW_BEGIN,
        .event = OFFTRACE_RAW_OMP_TASK_DEPENDENCE,
    };
    ot_stream_store(slot, &r);
}

/* ---- mutual exclusion ----
 *
 * Level all: locks, nest locks, critical, ordered, lock init/destroy,
 * cancellation, flush; one record per callback (raw_format.h), except that
 * an acquired that follows its acquire at once (always, but for a nest
 * lock's inner set and a failed test) completes the acquire's record in
 * place: a lock pair is two records, not three. The wait (acquire to
 * acquired) and the hold (acquired to released) are paired at conversion
 * per thread and wait id (host_mutex.c). The collector takes none of
 * these, so only host_openmp() decides. */

/* The thread's last acquire record, while it is the last record of its
 * stream (a thread waiting for a lock records nothing else). */
static OT_TLS offtrace_raw_record *acquire_slot;

static inline offtrace_raw_record *put_mutex(uint8_t event, int endpoint, ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                             const void *codeptr, uint64_t hint, uint64_t implementation)
{
    if (!openmp_instant_recorded()) /* a lock held across a switch: its release alone is left unmatched */
        return NULL;
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve_host_openmp();
    offtrace_raw_record r = {
        .time = now,
        .codeptr = (uint64_t)(uintptr_t)codeptr,
        .bytes = hint,
        .src_addr = wait_id,
        .dst_addr = implementation,
        .subkind = (uint8_t)kind,
        .endpoint = (uint8_t)endpoint,
        .event = event,
    };
    ot_stream_store(slot, &r);
    return slot;
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void *codeptr)
{
    if (host_openmp())
        acquire_slot = put_mutex(OFFTRACE_RAW_OMP_MUTEX, OFFTRACE_RAW_BEGIN, kind, wait_id, codeptr, hint, impl);
}

/* The acquire's record becomes COMPLETE (end_time = now) when it is still
 * the stream's last record (its chunk is mapped and not written back, and
 * nothing came between); a crash in between leaves it a valid BEGIN. Else
 * an ACQUIRED record. */
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (!host_openmp())
        return;
    offtrace_raw_record *slot = acquire_slot;
    ot_stream *s = ot_stream_current;
    acquire_slot = NULL;
    if (slot && s && slot + 1 == s->next && slot->src_addr == wait_id && slot->event == OFFTRACE_RAW_OMP_MUTEX &&
        slot->endpoint == OFFTRACE_RAW_BEGIN) {
        slot->end_time = ot_clock_ticks();
        __atomic_store_n(&slot->endpoint, (uint8_t)OFFTRACE_RAW_COMPLETE, __ATOMIC_RELEASE);
        return;
    }
    put_mutex(OFFTRACE_RAW_OMP_MUTEX_ACQUIRED, OFFTRACE_RAW_BEGIN, kind, wait_id, codeptr, 0, 0);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (host_openmp())
        put_mutex(OFFTRACE_RAW_OMP_MUTEX, OFFTRACE_RAW_END, kind, wait_id, codeptr, 0, 0);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (host_openmp())
        put_mutex(OFFTRACE_RAW_OMP_NEST_LOCK, endpoint == ompt_scope_begin ? OFFTRACE_RAW_BEGIN : OFFTRACE_RAW_END,
                  ompt_mutex_nest_lock, wait_id, codeptr, 0, 0);
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                         const void *codeptr)
{
    if (host_openmp())
        put_mutex(OFFTRACE_RAW_OMP_LOCK_INIT, OFFTRACE_RAW_BEGIN, kind, wait_id, codeptr, hint, impl);
}

static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (host_openmp())
        put_mutex(OFFTRACE_RAW_OMP_LOCK_DESTROY, OFFTRACE_RAW_BEGIN, kind, wait_id, codeptr, 0, 0);
}

static void on_cancel(ompt_data_t *task, int flags, const void *codeptr)
{
    if (host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_CANCEL, ompt_scope_begin, 0, codeptr, (uint64_t)(unsigned)flags, 0);
}

static void on_flush(ompt_data_t *thread, const void *codeptr)
{
    if (host_openmp())
        put_openmp(OFFTRACE_RAW_OMP_FLUSH, ompt_scope_begin, 0, codeptr, 0, 0);
}

/* Once: at initialisation when the level records host OpenMP, else from the
 * first device that needs them. The chained tool was refused these events
 * already (tool_chain.c), so nothing of its is replaced. */
static void register_host_openmp(void)
{
    static int registered;
    if (__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL))
        return;
    REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
    REGISTER(ompt_callback_parallel_end, on_parallel_end);
    REGISTER(ompt_callback_implicit_task, on_implicit_task);
    REGISTER(ompt_callback_work, on_work);
    REGISTER(ompt_callback_sync_region, on_sync_region);
    REGISTER(ompt_callback_task_create, on_task_create);
    REGISTER(ompt_callback_task_schedule, on_task_schedule);
    if (host_openmp_level >= OT_HOST_OPENMP_REGIONS) {
        REGISTER(ompt_callback_sync_region_wait, on_sync_region_wait);
        REGISTER(ompt_callback_masked, on_masked);
    }
    if (host_openmp_level >= OT_HOST_OPENMP_LOOPS)
        REGISTER(ompt_callback_dispatch, on_dispatch);
    if (host_openmp_level >= OT_HOST_OPENMP_ALL) {
        REGISTER(ompt_callback_dependences, on_dependences);
        REGISTER(ompt_callback_task_dependence, on_task_dependence);
    }
    if (host_openmp_level >= OT_HOST_OPENMP_ALL) { /* mutual exclusion */
        REGISTER(ompt_callback_mutex_acquire, on_mutex_acquire);
        REGISTER(ompt_callback_mutex_acquired, on_mutex_acquired);
        REGISTER(ompt_callback_mutex_released, on_mutex_released);
        REGISTER(ompt_callback_nest_lock, on_nest_lock);
        REGISTER(ompt_callback_lock_init, on_lock_init);
        REGISTER(ompt_callback_lock_destroy, on_lock_destroy);
        REGISTER(ompt_callback_cancel, on_cancel);
        REGISTER(ompt_callback_flush, on_flush);
    }
}

/* ---- measurement control (issue 14) ----
 *
 * omp_control_tool's callback and the probe measurement.c asks before a
 * switch. The mechanism and the rule are measurement.h's; libomp delivers
 * the callback only once it is initialised (after the first parallel region
 * or target construct: before that, omp_control_tool returns -2). */

/* omp.h's omp_control_tool_t values (omp.h is the program's header, not the tool's). */
enum { CONTROL_START = 1, CONTROL_PAUSE = 2, CONTROL_FLUSH = 3, CONTROL_END = 4 };

static ompt_get_parallel_info_t get_parallel_info;
static int start_paused; /* OFFTRACE_START_PAUSED, set in ompt_start_tool */

/* Inside a parallel region: the innermost one (ancestor 0) is the implicit
 * initial region in sequential code, so an ancestor at level 1 means a real
 * one (a team of one included). */
static int probe_regions(const char **region)
{
    if (target_depth > 0 || kernel_depth > 0) {
        *region = "target";
        return 1;
    }
    int team_size = 0;
    if (get_parallel_info && get_parallel_info(1, NULL, &team_size) == 2) {
        *region = "parallel";
        return 1;
    }
    return 0;
}

/* Returns 0 when done; 1 when refused (inside a parallel or target region,
 * start after end) or the flush failed; 2 for a command offtrace does not
 * know (below 64: from 64 on, commands are a chained tool's). */
static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr)
{
    switch (command) {
    case CONTROL_START: return ot_measurement_set(1) == 0 ? 0 : 1;
    case CONTROL_PAUSE: return ot_measurement_set(0) == 0 ? 0 : 1;
    case CONTROL_FLUSH: return ot_measurement_flush() == 0 ? 0 : 1;
    case CONTROL_END: return ot_measurement_end() == 0 ? 0 : 1;
    default: return 2;
    }
}

/* ---- devices ---- */

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *documentation)
{
    ot_session_add_device(device_num, type);
    ot_session_clock_pair();
    if (device_num >= 0 && device_num < 64)
        __atomic_fetch_or(&offload_devices, 1ull << device_num, __ATOMIC_RELAXED);
    if (ot_device_link_attach(device_num, type, device, lookup))
        register_host_openmp();
}

static void on_device_load(int device_num, const char *filename, int64_t offset_in_file,
                           void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
                           uint64_t module_id)
{
    /* Code may have been loaded since start-up: refresh the address map. */
    ot_session_snapshot_maps();
}

/* The runtime tears the device down after this (LLVM 19: in the plugin's
 * deinit at exit, before the driver's context goes): the collector's last
 * flush must come first. */
static void on_device_finalize(int device_num)
{
    ot_device_link_finish_device(device_num);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    ot_bench_stages_read();
    set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set_callback)
        return 0;
    ot_session_add_device(initial_device_num, "host");
    REGISTER(ompt_callback_thread_begin, on_thread_begin);
    REGISTER(ompt_callback_thread_end, on_thread_end);
    REGISTER(ompt_callback_device_initialize, on_device_initialize);
    REGISTER(ompt_callback_device_load, on_device_load);
    REGISTER(ompt_callback_device_finalize, on_device_finalize);
    REGISTER(ompt_callback_target_emi, on_target_emi);
    REGISTER(ompt_callback_target_data_op_emi, on_data_op_emi);
    REGISTER(ompt_callback_target_submit_emi, on_submit_emi);
    ot_device_link_open(); /* before the chained tool: it decides what that tool is refused */
    if (host_openmp_level)
        register_host_openmp();
    ot_recording = 1;
    get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    ot_measurement_init(probe_regions, !start_paused); /* a start paused writes its switch: after ot_recording */
    REGISTER(ompt_callback_control_tool, on_control_tool);
    if (ot_stream_start_preparer(ot_the_session.background_writeback) != 0 && ot_the_session.verbose > 1)
        fprintf(stderr, "offtrace: no chunk preparer or writer thread; callbacks will fault in fresh "
                        "pages or write to disk themselves\n");
    ot_exit_path_arm();
    ot_user_binding_attach(); /* the program's own words, if it has libofftrace-user.so (user_binding.c) */
    ot_mpi_binding_attach(); /* MPI calls, if libofftrace-mpi.so is in the process (issue 16) */
    ot_map_capture_attach(); /* map entries, if libofftrace-capture.so is preloaded (issue 15) */
    ot_chain_initialize(lookup, initial_device_num); /* the user's own tool, if any (tool_chain.h) */
    /* Two pairs a millisecond apart give the tick rate even if the program
     * dies before any other pair is taken. The millisecond is most often
     * past by now (OpenMP's start-up, a device collector's calibration);
     * else the first record waits for the rest (stream.c), not start-up. */
    ot_session_rate_pair(0);
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
    ot_chain_finalize();
    ot_user_binding_detach();
    ot_mpi_binding_detach();
    ot_exit_path_run();
}

OT_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                    const char *runtime_version)
{
    static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
    ot_config cfg;
    char err[512];
    if (ot_config_from_env(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    if (cfg.warning[0])
        fprintf(stderr, "%s\n", cfg.warning);
    if (!cfg.enabled)
        return NULL;
    host_openmp_level = cfg.host_openmp;
    start_paused = cfg.start_paused;
    ot_chain_keep_host_openmp(host_openmp_level);
    ot_clock_init();
    if (ot_session_open(&cfg, err, sizeof err) != 0) {
        if (err[0]) /* empty: another process records here (an ancestor, or this pid before an exec), noted */
            fprintf(stderr, "%s\n", err);
        return NULL;
    }
    ot_session_set_status("recording");
    ot_session_clock_pair(); /* the second, for the tick rate, at the end of tool_initialize */
    ot_session_snapshot_maps();
    ot_exit_path_prepare(cfg.output_preclaimed);
    if (!cfg.output_preclaimed) {
        ot_convert_process_prepare(ot_the_session.dir, ot_the_session.keep_raw);
        ot_crash_install(ot_the_session.dir);
    }
    ot_fork_child_install();
    ot_chain_start(omp_version, runtime_version);
    ot_filter_record_open(cfg.filter); /* OFFTRACE_FILTER, before the user API attaches (filter_record.h) */
    return &result;
}

/**
 * \file tool.c
 * \brief The OMPT tool: registration, the target callbacks (hot path) and
 *        the exit path that ends the recording (and, without `offtrace
 *        record`, has it converted in a helper process).
 *
 * Every callback is: read the clock, reserve a slot in the thread's stream,
 * build the record on the stack, store it into the slot (event byte last).
 * Data operations and submits keep their begin in the stream header's
 * pending slot and are written once, as a COMPLETE record, at their end
 * (raw_format.h). No lock, no allocation, no I/O, except on the slow path
 * of ot_stream_reserve when a chunk is full. Nothing here calls back into
 * OpenMP, so no recursion guard is needed.
 */
#define _GNU_SOURCE
#include <omp-tools.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "offtrace/offtrace.h"
#include "convert_process.h"
#include "lineage.h"
#include "crash.h"
#include "device_link.h"
#include "session.h"
#include "stream.h"
#include "tool_chain.h"

#define OT_EXPORT __attribute__((visibility("default")))

static ompt_set_callback_t set_callback;

#ifdef OT_BENCH_STAGES
/* Only in tests/bench's libofftrace_bench_stages.so: OFFTRACE_BENCH_STAGE
 * stops every target callback after a stage of the work, so that the
 * benchmark can tell what each stage costs inside a real target region
 * (tests/bench/run_stages.sh). 1: return at once; 2: read the clock;
 * 3: read the clock and store a record into a small per-thread ring that
 * stays in cache; unset: the whole recording. */
static int bench_stage;
static __thread offtrace_raw_record bench_ring[64] __attribute__((aligned(64)));
static __thread unsigned bench_next;
static volatile uint64_t bench_sink;
#define BENCH_STAGE_HOOK()                                                                   \
    do {                                                                                     \
        if (bench_stage == 1)                                                                \
            return;                                                                          \
        if (bench_stage == 2) {                                                              \
            bench_sink = ot_clock_ticks();                                                   \
            return;                                                                          \
        }                                                                                    \
        if (bench_stage == 3) {                                                              \
            offtrace_raw_record r = {.time = ot_clock_ticks(), .event = OFFTRACE_RAW_TARGET}; \
            ot_stream_store(&bench_ring[bench_next++ & 63], &r);                             \
            return;                                                                          \
        }                                                                                    \
    } while (0)
#define BENCH_STAGE_READ() (bench_stage = getenv("OFFTRACE_BENCH_STAGE") ? atoi(getenv("OFFTRACE_BENCH_STAGE")) : 0)
/* For bench_target_loop's `stages`: switch the stage between blocks. */
OT_EXPORT void offtrace_bench_set_stage(int stage)
{
    bench_stage = stage;
}
#else
#define BENCH_STAGE_HOOK() ((void)0)
#define BENCH_STAGE_READ() ((void)0)
#endif
/* The device of the target construct this thread is in: submits do not say. */
static OT_TLS int current_target_device = -1;
static int finalized; /* atomic: the exit path runs once */
static pid_t recording_pid; /* the process whose recording this is (not a forked child) */
static int output_claimed;  /* under `offtrace record`, which converts after the program */

/* A forked child shares the parent's record files (shared mappings) and
 * would run the parent's exit path: it records nothing and converts nothing.
 * Only the forking thread exists in the child, so clearing its stream
 * pointer is enough. */
static void on_fork_child(void)
{
    ot_recording = 0;
    ot_stream_current = NULL;
    ot_device_link_attached = 0; /* the collector's files are the parent's too */
    ot_device_link_wants_operations = 0;
    __atomic_store_n(&finalized, 1, __ATOMIC_RELEASE);
}

static void on_thread_begin(ompt_thread_t kind, ompt_data_t *thread_data)
{
    ot_thread_kind = (uint32_t)kind;
    ot_crash_thread_begin(); /* a stack for the crash handler: this thread may overflow its own */
}

static void on_thread_end(ompt_data_t *thread_data)
{
    ot_stream_close_current();
    ot_crash_thread_end();
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra)
{
    BENCH_STAGE_HOOK();
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve();
    if (endpoint == ompt_scope_begin) {
        target_data->value = ot_stream_new_id();
        current_target_device = device_num;
    }
    offtrace_raw_record r = {
        .time = now,
        .id = target_data->value,
        .target_id = target_data->value,
        .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
        .dst_device = (int16_t)device_num,
        .subkind = (uint8_t)kind,
        .endpoint = (uint8_t)endpoint,
        .event = OFFTRACE_RAW_TARGET,
    };
    ot_stream_store(slot, &r);
    if (ot_device_link_has(device_num)) {
        if (endpoint == ompt_scope_begin)
            ot_device_link_target_begin(device_num, target_data->value, (int)kind);
        else
            ot_device_link_target_end(device_num, target_data->value, (int)kind);
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

static void on_data_op_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                           ompt_data_t *target_data, ompt_id_t *host_op_id,
                           ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                           void *dest_addr, int dest_device_num, size_t bytes,
                           const void *codeptr_ra)
{
    BENCH_STAGE_HOOK();
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *begin_slot = operation_begin_slot(endpoint, host_op_id);
    uint64_t target_id = target_data ? target_data->value : 0;
    offtrace_raw_record r = {
        .time = now,
        .id = *host_op_id,
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
    put_operation(begin_slot, &r);
    if (__builtin_expect(ot_device_link_wants_operations != 0, 0))
        mark_operation(ot_device_link_has(dest_device_num) ? dest_device_num : src_device_num, endpoint,
                       target_id, *host_op_id);
}

static void on_submit_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                          ompt_id_t *host_op_id, unsigned int requested_num_teams)
{
    BENCH_STAGE_HOOK();
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *begin_slot = operation_begin_slot(endpoint, host_op_id);
    uint64_t target_id = target_data ? target_data->value : 0;
    offtrace_raw_record r = {
        .time = now,
        .id = *host_op_id,
        .target_id = target_id,
        .bytes = requested_num_teams,
        .endpoint = (uint8_t)endpoint,
        .flags = target_id ? OFFTRACE_RAW_FLAG_IN_CONSTRUCT : 0,
        .event = OFFTRACE_RAW_SUBMIT,
    };
    put_operation(begin_slot, &r);
    if (__builtin_expect(ot_device_link_wants_operations != 0, 0))
        mark_operation(current_target_device, endpoint, target_id, *host_op_id);
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *documentation)
{
    ot_session_add_device(device_num, type);
    ot_session_clock_pair();
    ot_device_link_attach(device_num, type, device, lookup);
}

static void on_device_load(int device_num, const char *filename, int64_t offset_in_file,
                           void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
                           uint64_t module_id)
{
    /* Code may have been loaded since start-up: refresh the address map. */
    ot_session_snapshot_maps();
}

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

/* Without the CLI: the archive must exist when the program has exited, but
 * the converter's memory and failures must not be the program's, so it runs
 * in a process of its own (convert_process.h) and the program waits for it. */
static void convert_in_helper_process(void)
{
    const char *dir = ot_the_session.dir;
    switch (ot_convert_process_run(NULL, 0)) {
    case OT_CONVERTED:
        if (ot_the_session.verbose)
            fprintf(stderr, "offtrace: trace written to %s/%s.otf2\n", dir, OFFTRACE_ARCHIVE_NAME);
        break;
    case OT_CONVERT_NOT_STARTED:
        fprintf(stderr, "offtrace: no converter could be started (%s); the recording is kept: run `offtrace "
                        "convert %s`\n", ot_convert_process_cli(), dir);
        break;
    case OT_CONVERT_TIMED_OUT:
        fprintf(stderr, "offtrace: converting the recording took longer than %d s and was stopped; it is kept: "
                        "run `offtrace convert %s`\n", OT_CONVERT_PROCESS_SECONDS, dir);
        break;
    case OT_CONVERT_DIED:
        fprintf(stderr, "offtrace: the converter died; the recording is kept: run `offtrace convert %s`\n", dir);
        break;
    case OT_CONVERT_FAILED:     /* it said why */
    case OT_CONVERT_ALREADY_RUN: /* by the crash handler */
        break;
    }
}

/* Ends the recording once, from whichever exit path comes first, in the
 * recording process only. Everything the converter needs is in raw/ after
 * this; status "recorded" tells it the recording is complete. */
static void finish_recording(void)
{
    if (getpid() != recording_pid || __atomic_exchange_n(&finalized, 1, __ATOMIC_ACQ_REL))
        return;
    ot_device_link_finish();
    ot_recording = 0;
    ot_stream_stop_preparer();
    ot_session_clock_pair();
    ot_session_snapshot_maps();
    ot_session_set_status("recorded");
    if (!output_claimed) {
        /* Under record, record says it after the program. */
        ot_lineage_report_untraced(ot_the_session.dir, getpid(), NULL, 0, stderr);
        convert_in_helper_process();
    }
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    BENCH_STAGE_READ();
    set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set_callback)
        return 0;
    ot_session_add_device(initial_device_num, "host");
    REGISTER(ompt_callback_thread_begin, on_thread_begin);
    REGISTER(ompt_callback_thread_end, on_thread_end);
    REGISTER(ompt_callback_device_initialize, on_device_initialize);
    REGISTER(ompt_callback_device_load, on_device_load);
    REGISTER(ompt_callback_target_emi, on_target_emi);
    REGISTER(ompt_callback_target_data_op_emi, on_data_op_emi);
    REGISTER(ompt_callback_target_submit_emi, on_submit_emi);
    ot_device_link_open(lookup);
    ot_recording = 1;
    if (ot_stream_start_preparer(ot_the_session.background_writeback) != 0 && ot_the_session.verbose > 1)
        fprintf(stderr, "offtrace: no chunk preparer or writer thread; callbacks will fault in fresh "
                        "pages or write to disk themselves\n");
    atexit(finish_recording);
    ot_chain_initialize(lookup, initial_device_num); /* the user's own tool, if any (tool_chain.h) */
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
    ot_chain_finalize();
    finish_recording();
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
    if (!cfg.enabled)
        return NULL;
    ot_clock_init();
    if (ot_session_open(&cfg, err, sizeof err) != 0) {
        if (err[0]) /* empty: another process records here (an ancestor, or this pid before an exec), noted */
            fprintf(stderr, "%s\n", err);
        return NULL;
    }
    ot_session_set_status("recording");
    ot_session_clock_pair();
    /* Two pairs a millisecond apart give the tick rate even if the program
     * dies before any other pair is taken. */
    uint64_t start = ot_clock_monotonic_ns();
    while (ot_clock_monotonic_ns() - start < 1000000u)
        ;
    ot_session_clock_pair();
    ot_session_snapshot_maps();
    recording_pid = getpid();
    output_claimed = cfg.output_preclaimed;
    if (!output_claimed) {
        ot_convert_process_prepare(ot_the_session.dir, ot_the_session.keep_raw);
        ot_crash_install(ot_the_session.dir);
    }
    pthread_atfork(NULL, NULL, on_fork_child);
    ot_chain_start(omp_version, runtime_version);
    return &result;
}

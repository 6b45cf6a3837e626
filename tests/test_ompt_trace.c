/* The OMPT device-tracing backend (device/ompt_trace) against a fake device
 * runtime that implements the tracing entry points and hands back the
 * records a test scripted, the way OpenMP 5.x describes it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ompt_trace/ompt_trace.h"
#include "ompt_trace/ompt_trace_batch.h"
#include "ompt_trace/ompt_trace_device.h"
#include "ompt_trace/ompt_trace_targets.h"
#include "ompt_trace/ompt_trace_translate.h"

/* ------------------------------------------------------------------------
 * Allocation seams: the test binary links with --wrap=malloc/realloc/free,
 * so the backend's allocations pass through here. That is how the fake
 * learns which lent buffers the backend freed, and how a test makes memory
 * run out. The test's own bookkeeping uses the __real_ functions.
 */
void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

#define MAX_LENT 64

static struct {
    size_t fail_malloc_of;  /* malloc of exactly this many bytes fails (0: none) */
    int fail_all_mallocs;
    int fail_reallocs;
    void *lent[MAX_LENT];   /* buffers handed to the runtime, not yet freed */
    int requests;           /* buffer requests the fake made */
    int freed_by_backend;   /* lent buffers the backend freed */
} mem;

void *__wrap_malloc(size_t n)
{
    if (mem.fail_all_mallocs || (mem.fail_malloc_of && n == mem.fail_malloc_of))
        return NULL;
    return __real_malloc(n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return mem.fail_reallocs ? NULL : __real_realloc(p, n);
}

void __wrap_free(void *p)
{
    for (int i = 0; p && i < MAX_LENT; i++) {
        if (mem.lent[i] == p) {
            mem.lent[i] = NULL;
            mem.freed_by_backend++;
        }
    }
    __real_free(p);
}

static void lend(void *buffer)
{
    for (int i = 0; i < MAX_LENT; i++) {
        if (!mem.lent[i]) {
            mem.lent[i] = buffer;
            return;
        }
    }
    cr_assert_fail("more than %d buffers outstanding", MAX_LENT);
}

static int outstanding(void)
{
    int n = 0;
    for (int i = 0; i < MAX_LENT; i++)
        n += mem.lent[i] != NULL;
    return n;
}

/* ------------------------------------------------------------------------
 * What the collector core provides: delivered records are captured.
 */
static struct {
    offtrace_device_record *records;
    int *device;
    size_t count, capacity;
    int calls;
    size_t call_start[64]; /* index of the first record of each call */
} captured;

void ot_dev_deliver(ot_dev_device *d, const offtrace_device_record *records, size_t count)
{
    if (captured.count + count > captured.capacity) {
        captured.capacity = (captured.count + count) * 2;
        captured.records = __real_realloc(captured.records, captured.capacity * sizeof *records);
        captured.device = __real_realloc(captured.device, captured.capacity * sizeof(int));
        cr_assert(captured.records && captured.device);
    }
    if (captured.calls < 64)
        captured.call_start[captured.calls] = captured.count;
    captured.calls++;
    for (size_t i = 0; i < count; i++) {
        captured.records[captured.count] = records[i];
        captured.device[captured.count++] = d->num;
    }
}

int ot_dev_verbose(void)
{
    return 0;
}

/* ------------------------------------------------------------------------
 * The fake device runtime. The device handle is the fake_device itself;
 * cursors are byte offsets into a buffer.
 */
#define NATIVE_MARK 0x6e617469u /* a record with this thread_id reads as native */

typedef struct fake_device {
    int num;
    uint64_t traceable;          /* event types set_trace_ompt accepts (bit = type) */
    ompt_set_result_t refusal;   /* its answer for the others */
    int start_result;            /* ompt_start_trace's answer (1 = success) */
    int owned;                   /* 1: buffers given up; 0: handed over in two parts, kept */
    size_t per_buffer;           /* records per buffer; 0: as many as fit */
    uint64_t enabled;            /* event types enabled now */
    unsigned set_log[32][2];     /* (etype, enable) of each set_trace_ompt call */
    int set_calls, starts, flushes, stops;
    ompt_callback_buffer_request_t request;
    ompt_callback_buffer_complete_t complete;
    ompt_record_ompt_t *script;  /* handed over at the next flush */
    size_t scripted, script_capacity;
    size_t dropped;              /* scripted records no buffer could take */
    ompt_device_time_t clock;
} fake_device;

static fake_device fake_new(int num)
{
    fake_device f;
    memset(&f, 0, sizeof f);
    f.num = num;
    f.traceable = (1ull << ompt_callback_target) | (1ull << ompt_callback_target_data_op) |
                  (1ull << ompt_callback_target_submit) | (1ull << ompt_callback_target_emi) |
                  (1ull << ompt_callback_target_data_op_emi) | (1ull << ompt_callback_target_submit_emi);
    f.refusal = ompt_set_never;
    f.start_result = 1;
    f.owned = 1;
    return f;
}

static ompt_set_result_t fake_set_trace_ompt(ompt_device_t *device, unsigned int enable, unsigned int etype)
{
    fake_device *f = device;
    cr_assert_lt(f->set_calls, 32);
    f->set_log[f->set_calls][0] = etype;
    f->set_log[f->set_calls][1] = enable;
    f->set_calls++;
    if (!(f->traceable & (1ull << etype)))
        return f->refusal;
    if (enable)
        f->enabled |= 1ull << etype;
    else
        f->enabled &= ~(1ull << etype);
    return ompt_set_always;
}

static int fake_start_trace(ompt_device_t *device, ompt_callback_buffer_request_t request,
                            ompt_callback_buffer_complete_t complete)
{
    fake_device *f = device;
    f->starts++;
    if (f->start_result) {
        f->request = request;
        f->complete = complete;
    }
    return f->start_result;
}

/* Hand one filled buffer back: whole and given up, or in two parts and kept. */
static void hand_over(fake_device *f, ompt_buffer_t *buffer, size_t n)
{
    const size_t rec = sizeof(ompt_record_ompt_t);
    if (f->owned) {
        f->complete(f->num, buffer, n * rec, 0, 1);
        return;
    }
    size_t first = n / 2;
    if (first)
        f->complete(f->num, buffer, first * rec, 0, 0);
    f->complete(f->num, buffer, n * rec, first * rec, 0);
    for (int i = 0; i < MAX_LENT; i++)
        if (mem.lent[i] == buffer)
            mem.lent[i] = NULL;
    __real_free(buffer);
}

static void hand_over_script(fake_device *f)
{
    size_t next = 0;
    while (next < f->scripted) {
        ompt_buffer_t *buffer = NULL;
        size_t bytes = 0;
        f->request(f->num, &buffer, &bytes);
        mem.requests++;
        size_t fit = buffer ? bytes / sizeof(ompt_record_ompt_t) : 0;
        if (fit == 0) {
            f->dropped += f->scripted - next;
            break;
        }
        lend(buffer);
        if (f->per_buffer && fit > f->per_buffer)
            fit = f->per_buffer;
        size_t n = f->scripted - next < fit ? f->scripted - next : fit;
        memcpy(buffer, &f->script[next], n * sizeof(ompt_record_ompt_t));
        hand_over(f, buffer, n);
        next += n;
    }
    f->scripted = 0;
}

static int fake_flush_trace(ompt_device_t *device)
{
    fake_device *f = device;
    f->flushes++;
    if (f->request)
        hand_over_script(f);
    return 1;
}

static int fake_stop_trace(ompt_device_t *device)
{
    fake_device *f = device;
    f->stops++;
    if (f->request)
        hand_over_script(f);
    f->request = NULL;
    f->complete = NULL;
    return 1;
}

static int fake_advance_buffer_cursor(ompt_device_t *device, ompt_buffer_t *buffer, size_t size,
                                      ompt_buffer_cursor_t current, ompt_buffer_cursor_t *next)
{
    (void)device;
    (void)buffer;
    if (current + 2 * sizeof(ompt_record_ompt_t) > size)
        return 0;
    *next = current + sizeof(ompt_record_ompt_t);
    return 1;
}

static ompt_record_ompt_t *fake_get_record_ompt(ompt_buffer_t *buffer, ompt_buffer_cursor_t current)
{
    return (ompt_record_ompt_t *)((char *)buffer + current);
}

static ompt_record_t fake_get_record_type(ompt_buffer_t *buffer, ompt_buffer_cursor_t current)
{
    return fake_get_record_ompt(buffer, current)->thread_id == NATIVE_MARK ? ompt_record_native
                                                                            : ompt_record_ompt;
}

static ompt_device_time_t fake_get_device_time(ompt_device_t *device)
{
    return ((fake_device *)device)->clock;
}

static const struct {
    const char *name;
    ompt_interface_fn_t fn;
} fake_entries[] = {
    {"ompt_set_trace_ompt", (ompt_interface_fn_t)fake_set_trace_ompt},
    {"ompt_start_trace", (ompt_interface_fn_t)fake_start_trace},
    {"ompt_flush_trace", (ompt_interface_fn_t)fake_flush_trace},
    {"ompt_stop_trace", (ompt_interface_fn_t)fake_stop_trace},
    {"ompt_advance_buffer_cursor", (ompt_interface_fn_t)fake_advance_buffer_cursor},
    {"ompt_get_record_type", (ompt_interface_fn_t)fake_get_record_type},
    {"ompt_get_record_ompt", (ompt_interface_fn_t)fake_get_record_ompt},
    {"ompt_get_device_time", (ompt_interface_fn_t)fake_get_device_time},
};

static const char *hidden_entry; /* the fake's lookup pretends not to know it */

static ompt_interface_fn_t fake_lookup(const char *name)
{
    if (hidden_entry && strcmp(name, hidden_entry) == 0)
        return NULL;
    for (size_t i = 0; i < sizeof fake_entries / sizeof fake_entries[0]; i++)
        if (strcmp(name, fake_entries[i].name) == 0)
            return fake_entries[i].fn;
    return NULL;
}

/* What LLVM 19's libomptarget answers. */
static ompt_interface_fn_t null_lookup(const char *name)
{
    (void)name;
    return NULL;
}

/* ------------------------------------------------------------------------
 * Scripting records.
 */
#define CODE_TARGET 0x401000u
#define CODE_MAP 0x402000u

static ompt_record_ompt_t *script(fake_device *f, ompt_callbacks_t type, uint64_t runtime_target,
                                  uint64_t time)
{
    if (f->scripted == f->script_capacity) {
        f->script_capacity = f->script_capacity ? 2 * f->script_capacity : 64;
        f->script = __real_realloc(f->script, f->script_capacity * sizeof *f->script);
        cr_assert(f->script);
    }
    ompt_record_ompt_t *r = &f->script[f->scripted++];
    memset(r, 0, sizeof *r);
    r->type = type;
    r->time = time;
    r->thread_id = 1;
    r->target_id = runtime_target;
    return r;
}

static void script_target(fake_device *f, uint64_t runtime_id, ompt_target_t kind,
                          ompt_scope_endpoint_t endpoint, uint64_t time)
{
    ompt_record_ompt_t *r = script(f, ompt_callback_target_emi, runtime_id, time);
    r->record.target.kind = kind;
    r->record.target.endpoint = endpoint;
    r->record.target.device_num = f->num;
    r->record.target.target_id = runtime_id;
    r->record.target.codeptr_ra = (const void *)(uintptr_t)CODE_TARGET;
}

static ompt_record_ompt_t *script_kernel(fake_device *f, uint64_t runtime_id, uint64_t begin,
                                         uint64_t end, uint64_t op, unsigned teams)
{
    ompt_record_ompt_t *r = script(f, ompt_callback_target_submit_emi, runtime_id, begin);
    r->record.target_kernel.host_op_id = op;
    r->record.target_kernel.requested_num_teams = teams;
    r->record.target_kernel.granted_num_teams = teams / 2;
    r->record.target_kernel.end_time = end;
    return r;
}

static void script_data_op(fake_device *f, uint64_t runtime_id, ompt_target_data_op_t optype,
                           uint64_t begin, uint64_t end, size_t bytes, uint64_t op)
{
    ompt_record_ompt_t *r = script(f, ompt_callback_target_data_op_emi, runtime_id, begin);
    r->record.target_data_op.host_op_id = op;
    r->record.target_data_op.optype = optype;
    r->record.target_data_op.bytes = bytes;
    r->record.target_data_op.end_time = end;
    r->record.target_data_op.codeptr_ra = (const void *)(uintptr_t)CODE_MAP;
}

/* ------------------------------------------------------------------------
 * Checking.
 */
#define WANT(...) ((offtrace_device_record){.thread = 0, .flags = OFFTRACE_DEVICE_FLAG_STREAM, __VA_ARGS__})

static void expect(size_t i, offtrace_device_record want)
{
    /* A kernel's expected .value is its requested teams: the grid of its BEGIN
     * record (collector.h); its END carries no launch configuration from OMPT. */
    if (want.kind == OFFTRACE_DEVICE_KERNEL && want.endpoint == OFFTRACE_DEVICE_BEGIN)
        want.value = offtrace_kernel_grid((uint32_t)want.value, 1, 1);
    else if (want.kind == OFFTRACE_DEVICE_KERNEL)
        want.value = want.codeptr = 0;
    cr_assert_lt(i, captured.count, "record %zu missing (%zu delivered)", i, captured.count);
    const offtrace_device_record *got = &captured.records[i];
    cr_assert_eq(got->kind, want.kind, "record %zu: kind %u, want %u", i, got->kind, want.kind);
    cr_assert_eq(got->endpoint, want.endpoint, "record %zu: endpoint", i);
    cr_assert_eq(got->time, want.time, "record %zu: time %llu, want %llu", i,
                 (unsigned long long)got->time, (unsigned long long)want.time);
    cr_assert_eq(got->target_id, want.target_id, "record %zu: target id %llu, want %llu", i,
                 (unsigned long long)got->target_id, (unsigned long long)want.target_id);
    cr_assert_eq(got->op_id, want.op_id, "record %zu: op id", i);
    cr_assert_eq(got->codeptr, want.codeptr, "record %zu: codeptr", i);
    cr_assert_eq(got->value, want.value, "record %zu: value", i);
    cr_assert_eq(got->subkind, want.subkind, "record %zu: subkind", i);
    cr_assert_eq(got->thread, want.thread, "record %zu: thread", i);
    cr_assert_eq(got->flags, want.flags, "record %zu: flags", i);
}

static void expect_time_order(size_t from, size_t to)
{
    for (size_t i = from + 1; i < to; i++)
        cr_assert_geq(captured.records[i].time, captured.records[i - 1].time, "record %zu out of order", i);
}

static void attach_ok(ot_dev_device *d, fake_device *f)
{
    cr_assert_eq(ot_ompt_trace_backend.attach(d, "fake", f, fake_lookup), 0);
    cr_assert_not_null(d->state);
}

static void detach(ot_dev_device *d, fake_device *f)
{
    ot_ompt_trace_backend.detach(d);
    __real_free(f->script);
    f->script = NULL;
}

#define KERNEL OFFTRACE_DEVICE_KERNEL
#define MEMCPY OFFTRACE_DEVICE_MEMCPY
#define BEGIN OFFTRACE_DEVICE_BEGIN
#define END OFFTRACE_DEVICE_END
#define H2D OFFTRACE_COPY_HOST_TO_DEVICE
#define D2H OFFTRACE_COPY_DEVICE_TO_HOST

/* ------------------------------------------------------------------------
 * Layout facts the backend relies on.
 */
Test(ompt_trace, layout_facts)
{
    cr_assert_eq(sizeof(offtrace_device_record), 48);
    /* Event types are bits of a 64-bit mask. */
    cr_assert_eq(ompt_callback_target, 8);
    cr_assert_eq(ompt_callback_target_data_op, 9);
    cr_assert_eq(ompt_callback_target_submit, 10);
    cr_assert_eq(ompt_callback_target_emi, 33);
    cr_assert_eq(ompt_callback_target_data_op_emi, 34);
    cr_assert_eq(ompt_callback_target_submit_emi, 35);
    /* The answers of set_trace_ompt that mean "records will come". */
    cr_assert_eq(ompt_set_sometimes, 3);
    cr_assert_eq(ompt_set_sometimes_paired, 4);
    cr_assert_eq(ompt_set_always, 5);
    /* Pairing compares construct kinds without the nowait variant. */
    cr_assert_eq(ompt_target_nowait, ompt_target + 8);
    cr_assert_eq(ompt_target_enter_data_nowait, ompt_target_enter_data + 8);
    cr_assert_eq(ompt_target_exit_data_nowait, ompt_target_exit_data + 8);
    cr_assert_eq(ompt_target_update_nowait, ompt_target_update + 8);
    /* Times, ids, team counts and byte counts fit the device record. */
    ompt_record_ompt_t r;
    cr_assert_eq(sizeof r.time, sizeof(uint64_t));
    cr_assert_eq(sizeof r.target_id, sizeof(uint64_t));
    cr_assert_eq(sizeof r.record.target_kernel.end_time, sizeof(uint64_t));
    cr_assert_leq(sizeof r.record.target_kernel.requested_num_teams, sizeof(uint64_t));
    cr_assert_leq(sizeof r.record.target_data_op.bytes, sizeof(uint64_t));
    /* A lent buffer holds a useful number of records (104 bytes each here). */
    cr_assert_geq(OT_OMPT_TRACE_BUFFER_BYTES / sizeof(ompt_record_ompt_t), 2000);
}

/* ------------------------------------------------------------------------
 * attach: detection and set-up.
 */
Test(ompt_trace, backend_identity)
{
    cr_assert_str_eq(ot_ompt_trace_backend.name, "ompt-trace");
    cr_assert_eq(ot_ompt_trace_backend.wants_operations, 0);
    cr_assert_null(ot_ompt_trace_backend.operation_begin);
    cr_assert_null(ot_ompt_trace_backend.operation_end);
}

Test(ompt_trace, no_lookup_is_not_supported)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    cr_assert_eq(ot_ompt_trace_backend.attach(&d, "fake", &f, NULL), -ENOTSUP);
    cr_assert_null(d.state);
}

Test(ompt_trace, lookup_without_tracing_is_not_supported)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    cr_assert_eq(ot_ompt_trace_backend.attach(&d, "generic-64bit", &f, null_lookup), -ENOTSUP);
    cr_assert_null(d.state);
    cr_assert_eq(f.set_calls + f.starts, 0);
}

Test(ompt_trace, any_required_entry_missing_is_not_supported)
{
    static const char *required[] = {"ompt_start_trace", "ompt_set_trace_ompt", "ompt_flush_trace",
                                     "ompt_advance_buffer_cursor", "ompt_get_record_ompt",
                                     "ompt_get_device_time"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        fake_device f = fake_new(0);
        ot_dev_device d = {.num = 0};
        hidden_entry = required[i];
        cr_assert_eq(ot_ompt_trace_backend.attach(&d, "fake", &f, fake_lookup), -ENOTSUP, "without %s",
                     required[i]);
        cr_assert_eq(f.set_calls + f.starts, 0, "without %s", required[i]);
    }
}

Test(ompt_trace, optional_entries_may_be_missing)
{
    static const char *optional[] = {"ompt_stop_trace", "ompt_get_record_type"};
    for (size_t i = 0; i < 2; i++) {
        fake_device f = fake_new(0);
        ot_dev_device d = {.num = 0};
        hidden_entry = optional[i];
        attach_ok(&d, &f);
        script_kernel(&f, 0, 10, 20, 1, 4);
        cr_assert_eq(ot_ompt_trace_backend.flush(&d), 2, "without %s", optional[i]);
        detach(&d, &f);
        cr_assert_eq(f.stops, i == 0 ? 0 : 1);
        if (i == 0)
            cr_assert_eq(f.enabled, 0, "without ompt_stop_trace, detach disables the events");
    }
}

Test(ompt_trace, attach_enables_emi_events_and_starts)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    cr_assert_eq(f.set_calls, 3);
    unsigned want[3] = {ompt_callback_target_emi, ompt_callback_target_data_op_emi,
                        ompt_callback_target_submit_emi};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(f.set_log[i][0], want[i], "call %d: event type %u", i, f.set_log[i][0]);
        cr_assert_eq(f.set_log[i][1], 1);
    }
    cr_assert_eq(f.starts, 1);
    cr_assert_not_null(f.request);
    cr_assert_not_null(f.complete);
    detach(&d, &f);
}

Test(ompt_trace, attach_falls_back_to_plain_events)
{
    fake_device f = fake_new(0);
    f.traceable = (1ull << ompt_callback_target) | (1ull << ompt_callback_target_data_op) |
                  (1ull << ompt_callback_target_submit);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    cr_assert_eq(f.set_calls, 6);
    cr_assert_eq(f.enabled, f.traceable);
    detach(&d, &f);
}

Test(ompt_trace, error_never_and_impossible_mean_no_records)
{
    static const ompt_set_result_t refusals[] = {ompt_set_error, ompt_set_never, ompt_set_impossible};
    for (size_t i = 0; i < 3; i++) {
        fake_device f = fake_new(0);
        f.traceable = 1ull << ompt_callback_target_submit;
        f.refusal = refusals[i];
        ot_dev_device d = {.num = 0};
        attach_ok(&d, &f);
        cr_assert_eq(f.enabled, 1ull << ompt_callback_target_submit, "refusal %d", (int)refusals[i]);
        detach(&d, &f);
    }
}

Test(ompt_trace, targets_alone_are_not_enough)
{
    fake_device f = fake_new(0);
    f.traceable = (1ull << ompt_callback_target) | (1ull << ompt_callback_target_emi);
    ot_dev_device d = {.num = 0};
    cr_assert_eq(ot_ompt_trace_backend.attach(&d, "fake", &f, fake_lookup), -ENOTSUP);
    cr_assert_eq(f.starts, 0);
    cr_assert_eq(f.enabled, 0, "what was enabled must be disabled again");
}

Test(ompt_trace, failed_start_is_not_supported_and_frees_the_slot)
{
    fake_device f = fake_new(0);
    f.start_result = 0;
    ot_dev_device d = {.num = 0};
    cr_assert_eq(ot_ompt_trace_backend.attach(&d, "fake", &f, fake_lookup), -ENOTSUP);
    cr_assert_null(d.state);
    cr_assert_eq(f.enabled, 0);
    f.start_result = 1;
    attach_ok(&d, &f);
    detach(&d, &f);
}

Test(ompt_trace, device_numbers_outside_the_table)
{
    fake_device f = fake_new(OT_OMPT_TRACE_MAX_DEVICES);
    ot_dev_device d = {.num = OT_OMPT_TRACE_MAX_DEVICES};
    cr_assert_eq(ot_ompt_trace_backend.attach(&d, "fake", &f, fake_lookup), -ENOTSUP);
    d.num = -1;
    cr_assert_eq(ot_ompt_trace_backend.attach(&d, "fake", &f, fake_lookup), -ENOTSUP);
    cr_assert_eq(f.starts, 0);
}

Test(ompt_trace, same_device_twice_is_busy)
{
    fake_device f = fake_new(3), g = fake_new(3);
    ot_dev_device d = {.num = 3}, e = {.num = 3};
    attach_ok(&d, &f);
    cr_assert_eq(ot_ompt_trace_backend.attach(&e, "fake", &g, fake_lookup), -EBUSY);
    cr_assert_eq(g.starts, 0);
    cr_assert_eq(g.enabled, 0);
    detach(&d, &f);
}

/* ------------------------------------------------------------------------
 * flush: what reaches the host.
 */

/* One target: its begin, an allocation, a copy in, a kernel, a copy out, a
 * deletion and its end, as a runtime would record them. */
static void script_one_target(fake_device *f, uint64_t runtime_id, uint64_t t0, uint64_t op0)
{
    script_target(f, runtime_id, ompt_target, ompt_scope_begin, t0);
    script_data_op(f, runtime_id, ompt_target_data_alloc, t0 + 5, t0 + 9, 4000, op0);
    script_data_op(f, runtime_id, ompt_target_data_transfer_to_device, t0 + 10, t0 + 60, 4000, op0 + 1);
    script_kernel(f, runtime_id, t0 + 110, t0 + 410, op0 + 2, 8);
    script_data_op(f, runtime_id, ompt_target_data_transfer_from_device, t0 + 510, t0 + 550, 4000, op0 + 3);
    script_data_op(f, runtime_id, ompt_target_data_delete, t0 + 560, t0 + 570, 4000, op0 + 4);
    script_target(f, runtime_id, ompt_target, ompt_scope_end, t0 + 600);
}

static void expect_one_target(size_t at, uint64_t host_id, uint64_t t0, uint64_t op0)
{
    expect(at + 0, WANT(.time = t0 + 10, .target_id = host_id, .op_id = op0 + 1, .codeptr = CODE_MAP,
                        .value = 4000, .kind = MEMCPY, .subkind = H2D, .endpoint = BEGIN));
    expect(at + 1, WANT(.time = t0 + 60, .target_id = host_id, .op_id = op0 + 1, .codeptr = CODE_MAP,
                        .value = 4000, .kind = MEMCPY, .subkind = H2D, .endpoint = END));
    expect(at + 2, WANT(.time = t0 + 110, .target_id = host_id, .op_id = op0 + 2, .codeptr = CODE_TARGET,
                        .value = 8, .kind = KERNEL, .endpoint = BEGIN));
    expect(at + 3, WANT(.time = t0 + 410, .target_id = host_id, .op_id = op0 + 2, .codeptr = CODE_TARGET,
                        .value = 8, .kind = KERNEL, .endpoint = END));
    expect(at + 4, WANT(.time = t0 + 510, .target_id = host_id, .op_id = op0 + 3, .codeptr = CODE_MAP,
                        .value = 4000, .kind = MEMCPY, .subkind = D2H, .endpoint = BEGIN));
    expect(at + 5, WANT(.time = t0 + 550, .target_id = host_id, .op_id = op0 + 3, .codeptr = CODE_MAP,
                        .value = 4000, .kind = MEMCPY, .subkind = D2H, .endpoint = END));
}

Test(ompt_trace, flush_delivers_kernels_and_transfers)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    ot_ompt_trace_backend.target_begin(&d, 1001, ompt_target);
    ot_ompt_trace_backend.target_end(&d, 1001, ompt_target);
    script_one_target(&f, 77, 1000, 10);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 6);
    cr_assert_eq(f.flushes, 1);
    cr_assert_eq(captured.count, 6);
    cr_assert_eq(captured.calls, 1);
    cr_assert_eq(captured.device[0], 0);
    expect_one_target(0, 1001, 1000, 10);
    detach(&d, &f);
}

Test(ompt_trace, two_flushes_two_targets)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    ot_ompt_trace_backend.target_begin(&d, 1001, ompt_target);
    script_one_target(&f, 77, 1000, 10);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 6);
    ot_ompt_trace_backend.target_begin(&d, 1002, ompt_target_nowait);
    script_one_target(&f, 78, 5000, 20);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 6);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 0, "nothing new");
    cr_assert_eq(captured.count, 12);
    expect_one_target(0, 1001, 1000, 10);
    expect_one_target(6, 1002, 5000, 20);
    detach(&d, &f);
}

Test(ompt_trace, runtime_ids_pair_with_host_ids_by_kind_in_order)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    /* enter data (host 2001), target (2002), update that the runtime does
     * not record (2003), target (2004); then a runtime target nobody announced. */
    ot_ompt_trace_backend.target_begin(&d, 2001, ompt_target_enter_data);
    ot_ompt_trace_backend.target_begin(&d, 2002, ompt_target);
    ot_ompt_trace_backend.target_begin(&d, 2003, ompt_target_update);
    ot_ompt_trace_backend.target_begin(&d, 2004, ompt_target);
    script_target(&f, 5, ompt_target_enter_data, ompt_scope_begin, 100);
    script_data_op(&f, 5, ompt_target_data_transfer_to_device, 110, 120, 64, 1);
    script_target(&f, 6, ompt_target, ompt_scope_begin, 200);
    script_kernel(&f, 6, 210, 220, 2, 1);
    script_target(&f, 7, ompt_target, ompt_scope_begin, 300);
    script_kernel(&f, 7, 310, 320, 3, 1);
    script_target(&f, 8, ompt_target, ompt_scope_begin, 400);
    script_kernel(&f, 8, 410, 420, 4, 1);
    script_kernel(&f, 99, 510, 520, 5, 1); /* a target never seen */
    script_kernel(&f, 0, 610, 620, 6, 1);  /* no target id at all */
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 12);
    uint64_t want[6] = {2001, 2002, 2004, 0, 0, 0};
    for (size_t i = 0; i < 6; i++) {
        cr_assert_eq(captured.records[2 * i].op_id, i + 1);
        cr_assert_eq(captured.records[2 * i].target_id, want[i], "activity %zu: target %llu", i,
                     (unsigned long long)captured.records[2 * i].target_id);
        cr_assert_eq(captured.records[2 * i + 1].target_id, want[i]);
    }
    detach(&d, &f);
}

Test(ompt_trace, pairing_survives_a_flush_between_begin_and_records)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    ot_ompt_trace_backend.target_begin(&d, 3001, ompt_target);
    script_target(&f, 9, ompt_target, ompt_scope_begin, 100);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 0);
    script_kernel(&f, 9, 110, 120, 1, 1);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 2);
    cr_assert_eq(captured.records[0].target_id, 3001);
    detach(&d, &f);
}

Test(ompt_trace, records_are_delivered_in_time_order)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    /* In order of completion: copies B, C (zero length), D overlap kernel A. */
    script_data_op(&f, 0, ompt_target_data_transfer_to_device_async, 200, 300, 1, 'B');
    script_data_op(&f, 0, ompt_target_data_transfer_to_device_async, 300, 300, 1, 'C');
    script_data_op(&f, 0, ompt_target_data_transfer_from_device_async, 300, 400, 1, 'D');
    script_kernel(&f, 0, 100, 900, 'A', 1);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 8);
    static const struct {
        uint64_t time, op;
        int endpoint;
    } want[8] = {{100, 'A', BEGIN}, {200, 'B', BEGIN}, {300, 'B', END}, {300, 'C', BEGIN},
                 {300, 'C', END},   {300, 'D', BEGIN}, {400, 'D', END}, {900, 'A', END}};
    for (size_t i = 0; i < 8; i++) {
        cr_assert_eq(captured.records[i].time, want[i].time, "record %zu", i);
        cr_assert_eq(captured.records[i].op_id, want[i].op, "record %zu: op %c", i,
                     (char)captured.records[i].op_id);
        cr_assert_eq(captured.records[i].endpoint, want[i].endpoint, "record %zu", i);
    }
    cr_assert_eq(captured.records[6].subkind, D2H, "async directions count too");
    detach(&d, &f);
}

Test(ompt_trace, other_records_are_skipped)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    static const ompt_target_data_op_t no_data_moves[] = {
        ompt_target_data_alloc,        ompt_target_data_delete,      ompt_target_data_associate,
        ompt_target_data_disassociate, ompt_target_data_alloc_async, ompt_target_data_delete_async};
    for (size_t i = 0; i < sizeof no_data_moves / sizeof no_data_moves[0]; i++)
        script_data_op(&f, 0, no_data_moves[i], 10, 20, 8, i + 1);
    script(&f, ompt_callback_target_map_emi, 0, 30);
    script(&f, ompt_callback_parallel_begin, 0, 40);
    script_kernel(&f, 0, 50, 60, 7, 1)->thread_id = NATIVE_MARK;
    script_target(&f, 1, ompt_target, ompt_scope_end, 70);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 0);
    cr_assert_eq(captured.count, 0);
    detach(&d, &f);
}

/* ------------------------------------------------------------------------
 * Buffers: lent, read, given back.
 */
Test(ompt_trace, owned_buffers_are_freed)
{
    fake_device f = fake_new(0);
    f.per_buffer = 3; /* 3 targets of 7 records: 7 buffers */
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    for (uint64_t t = 0; t < 3; t++) {
        ot_ompt_trace_backend.target_begin(&d, 1001 + t, ompt_target);
        script_one_target(&f, 77 + t, 1000 * (t + 1), 10 * (t + 1));
    }
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 18);
    cr_assert_eq(mem.requests, 7);
    cr_assert_eq(mem.freed_by_backend, 7);
    cr_assert_eq(outstanding(), 0);
    cr_assert_eq(captured.calls, 1, "one sorted delivery per flush");
    for (uint64_t t = 0; t < 3; t++)
        expect_one_target(6 * t, 1001 + t, 1000 * (t + 1), 10 * (t + 1));
    detach(&d, &f);
}

Test(ompt_trace, buffers_not_owned_are_read_in_parts_and_kept)
{
    fake_device f = fake_new(0);
    f.owned = 0;
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    ot_ompt_trace_backend.target_begin(&d, 1001, ompt_target);
    script_one_target(&f, 77, 1000, 10);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 6);
    cr_assert_eq(mem.requests, 1);
    cr_assert_eq(mem.freed_by_backend, 0);
    expect_one_target(0, 1001, 1000, 10);
    detach(&d, &f);
}

Test(ompt_trace, empty_and_stray_buffers_are_freed_without_records)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    ompt_buffer_t *b = NULL;
    size_t bytes = 0;
    f.request(0, &b, &bytes);
    cr_assert_not_null(b);
    cr_assert_eq(bytes, OT_OMPT_TRACE_BUFFER_BYTES);
    lend(b);
    f.complete(0, b, 0, 0, 1);
    cr_assert_eq(mem.freed_by_backend, 1);
    /* A buffer for a device the backend does not trace. */
    ot_ompt_on_buffer_request(5, &b, &bytes);
    lend(b);
    memcpy(b, script_kernel(&f, 0, 1, 2, 3, 4), sizeof(ompt_record_ompt_t));
    f.scripted = 0;
    f.complete(5, b, sizeof(ompt_record_ompt_t), 0, 1);
    cr_assert_eq(mem.freed_by_backend, 2);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 0);
    cr_assert_eq(captured.count, 0);
    detach(&d, &f);
}

Test(ompt_trace, failed_buffer_request_lends_nothing)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    script_kernel(&f, 0, 10, 20, 1, 1);
    mem.fail_malloc_of = OT_OMPT_TRACE_BUFFER_BYTES;
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 0);
    mem.fail_malloc_of = 0;
    cr_assert_eq(f.dropped, 1);
    script_kernel(&f, 0, 30, 40, 2, 1);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 2);
    detach(&d, &f);
}

Test(ompt_trace, records_that_cannot_be_kept_are_reported_lost)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    script_kernel(&f, 0, 10, 20, 1, 1);
    script_data_op(&f, 0, ompt_target_data_transfer_to_device, 30, 40, 8, 2);
    f.clock = 12345;
    mem.fail_reallocs = 1;
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 1);
    mem.fail_reallocs = 0;
    cr_assert_eq(captured.count, 1);
    cr_assert_eq(captured.records[0].kind, OFFTRACE_DEVICE_LOST);
    cr_assert_eq(captured.records[0].endpoint, OFFTRACE_DEVICE_POINT);
    cr_assert_eq(captured.records[0].value, 4);
    cr_assert_eq(captured.records[0].time, 12345);
    cr_assert_eq(captured.records[0].flags, OFFTRACE_DEVICE_FLAG_STREAM);
    cr_assert_eq(mem.freed_by_backend, 1, "the buffer is freed all the same");
    script_kernel(&f, 0, 50, 60, 3, 1);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 2, "the loss is reported once");
    detach(&d, &f);
}

Test(ompt_trace, many_records_are_delivered_before_the_flush)
{
    const size_t kernels = OT_OMPT_TRACE_DELIVER_AT / 2 + 5000;
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    for (size_t i = 0; i < kernels; i++)
        script_kernel(&f, 0, 10 * i, 10 * i + 5, i + 1, 1);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), (long)(2 * kernels));
    cr_assert_eq(captured.count, 2 * kernels);
    cr_assert_geq(captured.calls, 2, "pending records are bounded");
    cr_assert_eq(mem.freed_by_backend, mem.requests);
    expect_time_order(0, captured.count);
    detach(&d, &f);
}

/* ------------------------------------------------------------------------
 * Clock, devices, detach.
 */
Test(ompt_trace, device_time_is_the_runtime_clock)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    f.clock = 123456789;
    cr_assert_eq(ot_ompt_trace_backend.device_time(&d), 123456789);
    f.clock = 987654321012ull;
    cr_assert_eq(ot_ompt_trace_backend.device_time(&d), 987654321012ull);
    detach(&d, &f);
}

Test(ompt_trace, devices_keep_their_records_apart)
{
    fake_device f = fake_new(0), g = fake_new(1);
    ot_dev_device d = {.num = 0}, e = {.num = 1};
    attach_ok(&d, &f);
    attach_ok(&e, &g);
    ot_ompt_trace_backend.target_begin(&d, 1001, ompt_target);
    ot_ompt_trace_backend.target_begin(&e, 4001, ompt_target);
    script_one_target(&f, 77, 1000, 10);
    script_one_target(&g, 77, 3000, 30);
    cr_assert_eq(ot_ompt_trace_backend.flush(&e), 6);
    cr_assert_eq(ot_ompt_trace_backend.flush(&d), 6);
    expect_one_target(0, 4001, 3000, 30);
    expect_one_target(6, 1001, 1000, 10);
    for (size_t i = 0; i < 12; i++)
        cr_assert_eq(captured.device[i], i < 6 ? 1 : 0);
    detach(&d, &f);
    detach(&e, &g);
}

Test(ompt_trace, detach_flushes_stops_and_lets_go)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    ompt_callback_buffer_request_t request = f.request;
    ompt_callback_buffer_complete_t complete = f.complete;
    ot_ompt_trace_backend.target_begin(&d, 1001, ompt_target);
    script_one_target(&f, 77, 1000, 10);
    ot_ompt_trace_backend.detach(&d);
    cr_assert_null(d.state);
    cr_assert_eq(f.flushes, 1);
    cr_assert_eq(f.stops, 1);
    cr_assert_eq(captured.count, 6, "detach delivers what the runtime handed back");
    expect_one_target(0, 1001, 1000, 10);
    /* A late buffer after detach: freed, not read. */
    ompt_buffer_t *b = NULL;
    size_t bytes = 0;
    request(0, &b, &bytes);
    lend(b);
    memcpy(b, script_kernel(&f, 0, 1, 2, 3, 4), sizeof(ompt_record_ompt_t));
    complete(0, b, sizeof(ompt_record_ompt_t), 0, 1);
    cr_assert_eq(captured.count, 6);
    cr_assert_eq(outstanding(), 0);
    /* The slot is free again. */
    fake_device g = fake_new(0);
    attach_ok(&d, &g);
    detach(&d, &g);
    __real_free(f.script);
}

/* A runtime thread completing buffers while the host announces targets
 * and flushes: every record arrives once, and in time order across
 * deliveries. */
#define RACE_BUFFERS 300
#define RACE_KERNELS 5

static void *race_completer(void *arg)
{
    fake_device *f = arg;
    for (uint64_t b = 0; b < RACE_BUFFERS; b++) {
        ompt_buffer_t *buffer = NULL;
        size_t bytes = 0;
        f->request(f->num, &buffer, &bytes);
        ompt_record_ompt_t *r = buffer;
        memset(r, 0, RACE_KERNELS * sizeof *r);
        for (uint64_t k = 0; k < RACE_KERNELS; k++) {
            uint64_t t = 100 * (b * RACE_KERNELS + k);
            r[k].type = ompt_callback_target_submit;
            r[k].time = t;
            r[k].record.target_kernel.end_time = t + 50;
            r[k].record.target_kernel.host_op_id = b * RACE_KERNELS + k + 1;
        }
        f->complete(f->num, buffer, RACE_KERNELS * sizeof *r, 0, 1);
    }
    return NULL;
}

static void *race_announcer(void *arg)
{
    for (uint64_t i = 1; i <= 2000; i++)
        ot_ompt_trace_backend.target_begin(arg, i, ompt_target);
    return NULL;
}

Test(ompt_trace, concurrent_completion_announcement_and_flush)
{
    fake_device f = fake_new(0);
    ot_dev_device d = {.num = 0};
    attach_ok(&d, &f);
    pthread_t completer, announcer;
    cr_assert_eq(pthread_create(&completer, NULL, race_completer, &f), 0);
    cr_assert_eq(pthread_create(&announcer, NULL, race_announcer, &d), 0);
    long total = 0;
    for (int i = 0; i < 200; i++)
        total += ot_ompt_trace_backend.flush(&d);
    pthread_join(completer, NULL);
    pthread_join(announcer, NULL);
    total += ot_ompt_trace_backend.flush(&d);
    cr_assert_eq(total, 2 * RACE_BUFFERS * RACE_KERNELS);
    cr_assert_eq(captured.count, (size_t)total);
    expect_time_order(0, captured.count);
    detach(&d, &f);
}

/* ------------------------------------------------------------------------
 * The pure parts on their own.
 */
Test(ompt_trace_translate, copy_directions)
{
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_transfer_to_device), H2D);
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_transfer_to_device_async), H2D);
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_transfer_from_device), D2H);
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_transfer_from_device_async), D2H);
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_alloc), -1);
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_delete), -1);
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_associate), -1);
    cr_assert_eq(ot_ompt_copy_direction(ompt_target_data_disassociate), -1);
    cr_assert_eq(ot_ompt_copy_direction((ompt_target_data_op_t)99), -1);
}

Test(ompt_trace_translate, classes)
{
    ompt_record_ompt_t r;
    memset(&r, 0, sizeof r);
    r.type = ompt_callback_target;
    r.record.target.endpoint = ompt_scope_begin;
    cr_assert_eq(ot_ompt_classify(&r), OT_OMPT_TARGET_BEGIN);
    r.record.target.endpoint = ompt_scope_end;
    cr_assert_eq(ot_ompt_classify(&r), OT_OMPT_SKIP);
    r.type = ompt_callback_target_submit;
    cr_assert_eq(ot_ompt_classify(&r), OT_OMPT_ACTIVITY);
    r.type = ompt_callback_target_data_op;
    r.record.target_data_op.optype = ompt_target_data_transfer_from_device;
    cr_assert_eq(ot_ompt_classify(&r), OT_OMPT_ACTIVITY);
    r.record.target_data_op.optype = ompt_target_data_alloc;
    cr_assert_eq(ot_ompt_classify(&r), OT_OMPT_SKIP);
    r.type = ompt_callback_target_map;
    cr_assert_eq(ot_ompt_classify(&r), OT_OMPT_SKIP);
}

Test(ompt_trace_translate, target_id_from_body_when_header_has_none)
{
    ompt_record_ompt_t r;
    memset(&r, 0, sizeof r);
    r.type = ompt_callback_target;
    r.record.target.target_id = 42;
    cr_assert_eq(ot_ompt_runtime_target_id(&r), 42);
    r.target_id = 43;
    cr_assert_eq(ot_ompt_runtime_target_id(&r), 43);
}

Test(ompt_trace_translate, plain_kernel_record_and_clamped_end)
{
    ompt_record_ompt_t r;
    memset(&r, 0, sizeof r);
    r.type = ompt_callback_target_submit;
    r.time = 500;
    r.record.target_kernel.host_op_id = 9;
    r.record.target_kernel.requested_num_teams = 128;
    r.record.target_kernel.end_time = 400; /* before its begin */
    offtrace_device_record out[OT_OMPT_TRANSLATE_MAX];
    cr_assert_eq(ot_ompt_translate(&r, 7, 0x1234, out), 2);
    cr_assert_eq(out[0].time, 500);
    cr_assert_eq(out[1].time, 500);
    cr_assert_eq(out[0].target_id, 7);
    cr_assert_eq(out[0].codeptr, 0x1234);
    cr_assert_eq(out[0].value, offtrace_kernel_grid(128, 1, 1));
    cr_assert_eq(out[1].value, 0);
    cr_assert_eq(out[1].codeptr, 0);
    cr_assert_eq(out[1].op_id, 9);
}

Test(ompt_trace_translate, data_op_without_codeptr_takes_the_targets)
{
    ompt_record_ompt_t r;
    memset(&r, 0, sizeof r);
    r.type = ompt_callback_target_data_op;
    r.record.target_data_op.optype = ompt_target_data_transfer_to_device;
    r.record.target_data_op.bytes = (size_t)1 << 33;
    offtrace_device_record out[OT_OMPT_TRANSLATE_MAX];
    cr_assert_eq(ot_ompt_translate(&r, 0, 0x1234, out), 2);
    cr_assert_eq(out[0].codeptr, 0x1234);
    cr_assert_eq(out[0].value, (uint64_t)1 << 33);
    r.record.target_data_op.optype = ompt_target_data_delete;
    cr_assert_eq(ot_ompt_translate(&r, 0, 0, out), 0);
}

Test(ompt_trace_targets, oldest_of_the_same_kind_nowait_or_not)
{
    static ot_ompt_targets t;
    ot_ompt_targets_init(&t);
    ot_ompt_targets_host_begin(&t, 1, ompt_target_nowait);
    ot_ompt_targets_host_begin(&t, 2, ompt_target_enter_data);
    ot_ompt_targets_host_begin(&t, 3, ompt_target);
    cr_assert_eq(ot_ompt_targets_runtime_begin(&t, 100, ompt_target_enter_data_nowait, 0xa), 2);
    cr_assert_eq(ot_ompt_targets_runtime_begin(&t, 101, ompt_target, 0xb), 1);
    cr_assert_eq(ot_ompt_targets_runtime_begin(&t, 102, ompt_target, 0xc), 3);
    cr_assert_eq(ot_ompt_targets_runtime_begin(&t, 103, ompt_target, 0xd), 0);
    uint64_t host, code;
    cr_assert_eq(ot_ompt_targets_find(&t, 101, &host, &code), 1);
    cr_assert_eq(host, 1);
    cr_assert_eq(code, 0xb);
    cr_assert_eq(ot_ompt_targets_find(&t, 103, &host, &code), 1);
    cr_assert_eq(host, 0);
    cr_assert_eq(ot_ompt_targets_find(&t, 104, &host, &code), 0);
    cr_assert_eq(host + code, 0);
}

Test(ompt_trace_targets, bounded_memory)
{
    static ot_ompt_targets t;
    ot_ompt_targets_init(&t);
    /* Past the bound the oldest announcement is forgotten. */
    for (uint64_t i = 1; i <= OT_OMPT_TARGETS_PENDING + 1; i++)
        ot_ompt_targets_host_begin(&t, i, ompt_target);
    cr_assert_eq(ot_ompt_targets_runtime_begin(&t, 1, ompt_target, 0), 2);
    /* Past the bound the oldest pair is forgotten; a reused id takes the newest. */
    for (uint64_t i = 2; i <= OT_OMPT_TARGETS_KNOWN + 1; i++)
        ot_ompt_targets_runtime_begin(&t, i, ompt_target, 0);
    uint64_t host, code;
    cr_assert_eq(ot_ompt_targets_find(&t, 1, &host, &code), 0);
    cr_assert_eq(ot_ompt_targets_find(&t, 2, &host, &code), 1);
    cr_assert_eq(host, 3);
    ot_ompt_targets_host_begin(&t, 9999, ompt_target);
    ot_ompt_targets_runtime_begin(&t, 2, ompt_target, 0);
    cr_assert_eq(ot_ompt_targets_find(&t, 2, &host, &code), 1);
    cr_assert_eq(host, 9999);
    /* Id 0 consumes an announcement but names nothing. */
    ot_ompt_targets_host_begin(&t, 5555, ompt_target);
    cr_assert_eq(ot_ompt_targets_runtime_begin(&t, 0, ompt_target, 0), 5555);
    cr_assert_eq(ot_ompt_targets_find(&t, 0, &host, &code), 0);
}

static void check_stable_sort(int without_memory)
{
    offtrace_device_record r[200];
    memset(r, 0, sizeof r);
    for (size_t i = 0; i < 200; i++) {
        r[i].time = (i * 7919) % 50; /* many ties */
        r[i].op_id = i;
    }
    mem.fail_all_mallocs = without_memory;
    ot_ompt_sort_by_time(r, 200);
    mem.fail_all_mallocs = 0;
    for (size_t i = 1; i < 200; i++) {
        cr_assert_leq(r[i - 1].time, r[i].time);
        if (r[i - 1].time == r[i].time)
            cr_assert_lt(r[i - 1].op_id, r[i].op_id, "ties keep their order");
    }
}

Test(ompt_trace_batch, sort_is_stable)
{
    check_stable_sort(0);
}

Test(ompt_trace_batch, sort_is_stable_without_memory)
{
    check_stable_sort(1);
}

Test(ompt_trace_batch, grows_and_reports_no_memory)
{
    ot_ompt_batch b;
    ot_ompt_batch_init(&b);
    offtrace_device_record r[3];
    memset(r, 0, sizeof r);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(ot_ompt_batch_add(&b, r, 3), 0);
    cr_assert_eq(b.count, 3000);
    mem.fail_reallocs = 1;
    cr_assert_eq(ot_ompt_batch_add(&b, r, b.capacity), -ENOMEM);
    mem.fail_reallocs = 0;
    cr_assert_eq(b.count, 3000);
    ot_ompt_batch_free(&b);
    cr_assert_null(b.records);
}

/*
 * Device records through the converter, from a synthetic recording whose
 * truth is known exactly: host ticks run at 2 per ns, the device clock is
 * host time + 7 s + 200 ppm, and every device record is stamped with the
 * device time of a chosen host instant. The converted archive must put each
 * record back at that instant (within rounding), keep it inside its target
 * region, order queues by time, and count what it drops, closes or ignores.
 * Issue 17: a GPU's launches and the kernels they run later on the device
 * carry one host operation, and `offtrace report` takes kernel times from
 * the device (its collect pass on the converted archive).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <omp-tools.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/raw_stream.h"
#include "check/archive_check.h"
#include "check/run.h"
#include "convert.h"
#include "raw_reader.h" /* OT_RAW_WINDOW_RECORDS */
#include "offtrace/collector.h"
#include "offtrace/event_catalogue.h"
#include "offtrace/raw_format.h"
#include "report.h"

/* ---- the truth ---- */

#define NS0 5000000000ull          /* host ns of the first clock pair */
#define TICKS0 1000000000ull       /* its ticks; the second pair is 2e9 ticks = 1e9 ns later */
#define DEVICE_OFFSET 7000000000ll /* device clock - host clock at the first sync pair */
#define DRIFT_PPM 200ll

#define T0 (NS0 + 1000000ull)      /* target begin (host ns) */
#define T1 (T0 + 1000200ull)       /* target end */
#define SYNC_BEGIN (T0 + 100ull)   /* host ns of the sync pairs; 1 ms apart, so drift is whole ns */
#define SYNC_END (T1 - 100ull)
#define TARGET_ID 77ull
#define SECOND_TARGET_ID 78ull      /* options.second_target: a region from SECOND_T0 to SECOND_T1 */
#define SECOND_T0 (T1 + 10000ull)
#define SECOND_T1 (T1 + 20000ull)
#define SUBMIT_ID 78ull
#define DATA_OP_ID 79ull
#define QUEUE 5u

#define DEVICE_THREAD_LOCATION(dev, thread) offtrace_location_id(OFFTRACE_LOC_DEVICE_THREAD, dev, thread)
#define DEVICE_QUEUE_LOCATION(dev, ordinal) offtrace_location_id(OFFTRACE_LOC_DEVICE_QUEUE, dev, ordinal)

static uint64_t ticks_of(uint64_t ns)
{
    return TICKS0 + 2 * (ns - NS0);
}

/* The device clock at host instant ns: offset plus 200 ppm drift since the first pair. */
static uint64_t device_of(uint64_t ns)
{
    int64_t since = (int64_t)ns - (int64_t)SYNC_BEGIN;
    int64_t drift = since * DRIFT_PPM;
    drift = drift >= 0 ? (drift + 500000) / 1000000 : -((-drift + 500000) / 1000000);
    return (uint64_t)((int64_t)ns + DEVICE_OFFSET + drift);
}

/* ---- writing a recording ---- */

typedef struct options {
    int bad_pair;      /* an extra sync pair whose read took 2 us, with a wrong device time */
    int zero_tail;     /* the device file ends in never-written (zero) records */
    int foreign_file;  /* a device file of another format version */
    int many_devices;  /* after the target region, one on each of devices 1..70 */
    int gpu_launches;  /* issue 17: a GPU's kernels, run later and longer than their launches (launch_records) */
    int second_target; /* after the target region, another on device 0 (SECOND_TARGET_ID), with thread 1 in it */
} options;

static offtrace_raw_record host_record(uint8_t event, uint8_t endpoint, uint64_t ns)
{
    return (offtrace_raw_record){.time = ticks_of(ns), .event = event, .endpoint = endpoint, .src_device = 1};
}

static offtrace_raw_record sync_record(uint64_t ns, uint64_t width_ticks, uint64_t device_time, uint8_t reason)
{
    offtrace_raw_record r = host_record(OFFTRACE_RAW_SYNC, 0, ns);
    r.src_addr = width_ticks;
    r.bytes = device_time;
    r.dst_device = 0;
    r.subkind = reason;
    r.target_id = TARGET_ID;
    return r;
}

/* ---- issue 17: kernels on a GPU run after their launch returned ----
 *
 * In the one target region: three launches of 10 us each. The first two
 * kernels run on the device 40 us and 30 us after their launch began, for
 * 200 us and 300 us; the third launch's kernel never reaches the recording
 * (it keeps its launch span); a fourth kernel on the device names a host
 * operation no launch had. A host->device data op and the copy it caused
 * carry one operation too. */
#define LAUNCHES 3
static const uint64_t launch_begin[LAUNCHES] = {T0 + 10000, T0 + 300000, T0 + 700000};
#define LAUNCH_NS 10000ull
static const uint64_t kernel_begin[2] = {T0 + 50000, T0 + 330000};
static const uint64_t kernel_ns[2] = {200000, 300000};
#define LAUNCH_OP(i) (500ull + (uint64_t)(i))
#define STRAY_OP 999ull
#define COPY_BEGIN (T0 + 260000)
#define COPY_END (T0 + 270000)

static size_t launch_records(offtrace_raw_record *r)
{
    size_t n = 0;
    r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_BEGIN, T0);
    r[n].id = TARGET_ID, r[n].subkind = ompt_target, r[n++].dst_device = 0;
    r[n++] = sync_record(SYNC_BEGIN, 10, device_of(SYNC_BEGIN), OFFTRACE_RAW_SYNC_TARGET_BEGIN);
    for (int i = 0; i < LAUNCHES; i++) {
        if (i == 1) { /* the data op, between the first and second launch */
            r[n] = host_record(OFFTRACE_RAW_DATA_OP, OFFTRACE_RAW_BEGIN, COPY_BEGIN);
            r[n].id = DATA_OP_ID, r[n].target_id = TARGET_ID, r[n].subkind = ompt_target_data_transfer_to_device;
            r[n].bytes = 4096, r[n].src_addr = 0x1000, r[n].dst_addr = 0x2000, r[n].dst_device = 0;
            r[n++].flags = OFFTRACE_RAW_FLAG_IN_CONSTRUCT;
            r[n] = r[n - 1], r[n].time = ticks_of(COPY_END), r[n++].endpoint = OFFTRACE_RAW_END;
        }
        r[n] = host_record(OFFTRACE_RAW_SUBMIT, OFFTRACE_RAW_BEGIN, launch_begin[i]);
        r[n].id = LAUNCH_OP(i), r[n].target_id = TARGET_ID, r[n++].bytes = 1;
        r[n] = host_record(OFFTRACE_RAW_SUBMIT, OFFTRACE_RAW_END, launch_begin[i] + LAUNCH_NS);
        r[n].id = LAUNCH_OP(i), r[n++].target_id = TARGET_ID;
    }
    r[n++] = sync_record(SYNC_END, 10, device_of(SYNC_END), OFFTRACE_RAW_SYNC_TARGET_END);
    r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_END, T1);
    r[n].id = TARGET_ID, r[n].subkind = ompt_target, r[n++].dst_device = 0;
    return n;
}

static offtrace_device_record queued_on(uint8_t kind, uint8_t endpoint, uint64_t ns, uint64_t op)
{
    offtrace_device_record d = {.time = device_of(ns), .target_id = TARGET_ID, .op_id = op, .thread = QUEUE,
                                .kind = kind, .endpoint = endpoint, .flags = OFFTRACE_DEVICE_FLAG_STREAM};
    return d;
}

static size_t launch_device_records(offtrace_device_record *r)
{
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
        r[n++] = queued_on(OFFTRACE_DEVICE_KERNEL, OFFTRACE_DEVICE_BEGIN, kernel_begin[i],
                           LAUNCH_OP(i) | OFFTRACE_OPERATION_SUBMIT_BIT);
        r[n++] = queued_on(OFFTRACE_DEVICE_KERNEL, OFFTRACE_DEVICE_END, kernel_begin[i] + kernel_ns[i],
                           LAUNCH_OP(i) | OFFTRACE_OPERATION_SUBMIT_BIT);
    }
    r[n] = queued_on(OFFTRACE_DEVICE_MEMCPY, OFFTRACE_DEVICE_BEGIN, COPY_BEGIN + 2000, DATA_OP_ID);
    r[n].subkind = OFFTRACE_COPY_HOST_TO_DEVICE, r[n++].value = 4096;
    r[n] = queued_on(OFFTRACE_DEVICE_MEMCPY, OFFTRACE_DEVICE_END, COPY_END - 2000, DATA_OP_ID);
    r[n].subkind = OFFTRACE_COPY_HOST_TO_DEVICE, r[n++].value = 4096;
    const uint64_t stray = STRAY_OP | OFFTRACE_OPERATION_SUBMIT_BIT;
    r[n++] = queued_on(OFFTRACE_DEVICE_KERNEL, OFFTRACE_DEVICE_BEGIN, T0 + 800000, stray);
    r[n++] = queued_on(OFFTRACE_DEVICE_KERNEL, OFFTRACE_DEVICE_END, T0 + 810000, stray);
    return n;
}

static size_t host_records(offtrace_raw_record *r, const options *o)
{
    if (o->gpu_launches)
        return launch_records(r);
    size_t n = 0;
    r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_BEGIN, T0);
    r[n].id = TARGET_ID, r[n].subkind = ompt_target, r[n++].dst_device = 0;
    r[n++] = sync_record(SYNC_BEGIN, 10, device_of(SYNC_BEGIN), OFFTRACE_RAW_SYNC_TARGET_BEGIN);
    r[n] = host_record(OFFTRACE_RAW_SUBMIT, OFFTRACE_RAW_BEGIN, T0 + 1000);
    r[n].id = SUBMIT_ID, r[n].target_id = TARGET_ID, r[n++].bytes = 1;
    if (o->bad_pair) /* 4000 ticks = 2 us wide, and 300 us off */
        r[n++] = sync_record(T0 + 500000, 4000, device_of(T0 + 500000) + 300000, OFFTRACE_RAW_SYNC_TARGET_BEGIN);
    r[n] = host_record(OFFTRACE_RAW_SUBMIT, OFFTRACE_RAW_END, T0 + 990000);
    r[n].id = SUBMIT_ID, r[n++].target_id = TARGET_ID;
    r[n++] = sync_record(SYNC_END, 10, device_of(SYNC_END), OFFTRACE_RAW_SYNC_TARGET_END);
    r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_END, T1);
    r[n].id = TARGET_ID, r[n].subkind = ompt_target, r[n++].dst_device = 0;
    if (o->second_target) {
        r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_BEGIN, SECOND_T0);
        r[n].id = SECOND_TARGET_ID, r[n].subkind = ompt_target, r[n++].dst_device = 0;
        r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_END, SECOND_T1);
        r[n].id = SECOND_TARGET_ID, r[n].subkind = ompt_target, r[n++].dst_device = 0;
    }
    for (int d = 1; o->many_devices && d <= 70; d++) {
        uint64_t at = T1 + 1000 * (uint64_t)d;
        r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_BEGIN, at);
        r[n].id = 1000 + (uint64_t)d, r[n].subkind = ompt_target, r[n++].dst_device = (int16_t)d;
        r[n] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_END, at + 500);
        r[n].id = 1000 + (uint64_t)d, r[n].subkind = ompt_target, r[n++].dst_device = (int16_t)d;
    }
    return n;
}

static offtrace_device_record dev(uint32_t thread, uint8_t kind, uint8_t subkind, uint8_t endpoint, uint64_t ns)
{
    return (offtrace_device_record){.time = device_of(ns), .target_id = TARGET_ID, .thread = thread,
                                    .kind = kind, .subkind = subkind, .endpoint = endpoint};
}

#define B OFFTRACE_DEVICE_BEGIN
#define E OFFTRACE_DEVICE_END

/* What the collector delivered, interleaved by flush as a real file is. */
static size_t device_records(offtrace_device_record *r)
{
    size_t n = 0;
    /* thread 0, first flush: the encountering thread of a parallel region */
    r[n++] = dev(0, OFFTRACE_DEVICE_PARALLEL, 0, B, T0 + 2000);
    r[n - 1].value = 2;
    r[n++] = dev(0, OFFTRACE_DEVICE_IMPLICIT_TASK, 0, B, T0 + 3000);
    r[n - 1].value = 2;
    r[n++] = dev(0, OFFTRACE_DEVICE_WORK, ompt_work_loop, B, T0 + 4000);
    r[n - 1].value = 1000;
    r[n++] = dev(0, OFFTRACE_DEVICE_WORK, ompt_work_loop, E, T0 + 500000);
    /* thread 1: a worker whose barrier END is reported late, after the target ended */
    r[n++] = dev(1, OFFTRACE_DEVICE_SYNC, ompt_sync_region_barrier_implicit_parallel, B, T0 + 590000);
    r[n++] = dev(1, OFFTRACE_DEVICE_SYNC, ompt_sync_region_barrier_implicit_parallel, E, T1 + 40000);
    /* queue 5: a later kernel delivered before an earlier copy */
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_KERNEL, 0, B, T0 + 400000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].op_id = SUBMIT_ID;
    r[n - 1].value = offtrace_kernel_grid(80, 3, 2); /* its launch configuration, as CUPTI's collector packs it */
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_KERNEL, 0, E, T0 + 700000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].op_id = SUBMIT_ID;
    r[n - 1].value = offtrace_kernel_block(128, 2, 1, 40), r[n - 1].codeptr = 5120;
    /* thread 2: an END without BEGIN, then a BEGIN never ended */
    r[n++] = dev(2, OFFTRACE_DEVICE_WORK, ompt_work_loop, E, T0 + 5000);
    r[n++] = dev(2, OFFTRACE_DEVICE_PARALLEL, 0, B, T0 + 6000);
    r[n++] = dev(2, OFFTRACE_DEVICE_IMPLICIT_TASK, 0, B, T0 + 7000);
    r[n++] = dev(2, OFFTRACE_DEVICE_IMPLICIT_TASK, 0, E, T0 + 8000);
    /* thread 0, second flush */
    r[n++] = dev(0, OFFTRACE_DEVICE_SYNC, ompt_sync_region_barrier_implicit_parallel, B, T0 + 501000);
    r[n++] = dev(0, OFFTRACE_DEVICE_SYNC, ompt_sync_region_barrier_implicit_parallel, E, T0 + 600000);
    r[n++] = dev(0, OFFTRACE_DEVICE_IMPLICIT_TASK, 0, E, T0 + 601000);
    r[n++] = dev(0, OFFTRACE_DEVICE_PARALLEL, 0, E, T0 + 602000);
    r[n++] = dev(0, OFFTRACE_DEVICE_LOST, 0, OFFTRACE_DEVICE_POINT, T0 + 700000);
    r[n - 1].value = 42;
    /* losses of a thread that never had a buffer */
    r[n++] = dev(UINT32_MAX, OFFTRACE_DEVICE_LOST, 0, OFFTRACE_DEVICE_POINT, T0 + 800000);
    r[n - 1].value = 8;
    /* queue 5, second delivery: the copy that ran before the kernel */
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_MEMCPY, OFFTRACE_COPY_HOST_TO_DEVICE, B, T0 + 100000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].value = 4096, r[n - 1].op_id = DATA_OP_ID;
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_MEMCPY, OFFTRACE_COPY_HOST_TO_DEVICE, E, T0 + 300000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].value = 4096, r[n - 1].op_id = DATA_OP_ID;
    /* a copy a kernel launch made (a reduction buffer) */
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_MEMCPY, OFFTRACE_COPY_HOST_TO_DEVICE, B, T0 + 301000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].value = 16;
    r[n - 1].op_id = SUBMIT_ID | OFFTRACE_OPERATION_SUBMIT_BIT;
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_MEMCPY, OFFTRACE_COPY_HOST_TO_DEVICE, E, T0 + 302000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].value = 16;
    r[n - 1].op_id = SUBMIT_ID | OFFTRACE_OPERATION_SUBMIT_BIT;
    /* a memset no host operation caused: the runtime's own */
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_MEMSET, 0, B, T0 + 310000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].value = 64;
    r[n++] = dev(QUEUE, OFFTRACE_DEVICE_MEMSET, 0, E, T0 + 320000);
    r[n - 1].flags = OFFTRACE_DEVICE_FLAG_STREAM, r[n - 1].value = 64;
    return n;
}

#define DEVICE_RECORD_COUNT 24u

static void write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/raw/%s", dir, name);
    FILE *f = fopen(path, "we");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, size, f), size);
    cr_assert_eq(fclose(f), 0);
}

static void write_device_file(const char *dir, const char *name, uint32_t version, const offtrace_device_record *r,
                              size_t n, size_t zero_tail)
{
    size_t size = sizeof(offtrace_raw_device_header) + (n + zero_tail) * sizeof *r;
    char *buf = calloc(1, size);
    offtrace_raw_device_header *h = (offtrace_raw_device_header *)buf;
    memcpy(h->magic, OFFTRACE_RAW_DEVICE_MAGIC, sizeof h->magic);
    h->version = version;
    h->record_size = sizeof *r;
    h->device_num = 0;
    /* queue activity (with host operation ids) is what CUPTI delivers; device threads alone, host offload */
    int queues = 0;
    for (size_t i = 0; i < n; i++)
        queues |= (r[i].flags & OFFTRACE_DEVICE_FLAG_STREAM) != 0;
    snprintf(h->backend, sizeof h->backend, "%s", queues ? "cupti" : "host-offload");
    memcpy(buf + sizeof *h, r, n * sizeof *r);
    write_file(dir, name, buf, size);
    free(buf);
}

/* A fresh scratch recording directory with its raw/ and two clock pairs a second apart (TICKS0, NS0). */
static void make_recording_dir(char *dir, size_t size, const char *name)
{
    scratch_path(dir, (unsigned)size, name);
    cr_assert_eq(raw_new_recording(dir, TICKS0, NS0), 0, "cannot make the recording %s", dir);
}

/* A recording of one host thread and device 0 under a fresh scratch path. */
static void make_recording(char *dir, size_t size, const char *name, const options *o)
{
    make_recording_dir(dir, size, name);
    char raw[4400];
    snprintf(raw, sizeof raw, "%s/raw", dir);
    char text[256];
    int len;
    len = snprintf(text, sizeof text, "0 generic-64bit\n1 host\n");
    write_file(dir, "devices.txt", text, (size_t)len);

    /* thread stream: header page, then one chunk whose unused tail is zero */
    const size_t chunk = 65536;
    char *stream = calloc(1, OFFTRACE_RAW_HEADER_SIZE + chunk);
    offtrace_raw_stream_header *h = (offtrace_raw_stream_header *)stream;
    raw_main_thread_header(h, chunk);
    host_records((offtrace_raw_record *)(stream + OFFTRACE_RAW_HEADER_SIZE), o);
    write_file(dir, "thread-0.rec", stream, OFFTRACE_RAW_HEADER_SIZE + chunk);
    free(stream);

    offtrace_device_record r[64];
    size_t n = o->gpu_launches ? launch_device_records(r) : device_records(r);
    cr_assert_eq(n, o->gpu_launches ? 8u : DEVICE_RECORD_COUNT);
    if (o->second_target) { /* thread 1, after its late barrier END: a region 5 us before its target began */
        r[n++] = dev(1, OFFTRACE_DEVICE_PARALLEL, 0, B, SECOND_T0 - 5000);
        r[n - 1].target_id = SECOND_TARGET_ID;
        r[n++] = dev(1, OFFTRACE_DEVICE_PARALLEL, 0, E, SECOND_T0 + 5000);
        r[n - 1].target_id = SECOND_TARGET_ID;
    }
    write_device_file(dir, "device-0.rec", OFFTRACE_RAW_VERSION, r, n, o->zero_tail ? 5 : 0);
    if (o->foreign_file)
        write_device_file(dir, "device-3.rec", 999, r, n, 0);
}

static void convert(const char *dir)
{
    ot_convert_options opts;
    memset(&opts, 0, sizeof opts);
    opts.keep_raw = 1;
    char msg[512] = "";
    int rc = ot_convert_directory(dir, &opts, msg, sizeof msg);
    cr_assert_eq(rc, 0, "conversion of %s failed (%d): %s", dir, rc, msg);
}

static void check_archive(const char *dir, archive_facts *f)
{
    cr_assert_eq(archive_check(dir, f), 0, "cannot read %s", dir);
    cr_assert_eq(archive_violations(f), 0, "%s: %s", dir, f->first_problem);
}

static uint64_t property(const char *dir, const char *name)
{
    uint64_t n = 0;
    cr_assert_eq(archive_property(dir, name, &n), 0, "no property %s in %s", name, dir);
    return n;
}

/* ---- reading the archive back: location names, and per location its
 *      Enter/Leave events with region names ---- */

#define MAX_EVENTS 64
#define MAX_LOCATIONS 32

typedef struct event {
    int enter;
    uint64_t time;
    uint32_t region;
    char detail[128]; /* the Enter's device activity attributes, "name=value ..." */
} event;

typedef struct trace_location {
    uint64_t id;
    char name[128];
    event events[MAX_EVENTS];
    size_t count;
} trace_location;

typedef struct trace {
    char *strings[4096];
    uint32_t region_string[1024];
    trace_location locations[MAX_LOCATIONS];
    size_t location_count;
} trace;

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *text)
{
    trace *t = u;
    if (self < 4096)
        t->strings[self] = strdup(text);
    return OTF2_CALLBACK_SUCCESS;
}

static const char *string_of(const trace *t, uint32_t s)
{
    return s < 4096 && t->strings[s] ? t->strings[s] : "";
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                   OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    trace *t = u;
    if (self < 1024)
        t->region_string[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    trace *t = u;
    if (t->location_count == MAX_LOCATIONS)
        return OTF2_CALLBACK_INTERRUPT;
    trace_location *l = &t->locations[t->location_count++];
    l->id = self;
    snprintf(l->name, sizeof l->name, "%s", string_of(t, name));
    return OTF2_CALLBACK_SUCCESS;
}

static trace_location *location_by_id(trace *t, uint64_t id)
{
    for (size_t i = 0; i < t->location_count; i++)
        if (t->locations[i].id == id)
            return &t->locations[i];
    return NULL;
}

static trace_location *location_by_name(trace *t, const char *name)
{
    for (size_t i = 0; i < t->location_count; i++)
        if (!strcmp(t->locations[i].name, name))
            return &t->locations[i];
    return NULL;
}

static void add_event(trace *t, OTF2_LocationRef l, OTF2_TimeStamp time, OTF2_RegionRef region, int enter)
{
    trace_location *loc = location_by_id(t, l);
    if (loc && loc->count < MAX_EVENTS)
        loc->events[loc->count++] = (event){.enter = enter, .time = time, .region = region};
}

/* The device activity attributes (event_catalogue.h, issue 17) as text. */
static void describe_detail(const trace *t, OTF2_AttributeList *a, char *out, size_t size)
{
    static const char *const names[OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_COUNT] = {"bytes", "grid", "block", "registers",
                                                                               "shared", "op"};
    size_t used = 0;
    out[0] = 0;
    for (uint32_t i = 0; a && i < OTF2_AttributeList_GetNumberOfElements(a); i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue v;
        OTF2_AttributeList_GetAttributeByIndex(a, i, &ref, &type, &v);
        if (ref < OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST ||
            ref >= OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST + OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_COUNT)
            continue;
        const char *name = names[ref - OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_FIRST];
        if (type == OTF2_TYPE_STRING)
            used += snprintf(out + used, size - used, "%s%s=%s", used ? " " : "", name, string_of(t, v.stringRef));
        else if (type == OTF2_TYPE_UINT32)
            used += snprintf(out + used, size - used, "%s%s=%u", used ? " " : "", name, v.uint32);
        else
            used += snprintf(out + used, size - used, "%s%s=%llu", used ? " " : "", name,
                             (unsigned long long)v.uint64);
        if (used >= size)
            break;
    }
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef l, OTF2_TimeStamp time, void *u, OTF2_AttributeList *a,
                                  OTF2_RegionRef region)
{
    add_event(u, l, time, region, 1);
    trace_location *loc = location_by_id(u, l);
    if (loc && loc->count && loc->count <= MAX_EVENTS)
        describe_detail(u, a, loc->events[loc->count - 1].detail, sizeof loc->events[0].detail);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef l, OTF2_TimeStamp time, void *u, OTF2_AttributeList *a,
                                  OTF2_RegionRef region)
{
    add_event(u, l, time, region, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static trace *read_trace(const char *dir)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    cr_assert_not_null(rd, "cannot open %s", anchor);
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    trace *t = calloc(1, sizeof *t);

    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dcb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dcb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, dcb, t);
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    uint64_t n;
    cr_assert_eq(OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n), OTF2_SUCCESS);
    OTF2_Reader_CloseGlobalDefReader(rd, gd);

    for (size_t i = 0; i < t->location_count; i++)
        OTF2_Reader_SelectLocation(rd, t->locations[i].id);
    OTF2_Reader_OpenDefFiles(rd);
    OTF2_Reader_OpenEvtFiles(rd);
    for (size_t i = 0; i < t->location_count; i++) {
        OTF2_DefReader *d = OTF2_Reader_GetDefReader(rd, t->locations[i].id);
        if (d) {
            OTF2_Reader_ReadAllLocalDefinitions(rd, d, &n);
            OTF2_Reader_CloseDefReader(rd, d);
        }
        cr_assert_not_null(OTF2_Reader_GetEvtReader(rd, t->locations[i].id));
    }
    OTF2_Reader_CloseDefFiles(rd);
    OTF2_GlobalEvtReader *ge = OTF2_Reader_GetGlobalEvtReader(rd);
    OTF2_GlobalEvtReaderCallbacks *ecb = OTF2_GlobalEvtReaderCallbacks_New();
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ecb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ecb, on_leave);
    OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ge, ecb, t);
    OTF2_GlobalEvtReaderCallbacks_Delete(ecb);
    cr_assert_eq(OTF2_Reader_ReadAllGlobalEvents(rd, ge, &n), OTF2_SUCCESS);
    OTF2_Reader_CloseGlobalEvtReader(rd, ge);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
    return t;
}

static void free_trace(trace *t)
{
    for (size_t i = 0; i < 4096; i++)
        free(t->strings[i]);
    free(t);
}

static const char *region_name(const trace *t, const event *e)
{
    return e->region < 1024 ? string_of(t, t->region_string[e->region]) : "";
}

/* One expected event: Enter (1) or Leave (0), host ns, region name prefix. */
typedef struct expected {
    int enter;
    uint64_t time;
    const char *region;
} expected;

/* The location's events are exactly these, each within 2 ns of its time,
 * and every Leave closes the innermost open Enter. */
static void expect_events(trace *t, uint64_t id, const char *name, const expected *x, size_t n)
{
    trace_location *l = location_by_id(t, id);
    cr_assert_not_null(l, "no location %s (id %#llx)", name, (unsigned long long)id);
    cr_assert_str_eq(l->name, name);
    cr_assert_eq(l->count, n, "%s holds %zu events, expected %zu", name, l->count, n);
    uint32_t stack[MAX_EVENTS];
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        const event *e = &l->events[i];
        const char *region = region_name(t, e);
        cr_assert_eq(e->enter, x[i].enter, "%s event %zu: %s expected, got %s", name, i,
                     x[i].enter ? "Enter" : "Leave", e->enter ? "Enter" : "Leave");
        cr_assert(!strncmp(region, x[i].region, strlen(x[i].region)), "%s event %zu: region '%s', expected '%s...'",
                  name, i, region, x[i].region);
        int64_t error = (int64_t)e->time - (int64_t)x[i].time;
        cr_assert(error >= -2 && error <= 2, "%s event %zu (%s %s): at %llu, truth %llu (off by %lld ns)", name, i,
                  e->enter ? "Enter" : "Leave", region, (unsigned long long)e->time, (unsigned long long)x[i].time,
                  (long long)error);
        if (e->enter)
            stack[depth++] = e->region;
        else {
            cr_assert(depth && stack[depth - 1] == e->region, "%s event %zu: Leave of '%s' without its Enter", name,
                      i, region);
            depth--;
        }
    }
    cr_assert_eq(depth, 0, "%s: %zu regions left open", name, depth);
}

/* ---- the expected device-thread timelines ---- */

static const expected thread0[] = {
    {1, T0 + 2000, "parallel"},
    {1, T0 + 3000, "implicit task"},
    {1, T0 + 4000, "loop"},
    {0, T0 + 500000, "loop"},
    {1, T0 + 501000, "implicit barrier"},
    {0, T0 + 600000, "implicit barrier"},
    {0, T0 + 601000, "implicit task"},
    {0, T0 + 602000, "parallel"},
    {1, T0 + 700000, "offtrace: device records lost"},
    {0, T0 + 700000, "offtrace: device records lost"},
};

static const expected thread1[] = {
    {1, T0 + 590000, "implicit barrier"},
    {0, T1, "implicit barrier"}, /* reported 40 us after the target ended: clamped to its end */
};

static const expected thread2[] = {
    /* the END at T0 + 5000 had no BEGIN: dropped */
    {1, T0 + 6000, "parallel"},
    {1, T0 + 7000, "implicit task"},
    {0, T0 + 8000, "implicit task"},
    {0, T0 + 8000, "parallel"}, /* never ended: closed at the location's last time */
};

static const expected queue[] = {
    {1, T0 + 100000, "memcpy host->device"},
    {0, T0 + 300000, "memcpy host->device"},
    {1, T0 + 301000, "memcpy host->device (kernel launch)"},
    {0, T0 + 302000, "memcpy host->device (kernel launch)"},
    {1, T0 + 310000, "memset (runtime's own)"},
    {0, T0 + 320000, "memset (runtime's own)"},
    {1, T0 + 400000, "kernel (device)"},
    {0, T0 + 700000, "kernel (device)"},
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* A converted recording with the given options; the archive keeps every rule. */
/* A recording of \p targets target regions (options.many_devices, second_target), converted and checked. */
static void convert_recording_of_targets(char *dir, size_t size, const char *name, const options *o, uint64_t targets)
{
    make_recording(dir, size, name, o);
    convert(dir);
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.target, targets);
}

static void convert_recording(char *dir, size_t size, const char *name, const options *o)
{
    make_recording(dir, size, name, o);
    convert(dir);
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.device_threads, 3);
    cr_assert_eq(f.target, 1);
}

Test(device_conversion, device_threads_land_at_their_true_host_times)
{
    char dir[4096];
    options o = {0};
    convert_recording(dir, sizeof dir, "devconv-times", &o);
    trace *t = read_trace(dir);
    expect_events(t, DEVICE_THREAD_LOCATION(0, 0), "device 0 thread 0", thread0, COUNT(thread0));
    expect_events(t, DEVICE_THREAD_LOCATION(0, 1), "device 0 thread 1", thread1, COUNT(thread1));
    free_trace(t);
    cr_assert_eq(property(dir, "OFFTRACE::CLOCK_SYNC_POINTS"), 2);
    cr_assert_eq(property(dir, "OFFTRACE::CLOCK_SYNC_POINTS_IMPRECISE"), 0);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_RECORDS"), DEVICE_RECORD_COUNT);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_LOCATIONS"), 4);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_RECORDS_WITHOUT_DEVICE"), 0);
    cr_assert_eq(property(dir, "OFFTRACE::IGNORED_STREAMS"), 0);
}

/* The event times of device thread 1 (\p count of them), its late barrier END (the second) checked: clamped to
 * its target's end. */
static uint64_t *thread1_times(const char *dir, size_t count)
{
    uint64_t *times = NULL;
    size_t n = 0;
    cr_assert_eq(archive_location_times(dir, DEVICE_THREAD_LOCATION(0, 1), &times, &n), 0);
    cr_assert_eq(n, count);
    cr_assert_eq(times[1], T1, "late barrier END at %llu, target end %llu", (unsigned long long)times[1],
                 (unsigned long long)T1);
    return times;
}

Test(device_conversion, late_record_is_clamped_to_its_target_end)
{
    char dir[4096];
    options o = {0};
    convert_recording(dir, sizeof dir, "devconv-clamp", &o);
    free(thread1_times(dir, 2));
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_EVENTS_CLAMPED_TO_TARGET"), 1);
    /* the barrier END lay 40 us after its target's end (T1 + 40000); nothing lay before a target */
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_AFTER_TARGET_NS"), 40000);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_BEFORE_TARGET_NS"), 0);
}

/* A location's records of one target region, then of the next: each placed in its own region (the device pass
 * keeps the span of the location's last record: it must not outlive its region). */
Test(device_conversion, records_of_the_next_target_region_are_placed_in_it)
{
    char dir[4096];
    options o = {.second_target = 1};
    convert_recording_of_targets(dir, sizeof dir, "devconv-second-target", &o, 2);
    uint64_t *times = thread1_times(dir, 4);
    cr_assert_eq(times[2], SECOND_T0, "early BEGIN at %llu, its target's begin %llu", (unsigned long long)times[2],
                 (unsigned long long)SECOND_T0);
    cr_assert_eq(times[3], SECOND_T0 + 5000, "END at %llu, inside its target", (unsigned long long)times[3]);
    free(times);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_EVENTS_CLAMPED_TO_TARGET"), 2);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_BEFORE_TARGET_NS"), 5000);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_AFTER_TARGET_NS"), 40000);
}

Test(device_conversion, queue_records_delivered_out_of_order_are_ordered_by_time)
{
    char dir[4096];
    options o = {0};
    convert_recording(dir, sizeof dir, "devconv-queue", &o);
    trace *t = read_trace(dir);
    char name[64];
    snprintf(name, sizeof name, "device 0 queue %u", QUEUE);
    expect_events(t, DEVICE_QUEUE_LOCATION(0, 0), name, queue, COUNT(queue));
    free_trace(t);
}

/* Issue 17: a copy's bytes and a kernel's launch configuration (split by the
 * collector over its BEGIN and END records) land on the activity's Enter. */
Test(device_conversion, queue_activities_carry_bytes_and_launch_configuration)
{
    char dir[4096];
    options o = {0};
    convert_recording(dir, sizeof dir, "devconv-detail", &o);
    trace *t = read_trace(dir);
    trace_location *q = location_by_id(t, DEVICE_QUEUE_LOCATION(0, 0));
    cr_assert_not_null(q);
    cr_assert_eq(q->count, 8);
    cr_assert_str_eq(region_name(t, &q->events[0]), "memcpy host->device"); /* a host data op's copy */
    cr_assert_str_eq(region_name(t, &q->events[2]), "memcpy host->device (kernel launch)");
    /* op: the host operation that caused it (its data op, the launch), without the collector's submit bit */
    cr_assert_str_eq(q->events[0].detail, "op=79 bytes=4096");
    cr_assert_str_eq(q->events[2].detail, "op=78 bytes=16");
    cr_assert_str_eq(q->events[4].detail, "bytes=64");
    cr_assert_str_eq(q->events[6].detail, "op=78 grid=80x3x2 block=128x2x1 registers=40 shared=5120");
    cr_assert_str_eq(q->events[1].detail, "");
    cr_assert_str_eq(q->events[7].detail, "");
    free_trace(t);
}

Test(device_conversion, unmatched_end_is_dropped_and_open_begin_is_closed)
{
    char dir[4096];
    options o = {0};
    convert_recording(dir, sizeof dir, "devconv-unmatched", &o);
    trace *t = read_trace(dir);
    expect_events(t, DEVICE_THREAD_LOCATION(0, 2), "device 0 thread 2", thread2, COUNT(thread2));
    free_trace(t);
    cr_assert_eq(property(dir, "OFFTRACE::UNMATCHED_DEVICE_END_RECORDS"), 1);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_REGIONS_OPEN_AT_END"), 1);
}

Test(device_conversion, lost_records_are_counted_and_marked)
{
    char dir[4096];
    options o = {0};
    make_recording(dir, sizeof dir, "devconv-lost", &o);
    convert(dir);
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.device_lost_markers, 1, "one marker, on thread 0; none for the thread without a buffer");
    cr_assert_eq(property(dir, "OFFTRACE::LOST_DEVICE_RECORDS"), 42 + 8);
    trace *t = read_trace(dir);
    trace_location *l = location_by_id(t, DEVICE_THREAD_LOCATION(0, 0));
    cr_assert_not_null(l);
    cr_assert_eq(l->count, COUNT(thread0));
    cr_assert_str_eq(region_name(t, &l->events[8]), "offtrace: device records lost");
    cr_assert_null(location_by_name(t, "device 0 thread 4294967295"));
    cr_assert_null(location_by_id(t, DEVICE_THREAD_LOCATION(0, 0xFFFF)));
    size_t device_locations = 0;
    for (size_t i = 0; i < t->location_count; i++)
        device_locations += (t->locations[i].id >> 32) >= 2;
    cr_assert_eq(device_locations, 4, "threads 0, 1, 2 and queue 5");
    free_trace(t);
}

Test(device_conversion, zero_tail_of_an_untrimmed_file_is_ignored)
{
    char dir[4096];
    options o = {.zero_tail = 1};
    convert_recording(dir, sizeof dir, "devconv-zero-tail", &o);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_RECORDS"), DEVICE_RECORD_COUNT);
    cr_assert_eq(property(dir, "OFFTRACE::UNMATCHED_DEVICE_END_RECORDS"), 1);
    cr_assert_eq(property(dir, "OFFTRACE::LOST_DEVICE_RECORDS"), 42 + 8);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_LOCATIONS"), 4);
    trace *t = read_trace(dir);
    expect_events(t, DEVICE_THREAD_LOCATION(0, 0), "device 0 thread 0", thread0, COUNT(thread0));
    free_trace(t);
}

Test(device_conversion, device_file_of_another_version_is_ignored_and_counted)
{
    char dir[4096];
    options o = {.foreign_file = 1};
    convert_recording(dir, sizeof dir, "devconv-foreign", &o);
    cr_assert_eq(property(dir, "OFFTRACE::IGNORED_STREAMS"), 1);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_RECORDS"), DEVICE_RECORD_COUNT, "the foreign file's records are not counted");
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_LOCATIONS"), 4);
    trace *t = read_trace(dir);
    expect_events(t, DEVICE_THREAD_LOCATION(0, 0), "device 0 thread 0", thread0, COUNT(thread0));
    free_trace(t);
}

Test(device_conversion, wide_sync_pair_is_not_used)
{
    char dir[4096];
    options o = {.bad_pair = 1};
    convert_recording(dir, sizeof dir, "devconv-wide-pair", &o);
    cr_assert_eq(property(dir, "OFFTRACE::CLOCK_SYNC_POINTS_IMPRECISE"), 1);
    cr_assert_eq(property(dir, "OFFTRACE::CLOCK_SYNC_POINTS"), 2);
    trace *t = read_trace(dir);
    expect_events(t, DEVICE_THREAD_LOCATION(0, 0), "device 0 thread 0", thread0, COUNT(thread0));
    expect_events(t, DEVICE_THREAD_LOCATION(0, 1), "device 0 thread 1", thread1, COUNT(thread1));
    char name[64];
    snprintf(name, sizeof name, "device 0 queue %u", QUEUE);
    expect_events(t, DEVICE_QUEUE_LOCATION(0, 0), name, queue, COUNT(queue));
    free_trace(t);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_EVENTS_CLAMPED_TO_TARGET"), 1);
    /* the barrier END lay 40 us after its target's end (T1 + 40000); nothing lay before a target */
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_AFTER_TARGET_NS"), 40000);
    cr_assert_eq(property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_BEFORE_TARGET_NS"), 0);
}

/* The converter keeps 64 devices; records of any further device are counted,
 * never dropped without a word. Devices 0..63 are kept here, 64..70 are not. */
Test(device_conversion, records_of_devices_beyond_the_limit_are_counted)
{
    char dir[4096];
    options o = {.many_devices = 1};
    convert_recording_of_targets(dir, sizeof dir, "devconv-many-devices", &o, 71);
    cr_assert_eq(property(dir, "OFFTRACE::RECORDS_OF_DEVICES_BEYOND_LIMIT"), 7 * 2);
}

/* Convert \p dir with stderr on \p fd and progress after 1 ns; what came on
 * \p reader (read once the conversion is over). */
static char *convert_with_stderr_on(const char *dir, int fd, int reader)
{
    ot_convert_options opts;
    memset(&opts, 0, sizeof opts);
    opts.progress_after_ns = 1;
    char msg[512] = "";
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    cr_assert_geq(saved, 0);
    dup2(fd, STDERR_FILENO);
    int rc = ot_convert_directory(dir, &opts, msg, sizeof msg);
    dup2(saved, STDERR_FILENO);
    close(saved);
    cr_assert_eq(rc, 0, "%s", msg);
    /* A pipe has it all now; a pty passes it on a moment later: read until
     * the erasing sequence or 2 s of silence. */
    static char got[4096];
    size_t used = 0;
    fcntl(reader, F_SETFL, O_NONBLOCK);
    for (int quiet = 0; quiet < 20 && used < sizeof got - 1;) {
        ssize_t n = read(reader, got + used, sizeof got - 1 - used);
        if (n > 0) {
            used += (size_t)n;
            got[used] = '\0';
            if (used >= 4 && !strcmp(got + used - 4, "\r\033[K"))
                break;
            continue;
        }
        if (!isatty(fd))
            break;
        quiet++;
        usleep(100000);
    }
    got[used] = '\0';
    return got;
}

/* Progress is drawn only on a terminal, then erased; never in a pipe. */
Test(device_conversion, progress_shows_on_a_terminal_only_and_is_erased)
{
    char dir[4096];
    options o = {0};
    make_recording(dir, sizeof dir, "devconv-progress-tty", &o);
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    cr_assert_geq(master, 0);
    cr_assert_eq(grantpt(master), 0);
    cr_assert_eq(unlockpt(master), 0);
    int terminal = open(ptsname(master), O_RDWR | O_NOCTTY);
    cr_assert_geq(terminal, 0);
    const char *got = convert_with_stderr_on(dir, terminal, master);
    static const char line[] = "\rofftrace: writing the archive: ";
    cr_assert(!strncmp(got, line, sizeof line - 1), "no progress on a terminal: '%s'", got);
    cr_assert(strstr(got, " % of the records, "), "%s", got);
    size_t n = strlen(got);
    cr_assert(n > 4 && !strcmp(got + n - 4, "\r\033[K"), "the progress line is not erased: '%s'", got);
    close(terminal);
    close(master);

    make_recording(dir, sizeof dir, "devconv-progress-pipe", &o);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    got = convert_with_stderr_on(dir, fds[1], fds[0]);
    cr_assert_str_eq(got, "", "progress in a pipe: '%s'", got);
    close(fds[0]);
    close(fds[1]);
}

/* ---- issue 17: a launch and its kernel's run on the device, paired ---- */

/* The Enter on \p l of the region named \p region (a prefix) whose detail is \p detail, or NULL. */
static const event *enter_with(const trace *t, const trace_location *l, const char *region, const char *detail)
{
    for (size_t i = 0; l && i < l->count; i++)
        if (l->events[i].enter && !strncmp(region_name(t, &l->events[i]), region, strlen(region)) &&
            !strcmp(l->events[i].detail, detail))
            return &l->events[i];
    return NULL;
}

/* The Leave that closes the Enter \p e on \p l (activities on a location do not overlap here). */
static const event *leave_of(const trace_location *l, const event *e)
{
    for (const event *x = e + 1; x < l->events + l->count; x++)
        if (!x->enter && x->region == e->region)
            return x;
    return NULL;
}

/* The host's launch of a kernel (on its stream location) and the device's
 * own run of it (on its queue) carry one host operation; so do a data op
 * and the copy it caused. */
Test(device_conversion, launch_and_its_kernel_on_the_device_carry_one_host_operation)
{
    char dir[4096];
    options o = {.gpu_launches = 1};
    make_recording(dir, sizeof dir, "devconv-host-op", &o);
    convert(dir);
    archive_facts f;
    check_archive(dir, &f);
    trace *t = read_trace(dir);
    trace_location *stream = location_by_id(t, offtrace_location_id(OFFTRACE_LOC_KERNEL_STREAM, 0, 0));
    trace_location *q = location_by_id(t, DEVICE_QUEUE_LOCATION(0, 0));
    cr_assert_not_null(stream);
    cr_assert_not_null(q);
    char op[32];
    for (int i = 0; i < LAUNCHES; i++) {
        snprintf(op, sizeof op, "op=%llu", (unsigned long long)LAUNCH_OP(i));
        const event *launch = enter_with(t, stream, "", op);
        cr_assert_not_null(launch, "no launch carries %s", op);
        cr_assert_eq(launch->time, launch_begin[i]);
        if (i < 2)
            cr_assert_not_null(enter_with(t, q, "kernel (device)", op), "no kernel on the device carries %s", op);
    }
    cr_assert_not_null(enter_with(t, q, "kernel (device)", "op=999"));
    cr_assert_not_null(enter_with(t, q, "memcpy host->device", "op=79 bytes=4096"));
    const event *data_op = NULL;
    for (size_t i = 0; i < t->location_count && !data_op; i++)
        if (&t->locations[i] != q)
            data_op = enter_with(t, &t->locations[i], "data op host->device", "op=79");
    cr_assert_not_null(data_op, "the host's data op does not carry its operation");
    cr_assert_eq(data_op->time, COPY_BEGIN);
    free_trace(t);
}

static uint64_t at_least(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* On a GPU a kernel's time is its run on the device, not its launch: the
 * report's kernel times are exactly the archive's device spans of the paired
 * kernels, a launch without its kernel keeps its launch span, and the
 * launch latency is the device start less the launch begin. */
Test(device_conversion, report_takes_kernel_times_from_the_device)
{
    char dir[4096];
    options o = {.gpu_launches = 1};
    make_recording(dir, sizeof dir, "devconv-report", &o);
    convert(dir);
    trace *t = read_trace(dir);
    trace_location *stream = location_by_id(t, offtrace_location_id(OFFTRACE_LOC_KERNEL_STREAM, 0, 0));
    trace_location *q = location_by_id(t, DEVICE_QUEUE_LOCATION(0, 0));
    uint64_t run[2], latency = 0, latency_max = 0, unpaired_launch_ns = 0;
    char op[32];
    for (int i = 0; i < LAUNCHES; i++) {
        snprintf(op, sizeof op, "op=%llu", (unsigned long long)LAUNCH_OP(i));
        const event *launch = enter_with(t, stream, "", op);
        cr_assert_not_null(launch);
        if (i == 2) {
            unpaired_launch_ns = leave_of(stream, launch)->time - launch->time;
            continue;
        }
        const event *k = enter_with(t, q, "kernel (device)", op);
        cr_assert_not_null(k);
        run[i] = leave_of(q, k)->time - k->time;
        /* the truth, through the clock sync (rounding: a few ns) */
        cr_assert(run[i] + 4 >= kernel_ns[i] && run[i] <= kernel_ns[i] + 4, "kernel %d ran %llu ns on the device", i,
                  (unsigned long long)run[i]);
        latency += k->time - launch->time;
        latency_max = at_least(latency_max, k->time - launch->time);
    }
    cr_assert_eq(unpaired_launch_ns, LAUNCH_NS);
    free_trace(t);

    ot_report r;
    char err[512] = "";
    cr_assert_eq(ot_report_collect(dir, &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ot_report_find(&r), 0);
    cr_assert_eq(r.device_count, 1);
    const ot_rp_device *d = &r.devices[0];
    cr_assert_eq(d->kernel_time, OT_RP_KERNEL_TIME_DEVICE);
    cr_assert_eq(d->kernels, LAUNCHES);
    cr_assert_eq(d->kernel_ns, run[0] + run[1] + LAUNCH_NS, "kernel time %llu, the device's %llu + %llu + launch %llu",
                 (unsigned long long)d->kernel_ns, (unsigned long long)run[0], (unsigned long long)run[1],
                 (unsigned long long)LAUNCH_NS);
    cr_assert_eq(d->kernel_max_ns, at_least(run[0], run[1]));
    cr_assert_eq(d->launches_paired, 2);
    cr_assert_eq(d->launches_unpaired, 1);
    cr_assert_eq(d->device_kernels_unpaired, 1, "the kernel of operation 999 had no launch");
    cr_assert_eq(d->latency_ns, latency);
    cr_assert_eq(d->latency_max_ns, latency_max);
    cr_assert_eq(r.kernel_count, 1);
    cr_assert_eq(r.kernels[0].count, LAUNCHES);
    cr_assert_eq(r.kernels[0].total_ns, d->kernel_ns);
    cr_assert_eq(r.kernels[0].max_ns, d->kernel_max_ns);
    uint64_t site_kernel_ns = 0, site_kernels = 0;
    for (size_t i = 0; i < r.site_count; i++)
        site_kernel_ns += r.sites[i].kernel_ns, site_kernels += r.sites[i].kernels;
    cr_assert_eq(site_kernels, LAUNCHES);
    cr_assert_eq(site_kernel_ns, d->kernel_ns);

    /* the device's start-up is its one instance: its kernels, paired or not, as the tables say */
    cr_assert_eq(d->startup.kernel_ns, d->kernel_ns);

    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    ot_rp_options opts = {0};
    ot_report_print_text(&r, &opts, out);
    fclose(out);
    for (char *from = text, *to = text;; from++) { /* lines joined: words wrap anywhere */
        if (*from == '\n')
            for (*from = ' '; from[1] == ' ';)
                from++;
        if (!(*to++ = *from))
            break;
    }
    cr_assert(strstr(text, "device 0: kernel time is each kernel's run on the device, paired with its launch (2"),
              "%s", text);
    cr_assert(strstr(text, "1 launches whose kernel the device did not record"), "%s", text);
    free(text);
    ot_report_free(&r);
}

/* ---- issue 18: a stream read once, then a device or a data region after all ----
 *
 * Each stream is written as it is first read (third and sixth rounds); a
 * look at each stream's first window (16384 records) finds a task or
 * enter-data record that comes early. Here the records after 9,000 buffer
 * flushes (18,000 records) come after that window. A device met there gets
 * its group, timeline and RDMA location where it is met (sixth round: no
 * counting pass for devices). An enter-data construct there needs its
 * stream paired first: the attempt stops before it and the conversion
 * starts again with the counting pass. Either way the archive must be the
 * whole recording, not the part an attempt wrote. */
#define LATE_FLUSHES 9000u

/* A recording of one stream: LATE_FLUSHES flushes, then \p late's records. */
static void write_late_recording(const char *dir, const offtrace_raw_record *late, size_t late_count)
{
    char text[256];
    int len = snprintf(text, sizeof text, "1 host\n"); /* no offload device listed */
    write_file(dir, "devices.txt", text, (size_t)len);

    const size_t chunk = 2u << 20;
    cr_assert_gt(2 * LATE_FLUSHES, OT_RAW_WINDOW_RECORDS, "the late records must come after the first window");
    char *stream = calloc(1, OFFTRACE_RAW_HEADER_SIZE + chunk);
    cr_assert_not_null(stream);
    offtrace_raw_stream_header *h = (offtrace_raw_stream_header *)stream;
    raw_main_thread_header(h, chunk);
    offtrace_raw_record *r = (offtrace_raw_record *)(stream + OFFTRACE_RAW_HEADER_SIZE);
    size_t n = 0;
    for (uint64_t i = 0; i < LATE_FLUSHES; i++) {
        r[n] = host_record(OFFTRACE_RAW_FLUSH, OFFTRACE_RAW_BEGIN, NS0 + 1000 + i * 100);
        r[n++].id = i + 1;
        r[n] = host_record(OFFTRACE_RAW_FLUSH, OFFTRACE_RAW_END, NS0 + 1050 + i * 100);
        r[n++].id = i + 1;
    }
    memcpy(&r[n], late, late_count * sizeof *late);
    write_file(dir, "thread-0.rec", stream, OFFTRACE_RAW_HEADER_SIZE + chunk);
    free(stream);
}

Test(device_conversion, a_device_met_late_in_a_stream_read_once_gets_its_group_there)
{
    char dir[4096];
    make_recording_dir(dir, sizeof dir, "devconv-read-once-late-device");
    offtrace_raw_record late[2];
    late[0] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_BEGIN, T0);
    late[0].id = TARGET_ID, late[0].subkind = ompt_target, late[0].dst_device = 0;
    late[1] = host_record(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_END, T1);
    late[1].id = TARGET_ID, late[1].subkind = ompt_target, late[1].dst_device = 0;
    write_late_recording(dir, late, 2);

    convert(dir);
    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(property(dir, "OFFTRACE::RECORDS"), 2 * LATE_FLUSHES + 2);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_BUFFER_FLUSH], LATE_FLUSHES);
    cr_expect_eq(property(dir, "OFFTRACE::BUFFER_FLUSHES"), LATE_FLUSHES);
    cr_expect_eq(f.target, 1);
    cr_expect_eq(f.devices, 1, "the device the target region ran on has its group");
    cr_expect_eq(f.rdma_locations, 1);
}

Test(device_conversion, an_enter_data_met_late_in_a_stream_read_once_starts_the_conversion_again)
{
    char dir[4096];
    make_recording_dir(dir, sizeof dir, "devconv-read-once-late-enter-data");
    offtrace_raw_record late[4];
    const uint8_t kinds[4] = {ompt_target_enter_data, ompt_target_enter_data, ompt_target_exit_data,
                              ompt_target_exit_data};
    for (int i = 0; i < 4; i++) {
        late[i] = host_record(OFFTRACE_RAW_TARGET, i % 2 ? OFFTRACE_RAW_END : OFFTRACE_RAW_BEGIN,
                              T0 + (uint64_t)i * 100);
        late[i].id = TARGET_ID + (uint64_t)i / 2, late[i].subkind = kinds[i], late[i].dst_device = 0;
    }
    write_late_recording(dir, late, 4);

    convert(dir);
    archive_facts f;
    check_archive(dir, &f);
    cr_expect_eq(property(dir, "OFFTRACE::RECORDS"), 2 * LATE_FLUSHES + 4);
    cr_expect_eq(f.enters[OFFTRACE_CLASS_BUFFER_FLUSH], LATE_FLUSHES, "once: not the attempt's flushes as well");
    cr_expect_eq(f.enter_data, 1);
    cr_expect_eq(f.exit_data, 1);
    cr_expect_eq(f.devices, 1);
}

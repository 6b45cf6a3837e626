/**
 * \file summary.c
 * \brief The summary of summary.h: a visitor of the one archive reader
 *        (trace_read.h) that counts constructs, kernels and transfers, and
 *        the archive's properties.
 */
#define _GNU_SOURCE
#include "summary.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "offtrace/offtrace.h"
#include "trace_read.h"
#include "write_counts.h"

/* ---- the visitor ---- */

static uint64_t number_property(const ot_tr_archive *a, const char *name)
{
    const char *value = ot_tr_property(a, name);
    return value ? strtoull(value, NULL, 10) : 0;
}

static void read_properties(const ot_tr_archive *a, ot_summary *s)
{
    s->device_records = number_property(a, "OFFTRACE::DEVICE_RECORDS");
    s->device_locations = number_property(a, "OFFTRACE::DEVICE_LOCATIONS");
    s->lost_device_records = number_property(a, "OFFTRACE::LOST_DEVICE_RECORDS");
    s->device_clamped = number_property(a, "OFFTRACE::DEVICE_EVENTS_CLAMPED_TO_TARGET");
    s->unshown_device_records = number_property(a, "OFFTRACE::RECORDS_OF_DEVICES_BEYOND_LIMIT");
    s->data_regions_without_exit = number_property(a, "OFFTRACE::DATA_REGIONS_WITHOUT_EXIT");
    s->buffer_flushes = number_property(a, "OFFTRACE::BUFFER_FLUSHES");
    s->background_writeback_bytes = number_property(a, "OFFTRACE::BACKGROUND_WRITEBACK_BYTES");
    s->lost_by_cause[0] = number_property(a, "OFFTRACE::LOST_DISK_FULL");
    s->lost_by_cause[1] = number_property(a, "OFFTRACE::LOST_SIZE_LIMIT");
    s->lost_by_cause[2] = number_property(a, "OFFTRACE::LOST_NO_DESCRIPTOR");
    s->lost_by_cause[3] = number_property(a, "OFFTRACE::LOST_OTHER_ERRORS");
    s->max_recording_size = number_property(a, "OFFTRACE::MAX_RECORDING_SIZE");
    s->size_limit_reached = number_property(a, "OFFTRACE::SIZE_LIMIT_REACHED") != 0;
    s->ignored_streams = number_property(a, "OFFTRACE::IGNORED_STREAMS");
    s->ignored_other_version = number_property(a, "OFFTRACE::IGNORED_STREAMS_OTHER_VERSION");
    s->ignored_damaged = number_property(a, "OFFTRACE::IGNORED_STREAMS_DAMAGED");
    s->ignored_not_regular = number_property(a, "OFFTRACE::IGNORED_STREAMS_NOT_REGULAR_FILE");
    s->ignored_duplicate = number_property(a, "OFFTRACE::IGNORED_STREAMS_DUPLICATE_THREAD");
    s->ignored_unreadable = number_property(a, "OFFTRACE::IGNORED_STREAMS_UNREADABLE");
    s->device_records_without_location = number_property(a, "OFFTRACE::DEVICE_RECORDS_WITHOUT_LOCATION");
    s->device_records_of_unknown_targets = number_property(a, "OFFTRACE::DEVICE_RECORDS_OF_UNKNOWN_TARGETS");
    s->device_records_outside_target = number_property(a, "OFFTRACE::DEVICE_RECORDS_OUTSIDE_TARGET");
    s->device_records_without_device = number_property(a, "OFFTRACE::DEVICE_RECORDS_WITHOUT_DEVICE");
    s->damaged_records = number_property(a, "OFFTRACE::DAMAGED_RECORDS");
    s->unusable_maps = number_property(a, "OFFTRACE::UNUSABLE_MAPS_SNAPSHOTS");
    s->damaged_clock_pairs = number_property(a, "OFFTRACE::DAMAGED_CLOCK_PAIRS");
    s->lost_records = number_property(a, "OFFTRACE::LOST_RECORDS");
    s->unfinished = number_property(a, "OFFTRACE::UNFINISHED_OPERATIONS");
    s->measurement_off_switches = number_property(a, "OFFTRACE::MEASUREMENT_OFF_SWITCHES");
    s->measurement_off_ns = number_property(a, "OFFTRACE::MEASUREMENT_OFF_NS");
    s->device_records_while_off = number_property(a, "OFFTRACE::DEVICE_RECORDS_WHILE_OFF");
    s->user_calls_dropped = number_property(a, "OFFTRACE::USER_CALLS_DROPPED");
    const char *value = ot_tr_property(a, "OFFTRACE::CONVERSION_SECONDS");
    s->conversion_s = value ? strtod(value, NULL) : 0;
    value = ot_tr_property(a, "OFFTRACE::PARTIAL");
    snprintf(s->partial, sizeof s->partial, "%s", value ? value : "no");
    snprintf(s->creator, sizeof s->creator, "%s", ot_tr_creator(a));
    value = ot_tr_property(a, "OFFTRACE::FILTER");
    snprintf(s->filter, sizeof s->filter, "%s", value ? value : "");
    value = ot_tr_property(a, "OFFTRACE::FILTER_STATUS");
    snprintf(s->filter_status, sizeof s->filter_status, "%s", value ? value : "");
    s->filter_removed_user = number_property(a, "OFFTRACE::FILTER_REMOVED_USER_REGIONS") +
                             number_property(a, "OFFTRACE::FILTER_REMOVED_USER_EVENTS") +
                             number_property(a, "OFFTRACE::FILTER_REMOVED_USER_VALUES") +
                             number_property(a, "OFFTRACE::FILTER_REMOVED_NVTX");
    s->filter_removed_openmp = number_property(a, "OFFTRACE::FILTER_REMOVED_OPENMP_CONSTRUCTS");
    s->nvtx_events = number_property(a, "OFFTRACE::NVTX_EVENTS");
    s->nvtx_pops_without_push = number_property(a, "OFFTRACE::NVTX_POPS_WITHOUT_PUSH");
    s->nvtx_unknown_ends = number_property(a, "OFFTRACE::NVTX_ENDS_OF_UNKNOWN_RANGES");
    s->nvtx_null_messages = number_property(a, "OFFTRACE::NVTX_NULL_MESSAGES");
    s->nvtx_unsupported = number_property(a, "OFFTRACE::NVTX_UNSUPPORTED_CALLS");
    s->nvtx_before_recording = number_property(a, "OFFTRACE::NVTX_CALLS_BEFORE_RECORDING");
    s->nvtx_unmatched = number_property(a, "OFFTRACE::NVTX_UNMATCHED_ENDS");
    s->map_named = number_property(a, "OFFTRACE::MAP_NAMED_OPERATIONS");
    s->map_without_debug_info = number_property(a, "OFFTRACE::MAP_OPERATIONS_WITHOUT_DEBUG_INFO");
    s->map_not_captured = number_property(a, "OFFTRACE::MAP_OPERATIONS_NOT_CAPTURED");
}

/* The sites the report's tables name: construct regions of the program's
 * code (target, data, the omp_target_* calls). Device-side regions are left
 * out: their sites in libomptarget never have lines, with -g or without. */
static void count_sites(const ot_tr_archive *a, ot_summary *s)
{
    for (size_t i = 0; i < ot_tr_region_count(a); i++) {
        const ot_tr_region *r = ot_tr_region_at(a, i);
        if (!r || !r->site[0] || (r->klass != OT_TR_TARGET && r->klass != OT_TR_TARGET_DATA && r->klass != OT_TR_API))
            continue;
        s->sites++;
        if (r->file[0] && r->line)
            continue;
        if (!s->sites_without_line++)
            snprintf(s->site_without_line, sizeof s->site_without_line, "%s", r->site);
    }
}

/* Counts from the definitions: events as the locations announce them; device
 * streams are the kernel streams and RDMA rows less one RDMA row per device
 * (an accelerator location group). */
static void count_definitions(ot_summary *s, const ot_tr_archive *a)
{
    uint64_t streams = 0;
    for (size_t i = 0; i < ot_tr_location_count(a); i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        s->events += l->events;
        s->host_threads += l->klass == OT_TR_HOST_THREAD;
        s->device_threads += l->klass == OT_TR_DEVICE_THREAD;
        s->device_queues += l->klass == OT_TR_DEVICE_QUEUE;
        streams += l->klass == OT_TR_KERNEL_STREAM || l->klass == OT_TR_RDMA;
    }
    s->devices = ot_tr_accelerator_groups(a);
    s->device_streams = streams > s->devices ? streams - s->devices : 0;
    uint64_t resolution = ot_tr_clock_resolution(a);
    s->duration_s = resolution ? (double)ot_tr_duration(a) / (double)resolution : 0;
    read_properties(a, s);
    count_sites(a, s);
}

/* \p n instances of region \p r on \p loc: the one rule of both ways to
 * count (the events read back, the writer's counts). A kernel is any region
 * instance on a kernel stream; constructs are counted wherever they begin. */
static void count_instances(ot_summary *s, const ot_tr_location *loc, const ot_tr_region *r, uint64_t n)
{
    if (loc->klass == OT_TR_KERNEL_STREAM)
        s->kernels += n;
    else if (r->klass == OT_TR_HOST_OPENMP) {
        s->host_parallel += r->cls == OFFTRACE_CLASS_HOST_PARALLEL ? n : 0;
        s->host_work += r->cls == OFFTRACE_CLASS_HOST_WORK ? n : 0;
        s->host_chunks += r->cls == OFFTRACE_CLASS_HOST_CHUNK ? n : 0;
        s->host_sync += r->cls == OFFTRACE_CLASS_HOST_SYNC ? n : 0;
        s->host_tasks += r->cls == OFFTRACE_CLASS_HOST_TASK_CREATE ? n : 0;
        s->host_acquisitions +=
            r->cls == OFFTRACE_CLASS_HOST_MUTEX || r->cls == OFFTRACE_CLASS_HOST_NEST_LOCK_NESTED ? n : 0;
    }
    else if (r->klass == OT_TR_TARGET_DATA)
        s->constructs[OT_CONSTRUCT_DATA_REGION] += n;
    else if (r->klass == OT_TR_TARGET) {
        switch (r->construct) {
        case OT_TR_CONSTRUCT_ENTER_DATA: s->constructs[OT_CONSTRUCT_ENTER_DATA] += n; break;
        case OT_TR_CONSTRUCT_EXIT_DATA: s->constructs[OT_CONSTRUCT_EXIT_DATA] += n; break;
        case OT_TR_CONSTRUCT_UPDATE: s->constructs[OT_CONSTRUCT_UPDATE] += n; break;
        default: s->constructs[OT_CONSTRUCT_TARGET] += n; break;
        }
    }
}

/* \p n puts (\p to_device) or gets of \p bytes in all. */
static void count_transfers(ot_summary *s, int to_device, uint64_t n, uint64_t bytes)
{
    if (to_device) {
        s->h2d_count += n;
        s->h2d_bytes += bytes;
    } else {
        s->d2h_count += n;
        s->d2h_bytes += bytes;
    }
}

static int on_begin(void *user, const ot_tr_archive *a)
{
    count_definitions(user, a);
    return 0;
}

static int on_enter(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    count_instances(user, loc, span->region, 1);
    return 0;
}

/* Every put/get comes here once, completed or not. */
static int on_transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    count_transfers(user, x->to_device, 1, x->bytes);
    return 0;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

/* The archive's own files: the anchor, the global definitions, and the
 * per-location files in `traces/`. Nothing else in the directory counts. */
static uint64_t archive_size(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    uint64_t total = file_size(path);
    snprintf(path, sizeof path, "%s/%s.def", dir, OFFTRACE_ARCHIVE_NAME);
    total += file_size(path);
    snprintf(path, sizeof path, "%s/%s", dir, OFFTRACE_ARCHIVE_NAME);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char file[4700];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        total += file_size(file);
    }
    if (d)
        closedir(d);
    return total;
}

int ot_summary_read(const char *dir, ot_summary *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    /* Counts need no time order across locations (read them one by one) and no addresses. */
    ot_tr_visitor v = {.unordered = 1, .without_addresses = 1, .begin = on_begin, .enter = on_enter,
                       .transfer = on_transfer};
    int rc = ot_trace_read(dir, &v, out, err, err_size);
    if (rc)
        return rc;
    out->archive_bytes = archive_size(dir);
    return 0;
}

/* ---- the summary of what the converter has just written ---- */

_Static_assert(OT_WRITE_COUNTS_MAX_DEPTH == OT_TR_MAX_DEPTH,
               "the writer's counts leave out the Enters the reader does not deliver");

typedef struct written {
    ot_summary *s;
    const ot_write_counts *counts;
    int mismatch; /* the counts name a location or region the archive does not define */
} written;

static const ot_location_counts *counts_of_location(const ot_write_counts *c, uint64_t id, size_t *hint)
{
    for (size_t k = 0; k < c->location_count; k++) { /* mostly in the same order as the archive's */
        size_t i = (*hint + k) % c->location_count;
        if (c->locations[i]->location == id) {
            *hint = i + 1;
            return c->locations[i];
        }
    }
    return NULL;
}

/* The definitions as on_begin, then the counts through the same rule as
 * on_enter and on_transfer; the events are not read (nonzero: stop). */
static int on_written(void *user, const ot_tr_archive *a)
{
    written *w = user;
    count_definitions(w->s, a);
    size_t hint = 0, found = 0;
    for (size_t i = 0; i < ot_tr_location_count(a); i++) {
        const ot_tr_location *loc = ot_tr_location_at(a, i);
        const ot_location_counts *l = counts_of_location(w->counts, loc->id, &hint);
        if (!l) { /* every location comes from ot_tw_add_location, which counts it */
            w->mismatch = 1;
            continue;
        }
        found++;
        if (l->incomplete)
            w->mismatch = 1;
        for (uint32_t r = 0; r < l->regions; r++) {
            if (!l->enters[r])
                continue;
            const ot_tr_region *region = ot_tr_region_at(a, r);
            if (!region) {
                w->mismatch = 1;
                continue;
            }
            count_instances(w->s, loc, region, l->enters[r]);
        }
        count_transfers(w->s, 1, l->puts, l->put_bytes);
        count_transfers(w->s, 0, l->gets, l->get_bytes);
    }
    if (found != w->counts->location_count)
        w->mismatch = 1;
    return 1;
}

int ot_summary_of_written(const char *dir, const ot_write_counts *counts, ot_summary *out, char *err,
                          size_t err_size)
{
    memset(out, 0, sizeof *out);
    if (!counts) {
        snprintf(err, err_size, "offtrace: no counts of what was written");
        return -EINVAL;
    }
    written w = {out, counts, 0};
    ot_tr_visitor v = {.unordered = 1, .without_addresses = 1, .begin = on_written};
    int rc = ot_trace_read(dir, &v, &w, err, err_size);
    if (rc < 0)
        return rc;
    if (rc != 1 || w.mismatch) {
        snprintf(err, err_size, "offtrace: the counts of what was written do not match the archive '%s'", dir);
        return -EINVAL;
    }
    out->archive_bytes = archive_size(dir);
    return 0;
}

int ot_summary_after_conversion(const char *dir, const ot_write_counts *counts, ot_summary *out, char *err,
                                size_t err_size)
{
    if (counts && ot_summary_of_written(dir, counts, out, err, err_size) == 0)
        return 0;
    return ot_summary_read(dir, out, err, err_size);
}

static void human_bytes(uint64_t b, char *buf, size_t size)
{
    if (b >= (1ull << 30))
        snprintf(buf, size, "%.2f GiB", b / 1073741824.0);
    else if (b >= (1ull << 20))
        snprintf(buf, size, "%.2f MiB", b / 1048576.0);
    else if (b >= (1ull << 10))
        snprintf(buf, size, "%.1f KiB", b / 1024.0);
    else
        snprintf(buf, size, "%llu B", (unsigned long long)b);
}

/* "LOST  N records could not be stored: A disk full, B size limit, ..." */
static void print_lost_by_cause(const ot_summary *s, FILE *to)
{
    static const char *const causes[4] = {"disk full", "size limit", "no file descriptor", "other errors"};
    char text[256];
    size_t used = 0;
    for (int i = 0; i < 4; i++)
        if (s->lost_by_cause[i] && used < sizeof text)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%llu %s", used ? ", " : "",
                                     (unsigned long long)s->lost_by_cause[i], causes[i]);
    fprintf(to, "offtrace: LOST             %llu records could not be stored%s%s\n",
            (unsigned long long)s->lost_records, used ? ": " : "", used ? text : "");
}

uint64_t ot_summary_misplaced_device_events(const ot_summary *s)
{
    uint64_t normal = 2 * s->constructs[OT_CONSTRUCT_TARGET] * s->device_threads;
    return s->device_clamped > normal ? s->device_clamped : 0;
}

/* "1 thread", "2 threads". */
static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

void ot_summary_print(const ot_summary *s, const char *dir, FILE *to)
{
    char h2d[32], d2h[32], size[32];
    human_bytes(s->h2d_bytes, h2d, sizeof h2d);
    human_bytes(s->d2h_bytes, d2h, sizeof d2h);
    human_bytes(s->archive_bytes, size, sizeof size);
    fprintf(to, "offtrace: target regions   %llu target, %llu enter data, %llu exit data, %llu update, "
                "%llu data regions",
            (unsigned long long)s->constructs[OT_CONSTRUCT_TARGET],
            (unsigned long long)s->constructs[OT_CONSTRUCT_ENTER_DATA],
            (unsigned long long)s->constructs[OT_CONSTRUCT_EXIT_DATA],
            (unsigned long long)s->constructs[OT_CONSTRUCT_UPDATE],
            (unsigned long long)s->constructs[OT_CONSTRUCT_DATA_REGION]);
    if (s->data_regions_without_exit) /* an enter data no exit data ended */
        fprintf(to, " (%llu open to the thread's end: no exit data ended them)",
                (unsigned long long)s->data_regions_without_exit);
    fputc('\n', to);
    fprintf(to, "offtrace: kernels          %llu on %llu device(s)\n", (unsigned long long)s->kernels,
            (unsigned long long)s->devices);
    fprintf(to, "offtrace: host->device     %llu transfers, %llu bytes (%s)\n", (unsigned long long)s->h2d_count,
            (unsigned long long)s->h2d_bytes, h2d);
    fprintf(to, "offtrace: device->host     %llu transfers, %llu bytes (%s)\n", (unsigned long long)s->d2h_count,
            (unsigned long long)s->d2h_bytes, d2h);
    if (s->host_parallel + s->host_work + s->host_chunks + s->host_sync)
        fprintf(to, "offtrace: host OpenMP      %llu parallel region%s; on all threads %llu worksharing, %llu chunk "
                    "and section, %llu synchronization regions\n",
                (unsigned long long)s->host_parallel, plural(s->host_parallel), (unsigned long long)s->host_work,
                (unsigned long long)s->host_chunks, (unsigned long long)s->host_sync);
    if (s->host_tasks + s->host_acquisitions) /* level all */
        fprintf(to, "offtrace: host tasks       %llu explicit task%s; %llu lock acquisition%s (critical, lock, "
                    "nest lock, ordered)\n",
                (unsigned long long)s->host_tasks, plural(s->host_tasks), (unsigned long long)s->host_acquisitions,
                plural(s->host_acquisitions));
    if (s->device_records || s->device_locations)
        fprintf(to, "offtrace: device detail    %llu events on %llu device thread%s%s%.0llu%s\n",
                (unsigned long long)s->device_records, (unsigned long long)s->device_threads,
                plural(s->device_threads), s->device_queues ? " and " : "", (unsigned long long)s->device_queues,
                s->device_queues ? (s->device_queues == 1 ? " queue" : " queues") : "");
    if (ot_summary_misplaced_device_events(s))
        fprintf(to, "offtrace: device timing    %llu device events fell outside their target region on the host "
                    "clock (device clock mapping) and are drawn at its edge\n",
                (unsigned long long)s->device_clamped);
    fprintf(to, "offtrace: trace            %llu events, %llu host thread%s, %.6f s, %s on disk\n",
            (unsigned long long)s->events, (unsigned long long)s->host_threads, plural(s->host_threads),
            s->duration_s, size);
    if (s->measurement_off_switches)
        fprintf(to, "offtrace: measurement      off %llu time%s, %.6f s of %.6f s not recorded (omp_control_tool, "
                    "offtrace_user_measurement_off, OFFTRACE_START_PAUSED); shown as \"offtrace: measurement off\"\n",
                (unsigned long long)s->measurement_off_switches, plural(s->measurement_off_switches),
                (double)s->measurement_off_ns / 1e9, s->duration_s);
    if (s->conversion_live_s > 0) /* record converted while the program ran: what was left at its end */
        fprintf(to, "offtrace: conversion       %.3f s writing the archive after the program ended (%.3f s and %llu "
                    "records before, while it ran, on a core it left idle; recording cost per event: "
                    "share/doc/offtrace/performance.md)\n",
                s->conversion_s, s->conversion_live_s, (unsigned long long)s->conversion_live_records);
    else
        fprintf(to, "offtrace: conversion       %.3f s writing the archive, outside the program (recording "
                    "cost per event: share/doc/offtrace/performance.md)\n", s->conversion_s);
    if (s->buffer_flushes)
        fprintf(to, "offtrace: flushes          %llu times a thread wrote its records to disk (OFFTRACE_MEMORY_BUDGET); "
                    "shown as \"offtrace: buffer flush\"\n", (unsigned long long)s->buffer_flushes);
    if (s->background_writeback_bytes) {
        char written[32];
        human_bytes(s->background_writeback_bytes, written, sizeof written);
        fprintf(to, "offtrace: writeback        %s of records written to disk in the background "
                    "(past half of OFFTRACE_MEMORY_BUDGET)\n", written);
    }
    if (s->unshown_device_records)
        fprintf(to, "offtrace: LOST             %llu records of devices beyond the 64th are not on device rows\n",
                (unsigned long long)s->unshown_device_records);
    if (s->lost_device_records)
        fprintf(to, "offtrace: LOST             %llu device records could not be buffered or written\n",
                (unsigned long long)s->lost_device_records);
    if (s->lost_records)
        print_lost_by_cause(s, to);
    if (s->size_limit_reached) {
        char limit[32];
        human_bytes(s->max_recording_size, limit, sizeof limit);
        fprintf(to, "offtrace: SIZE LIMIT       recording stopped at %s (OFFTRACE_MAX_RECORDING_SIZE, record "
                    "--max-size); shown as \"offtrace: size limit reached\"\n", limit);
    }
    if (s->device_records_without_location)
        fprintf(to, "offtrace: LOST             %llu device records of threads or queues numbered past 65535 or "
                    "found twice\n", (unsigned long long)s->device_records_without_location);
    if (s->device_records_of_unknown_targets)
        fprintf(to, "offtrace: LOST             %llu device records name a target region the host did not record "
                    "(its records were lost, or the file is damaged)\n",
                (unsigned long long)s->device_records_of_unknown_targets);
    if (s->device_records_outside_target)
        fprintf(to, "offtrace: LOST             %llu device records could not be placed inside their target region "
                    "(its host records were lost)\n", (unsigned long long)s->device_records_outside_target);
    if (s->device_records_without_device)
        fprintf(to, "offtrace: LOST             %llu device records of a device with no host activity or no clock "
                    "pairs\n", (unsigned long long)s->device_records_without_device);
    if (s->damaged_records)
        fprintf(to, "offtrace: LOST             %llu host records of no kind the recorder writes (damaged)\n",
                (unsigned long long)s->damaged_records);
    if (s->damaged_clock_pairs)
        fprintf(to, "offtrace: IGNORED          %llu damaged lines of clock.pairs; times come from the others\n",
                (unsigned long long)s->damaged_clock_pairs);
    if (s->unusable_maps)
        fprintf(to, "offtrace: IGNORED          %llu memory map snapshots could not be read; code addresses may "
                    "lack source lines\n", (unsigned long long)s->unusable_maps);
    if (s->ignored_streams)
        fprintf(to, "offtrace: IGNORED          %llu stream files: %llu of another format version, %llu damaged, "
                    "%llu not regular files, %llu second streams of one thread, %llu unreadable\n",
                (unsigned long long)s->ignored_streams, (unsigned long long)s->ignored_other_version,
                (unsigned long long)s->ignored_damaged, (unsigned long long)s->ignored_not_regular,
                (unsigned long long)s->ignored_duplicate, (unsigned long long)s->ignored_unreadable);
    if (s->sites_without_line)
        fprintf(to, "offtrace: no source lines  %llu of %llu sites are code addresses (%s): compile with -g, or "
                    "-gline-tables-only (optimisation unchanged), for file:line\n",
                (unsigned long long)s->sites_without_line, (unsigned long long)s->sites, s->site_without_line);
    if (strcmp(s->partial, "no"))
        fprintf(to, "offtrace: PARTIAL          %s; %llu unfinished operations closed at the last event\n",
                s->partial, (unsigned long long)s->unfinished);
    if (s->user_calls_dropped)
        fprintf(to, "offtrace: user API         %llu call%s refused and not recorded (the program's stderr said "
                    "which kinds: libofftrace-user.so's error rule)\n",
                (unsigned long long)s->user_calls_dropped, plural(s->user_calls_dropped));
    if (s->filter[0] && !strcmp(s->filter_status, "applied"))
        fprintf(to, "offtrace: filter           %s: %llu user regions, events, values and NVTX ranges, %llu host "
                    "OpenMP regions removed (share/doc/offtrace/filters.md)\n", s->filter, (unsigned long long)s->filter_removed_user,
                (unsigned long long)s->filter_removed_openmp);
    else if (s->filter[0])
        fprintf(to, "offtrace: filter           REJECTED %s; traced without a filter\n",
                strncmp(s->filter_status, "rejected: ", 10) ? s->filter_status : s->filter_status + 10);
    if (s->nvtx_events)
        fprintf(to, "offtrace: NVTX             %llu ranges and marks (docs/nvtx.md)\n",
                (unsigned long long)s->nvtx_events);
    if (s->nvtx_pops_without_push + s->nvtx_unknown_ends + s->nvtx_null_messages + s->nvtx_unsupported +
        s->nvtx_before_recording + s->nvtx_unmatched)
        fprintf(to, "offtrace: NVTX IGNORED     %llu pops without push, %llu ends of unknown ranges, %llu ends "
                    "without start, %llu NULL messages, %llu wide-character or unknown calls, %llu calls before "
                    "recording started\n",
                (unsigned long long)s->nvtx_pops_without_push, (unsigned long long)s->nvtx_unknown_ends,
                (unsigned long long)s->nvtx_unmatched, (unsigned long long)s->nvtx_null_messages,
                (unsigned long long)s->nvtx_unsupported, (unsigned long long)s->nvtx_before_recording);
    /* variable names (issue 15): said once, the way to get them */
    if (s->map_without_debug_info)
        fprintf(to, "offtrace: variables        %llu data operation%s without names: compile with -g, or "
                    "-gline-tables-only (optimisation unchanged), for the mapped variables' names\n",
                (unsigned long long)s->map_without_debug_info, plural(s->map_without_debug_info));
    else if (s->map_not_captured && !s->map_named)
        fprintf(to, "offtrace: variables        not captured: `offtrace record` names the mapped variables (it "
                    "preloads libofftrace-capture.so; with OMP_TOOL_LIBRARIES alone, add it to LD_PRELOAD: "
                    "share/doc/offtrace/variables.md)\n");
    fprintf(to, "offtrace: archive          %s/%s.otf2\n", dir, OFFTRACE_ARCHIVE_NAME);
}

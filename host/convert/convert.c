#define _GNU_SOURCE
#include "convert.h"

#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "convert_internal.h"
#include "filter_info.h"
#include "host_tasks.h"
#include "host_mutex.h"
#include "progress.h"
#include "user_pass.h"
#include "mpi_pass.h"
#include "nvtx_pass.h"
#include "map_names.h" /* issue 15 */
#include "job.h"       /* issue 16 */
#include "region_memo.h" /* issue 18 */
#include "offtrace/offtrace.h"

/* ---- devices ---- */

static const char *device_kind(const converter *c, int num)
{
    for (size_t i = 0; i < c->rec.device_count; i++)
        if (c->rec.devices[i].num == num)
            return c->rec.devices[i].kind;
    return "device";
}

device_state *ot_cv_device(converter *c, int num)
{
    for (size_t i = 0; i < c->device_count; i++)
        if (c->devices[i].num == num)
            return &c->devices[i];
    if (c->device_count == MAX_DEVICES || num < 0)
        return NULL;
    device_state *d = &c->devices[c->device_count++];
    d->num = num;
    return d;
}

static int is_offload_device(const converter *c, int num)
{
    for (size_t i = 0; i < c->rec.device_count; i++)
        if (c->rec.devices[i].num == num)
            return 1;
    return 0;
}

/* The offload device a data operation touches: the end that is one of the
 * devices the runtime initialised (the other end is the host). Without a
 * device list, the end that is not the host number. */
int ot_cv_op_device(const converter *c, const offtrace_raw_record *r)
{
    if (c->rec.device_count)
        return is_offload_device(c, r->dst_device) ? r->dst_device : r->src_device;
    if (r->dst_device >= 0 && r->dst_device != c->rec.host_device)
        return r->dst_device;
    return r->src_device;
}

/* The device a record puts to use, as the catalogue says which field names
 * it; -1 for a record that names none (a kind the catalogue does not list
 * included: it must not conjure up a device). */
static int record_device(const converter *c, const offtrace_raw_record *r)
{
    switch (offtrace_source_device_field(offtrace_raw_source(r->event))) {
    case OFFTRACE_DEVICE_FIELD_DST_DEVICE: return r->dst_device;
    case OFFTRACE_DEVICE_FIELD_OP_DEVICE: return ot_cv_op_device(c, r);
    default: return -1;
    }
}

/* The kinds whose records name a device (the catalogue says which field),
 * for ot_cv_meet_device, and an explicit task's creation or schedule
 * (ot_host_tasks_note), which the task bookkeeping must see of every stream
 * before the first one is written. */
static void note_device_and_task_kinds(converter *c)
{

    memset(c->device_kinds, 0, sizeof c->device_kinds);
    memset(c->task_kinds, 0, sizeof c->task_kinds);
    for (unsigned e = 0; e < 256; e++)
        if (offtrace_source_device_field(offtrace_raw_source(e)) != OFFTRACE_DEVICE_FIELD_NONE)
            c->device_kinds[e >> 6] |= 1ull << (e & 63);
    c->task_kinds[OFFTRACE_RAW_OMP_TASK_CREATE >> 6] |= 1ull << (OFFTRACE_RAW_OMP_TASK_CREATE & 63);
    c->task_kinds[OFFTRACE_RAW_OMP_TASK_SCHEDULE >> 6] |= 1ull << (OFFTRACE_RAW_OMP_TASK_SCHEDULE & 63);
}

/* Each record as the counting pass reads it (ot_raw_count): the explicit
 * tasks' creations, known before any stream is written (a schedule is one
 * of the task kinds for the probe and the host pass's stops; the task
 * table ignores it and looks its tasks up where it is converted). */
static int note_tasks(void *context, const ot_raw_stream *s, const offtrace_raw_record *r)
{
    converter *c = context;
    if (!(c->task_kinds[r->event >> 6] >> (r->event & 63) & 1))
        return 0;
    return ot_host_tasks_note(c, r) != 0 ? -ENOMEM : 0;
}

/* A device's accelerator group, timeline and RDMA location (a member of the
 * RMA window's communicator: its rank is the order in which the window's
 * members were created, host threads included, and the puts and gets that
 * reach it name that rank). */
static int create_device(converter *c, device_state *d)
{
    char name[64];
    snprintf(name, sizeof name, "device %d RDMA", d->num);
    d->timeline = ot_dt_new(d->num, c->dir);
    if (!d->timeline || ot_tw_add_device(c->tw, d->num, device_kind(c, d->num)))
        return -ENOMEM;
    d->rdma = ot_tw_add_location(c->tw, offtrace_location_id(OFFTRACE_LOC_RDMA, d->num, 0), name, OFFTRACE_LOC_RDMA, d->num, 1,
                                 &d->rdma_rank);
    if (!d->rdma)
        return -ENOMEM;
    d->used = 1;
    ot_cv_tell_device_timeline(c, d); /* made during a pass: told at once, else it sorts everything */
    return 0;
}

int ot_cv_meet_device(converter *c, const offtrace_raw_record *r)
{
    int num = record_device(c, r);
    if (num < 0 || (int64_t)num == c->last_met_device - 1) /* the device the last one named: met already */
        return 0;
    device_state *d = ot_cv_device(c, num); /* a clock pair may have made its state, not its group */
    if (!d) { /* past MAX_DEVICES: its kernels and transfers cannot be drawn; say so */
        c->records_of_unshown_devices++;
        return 0;
    }
    c->last_met_device = (int64_t)num + 1;
    return d->used ? 0 : create_device(c, d);
}

/* ---- device memory bookkeeping ---- */

/* Open addressing keyed by the exact (device, address): GPUs hand out the
 * same virtual address on different devices. Forgotten slots become
 * tombstones so that later probes still pass them. */
enum { SLOT_EMPTY, SLOT_LIVE, SLOT_FORGOTTEN };

static size_t alloc_slot(int device, uint64_t addr, size_t capacity)
{
    return (size_t)(((addr >> 3) * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(unsigned)device) & (capacity - 1);
}

static ot_cv_alloc *alloc_find(converter *c, int device, uint64_t addr, int for_insert)
{
    size_t j = alloc_slot(device, addr, c->alloc_capacity);
    ot_cv_alloc *reusable = NULL;
    for (; c->allocs[j].state != SLOT_EMPTY; j = (j + 1) & (c->alloc_capacity - 1)) {
        ot_cv_alloc *e = &c->allocs[j];
        if (e->state == SLOT_LIVE && e->device == device && e->addr == addr)
            return e;
        if (e->state == SLOT_FORGOTTEN && !reusable)
            reusable = e;
    }
    if (!for_insert)
        return NULL;
    return reusable ? reusable : &c->allocs[j];
}

static int alloc_grow(converter *c)
{
    size_t old_capacity = c->alloc_capacity;
    ot_cv_alloc *old = c->allocs;
    c->alloc_capacity = old_capacity ? old_capacity * 2 : 1024;
    c->allocs = calloc(c->alloc_capacity, sizeof *c->allocs);
    if (!c->allocs) {
        c->allocs = old;
        c->alloc_capacity = old_capacity;
        return -ENOMEM;
    }
    c->alloc_used = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].state == SLOT_LIVE) {
            *alloc_find(c, old[i].device, old[i].addr, 1) = old[i];
            c->alloc_used++;
        }
    free(old);
    return 0;
}

int ot_cv_alloc_remember(converter *c, int device, uint64_t addr, uint64_t bytes)
{
    if ((c->alloc_used + 1) * 2 > c->alloc_capacity && alloc_grow(c) != 0)
        return -ENOMEM;
    ot_cv_alloc *e = alloc_find(c, device, addr, 1);
    if (e->state == SLOT_EMPTY)
        c->alloc_used++; /* tombstones and live slots are already counted */
    *e = (ot_cv_alloc){addr, bytes, device, SLOT_LIVE};
    return 0;
}

uint64_t ot_cv_alloc_forget(converter *c, int device, uint64_t addr)
{
    ot_cv_alloc *e = c->alloc_capacity ? alloc_find(c, device, addr, 0) : NULL;
    if (!e)
        return 0;
    e->state = SLOT_FORGOTTEN;
    return e->bytes;
}

/* ---- orchestration ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Where a converted recording's raw/ goes while it is removed: out of raw/'s
 * place at once (one rename), so that a second `offtrace convert` started
 * meanwhile finds no recording and the archive (converted already) instead
 * of claiming a raw/ half removed, whose lock file went first. */
static void raw_aside_path(const char *dir, char *out, size_t size)
{
    snprintf(out, size, "%s/.raw-being-removed.%d", dir, (int)getpid());
}

void ot_convert_remove_raw_aside(const char *dir)
{
    char aside[4300];
    raw_aside_path(dir, aside, sizeof aside);
    remove_tree(aside);
}

/* An earlier conversion may have died half way: start from a clean slate. */
static void remove_partial_archive(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    remove(path);
    snprintf(path, sizeof path, "%s/%s.def", dir, OFFTRACE_ARCHIVE_NAME);
    remove(path);
    snprintf(path, sizeof path, "%s/%s", dir, OFFTRACE_ARCHIVE_NAME);
    remove_tree(path);
}

static void set_number(ot_trace_writer *tw, const char *key, uint64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    ot_tw_property(tw, key, text);
}

/* OTF2 wants at least one CPU thread in the process: a program that never
 * offloaded left no stream, and its archive shows an empty master thread. */
static int add_empty_master_thread(converter *c)
{
    if (c->rec.stream_count)
        return 0;
    return ot_tw_add_location(c->tw, 0, "Master thread", OFFTRACE_LOC_HOST_THREAD, -1, 0, NULL) ? 0 : -ENOMEM;
}

static void set_ignored_counts(converter *c)
{
    static const char *names[OT_RAW_IGNORED_CAUSES] = {
        [OT_RAW_IGNORED_OTHER_VERSION] = "IGNORED_STREAMS_OTHER_VERSION",
        [OT_RAW_IGNORED_DAMAGED] = "IGNORED_STREAMS_DAMAGED",
        [OT_RAW_IGNORED_NOT_REGULAR_FILE] = "IGNORED_STREAMS_NOT_REGULAR_FILE",
        [OT_RAW_IGNORED_DUPLICATE_THREAD] = "IGNORED_STREAMS_DUPLICATE_THREAD",
        [OT_RAW_IGNORED_UNREADABLE] = "IGNORED_STREAMS_UNREADABLE",
    };
    set_number(c->tw, "IGNORED_STREAMS", c->rec.ignored_streams);
    for (int i = 0; i < OT_RAW_IGNORED_CAUSES; i++)
        set_number(c->tw, names[i], c->rec.ignored[i]);
}

/* The last stream that may add kernels, transfers or memory changes to a
 * device timeline (0 when none does): one counted without launches or data
 * operations (its pending begin included) adds none. From its pass on no
 * later stream adds any, and the timelines write theirs as they come. */
static size_t last_stream_adding_device_items(const converter *c)
{
    size_t last = 0;
    for (size_t i = 0; i < c->rec.stream_count; i++) {
        const ot_raw_stream *s = &c->rec.streams[i];
        if (!s->counted || ot_raw_stream_has(s, OFFTRACE_RAW_SUBMIT) || ot_raw_stream_has(s, OFFTRACE_RAW_DATA_OP))
            last = i;
    }
    return last;
}

/* Devices whose items may be written as they come: each keeps two more
 * OTF2 files open during the host passes (its kernel stream and its RDMA
 * location), and OTF2 buffers up to 4 MiB per file it writes; the others
 * are sorted in about 1.6 MiB each (docs/reliability.md). */
#define DEVICES_WRITTEN_AS_THEY_COME 4

void ot_cv_tell_device_timeline(converter *c, device_state *d)
{
    if (d->timeline)
        ot_dt_source(d->timeline, c->tw, d->rdma,
                     c->device_items_last_source && !c->sort_device_items &&
                         d - c->devices < DEVICES_WRITTEN_AS_THEY_COME);
}

/* Where the device timelines' items come from while stream \p i is
 * written (device_timeline.h): from its pass on, as they come if no later
 * stream adds any. */
void ot_cv_tell_device_timelines(converter *c, size_t i)
{
    c->device_items_last_source = i >= last_stream_adding_device_items(c);
    for (size_t k = 0; k < c->device_count; k++)
        ot_cv_tell_device_timeline(c, &c->devices[k]);
}

/* How the device items were written, for ot_convert_options.device_items. */
static void count_device_items(const converter *c, struct ot_convert_device_items *out)
{
    out->as_they_came = out->sorted = 0;
    for (size_t i = 0; i < c->device_count; i++)
        if (c->devices[i].timeline) {
            uint64_t came, sorted;
            ot_dt_counts(c->devices[i].timeline, &came, &sorted);
            out->as_they_came += came;
            out->sorted += sorted;
        }
}

/* The host threads from stream \p first on (a live conversion wrote the
 * first while the program ran: convert_live.c), then everything else. */
static int write_everything(converter *c, const ot_convert_options *opts, ot_progress *shown, size_t first)
{
    int rc = first ? 0 : add_empty_master_thread(c);
    if (rc == 0 && !first)
        rc = ot_user_pair_events(c);
    for (size_t i = first; rc == 0 && i < c->rec.stream_count; i++) {
        ot_cv_tell_device_timelines(c, i);
        rc = ot_cv_host_thread(c, &c->rec.streams[i]);
        ot_progress_add(shown, c->rec.streams[i].count);
    }
    for (size_t i = 0; rc == 0 && i < c->device_count; i++)
        if (c->devices[i].sync && ot_devsync_build(c->devices[i].sync) != 0) {
            ot_devsync_free(c->devices[i].sync);
            c->devices[i].sync = NULL;
        }
    for (size_t i = 0; rc == 0 && i < c->rec.device_stream_count; i++) {
        rc = ot_cv_device_records(c, &c->rec.device_streams[i]);
        ot_progress_add(shown, c->rec.device_streams[i].count);
    }
    for (size_t i = 0; rc == 0 && i < c->device_count; i++)
        if (c->devices[i].timeline) /* devices that only took sync points have none */
            rc = ot_dt_write(c->devices[i].timeline, c->tw, c->devices[i].rdma, &c->clipped);
    if (rc)
        return rc;
    uint64_t records = 0;
    for (size_t i = 0; i < c->rec.stream_count; i++)
        records += c->rec.streams[i].count;
    set_number(c->tw, "RECORDS", records);
    const offtrace_raw_counters *counts = &c->rec.counters;
    set_number(c->tw, "LOST_RECORDS", c->rec.lost_records + counts->lost_without_stream);
    set_number(c->tw, "LOST_DISK_FULL", counts->lost[OFFTRACE_RAW_LOSS_DISK_FULL]);
    set_number(c->tw, "LOST_SIZE_LIMIT", counts->lost[OFFTRACE_RAW_LOSS_SIZE_LIMIT]);
    set_number(c->tw, "LOST_NO_DESCRIPTOR", counts->lost[OFFTRACE_RAW_LOSS_DESCRIPTOR]);
    set_number(c->tw, "LOST_OTHER_ERRORS", counts->lost[OFFTRACE_RAW_LOSS_OTHER]);
    set_number(c->tw, "LOST_WITHOUT_STREAM", counts->lost_without_stream);
    set_number(c->tw, "RECORDING_BYTES", counts->allocated_bytes);
    if (counts->max_size != UINT64_MAX)
        set_number(c->tw, "MAX_RECORDING_SIZE", counts->max_size);
    set_number(c->tw, "SIZE_LIMIT_REACHED", counts->size_limit_reached);
    set_number(c->tw, "UNFINISHED_OPERATIONS", c->unfinished);
    if (c->data_regions_without_exit) /* only then: the archives of other programs stay as they were */
        set_number(c->tw, "DATA_REGIONS_WITHOUT_EXIT", c->data_regions_without_exit);
    set_number(c->tw, "UNMATCHED_END_RECORDS", c->unmatched);
    set_number(c->tw, "DAMAGED_RECORDS", c->damaged_records);
    set_number(c->tw, "UNUSABLE_MAPS_SNAPSHOTS", c->unusable_maps);
    set_number(c->tw, "DAMAGED_CLOCK_PAIRS", c->rec.damaged_clock_pairs);
    set_number(c->tw, "CLIPPED_TRANSFER_REGIONS", c->clipped);
    if (c->user)
        set_number(c->tw, "USER_RECORDS_UNDEFINED", c->user_records_undefined);
    if (c->user_defs_damaged)
        set_number(c->tw, "USER_DEFINITIONS_DAMAGED", c->user_defs_damaged);
    if (c->user_calls_dropped)
        set_number(c->tw, "USER_CALLS_DROPPED", c->user_calls_dropped);
    ot_nvtx_properties(c);
    ot_mpi_properties(c);
    set_ignored_counts(c);
    set_number(c->tw, "RECORDS_OF_DEVICES_BEYOND_LIMIT", c->records_of_unshown_devices);
    set_number(c->tw, "BUFFER_FLUSHES", c->buffer_flushes);
    set_number(c->tw, "BACKGROUND_WRITEBACKS", counts->background_writebacks);
    set_number(c->tw, "BACKGROUND_WRITEBACK_BYTES", counts->background_writeback_bytes);
    set_number(c->tw, "DEVICE_RECORDS", c->device_records);
    set_number(c->tw, "DEVICE_LOCATIONS", c->device_locations);
    set_number(c->tw, "LOST_DEVICE_RECORDS", c->device_lost);
    set_number(c->tw, "DEVICE_EVENTS_CLAMPED_TO_TARGET", c->device_clamped);
    set_number(c->tw, "DEVICE_CLAMPED_MAX_BEFORE_TARGET_NS", c->device_clamped_max_before_ns);
    set_number(c->tw, "DEVICE_CLAMPED_MAX_AFTER_TARGET_NS", c->device_clamped_max_after_ns);
    set_number(c->tw, "UNMATCHED_DEVICE_END_RECORDS", c->device_unmatched);
    set_number(c->tw, "DEVICE_REGIONS_OPEN_AT_END", c->device_open_at_end);
    set_number(c->tw, "DEVICE_RECORDS_WITHOUT_DEVICE", c->device_records_without_device);
    set_number(c->tw, "DEVICE_RECORDS_WITHOUT_LOCATION", c->device_records_without_location);
    set_number(c->tw, "DEVICE_RECORDS_OF_UNKNOWN_TARGETS", c->device_records_of_unknown_targets);
    set_number(c->tw, "DEVICE_RECORDS_OUTSIDE_TARGET", c->device_records_outside_target);
    set_number(c->tw, "MEASUREMENT_OFF_SWITCHES", c->measurement_off_switches);
    set_number(c->tw, "MEASUREMENT_OFF_NS", c->measurement_off_ns);
    set_number(c->tw, "DEVICE_RECORDS_WHILE_OFF", c->device_records_while_off);
    set_number(c->tw, "CLOCK_SYNC_POINTS", c->sync_points);
    set_number(c->tw, "CLOCK_SYNC_POINTS_IMPRECISE", c->sync_points_imprecise);
    char raw_dir[4200]; /* the filter, if the run had one (docs/filters.md) */
    snprintf(raw_dir, sizeof raw_dir, "%s/raw", c->dir);
    ot_cv_filter_properties(c->tw, raw_dir);
    ot_map_names_properties(c); /* issue 15 */
    ot_tw_property(c->tw, "PARTIAL", opts->reason ? opts->reason : "no");
    return 0;
}

void ot_cv_free(converter *c)
{
    ot_cv_host_thread_drop(c);
    if (c->tw)
        ot_tw_abort(c->tw);
    ot_write_counts_free(c->counts);
    for (size_t i = 0; i < c->device_count; i++) {
        ot_dt_free(c->devices[i].timeline);
        ot_devsync_free(c->devices[i].sync);
    }
    ot_target_spans_free(c->spans);
    ot_device_regions_free(c->device_regions);
    ot_mutex_locks_free(c->mutex_locks);
    free(c->allocs);
    ot_host_tasks_free(c);
    ot_user_defs_free(c);
    ot_nvtx_defs_free(c);
    ot_mpi_free(c);
    ot_map_names_free(c);
    ot_region_memo_free(c->regions);
    ot_symbolizer_close(c->sym);
    ot_raw_free(&c->rec);
    free(c);
}

/* Where the archive goes: `<dir>` itself, or for rank N of a job
 * (`<job>/rank.N`, job.h) its part `<dir>/part`, made here. */
static int archive_dir_of(const char *dir, ot_job_place *place, char *out, size_t size, char *msg, size_t msg_size)
{
    if (ot_job_locate(dir, place) != OT_JOB_PLACE_RANK) {
        snprintf(out, size, "%s", dir);
        return 0;
    }
    snprintf(out, size, "%s/part", dir);
    if (mkdir(out, 0777) == 0 || errno == EEXIST)
        return 0;
    int rc = -errno;
    snprintf(msg, msg_size, "offtrace: cannot create '%s': %s", out, strerror(errno));
    return rc;
}

/* Whether a device's activity names the host operations behind it (a
 * backend other than host-offload: CUPTI, OMPT device tracing), so that the
 * host's launches and data operations carry their operation id for readers
 * to pair them with it (issue 17). Host-offload archives, where the launch is
 * the execution, are spared the attribute on every launch and data op. */
int ot_cv_operations_paired(const ot_raw_recording *rec)
{
    for (size_t i = 0; i < rec->device_stream_count; i++)
        if (rec->device_streams[i].header.backend[0] &&
            strncmp(rec->device_streams[i].header.backend, "host-offload", sizeof rec->device_streams[i].header.backend))
            return 1;
    return 0;
}

size_t ot_cv_max_locations(const ot_raw_recording *rec)
{
    return rec->stream_count + (rec->device_count + 1) * OT_CV_MAX_DEVICE_LOCATIONS;
}

/* What a stream counts for in the progress line: its records, or before
 * it is counted, the most its file holds. */
static uint64_t records_for_progress(const ot_raw_stream *s)
{
    return s->counted ? s->count : s->records_at_most;
}

/* Read once where it can be: each stream is written as it is first read,
 * and a device gets its group, timeline and RDMA location where a record
 * first names it (ot_cv_meet_device). One thing needs every stream read
 * before the first is written: an explicit task's creation or schedule (the
 * task bookkeeping). Should a stream hold one, its pass stops there and the
 * conversion starts again with the counting pass (CONVERT_AGAIN). A look at
 * each stream's first window (what one read fetches) keeps the attempt from
 * starting where such a record comes early, as a program's tasks usually
 * do: a whole short stream, a small part of a long one. (A data region is
 * written in one pass since the seventh round of issue 18: host_pass.c.) */

/* Everything before the first stream is written: the recording opened (and
 * counted, unless it is read once), its definitions loaded, the archive
 * opened in \p archive_dir (NULL: where ot_convert_directory puts it). A
 * live conversion (c->live) reads once, looks at no stream ahead (its first
 * is still being written) and asks for no counts. */
int ot_cv_start(converter *c, const char *dir, const char *archive_dir_given, const ot_convert_options *opts,
                int may_read_once, char *msg, size_t msg_size)
{
    char raw_dir[4200];
    ot_job_place place = {.kind = OT_JOB_PLACE_NONE};
    snprintf(raw_dir, sizeof raw_dir, "%s/raw", dir);
    if (opts->counts)
        *opts->counts = NULL;
    c->dir = dir;
    c->ticks_hint = &c->ticks_hint_storage;
    note_device_and_task_kinds(c);
    int rc = ot_raw_open(raw_dir, &c->rec, msg, msg_size);
    c->read_once = may_read_once;
    /* where it shows early: not once (a live stream is still being written: not looked at ahead) */
    for (size_t i = 0; rc == 0 && c->read_once && !c->live && i < c->rec.stream_count; i++) {
        int met = ot_raw_stream_probe(&c->rec.streams[i], OT_RAW_WINDOW_RECORDS, c->task_kinds, 0);
        if (met < 0)
            snprintf(msg, msg_size, "offtrace: cannot read the streams in '%s': %s", raw_dir, strerror(-(rc = met)));
        c->read_once = !met;
    }
    if (rc == 0 && !c->read_once && (rc = ot_raw_count(&c->rec, note_tasks, c)) != 0)
        snprintf(msg, msg_size, "offtrace: cannot read the streams in '%s': %s", raw_dir, strerror(-rc));
    if (rc == 0 && (rc = ot_user_defs_load(c, raw_dir)) != 0)
        snprintf(msg, msg_size, "offtrace: out of memory reading the user definitions");
    if (rc == 0 && (rc = ot_nvtx_defs_load(c, raw_dir)) != 0)
        snprintf(msg, msg_size, "offtrace: out of memory reading the NVTX definitions");
    if (rc == 0 && (rc = ot_map_names_load(c, raw_dir)) != 0) /* issue 15 */
        snprintf(msg, msg_size, "offtrace: out of memory reading the map sites");
    if (rc == 0)
        c->operations_paired = ot_cv_operations_paired(&c->rec);
    if (rc == 0 && c->rec.stream_files && !c->rec.stream_count) {
        snprintf(msg, msg_size, "offtrace: none of the %zu thread streams in '%s' is usable (%llu of another format "
                 "version, %llu damaged, %llu not regular files, %llu unreadable); nothing to convert",
                 c->rec.stream_files, raw_dir, (unsigned long long)c->rec.ignored[OT_RAW_IGNORED_OTHER_VERSION],
                 (unsigned long long)c->rec.ignored[OT_RAW_IGNORED_DAMAGED],
                 (unsigned long long)c->rec.ignored[OT_RAW_IGNORED_NOT_REGULAR_FILE],
                 (unsigned long long)c->rec.ignored[OT_RAW_IGNORED_UNREADABLE]);
        rc = -EPROTO;
    }
    if (rc == 0 && archive_dir_given)
        snprintf(c->archive_dir, sizeof c->archive_dir, "%s", archive_dir_given);
    else if (rc == 0)
        rc = archive_dir_of(dir, &place, c->archive_dir, sizeof c->archive_dir, msg, msg_size);
    if (rc)
        return rc;
    c->sym = ot_symbolizer_open();
    c->regions = ot_region_memo_new();
    for (size_t i = 0; c->sym && i < c->rec.maps_count; i++)
        if (ot_symbolizer_add_maps(c->sym, c->rec.maps_files[i]) != 0)
            c->unusable_maps++;
    remove_partial_archive(c->archive_dir);
    c->max_locations = ot_cv_max_locations(&c->rec);
    c->tw = ot_tw_open(c->archive_dir, c->max_locations, msg, msg_size);
    if (c->tw && place.kind == OT_JOB_PLACE_RANK)
        ot_tw_set_job_part(c->tw, place.job.rank, place.job.size, place.job.id);
    else if (c->tw && opts->counts) /* for the summary; without memory for them none, and it reads the archive */
        ot_tw_count_events(c->tw);
    if (c->tw)
        ot_mpi_defs_load(c, raw_dir); /* issue 16: the communicators the MPI events name */
    c->spans = ot_target_spans_new(dir);
    c->device_regions = c->tw ? ot_device_regions_new(c->tw, c->sym) : NULL;
    if (!c->sym || !c->tw || !c->spans || !c->device_regions || !c->regions) {
        if (c->tw && !c->sym && ot_symbolizer_load() != 0) /* an installation without it: say so, not "memory" */
            snprintf(msg, msg_size, "%s", ot_symbolizer_load_error());
        else if (c->tw)
            snprintf(msg, msg_size, "offtrace: out of memory");
        ot_tw_abort(c->tw);
        c->tw = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* Write from stream \p first on and close the archive (its conversion time
 * \p t0 on); on failure the archive is abandoned. */
int ot_cv_write_and_close(converter *c, const ot_convert_options *opts, size_t first, const struct timespec *t0,
                          char *msg, size_t msg_size)
{
    uint64_t total = 0;
    for (size_t i = first; i < c->rec.stream_count; i++)
        total += records_for_progress(&c->rec.streams[i]);
    for (size_t i = 0; i < c->rec.device_stream_count; i++)
        total += c->rec.device_streams[i].count;
    /* how far it is, on a terminal, past a second: the fraction moves a stream at a time */
    ot_progress *shown = ot_progress_start("writing the archive", "the records", total, t0, opts->progress_after_ns);
    int rc = write_everything(c, opts, shown, first);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (rc == 0) {
        char secs[32];
        snprintf(secs, sizeof secs, "%.6f", (double)(t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) * 1e-9);
        ot_tw_property(c->tw, "CONVERSION_SECONDS", secs);
        if (opts->counts) /* every event is written */
            c->counts = ot_tw_take_counts(c->tw);
        if (opts->device_items)
            count_device_items(c, opts->device_items);
        rc = ot_tw_close(c->tw, c->rec.realtime_offset_ns - (c->mpi_clock_points ? c->mpi_clock_offset[0] : 0), msg,
                         msg_size); /* times on rank 0's clock: the rank's own realtime offset, shifted alike */
        ot_progress_stop(shown);
    } else {
        ot_progress_stop(shown);
        if ((rc != -EAGAIN || !c->read_once) && rc != OT_DT_START_AGAIN_SORTED)
            snprintf(msg, msg_size, "offtrace: converting '%s' failed: %s", c->dir, strerror(-rc));
        ot_tw_abort(c->tw);
    }
    c->tw = NULL;
    return rc;
}

/* After the archive is written (\p rc 0) or abandoned: the counts handed
 * over, raw/ removed or set aside, a broken archive removed. */
int ot_cv_finish(converter *c, const ot_convert_options *opts, int rc, char *msg, size_t msg_size)
{
    char raw_dir[4200], archive_dir[4200];
    const char *dir = c->dir;
    snprintf(raw_dir, sizeof raw_dir, "%s/raw", dir);
    snprintf(archive_dir, sizeof archive_dir, "%s", c->archive_dir);
    int again = rc == -EAGAIN && c->read_once ? CONVERT_AGAIN : rc == OT_DT_START_AGAIN_SORTED ? CONVERT_AGAIN_SORTED : 0;
    ot_write_counts *counts = c->counts;
    c->counts = NULL;
    ot_cv_free(c);
    if (rc == 0 && opts->counts)
        *opts->counts = counts;
    else
        ot_write_counts_free(counts);
    if (rc == 0 && !opts->keep_raw) {
        char aside[4300];
        raw_aside_path(dir, aside, sizeof aside);
        if (rename(raw_dir, aside) != 0)
            remove_tree(raw_dir); /* in place, now */
        else if (!opts->caller_removes_raw)
            remove_tree(aside);
    }
    if (again) {
        remove_partial_archive(archive_dir);
        return again;
    }
    if (rc) { /* no broken archive left behind; the recording stays for another try */
        remove_partial_archive(archive_dir);
        size_t used = strlen(msg);
        snprintf(msg + used, msg_size - used, "; the recording is kept in %s: `offtrace convert %s` writes the "
                 "archive once the cause is gone", raw_dir, dir);
    }
    return rc;
}

static int convert_once(const char *dir, const ot_convert_options *opts, int may_read_once, int sort_device_items,
                        char *msg, size_t msg_size)
{
    converter *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(msg, msg_size, "offtrace: out of memory");
        return -ENOMEM;
    }
    c->sort_device_items = sort_device_items;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = ot_cv_start(c, dir, NULL, opts, may_read_once, msg, msg_size);
    if (rc) {
        ot_cv_free(c);
        return rc;
    }
    rc = ot_cv_write_and_close(c, opts, 0, &t0, msg, msg_size);
    return ot_cv_finish(c, opts, rc, msg, msg_size);
}

int ot_convert_directory(const char *dir, const ot_convert_options *opts, char *msg, size_t msg_size)
{
    int sort = opts->sort_device_items;
    int rc = convert_once(dir, opts, 1, sort, msg, msg_size);
    if (rc == CONVERT_AGAIN)
        rc = convert_once(dir, opts, 0, sort, msg, msg_size);
    int sorted_again = rc == CONVERT_AGAIN_SORTED;
    if (sorted_again) /* a device item came out of order after others were written */
        rc = convert_once(dir, opts, 0, 1, msg, msg_size);
    if (opts->device_items)
        opts->device_items->started_again = sorted_again;
    return rc;
}

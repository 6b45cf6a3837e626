#define _GNU_SOURCE
#include "summary.h"

#include "otf2_open.h"

#include <errno.h>
#include <dirent.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "offtrace/offtrace.h"

typedef struct reader_state {
    ot_summary *s;
    char **strings;
    size_t string_count;
    int *region_kind;          /* construct kind per region, -1 for others */
    size_t region_count;
    uint64_t *stream_locations;
    size_t stream_count;
    uint64_t *locations;
    size_t location_count;
    uint64_t first, last;
} reader_state;

/* More definitions than offtrace ever writes: a damaged file's reference.
 * Without a bound, one flipped byte makes the tables below tens of GiB. */
#define MAX_DEFINITION_REF (1u << 20)

static void *grow(void *p, size_t *count, size_t need, size_t item)
{
    if (need < *count)
        return p;
    size_t n = need + 64;
    char *q = realloc(p, n * item);
    if (!q)
        return NULL;
    memset(q + *count * item, 0, (n - *count) * item);
    *count = n;
    return q;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *text)
{
    reader_state *r = u;
    if (self > MAX_DEFINITION_REF)
        return OTF2_CALLBACK_INTERRUPT;
    char **s = grow(r->strings, &r->string_count, self, sizeof *s);
    if (!s)
        return OTF2_CALLBACK_INTERRUPT;
    r->strings = s;
    free(s[self]); /* a damaged file may define a string twice */
    s[self] = strdup(text ? text : "");
    return s[self] ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static int construct_kind(const char *name)
{
    static const char *prefixes[OT_CONSTRUCT_KINDS] = {"target @", "target enter data", "target exit data",
                                                       "target update", "target data @"};
    if (!strncmp(name, "target nowait @", 15))
        return OT_CONSTRUCT_TARGET;
    for (int k = 0; k < OT_CONSTRUCT_KINDS; k++)
        if (!strncmp(name, prefixes[k], strlen(prefixes[k])))
            return k;
    return -1;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef desc, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    reader_state *r = u;
    if (self > MAX_DEFINITION_REF)
        return OTF2_CALLBACK_INTERRUPT;
    size_t before = r->region_count;
    int *k = grow(r->region_kind, &r->region_count, self, sizeof *k);
    if (!k)
        return OTF2_CALLBACK_INTERRUPT;
    for (size_t i = before; i < r->region_count; i++)
        k[i] = -1;
    r->region_kind = k;
    const char *text = name < r->string_count && r->strings[name] ? r->strings[name] : "";
    k[self] = construct_kind(text);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t events, OTF2_LocationGroupRef group)
{
    reader_state *r = u;
    uint64_t *all = realloc(r->locations, (r->location_count + 1) * sizeof *all);
    if (!all)
        return OTF2_CALLBACK_INTERRUPT;
    all[r->location_count++] = self;
    r->locations = all;
    r->s->events += events;
    /* offtrace's location ids say what a location is: 0 << 32 host
     * threads, 1 << 32 kernel streams and RDMA rows, 2 << 32 device threads,
     * 3 << 32 device queues (all but host threads are accelerator streams). */
    if (type == OTF2_LOCATION_TYPE_CPU_THREAD && (self >> 32) == 0)
        r->s->host_threads++;
    if (type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM && (self >> 32) == 1) {
        size_t count = r->stream_count;
        uint64_t *l = realloc(r->stream_locations, (count + 1) * sizeof *l);
        if (!l)
            return OTF2_CALLBACK_INTERRUPT;
        l[count] = self;
        r->stream_locations = l;
        r->stream_count++;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                   OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                   OTF2_LocationGroupRef creator)
{
    reader_state *r = u;
    if (type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR)
        r->s->devices++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t rt)
{
    reader_state *r = u;
    r->s->duration_s = resolution ? (double)length / (double)resolution : 0;
    return OTF2_CALLBACK_SUCCESS;
}

/* RDMA locations are accelerator streams too; a kernel is an Enter on a
 * kernel stream (id 1 << 32 | ...) whose id is not an RDMA id (low 16 bits
 * all ones). */
static int is_kernel_stream(const reader_state *r, OTF2_LocationRef loc)
{
    if ((loc & 0xFFFFu) == 0xFFFFu || (loc >> 32) != 1) /* RDMA rows; collector queues (3 << 32) */
        return 0;
    for (size_t i = 0; i < r->stream_count; i++)
        if (r->stream_locations[i] == loc)
            return 1;
    return 0;
}

static OTF2_CallbackCode ev_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a,
                                  OTF2_RegionRef region)
{
    reader_state *r = u;
    if (is_kernel_stream(r, loc))
        r->s->kernels++;
    else if (region < r->region_count && r->region_kind[region] >= 0)
        r->s->constructs[r->region_kind[region]]++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_put(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a,
                                OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    reader_state *r = u;
    r->s->h2d_count++;
    r->s->h2d_bytes += bytes;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_get(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a,
                                OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    reader_state *r = u;
    r->s->d2h_count++;
    r->s->d2h_bytes += bytes;
    return OTF2_CALLBACK_SUCCESS;
}

static uint64_t number_property(OTF2_Reader *rd, const char *name)
{
    char *value = NULL;
    uint64_t n = 0;
    if (OTF2_Reader_GetProperty(rd, name, &value) == OTF2_SUCCESS && value) {
        n = strtoull(value, NULL, 10);
        free(value);
    }
    return n;
}

static void read_properties(OTF2_Reader *rd, ot_summary *s)
{
    char *value = NULL;
    s->device_records = number_property(rd, "OFFTRACE::DEVICE_RECORDS");
    s->device_locations = number_property(rd, "OFFTRACE::DEVICE_LOCATIONS");
    s->lost_device_records = number_property(rd, "OFFTRACE::LOST_DEVICE_RECORDS");
    s->device_clamped = number_property(rd, "OFFTRACE::DEVICE_EVENTS_CLAMPED_TO_TARGET");
    s->unshown_device_records = number_property(rd, "OFFTRACE::RECORDS_OF_DEVICES_BEYOND_LIMIT");
    s->buffer_flushes = number_property(rd, "OFFTRACE::BUFFER_FLUSHES");
    s->background_writeback_bytes = number_property(rd, "OFFTRACE::BACKGROUND_WRITEBACK_BYTES");
    s->lost_by_cause[0] = number_property(rd, "OFFTRACE::LOST_DISK_FULL");
    s->lost_by_cause[1] = number_property(rd, "OFFTRACE::LOST_SIZE_LIMIT");
    s->lost_by_cause[2] = number_property(rd, "OFFTRACE::LOST_NO_DESCRIPTOR");
    s->lost_by_cause[3] = number_property(rd, "OFFTRACE::LOST_OTHER_ERRORS");
    s->max_recording_size = number_property(rd, "OFFTRACE::MAX_RECORDING_SIZE");
    s->size_limit_reached = number_property(rd, "OFFTRACE::SIZE_LIMIT_REACHED") != 0;
    s->ignored_streams = number_property(rd, "OFFTRACE::IGNORED_STREAMS");
    s->ignored_other_version = number_property(rd, "OFFTRACE::IGNORED_STREAMS_OTHER_VERSION");
    s->ignored_damaged = number_property(rd, "OFFTRACE::IGNORED_STREAMS_DAMAGED");
    s->ignored_not_regular = number_property(rd, "OFFTRACE::IGNORED_STREAMS_NOT_REGULAR_FILE");
    s->ignored_duplicate = number_property(rd, "OFFTRACE::IGNORED_STREAMS_DUPLICATE_THREAD");
    s->ignored_unreadable = number_property(rd, "OFFTRACE::IGNORED_STREAMS_UNREADABLE");
    s->device_records_without_location = number_property(rd, "OFFTRACE::DEVICE_RECORDS_WITHOUT_LOCATION");
    s->device_records_of_unknown_targets = number_property(rd, "OFFTRACE::DEVICE_RECORDS_OF_UNKNOWN_TARGETS");
    s->device_records_outside_target = number_property(rd, "OFFTRACE::DEVICE_RECORDS_OUTSIDE_TARGET");
    s->device_records_without_device = number_property(rd, "OFFTRACE::DEVICE_RECORDS_WITHOUT_DEVICE");
    s->damaged_records = number_property(rd, "OFFTRACE::DAMAGED_RECORDS");
    s->unusable_maps = number_property(rd, "OFFTRACE::UNUSABLE_MAPS_SNAPSHOTS");
    s->damaged_clock_pairs = number_property(rd, "OFFTRACE::DAMAGED_CLOCK_PAIRS");
    if (OTF2_Reader_GetProperty(rd, "OFFTRACE::LOST_RECORDS", &value) == OTF2_SUCCESS && value) {
        s->lost_records = strtoull(value, NULL, 10);
        free(value);
    }
    if (OTF2_Reader_GetProperty(rd, "OFFTRACE::UNFINISHED_OPERATIONS", &value) == OTF2_SUCCESS && value) {
        s->unfinished = strtoull(value, NULL, 10);
        free(value);
    }
    if (OTF2_Reader_GetProperty(rd, "OFFTRACE::CONVERSION_SECONDS", &value) == OTF2_SUCCESS && value) {
        s->conversion_s = strtod(value, NULL);
        free(value);
    }
    snprintf(s->partial, sizeof s->partial, "no");
    if (OTF2_Reader_GetProperty(rd, "OFFTRACE::PARTIAL", &value) == OTF2_SUCCESS && value) {
        snprintf(s->partial, sizeof s->partial, "%s", value);
        free(value);
    }
    char *creator = NULL;
    if (OTF2_Reader_GetCreator(rd, &creator) == OTF2_SUCCESS && creator) {
        snprintf(s->creator, sizeof s->creator, "%s", creator);
        free(creator);
    }
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

static int read_definitions(OTF2_Reader *rd, reader_state *st)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    if (!gdr)
        return -EINVAL;
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, st);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    return rc == OTF2_SUCCESS ? 0 : -EINVAL;
}

/* Each location is read with its own local reader, one after the other:
 * nothing is merged, so memory stays flat in the number of events. */
static int read_events(OTF2_Reader *rd, reader_state *st)
{
    for (size_t i = 0; i < st->location_count; i++)
        OTF2_Reader_SelectLocation(rd, st->locations[i]);
    int has_defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(rd) != OTF2_SUCCESS)
        return -EINVAL;
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, ev_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, ev_get);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < st->location_count; i++) {
        if (has_defs) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, st->locations[i]);
            uint64_t n;
            if (dr) {
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
        }
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, st->locations[i]);
        if (!er) {
            rc = -EINVAL;
            break;
        }
        OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, st);
        uint64_t n;
        if (OTF2_Reader_ReadAllLocalEvents(rd, er, &n) != OTF2_SUCCESS)
            rc = -EINVAL;
        OTF2_Reader_CloseEvtReader(rd, er);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    if (has_defs)
        OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_CloseEvtFiles(rd);
    return rc;
}

static void free_state(reader_state *st)
{
    for (size_t i = 0; i < st->string_count; i++)
        free(st->strings[i]);
    free(st->strings);
    free(st->region_kind);
    free(st->stream_locations);
    free(st->locations);
}

int ot_summary_read(const char *dir, ot_summary *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    char anchor[4200];
    struct stat sb;
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    if (stat(anchor, &sb) != 0) {
        snprintf(err, err_size, "offtrace: '%s' holds no trace (no %s.otf2)", dir, OFFTRACE_ARCHIVE_NAME);
        return -ENOENT;
    }
    OTF2_ErrorCallback previous = ot_otf2_quiet_errors();
    OTF2_Reader *rd = ot_otf2_open_reader(anchor);
    if (!rd) {
        ot_otf2_restore_errors(previous);
        snprintf(err, err_size, "offtrace: '%s' is not a readable OTF2 archive", anchor);
        return -EINVAL;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    reader_state st = {.s = out};
    read_properties(rd, out);
    if (strncmp(out->creator, "offtrace", 8) != 0) {
        OTF2_Reader_Close(rd);
        ot_otf2_restore_errors(previous);
        snprintf(err, err_size, "offtrace: '%s' was written by '%s', not by offtrace; offtrace reads only its own "
                                "archives", dir, out->creator[0] ? out->creator : "an unnamed producer");
        return -EPROTO;
    }
    int rc = read_definitions(rd, &st);
    out->device_streams = st.stream_count > out->devices ? st.stream_count - out->devices : 0;
    if (rc == 0)
        rc = read_events(rd, &st);
    OTF2_Reader_Close(rd);
    ot_otf2_restore_errors(previous);
    free_state(&st);
    if (rc) {
        snprintf(err, err_size, "offtrace: '%s' is damaged or not an OTF2 archive offtrace can read", anchor);
        return rc;
    }
    out->archive_bytes = archive_size(dir);
    return 0;
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

void ot_summary_print(const ot_summary *s, const char *dir, FILE *to)
{
    char h2d[32], d2h[32], size[32];
    human_bytes(s->h2d_bytes, h2d, sizeof h2d);
    human_bytes(s->d2h_bytes, d2h, sizeof d2h);
    human_bytes(s->archive_bytes, size, sizeof size);
    fprintf(to, "offtrace: target regions   %llu target, %llu enter data, %llu exit data, %llu update, "
                "%llu data regions\n",
            (unsigned long long)s->constructs[OT_CONSTRUCT_TARGET],
            (unsigned long long)s->constructs[OT_CONSTRUCT_ENTER_DATA],
            (unsigned long long)s->constructs[OT_CONSTRUCT_EXIT_DATA],
            (unsigned long long)s->constructs[OT_CONSTRUCT_UPDATE],
            (unsigned long long)s->constructs[OT_CONSTRUCT_DATA_REGION]);
    fprintf(to, "offtrace: kernels          %llu on %llu device(s)\n", (unsigned long long)s->kernels,
            (unsigned long long)s->devices);
    fprintf(to, "offtrace: host->device     %llu transfers, %llu bytes (%s)\n", (unsigned long long)s->h2d_count,
            (unsigned long long)s->h2d_bytes, h2d);
    fprintf(to, "offtrace: device->host     %llu transfers, %llu bytes (%s)\n", (unsigned long long)s->d2h_count,
            (unsigned long long)s->d2h_bytes, d2h);
    if (s->device_records || s->device_locations)
        fprintf(to, "offtrace: device detail    %llu records on %llu device threads/queues, %llu placed at their "
                    "target region's edge\n", (unsigned long long)s->device_records,
                (unsigned long long)s->device_locations, (unsigned long long)s->device_clamped);
    fprintf(to, "offtrace: trace            %llu events, %llu host threads, %.6f s, %s on disk\n",
            (unsigned long long)s->events, (unsigned long long)s->host_threads, s->duration_s, size);
    fprintf(to, "offtrace: conversion       %.3f s writing the archive, outside the program (recording "
                "cost per event: docs/performance.md)\n", s->conversion_s);
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
    if (strcmp(s->partial, "no"))
        fprintf(to, "offtrace: PARTIAL          %s; %llu unfinished operations closed at the last event\n",
                s->partial, (unsigned long long)s->unfinished);
    fprintf(to, "offtrace: archive          %s/%s.otf2\n", dir, OFFTRACE_ARCHIVE_NAME);
}

/*
 * bench_convert: the parts of a conversion that offtrace's own logic cannot
 * go below (docs/performance.md, "Issue 18: conversion throughput"; run by
 * tests/bench/run_convert.sh).
 *
 *   bench_convert floor ARCHIVE.otf2 OUT_DIR ROUNDS
 *       OTF2's own writing cost: every event of ARCHIVE (an archive offtrace
 *       wrote) is read into memory with its attributes, then written again
 *       through OTF2 into OUT_DIR, location after location, with the
 *       converter's settings (smallest chunks, one event chunk per
 *       location before it goes to disk, no compression) and no offtrace
 *       logic. Prints the events, and the writing time per round
 *       (open to close) as ns per event and events per second (median).
 *   bench_convert floor ARCHIVE.otf2 OUT_DIR ROUNDS CHUNK_KIB EVENT_CHUNKS
 *       The same with other buffer settings: event chunks of CHUNK_KIB KiB
 *       (OTF2 takes 256 to 16,384), EVENT_CHUNKS of them per location
 *       before OTF2 writes them out (at most 64); peak RSS and the writes
 *       (strace) tell what a setting holds and does.
 *   bench_convert attributes OUT_DIR ROUNDS
 *       What one attribute costs OTF2: 1,000,000 Enters written with the
 *       converter's settings, each with 0 to 7 string attributes (as a
 *       data op's map attributes are), and the same lists only added and
 *       emptied (OTF2_AttributeList's part). Prints CPU ns per event for
 *       each count (median).
 *   bench_convert raw RECORDING_DIR ROUNDS
 *       Reading the raw records alone: ot_raw_load (headers and the
 *       counting pass) and one cursor pass over every thread stream, the
 *       way each of the converter's passes walks them. Prints ns per record.
 *
 * Events the converter writes that the floor does not replay (MPI events)
 * are counted and printed; the floor is then for the others.
 */
#define _GNU_SOURCE
#include <otf2/otf2.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raw_reader.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time (user and system) of this process: what a loaded machine's
 * waiting for a core does not add to. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_double);
    return v[(n - 1) / 2];
}

/* ---- the events of an archive, in memory ---- */

enum ev_type {
    EV_ENTER, EV_LEAVE, EV_MEASUREMENT, EV_METRIC, EV_RMA_PUT, EV_RMA_GET, EV_RMA_COMPLETE, EV_FORK, EV_JOIN,
    EV_ACQUIRE, EV_RELEASE, EV_TASK_CREATE, EV_TASK_SWITCH, EV_TASK_COMPLETE, EV_TEAM_BEGIN, EV_TEAM_END
};

typedef struct event {
    uint8_t type;
    uint8_t metric_type;
    uint32_t location; /* index into locations */
    uint32_t attr_first, attr_count;
    uint64_t time;
    uint64_t a, b, c, d;
} event;

typedef struct attribute {
    OTF2_AttributeRef id;
    OTF2_Type type;
    OTF2_AttributeValue value;
} attribute;

typedef struct archive_events {
    OTF2_LocationRef *locations;
    size_t location_count;
    event *events;
    size_t count, capacity;
    attribute *attributes;
    size_t attr_count, attr_capacity;
    uint32_t current; /* location being read */
    uint64_t not_replayed;
} archive_events;

static event *add(archive_events *e, uint8_t type, OTF2_TimeStamp time, OTF2_AttributeList *list)
{
    if (e->count == e->capacity) {
        e->capacity = e->capacity ? e->capacity * 2 : 1 << 16;
        e->events = realloc(e->events, e->capacity * sizeof *e->events);
        if (!e->events) {
            perror("bench_convert");
            exit(1);
        }
    }
    event *v = &e->events[e->count++];
    memset(v, 0, sizeof *v);
    v->type = type;
    v->time = time;
    v->location = e->current;
    v->attr_first = (uint32_t)e->attr_count;
    uint32_t n = list ? OTF2_AttributeList_GetNumberOfElements(list) : 0;
    for (uint32_t i = 0; i < n; i++) {
        if (e->attr_count == e->attr_capacity) {
            e->attr_capacity = e->attr_capacity ? e->attr_capacity * 2 : 1 << 16;
            e->attributes = realloc(e->attributes, e->attr_capacity * sizeof *e->attributes);
            if (!e->attributes) {
                perror("bench_convert");
                exit(1);
            }
        }
        attribute *at = &e->attributes[e->attr_count];
        if (OTF2_AttributeList_GetAttributeByIndex(list, i, &at->id, &at->type, &at->value) == OTF2_SUCCESS)
            e->attr_count++;
    }
    v->attr_count = (uint32_t)(e->attr_count - v->attr_first);
    return v;
}

#define ARGS OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t position, void *u, OTF2_AttributeList *al
static OTF2_CallbackCode on_enter(ARGS, OTF2_RegionRef r) { add(u, EV_ENTER, t, al)->a = r; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode on_leave(ARGS, OTF2_RegionRef r) { add(u, EV_LEAVE, t, al)->a = r; return OTF2_CALLBACK_SUCCESS; }
static OTF2_CallbackCode on_measurement(ARGS, OTF2_MeasurementMode m)
{
    add(u, EV_MEASUREMENT, t, al)->a = m;
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_metric(ARGS, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    if (n != 1) {
        ((archive_events *)u)->not_replayed++;
        return OTF2_CALLBACK_SUCCESS;
    }
    event *v = add(u, EV_METRIC, t, al);
    v->a = metric;
    v->metric_type = types[0];
    v->b = values[0].unsigned_int;
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_rma(archive_events *e, uint8_t type, OTF2_TimeStamp t, OTF2_AttributeList *al,
                                uint64_t win, uint64_t remote, uint64_t bytes, uint64_t id)
{
    event *v = add(e, type, t, al);
    v->a = win;
    v->b = remote;
    v->c = bytes;
    v->d = id;
    return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode on_put(ARGS, OTF2_RmaWinRef w, uint32_t r, uint64_t b, uint64_t id)
{
    return on_rma(u, EV_RMA_PUT, t, al, w, r, b, id);
}
static OTF2_CallbackCode on_get(ARGS, OTF2_RmaWinRef w, uint32_t r, uint64_t b, uint64_t id)
{
    return on_rma(u, EV_RMA_GET, t, al, w, r, b, id);
}
static OTF2_CallbackCode on_complete(ARGS, OTF2_RmaWinRef w, uint64_t id)
{
    return on_rma(u, EV_RMA_COMPLETE, t, al, w, 0, 0, id);
}
static OTF2_CallbackCode on_fork(ARGS, OTF2_Paradigm p, uint32_t n) { return on_rma(u, EV_FORK, t, al, p, n, 0, 0); }
static OTF2_CallbackCode on_join(ARGS, OTF2_Paradigm p) { return on_rma(u, EV_JOIN, t, al, p, 0, 0, 0); }
static OTF2_CallbackCode on_acquire(ARGS, OTF2_Paradigm p, uint32_t lock, uint32_t order)
{
    return on_rma(u, EV_ACQUIRE, t, al, p, lock, order, 0);
}
static OTF2_CallbackCode on_release(ARGS, OTF2_Paradigm p, uint32_t lock, uint32_t order)
{
    return on_rma(u, EV_RELEASE, t, al, p, lock, order, 0);
}
static OTF2_CallbackCode on_task_create(ARGS, OTF2_CommRef team, uint32_t thread, uint32_t gen)
{
    return on_rma(u, EV_TASK_CREATE, t, al, team, thread, gen, 0);
}
static OTF2_CallbackCode on_task_switch(ARGS, OTF2_CommRef team, uint32_t thread, uint32_t gen)
{
    return on_rma(u, EV_TASK_SWITCH, t, al, team, thread, gen, 0);
}
static OTF2_CallbackCode on_task_complete(ARGS, OTF2_CommRef team, uint32_t thread, uint32_t gen)
{
    return on_rma(u, EV_TASK_COMPLETE, t, al, team, thread, gen, 0);
}
static OTF2_CallbackCode on_team_begin(ARGS, OTF2_CommRef team) { return on_rma(u, EV_TEAM_BEGIN, t, al, team, 0, 0, 0); }
static OTF2_CallbackCode on_team_end(ARGS, OTF2_CommRef team) { return on_rma(u, EV_TEAM_END, t, al, team, 0, 0, 0); }
static OTF2_CallbackCode on_other(ARGS)
{
    ((archive_events *)u)->not_replayed++;
    return OTF2_CALLBACK_SUCCESS;
}
#undef ARGS

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    archive_events *e = u;
    e->locations = realloc(e->locations, (e->location_count + 1) * sizeof *e->locations);
    if (!e->locations) {
        perror("bench_convert");
        exit(1);
    }
    e->locations[e->location_count++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static int read_archive(const char *anchor, archive_events *e)
{
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r || OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS)
        return -1;
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, g, gcb, e);
    uint64_t n;
    OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n);
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    OTF2_Reader_CloseGlobalDefReader(r, g);
    for (size_t i = 0; i < e->location_count; i++)
        OTF2_Reader_SelectLocation(r, e->locations[i]);
    OTF2_Reader_OpenDefFiles(r);
    OTF2_Reader_OpenEvtFiles(r);
    for (size_t i = 0; i < e->location_count; i++) {
        OTF2_DefReader *d = OTF2_Reader_GetDefReader(r, e->locations[i]);
        if (d) {
            OTF2_Reader_ReadAllLocalDefinitions(r, d, &n);
            OTF2_Reader_CloseDefReader(r, d);
        }
        OTF2_Reader_GetEvtReader(r, e->locations[i]);
    }
    OTF2_Reader_CloseDefFiles(r);
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, on_measurement);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, on_metric);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_get);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, on_complete);
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, on_fork);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, on_join);
    OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, on_acquire);
    OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, on_release);
    OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, on_task_create);
    OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, on_task_switch);
    OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, on_task_complete);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, on_team_begin);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, on_team_end);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, on_other);
    for (size_t i = 0; i < e->location_count; i++) {
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, e->locations[i]);
        if (!er)
            continue;
        e->current = (uint32_t)i;
        OTF2_Reader_RegisterEvtCallbacks(r, er, cb, e);
        OTF2_Reader_ReadAllLocalEvents(r, er, &n);
        OTF2_Reader_CloseEvtReader(r, er);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    OTF2_Reader_CloseEvtFiles(r);
    OTF2_Reader_Close(r);
    return 0;
}

/* ---- writing them again, with the converter's buffer settings ---- */

/* The converter's buffer settings (trace_writer.c: OTF2_CHUNK_SIZE_MIN, OT_TW_EVENT_CHUNKS), which
 * `floor ... CHUNK_KIB EVENT_CHUNKS` replaces to see what OTF2's settings move. */
static uint64_t chunk_size = OTF2_CHUNK_SIZE_MIN;
static size_t event_chunks = 1;

typedef struct chunk_pool {
    void *chunks[64];
    size_t count;
} chunk_pool;

static void *allocate_chunk(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer,
                            uint64_t chunk_size)
{
    chunk_pool *p = *per_buffer;
    if (!p && !(p = *per_buffer = calloc(1, sizeof *p)))
        return NULL;
    if ((type == OTF2_FILETYPE_EVENTS && p->count >= event_chunks) || p->count == 64)
        return NULL; /* OTF2 writes this buffer out and asks again */
    void *chunk = malloc(chunk_size);
    if (chunk)
        p->chunks[p->count++] = chunk;
    return chunk;
}

static void free_chunks(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer, bool final)
{
    chunk_pool *p = *per_buffer;
    if (!p)
        return;
    for (size_t i = 0; i < p->count; i++)
        free(p->chunks[i]);
    p->count = 0;
    if (final) {
        free(p);
        *per_buffer = NULL;
    }
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};
static OTF2_MemoryCallbacks memory_callbacks = {.otf2_allocate = allocate_chunk, .otf2_free_all = free_chunks};

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static double write_archive(const archive_events *e, const char *dir, int with_attributes, double *cpu)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    double t0 = now_s(), c0 = cpu_s();
    OTF2_Archive *a = OTF2_Archive_Open(dir, "floor", OTF2_FILEMODE_WRITE, chunk_size, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a)
        return -1;
    OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
    OTF2_Archive_SetMemoryCallbacks(a, &memory_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    OTF2_AttributeList *list = OTF2_AttributeList_New();
    OTF2_EvtWriter *w = NULL;
    uint32_t current = UINT32_MAX;
    for (size_t i = 0; i < e->count; i++) {
        const event *v = &e->events[i];
        if (v->location != current) { /* the converter, too, writes a location and closes it */
            if (w)
                OTF2_Archive_CloseEvtWriter(a, w);
            current = v->location;
            w = OTF2_Archive_GetEvtWriter(a, e->locations[current]);
        }
        for (uint32_t k = 0; with_attributes && k < v->attr_count; k++) {
            const attribute *at = &e->attributes[v->attr_first + k];
            OTF2_AttributeList_AddAttribute(list, at->id, at->type, at->value);
        }
        OTF2_AttributeList *al = with_attributes && v->attr_count ? list : NULL;
        switch (v->type) {
        case EV_ENTER: OTF2_EvtWriter_Enter(w, al, v->time, (OTF2_RegionRef)v->a); break;
        case EV_LEAVE: OTF2_EvtWriter_Leave(w, al, v->time, (OTF2_RegionRef)v->a); break;
        case EV_MEASUREMENT: OTF2_EvtWriter_MeasurementOnOff(w, al, v->time, (OTF2_MeasurementMode)v->a); break;
        case EV_METRIC: {
            OTF2_Type type = v->metric_type;
            OTF2_MetricValue value = {.unsigned_int = v->b};
            OTF2_EvtWriter_Metric(w, al, v->time, (OTF2_MetricRef)v->a, 1, &type, &value);
            break;
        }
        case EV_RMA_PUT: OTF2_EvtWriter_RmaPut(w, al, v->time, (OTF2_RmaWinRef)v->a, (uint32_t)v->b, v->c, v->d); break;
        case EV_RMA_GET: OTF2_EvtWriter_RmaGet(w, al, v->time, (OTF2_RmaWinRef)v->a, (uint32_t)v->b, v->c, v->d); break;
        case EV_RMA_COMPLETE: OTF2_EvtWriter_RmaOpCompleteBlocking(w, al, v->time, (OTF2_RmaWinRef)v->a, v->d); break;
        case EV_FORK: OTF2_EvtWriter_ThreadFork(w, al, v->time, (OTF2_Paradigm)v->a, (uint32_t)v->b); break;
        case EV_JOIN: OTF2_EvtWriter_ThreadJoin(w, al, v->time, (OTF2_Paradigm)v->a); break;
        case EV_ACQUIRE:
            OTF2_EvtWriter_ThreadAcquireLock(w, al, v->time, (OTF2_Paradigm)v->a, (uint32_t)v->b, (uint32_t)v->c);
            break;
        case EV_RELEASE:
            OTF2_EvtWriter_ThreadReleaseLock(w, al, v->time, (OTF2_Paradigm)v->a, (uint32_t)v->b, (uint32_t)v->c);
            break;
        case EV_TASK_CREATE:
            OTF2_EvtWriter_ThreadTaskCreate(w, al, v->time, (OTF2_CommRef)v->a, (uint32_t)v->b, (uint32_t)v->c);
            break;
        case EV_TASK_SWITCH:
            OTF2_EvtWriter_ThreadTaskSwitch(w, al, v->time, (OTF2_CommRef)v->a, (uint32_t)v->b, (uint32_t)v->c);
            break;
        case EV_TASK_COMPLETE:
            OTF2_EvtWriter_ThreadTaskComplete(w, al, v->time, (OTF2_CommRef)v->a, (uint32_t)v->b, (uint32_t)v->c);
            break;
        case EV_TEAM_BEGIN: OTF2_EvtWriter_ThreadTeamBegin(w, al, v->time, (OTF2_CommRef)v->a); break;
        case EV_TEAM_END: OTF2_EvtWriter_ThreadTeamEnd(w, al, v->time, (OTF2_CommRef)v->a); break;
        }
    }
    if (w)
        OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_AttributeList_Delete(list);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_Close(a);
    *cpu = cpu_s() - c0;
    return now_s() - t0;
}

static int floor_bench(const char *anchor, const char *out, int rounds)
{
    archive_events e = {0};
    if (read_archive(anchor, &e) != 0) {
        fprintf(stderr, "bench_convert: cannot read '%s'\n", anchor);
        return 1;
    }
    double *t = calloc((size_t)rounds, sizeof *t), *bare = calloc((size_t)rounds, sizeof *bare);
    double *cpu = calloc((size_t)rounds, sizeof *cpu), *bare_cpu = calloc((size_t)rounds, sizeof *bare_cpu);
    for (int i = 0; i < rounds; i++) /* interleaved: with the attributes, and without (what they cost) */
        if ((t[i] = write_archive(&e, out, 1, &cpu[i])) < 0 || (bare[i] = write_archive(&e, out, 0, &bare_cpu[i])) < 0) {
            fprintf(stderr, "bench_convert: cannot write into '%s'\n", out);
            return 1;
        }
    double s = median(t, rounds), c = median(cpu, rounds), b = median(bare_cpu, rounds);
    printf("events %zu not_replayed %llu attributes %zu floor_s %.6f ns_per_event %.1f events_per_s %.0f "
           "floor_cpu_s %.6f cpu_ns_per_event %.1f without_attributes_cpu_ns_per_event %.1f\n", e.count,
           (unsigned long long)e.not_replayed, e.attr_count, s, s * 1e9 / (double)e.count, (double)e.count / s, c,
           c * 1e9 / (double)e.count, b * 1e9 / (double)e.count);
    free(bare);
    free(cpu);
    free(bare_cpu);
    nftw(out, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(t);
    free(e.events);
    free(e.attributes);
    free(e.locations);
    return 0;
}

/* ---- what one attribute costs ---- */

#define ATTRIBUTE_EVENTS 1000000

/* CPU seconds to write ATTRIBUTE_EVENTS Enters with \p count string attributes each (written 0: only added
 * to the list and removed, as OTF2 does after writing). */
static double attribute_round(const char *dir, int count, int written)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "attributes", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                        OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a)
        return -1;
    OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
    OTF2_Archive_SetMemoryCallbacks(a, &memory_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_OpenEvtFiles(a);
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, 0);
    OTF2_AttributeList *list = OTF2_AttributeList_New();
    double c0 = cpu_s();
    for (uint64_t i = 0; i < ATTRIBUTE_EVENTS; i++) {
        for (int k = 0; k < count; k++) /* refs and values as small as a map attribute's */
            OTF2_AttributeList_AddStringRef(list, 20 + (OTF2_AttributeRef)k, 100 + (OTF2_StringRef)k);
        if (written)
            OTF2_EvtWriter_Enter(w, count ? list : NULL, 1000 + 2 * i, 3);
        else
            OTF2_AttributeList_RemoveAllAttributes(list);
    }
    double c = cpu_s() - c0;
    OTF2_AttributeList_Delete(list);
    OTF2_Archive_CloseEvtWriter(a, w);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_Close(a);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return c;
}

static int attribute_bench(const char *out, int rounds)
{
    enum { COUNTS = 8 };
    double *written = calloc((size_t)rounds * COUNTS, sizeof *written);
    double *listed = calloc((size_t)rounds * COUNTS, sizeof *listed);
    for (int i = 0; i < rounds; i++) /* interleaved: a moment's load spreads over every count */
        for (int count = 0; count < COUNTS; count++)
            if ((written[count * rounds + i] = attribute_round(out, count, 1)) < 0 ||
                (listed[count * rounds + i] = attribute_round(out, count, 0)) < 0) {
                fprintf(stderr, "bench_convert: cannot write into '%s'\n", out);
                return 1;
            }
    for (int count = 0; count < COUNTS; count++)
        printf("attributes %d enter_cpu_ns %.1f list_only_cpu_ns %.1f\n", count,
               median(written + count * rounds, rounds) * 1e9 / ATTRIBUTE_EVENTS,
               median(listed + count * rounds, rounds) * 1e9 / ATTRIBUTE_EVENTS);
    free(written);
    free(listed);
    return 0;
}

/* ---- the raw records alone ---- */

static int raw_bench(const char *dir, int rounds)
{
    char raw_dir[4200], err[512];
    snprintf(raw_dir, sizeof raw_dir, "%s/raw", dir);
    double *load = calloc((size_t)rounds, sizeof *load), *pass = calloc((size_t)rounds, sizeof *pass);
    uint64_t records = 0, sum = 0;
    for (int i = 0; i < rounds; i++) {
        ot_raw_recording rec;
        double t0 = now_s();
        if (ot_raw_load(raw_dir, &rec, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        double t1 = now_s();
        records = 0;
        for (size_t s = 0; s < rec.stream_count; s++) {
            ot_raw_cursor cur;
            if (ot_raw_cursor_open(&cur, &rec.streams[s]) != 0)
                return 1;
            for (const offtrace_raw_record *r; (r = ot_raw_cursor_next(&cur)); records++)
                sum += r->time; /* touch the record as a pass does */
            ot_raw_cursor_close(&cur);
        }
        pass[i] = now_s() - t1;
        load[i] = t1 - t0;
        ot_raw_free(&rec);
    }
    double l = median(load, rounds), p = median(pass, rounds);
    printf("records %llu load_s %.6f load_ns_per_record %.1f pass_s %.6f pass_ns_per_record %.1f (%llu)\n",
           (unsigned long long)records, l, l * 1e9 / (double)records, p, p * 1e9 / (double)records,
           (unsigned long long)(sum & 1));
    free(load);
    free(pass);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && !strcmp(argv[1], "floor")) {
        chunk_size = strtoull(argv[5], NULL, 10) * 1024;
        event_chunks = strtoul(argv[6], NULL, 10);
        if (chunk_size < OTF2_CHUNK_SIZE_MIN || chunk_size > OTF2_CHUNK_SIZE_MAX || event_chunks < 1 ||
            event_chunks > 64) {
            fprintf(stderr, "bench_convert: CHUNK_KIB 256..16384, EVENT_CHUNKS 1..64\n");
            return 2;
        }
        argc = 5;
    }
    if (argc == 5 && !strcmp(argv[1], "floor"))
        return floor_bench(argv[2], argv[3], atoi(argv[4]) > 0 ? atoi(argv[4]) : 1);
    if (argc == 4 && !strcmp(argv[1], "attributes"))
        return attribute_bench(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
    if (argc == 4 && !strcmp(argv[1], "raw"))
        return raw_bench(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 1);
    fprintf(stderr, "usage: %s floor ARCHIVE.otf2 OUT_DIR ROUNDS [CHUNK_KIB EVENT_CHUNKS] | attributes OUT_DIR ROUNDS | raw RECORDING_DIR ROUNDS\n",
            argv[0]);
    return 2;
}

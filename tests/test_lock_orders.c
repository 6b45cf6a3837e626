/*
 * Lock ids and acquisition orders (host/convert/mutex_locks.c) from
 * synthetic recordings whose truth is known: two host threads take locks at
 * chosen times, and every ThreadAcquireLock/ReleaseLock the converter writes
 * must carry, per lock, the acquisition's rank among all threads'
 * acquisitions of that lock by time (ties: the lower thread first), computed
 * here by sorting the chosen times. Issue 18, eleventh round: the orders
 * come from a merge of the threads' runs when every stream is in time
 * order, and from the external sorts when one goes back in time (only a
 * damaged stream does): both are checked, the second with a stream whose
 * acquisitions go back, which a merge would number wrongly. The real
 * runtime's locks are tests/test_host_locks.c's.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <omp-tools.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/raw_stream.h"
#include "check/run.h"
#include "convert.h"
#include "offtrace/raw_format.h"

#define NS0 5000000000ull /* host ns of the first clock pair */
#define TICKS0 1000000000ull /* its ticks; 2 ticks per ns */
#define THREADS 2
#define MAX_TAKES 64

/* One acquisition as chosen: thread, lock (wait id), ticks of its acquired; its expected order. */
typedef struct take {
    uint32_t thread;
    uint64_t wait_id, ticks;
    uint32_t order;
} take;

/* What the archive says, per thread in its own order: ThreadAcquireLock's and ThreadReleaseLock's lock and order. */
typedef struct lock_event {
    uint32_t lock, order;
} lock_event;

typedef struct seen {
    uint64_t location_ids[8];
    size_t location_count;
    lock_event acquired[THREADS][MAX_TAKES], released[THREADS][MAX_TAKES];
    size_t acquired_count[THREADS], released_count[THREADS];
} seen;

/* The truth: per lock, the rank by time, then thread. */
static int by_lock_time_thread(const void *a, const void *b)
{
    const take *x = *(const take *const *)a, *y = *(const take *const *)b;
    if (x->wait_id != y->wait_id)
        return x->wait_id < y->wait_id ? -1 : 1;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

static void expected_orders(take *t, size_t n)
{
    take *sorted[MAX_TAKES];
    for (size_t i = 0; i < n; i++)
        sorted[i] = &t[i];
    qsort(sorted, n, sizeof *sorted, by_lock_time_thread);
    for (size_t i = 0; i < n; i++)
        sorted[i]->order = i && sorted[i - 1]->wait_id == sorted[i]->wait_id ? sorted[i - 1]->order + 1 : 1;
}

/* Each thread's takes, in the order given, as acquire (kind lock, 100 ticks
 * before), acquired and release (100 ticks after) records; the acquired
 * completes the acquire in one record on thread 0 (as the recorder writes it
 * when nothing came between), is a record of its own on thread 1. */
static void make_recording(char *dir, size_t size, const char *name, const take *t, size_t n)
{
    scratch_path(dir, (unsigned)size, name);
    cr_assert_eq(raw_new_recording(dir, TICKS0, NS0), 0, "cannot make the recording %s", dir);
    const size_t chunk = 65536;
    for (uint32_t thread = 0; thread < THREADS; thread++) {
        char *stream = calloc(1, OFFTRACE_RAW_HEADER_SIZE + chunk);
        offtrace_raw_stream_header *h = (offtrace_raw_stream_header *)stream;
        raw_thread_header(h, chunk, thread);
        offtrace_raw_record *r = (offtrace_raw_record *)(stream + OFFTRACE_RAW_HEADER_SIZE);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            if (t[i].thread != thread)
                continue;
            offtrace_raw_record acquire = {.time = t[i].ticks - 100, .event = OFFTRACE_RAW_OMP_MUTEX,
                                           .endpoint = OFFTRACE_RAW_BEGIN, .subkind = ompt_mutex_lock,
                                           .src_addr = t[i].wait_id};
            if (thread == 0) {
                acquire.endpoint = OFFTRACE_RAW_COMPLETE;
                acquire.end_time = t[i].ticks;
                r[k++] = acquire;
            } else {
                r[k++] = acquire;
                r[k++] = (offtrace_raw_record){.time = t[i].ticks, .event = OFFTRACE_RAW_OMP_MUTEX_ACQUIRED, .endpoint = OFFTRACE_RAW_BEGIN,
                                               .subkind = ompt_mutex_lock, .src_addr = t[i].wait_id};
            }
            r[k++] = (offtrace_raw_record){.time = t[i].ticks + 100, .event = OFFTRACE_RAW_OMP_MUTEX,
                                           .endpoint = OFFTRACE_RAW_END, .subkind = ompt_mutex_lock,
                                           .src_addr = t[i].wait_id};
            cr_assert_lt((k + 3) * sizeof *r, chunk);
        }
        char file[64];
        snprintf(file, sizeof file, "thread-%u.rec", thread);
        cr_assert_eq(raw_write_file(dir, file, stream, OFFTRACE_RAW_HEADER_SIZE + chunk), 0, "cannot write %s", file);
        free(stream);
    }
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

/* ---- reading the archive back with OTF2's reader ---- */

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    seen *s = u;
    if (s->location_count < 8)
        s->location_ids[s->location_count++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

/* The thread of a location: host thread locations are named by their thread index. */
static size_t thread_of(const seen *s, OTF2_LocationRef l)
{
    cr_assert_lt(l, (OTF2_LocationRef)THREADS, "a lock event on location %llu, not a host thread's",
                 (unsigned long long)l);
    return (size_t)l;
}

/* A lock event of a host thread's location, in the location's order. */
static OTF2_CallbackCode note(seen *s, OTF2_LocationRef l, lock_event (*events)[MAX_TAKES], size_t *counts,
                              uint32_t lock, uint32_t order)
{
    size_t t = thread_of(s, l);
    cr_assert_lt(counts[t], (size_t)MAX_TAKES);
    events[t][counts[t]++] = (lock_event){lock, order};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_acquire(OTF2_LocationRef l, OTF2_TimeStamp time, uint64_t position, void *u,
                                    OTF2_AttributeList *a, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    seen *s = u;
    return note(s, l, s->acquired, s->acquired_count, lock, order);
}

static OTF2_CallbackCode on_release(OTF2_LocationRef l, OTF2_TimeStamp time, uint64_t position, void *u,
                                    OTF2_AttributeList *a, OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    seen *s = u;
    return note(s, l, s->released, s->released_count, lock, order);
}

static void read_locks(const char *dir, seen *s)
{
    memset(s, 0, sizeof *s);
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    cr_assert_not_null(rd, "cannot open %s", anchor);
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    OTF2_GlobalDefReader *gd = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, on_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, dcb, s);
    OTF2_GlobalDefReaderCallbacks_Delete(dcb);
    uint64_t n;
    cr_assert_eq(OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n), OTF2_SUCCESS);
    OTF2_Reader_CloseGlobalDefReader(rd, gd);
    for (size_t i = 0; i < s->location_count; i++)
        OTF2_Reader_SelectLocation(rd, s->location_ids[i]);
    OTF2_Reader_OpenDefFiles(rd);
    OTF2_Reader_OpenEvtFiles(rd);
    OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(ecb, on_acquire);
    OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(ecb, on_release);
    for (size_t i = 0; i < s->location_count; i++) { /* each location's events in its own order */
        OTF2_DefReader *d = OTF2_Reader_GetDefReader(rd, s->location_ids[i]);
        if (d) {
            OTF2_Reader_ReadAllLocalDefinitions(rd, d, &n);
            OTF2_Reader_CloseDefReader(rd, d);
        }
        OTF2_EvtReader *e = OTF2_Reader_GetEvtReader(rd, s->location_ids[i]);
        cr_assert_not_null(e);
        OTF2_Reader_RegisterEvtCallbacks(rd, e, ecb, s);
        cr_assert_eq(OTF2_Reader_ReadAllLocalEvents(rd, e, &n), OTF2_SUCCESS);
        OTF2_Reader_CloseEvtReader(rd, e);
    }
    OTF2_EvtReaderCallbacks_Delete(ecb);
    OTF2_Reader_CloseDefFiles(rd);
    OTF2_Reader_CloseEvtFiles(rd);
    OTF2_Reader_Close(rd);
}

/* Every take's lock event pair carries its expected order, and one lock id per wait id (their rank from 1). */
static void orders_hold(const char *name, take *t, size_t n)
{
    expected_orders(t, n);
    char dir[4096];
    make_recording(dir, sizeof dir, name, t, n);
    convert(dir);
    seen s;
    read_locks(dir, &s);
    uint64_t ids[MAX_TAKES];
    size_t id_count = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < id_count && ids[j] != t[i].wait_id)
            j++;
        if (j == id_count)
            ids[id_count++] = t[i].wait_id;
    }
    size_t next[THREADS] = {0};
    for (size_t i = 0; i < n; i++) {
        uint32_t thread = t[i].thread;
        size_t k = next[thread]++;
        cr_assert_lt(k, s.acquired_count[thread], "%s: thread %u has %zu lock acquisitions, expected more", name,
                     thread, s.acquired_count[thread]);
        uint32_t rank = 1;
        for (size_t j = 0; j < id_count; j++)
            rank += ids[j] < t[i].wait_id;
        cr_expect_eq(s.acquired[thread][k].lock, rank, "%s: thread %u, acquisition %zu: lock %u, expected %u", name,
                     thread, k, s.acquired[thread][k].lock, rank);
        cr_expect_eq(s.acquired[thread][k].order, t[i].order,
                     "%s: thread %u, acquisition %zu (lock %llx at %llu ticks): order %u, expected %u", name, thread,
                     k, (unsigned long long)t[i].wait_id, (unsigned long long)t[i].ticks,
                     s.acquired[thread][k].order, t[i].order);
        cr_expect_eq(s.released[thread][k].lock, s.acquired[thread][k].lock);
        cr_expect_eq(s.released[thread][k].order, t[i].order);
    }
    for (uint32_t thread = 0; thread < THREADS; thread++) {
        cr_expect_eq(s.acquired_count[thread], next[thread], "%s: thread %u: %zu acquisitions, expected %zu", name,
                     thread, s.acquired_count[thread], next[thread]);
        cr_expect_eq(s.released_count[thread], next[thread]);
    }
}

#define T(ns) (TICKS0 + 2000000ull + 2ull * (ns))

/* Two locks taken in turn by both threads, at times that interleave and tie. */
Test(lock_orders, in_time_order_numbered_by_time_over_threads)
{
    take t[] = {
        {0, 0xA000, T(1000), 0}, {0, 0xB000, T(2000), 0}, {0, 0xA000, T(5000), 0}, {0, 0xA000, T(9000), 0},
        {0, 0xB000, T(9500), 0}, {1, 0xA000, T(1500), 0}, {1, 0xB000, T(2000), 0}, {1, 0xA000, T(7000), 0},
        {1, 0xB000, T(8000), 0}, {1, 0xA000, T(9000), 0}, /* ties with thread 0's: after it */
    };
    orders_hold("lock-orders-in-order", t, sizeof t / sizeof *t);
}

/* Thread 0's stream goes back in time (3000 after 5000): numbered by time all the same. */
Test(lock_orders, a_stream_back_in_time_numbered_by_time)
{
    take t[] = {
        {0, 0xA000, T(1000), 0}, {0, 0xA000, T(5000), 0}, {0, 0xA000, T(3000), 0}, {0, 0xB000, T(6000), 0},
        {1, 0xA000, T(2000), 0}, {1, 0xA000, T(4000), 0}, {1, 0xB000, T(7000), 0},
    };
    orders_hold("lock-orders-back-in-time", t, sizeof t / sizeof *t);
}

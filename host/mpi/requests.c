/**
 * \file requests.c
 * \brief Non-blocking requests: the table that follows them from their start
 *        (Isend*, Irecv) to their completion (the Wait and Test families,
 *        MPI_Request_free), and those wrappers.
 *
 * Why one table for the process, under a lock, and not one per thread: a
 * request may be started on one thread and completed on another
 * (MPI_THREAD_MULTIPLE). The lock is taken only while requests of ours are
 * pending, and only for the handles in the call. Why a copy of the handles
 * before PMPI: a completed request's handle is set to MPI_REQUEST_NULL, and
 * MPI reuses handles, so the table is keyed by the handle as it was and an
 * entry is removed at its completion.
 *
 * One handle may stand for several requests at once: Open MPI hands out one
 * shared, already complete request for every send that completed at once
 * (its ompi_request_empty). So a handle is a key of several entries, in the
 * order they started; each completion of that handle takes the oldest its
 * thread started (else the oldest).
 * (A program that drops a request without completing or freeing it leaves
 * its entry behind, and that handle's next request would complete it.)
 *
 * No allocation on the way, but for growth that stays: the table doubles
 * (slow path) and each thread keeps its scratch arrays for the handles and
 * statuses of the Wait/Test calls with many requests.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi_internal.h"

#define OT_EXPORT __attribute__((visibility("default")))

typedef struct request_entry {
    uint64_t key; /* the handle's bits; 0: a free slot */
    uint64_t id;
    uint64_t comm;
    MPI_Datatype type;
    uint32_t thread; /* the thread that started it (thread_token) */
    uint8_t kind, tested;
} request_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static request_entry *slots;
static size_t capacity, used; /* capacity: a power of two */
static size_t pending;         /* = used, read without the lock to skip the table when empty */
static uint64_t next_id;
static uint32_t next_thread;
static __thread uint32_t thread_token __attribute__((tls_model("initial-exec")));

/* This thread's number for the table (from 1, taken on first use). */
static uint32_t this_thread(void)
{
    if (!thread_token)
        thread_token = __atomic_add_fetch(&next_thread, 1, __ATOMIC_RELAXED);
    return thread_token;
}

#define OT_MPI_REQUESTS_FIRST 1024u

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

void ot_mpi_requests_prepare(void)
{
    pthread_mutex_lock(&lock);
    if (!slots && (slots = calloc(OT_MPI_REQUESTS_FIRST, sizeof *slots)))
        capacity = OT_MPI_REQUESTS_FIRST;
    pthread_mutex_unlock(&lock);
}

/* Under the lock: double the table (kept at most half full). */
static int grow(void)
{
    size_t cap = capacity ? capacity * 2 : OT_MPI_REQUESTS_FIRST;
    request_entry *more = calloc(cap, sizeof *more);
    if (!more)
        return -1;
    for (size_t i = 0; i < capacity; i++)
        if (slots[i].key) {
            size_t j = slot_of(slots[i].key, cap);
            while (more[j].key)
                j = (j + 1) & (cap - 1);
            more[j] = slots[i];
        }
    free(slots);
    slots = more;
    capacity = cap;
    return 0;
}

uint64_t ot_mpi_request_started(MPI_Request request, int kind, uint64_t comm, MPI_Datatype type)
{
    uint64_t key = OT_MPI_HANDLE_KEY(request);
    if (!key)
        return 0;
    uint64_t id = 0;
    pthread_mutex_lock(&lock);
    if ((used + 1) * 2 <= capacity || grow() == 0) {
        size_t i = slot_of(key, capacity);
        while (slots[i].key) /* after any entry of the same handle: see the file's comment */
            i = (i + 1) & (capacity - 1);
        used++;
        id = ++next_id;
        slots[i] = (request_entry){.key = key, .id = id, .comm = comm, .type = type, .thread = this_thread(),
                                   .kind = (uint8_t)kind};
        __atomic_store_n(&pending, used, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&lock);
    return id;
}

/* Under the lock: the slot of \p key's oldest entry started by this thread,
 * else its oldest entry (a request completed on another thread than its
 * start), or SIZE_MAX. Oldest: the first of its probe run (removals shift
 * later entries back, keeping their order). Why this thread's first: a
 * shared handle (ompi_request_empty) completed by a thread is one of its
 * own sends. */
static size_t find(uint64_t key)
{
    if (!key || !capacity)
        return SIZE_MAX;
    size_t any = SIZE_MAX;
    uint32_t me = this_thread();
    for (size_t i = slot_of(key, capacity); slots[i].key; i = (i + 1) & (capacity - 1)) {
        if (slots[i].key != key)
            continue;
        if (slots[i].thread == me)
            return i;
        if (any == SIZE_MAX)
            any = i;
    }
    return any;
}

/* Under the lock: empty slot \p i, moving later entries of its run back
 * (linear probing without tombstones). */
static void remove_at(size_t i)
{
    slots[i].key = 0;
    used--;
    for (size_t j = (i + 1) & (capacity - 1); slots[j].key; j = (j + 1) & (capacity - 1)) {
        size_t home = slot_of(slots[j].key, capacity);
        /* slot j's entry may move to i when i lies cyclically in [home, j) */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            slots[i] = slots[j];
            slots[j].key = 0;
            i = j;
        }
    }
    __atomic_store_n(&pending, used, __ATOMIC_RELAXED);
}

static int requests_pending(void) { return __atomic_load_n(&pending, __ATOMIC_RELAXED) != 0; }

/* The request \p handle (as it was before the call) completed with \p st. */
static void completed(ot_mpi_call *c, MPI_Request handle, MPI_Status *st)
{
    uint64_t key = OT_MPI_HANDLE_KEY(handle);
    pthread_mutex_lock(&lock);
    size_t i = find(key);
    request_entry e = {0};
    if (i != SIZE_MAX) {
        e = slots[i];
        remove_at(i);
    }
    pthread_mutex_unlock(&lock);
    if (i == SIZE_MAX)
        return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    offtrace_raw_record r = {.target_id = e.id, .event = OFFTRACE_RAW_MPI_REQUEST_DONE};
    if (cancelled) {
        r.subkind = OFFTRACE_RAW_MPI_DONE_CANCELLED;
    } else if (e.kind == OT_MPI_REQUEST_ISEND) {
        r.subkind = OFFTRACE_RAW_MPI_DONE_ISEND;
    } else {
        int count = 0;
        if (PMPI_Get_count(st, e.type, &count) != MPI_SUCCESS || count == MPI_UNDEFINED)
            count = 0;
        r.subkind = OFFTRACE_RAW_MPI_DONE_IRECV;
        r.id = e.comm;
        r.src_addr = (uint64_t)(uint32_t)st->MPI_SOURCE;
        r.dst_addr = (uint64_t)(uint32_t)st->MPI_TAG;
        r.bytes = ot_mpi_bytes(count, e.type);
    }
    ot_mpi_put(c, &r);
}

/* A test that found \p handle not complete: recorded once per request. */
static void tested(ot_mpi_call *c, MPI_Request handle)
{
    uint64_t key = OT_MPI_HANDLE_KEY(handle), id = 0;
    pthread_mutex_lock(&lock);
    size_t i = find(key);
    if (i != SIZE_MAX && !slots[i].tested) {
        slots[i].tested = 1;
        id = slots[i].id;
    }
    pthread_mutex_unlock(&lock);
    if (id) {
        offtrace_raw_record r = {.target_id = id, .event = OFFTRACE_RAW_MPI_REQUEST_TEST};
        ot_mpi_put(c, &r);
    }
}

/* ---- per-thread scratch for the handles and statuses of one call ---- */

typedef struct scratch {
    MPI_Request *requests;
    MPI_Status *statuses;
    size_t capacity;
} scratch;

static __thread scratch thread_scratch __attribute__((tls_model("initial-exec")));

#define OT_MPI_STACK_REQUESTS 32

typedef struct call_copy {
    MPI_Request stack_requests[OT_MPI_STACK_REQUESTS];
    MPI_Status stack_statuses[OT_MPI_STACK_REQUESTS];
    MPI_Request *requests; /* the handles before the call */
    MPI_Status *statuses;  /* the caller's, or ours when it passed MPI_STATUSES_IGNORE */
} call_copy;

/* \return 0, or -1 when there is no room (nothing is recorded then). */
static int copy_requests(call_copy *cc, int count, const MPI_Request *requests, MPI_Status *statuses)
{
    size_t n = count > 0 ? (size_t)count : 0;
    cc->requests = cc->stack_requests;
    cc->statuses = statuses != MPI_STATUSES_IGNORE ? statuses : cc->stack_statuses;
    if (n > OT_MPI_STACK_REQUESTS) {
        scratch *s = &thread_scratch;
        if (n > s->capacity) { /* grows once to the largest call of the thread, kept */
            MPI_Request *r = realloc(s->requests, n * sizeof *r);
            if (r)
                s->requests = r;
            MPI_Status *st = r ? realloc(s->statuses, n * sizeof *st) : NULL;
            if (st)
                s->statuses = st;
            if (!r || !st)
                return -1;
            s->capacity = n;
        }
        cc->requests = s->requests;
        if (statuses == MPI_STATUSES_IGNORE)
            cc->statuses = s->statuses;
    }
    if (n)
        memcpy(cc->requests, requests, n * sizeof *requests);
    return 0;
}

/* ---- the wrappers ---- */

OT_EXPORT int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Wait, __builtin_return_address(0), requests_pending()))
        return PMPI_Wait(request, status);
    if (c.whole) {
        int rc = PMPI_Wait(request, status);
        ot_mpi_leave(&c);
        return rc;
    }
    MPI_Request before = *request;
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Wait(request, st);
    if (rc == MPI_SUCCESS)
        completed(&c, before, st);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Test, __builtin_return_address(0), requests_pending()))
        return PMPI_Test(request, flag, status);
    if (c.whole) {
        int rc = PMPI_Test(request, flag, status);
        ot_mpi_leave(&c);
        return rc;
    }
    MPI_Request before = *request;
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Test(request, flag, st);
    if (rc == MPI_SUCCESS && *flag)
        completed(&c, before, st);
    else if (rc == MPI_SUCCESS)
        tested(&c, before);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    ot_mpi_call c;
    call_copy cc;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Waitall, __builtin_return_address(0), requests_pending()))
        return PMPI_Waitall(count, array_of_requests, array_of_statuses);
    if (c.whole || copy_requests(&cc, count, array_of_requests, array_of_statuses) != 0) {
        int rc = PMPI_Waitall(count, array_of_requests, array_of_statuses);
        ot_mpi_leave(&c);
        return rc;
    }
    int rc = PMPI_Waitall(count, array_of_requests, cc.statuses);
    for (int i = 0; rc == MPI_SUCCESS && i < count; i++)
        completed(&c, cc.requests[i], &cc.statuses[i]);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    ot_mpi_call c;
    call_copy cc;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Testall, __builtin_return_address(0), requests_pending()))
        return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    if (c.whole || copy_requests(&cc, count, array_of_requests, array_of_statuses) != 0) {
        int rc = PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
        ot_mpi_leave(&c);
        return rc;
    }
    int rc = PMPI_Testall(count, array_of_requests, flag, cc.statuses);
    for (int i = 0; rc == MPI_SUCCESS && i < count; i++) {
        if (*flag)
            completed(&c, cc.requests[i], &cc.statuses[i]);
        else
            tested(&c, cc.requests[i]);
    }
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    ot_mpi_call c;
    call_copy cc;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Waitany, __builtin_return_address(0), requests_pending()))
        return PMPI_Waitany(count, array_of_requests, index, status);
    if (c.whole || copy_requests(&cc, count, array_of_requests, MPI_STATUSES_IGNORE) != 0) {
        int rc = PMPI_Waitany(count, array_of_requests, index, status);
        ot_mpi_leave(&c);
        return rc;
    }
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Waitany(count, array_of_requests, index, st);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
        completed(&c, cc.requests[*index], st);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    ot_mpi_call c;
    call_copy cc;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Testany, __builtin_return_address(0), requests_pending()))
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    if (c.whole || copy_requests(&cc, count, array_of_requests, MPI_STATUSES_IGNORE) != 0) {
        int rc = PMPI_Testany(count, array_of_requests, index, flag, status);
        ot_mpi_leave(&c);
        return rc;
    }
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Testany(count, array_of_requests, index, flag, st);
    if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED && *index >= 0 && *index < count)
        completed(&c, cc.requests[*index], st);
    else if (rc == MPI_SUCCESS && !*flag)
        for (int i = 0; i < count; i++)
            tested(&c, cc.requests[i]);
    ot_mpi_leave(&c);
    return rc;
}

/* Waitsome and Testsome: the completed ones are named by index. */
static void some_completed(ot_mpi_call *c, const call_copy *cc, int incount, int outcount, const int *indices)
{
    if (outcount == MPI_UNDEFINED)
        return;
    for (int k = 0; k < outcount; k++)
        if (indices[k] >= 0 && indices[k] < incount)
            completed(c, cc->requests[indices[k]], &cc->statuses[k]);
}

OT_EXPORT int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[])
{
    ot_mpi_call c;
    call_copy cc;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Waitsome, __builtin_return_address(0), requests_pending()))
        return PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (c.whole || copy_requests(&cc, incount, array_of_requests, array_of_statuses) != 0) {
        int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
        ot_mpi_leave(&c);
        return rc;
    }
    int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices, cc.statuses);
    if (rc == MPI_SUCCESS)
        some_completed(&c, &cc, incount, *outcount, array_of_indices);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[])
{
    ot_mpi_call c;
    call_copy cc;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Testsome, __builtin_return_address(0), requests_pending()))
        return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (c.whole || copy_requests(&cc, incount, array_of_requests, array_of_statuses) != 0) {
        int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
        ot_mpi_leave(&c);
        return rc;
    }
    int rc = PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, cc.statuses);
    if (rc == MPI_SUCCESS && *outcount > 0)
        some_completed(&c, &cc, incount, *outcount, array_of_indices);
    else if (rc == MPI_SUCCESS && *outcount == 0)
        for (int i = 0; i < incount; i++)
            tested(&c, cc.requests[i]);
    ot_mpi_leave(&c);
    return rc;
}

/* A request freed before its completion never completes for us: forgotten
 * (an isend freed so still goes out; part 3b has no completion to pair). */
OT_EXPORT int MPI_Request_free(MPI_Request *request)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Request_free, __builtin_return_address(0), 0))
        return PMPI_Request_free(request);
    uint64_t key = OT_MPI_HANDLE_KEY(*request);
    if (requests_pending()) {
        pthread_mutex_lock(&lock);
        size_t i = find(key);
        if (i != SIZE_MAX)
            remove_at(i);
        pthread_mutex_unlock(&lock);
    }
    int rc = PMPI_Request_free(request);
    ot_mpi_leave(&c);
    return rc;
}

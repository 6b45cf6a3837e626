/**
 * \file mpi_internal.h
 * \brief What the wrappers of libofftrace-mpi.so share (issue 16): the
 *        recorder pointer, the per-thread recursion guard, a call's region,
 *        and the tables of communicators and requests.
 *
 * Every wrapper has the same shape: load the recorder; NULL (untraced) or
 * already inside a wrapper on this thread (an MPI that calls MPI) -> the
 * PMPI call alone. Else its region (one MPI_CALL record, or a BEGIN and an
 * END around its other records) on the calling thread's stream.
 */
#ifndef OT_MPI_INTERNAL_H
#define OT_MPI_INTERNAL_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "mpi_recorder.h"
#include "offtrace/mpi_calls.h"
#include "offtrace/raw_format.h"

#define OT_MPI_HIDDEN __attribute__((visibility("hidden")))

/** The attached recorder; NULL: untraced. */
extern const ot_mpi_recorder *ot_mpi_recorder_now OT_MPI_HIDDEN;
/** 1 while this thread is inside a wrapper (MPI calling MPI records nothing more). */
extern __thread int ot_mpi_inside OT_MPI_HIDDEN __attribute__((tls_model("initial-exec")));

/** One wrapped call in progress. */
typedef struct ot_mpi_call {
    const ot_mpi_recorder *rec;
    uint64_t begin, codeptr;
    uint8_t call;
    uint8_t open; /**< its BEGIN was stored: its inner records and END follow */
    uint8_t whole; /**< one COMPLETE record at the end (a call with nothing inside) */
} ot_mpi_call;

/**
 * \brief Start a call's region. \p inner: the call records more than its
 *  region (a BEGIN is written now). \return 0 when nothing is recorded
 *  (untraced, or inside another wrapper): the caller does its PMPI call
 *  alone and calls no ot_mpi_leave.
 */
static inline int ot_mpi_enter(ot_mpi_call *c, unsigned call, void *caller, int inner)
{
    const ot_mpi_recorder *rec = __atomic_load_n(&ot_mpi_recorder_now, __ATOMIC_ACQUIRE);
    if (__builtin_expect(rec == NULL, 1) || ot_mpi_inside)
        return 0;
    ot_mpi_inside = 1;
    c->rec = rec;
    c->call = (uint8_t)call;
    c->codeptr = (uint64_t)(uintptr_t)caller;
    c->whole = !inner;
    c->open = 0;
    c->begin = rec->ticks();
    if (inner) {
        offtrace_raw_record r = {.time = c->begin, .codeptr = c->codeptr, .subkind = c->call,
                                 .endpoint = OFFTRACE_RAW_BEGIN, .event = OFFTRACE_RAW_MPI_CALL};
        c->open = (uint8_t)rec->put(&r);
    }
    return 1;
}

/** \brief End the call's region (its END, or its one COMPLETE record). */
static inline void ot_mpi_leave(ot_mpi_call *c)
{
    uint64_t now = c->rec->ticks();
    if (c->whole) {
        offtrace_raw_record r = {.time = c->begin, .end_time = now, .codeptr = c->codeptr, .subkind = c->call,
                                 .endpoint = OFFTRACE_RAW_COMPLETE, .event = OFFTRACE_RAW_MPI_CALL};
        c->rec->put(&r);
    } else if (c->open) {
        offtrace_raw_record r = {.time = now, .subkind = c->call, .endpoint = OFFTRACE_RAW_END,
                                 .event = OFFTRACE_RAW_MPI_CALL};
        c->rec->put(&r);
    }
    ot_mpi_inside = 0;
}

/** \brief An inner record of the call (its time is now): only when the call's BEGIN was stored. */
static inline void ot_mpi_put(ot_mpi_call *c, offtrace_raw_record *r)
{
    if (!c->open)
        return;
    r->time = c->rec->ticks();
    if (!r->endpoint)
        r->endpoint = OFFTRACE_RAW_BEGIN;
    c->rec->put(r);
}

/** \brief count * MPI_Type_size(type), 0 for a type without a size. */
static inline uint64_t ot_mpi_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

/** \brief A handle's bits as a table key (MPI_Comm and MPI_Request are pointers in Open MPI, ints in MPICH). */
#define OT_MPI_HANDLE_KEY(handle)                                          \
    __extension__({                                                        \
        uint64_t key_ = 0;                                                 \
        memcpy(&key_, &(handle), sizeof(handle) < 8 ? sizeof(handle) : 8); \
        key_;                                                              \
    })

/* ---- communicators (comms.c) ---- */

/** \brief The job-wide id of \p comm (OFFTRACE_RAW_MPI_COMM_*; UNKNOWN for one never seen made). */
uint64_t ot_mpi_comm_id(MPI_Comm comm) OT_MPI_HIDDEN;
/** \brief At MPI_Init: the world's record. */
void ot_mpi_comm_world(ot_mpi_call *c) OT_MPI_HIDDEN;
/** \brief MPI_COMM_WORLD and MPI_COMM_SELF in the table, without a record. */
void ot_mpi_comm_remember_world(void) OT_MPI_HIDDEN;

/* ---- requests (requests.c) ---- */

/** What a request table entry is for. */
enum { OT_MPI_REQUEST_ISEND = 1, OT_MPI_REQUEST_IRECV = 2 };

/** \brief Remember a request just started (Isend*, Irecv); \return its request id (from 1), 0 if not kept. */
uint64_t ot_mpi_request_started(MPI_Request request, int kind, uint64_t comm, MPI_Datatype type) OT_MPI_HIDDEN;
/** \brief Allocate the table (at attach: never on the first Isend). */
void ot_mpi_requests_prepare(void) OT_MPI_HIDDEN;

/* ---- the clock and the rank (init.c) ---- */
/** \brief At attach: MPI was initialized before the recorder came (mpi.rank, the world). */
void ot_mpi_attached_late(const ot_mpi_recorder *rec) OT_MPI_HIDDEN;

#endif

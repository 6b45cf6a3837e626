/**
 * \file p2p.c
 * \brief Point-to-point wrappers: blocking sends and receives, Sendrecv,
 *        and the start of non-blocking ones (their completion: requests.c).
 *
 * A message is recorded on the side that knows it: a send before PMPI (so
 * that it precedes its receive in time even when the send blocks), a
 * receive after (the status names source, tag and size). MPI_PROC_NULL as
 * peer is no message: the call's region alone.
 */
#include "mpi_internal.h"

#define OT_EXPORT __attribute__((visibility("default")))

static void put_send(ot_mpi_call *c, uint8_t event, uint64_t comm, int dest, int tag, uint64_t bytes,
                     uint64_t request)
{
    offtrace_raw_record r = {.id = comm, .target_id = request, .src_addr = (uint64_t)(uint32_t)dest,
                             .dst_addr = (uint64_t)(uint32_t)tag, .bytes = bytes, .event = event};
    ot_mpi_put(c, &r);
}

static void put_recv(ot_mpi_call *c, uint64_t comm, const MPI_Status *status, MPI_Datatype type)
{
    if (status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int count = 0;
    if (PMPI_Get_count(status, type, &count) != MPI_SUCCESS || count == MPI_UNDEFINED)
        count = 0;
    offtrace_raw_record r = {.id = comm, .src_addr = (uint64_t)(uint32_t)status->MPI_SOURCE,
                             .dst_addr = (uint64_t)(uint32_t)status->MPI_TAG, .bytes = ot_mpi_bytes(count, type),
                             .event = OFFTRACE_RAW_MPI_RECV};
    ot_mpi_put(c, &r);
}

#define OT_MPI_BLOCKING_SEND(name)                                                                             \
    OT_EXPORT int MPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,              \
                             MPI_Comm comm)                                                                     \
    {                                                                                                           \
        ot_mpi_call c;                                                                                          \
        if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_##name, __builtin_return_address(0), 1))                        \
            return PMPI_##name(buf, count, datatype, dest, tag, comm);                                          \
        if (dest != MPI_PROC_NULL)                                                                              \
            put_send(&c, OFFTRACE_RAW_MPI_SEND, ot_mpi_comm_id(comm), dest, tag, ot_mpi_bytes(count, datatype), \
                     0);                                                                                        \
        int rc = PMPI_##name(buf, count, datatype, dest, tag, comm);                                            \
        ot_mpi_leave(&c);                                                                                       \
        return rc;                                                                                              \
    }
OT_MPI_BLOCKING_SEND(Send)
OT_MPI_BLOCKING_SEND(Bsend)
OT_MPI_BLOCKING_SEND(Ssend)
OT_MPI_BLOCKING_SEND(Rsend)

OT_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Recv, __builtin_return_address(0), 1))
        return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Recv(buf, count, datatype, source, tag, comm, st);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        put_recv(&c, ot_mpi_comm_id(comm), st, datatype);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Sendrecv, __builtin_return_address(0), 1))
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, status);
    uint64_t id = ot_mpi_comm_id(comm);
    if (dest != MPI_PROC_NULL)
        put_send(&c, OFFTRACE_RAW_MPI_SEND, id, dest, sendtag, ot_mpi_bytes(sendcount, sendtype), 0);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                           recvtag, comm, st);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        put_recv(&c, id, st, recvtype);
    ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                   int recvtag, MPI_Comm comm, MPI_Status *status)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Sendrecv_replace, __builtin_return_address(0), 1))
        return PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    uint64_t id = ot_mpi_comm_id(comm);
    if (dest != MPI_PROC_NULL)
        put_send(&c, OFFTRACE_RAW_MPI_SEND, id, dest, sendtag, ot_mpi_bytes(count, datatype), 0);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        put_recv(&c, id, st, datatype);
    ot_mpi_leave(&c);
    return rc;
}

#define OT_MPI_NONBLOCKING_SEND(name)                                                                          \
    OT_EXPORT int MPI_##name(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,              \
                             MPI_Comm comm, MPI_Request *request)                                               \
    {                                                                                                           \
        ot_mpi_call c;                                                                                          \
        if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_##name, __builtin_return_address(0), 1))                        \
            return PMPI_##name(buf, count, datatype, dest, tag, comm, request);                                 \
        int rc = PMPI_##name(buf, count, datatype, dest, tag, comm, request);                                   \
        if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL && c.open) {                                             \
            uint64_t id = ot_mpi_comm_id(comm);                                                                 \
            uint64_t req = ot_mpi_request_started(*request, OT_MPI_REQUEST_ISEND, id, datatype);                \
            put_send(&c, OFFTRACE_RAW_MPI_ISEND, id, dest, tag, ot_mpi_bytes(count, datatype), req);             \
        }                                                                                                       \
        ot_mpi_leave(&c);                                                                                       \
        return rc;                                                                                              \
    }
OT_MPI_NONBLOCKING_SEND(Isend)
OT_MPI_NONBLOCKING_SEND(Ibsend)
OT_MPI_NONBLOCKING_SEND(Issend)
OT_MPI_NONBLOCKING_SEND(Irsend)

OT_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Request *request)
{
    ot_mpi_call c;
    if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Irecv, __builtin_return_address(0), 1))
        return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
    int rc = PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL && c.open) {
        uint64_t id = ot_mpi_comm_id(comm);
        offtrace_raw_record r = {.id = id,
                                 .target_id = ot_mpi_request_started(*request, OT_MPI_REQUEST_IRECV, id, datatype),
                                 .event = OFFTRACE_RAW_MPI_IRECV_REQUEST};
        ot_mpi_put(&c, &r);
    }
    ot_mpi_leave(&c);
    return rc;
}

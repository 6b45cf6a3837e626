/*
 * libmpi_counter.so: an independent PMPI layer for the tests of MPI
 * recording (tests/test_mpi_recording.c). Preloaded into an untraced run of
 * an MPI program (instead of libofftrace-mpi.so: PMPI has one level), it
 * counts per rank the messages and collectives the program asked for and
 * prints, at MPI_Finalize, on stderr:
 *   MPICOUNTER rank=R sends=S bytes_sent=B recvs=N bytes_recv=B coll=C
 * A send or receive with MPI_PROC_NULL as peer is no message. A blocking
 * receive counts the bytes its status says; a non-blocking one the bytes it
 * posted (the test programs always receive exactly what they post). It
 * shares no code with offtrace.
 */
#include <mpi.h>
#include <stdio.h>

static long sends, bytes_sent, recvs, bytes_recv, coll;

static long bytes_of(int count, MPI_Datatype type)
{
    int size = 0;
    MPI_Type_size(type, &size);
    return (long)count * size;
}

static void sent(int dest, int count, MPI_Datatype type)
{
    if (dest == MPI_PROC_NULL)
        return;
    sends++;
    bytes_sent += bytes_of(count, type);
}

static void received(const MPI_Status *status, MPI_Datatype type)
{
    if (status->MPI_SOURCE == MPI_PROC_NULL)
        return;
    int count = 0;
    MPI_Get_count(status, type, &count);
    recvs++;
    bytes_recv += bytes_of(count, type);
}

#define BLOCKING_SEND(name)                                                                             \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)    \
    {                                                                                                   \
        sent(dest, count, type);                                                                        \
        return PMPI_##name(buf, count, type, dest, tag, comm);                                          \
    }
BLOCKING_SEND(Send)
BLOCKING_SEND(Bsend)
BLOCKING_SEND(Ssend)
BLOCKING_SEND(Rsend)

#define NONBLOCKING_SEND(name)                                                                          \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,    \
                   MPI_Request *request)                                                                \
    {                                                                                                   \
        sent(dest, count, type);                                                                        \
        return PMPI_##name(buf, count, type, dest, tag, comm, request);                                 \
    }
NONBLOCKING_SEND(Isend)
NONBLOCKING_SEND(Ibsend)
NONBLOCKING_SEND(Issend)
NONBLOCKING_SEND(Irsend)

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, status == MPI_STATUS_IGNORE ? &own : status);
    if (rc == MPI_SUCCESS)
        received(status == MPI_STATUS_IGNORE ? &own : status, type);
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    if (source != MPI_PROC_NULL) {
        recvs++;
        bytes_recv += bytes_of(count, type);
    }
    return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    sent(dest, sendcount, sendtype);
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                           recvtag, comm, st);
    if (rc == MPI_SUCCESS)
        received(st, recvtype);
    return rc;
}

#define COLLECTIVE(name, params, args)      \
    int MPI_##name params                   \
    {                                       \
        coll++;                             \
        return PMPI_##name args;            \
    }
COLLECTIVE(Barrier, (MPI_Comm comm), (comm))
COLLECTIVE(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm comm), (b, n, t, root, comm))
COLLECTIVE(Reduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm),
           (s, r, n, t, op, root, comm))
COLLECTIVE(Allreduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm),
           (s, r, n, t, op, comm))
COLLECTIVE(Gather,
           (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm comm),
           (s, sn, st, r, rn, rt, root, comm))
COLLECTIVE(Scatter,
           (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root, MPI_Comm comm),
           (s, sn, st, r, rn, rt, root, comm))
COLLECTIVE(Allgather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm comm),
           (s, sn, st, r, rn, rt, comm))
COLLECTIVE(Alltoall, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm comm),
           (s, sn, st, r, rn, rt, comm))

int MPI_Finalize(void)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "MPICOUNTER rank=%d sends=%ld bytes_sent=%ld recvs=%ld bytes_recv=%ld coll=%ld\n", rank, sends,
            bytes_sent, recvs, bytes_recv, coll);
    return PMPI_Finalize();
}

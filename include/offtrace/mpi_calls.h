/**
 * \file mpi_calls.h
 * \brief The MPI calls libofftrace-mpi.so wraps (issue 16, docs/mpi.md): one
 *        table for the wrappers, the raw format and the converter.
 *
 * X(name, family, role, op, body, params, args)
 *  - name: the call without its prefix (Send: MPI_Send, PMPI_Send). Its
 *    position in the table is its call number, the `subkind` of an
 *    OFFTRACE_RAW_MPI_CALL record: append new calls, never reorder.
 *  - family: P2P, COLLECTIVE or OTHER: the catalogue class of its region
 *    (MPI_P2P, MPI_COLLECTIVE, MPI_OTHER).
 *  - role: the OTF2 region role of its region (OTF2_REGION_ROLE_<role>).
 *  - op: for a collective, its OTF2 collective operation
 *    (OFFTRACE_RAW_MPI_COLL_<op>, OTF2_COLLECTIVE_OP_<op>'s value); NONE else.
 *  - body: PLAIN (the wrapper is generated: a region and nothing else) or
 *    OWN (written by hand in host/mpi/: it records messages, requests,
 *    collectives, communicators or the clock too).
 *  - params, args: its C prototype as Open MPI's mpi.h declares it (the
 *    wrappers check every one against PMPI_<name> at compile time) and the
 *    names to pass on.
 *
 * This header needs no <mpi.h>: the converter expands only the first
 * columns, and the MPI types in params stay unexpanded tokens there.
 */
#ifndef OFFTRACE_MPI_CALLS_H
#define OFFTRACE_MPI_CALLS_H

#define OFFTRACE_MPI_CALLS(X)                                                                                    \
    /* the environment */                                                                                        \
    X(Init, OTHER, FUNCTION, NONE, OWN, (int *argc, char ***argv), (argc, argv))                                 \
    X(Init_thread, OTHER, FUNCTION, NONE, OWN, (int *argc, char ***argv, int required, int *provided),           \
      (argc, argv, required, provided))                                                                          \
    X(Finalize, OTHER, FUNCTION, NONE, OWN, (void), ())                                                          \
    X(Abort, OTHER, FUNCTION, NONE, OWN, (MPI_Comm comm, int errorcode), (comm, errorcode))                      \
    /* blocking point-to-point */                                                                                \
    X(Send, P2P, POINT2POINT, NONE, OWN,                                                                         \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                     \
      (buf, count, datatype, dest, tag, comm))                                                                   \
    X(Bsend, P2P, POINT2POINT, NONE, OWN,                                                                        \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                     \
      (buf, count, datatype, dest, tag, comm))                                                                   \
    X(Ssend, P2P, POINT2POINT, NONE, OWN,                                                                        \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                     \
      (buf, count, datatype, dest, tag, comm))                                                                   \
    X(Rsend, P2P, POINT2POINT, NONE, OWN,                                                                        \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                     \
      (buf, count, datatype, dest, tag, comm))                                                                   \
    X(Recv, P2P, POINT2POINT, NONE, OWN,                                                                         \
      (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status),     \
      (buf, count, datatype, source, tag, comm, status))                                                         \
    X(Sendrecv, P2P, POINT2POINT, NONE, OWN,                                                                     \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,          \
       int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status),        \
      (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,         \
       status))                                                                                                  \
    X(Sendrecv_replace, P2P, POINT2POINT, NONE, OWN,                                                             \
      (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,              \
       MPI_Comm comm, MPI_Status *status),                                                                       \
      (buf, count, datatype, dest, sendtag, source, recvtag, comm, status))                                      \
    /* non-blocking point-to-point and completion */                                                             \
    X(Isend, P2P, POINT2POINT, NONE, OWN,                                                                        \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,                      \
       MPI_Request *request),                                                                                    \
      (buf, count, datatype, dest, tag, comm, request))                                                          \
    X(Ibsend, P2P, POINT2POINT, NONE, OWN,                                                                       \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,                      \
       MPI_Request *request),                                                                                    \
      (buf, count, datatype, dest, tag, comm, request))                                                          \
    X(Issend, P2P, POINT2POINT, NONE, OWN,                                                                       \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,                      \
       MPI_Request *request),                                                                                    \
      (buf, count, datatype, dest, tag, comm, request))                                                          \
    X(Irsend, P2P, POINT2POINT, NONE, OWN,                                                                       \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,                      \
       MPI_Request *request),                                                                                    \
      (buf, count, datatype, dest, tag, comm, request))                                                          \
    X(Irecv, P2P, POINT2POINT, NONE, OWN,                                                                        \
      (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request),   \
      (buf, count, datatype, source, tag, comm, request))                                                        \
    X(Wait, P2P, POINT2POINT, NONE, OWN, (MPI_Request *request, MPI_Status *status), (request, status))          \
    X(Waitall, P2P, POINT2POINT, NONE, OWN,                                                                      \
      (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]),                              \
      (count, array_of_requests, array_of_statuses))                                                             \
    X(Waitany, P2P, POINT2POINT, NONE, OWN,                                                                      \
      (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status),                              \
      (count, array_of_requests, index, status))                                                                 \
    X(Waitsome, P2P, POINT2POINT, NONE, OWN,                                                                     \
      (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],                      \
       MPI_Status array_of_statuses[]),                                                                          \
      (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))                               \
    X(Test, P2P, POINT2POINT, NONE, OWN, (MPI_Request *request, int *flag, MPI_Status *status),                  \
      (request, flag, status))                                                                                   \
    X(Testall, P2P, POINT2POINT, NONE, OWN,                                                                      \
      (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]),                   \
      (count, array_of_requests, flag, array_of_statuses))                                                       \
    X(Testany, P2P, POINT2POINT, NONE, OWN,                                                                      \
      (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status),                   \
      (count, array_of_requests, index, flag, status))                                                           \
    X(Testsome, P2P, POINT2POINT, NONE, OWN,                                                                     \
      (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],                      \
       MPI_Status array_of_statuses[]),                                                                          \
      (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))                               \
    X(Request_free, P2P, POINT2POINT, NONE, OWN, (MPI_Request *request), (request))                              \
    X(Cancel, P2P, POINT2POINT, NONE, PLAIN, (MPI_Request *request), (request))                                  \
    /* persistent requests and probes: regions only (docs/mpi.md) */                                             \
    X(Send_init, P2P, POINT2POINT, NONE, PLAIN,                                                                  \
      (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,                      \
       MPI_Request *request),                                                                                    \
      (buf, count, datatype, dest, tag, comm, request))                                                          \
    X(Recv_init, P2P, POINT2POINT, NONE, PLAIN,                                                                  \
      (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request),   \
      (buf, count, datatype, source, tag, comm, request))                                                        \
    X(Start, P2P, POINT2POINT, NONE, PLAIN, (MPI_Request *request), (request))                                   \
    X(Startall, P2P, POINT2POINT, NONE, PLAIN, (int count, MPI_Request array_of_requests[]),                     \
      (count, array_of_requests))                                                                                \
    X(Probe, P2P, POINT2POINT, NONE, PLAIN, (int source, int tag, MPI_Comm comm, MPI_Status *status),            \
      (source, tag, comm, status))                                                                               \
    X(Iprobe, P2P, POINT2POINT, NONE, PLAIN,                                                                     \
      (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status), (source, tag, comm, flag, status))    \
    /* collectives */                                                                                            \
    X(Barrier, COLLECTIVE, BARRIER, BARRIER, OWN, (MPI_Comm comm), (comm))                                       \
    X(Bcast, COLLECTIVE, COLL_ONE2ALL, BCAST, OWN,                                                               \
      (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),                                 \
      (buffer, count, datatype, root, comm))                                                                     \
    X(Gather, COLLECTIVE, COLL_ALL2ONE, GATHER, OWN,                                                             \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                  \
       MPI_Datatype recvtype, int root, MPI_Comm comm),                                                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))                                  \
    X(Gatherv, COLLECTIVE, COLL_ALL2ONE, GATHERV, OWN,                                                           \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],         \
       const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))                         \
    X(Scatter, COLLECTIVE, COLL_ONE2ALL, SCATTER, OWN,                                                           \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                  \
       MPI_Datatype recvtype, int root, MPI_Comm comm),                                                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))                                  \
    X(Scatterv, COLLECTIVE, COLL_ONE2ALL, SCATTERV, OWN,                                                         \
      (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,     \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                                           \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))                         \
    X(Allgather, COLLECTIVE, COLL_ALL2ALL, ALLGATHER, OWN,                                                       \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                  \
       MPI_Datatype recvtype, MPI_Comm comm),                                                                    \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                        \
    X(Allgatherv, COLLECTIVE, COLL_ALL2ALL, ALLGATHERV, OWN,                                                     \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],         \
       const int displs[], MPI_Datatype recvtype, MPI_Comm comm),                                                \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))                               \
    X(Alltoall, COLLECTIVE, COLL_ALL2ALL, ALLTOALL, OWN,                                                         \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                  \
       MPI_Datatype recvtype, MPI_Comm comm),                                                                    \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                        \
    X(Alltoallv, COLLECTIVE, COLL_ALL2ALL, ALLTOALLV, OWN,                                                       \
      (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,   \
       const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),                       \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))                    \
    X(Reduce, COLLECTIVE, COLL_ALL2ONE, REDUCE, OWN,                                                             \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,                \
       MPI_Comm comm),                                                                                           \
      (sendbuf, recvbuf, count, datatype, op, root, comm))                                                       \
    X(Allreduce, COLLECTIVE, COLL_ALL2ALL, ALLREDUCE, OWN,                                                       \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),          \
      (sendbuf, recvbuf, count, datatype, op, comm))                                                             \
    X(Reduce_scatter, COLLECTIVE, COLL_ALL2ALL, REDUCE_SCATTER, OWN,                                             \
      (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,             \
       MPI_Comm comm),                                                                                           \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm))                                                        \
    X(Reduce_scatter_block, COLLECTIVE, COLL_ALL2ALL, REDUCE_SCATTER_BLOCK, OWN,                                 \
      (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),      \
      (sendbuf, recvbuf, recvcount, datatype, op, comm))                                                         \
    X(Scan, COLLECTIVE, COLL_OTHER, SCAN, OWN,                                                                   \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),          \
      (sendbuf, recvbuf, count, datatype, op, comm))                                                             \
    X(Exscan, COLLECTIVE, COLL_OTHER, EXSCAN, OWN,                                                               \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),          \
      (sendbuf, recvbuf, count, datatype, op, comm))                                                             \
    /* communicators (recorded) and groups (regions only) */                                                     \
    X(Comm_dup, OTHER, FUNCTION, NONE, OWN, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm))                 \
    X(Comm_split, OTHER, FUNCTION, NONE, OWN, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),            \
      (comm, color, key, newcomm))                                                                               \
    X(Comm_split_type, OTHER, FUNCTION, NONE, OWN,                                                               \
      (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm),                                \
      (comm, split_type, key, info, newcomm))                                                                    \
    X(Comm_create, OTHER, FUNCTION, NONE, OWN, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),              \
      (comm, group, newcomm))                                                                                    \
    X(Comm_free, OTHER, FUNCTION, NONE, OWN, (MPI_Comm *comm), (comm))                                           \
    X(Comm_group, OTHER, FUNCTION, NONE, PLAIN, (MPI_Comm comm, MPI_Group *group), (comm, group))                \
    X(Group_incl, OTHER, FUNCTION, NONE, PLAIN, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup), \
      (group, n, ranks, newgroup))                                                                               \
    X(Group_free, OTHER, FUNCTION, NONE, PLAIN, (MPI_Group *group), (group))                                     \
    /* one-sided communication: regions only (docs/mpi.md) */                                                    \
    X(Win_create, OTHER, FUNCTION, NONE, PLAIN,                                                                  \
      (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),                    \
      (base, size, disp_unit, info, comm, win))                                                                  \
    X(Win_free, OTHER, FUNCTION, NONE, PLAIN, (MPI_Win *win), (win))                                             \
    X(Win_fence, OTHER, BARRIER, NONE, PLAIN, (int assert, MPI_Win win), (assert, win))                          \
    X(Win_lock, OTHER, FUNCTION, NONE, PLAIN, (int lock_type, int rank, int assert, MPI_Win win),                \
      (lock_type, rank, assert, win))                                                                            \
    X(Win_unlock, OTHER, FUNCTION, NONE, PLAIN, (int rank, MPI_Win win), (rank, win))                            \
    X(Put, OTHER, RMA, NONE, PLAIN,                                                                              \
      (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,                 \
       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win),                       \
      (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,      \
       win))                                                                                                     \
    X(Get, OTHER, RMA, NONE, PLAIN,                                                                              \
      (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, \
       int target_count, MPI_Datatype target_datatype, MPI_Win win),                                             \
      (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,      \
       win))                                                                                                     \
    X(Accumulate, OTHER, RMA, NONE, PLAIN,                                                                       \
      (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,                 \
       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),            \
      (origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype, op,  \
       win))                                                                                                     \
    /* MPI-IO: regions only (docs/mpi.md) */                                                                     \
    X(File_open, OTHER, FILE_IO_METADATA, NONE, PLAIN,                                                           \
      (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh),                             \
      (comm, filename, amode, info, fh))                                                                         \
    X(File_close, OTHER, FILE_IO_METADATA, NONE, PLAIN, (MPI_File *fh), (fh))                                    \
    X(File_read, OTHER, FILE_IO, NONE, PLAIN,                                                                    \
      (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status),                            \
      (fh, buf, count, datatype, status))                                                                        \
    X(File_write, OTHER, FILE_IO, NONE, PLAIN,                                                                   \
      (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),                      \
      (fh, buf, count, datatype, status))                                                                        \
    X(File_read_at, OTHER, FILE_IO, NONE, PLAIN,                                                                 \
      (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status),         \
      (fh, offset, buf, count, datatype, status))                                                                \
    X(File_write_at, OTHER, FILE_IO, NONE, PLAIN,                                                                \
      (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status),   \
      (fh, offset, buf, count, datatype, status))

/** Call numbers: OFFTRACE_MPI_CALL_Send, ... (the MPI_CALL record's subkind). */
enum offtrace_mpi_call {
#define OFFTRACE_MPI_CALL_ENUM(name, family, role, op, body, params, args) OFFTRACE_MPI_CALL_##name,
    OFFTRACE_MPI_CALLS(OFFTRACE_MPI_CALL_ENUM)
#undef OFFTRACE_MPI_CALL_ENUM
    OFFTRACE_MPI_CALL_COUNT
};

_Static_assert(OFFTRACE_MPI_CALL_COUNT <= 255, "a call number is one byte");

/** \brief The MPI function a call number names ("MPI_Send"), NULL past the table. */
static inline const char *offtrace_mpi_call_name(unsigned call)
{
    static const char *const names[] = {
#define OFFTRACE_MPI_CALL_NAME(name, family, role, op, body, params, args) "MPI_" #name,
        OFFTRACE_MPI_CALLS(OFFTRACE_MPI_CALL_NAME)
#undef OFFTRACE_MPI_CALL_NAME
    };
    return call < OFFTRACE_MPI_CALL_COUNT ? names[call] : (const char *)0;
}

#endif /* OFFTRACE_MPI_CALLS_H */

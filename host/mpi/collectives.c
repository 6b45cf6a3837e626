/**
 * \file collectives.c
 * \brief Collective wrappers: a BEGIN before the PMPI call and an END after
 *        it with the communicator, the root and the bytes this rank sent and
 *        received.
 *
 * Bytes follow Score-P's rules (its scorep_mpi_coll byte functions), so that
 * numbers agree with Vampir's and Scalasca's: a rank counts every block it
 * hands to the operation as sent and every block it gets as received, its
 * own included; MPI_IN_PLACE leaves its own block out of both. For
 * intra-communicators, N = the communicator's size, b = one block's bytes:
 *  - Barrier: 0 / 0.
 *  - Bcast: root sends N*b, every rank (root too) receives b.
 *  - Scatter(v): root sends N*b (the sum of sendcounts), receives b (0 in
 *    place, and its own block leaves the send); others send 0, receive b.
 *  - Gather(v), Reduce: every rank sends b (root: 0 in place); root
 *    receives N*b (N-1 blocks in place), others 0.
 *  - Allgather(v), Alltoall(v), Allreduce: sends N*b and receives N*b (the
 *    v forms: their counts summed); in place N-1 blocks each way.
 *  - Reduce_scatter(_block): sends the whole vector (sum of recvcounts),
 *    receives N times its own block; in place without its own block.
 *  - Scan: rank r sends (N-r)*b, receives (r+1)*b; in place one block
 *    fewer each way. Exscan: as Scan in place.
 */
#include "mpi_internal.h"

#define OT_EXPORT __attribute__((visibility("default")))

typedef struct coll_bytes {
    uint64_t sent, received;
} coll_bytes;

static int comm_size(MPI_Comm comm)
{
    int n = 0;
    PMPI_Comm_size(comm, &n);
    return n;
}

static int comm_rank(MPI_Comm comm)
{
    int r = 0;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static uint64_t sum_counts(const int *counts, int n, MPI_Datatype type)
{
    uint64_t bytes = 0;
    for (int i = 0; counts && i < n; i++)
        bytes += ot_mpi_bytes(counts[i], type);
    return bytes;
}

/* Gather-like: all blocks go to the root. \p root_total: the root's whole receive. */
static coll_bytes all_to_one(uint64_t own_send, uint64_t own_block, uint64_t root_total, int root, int in_place,
                             MPI_Comm comm)
{
    if (comm_rank(comm) != root)
        return (coll_bytes){own_send, 0};
    if (in_place)
        return (coll_bytes){0, root_total - own_block};
    return (coll_bytes){own_block, root_total};
}

static coll_bytes swap(coll_bytes b) { return (coll_bytes){b.received, b.sent}; }

static void coll_begin(ot_mpi_call *c)
{
    offtrace_raw_record r = {.event = OFFTRACE_RAW_MPI_COLLECTIVE};
    ot_mpi_put(c, &r);
}

static void coll_end(ot_mpi_call *c, MPI_Comm comm, uint8_t op, int root, coll_bytes b)
{
    offtrace_raw_record r = {.id = ot_mpi_comm_id(comm), .subkind = op,
                             .src_addr = root < 0 ? OFFTRACE_RAW_MPI_NO_ROOT : (uint64_t)(uint32_t)root,
                             .bytes = b.sent, .dst_addr = b.received, .endpoint = OFFTRACE_RAW_END,
                             .event = OFFTRACE_RAW_MPI_COLLECTIVE};
    ot_mpi_put(c, &r);
}

/* The wrapper's frame: BYTES is evaluated after the PMPI call (it may ask the communicator). */
#define OT_MPI_COLLECTIVE(name, OP, params, args, comm, ROOT, BYTES)                                \
    OT_EXPORT int MPI_##name params                                                                 \
    {                                                                                               \
        ot_mpi_call c;                                                                              \
        if (!ot_mpi_enter(&c, OFFTRACE_MPI_CALL_##name, __builtin_return_address(0), 1))            \
            return PMPI_##name args;                                                                \
        coll_begin(&c);                                                                             \
        int rc = PMPI_##name args;                                                                  \
        if (rc == MPI_SUCCESS && c.open)                                                            \
            coll_end(&c, comm, OFFTRACE_RAW_MPI_COLL_##OP, ROOT, BYTES);                            \
        ot_mpi_leave(&c);                                                                           \
        return rc;                                                                                  \
    }

OT_MPI_COLLECTIVE(Barrier, BARRIER, (MPI_Comm comm), (comm), comm, -1, ((coll_bytes){0, 0}))

OT_MPI_COLLECTIVE(Bcast, BCAST, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
                  (buffer, count, datatype, root, comm), comm, root,
                  (comm_rank(comm) == root
                       ? (coll_bytes){(uint64_t)comm_size(comm) * ot_mpi_bytes(count, datatype),
                                      ot_mpi_bytes(count, datatype)}
                       : (coll_bytes){0, ot_mpi_bytes(count, datatype)}))

OT_MPI_COLLECTIVE(Gather, GATHER,
                  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm),
                  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), comm, root,
                  all_to_one(ot_mpi_bytes(sendcount, sendtype), ot_mpi_bytes(recvcount, recvtype),
                             (uint64_t)comm_size(comm) * ot_mpi_bytes(recvcount, recvtype), root,
                             sendbuf == MPI_IN_PLACE, comm))

OT_MPI_COLLECTIVE(Gatherv, GATHERV,
                  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),
                  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm), comm, root,
                  (comm_rank(comm) == root
                       ? all_to_one(0, ot_mpi_bytes(recvcounts[root], recvtype),
                                    sum_counts(recvcounts, comm_size(comm), recvtype), root,
                                    sendbuf == MPI_IN_PLACE, comm)
                       : (coll_bytes){ot_mpi_bytes(sendcount, sendtype), 0}))

OT_MPI_COLLECTIVE(Scatter, SCATTER,
                  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm),
                  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm), comm, root,
                  swap(all_to_one(ot_mpi_bytes(recvcount, recvtype), ot_mpi_bytes(sendcount, sendtype),
                                  (uint64_t)comm_size(comm) * ot_mpi_bytes(sendcount, sendtype), root,
                                  recvbuf == MPI_IN_PLACE, comm)))

OT_MPI_COLLECTIVE(Scatterv, SCATTERV,
                  (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
                  (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm), comm, root,
                  (comm_rank(comm) == root
                       ? swap(all_to_one(0, ot_mpi_bytes(sendcounts[root], sendtype),
                                         sum_counts(sendcounts, comm_size(comm), sendtype), root,
                                         recvbuf == MPI_IN_PLACE, comm))
                       : (coll_bytes){0, ot_mpi_bytes(recvcount, recvtype)}))

/* All-to-all shapes: N blocks each way, N-1 in place. */
static coll_bytes all_to_all(uint64_t send_block, uint64_t recv_block, int in_place, MPI_Comm comm)
{
    uint64_t n = (uint64_t)comm_size(comm);
    if (in_place)
        return (coll_bytes){(n - 1) * recv_block, (n - 1) * recv_block};
    return (coll_bytes){n * send_block, n * recv_block};
}

OT_MPI_COLLECTIVE(Allgather, ALLGATHER,
                  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm),
                  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), comm, -1,
                  all_to_all(ot_mpi_bytes(sendcount, sendtype), ot_mpi_bytes(recvcount, recvtype),
                             sendbuf == MPI_IN_PLACE, comm))

static coll_bytes allgatherv_bytes(const void *sendbuf, int sendcount, MPI_Datatype sendtype, const int *recvcounts,
                                   MPI_Datatype recvtype, MPI_Comm comm)
{
    int n = comm_size(comm), me = comm_rank(comm);
    uint64_t all = sum_counts(recvcounts, n, recvtype);
    if (sendbuf == MPI_IN_PLACE) {
        uint64_t own = ot_mpi_bytes(recvcounts[me], recvtype);
        return (coll_bytes){(uint64_t)(n - 1) * own, all - own};
    }
    return (coll_bytes){(uint64_t)n * ot_mpi_bytes(sendcount, sendtype), all};
}

OT_MPI_COLLECTIVE(Allgatherv, ALLGATHERV,
                  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
                  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm), comm, -1,
                  allgatherv_bytes(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm))

OT_MPI_COLLECTIVE(Alltoall, ALLTOALL,
                  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm),
                  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm), comm, -1,
                  all_to_all(ot_mpi_bytes(sendcount, sendtype), ot_mpi_bytes(recvcount, recvtype),
                             sendbuf == MPI_IN_PLACE, comm))

static coll_bytes alltoallv_bytes(const void *sendbuf, const int *sendcounts, MPI_Datatype sendtype,
                                  const int *recvcounts, MPI_Datatype recvtype, MPI_Comm comm)
{
    int n = comm_size(comm), me = comm_rank(comm);
    uint64_t received = sum_counts(recvcounts, n, recvtype);
    if (sendbuf == MPI_IN_PLACE) {
        uint64_t own = ot_mpi_bytes(recvcounts[me], recvtype);
        return (coll_bytes){(uint64_t)(n - 1) * own, received - own};
    }
    return (coll_bytes){sum_counts(sendcounts, n, sendtype), received};
}

OT_MPI_COLLECTIVE(Alltoallv, ALLTOALLV,
                  (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
                  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm), comm, -1,
                  alltoallv_bytes(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm))

OT_MPI_COLLECTIVE(Reduce, REDUCE,
                  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                   MPI_Comm comm),
                  (sendbuf, recvbuf, count, datatype, op, root, comm), comm, root,
                  all_to_one(ot_mpi_bytes(count, datatype), ot_mpi_bytes(count, datatype),
                             (uint64_t)comm_size(comm) * ot_mpi_bytes(count, datatype), root,
                             sendbuf == MPI_IN_PLACE, comm))

OT_MPI_COLLECTIVE(Allreduce, ALLREDUCE,
                  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
                  (sendbuf, recvbuf, count, datatype, op, comm), comm, -1,
                  all_to_all(ot_mpi_bytes(count, datatype), ot_mpi_bytes(count, datatype), sendbuf == MPI_IN_PLACE,
                             comm))

static coll_bytes reduce_scatter_bytes(const void *sendbuf, const int *recvcounts, MPI_Datatype type, MPI_Comm comm)
{
    int n = comm_size(comm), me = comm_rank(comm);
    uint64_t all = sum_counts(recvcounts, n, type), own = ot_mpi_bytes(recvcounts[me], type);
    if (sendbuf == MPI_IN_PLACE)
        return (coll_bytes){all - own, (uint64_t)(n - 1) * own};
    return (coll_bytes){all, (uint64_t)n * own};
}

OT_MPI_COLLECTIVE(Reduce_scatter, REDUCE_SCATTER,
                  (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm),
                  (sendbuf, recvbuf, recvcounts, datatype, op, comm), comm, -1,
                  reduce_scatter_bytes(sendbuf, recvcounts, datatype, comm))

OT_MPI_COLLECTIVE(Reduce_scatter_block, REDUCE_SCATTER_BLOCK,
                  (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm),
                  (sendbuf, recvbuf, recvcount, datatype, op, comm), comm, -1,
                  all_to_all(ot_mpi_bytes(recvcount, datatype), ot_mpi_bytes(recvcount, datatype),
                             sendbuf == MPI_IN_PLACE, comm))

static coll_bytes scan_bytes(int count, MPI_Datatype type, int in_place, MPI_Comm comm)
{
    uint64_t n = (uint64_t)comm_size(comm), me = (uint64_t)comm_rank(comm), b = ot_mpi_bytes(count, type);
    if (in_place)
        return (coll_bytes){(n - me - 1) * b, me * b};
    return (coll_bytes){(n - me) * b, (me + 1) * b};
}

OT_MPI_COLLECTIVE(Scan, SCAN,
                  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
                  (sendbuf, recvbuf, count, datatype, op, comm), comm, -1,
                  scan_bytes(count, datatype, sendbuf == MPI_IN_PLACE, comm))

OT_MPI_COLLECTIVE(Exscan, EXSCAN,
                  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),
                  (sendbuf, recvbuf, count, datatype, op, comm), comm, -1, scan_bytes(count, datatype, 1, comm))

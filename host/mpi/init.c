/**
 * \file init.c
 * \brief MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort: the rank's
 *        identity (`raw/mpi.rank`), MPI_COMM_WORLD, and its clock against
 *        rank 0's (MPI_CLOCK records, `raw/mpi.clock`).
 *
 * The clocks (docs/mpi.md): every rank's records are in its own
 * CLOCK_MONOTONIC (through its clock pairs). Ranks that booted with rank 0
 * (the same boot id: the same machine) share that clock exactly, so their
 * offset is 0 by rule; measuring it would only add noise. With every other
 * rank, rank 0 does OT_MPI_PINGPONGS round trips and keeps the fastest: the
 * rank's clock read at its reply is taken to be rank 0's at the trip's
 * middle (Cristian's method, as Score-P does it), good to half that round
 * trip. Once after PMPI_Init and once before PMPI_Finalize, so that the
 * conversion can follow a drift between them.
 *
 * Why every rank takes part whether it records or not (one allreduce at
 * Init and at Finalize): the exchange is collective; a rank that skipped it
 * would leave the others waiting for ever. If any rank is not recorded, no
 * rank measures (offsets are then unknown, not wrong).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_internal.h"

#define OT_EXPORT __attribute__((visibility("default")))
#define OT_MPI_PINGPONGS 10
#define OT_MPI_CLOCK_TAG 0x0ff7 /* on the private communicator only */
#define OT_MPI_BOOT_ID_MAX 64
#define OT_MPI_HOST_MAX 64

static int world_rank = -1, world_size;
static MPI_Comm clock_comm = MPI_COMM_NULL; /* a private dup of the world: the exchange never meets the program's messages */
static int measure_with_rank0;              /* this rank is on another machine than rank 0 */
static unsigned char *measure;              /* rank 0: per rank, whether to measure */

typedef struct node_id {
    char boot[OT_MPI_BOOT_ID_MAX];
    char host[OT_MPI_HOST_MAX];
} node_id;

static void this_node(const ot_mpi_recorder *rec, node_id *n)
{
    memset(n, 0, sizeof *n);
    if (rec)
        rec->boot_id(n->boot, sizeof n->boot);
    if (gethostname(n->host, sizeof n->host - 1) != 0)
        snprintf(n->host, sizeof n->host, "unknown");
}

static const char *job_id(void)
{
    static const char *const names[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME", "SLURM_JOB_ID"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        if (v && *v && !strpbrk(v, " \t\n"))
            return v;
    }
    return "-";
}

static void write_rank(const ot_mpi_recorder *rec, const node_id *n)
{
    char line[64 + OT_MPI_BOOT_ID_MAX + OT_MPI_HOST_MAX + 256];
    int len = snprintf(line, sizeof line, "%d %d %s %s %s\n", world_rank, world_size, job_id(), n->host,
                       n->boot[0] ? n->boot : "-");
    if (len > 0 && (size_t)len < sizeof line)
        rec->append(OFFTRACE_RAW_MPI_RANK_FILE, line, (size_t)len);
}

/* The rank's MPI_CLOCK record and its mpi.clock line. */
static void clock_result(ot_mpi_call *c, uint8_t phase, int same, int64_t offset, uint64_t rtt, uint64_t local_ns)
{
    offtrace_raw_record r = {.id = (uint64_t)same, .subkind = phase, .bytes = (uint64_t)offset, .src_addr = rtt,
                             .dst_addr = local_ns + (uint64_t)offset, .event = OFFTRACE_RAW_MPI_CLOCK};
    ot_mpi_put(c, &r);
    char line[160];
    int len = snprintf(line, sizeof line, "%s %llu %lld %llu %d\n",
                       phase == OFFTRACE_RAW_MPI_CLOCK_INIT ? "init" : "finalize", (unsigned long long)local_ns,
                       (long long)offset, (unsigned long long)rtt, same);
    if (len > 0 && (size_t)len < sizeof line) /* a definition: written while measurement is off too */
        c->rec->append(OFFTRACE_RAW_MPI_CLOCK_FILE, line, (size_t)len);
}

/* Rank 0's side with rank \p peer: the fastest of OT_MPI_PINGPONGS round trips. */
static void measure_peer(const ot_mpi_recorder *rec, int peer)
{
    uint64_t best_rtt = UINT64_MAX, best_mid = 0, best_theirs = 0;
    for (int i = 0; i < OT_MPI_PINGPONGS; i++) {
        uint64_t ping = 0, theirs = 0;
        uint64_t t0 = rec->clock_ns();
        PMPI_Send(&ping, 1, MPI_UINT64_T, peer, OT_MPI_CLOCK_TAG, clock_comm);
        PMPI_Recv(&theirs, 1, MPI_UINT64_T, peer, OT_MPI_CLOCK_TAG, clock_comm, MPI_STATUS_IGNORE);
        uint64_t t1 = rec->clock_ns();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            best_mid = t0 + best_rtt / 2;
            best_theirs = theirs;
        }
    }
    uint64_t result[3] = {best_mid - best_theirs, best_rtt, best_theirs}; /* offset (int64 bits), rtt, their time */
    PMPI_Send(result, 3, MPI_UINT64_T, peer, OT_MPI_CLOCK_TAG, clock_comm);
}

/* A measured rank's side: answer each ping with its clock, then take the result. */
static void measured(const ot_mpi_recorder *rec, uint64_t result[3])
{
    for (int i = 0; i < OT_MPI_PINGPONGS; i++) {
        uint64_t ping = 0;
        PMPI_Recv(&ping, 1, MPI_UINT64_T, 0, OT_MPI_CLOCK_TAG, clock_comm, MPI_STATUS_IGNORE);
        uint64_t now = rec->clock_ns();
        PMPI_Send(&now, 1, MPI_UINT64_T, 0, OT_MPI_CLOCK_TAG, clock_comm);
    }
    PMPI_Recv(result, 3, MPI_UINT64_T, 0, OT_MPI_CLOCK_TAG, clock_comm, MPI_STATUS_IGNORE);
}

/* Whether every rank records (collective over the world, on every rank). */
static int all_recorded(const ot_mpi_recorder *rec)
{
    int mine = rec != NULL, all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return 0;
    return all;
}

/* One comparison of the clocks (\p phase), on every rank, with c NULL on a rank not recorded. */
static void compare_clocks(ot_mpi_call *c, uint8_t phase)
{
    const ot_mpi_recorder *rec = c ? c->rec : NULL;
    if (!all_recorded(rec) || clock_comm == MPI_COMM_NULL)
        return;
    if (world_rank == 0) {
        for (int peer = 1; peer < world_size; peer++)
            if (measure && measure[peer])
                measure_peer(rec, peer);
        clock_result(c, phase, 1, 0, 0, rec->clock_ns());
    } else if (measure_with_rank0) {
        uint64_t result[3];
        measured(rec, result);
        clock_result(c, phase, 0, (int64_t)result[0], result[1], result[2]);
    } else {
        clock_result(c, phase, 1, 0, 0, rec->clock_ns());
    }
}

/* After PMPI_Init: who is where (rank 0 learns every rank's boot id), then the clocks. */
static void after_init(ot_mpi_call *c)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    node_id mine;
    this_node(c ? c->rec : NULL, &mine);
    if (c) { /* mpi.rank is a definition: written while measurement is off too */
        ot_mpi_comm_world(c);
        write_rank(c->rec, &mine);
    }
    if (!all_recorded(c ? c->rec : NULL))
        return;
    PMPI_Comm_dup(MPI_COMM_WORLD, &clock_comm);
    node_id *all = world_rank == 0 ? calloc((size_t)world_size, sizeof *all) : NULL;
    int ok = world_rank != 0 || all != NULL, all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, clock_comm);
    if (!all_ok) { /* rank 0 without memory: nobody measures */
        free(all);
        PMPI_Comm_free(&clock_comm);
        return;
    }
    PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, clock_comm);
    int *flags = NULL;
    if (world_rank == 0) {
        measure = calloc((size_t)world_size, 1);
        flags = calloc((size_t)world_size, sizeof *flags);
        for (int r = 1; r < world_size && measure && flags; r++)
            flags[r] = measure[r] = strncmp(all[r].boot, all[0].boot, sizeof all[0].boot) != 0 || !all[0].boot[0];
        if (!measure || !flags) { /* tell them all "same machine": no exchange they would wait for */
            free(measure);
            measure = NULL;
            free(flags);
            flags = calloc((size_t)world_size, sizeof *flags);
        }
    }
    int flag = 0;
    PMPI_Scatter(flags, 1, MPI_INT, &flag, 1, MPI_INT, 0, clock_comm);
    measure_with_rank0 = flag;
    free(flags);
    free(all);
    compare_clocks(c, OFFTRACE_RAW_MPI_CLOCK_INIT);
}

void ot_mpi_attached_late(const ot_mpi_recorder *rec)
{
    int initialized = 0, finalized = 0;
    if (world_rank >= 0 || PMPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
        PMPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        return;
    /* MPI_Init ran before the recorder came (OpenMP started after it): who
     * this rank is, and the world for communicator ids; no clock exchange
     * (it is collective, and the other ranks are elsewhere by now). */
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    node_id mine;
    this_node(rec, &mine);
    write_rank(rec, &mine);
    ot_mpi_comm_remember_world();
}

OT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    ot_mpi_call c;
    int recorded = ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Init, __builtin_return_address(0), 1);
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS && (recorded || !ot_mpi_inside))
        after_init(recorded ? &c : NULL);
    if (recorded)
        ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    ot_mpi_call c;
    int recorded = ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Init_thread, __builtin_return_address(0), 1);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS && (recorded || !ot_mpi_inside))
        after_init(recorded ? &c : NULL);
    if (recorded)
        ot_mpi_leave(&c);
    return rc;
}

OT_EXPORT int MPI_Finalize(void)
{
    ot_mpi_call c;
    int recorded = ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Finalize, __builtin_return_address(0), 1);
    if ((recorded || !ot_mpi_inside) && clock_comm != MPI_COMM_NULL) {
        compare_clocks(recorded ? &c : NULL, OFFTRACE_RAW_MPI_CLOCK_FINALIZE);
        PMPI_Comm_free(&clock_comm);
    }
    int rc = PMPI_Finalize();
    if (recorded)
        ot_mpi_leave(&c);
    return rc;
}

/* The job's ranks are killed within about a second (Open MPI signals every
 * launched process): the call is recorded before it, and the one line says
 * why this rank's recording ends here. */
OT_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    ot_mpi_call c;
    if (ot_mpi_enter(&c, OFFTRACE_MPI_CALL_Abort, __builtin_return_address(0), 0)) {
        ot_mpi_leave(&c);
        fprintf(stderr, "offtrace: rank %d called MPI_Abort(%d); every rank's recording ends with the job, "
                        "convert them afterwards with `offtrace convert`\n",
                world_rank, errorcode);
    }
    return PMPI_Abort(comm, errorcode);
}

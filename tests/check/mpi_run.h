/**
 * \file mpi_run.h
 * \brief The one way MPI tests start a job (issue 16): Debian's Open MPI,
 *        bounded, oversubscribed on this 2-core machine.
 */
#ifndef OT_TEST_MPI_RUN_H
#define OT_TEST_MPI_RUN_H

#include "run.h"

/**
 * \brief `timeout 60 mpirun --allow-run-as-root --oversubscribe --mca
 *        mpi_yield_when_idle 1 --timeout 55 -np NP ARGS...` with \p env
 *        ("NAME=value", NULL terminated, may be NULL) added.
 *
 * mpirun runs by name with its directory first on PATH: Open MPI run by
 * its absolute path takes that path's prefix for its own, and
 * /usr/bin/mpirun's ("/") it refuses. `mpi_yield_when_idle` keeps
 * oversubscribed ranks from spinning against each other.
 * \return run_command's: 0 when mpirun ran (its status in \p r), -1 when it
 *         could not be run or \p args are too many.
 */
int run_mpirun(int np, char *const args[], char *const env[], run_result *r);

/** What a rank did, as one source tells it (-1: not told): the tests' independent counts of messages and
 *  collectives. */
typedef struct mpi_rank_count {
    long sends, bytes_sent, recvs, bytes_recv, coll, coll_sent, coll_recv;
} mpi_rank_count;

/**
 * \brief Parse the line "TAG rank=R sends=S bytes_sent=B recvs=N bytes_recv=B coll=C [coll_sent=X
 *        coll_recv=Y]" of rank \p rank in \p text: what the MPI examples print ("MPICOUNT", their own count
 *        of what they asked MPI to do) and tests/support/mpi_counter.c writes (its PMPI count).
 * \return 0 with \p c filled (coll_sent, coll_recv -1 when the line has none), -1 when there is no such line.
 */
int mpi_count_line(const char *text, const char *tag, int rank, mpi_rank_count *c);

#endif /* OT_TEST_MPI_RUN_H */

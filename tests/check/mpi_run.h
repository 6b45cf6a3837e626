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

#endif /* OT_TEST_MPI_RUN_H */

/**
 * \file rank_clock.h
 * \brief The test knob OFFTRACE_TEST_RANK_CLOCK="rank:offset_ns:drift_ppm"
 *        (issue 16, like OFFTRACE_TEST_DEVICE_CLOCK for devices): the rank
 *        it names (by its launcher's variables: OMPI_COMM_WORLD_RANK,
 *        PMIX_RANK, PMI_RANK, SLURM_PROCID) records with a clock offset_ns
 *        ahead and drift_ppm faster from its first reading on, and gets
 *        another boot id, as if it ran on another machine. Unset, malformed,
 *        or another rank: the clock as it is.
 */
#ifndef OT_RANK_CLOCK_H
#define OT_RANK_CLOCK_H

#include <stdint.h>

/** \brief \p monotonic_ns (CLOCK_MONOTONIC) as this process's recorder
 *  reads it: the clock pairs and the MPI clock exchange use it. */
uint64_t ot_rank_clock(uint64_t monotonic_ns);

/** \brief 1 when the knob skews this process. */
int ot_rank_clock_skewed(void);

#endif

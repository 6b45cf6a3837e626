/**
 * \file mpi_recorder.h
 * \brief The binding between libofftrace-mpi.so (the PMPI wrappers) and the
 *        recorder, libofftrace.so (issue 16). Internal: not installed.
 *
 * Why a table the recorder hands over, as for libofftrace-user.so
 * (user/user_recorder.h): libofftrace.so is loaded by the OpenMP runtime as
 * a tool, its symbols are not global, and it must stay free of MPI (a
 * program without MPI must not load libmpi; an MPI's ABI is its own). So
 * the wrappers hold one pointer, NULL until the recorder, at its OMPT
 * initialize, finds `offtrace_mpi_attach_recorder_` with
 * dlsym(RTLD_DEFAULT) and calls it with this table. Untraced, every wrapper
 * is its PMPI call after one load and test of that pointer.
 *
 * The table lives in libofftrace.so's static storage and stays valid until
 * the process ends; the recorder detaches (passes NULL) when it stops
 * recording at exit.
 */
#ifndef OT_MPI_RECORDER_H
#define OT_MPI_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/raw_format.h"

#define OT_MPI_RECORDER_ABI 1

typedef struct ot_mpi_recorder {
    uint32_t abi;  /**< OT_MPI_RECORDER_ABI */
    uint32_t size; /**< sizeof(ot_mpi_recorder) of the recorder's build */
    /** The records' clock (raw_format.h `time`): host ticks. */
    uint64_t (*ticks)(void);
    /** Store \p r (its time set by the caller) on the calling thread's
     *  stream. \return 1 when stored; 0 when not: recording is over, or
     *  measurement is off and \p r is no END (an END is always stored, so
     *  that a call whose BEGIN was stored is recorded whole). */
    int (*put)(const offtrace_raw_record *r);
    /** The recorder's CLOCK_MONOTONIC in ns, as its clock pairs give it
     *  (OFFTRACE_TEST_RANK_CLOCK skews both alike): the clock the ranks'
     *  offsets are measured in. */
    uint64_t (*clock_ns)(void);
    /** This machine's boot id (/proc/sys/kernel/random/boot_id) into \p buf
     *  ("" when unreadable); a rank OFFTRACE_TEST_RANK_CLOCK skews gets a
     *  different one, as if it ran on another machine. */
    void (*boot_id)(char *buf, size_t size);
    /** Append \p len bytes to `raw/<file>` with one write (O_APPEND).
     *  \return 0, or -1. */
    int (*append)(const char *file, const char *text, size_t len);
} ot_mpi_recorder;

/** Exported by libofftrace-mpi.so: attach (or, with NULL, detach) the
 *  recorder. Returns OT_MPI_RECORDER_ABI, or -1 if the table is refused. */
typedef int (*ot_mpi_attach_fn)(const ot_mpi_recorder *recorder);
#define OT_MPI_ATTACH_SYMBOL "offtrace_mpi_attach_recorder_"
int offtrace_mpi_attach_recorder_(const ot_mpi_recorder *recorder);

#endif

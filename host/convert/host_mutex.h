/**
 * \file host_mutex.h
 * \brief Mutual exclusion on a host thread (issue 13, level all): locks,
 *        nest locks, critical, ordered as regions with their waiting part,
 *        OTF2's ThreadAcquireLock/ReleaseLock, and the instants lock
 *        init/destroy, cancellation and flush (host_mutex.c).
 *
 * host_pass.c hands every record of the OMP_MUTEX ... OMP_FLUSH sources to
 * ot_host_mutex_record and lets ot_host_mutex_settle look at every record
 * first (a failed omp_test_lock is only known by what follows it); in
 * return it lends host_mutex.c its thread's open-region stack through the
 * ot_cv_pass_* functions below, so that mutex regions nest with the
 * thread's other regions.
 */
#ifndef OT_HOST_MUTEX_H
#define OT_HOST_MUTEX_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "offtrace/raw_format.h"
#include "mutex_locks.h" /* ot_mutex_locks_free, for convert.c */

typedef struct converter converter;
typedef struct thread_pass thread_pass;

/** Lock ids and acquisition orders over all host threads (one per conversion). */
/** One host thread's locks held and pending attempts. */
typedef struct ot_mutex_thread ot_mutex_thread;

/** \brief Convert one record of a mutual exclusion source (OMP_MUTEX ... OMP_FLUSH). */
void ot_host_mutex_record(thread_pass *p, const offtrace_raw_record *r, uint64_t t);

/** \brief Before each record of the thread (\p next; NULL at its end): an
 *  omp_test_lock attempt not followed by its acquired failed, and is closed
 *  where it began. */
void ot_host_mutex_settle(thread_pass *p, const offtrace_raw_record *next);

/** \brief A worksharing end arrived: no cancelled loop is left to close. */
void ot_host_mutex_work_ended(ot_mutex_thread *m);

/** \brief Whether a loop or sections construct was cancelled on this thread
 *  and has not ended since (libomp delivers no work end for a cancelled
 *  dynamic loop); clears it. */
int ot_host_mutex_take_cancelled_work(ot_mutex_thread *m);

void ot_host_mutex_thread_free(ot_mutex_thread *m);

/* ---- lent by host_pass.c ---- */

converter *ot_cv_pass_converter(thread_pass *p);
OTF2_EvtWriter *ot_cv_pass_writer(thread_pass *p);
/** The attribute list the next Enter written by ot_cv_pass_open carries (emptied by it). */
OTF2_AttributeList *ot_cv_pass_attributes(thread_pass *p);
/** The thread's index (its stream header's). */
uint32_t ot_cv_pass_thread(const thread_pass *p);
/** Where the thread's ot_mutex_thread lives (NULL until its first mutex record). */
ot_mutex_thread **ot_cv_pass_mutex(thread_pass *p);
/** \brief Push an open item (\p event, \p id) and Enter \p region at \p t. \return 0, or -1 out of memory. */
int ot_cv_pass_open(thread_pass *p, uint8_t event, uint64_t id, OTF2_RegionRef region, uint64_t t);
/** \brief Leave the innermost open item (\p event, \p id) at \p t; items
 *  above it are left and entered again at \p t (a lock released out of
 *  order). \return 0, or -1 when none is open (counted unmatched). */
int ot_cv_pass_close(thread_pass *p, uint8_t event, uint64_t id, uint64_t t, const offtrace_raw_record *r);
/** The thread's stream: its index in the recording's host streams (user_pass.c). */
size_t ot_cv_pass_stream_index(const thread_pass *p);
/** The thread's latest time written so far, and moving it on to \p t (a later time only). */
uint64_t ot_cv_pass_last_time(const thread_pass *p);
void ot_cv_pass_advance(thread_pass *p, uint64_t t);

#endif

/**
 * \file mutex_locks.h
 * \brief Lock ids and acquisition orders over all host threads (issue 13,
 *        level all), for host_mutex.c's ThreadAcquireLock/ReleaseLock.
 *
 * OTF2's lock events want one lock id per lock and, per lock, the order of
 * its acquisitions over all threads, while the conversion goes thread by
 * thread: the first mutex record met reads every host stream's acquired
 * records once. Lock ids are the wait ids' ranks (from 1); a lock's
 * acquisitions in time order are its acquisition order (the clock is the
 * same on every thread, and an acquired is read while the lock is held, so
 * two acquisitions of one lock cannot swap). Memory is bounded: the
 * acquisitions wait in a scratch file, only the wait ids (and a counter per
 * lock while numbering) stay in memory.
 */
#ifndef OT_CONVERT_MUTEX_LOCKS_H
#define OT_CONVERT_MUTEX_LOCKS_H

#include <stdint.h>

typedef struct converter converter;
typedef struct ot_mutex_locks ot_mutex_locks;

/** \brief The converter's table, built at the first ask; never NULL: a table
 *         that could not be built (out of memory, disk) or a live conversion
 *         (marked live_unsupported) answers 0 to every question. */
ot_mutex_locks *ot_mutex_locks_of(converter *c);

/** \brief The lock id of \p wait_id: its rank among all wait ids, from 1; 0 if unknown. */
uint32_t ot_mutex_lock_id(const ot_mutex_locks *l, uint64_t wait_id);

/** \brief The place of \p thread's acquisition of lock \p lock (its lock id) at \p time
 *         (ticks) among the lock's acquisitions, from 1 (0 if unknown).
 *         Cheapest asked in time order per thread, one thread after another. */
uint32_t ot_mutex_acquisition_order(ot_mutex_locks *l, uint32_t lock, uint64_t time, uint32_t thread);

/** \brief Free (NULL is fine). */
void ot_mutex_locks_free(ot_mutex_locks *l);

#endif

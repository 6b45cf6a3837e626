/**
 * \file host_mutex_check.h
 * \brief The tests' own reading of mutual exclusion in an archive (issue 13,
 *        level all): the lock, critical, ordered and nest lock regions by
 *        kind, their waiting parts, OTF2's ThreadAcquireLock/ReleaseLock,
 *        lock init/destroy, cancellation and flush, counted as
 *        tests/support/ompt_host_counter.c counts the runtime's callbacks,
 *        plus the structure every such archive must have.
 */
#ifndef OT_TEST_HOST_MUTEX_CHECK_H
#define OT_TEST_HOST_MUTEX_CHECK_H

#include <stdint.h>

#define MUTEX_CHECK_KINDS 8 /* ompt_mutex_t 1..7 by index; 0: a name the checker does not know */
#define MUTEX_CHECK_MAX_THREADS 64

typedef struct host_mutex_facts {
    /* per ompt_mutex_t kind (by the region's name: "lock @", "test lock @",
     * "nest lock @", "test nest lock @", "critical @", "atomic @", "ordered @") */
    uint64_t regions[MUTEX_CHECK_KINDS];  /* HOST_MUTEX regions: the acquires */
    uint64_t acquired[MUTEX_CHECK_KINDS]; /* ThreadAcquireLock inside such a region */
    uint64_t released[MUTEX_CHECK_KINDS]; /* ThreadReleaseLock inside such a region */
    uint64_t nested;                      /* a nest lock's inner sets (HOST_NEST_LOCK_NESTED) */
    uint64_t waits;                       /* HOST_MUTEX_WAIT regions */
    uint64_t lock_inits, lock_destroys, cancels, cancel_loops, flushes;
    /* per host location that acquired anything, in location order: its HOST_MUTEX regions by kind */
    uint64_t thread_regions[MUTEX_CHECK_MAX_THREADS][MUTEX_CHECK_KINDS];
    uint64_t thread_nested[MUTEX_CHECK_MAX_THREADS]; /* and its nest locks' inner sets */
    unsigned threads;
    uint64_t locks; /* distinct lock ids in lock events */
    /* structure; each must be 0 */
    uint64_t waits_outside_construct;   /* a waiting part not directly inside its lock, critical, ordered */
    uint64_t lock_events_outside;       /* a lock event whose innermost region is no mutex region */
    uint64_t unpaired_lock_events;      /* per location and lock: acquire while held, release while not */
    uint64_t held_at_end;               /* locks still held when a location ends */
    uint64_t order_not_increasing;      /* per lock, acquisition orders not 1, 2, 3 ... in time */
    uint64_t barriers_inside_loops;     /* a barrier directly inside a loop or chunk (a cancelled loop left open) */
    uint64_t zero_length_violations;    /* an instant (init, destroy, cancel, flush) that is not zero-length */
    uint64_t unmatched;                 /* a Leave that is not of the innermost open region, or one never left */
    char first_problem[256];
} host_mutex_facts;

/** \brief Read \p dir's traces.otf2 into \p f. \return 0, or -1 when it cannot be read. */
int host_mutex_check(const char *dir, host_mutex_facts *f);

#endif

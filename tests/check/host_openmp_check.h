/**
 * \file host_openmp_check.h
 * \brief The tests' own reading of the program's host OpenMP in an archive
 *        (OTF2's reader, the archive's class table and attribute names),
 *        counted as tests/support/ompt_host_counter.c counts the runtime's
 *        callbacks, plus the structure every such archive must have.
 */
#ifndef OT_TEST_HOST_OPENMP_CHECK_H
#define OT_TEST_HOST_OPENMP_CHECK_H

#include <stdint.h>

#define HOST_CHECK_MAX_THREADS 64

typedef struct host_openmp_facts {
    /* counts, as the counting tool's HOST_COUNTS line names them */
    uint64_t parallel, implicit_tasks, loops, loop_trip, chunks, chunk_iterations, sections, singles, masked,
        barriers, waits, targets, targets_in_parallel;
    /* per host-thread location that ran an implicit task, in location order */
    uint64_t thread_implicit_tasks[HOST_CHECK_MAX_THREADS], thread_barriers[HOST_CHECK_MAX_THREADS];
    unsigned threads;
    /* loop instances (the k-th instance of a loop region on every thread of
     * the team is one instance): how many had chunks, and how many of those
     * whose chunks' iterations summed over the threads differ from the trip
     * count */
    uint64_t loop_instances_with_chunks, loop_instances_miscovered;
    /* implicit tasks' team sizes and thread numbers summed (carried, or left out at the previous implicit
     * task's on the location: docs/host-openmp.md), as the counting tool's HOST_TEAMS line sums them */
    uint64_t team_size_sum, thread_number_sum;
    /* time in loop chunks (not sections), summed over all threads (ns) */
    uint64_t chunk_ns;
    /* structure; each must be 0 */
    uint64_t chunks_outside_loop;   /* a chunk whose enclosing region is not a loop */
    uint64_t chunks_without_iterations; /* a chunk neither carrying its iterations nor after another chunk on its
                                           location (whose iterations it would leave out) */
    uint64_t implicit_tasks_without_team; /* an implicit task neither carrying its team size and thread number
                                             nor after another implicit task on its location */
    uint64_t waits_outside_sync;    /* a waiting part not directly inside its sync region */
    uint64_t unmatched;             /* a Leave that is not of the innermost open region, or one never left */
    uint64_t time_reversals;        /* an event earlier than the one before it on its location */
    char first_problem[256];
} host_openmp_facts;

/** \brief Read \p dir's traces.otf2 into \p f. \return 0, or -1 when it cannot be read. */
int host_openmp_check(const char *dir, host_openmp_facts *f);

#endif

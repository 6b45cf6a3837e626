/**
 * \file host_tasks_check.h
 * \brief The tests' own reading of explicit tasks in an archive (OTF2's
 *        reader, the class table, attribute names), counted as
 *        tests/support/ompt_host_counter.c counts the runtime's task
 *        callbacks (its TASK_COUNTS line), plus what must hold of them.
 */
#ifndef OT_TEST_HOST_TASKS_CHECK_H
#define OT_TEST_HOST_TASKS_CHECK_H

#include <stdint.h>

#define TASK_CHECK_MAX_THREADS 64

typedef struct host_tasks_facts {
    /* as the counter's TASK_COUNTS line names them */
    uint64_t creates, undeferred, final, untied, mergeable, target, taskwait, completes, periods, period_ends,
        periods_in_taskwait, depend_items, edges, edges_host_to_target;
    /* OTF2's own task events: ThreadTaskCreate, ThreadTaskComplete, and the
     * ThreadTaskSwitch events to an explicit task (generation number > 0) */
    uint64_t otf2_creates, otf2_completes, otf2_switches_to_explicit;
    /* periods per host location that ran one, in location order */
    uint64_t thread_periods[TASK_CHECK_MAX_THREADS];
    unsigned threads;
    /* each must be 0 */
    uint64_t not_completed_once;   /* a created task (not a taskwait's) without exactly one completion */
    uint64_t periods_of_unknown;   /* a period whose task id no creation names */
    uint64_t edges_of_unknown;     /* an edge naming a task no creation names */
    uint64_t unmatched;            /* a Leave that is not of the innermost open region, or one never left */
    uint64_t time_reversals;
    char first_problem[256];
} host_tasks_facts;

/** \brief Read \p dir's traces.otf2 into \p f. \return 0, or -1 when it cannot be read. */
int host_tasks_check(const char *dir, host_tasks_facts *f);

#endif

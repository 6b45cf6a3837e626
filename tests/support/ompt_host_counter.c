/*
 * ompt_host_counter.c - an independent OMPT tool of the tests: it counts
 * what the OpenMP runtime reports of the program's own host OpenMP (not the
 * OpenMP a host-offload kernel runs on host threads), so that the tests can
 * compare offtrace's archive of another run of the same program with it.
 * It shares no code with offtrace.
 *
 * Load it with OMP_TOOL_LIBRARIES=.../libofftrace-test-host-counter.so. At
 * finalisation it writes to stderr one line
 *
 *   HOST_COUNTS parallel=N implicit_tasks=N loops=N loop_trip=N chunks=N chunk_iterations=N
 *               sections=N singles=N masked=N barriers=N waits=N targets=N targets_in_parallel=N
 *
 * (on one line), one line with the implicit tasks' team sizes and thread
 * numbers (actual_parallelism and index of the implicit_task begins counted
 * above) summed:
 *
 *   HOST_TEAMS team_size_sum=N thread_number_sum=N
 *
 * and one line per thread that ran an implicit task:
 *
 *   HOST_THREAD implicit_tasks=N barriers=N
 *
 * and one line per loop site (codeptr), for `offtrace report`'s loop table:
 *
 *   HOST_LOOP instances=N trip=N
 *
 * (instances: the loop's work begins on the thread numbered 0 in its team,
 * one per team execution; trip: their counts summed).
 *
 * What is counted, at the begin of each event:
 *   - parallel: parallel_begin without the league flag (a host `teams` is no
 *     parallel region); implicit_tasks: implicit_task begin without the
 *     initial flag;
 *   - loops: work begin of a loop kind, distribute or taskloop; loop_trip:
 *     the count those begins carry, on the thread numbered 0 in its team
 *     only (so once per loop instance); chunks / chunk_iterations: dispatch
 *     of ws_loop_chunk, and the iterations they carry;
 *   - sections, singles (executor and other), masked;
 *   - barriers: sync_region begin of every kind but reduction (barriers,
 *     implicit barriers, taskwait, taskgroup); waits: sync_region_wait begin;
 *   - targets: target_emi begins; targets_in_parallel: those met while the
 *     thread runs an implicit task of a host parallel region.
 *
 * Explicit tasks (tasks created through task_create outside device work),
 * one more line and one line per thread that ran a period of one:
 *
 *   TASK_COUNTS creates=N undeferred=N final=N untied=N mergeable=N target=N taskwait=N completes=N
 *               periods=N period_ends=N periods_in_taskwait=N depend_items=N edges=N edges_host_to_target=N
 *   TASK_THREAD periods=N
 *
 *   - creates: task_create; undeferred ... taskwait: those with the flag;
 *   - completes: task_schedule with status complete of such a task;
 *   - periods: task_schedule switching to such a task that is not waiting in
 *     a sync region it began (a task that waits in a taskwait, taskgroup or
 *     barrier and runs other tasks there meanwhile is still in that period);
 *     period_ends: task_schedule switching away from a running such task
 *     that is not waiting (fulfil events switch nothing);
 *   - periods_in_taskwait: periods that begin while the thread's innermost
 *     open sync region is a taskwait or taskgroup;
 *   - depend_items: the items of dependences callbacks; edges: task_dependence;
 *     edges_host_to_target: those from a task without the target flag to one
 *     with it.
 *
 * Device work: a thread is inside a kernel from the begin to the end of a
 * target construct it encountered, and a team worker while it runs the
 * implicit task of a parallel region begun inside a kernel (this tool marks
 * such regions in their parallel_data). Events of device work are not
 * counted.
 */
#include <omp-tools.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 256
#define MAX_NESTING 64
#define DEVICE_REGION 1u
#define HOST_REGION 2u

typedef struct thread_counts {
    unsigned long long implicit_tasks, barriers;
} thread_counts;

static unsigned long long parallel, implicit_tasks, loops, loop_trip, chunks, chunk_iterations, sections, singles,
    masked, barriers, waits, targets, targets_in_parallel;
static unsigned long long team_size_sum, thread_number_sum;
static thread_counts threads[MAX_THREADS];
static unsigned thread_count;

static __thread int target_depth;
static __thread int nesting;                 /* implicit tasks open on this thread */
static __thread uint8_t device_team[MAX_NESTING];
static __thread unsigned team_number[MAX_NESTING];
static __thread uint8_t host_team[MAX_NESTING]; /* an implicit task of a host parallel region (not the initial task) */
static __thread int host_teams;                 /* how many of those are open */
static __thread thread_counts *mine;

static void add(unsigned long long *counter, unsigned long long n)
{
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static int in_device_work(void)
{
    return target_depth > 0 || (nesting > 0 && nesting <= MAX_NESTING && device_team[nesting - 1]);
}

static thread_counts *my_counts(void)
{
    if (!mine) {
        unsigned i = __atomic_fetch_add(&thread_count, 1, __ATOMIC_RELAXED);
        static thread_counts overflow;
        mine = i < MAX_THREADS ? &threads[i] : &overflow;
    }
    return mine;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel_data,
                              unsigned int requested, int flags, const void *codeptr)
{
    parallel_data->value = in_device_work() ? DEVICE_REGION : HOST_REGION;
    if (parallel_data->value == HOST_REGION && !(flags & ompt_parallel_league))
        add(&parallel, 1);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
    if (endpoint == ompt_scope_end) {
        if (nesting > 0 && --nesting < MAX_NESTING && host_team[nesting])
            host_teams--;
        return;
    }
    int device = target_depth > 0 || (parallel_data && parallel_data->value == DEVICE_REGION) ||
                 (nesting > 0 && nesting <= MAX_NESTING && device_team[nesting - 1]);
    int host = !device && !(flags & ompt_task_initial);
    if (nesting < MAX_NESTING) {
        device_team[nesting] = (uint8_t)device;
        team_number[nesting] = index;
        host_team[nesting] = (uint8_t)host;
    }
    nesting++;
    host_teams += host;
    if (!host)
        return;
    add(&implicit_tasks, 1);
    add(&team_size_sum, actual);
    add(&thread_number_sum, index);
    my_counts()->implicit_tasks++;
}

static int is_loop(ompt_work_t kind)
{
    return kind == ompt_work_loop || kind == ompt_work_loop_static || kind == ompt_work_loop_dynamic ||
           kind == ompt_work_loop_guided || kind == ompt_work_loop_other || kind == ompt_work_distribute ||
           kind == ompt_work_taskloop;
}

/* ---- per loop site (report's loop table) ---- */

#define MAX_LOOP_SITES 256

static struct {
    const void *codeptr;         /* NULL: free */
    unsigned long long instances, trip;
} loop_sites[MAX_LOOP_SITES];

static void count_loop_site(const void *codeptr, uint64_t count)
{
    for (unsigned i = 0; i < MAX_LOOP_SITES; i++) {
        const void *seen = __atomic_load_n(&loop_sites[i].codeptr, __ATOMIC_ACQUIRE);
        if (!seen) {
            const void *none = NULL;
            if (!__atomic_compare_exchange_n(&loop_sites[i].codeptr, &none, codeptr, 0, __ATOMIC_ACQ_REL,
                                             __ATOMIC_ACQUIRE))
                seen = none; /* another thread took the slot meanwhile */
            else
                seen = codeptr;
        }
        if (seen == codeptr) {
            add(&loop_sites[i].instances, 1);
            add(&loop_sites[i].trip, count);
            return;
        }
    }
}

static void print_loop_sites(void)
{
    for (unsigned i = 0; i < MAX_LOOP_SITES && loop_sites[i].codeptr; i++)
        fprintf(stderr, "HOST_LOOP instances=%llu trip=%llu\n", loop_sites[i].instances, loop_sites[i].trip);
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task, uint64_t count, const void *codeptr)
{
    if (endpoint != ompt_scope_begin || in_device_work())
        return;
    if (is_loop(kind)) {
        add(&loops, 1);
        if (nesting > 0 && nesting <= MAX_NESTING && team_number[nesting - 1] == 0) {
            add(&loop_trip, count);
            count_loop_site(codeptr, count);
        }
    } else if (kind == ompt_work_sections) {
        add(&sections, 1);
    } else if (kind == ompt_work_single_executor || kind == ompt_work_single_other) {
        add(&singles, 1);
    }
}

static void on_dispatch(ompt_data_t *parallel_data, ompt_data_t *task, ompt_dispatch_t kind, ompt_data_t instance)
{
    if (kind != ompt_dispatch_ws_loop_chunk || in_device_work())
        return;
    const ompt_dispatch_chunk_t *chunk = instance.ptr;
    add(&chunks, 1);
    add(&chunk_iterations, chunk ? chunk->iterations : 0);
}

static void track_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *task);

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                           ompt_data_t *task, const void *codeptr)
{
    if (!in_device_work())
        track_sync(kind, endpoint, task);
    if (endpoint != ompt_scope_begin || kind == ompt_sync_region_reduction || in_device_work())
        return;
    add(&barriers, 1);
    my_counts()->barriers++;
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task, const void *codeptr)
{
    if (endpoint == ompt_scope_begin && !in_device_work())
        add(&waits, 1);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task,
                      const void *codeptr)
{
    if (endpoint == ompt_scope_begin && !in_device_work())
        add(&masked, 1);
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num, ompt_data_t *task_data,
                      ompt_data_t *target_task_data, ompt_data_t *target_data, const void *codeptr)
{
    if (kind != ompt_target && kind != ompt_target_nowait)
        return;
    if (endpoint == ompt_scope_end) {
        target_depth--;
        return;
    }
    if (!in_device_work()) {
        add(&targets, 1);
        if (host_teams > 0)
            add(&targets_in_parallel, 1);
    }
    target_depth++;
}

/* ---- explicit tasks ---- */

/* A task's value: CREATED | RUNNING | flags (low 32 bits) | waiting count (bits 40-47). */
#define TASK_CREATED (1ull << 62)
#define TASK_RUNNING (1ull << 61)
#define TASK_WAIT_ONE (1ull << 40)
#define TASK_WAIT_MASK (0xFFull << 40)

static unsigned long long task_creates, task_flag[5], task_completes, task_periods, task_period_ends,
    task_periods_in_taskwait, depend_items, edges, edges_host_to_target;
static const int task_flag_bits[5] = {ompt_task_undeferred, ompt_task_final, ompt_task_untied, ompt_task_mergeable,
                                      ompt_task_target};
static unsigned long long task_taskwait;
static unsigned long long thread_periods[MAX_THREADS];
static unsigned task_thread_count;
static __thread unsigned long long *my_periods;
static __thread uint8_t sync_kinds[MAX_NESTING]; /* this thread's open sync regions, innermost last */
static __thread int sync_depth;

static void on_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task, int flags,
                           int has_dependences, const void *codeptr)
{
    if (in_device_work()) {
        new_task->value = 0;
        return;
    }
    new_task->value = TASK_CREATED | (uint32_t)flags;
    add(&task_creates, 1);
    for (int i = 0; i < 5; i++)
        if (flags & task_flag_bits[i])
            add(&task_flag[i], 1);
    if (flags & ompt_task_taskwait)
        add(&task_taskwait, 1);
}

static int waiting(const ompt_data_t *t)
{
    return (t->value & TASK_WAIT_MASK) != 0;
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    if (in_device_work() || status == ompt_task_early_fulfill || status == ompt_task_late_fulfill)
        return;
    if (prior && (prior->value & TASK_CREATED)) {
        if (status == ompt_task_complete)
            add(&task_completes, 1);
        if ((prior->value & TASK_RUNNING) && !waiting(prior)) {
            add(&task_period_ends, 1);
            prior->value &= ~TASK_RUNNING;
        }
    }
    if (next && (next->value & TASK_CREATED) && !waiting(next)) {
        next->value |= TASK_RUNNING;
        add(&task_periods, 1);
        if (sync_depth > 0 && sync_depth <= MAX_NESTING &&
            (sync_kinds[sync_depth - 1] == ompt_sync_region_taskwait ||
             sync_kinds[sync_depth - 1] == ompt_sync_region_taskgroup))
            add(&task_periods_in_taskwait, 1);
        if (!my_periods) {
            unsigned i = __atomic_fetch_add(&task_thread_count, 1, __ATOMIC_RELAXED);
            static unsigned long long overflow;
            my_periods = i < MAX_THREADS ? &thread_periods[i] : &overflow;
        }
        (*my_periods)++;
    }
}

/* Which sync regions are open on the thread, and which tasks wait in one. */
static void track_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *task)
{
    if (kind == ompt_sync_region_reduction)
        return;
    if (endpoint == ompt_scope_begin) {
        if (sync_depth < MAX_NESTING)
            sync_kinds[sync_depth] = (uint8_t)kind;
        sync_depth++;
        if (task && (task->value & TASK_CREATED))
            task->value += TASK_WAIT_ONE;
        return;
    }
    if (sync_depth > 0)
        sync_depth--;
    if (task && (task->value & TASK_CREATED) && waiting(task))
        task->value -= TASK_WAIT_ONE;
}

static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
    if (task && (task->value & TASK_CREATED))
        add(&depend_items, (unsigned long long)ndeps);
}

static void on_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
    if (!sink || !(sink->value & TASK_CREATED))
        return;
    add(&edges, 1);
    if ((sink->value & ompt_task_target) && src && (src->value & TASK_CREATED) && !(src->value & ompt_task_target))
        add(&edges_host_to_target, 1);
}

/* ---- mutual exclusion (issue 13, level all) ----
 *
 * One more line at finalisation,
 *
 *   HOST_MUTEX acquire=K1,K2,...,K7 acquired=K1,...,K7 released=K1,...,K7 nest_begin=N nest_end=N
 *              lock_init=N lock_destroy=N cancel=N cancel_loop=N flush=N
 *
 * (on one line; Kn: the count of ompt_mutex_t kind n, lock, test_lock,
 * nest_lock, test_nest_lock, critical, atomic, ordered), and one line per
 * thread that acquired anything,
 *
 *   HOST_MUTEX_THREAD acquire=K1,...,K7
 *
 * cancel counts every cancel callback, cancel_loop those of a loop that
 * activate or detect the cancellation. Device work is left out as above. */

#define MUTEX_KINDS 7

typedef struct mutex_counts {
    unsigned long long acquire[MUTEX_KINDS + 1];
} mutex_counts;

static unsigned long long mutex_acquire[MUTEX_KINDS + 1], mutex_acquired[MUTEX_KINDS + 1],
    mutex_released[MUTEX_KINDS + 1], nest_begin, nest_end, lock_inits, lock_destroys, cancels, cancel_loops,
    flushes;
static mutex_counts mutex_threads[MAX_THREADS];
static unsigned mutex_thread_count;
static __thread mutex_counts *my_mutex;

static unsigned mutex_kind(ompt_mutex_t kind)
{
    return kind >= 1 && kind <= MUTEX_KINDS ? (unsigned)kind : 0;
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                             const void *codeptr)
{
    if (in_device_work())
        return;
    add(&mutex_acquire[mutex_kind(kind)], 1);
    if (!my_mutex) {
        unsigned i = __atomic_fetch_add(&mutex_thread_count, 1, __ATOMIC_RELAXED);
        static mutex_counts overflow;
        my_mutex = i < MAX_THREADS ? &mutex_threads[i] : &overflow;
    }
    my_mutex->acquire[mutex_kind(kind)]++;
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (!in_device_work())
        add(&mutex_acquired[mutex_kind(kind)], 1);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (!in_device_work())
        add(&mutex_released[mutex_kind(kind)], 1);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (!in_device_work())
        add(endpoint == ompt_scope_begin ? &nest_begin : &nest_end, 1);
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                         const void *codeptr)
{
    if (!in_device_work())
        add(&lock_inits, 1);
}

static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    if (!in_device_work())
        add(&lock_destroys, 1);
}

static void on_cancel(ompt_data_t *task, int flags, const void *codeptr)
{
    if (in_device_work())
        return;
    add(&cancels, 1);
    if ((flags & ompt_cancel_loop) && (flags & (ompt_cancel_activated | ompt_cancel_detected)))
        add(&cancel_loops, 1);
}

static void on_flush(ompt_data_t *thread, const void *codeptr)
{
    if (!in_device_work())
        add(&flushes, 1);
}

static void print_kinds(const char *name, const unsigned long long *k)
{
    fprintf(stderr, " %s=", name);
    for (unsigned i = 1; i <= MUTEX_KINDS; i++)
        fprintf(stderr, "%llu%s", k[i], i < MUTEX_KINDS ? "," : "");
}

static void print_mutex_counts(void)
{
    fprintf(stderr, "HOST_MUTEX");
    print_kinds("acquire", mutex_acquire);
    print_kinds("acquired", mutex_acquired);
    print_kinds("released", mutex_released);
    fprintf(stderr, " nest_begin=%llu nest_end=%llu lock_init=%llu lock_destroy=%llu cancel=%llu cancel_loop=%llu "
                    "flush=%llu\n",
            nest_begin, nest_end, lock_inits, lock_destroys, cancels, cancel_loops, flushes);
    unsigned n = mutex_thread_count < MAX_THREADS ? mutex_thread_count : MAX_THREADS;
    for (unsigned i = 0; i < n; i++) {
        fprintf(stderr, "HOST_MUTEX_THREAD");
        print_kinds("acquire", mutex_threads[i].acquire);
        fprintf(stderr, "\n");
    }
}

static void register_mutex(ompt_set_callback_t set)
{
    set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
    set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
    set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
    set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
    set(ompt_callback_lock_init, (ompt_callback_t)on_lock_init);
    set(ompt_callback_lock_destroy, (ompt_callback_t)on_lock_destroy);
    set(ompt_callback_cancel, (ompt_callback_t)on_cancel);
    set(ompt_callback_flush, (ompt_callback_t)on_flush);
}

/* ---- end of mutual exclusion ---- */

static int initialize(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *tool_data)
{
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
    set(ompt_callback_work, (ompt_callback_t)on_work);
    set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch);
    set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
    set(ompt_callback_masked, (ompt_callback_t)on_masked);
    set(ompt_callback_target_emi, (ompt_callback_t)on_target);
    set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    set(ompt_callback_dependences, (ompt_callback_t)on_dependences);
    set(ompt_callback_task_dependence, (ompt_callback_t)on_task_dependence);
    register_mutex(set);
    return 1;
}

static void finalize(ompt_data_t *tool_data)
{
    fprintf(stderr,
            "HOST_COUNTS parallel=%llu implicit_tasks=%llu loops=%llu loop_trip=%llu chunks=%llu "
            "chunk_iterations=%llu sections=%llu singles=%llu masked=%llu barriers=%llu waits=%llu targets=%llu "
            "targets_in_parallel=%llu\n",
            parallel, implicit_tasks, loops, loop_trip, chunks, chunk_iterations, sections, singles, masked,
            barriers, waits, targets, targets_in_parallel);
    fprintf(stderr, "HOST_TEAMS team_size_sum=%llu thread_number_sum=%llu\n", team_size_sum, thread_number_sum);
    unsigned n = thread_count < MAX_THREADS ? thread_count : MAX_THREADS;
    for (unsigned i = 0; i < n; i++)
        fprintf(stderr, "HOST_THREAD implicit_tasks=%llu barriers=%llu\n", threads[i].implicit_tasks,
                threads[i].barriers);
    fprintf(stderr,
            "TASK_COUNTS creates=%llu undeferred=%llu final=%llu untied=%llu mergeable=%llu target=%llu "
            "taskwait=%llu completes=%llu periods=%llu period_ends=%llu periods_in_taskwait=%llu depend_items=%llu "
            "edges=%llu edges_host_to_target=%llu\n",
            task_creates, task_flag[0], task_flag[1], task_flag[2], task_flag[3], task_flag[4], task_taskwait,
            task_completes, task_periods, task_period_ends, task_periods_in_taskwait, depend_items, edges,
            edges_host_to_target);
    n = task_thread_count < MAX_THREADS ? task_thread_count : MAX_THREADS;
    for (unsigned i = 0; i < n; i++)
        fprintf(stderr, "TASK_THREAD periods=%llu\n", thread_periods[i]);
    print_loop_sites();
    print_mutex_counts();
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}

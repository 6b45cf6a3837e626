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
 * (on one line) and one line per thread that ran an implicit task:
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

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                           ompt_data_t *task, const void *codeptr)
{
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
    unsigned n = thread_count < MAX_THREADS ? thread_count : MAX_THREADS;
    for (unsigned i = 0; i < n; i++)
        fprintf(stderr, "HOST_THREAD implicit_tasks=%llu barriers=%llu\n", threads[i].implicit_tasks,
                threads[i].barriers);
    print_loop_sites();
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}

/* A do-nothing OMPT tool that registers the same callbacks as offtrace's host
 * library (thread begin/end, device initialize/load, and the three target
 * callbacks): the cost of OMPT dispatch alone, the baseline of the benchmarks.
 *
 * Built a second time with -DOT_BENCH_COUNT (libofftrace_bench_count_tool.so):
 * then it counts the target callbacks (the records offtrace would take) and
 * prints "callbacks N" to stderr at finalize; tests/bench/run_suite.sh uses
 * that to turn ns per operation into ns per recorded event. */
#include <omp-tools.h>
#include <stdio.h>

#ifdef OT_BENCH_COUNT
static unsigned long callbacks; /* atomic */
#define COUNT() __atomic_fetch_add(&callbacks, 1, __ATOMIC_RELAXED)
#else
#define COUNT() ((void)0)
#endif

static void on_thread_begin(ompt_thread_t kind, ompt_data_t *thread_data)
{
    (void)kind, (void)thread_data;
}

static void on_thread_end(ompt_data_t *thread_data)
{
    (void)thread_data;
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *documentation)
{
    (void)device_num, (void)type, (void)device, (void)lookup, (void)documentation;
}

static void on_device_load(int device_num, const char *filename, int64_t offset_in_file,
                           void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
                           uint64_t module_id)
{
    (void)device_num, (void)filename, (void)offset_in_file, (void)vma_in_file, (void)bytes;
    (void)host_addr, (void)device_addr, (void)module_id;
}

static void on_target(ompt_target_t k, ompt_scope_endpoint_t e, int d, ompt_data_t *t, ompt_data_t *tt,
                      ompt_data_t *td, const void *ra)
{
    (void)k, (void)e, (void)d, (void)t, (void)tt, (void)td, (void)ra;
    COUNT();
}

static void on_data_op(ompt_scope_endpoint_t e, ompt_data_t *tt, ompt_data_t *td, ompt_id_t *id,
                       ompt_target_data_op_t op, void *s, int sd, void *d, int dd, size_t b, const void *ra)
{
    (void)e, (void)tt, (void)td, (void)id, (void)op, (void)s, (void)sd, (void)d, (void)dd, (void)b, (void)ra;
    COUNT();
}

static void on_submit(ompt_scope_endpoint_t e, ompt_data_t *td, ompt_id_t *id, unsigned int teams)
{
    (void)e, (void)td, (void)id, (void)teams;
    COUNT();
}

#ifdef OT_BENCH_HOST_OPENMP
/* Built a third time (libofftrace_bench_null_host_tool.so): also the host
 * OpenMP callbacks offtrace registers at OFFTRACE_HOST_OPENMP=loops (and the
 * task ones it registers at all), as no-ops: the runtime's own cost of
 * delivering them. */
static void no_parallel_begin(ompt_data_t *t, const ompt_frame_t *f, ompt_data_t *p, unsigned int r, int fl,
                              const void *ra)
{
    (void)t, (void)f, (void)p, (void)r, (void)fl, (void)ra;
}
static void no_parallel_end(ompt_data_t *p, ompt_data_t *t, int fl, const void *ra)
{
    (void)p, (void)t, (void)fl, (void)ra;
}
static void no_implicit_task(ompt_scope_endpoint_t e, ompt_data_t *p, ompt_data_t *t, unsigned int a, unsigned int i,
                             int fl)
{
    (void)e, (void)p, (void)t, (void)a, (void)i, (void)fl;
}
static void no_work(ompt_work_t k, ompt_scope_endpoint_t e, ompt_data_t *p, ompt_data_t *t, uint64_t c,
                    const void *ra)
{
    (void)k, (void)e, (void)p, (void)t, (void)c, (void)ra;
}
static void no_sync(ompt_sync_region_t k, ompt_scope_endpoint_t e, ompt_data_t *p, ompt_data_t *t, const void *ra)
{
    (void)k, (void)e, (void)p, (void)t, (void)ra;
}
static void no_masked(ompt_scope_endpoint_t e, ompt_data_t *p, ompt_data_t *t, const void *ra)
{
    (void)e, (void)p, (void)t, (void)ra;
}
static void no_dispatch(ompt_data_t *p, ompt_data_t *t, ompt_dispatch_t k, ompt_data_t i)
{
    (void)p, (void)t, (void)k, (void)i;
}
/* explicit tasks: what offtrace registers at OFFTRACE_HOST_OPENMP=all */
static void no_task_create(ompt_data_t *t, const ompt_frame_t *f, ompt_data_t *n, int fl, int d, const void *ra)
{
    (void)t, (void)f, (void)n, (void)fl, (void)d, (void)ra;
}
static void no_task_schedule(ompt_data_t *p, ompt_task_status_t s, ompt_data_t *n)
{
    (void)p, (void)s, (void)n;
}
static void no_dependences(ompt_data_t *t, const ompt_dependence_t *d, int n)
{
    (void)t, (void)d, (void)n;
}
static void no_task_dependence(ompt_data_t *src, ompt_data_t *sink)
{
    (void)src, (void)sink;
}
#endif

#ifdef OT_BENCH_HOST_MUTEX
/* Built a fourth time (libofftrace_bench_null_mutex_tool.so): also the
 * mutual exclusion callbacks offtrace registers at OFFTRACE_HOST_OPENMP=all. */
static void no_mutex_acquire(ompt_mutex_t k, unsigned int h, unsigned int i, ompt_wait_id_t w, const void *ra)
{
    (void)k, (void)h, (void)i, (void)w, (void)ra;
}
static void no_mutex(ompt_mutex_t k, ompt_wait_id_t w, const void *ra)
{
    (void)k, (void)w, (void)ra;
}
static void no_nest_lock(ompt_scope_endpoint_t e, ompt_wait_id_t w, const void *ra)
{
    (void)e, (void)w, (void)ra;
}
static void no_cancel(ompt_data_t *t, int f, const void *ra)
{
    (void)t, (void)f, (void)ra;
}
static void no_flush(ompt_data_t *t, const void *ra)
{
    (void)t, (void)ra;
}
#endif

static int initialize(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *data)
{
    (void)initial_device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
    set(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
    set(ompt_callback_device_load, (ompt_callback_t)on_device_load);
    set(ompt_callback_target_emi, (ompt_callback_t)on_target);
    set(ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op);
    set(ompt_callback_target_submit_emi, (ompt_callback_t)on_submit);
#ifdef OT_BENCH_HOST_OPENMP
    set(ompt_callback_parallel_begin, (ompt_callback_t)no_parallel_begin);
    set(ompt_callback_parallel_end, (ompt_callback_t)no_parallel_end);
    set(ompt_callback_implicit_task, (ompt_callback_t)no_implicit_task);
    set(ompt_callback_work, (ompt_callback_t)no_work);
    set(ompt_callback_sync_region, (ompt_callback_t)no_sync);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)no_sync);
    set(ompt_callback_masked, (ompt_callback_t)no_masked);
    set(ompt_callback_dispatch, (ompt_callback_t)no_dispatch);
    set(ompt_callback_task_create, (ompt_callback_t)no_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)no_task_schedule);
    set(ompt_callback_dependences, (ompt_callback_t)no_dependences);
    set(ompt_callback_task_dependence, (ompt_callback_t)no_task_dependence);
#endif
#ifdef OT_BENCH_HOST_MUTEX
    set(ompt_callback_mutex_acquire, (ompt_callback_t)no_mutex_acquire);
    set(ompt_callback_mutex_acquired, (ompt_callback_t)no_mutex);
    set(ompt_callback_mutex_released, (ompt_callback_t)no_mutex);
    set(ompt_callback_nest_lock, (ompt_callback_t)no_nest_lock);
    set(ompt_callback_lock_init, (ompt_callback_t)no_mutex_acquire);
    set(ompt_callback_lock_destroy, (ompt_callback_t)no_mutex);
    set(ompt_callback_cancel, (ompt_callback_t)no_cancel);
    set(ompt_callback_flush, (ompt_callback_t)no_flush);
#endif
    return 1;
}

static void finalize(ompt_data_t *data)
{
    (void)data;
#ifdef OT_BENCH_COUNT
    fprintf(stderr, "callbacks %lu\n", __atomic_load_n(&callbacks, __ATOMIC_RELAXED));
#endif
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
    (void)version, (void)runtime;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}

/* A user's own OMPT tool that asks for callbacks (tests/test_hostile_process.c):
 * counts thread begins and target constructs, notes what ompt_set_callback
 * answered for target_emi and parallel_begin, and writes one line to
 * $OWNTOOL_OUT at finalize:
 *   "initialized thread_begin=N target_emi=always|never|... targets=N finalized parallel_begin=always|never|..." */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int thread_begins, targets;
static int target_emi_answer, parallel_begin_answer;

static void on_thread_begin(ompt_thread_t kind, ompt_data_t *thread_data)
{
    (void)kind;
    (void)thread_data;
    thread_begins++;
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data, ompt_data_t *target_data,
                          const void *codeptr_ra)
{
    (void)kind, (void)device_num, (void)task_data, (void)target_task_data, (void)target_data, (void)codeptr_ra;
    if (endpoint == ompt_scope_begin)
        targets++;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    (void)task, (void)frame, (void)parallel, (void)requested, (void)flags, (void)codeptr;
}

static const char *answer(int a)
{
    return a == ompt_set_always ? "always" : a == ompt_set_never ? "never" : "other";
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
    (void)initial_device_num;
    (void)tool_data;
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    set_callback(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    target_emi_answer = set_callback(ompt_callback_target_emi, (ompt_callback_t)on_target_emi);
    parallel_begin_answer = set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    return 1;
}

static void finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    const char *path = getenv("OWNTOOL_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    fprintf(f, "initialized thread_begin=%d target_emi=%s targets=%d finalized parallel_begin=%s\n", thread_begins,
            answer(target_emi_answer), targets, answer(parallel_begin_answer));
    fclose(f);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version;
    (void)runtime_version;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}

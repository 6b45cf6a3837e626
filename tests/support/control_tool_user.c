/* A user's own OMPT tool chained after offtrace that takes omp_control_tool
 * too (tests/test_measurement_control.c): it counts the commands it
 * receives, answers 100 + the command, and writes one line to $OWNTOOL_OUT
 * at finalize: "control_tool calls=N answer=ompt_set_always|other". */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int calls;
static int registered;

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr)
{
    (void)modifier, (void)arg, (void)codeptr;
    calls++;
    return 100 + (int)command;
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    registered = set_callback(ompt_callback_control_tool, (ompt_callback_t)on_control_tool);
    return 1;
}

static void finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    const char *path = getenv("OWNTOOL_OUT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f)
        return;
    fprintf(f, "control_tool calls=%d answer=%s\n", calls, registered == ompt_set_always ? "always" : "other");
    fclose(f);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}

/* A do-nothing OMPT tool that registers the same target callbacks as
 * offtrace: the cost of OMPT dispatch alone, the baseline of the benchmark. */
#include <omp-tools.h>

static void on_target(ompt_target_t k, ompt_scope_endpoint_t e, int d, ompt_data_t *t, ompt_data_t *tt,
                      ompt_data_t *td, const void *ra) {}
static void on_data_op(ompt_scope_endpoint_t e, ompt_data_t *tt, ompt_data_t *td, ompt_id_t *id,
                       ompt_target_data_op_t op, void *s, int sd, void *d, int dd, size_t b, const void *ra) {}
static void on_submit(ompt_scope_endpoint_t e, ompt_data_t *td, ompt_id_t *id, unsigned int teams) {}

static int initialize(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *data)
{
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_target_emi, (ompt_callback_t)on_target);
    set(ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op);
    set(ompt_callback_target_submit_emi, (ompt_callback_t)on_submit);
    return 1;
}

static void finalize(ompt_data_t *data) {}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    return &result;
}

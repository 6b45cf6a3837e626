/**
 * \file bench_stages.c
 * \brief The state of the benchmark's stage hooks (bench_stages.h); built
 *        into tests/bench's libofftrace_bench_stages.so only.
 */
#include "bench_stages.h"

#include <stdlib.h>

int ot_bench_stage;
volatile uint64_t ot_bench_sink;

void ot_bench_stages_read(void)
{
    const char *stage = getenv("OFFTRACE_BENCH_STAGE");
    ot_bench_stage = stage ? atoi(stage) : 0;
}

/* For bench_target_loop's `stages`: switch the stage between blocks. */
__attribute__((visibility("default"))) void offtrace_bench_set_stage(int stage);

void offtrace_bench_set_stage(int stage)
{
    ot_bench_stage = stage;
}

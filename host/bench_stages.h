/**
 * \file bench_stages.h
 * \brief The benchmark's stage hooks in the target callbacks (tool.c).
 *
 * Only tests/bench's libofftrace_bench_stages.so is built with
 * OT_BENCH_STAGES (with bench_stages.c); there, OFFTRACE_BENCH_STAGE stops
 * every target callback after a stage of its work, so that the benchmark
 * can tell what each stage costs inside a real target region
 * (tests/bench/run_stages.sh). 1: return at once; 2: read the clock; 3: read
 * the clock and store a record into a small per-thread ring that stays in
 * cache; unset or 0: the whole recording. In libofftrace.so the hooks are
 * empty.
 */
#ifndef OT_HOST_BENCH_STAGES_H
#define OT_HOST_BENCH_STAGES_H

#ifdef OT_BENCH_STAGES
#include <stdint.h>

#include "clock.h"
#include "stream.h"

extern int ot_bench_stage;
extern volatile uint64_t ot_bench_sink;
/* The ring is static in tool.c, the one file that includes the hooks, as it
 * was when the hooks lived there: an extern one would join the library's
 * initial-exec TLS block, which a dlopened library cannot grow by 4 KiB. */
static __thread offtrace_raw_record ot_bench_ring[64] __attribute__((aligned(64)));
static __thread unsigned ot_bench_next;

/** \brief Read OFFTRACE_BENCH_STAGE (at tool initialisation). */
void ot_bench_stages_read(void);

/** At the top of a target callback: return from it after the chosen stage. */
#define OT_BENCH_STAGE_HOOK()                                                                    \
    do {                                                                                         \
        if (ot_bench_stage == 1)                                                                 \
            return;                                                                              \
        if (ot_bench_stage == 2) {                                                               \
            ot_bench_sink = ot_clock_ticks();                                                    \
            return;                                                                              \
        }                                                                                        \
        if (ot_bench_stage == 3) {                                                               \
            offtrace_raw_record r_ = {.time = ot_clock_ticks(), .event = OFFTRACE_RAW_TARGET};  \
            ot_stream_store(&ot_bench_ring[ot_bench_next++ & 63], &r_);                          \
            return;                                                                              \
        }                                                                                        \
    } while (0)
#else
#define OT_BENCH_STAGE_HOOK() ((void)0)
static inline void ot_bench_stages_read(void)
{
}
#endif

#endif /* OT_HOST_BENCH_STAGES_H */

/**
 * \file device_config.h
 * \brief The device collector's OFFTRACE_* variables, parsed without side
 *        effects: by the collector when it opens, and by `offtrace record`
 *        before it runs anything, so that a wrong value is one line and
 *        nothing runs, as for the host library's variables.
 */
#ifndef OT_DEVICE_CONFIG_H
#define OT_DEVICE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/** A clock skew: what OFFTRACE_TEST_DEVICE_CLOCK describes (device_clock.h). */
typedef struct ot_clock_skew {
    int64_t offset_ns;
    double drift_ppm;
    uint64_t jitter_ns;
} ot_clock_skew;

#define OT_DEVICE_DEFAULT_THREAD_BUDGET (4u << 20)
#define OT_DEVICE_MIN_THREAD_BUDGET (128u << 10) /* two 64 KiB blocks */
#define OT_DEVICE_MAX_THREAD_BUDGET (1u << 30)

/** What the OpenMP inside a host-offload kernel records (OFFTRACE_DEVICE_DETAIL, collector.h). */
enum ot_device_detail {
    OT_DEVICE_DETAIL_KERNELS = 0, /**< the kernel's outermost region */
    OT_DEVICE_DETAIL_TEAMS = 1,   /**< + each parallel region, with its team's summary */
    OT_DEVICE_DETAIL_THREADS = 2, /**< + every thread's implicit tasks, loops, barriers, tasks */
};
/** The level when OFFTRACE_DEVICE_DETAIL is unset (docs/performance.md, issue 18, says why). */
#define OT_DEVICE_DETAIL_DEFAULT OT_DEVICE_DETAIL_TEAMS
/** The accepted values, for messages and the CLI (in enum order). */
#define OT_DEVICE_DETAIL_ACCEPTED "kernels, teams, threads"

typedef struct ot_device_config {
    size_t thread_budget; /**< OFFTRACE_DEVICE_BUFFER_SIZE */
    int detail;           /**< OFFTRACE_DEVICE_DETAIL: enum ot_device_detail */
    int has_skew;         /**< OFFTRACE_TEST_DEVICE_CLOCK set */
    ot_clock_skew skew;
} ot_device_config;

/**
 * \brief Parse "offset_ns:drift_ppm:jitter_ns" (offset may be negative,
 *        |drift| <= 10000 ppm, jitter <= 1 s).
 * \return 0, or -EINVAL.
 */
int ot_clock_skew_parse(const char *text, ot_clock_skew *out);

/**
 * \brief Parse a level name of OFFTRACE_DEVICE_DETAIL.
 * \return 0 and the level in \p out, or -EINVAL.
 */
int ot_device_detail_parse(const char *text, int *out);

/**
 * \brief Read OFFTRACE_DEVICE_BUFFER_SIZE, OFFTRACE_DEVICE_DETAIL and OFFTRACE_TEST_DEVICE_CLOCK.
 * \param err one line naming the variable and what it accepts, when one is wrong.
 * \return 0, or -EINVAL (then \p cfg is not to be used).
 */
int ot_device_config_from_env(ot_device_config *cfg, char *err, size_t err_size);

#endif

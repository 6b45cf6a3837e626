/**
 * \file config.h
 * \brief The recorder's settings, read once from OFFTRACE_* environment
 *        variables (documented in include/offtrace/offtrace.h).
 */
#ifndef OT_HOST_CONFIG_H
#define OT_HOST_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef struct ot_config {
    int enabled;            /**< OFFTRACE_ENABLE */
    char output[4096];      /**< OFFTRACE_OUTPUT, "" = default name */
    size_t chunk_bytes;     /**< OFFTRACE_BUFFER_SIZE */
    size_t memory_budget;   /**< OFFTRACE_MEMORY_BUDGET: trace data held in memory, all threads */
    int verbose;            /**< OFFTRACE_VERBOSE: 0 quiet, 1 one line at exit, 2 debug */
    int keep_raw;           /**< OFFTRACE_KEEP_RAW: leave <dir>/raw after conversion */
    int background_writeback; /**< OFFTRACE_BACKGROUND_WRITEBACK: a writer thread past half the budget */
    int output_preclaimed;  /**< OFFTRACE_OUTPUT_CLAIMED=1: `offtrace record` made the directory */
    uint64_t max_size;      /**< OFFTRACE_MAX_RECORDING_SIZE; 0: the default, chosen at session open
                                 from the output's free space; UINT64_MAX: unlimited */
    int host_openmp;        /**< OFFTRACE_HOST_OPENMP: enum ot_host_openmp_level */
    int start_paused;       /**< OFFTRACE_START_PAUSED: recording starts off (measurement.h) */
    char filter[4096];      /**< OFFTRACE_FILTER: a filter file (docs/filters.md), "" = none */
    /** A one-line message about a value that was replaced by its default
     *  (the run is still traced), "" when none: the caller prints it. */
    char warning[512];
} ot_config;

/** How much of the program's own host OpenMP is recorded (OFFTRACE_HOST_OPENMP). */
typedef enum ot_host_openmp_level {
    OT_HOST_OPENMP_OFF = 0,     /**< none: only offload constructs on host threads */
    OT_HOST_OPENMP_REGIONS = 1, /**< parallel regions, implicit tasks, worksharing, masked, barriers, taskwait, taskgroup */
    OT_HOST_OPENMP_LOOPS = 2,   /**< regions + every chunk of every loop, with its logical bounds */
    OT_HOST_OPENMP_ALL = 3,     /**< loops + explicit tasks (creation, periods, dependences) and mutual exclusion
                                     (locks, nest locks, critical, ordered), cancellation, flush */
} ot_host_openmp_level;

/** The level when OFFTRACE_HOST_OPENMP is unset or invalid (docs/performance.md says why). */
#define OT_HOST_OPENMP_DEFAULT OT_HOST_OPENMP_LOOPS
/** The accepted values of OFFTRACE_HOST_OPENMP, for messages. */
#define OT_HOST_OPENMP_ACCEPTED "off, regions, loops, all"

/**
 * \brief Parse a host OpenMP level ("off", "regions", "loops", "all", any case).
 * \return 0 and *level, or -EINVAL.
 */
int ot_config_parse_host_openmp(const char *text, int *level);

/**
 * \brief Fill \p cfg from the environment.
 * \param err buffer for a one-line message naming the variable and the
 *            accepted values when a value is wrong.
 * \return 0 when every variable is valid, -EINVAL otherwise (then \p err is set
 *         and the caller must not trace).
 */
int ot_config_from_env(ot_config *cfg, char *err, size_t err_size);

/**
 * \brief Parse a recording size limit: a size (byte_size.h) of at least
 *        OFFTRACE_MIN_RECORDING_SIZE ("512M", "4GiB") or "unlimited".
 * \return 0 and *out (UINT64_MAX for unlimited), or -EINVAL.
 */
int ot_config_parse_max_size(const char *text, uint64_t *out);

/** \brief The accepted values of OFFTRACE_MAX_RECORDING_SIZE, for messages. */
#define OT_CONFIG_MAX_SIZE_ACCEPTED "a size of at least 1M, such as 512M or 20G, or unlimited"

#endif

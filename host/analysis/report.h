/**
 * \file report.h
 * \brief `offtrace report`: what an archive says about where the time went,
 *        per device, per construct site, per kernel and per transfer site,
 *        and which transfer and launch patterns cost time (docs/report.md).
 *
 * The report is built in one streaming pass over the archive
 * (trace_read.h). Everything it holds is bounded by the archive's
 * definitions (sites, kernels, devices, host threads), never by the number
 * of events; the one per-range history the findings need is a fixed-size
 * table (report_history.h).
 *
 * Pipeline: ot_report_collect (statistics and evidence, report_collect.c)
 * -> ot_report_find (findings, report_findings.c) -> ot_report_print_text
 * (report_text.c) or ot_report_print_json (report_json.c).
 */
#ifndef OT_ANALYSIS_REPORT_H
#define OT_ANALYSIS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Transfer directions, as array indices. */
enum { OT_RP_H2D = 0, OT_RP_D2H = 1 };

/** What a site is. */
typedef enum ot_rp_kind {
    OT_RP_TARGET,      /**< `target` (its kernels run on a device) */
    OT_RP_ENTER_DATA,  /**< `target enter data` (also the begin of `target data`) */
    OT_RP_EXIT_DATA,   /**< `target exit data` (also the end of `target data`) */
    OT_RP_UPDATE,      /**< `target update` */
    OT_RP_API,         /**< omp_target_memcpy and friends */
    OT_RP_OUTSIDE,     /**< transfers issued outside every construct */
    OT_RP_KINDS
} ot_rp_kind;

/** Where a device's kernel times come from. */
typedef enum ot_rp_kernel_time {
    OT_RP_KERNEL_TIME_LAUNCH = 0, /**< the host's launch spans (host-offload: the launch is the execution) */
    OT_RP_KERNEL_TIME_DEVICE,     /**< the device's own execution of each kernel, paired with its launch */
    OT_RP_KERNEL_TIME_UNPAIRED,   /**< the device recorded its kernels, but the archive cannot pair them
                                       (written before the launches carried their host operation): launch spans */
} ot_rp_kernel_time;

/** Per device. */
typedef struct ot_rp_device {
    int device;                                      /**< its key (trace_read.h): its number in one process */
    uint32_t rank;                                   /**< its MPI rank (0 in one process) */
    int number;                                      /**< its device number in its rank's process */
    uint64_t kernels, kernel_ns, kernel_max_ns;
    uint64_t transfers[2], bytes[2], transfer_ns[2]; /**< by OT_RP_H2D / OT_RP_D2H */
    uint64_t memory_peak;                            /**< high-water mark of "device memory in use" */
    /** What its kernel times are (issue 17, docs/report.md "Kernel time on a GPU"): the host's launch
     *  spans (a host-offload device, whose launch is the execution), or each kernel's own execution on the
     *  device (a device whose collector recorded it, CUPTI), paired with its launch through their host
     *  operation. A launch whose device kernel never came keeps its launch span. */
    ot_rp_kernel_time kernel_time;
    uint64_t launches_paired;        /**< launches whose kernel time is the device's (kernel_time DEVICE) */
    uint64_t launches_unpaired;      /**< launches of such a device that kept their launch span */
    uint64_t device_kernels_unpaired; /**< device kernels no launch claimed (not in kernel time) */
    uint64_t latency_ns, latency_max_ns; /**< launch latency of the paired: launch begin to the kernel's start */
    /** Start-up: the device's first construct instance (the earliest entered
     *  of those that used it: the runtime initialises the device) and its
     *  first target instance that launched a kernel (the image is loaded
     *  and the launch machinery set up), one instance when they are the
     *  same. What each cost beyond the mean of its site's other instances
     *  (all of it for a site that ran once) is start-up: it stays in every
     *  table but is kept out of the headline's shares (docs/report.md,
     *  "Start-up and outliers"). */
    struct {
        int seen;
        int32_t site, launch_site;   /**< launch_site: -1 when the same instance or none */
        uint64_t host_ns, kernel_ns, transfer_ns, alloc_ns;
    } startup;
} ot_rp_device;

/**
 * Evidence the findings are made of, gathered per site while reading
 * (report_history.c and report_transfers.c fill it; report_findings.c judges).
 */
/** The variables a finding is about (issue 15): rows of ot_report.variables, the first few seen. */
#define OT_RP_NAMED_VARIABLES 3
typedef struct ot_rp_named {
    uint32_t row[OT_RP_NAMED_VARIABLES];   /**< variable row + 1; 0: none */
    uint64_t bytes[OT_RP_NAMED_VARIABLES]; /**< its largest transfer of the evidence */
    int more;                              /**< more variables than these */
} ot_rp_named;

typedef struct ot_rp_evidence {
    /* 1. repeated upload: uploads of a range that was already on the device
     *    and not copied back since, counted from the 2nd of a run of >= 3 */
    uint64_t repeat_copies, repeat_bytes, repeat_ns;
    uint64_t repeat_runs;        /**< runs that reached 3 uploads */
    uint64_t repeat_longest;     /**< longest run, in construct instances */
    uint64_t repeat_range_bytes; /**< size of the range of the longest run */
    int repeat_device;
    /* 2. round trip: this site copied a range back, and it was sent to the
     *    same device again later (both copies count) */
    uint64_t trip_count, trip_bytes, trip_ns, trip_gap_ns;
    int32_t trip_partner;        /**< site of the re-upload (the first seen) */
    int trip_partners;           /**< 1, or 2 for "several" */
    /* 3. tiny transfers: transfers below OT_RP_TINY_BYTES in streaks that
     *    one transfer could replace */
    uint64_t tiny, tiny_batchable, tiny_bytes, tiny_stake_ns;
    /* the variables of each (issue 15) */
    ot_rp_named repeat_named, trip_named, tiny_named;
} ot_rp_evidence;

/** A construct site: one source line of one construct kind. */
typedef struct ot_rp_site {
    char *name;                  /**< region name, "target @cg.c:24" */
    char *site;                  /**< "cg.c:24" */
    char *file;                  /**< as in the archive (may be a full path), "" if unknown */
    uint32_t line;
    ot_rp_kind kind;
    int nowait;
    int device;                  /**< device used; -1 none seen, -2 several */
    uint64_t count, host_ns, max_ns;
    uint64_t kernels, kernel_ns;
    uint64_t transfers[2], bytes[2], transfer_ns[2];
    uint64_t busy_ns;            /**< time some kernel or transfer of the instance was active */
    uint64_t alloc_ns, allocs;   /**< in "data op alloc" / "data op delete" */
    ot_rp_evidence ev;
} ot_rp_site;

/** A kernel on one device. */
typedef struct ot_rp_kernel {
    char *name;                  /**< symbol, "__omp_offloading_fe00_5100_spmv_l24" */
    char *short_name;            /**< "spmv_l24" */
    int32_t site;                /**< construct site of its first attributed launch, -1 unknown */
    int device;
    uint64_t count, total_ns, max_ns;
} ot_rp_kernel;

/** Transfers of one site in one direction to one device. */
typedef struct ot_rp_xsite {
    int32_t site;
    int direction, device;
    uint64_t count, bytes, ns, min_bytes, max_bytes;
} ot_rp_xsite;

/* ---- host OpenMP (issue 13; report_openmp.c collects, docs/report.md "Host OpenMP") ---- */

/** What a host OpenMP site is. Explicit tasks and mutual exclusion (issue 13,
 *  later steps) add their kinds here, their statistics to ot_rp_omp_site's
 *  block of their own and their collection to report_openmp.c's class switch. */
typedef enum ot_rp_omp_kind {
    OT_RP_OMP_PARALLEL,  /**< a parallel region (its encountering thread's `parallel @f:l`) */
    OT_RP_OMP_LOOP,      /**< a worksharing loop (role LOOP: loop, distribute, taskloop) */
    OT_RP_OMP_SYNC,      /**< a barrier, implicit barrier, taskwait or taskgroup, with its waiting part */
    OT_RP_OMP_TASK,      /**< explicit tasks by creation site (`task create @f:l` and the periods `task @f:l`) */
    OT_RP_OMP_MUTEX,     /**< a critical section, lock, test lock, nest lock or ordered site, with its waiting part */
    OT_RP_OMP_KINDS
} ot_rp_omp_kind;

/** A loop's iteration space is kept as this many bins of time and iterations
 *  (exact per iteration for loops of at most this many iterations). */
#define OT_RP_LOOP_BINS 256
/** The slowest iteration ranges kept per loop. */
#define OT_RP_SLOW_RANGES 3

/** An iteration range of a loop: its first logical iteration and size, and over all instances the
 *  iterations run in it and their time (ns / executed: time per iteration). */
typedef struct ot_rp_range {
    uint64_t first, count, executed, ns;
} ot_rp_range;

/** A host OpenMP site: one source line of one kind. */
/** A sync site that ended the regions of several parallel sites (it has no source line of its own). */
#define OT_RP_SHARED_SITE (-2)

typedef struct ot_rp_omp_site {
    char *name;                  /**< region name, "loop (dynamic) @bucket_sort.c:84" */
    char *site;                  /**< "bucket_sort.c:84" (the name when it has no site) */
    char *file;
    uint32_t line;
    ot_rp_omp_kind kind;
    uint64_t instances;          /**< team executions (a loop's or barrier's threads together are one) */
    uint64_t thread_instances;   /**< regions on threads (a loop of a team of 4 run once: 4) */
    uint32_t threads;            /**< the largest team seen */
    uint64_t wall_ns;            /**< sum over instances of first thread in .. last thread out */
    uint64_t wait_ns;            /**< parallel: its team's threads waiting in barriers and taskwaits within
                                      it; sync: waiting in it (clipped to the end of its parallel region) */
    /* parallel */
    uint64_t thread_ns;          /**< team size x wall time, summed over instances */
    /* loop */
    char schedule[16];           /**< "static", "dynamic", "guided", "" (from the OMPT work kind) */
    uint64_t trip;               /**< trip count of its first instance */
    uint64_t trip_total;         /**< trip counts summed over instances */
    int trip_varies;             /**< instances had different trip counts */
    uint64_t chunks, chunk_iterations;
    uint64_t busy_ns;            /**< all threads' busy time (in chunks, or in the loop less waiting) */
    uint64_t busy_max_ns;        /**< sum over instances of the busiest thread's busy time */
    uint64_t busy_mean_ns;       /**< sum over instances of the mean busy time of its team */
    uint64_t *thread_busy_ns;    /**< by thread number: busy time summed over instances */
    uint32_t thread_busy_count;
    uint64_t *bin_ns, *bin_iterations; /**< OT_RP_LOOP_BINS each (loops with chunks), else NULL */
    uint64_t bin_trip;           /**< the trip count the bins divide */
    ot_rp_range slow[OT_RP_SLOW_RANGES]; /**< slowest ranges by time beyond the loop's mean per iteration */
    uint32_t slow_count;
    /* sync */
    int32_t parallel_site;       /**< the parallel site it ran in, -1 none, OT_RP_SHARED_SITE several */
    /* task (instances: tasks created there; wall_ns: run_ns) */
    uint64_t undeferred, final, untied, mergeable, target; /**< tasks created with that flag */
    uint64_t taskwait;           /**< the task of a `taskwait depend` (created, never run) */
    uint64_t periods;            /**< periods of execution (switch to .. switch away) */
    uint64_t run_ns;             /**< time in its periods less the tasks and task waits nested in them */
    uint64_t started;            /**< tasks whose creation and first period were both seen */
    uint64_t delay_ns;           /**< of those: creation to first period, summed (scheduling delay) */
    /* mutex (instances: acquisitions; wait_ns: in its waiting parts; wall_ns: acquire to release) */
    char mutex[24];              /**< "critical", "lock", "test lock", "nest lock", "nest lock (nested)", "ordered" */
    uint64_t hold_ns;            /**< acquired to released, summed */
    uint32_t waiters, max_waiters; /**< threads in its waiting part now (while reading), at most */
} ot_rp_omp_site;

/** Device idle between two target regions of one host thread while that
 *  thread ran serially or waited (finding "host serialises the offload"). */
typedef struct ot_rp_gap {
    int32_t from_site, to_site;  /**< the target construct sites before and after (r->sites) */
    int device;
    uint64_t count;              /**< gaps */
    uint64_t gap_ns, idle_ns;    /**< host time between them; the device's idle part of it */
    uint64_t serial_ns;          /**< the thread outside every parallel region */
    uint64_t wait_ns;            /**< the thread waiting in a barrier, taskwait, taskgroup, lock or critical */
    int32_t wait_site;           /**< omp site of the sync or mutex region it waited in longest, -1 */
} ot_rp_gap;

typedef enum ot_rp_finding_kind {
    OT_RP_REPEATED_UPLOAD,
    OT_RP_ROUND_TRIP,
    OT_RP_TINY_TRANSFERS,
    OT_RP_SHORT_KERNELS,
    OT_RP_DEVICE_IDLE,
    OT_RP_LOOP_IMBALANCE,       /**< host OpenMP: threads of a loop busy for very different times */
    OT_RP_BARRIER_WAIT,         /**< host OpenMP: a parallel region's threads mostly wait */
    OT_RP_HOST_SERIAL,          /**< host OpenMP: the device idles while the host runs serially or waits */
    OT_RP_FINE_TASKS,           /**< host OpenMP: a creation site's tasks run for less than they cost */
    OT_RP_LOCK_CONTENTION,      /**< host OpenMP: the threads of a lock or critical site wait more than they hold */
    OT_RP_IMPLICIT_MAPS,        /**< a variable never mapped explicitly, copied around many constructs (issue 15) */
    OT_RP_LATE_SENDER,          /**< MPI: receives wait for sends that begin later (issue 16) */
    OT_RP_LATE_RECEIVER,        /**< MPI: large blocking sends wait for their receives to be posted */
    OT_RP_COLLECTIVE_WAIT,      /**< MPI: members of N-to-N collectives wait for the last to come */
    OT_RP_MPI_DEVICES_IDLE,     /**< MPI: a rank's devices idle while it communicates */
    OT_RP_FINDING_KINDS
} ot_rp_finding_kind;

typedef struct ot_rp_finding {
    ot_rp_finding_kind kind;
    int32_t site, other_site;    /**< other_site: partner of a round trip, else -1; site -1: see omp_site */
    int32_t omp_site;            /**< the host OpenMP site of a host OpenMP finding (r->omp_sites), else -1 */
    int32_t rank;                /**< an MPI finding's worst rank (site and omp_site -1), else -1 */
    int device;                  /**< -1 unknown */
    uint64_t count;              /**< occurrences (copies, launches, ...) */
    uint64_t bytes_at_stake, ns_at_stake;
    ot_rp_named variables;       /**< the variables it is about (transfer findings of a named archive) */
    char message[1024];          /**< one paragraph, no line breaks */
} ot_rp_finding;

/** Whole-run numbers. */
typedef struct ot_rp_summary {
    uint64_t duration_ns;        /**< the archive's clock range */
    uint64_t inside_ns;          /**< time some host thread was inside a construct */
    uint64_t host_threads, devices;
    uint64_t constructs[OT_RP_KINDS], data_regions;
    uint64_t unattributed_kernels;  /**< kernels no open target region could claim */
    uint64_t unmatched_completions; /**< completions without their put/get */
    uint64_t transfers_without_address;
    uint64_t history_evictions;     /**< ranges the bounded history forgot */
    uint64_t host_openmp_regions;   /**< host OpenMP region instances read (0: no host OpenMP tables) */
    uint64_t omp_instances_dropped; /**< loop instances finished early for want of room (report_openmp.c) */
    char partial[160];              /**< OFFTRACE::PARTIAL when not "no" */
    uint64_t measurement_off_switches, measurement_off_ns; /**< recording switched off (measurement control) */
} ot_rp_summary;

typedef struct ot_report {
    char *archive, *creator;
    ot_rp_summary summary;
    ot_rp_device *devices;   size_t device_count;
    ot_rp_site *sites;       size_t site_count, site_cap;
    ot_rp_kernel *kernels;   size_t kernel_count, kernel_cap;
    ot_rp_xsite *xsites;     size_t xsite_count, xsite_cap;
    ot_rp_finding *findings; size_t finding_count;
    ot_rp_omp_site *omp_sites; size_t omp_site_count, omp_site_cap;
    ot_rp_gap *gaps;         size_t gap_count, gap_cap;
    struct ot_rp_user_row *user_rows; size_t user_row_count, user_row_cap; /**< report_user.c */
    struct ot_rp_user_value *user_values; size_t user_value_count, user_value_cap; /**< report_user.c */
    struct ot_rp_variable *variables; size_t variable_count, variable_cap; /**< report_variables.c */
    struct ot_rp_rank *ranks; size_t rank_count; int device_stride; /**< report_ranks.c; rank_count 0: one process */
    struct ot_rp_mpi *mpi;   /**< report_mpi.c; NULL: no MPI calls */
    struct ot_rp_mpi_waits *mpi_waits; /**< report_mpi_waits.c: waiting in MPI */
} ot_report;

/** How the tables are ordered (findings always by what is at stake). */
typedef enum ot_rp_sort { OT_RP_SORT_TOTAL, OT_RP_SORT_COUNT, OT_RP_SORT_MEAN, OT_RP_SORT_BYTES,
                          OT_RP_SORT_NAME } ot_rp_sort;

typedef struct ot_rp_options {
    ot_rp_sort sort;
    size_t limit;                /**< rows per table; 0 = all */
} ot_rp_options;

/** Transfers below this many bytes are "tiny" (finding 3). */
#define OT_RP_TINY_BYTES 4096u
/** Ranges below this many bytes are left out of findings 1 and 2. */
#define OT_RP_MIN_RANGE_BYTES 1024u

/**
 * \brief Read `<dir>` (an offtrace archive) and fill \p r: statistics and
 *        evidence, no findings yet.
 * \return 0, or a negative errno with a one-line message in \p err
 *         (-ENOENT: no archive, -EINVAL: damaged, -ENOMEM).
 */
int ot_report_collect(const char *dir, ot_report *r, char *err, size_t err_size);

/** \brief Judge the evidence: fill r->findings, largest time at stake first. */
int ot_report_find(ot_report *r);

/** \brief The human report: three highlights, then the tables (100 columns). */
void ot_report_print_text(const ot_report *r, const ot_rp_options *o, FILE *to);

/** \brief The same content as one JSON object. */
void ot_report_print_json(const ot_report *r, const ot_rp_options *o, FILE *to);

/** \brief \p s as a JSON string literal (quotes, backslash and control
 *         characters escaped): the one writer of strings for every part of
 *         the report's JSON (report_json.c). */
void ot_report_json_string(FILE *to, const char *s);

/** \brief Free everything \p r holds (it may be partly filled). */
void ot_report_free(ot_report *r);

/* ---- shared by the two printers (report_rows.c, report_highlights.c) ---- */

#define OT_RP_HIGHLIGHTS 3

/**
 * \brief The three numbered lines the report starts with, one paragraph
 *        each, as malloc'd strings of any length (names are never cut).
 * \return 0, or -ENOMEM (then every out[i] is NULL).
 */
int ot_report_highlights(const ot_report *r, char *out[OT_RP_HIGHLIGHTS]);

/** \brief Free what ot_report_highlights made. */
void ot_report_highlights_free(char *out[OT_RP_HIGHLIGHTS]);

/**
 * \brief The start-up sentence (each device's first construct, kept out of
 *        the headline's shares), malloc'd; NULL when no device was used or
 *        out of memory.
 */
char *ot_report_startup_sentence(const ot_report *r);

/** The sum of the start-up instances of all devices. */
typedef struct ot_rp_startup_total {
    uint64_t host_ns, kernel_ns, transfer_ns, alloc_ns;
    size_t devices;
} ot_rp_startup_total;

/** \brief Add up every device's start-up instance. */
ot_rp_startup_total ot_report_startup_total(const ot_report *r);

/** A kernel's slowest launch is an outlier when it is more than this many
 *  times the mean of its other launches ... */
#define OT_RP_OUTLIER_FACTOR 10u
/** ... and more than this many ns above it (so that 2 us against 0.1 us is not one). */
#define OT_RP_OUTLIER_MIN_NS 100000u

/**
 * \brief Whether \p k's slowest launch is an outlier (OT_RP_OUTLIER_*);
 *        \p others_mean gets the mean of its other launches (0 if none).
 */
int ot_report_kernel_outlier(const ot_rp_kernel *k, uint64_t *others_mean);

/**
 * \brief Row order for one table: indices into sites (which = 's'), kernels
 *        ('k') or transfer sites ('x'), sorted per \p sort, ties by name.
 * \return malloc'd array of r's row count (caller frees), NULL if empty.
 */
size_t *ot_report_order(const ot_report *r, char which, ot_rp_sort sort, size_t *count);

/** \brief Row order of the host OpenMP sites of \p kind with instances, by total time (wall_ns; wait_ns for
 *  barriers), ties by site.
 *  \return malloc'd array (caller frees), NULL if none. */
size_t *ot_report_omp_order(const ot_report *r, ot_rp_omp_kind kind, size_t *count);

/** \brief The host OpenMP tables (report_openmp_print.c), only for an archive with host OpenMP:
 *  text (parallel regions, loops with their slowest ranges, barriers, explicit tasks and locks at level all,
 *  gaps between targets) and the
 *  "host_openmp" member of the JSON object (followed by a comma). */
void ot_report_print_omp_text(const ot_report *r, const ot_rp_options *o, FILE *to);
void ot_report_print_omp_json(const ot_report *r, const ot_rp_options *o, FILE *to);

/** \brief The JSON id of a host OpenMP kind: "parallel", "loop", "sync", "task", "mutex". */
const char *ot_report_omp_kind_id(ot_rp_omp_kind k);

/** \brief A loop's imbalance: busiest thread over mean, summed over instances (1.0: none; 0 if no time). */
double ot_report_loop_imbalance(const ot_rp_omp_site *s);

/** \brief The JSON id of a kind: "target", "enter_data", "exit_data", "update", "api", "outside". */
const char *ot_report_kind_id(ot_rp_kind k);

/** \brief "repeated upload", "round trip", ... and the JSON ids "repeated_upload", ... */
const char *ot_report_finding_title(ot_rp_finding_kind k);
const char *ot_report_finding_id(ot_rp_finding_kind k);

/** \brief Time as "12.3 ms" / bytes as "1.5 MiB" into \p buf (returns buf). */
char *ot_report_time(uint64_t ns, char *buf, size_t size);
char *ot_report_bytes(uint64_t bytes, char *buf, size_t size);

/** \brief Effective bandwidth in GB/s (10^9 bytes per second), 0 when no time. */
double ot_report_gbps(uint64_t bytes, uint64_t ns);

/* ---- user regions and events (issue 14; report_user.c, docs/report.md "User regions") ---- */

/** A user region or user event: one row per region of the archive (a region's name with its call site). */
typedef struct ot_rp_user_row {
    char *name, *file;           /**< file "" when none (events have none) */
    uint32_t line;
    int event;                   /**< 0: a user region (class USER_REGION), 1: a user event (USER_EVENT) */
    uint64_t count;              /**< instances left (a recursive one inside itself counts too) */
    uint64_t counted;            /**< of those, the outermost of their row on their thread: what total is of */
    uint64_t total_ns;           /**< inclusive time of the counted instances */
    uint64_t min_ns, max_ns;     /**< over the counted instances */
    uint64_t offload_ns;         /**< of total: in construct instances (target, data, update, omp_target_*) */
    uint64_t transfer_ns;        /**< time of the transfers those constructs issued */
    uint64_t kernels;            /**< kernels those constructs launched */
    uint64_t open_at_end;        /**< instances never left (an event ended on no thread, a run cut short) */
    uint32_t threads;            /**< host threads it ran on */
    uint32_t *thread_list;       /**< their host thread numbers (report order of locations), `threads` of them */
} ot_rp_user_row;

/** A user value (an OTF2 metric of metric type USER, one per name): what was written, over all threads. */
typedef struct ot_rp_user_value {
    char *name;
    uint32_t metric;             /**< its metric ref in the archive */
    int type;                    /**< OTF2_TYPE_INT64, _UINT64 or _DOUBLE: how min, max and last are read */
    uint64_t count;
    union { int64_t i; uint64_t u; double d; } min, max, last; /**< in its type; last: the latest in time */
    double sum;                  /**< for the mean (as a double) */
} ot_rp_user_value;

/** \brief Row order of the user regions (\p event 0) or user events (1) by total time, ties by name.
 *  \return malloc'd array (caller frees), NULL if none. */
size_t *ot_report_user_order(const ot_report *r, int event, size_t *count);

/** \brief The user tables: text (only when the archive holds user regions or events) and the "user_regions"
 *  and "user_events" members of the JSON object (each followed by a comma; none when empty). */
void ot_report_print_user_text(const ot_report *r, const ot_rp_options *o, FILE *to);
void ot_report_print_user_json(const ot_report *r, const ot_rp_options *o, FILE *to);

/** \brief Free the user rows (ot_report_free calls it). */
void ot_report_user_free(ot_report *r);

/* ---- variables (issue 15; report_variables.c, docs/report.md "Variables") ---- */

/** Sites a variable row lists (more: more_sites). */
#define OT_RP_VARIABLE_SITES 8

/** A variable of the program: one row per expression as written, over every construct that maps it. */
typedef struct ot_rp_variable {
    char *name;                  /**< the expression as written (x[0:n]), or "unknown" */
    int unknown;                 /**< the row of the variables without a name */
    char *hint;                  /**< unknown: why (the archive's name problem), or NULL */
    uint64_t to_device_bytes, to_device;     /**< host->device bytes and transfers */
    uint64_t from_device_bytes, from_device; /**< device->host bytes and transfers */
    uint64_t allocations, deletions;         /**< its data ops that allocate / delete device memory */
    uint64_t implicit_bytes;     /**< of its bytes, those moved by implicit maps */
    int explicit_maps;           /**< some data op of it came from a map clause the program wrote */
    uint64_t implicit_transfers; /**< of its transfers, those of implicit maps */
    uint64_t implicit_ns;        /**< their time (completed ones) */
    uint64_t largest_transfer;   /**< bytes of its largest transfer */
    int32_t implicit_site;       /**< report site (r->sites) of its first implicit transfer + 1; 0 none */
    char *sites[OT_RP_VARIABLE_SITES]; /**< the constructs (file:line) that move it, first seen first */
    uint32_t site_count;
    int more_sites;              /**< more than OT_RP_VARIABLE_SITES */
} ot_rp_variable;

/** \brief Row order of the variables: by bytes moved (both ways), then named before unknown, then name.
 *  \return malloc'd array (caller frees), NULL if none. */
size_t *ot_report_variable_order(const ot_report *r, size_t *count);

/** \brief The "Variables" table: text (only when the archive holds a named data op) and the "variables"
 *  member of the JSON object (followed by a comma; none when empty). */
void ot_report_print_variables_text(const ot_report *r, const ot_rp_options *o, FILE *to);
void ot_report_print_variables_json(const ot_report *r, const ot_rp_options *o, FILE *to);

/** \brief Note variable row \p row (-1: none) with a transfer of \p bytes in \p n. */
void ot_report_named_add(ot_rp_named *n, int32_t row, uint64_t bytes);
/** \brief "x[0:n] (4.00 MiB)", "x[0:n] (4.00 MiB) and y[0:n] (4.00 MiB)", ... into \p out; \p none when
 *  \p n names no variable. \return out. */
const char *ot_report_named_text(const ot_report *r, const ot_rp_named *n, const char *none, char *out,
                                 size_t size);
/** \brief The JSON member "variables": [names] of \p n, after ", " (nothing when none). */
void ot_report_named_json(const ot_report *r, const ot_rp_named *n, FILE *to);

/** \brief Free the variable rows (ot_report_free calls it). */
void ot_report_variables_free(ot_report *r);

#endif /* OT_ANALYSIS_REPORT_H */

/**
 * \file report_state.h
 * \brief Internal: the state of one streaming pass of the report over an
 *        archive, shared by the visitor's parts (report_collect.c: host
 *        regions and instances; report_kernels.c: kernels; report_transfers.c:
 *        transfers and tiny-transfer streaks).
 *
 * All of it is sized by definitions: one rp_thread per host-thread
 * location, one site per region. The reader (trace_read.h) pairs regions
 * and transfers; what the report keeps with an open region instance (an
 * rp_span) or a transfer in flight (an rp_pending) is the reader's scratch
 * for it, so the report keeps no stack and matches nothing itself.
 */
#ifndef OT_ANALYSIS_REPORT_STATE_H
#define OT_ANALYSIS_REPORT_STATE_H

#include <stdint.h>

#include "report.h"
#include "report_history.h"
#include "report_index.h"
#include "trace_read.h"

/** One open construct instance on a host thread. */
typedef struct rp_frame {
    const ot_tr_region *region;
    int32_t site;
    uint64_t serial;           /* unique per instance */
    uint64_t enter;
    uint64_t kernel_ns, transfer_ns, alloc_ns;
    uint64_t launch_waiting_ns;  /* launches that ended and wait for their kernel on the device (issue 17):
                                    at its end, their launch spans count as its kernels' time */
    uint64_t busy_ns, busy_since;
    uint32_t active;           /* kernels and transfers of the instance now active */
    int device;                /* -1 until a kernel or transfer names it */
    int kernels;
    uint64_t streak;           /* tiny-transfer streak it took part in, 0 none */
} rp_frame;

/** A put/get waiting for its completion (the reader's scratch for it). */
typedef struct rp_pending {
    uint64_t serial;
    rp_range_key key;
    int has_key, direction;
    int32_t site, xsite;
    rp_credit credit;
    uint64_t streak;           /* tiny-transfer streak, 0 if not tiny */
} rp_pending;

/** Consecutive tiny transfers of one thread that one transfer could replace. */
typedef struct rp_streak {
    uint64_t id;               /* 0: none open */
    int32_t site;
    int direction, device;
    uint64_t transfers, ns, bytes;
    uint64_t instances, last_serial;
    uint64_t region_ns;        /* non-kernel time of the instances it spans (known at their end) */
} rp_streak;

typedef struct rp_thread {
    const ot_tr_location *loc;
    int instances;             /* construct instances open on it */
    rp_streak streak;
} rp_thread;

/** A kernel: its launch on a stream, or (a device whose kernel times are its own) its execution on a
 *  device queue, which takes over what its launch found. */
typedef struct rp_open_kernel {
    int32_t row, site;
    int thread;                /* -1 when no target instance claimed it */
    uint64_t serial;
    uint64_t op;               /* its launch's host operation, 0 none */
} rp_open_kernel;

/** A launch waiting for its device kernel (report_launches.c): found by (device, host operation). */
typedef struct rp_launch {
    uint64_t op;               /* 0: a free slot */
    int device;
    enum { RP_LAUNCH_OPEN, RP_LAUNCH_DONE, RP_LAUNCH_RUNNING } state; /* launch span open / ended / its
                                                                         device kernel began while it was open */
    uint64_t begin, end;       /* the launch span (end: once DONE) */
    rp_open_kernel kernel;
} rp_launch;

/** Launches in flight: bounded (RP_LAUNCHES), whatever the archive's size. */
#define RP_LAUNCHES 4096
typedef struct rp_launches {
    rp_launch *slots;          /* 2 * RP_LAUNCHES, open addressing */
    size_t live;
} rp_launches;

/** An open host OpenMP region (report_openmp.c): what its Leave needs. */
typedef struct rp_omp_span {
    int32_t site;              /* its omp site, -1 none */
    void *team;                /* parallel: the team it forked; implicit task: the team it belongs to */
    uint64_t team_serial;
    void *loop;                /* work (loop): its loop instance */
    uint64_t loop_serial;
    uint64_t wait_ns;          /* work: waiting inside it; mutex: its waiting part */
    uint64_t inner_ns;         /* task period, sync wait: task periods and waits nested in it */
    uint32_t saved_number, saved_size; /* implicit task: the thread's enclosing team, restored at its end */
    void *saved_team;
    uint64_t saved_team_serial;
} rp_omp_span;

/** An open user region or event (report_user.c). */
typedef struct rp_user_span {
    int32_t row;
    int outermost;             /* no instance of its row open below it on its thread */
    uint64_t offload_ns, transfer_ns, kernels;
} rp_user_span;

/** What the report keeps with an open region instance (the reader's scratch for it). */
typedef struct rp_span {
    enum { RP_SPAN_OTHER, RP_SPAN_INSTANCE, RP_SPAN_KERNEL, RP_SPAN_OMP, RP_SPAN_USER } kind;
    union {
        rp_frame instance;
        rp_open_kernel kernel;
        rp_omp_span omp;
        rp_user_span user;
    };
} rp_span;

/** A start-up candidate of one device (report_collect.c). */
typedef struct rp_startup {
    int seen;
    int32_t site;
    uint64_t serial, enter, host_ns, kernel_ns, transfer_ns, alloc_ns;
} rp_startup;

typedef struct rp_state {
    ot_report *r;
    const ot_tr_archive *archive;
    rp_thread *threads;
    size_t thread_count;
    int32_t *slot_of_location; /* location index -> thread number, -1 */
    int32_t *site_of_region;   /* region index -> site, -1 */
    size_t region_count;
    uint8_t *device_seen;      /* device number -> has a location */
    rp_launches launches;      /* launches of devices whose kernel times are their own, waiting for them */
    rp_startup (*startup)[2];  /* device number -> [first construct, first kernel-launching target] */
    rp_index kernel_rows, xsite_rows;
    rp_history *history;
    int32_t outside_site;      /* site of transfers outside constructs, -1 until one comes */
    uint64_t next_serial, next_streak;
    int threads_inside;        /* host threads with a construct open */
    uint64_t inside_since;
    int failed;                /* out of memory: the read stops */
    struct rp_omp *omp;        /* host OpenMP (report_openmp.c) */
    struct rp_user *user;      /* user regions and events (report_user.c) */
    struct rp_variables *variables; /* the variables table (report_variables.c) */
} rp_state;

/* report_collect.c */
/** \brief The site of a construct region, made on first use (-1 when out of memory). */
int32_t rp_site_of(rp_state *s, const ot_tr_region *region);
/** \brief The site for transfers outside every construct. */
int32_t rp_outside_site(rp_state *s);
/** \brief The innermost open instance of \p t, or NULL. */
rp_frame *rp_top_frame(const rp_state *s, const rp_thread *t);
/** \brief The open instance \p serial of \p t, or NULL when it has ended. */
rp_frame *rp_frame_by_serial(const rp_state *s, const rp_thread *t, uint64_t serial);
/** \brief Instance activity bookkeeping: a kernel or transfer of \p f starts / ends at \p t. */
void rp_frame_busy(rp_frame *f, uint64_t t);
void rp_frame_idle(rp_frame *f, uint64_t t);
/** \brief Note that \p f (of site \p site) worked with \p device. */
void rp_frame_device(rp_state *s, rp_frame *f, int device);
/** \brief Grow an array of rows by one; \return the new row's index or -1. */
int32_t rp_add_row(void **rows, size_t *count, size_t *cap, size_t size);
/** \brief The device's statistics row (NULL for a device without a location). */
ot_rp_device *rp_device(rp_state *s, int device);

/* report_kernels.c */
/** \brief Decide each device's kernel time (ot_rp_kernel_time) from the definitions. \return 0 or -ENOMEM. */
int rp_kernels_begin(rp_state *s, const ot_tr_archive *a);
/** \brief Whether \p device's kernel times are its own executions (its queue kernels, not its launches). */
int rp_kernels_on_device(const rp_state *s, int device);
/** \brief A kernel's launch (a stream's KERNEL region) or, on such a device, its execution (a queue's
 *  QUEUE_KERNEL region) enters / leaves. */
int rp_kernel_enter(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span);
int rp_kernel_leave(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span);
/** \brief After the read: launches whose device kernel never came keep their launch span. */
void rp_kernels_end(rp_state *s);
void rp_kernels_free(rp_state *s);

/* report_launches.c */
int rp_launches_init(rp_launches *t);
/** \brief The launch of host operation \p op on \p device, or NULL. */
rp_launch *rp_launch_find(rp_launches *t, int device, uint64_t op);
/** \brief A new entry for it (state OPEN), or NULL when RP_LAUNCHES are in flight (make room first). */
rp_launch *rp_launch_add(rp_launches *t, int device, uint64_t op);
/** \brief Forget \p l (a pointer rp_launch_find or _add gave, still valid). */
void rp_launch_remove(rp_launches *t, rp_launch *l);
/** \brief Hand every DONE entry to \p settle and forget it (room, or the end of the read). */
void rp_launches_settle(rp_launches *t, void (*settle)(void *user, const rp_launch *l), void *user);
void rp_launches_free(rp_launches *t);

/* report_transfers.c */
/** \brief A put/get is issued; \p x->data is its rp_pending. */
int rp_transfer(rp_state *s, const ot_tr_location *loc, const ot_tr_transfer *x);
/** \brief It completed (or never did). */
int rp_transfer_complete(rp_state *s, const ot_tr_location *loc, const ot_tr_transfer *x);
/** \brief End \p t's tiny-transfer streak (a kernel, another site or direction came between). */
void rp_streak_close(rp_state *s, rp_thread *t);
/** \brief An instance that took part in \p t's streak ended, after \p non_kernel_ns outside kernels. */
void rp_streak_instance_end(rp_thread *t, const rp_frame *f, uint64_t non_kernel_ns);

/* report_openmp.c: host OpenMP (issue 13) */
/** \brief Set up after the locations are known. \return 0 or -ENOMEM. */
int rp_omp_begin(rp_state *s);
/** \brief A host OpenMP region (reader class HOST_OPENMP) enters / leaves on host thread \p slot. */
int rp_omp_enter(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span);
int rp_omp_leave(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span);
/** \brief A kernel or transfer of \p device starts (\p starts 1) or ends (0) at \p t. */
void rp_omp_device_activity(rp_state *s, int device, uint64_t t, int starts);
/** \brief A `target` instance of \p site begins / ends on host thread \p slot (device: the one it used). */
void rp_omp_target_begin(rp_state *s, int32_t slot, int32_t site, uint64_t t);
void rp_omp_target_end(rp_state *s, int32_t slot, int32_t site, int device, uint64_t t);
/** \brief Finish what is open, derive the slow ranges; free the pass's state. */
void rp_omp_wrap_up(rp_state *s);
void rp_omp_free(rp_state *s);

/* report_user.c: user regions and events (issue 14) */
/** \brief Whether \p region is one the user tables count (catalogue class USER_REGION or USER_EVENT). */
int rp_user_counts(const ot_tr_region *region);
/** \brief A user region or event enters / leaves (also when unfinished) on host thread \p slot. */
int rp_user_enter(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span);
int rp_user_leave(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span);
/** \brief An outermost construct instance \p f of host thread \p slot ended after \p ns: the user regions
 *  open around it get its time, transfers and kernels. */
void rp_user_construct_end(rp_state *s, int32_t slot, const rp_frame *f, uint64_t ns);
/** \brief A user value was written. \return 0 or -ENOMEM. */
int rp_user_value(rp_state *s, const ot_tr_metric *metric, OTF2_MetricValue value);
void rp_user_free(rp_state *s);

/* report_variables.c: the variables table (issue 15) */
/** \brief A put/get of a named variable (its map attributes) is issued. \return 0 or -ENOMEM. */
int rp_variable_transfer(rp_state *s, const ot_tr_transfer *x);
/** \brief A data op (any class OT_TR_DATA_OP span) begins: its allocation or deletion is counted. */
int rp_variable_data_op(rp_state *s, const ot_tr_span *span);
/** \brief A put/get of an implicit map completed at construct site \p site: its time for the finding. */
void rp_variable_transfer_done(rp_state *s, const ot_tr_transfer *x, int32_t site);
/** \brief The row of \p m's variable (made on first use); -1 none (not named) or out of memory. */
int32_t rp_variable_row(rp_state *s, const ot_tr_map *m);
void rp_variables_free(rp_state *s);

#endif

/**
 * \file view_model.h
 * \brief What `offtrace view` draws, shared by the builder (view_build.c,
 *        view_bucket.c, view_rows.c) and the writers (view_svg*.c), and
 *        by the zoomable page's tiles (view_store.h), each a small picture.
 *        Everything here is sized by the picture: rows x levels x plot
 *        width, never by the number of events.
 */
#ifndef OT_ANALYSIS_VIEW_MODEL_H
#define OT_ANALYSIS_VIEW_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_read.h"
#include "view.h"

/* Sub-rows per location (ot_view.depth of them at most): depths
 * 0 .. depth-2 each get their own, the last shows the innermost region of
 * whatever is nested deeper (docs/view.md). */

/** Geometry of the picture's frame (px). */
#define OT_VIEW_LABEL_W 200u   /* row label column */
#define OT_VIEW_RIGHT_W 24u    /* margin right of the plot (room for the last tick label) */
#define OT_VIEW_AXIS_Y 50u     /* the time axis line; rows start below it */

/** Legend classes: what a region's colour says. */
typedef enum ot_view_cat {
    OT_VC_TARGET,          /* target construct on a host thread */
    OT_VC_TARGET_DATA,     /* target data span */
    OT_VC_DATA_CONSTRUCT,  /* target enter data / exit data / update */
    OT_VC_KERNEL,          /* kernel (stream or device queue) */
    OT_VC_H2D,             /* host->device data op, transfer, memcpy */
    OT_VC_D2H,             /* device->host */
    OT_VC_ALLOC,           /* device alloc / delete */
    OT_VC_API,             /* omp_target_* call */
    OT_VC_DEV_PARALLEL,    /* device teams / parallel / implicit task */
    OT_VC_DEV_LOOP,        /* device loop, distribute, single, sections */
    OT_VC_DEV_SYNC,        /* device barrier, taskwait, taskgroup */
    OT_VC_DEV_TASK,        /* device explicit task */
    OT_VC_HOST_PARALLEL,   /* host OpenMP parallel region, implicit task */
    OT_VC_HOST_LOOP,       /* host OpenMP loop, other worksharing */
    OT_VC_HOST_CHUNK,      /* host OpenMP loop chunk, section */
    OT_VC_HOST_SYNC,       /* host OpenMP barrier, taskwait, taskgroup */
    OT_VC_HOST_WAIT,       /* the waiting part of one */
    OT_VC_HOST_MASKED,     /* host OpenMP masked */
    OT_VC_HOST_TASK,       /* a period of a host explicit task */
    OT_VC_HOST_TASK_POINT, /* a task's creation, depend item, dependence edge (points) */
    OT_VC_HOST_MUTEX,      /* a lock, critical section, ordered held (acquire .. release) */
    OT_VC_HOST_MUTEX_WAIT, /* the waiting part of one */
    OT_VC_USER,            /* the program's own user regions and events (user API, issue 14) */
    OT_VC_MPI_P2P,         /* MPI point-to-point calls: sends, receives, waits and tests (issue 16) */
    OT_VC_MPI_COLLECTIVE,  /* MPI collectives */
    OT_VC_MPI_OTHER,       /* other MPI calls: MPI_Init, MPI_Finalize, communicators */
    OT_VC_MEASUREMENT,     /* offtrace's own marks (records lost, measurement off windows) */
    OT_VC_OTHER,
    OT_VC_COUNT
} ot_view_cat;

/** A region instance (or, on the last level, a piece of one between its
 *  nested regions) at least one pixel wide. */
typedef struct ot_view_bar {
    uint64_t a, b;          /**< drawn interval, clipped to the window (absolute ns) */
    uint64_t start, dur;    /**< the whole region instance, for the tooltip */
    uint64_t bytes;         /**< bytes moved by a data op / transfer, else 0 */
    uint64_t serial;        /**< the instance, to complete a piece's dur at its leave */
    uint32_t region;        /**< index into ot_view.region_names */
    int32_t parent;         /**< region of the enclosing instance, -1 if none */
    uint8_t cat;            /**< ot_view_cat */
    uint8_t has_iterations; /**< host OpenMP: 1 a loop's trip count, 2 also a chunk's first iteration;
                                 3 an explicit task's creation or period: iterations = its id, first_iteration =
                                 its ompt_task_flag_t flags */
    uint64_t iterations, first_iteration;
} ot_view_bar;

/** One pixel column of one sub-row: what smaller-than-a-pixel regions did there. */
typedef struct ot_view_cell {
    float ns[OT_VC_COUNT];  /**< time covered, by class */
    uint32_t count;         /**< regions that started in this column */
    uint8_t last_cat;       /**< class of the last one counted (for columns of zero-length regions) */
    uint64_t bytes;
} ot_view_cell;

typedef struct ot_view_level {
    ot_view_bar *bars;
    size_t nbars, capbars;
    ot_view_cell *cells;    /**< plot_w cells, allocated at the first small region */
} ot_view_level;

typedef struct ot_view_row {
    char *label;
    char *group;            /**< its location group's name ("generic-64bit device 0"), or "" */
    uint64_t location;      /**< OTF2 location id */
    ot_tr_location_class klass;
    int device;             /**< -1 for host threads; the device's key (trace_read.h) */
    uint32_t rank;          /**< its MPI rank (0 in one process) */
    int device_number;      /**< the device's number in its rank, -1 for host threads */
    int job;                /**< the archive has several ranks: groups are per rank */
    int levels;             /**< sub-rows in use (1 .. ot_view.depth) */
    ot_view_level level[OT_VIEW_MAX_DEPTH];
    unsigned y, height;     /**< set by ot_view_layout */
} ot_view_row;

/** Arrows of one flow are at least this far apart (px): transfers (or MPI
 *  messages) that start closer together share one arrow, which says how many
 *  it stands for. Any denser and arrows across the rows would hide them. */
#define OT_VIEW_ARROW_PX 6u

/** What an arrow stands for; its value is the third field of a tile's arrow (docs/architecture.md). */
typedef enum ot_view_arrow_kind {
    OT_VIEW_D2H = 0,        /**< gets: from the device's RDMA row (row b) to the host thread (row a) */
    OT_VIEW_H2D = 1,        /**< puts: from the host thread (row a) to the device's RDMA row (row b) */
    OT_VIEW_MESSAGE = 2,    /**< MPI messages: from the sender's row (a) at the send to the receiver's (b) at the
                                 receive (issue 16) */
} ot_view_arrow_kind;

/** Transfers that start in one arrow column of one host row, to one device, one way; or MPI messages sent in
 *  one arrow column from one row to another. */
typedef struct ot_view_arrow {
    uint32_t count;
    uint64_t bytes;
    uint64_t t0, t1;        /**< the first one's start and completion (a message: its send and its receive): where
                                 the arrow is drawn */
    uint64_t last;          /**< the last completion */
    uint64_t busy;          /**< summed durations (send to receive) */
} ot_view_arrow;

/** The arrows between two rows, of one kind. */
typedef struct ot_view_flow {
    size_t row_a, row_b;    /**< transfers: the host thread's row and the RDMA row; messages: sender's, receiver's */
    ot_view_arrow_kind kind;
    ot_view_arrow *cells;   /**< ot_view_arrow_columns of them */
} ot_view_flow;

struct ot_view {
    char *title;
    unsigned width, plot_w, height;
    int depth;                         /**< levels per row at most */
    unsigned rows_bottom, legend_y;    /**< set by ot_view_layout */
    uint64_t trace_start, trace_dur;   /**< the archive's clock range */
    uint64_t w0, w1;                   /**< the window drawn (absolute ns, w1 > w0) */
    double px_per_ns;
    ot_view_row *rows;
    size_t nrows;
    char **region_names;               /**< by OTF2 region id */
    char **region_sites;               /**< "file:line" or "", by OTF2 region id */
    uint8_t *region_cat;
    /** A data op region's variable and map type ("tofrom, implicit"), from its first Enter's map attributes
     *  (issue 15: the converter names one region per variable, type and site), NULL where none; by region id */
    char **region_variables, **region_map_types;
    size_t nregions;
    ot_view_flow *flows;
    size_t nflows;
    uint64_t events;                   /**< events read */
    uint64_t regions_drawn, regions_merged, transfers, transfers_undrawn;
    /** MPI messages (issue 16) drawn as arrows, and those left out: their send or their receive is not in
     *  the archive, or its row is not drawn */
    uint64_t messages, messages_undrawn;
    unsigned cats_used;                /**< bit per ot_view_cat drawn */
    /** Nonzero: a tile of the zoomable page's pyramid (view_tiles.c), one of
     *  several windows side by side. A region is a bar or merged by its whole
     *  width (so that it is the same in every tile it crosses), a bar keeps
     *  its whole extent, and a region or transfer is counted only in the
     *  window [w0, w1) where it starts (the last tile's w1 included). */
    int tile;
    int last_tile;                     /**< the tile ends the trace: w1 belongs to it */
};

/* ---- view_classes.c ---- */

/** \brief The legend class of a region. */
ot_view_cat ot_view_category(const ot_tr_region *r);
/** \brief Fill colour ("#rrggbb") and legend text of a class. */
const char *ot_view_cat_colour(ot_view_cat c);
const char *ot_view_cat_name(ot_view_cat c);
/** \brief Arrow colour by kind. */
const char *ot_view_arrow_colour(ot_view_arrow_kind kind);

/* ---- view_rows.c ---- */

/** \brief Rows for the archive's locations, in drawing order (host threads,
 *         then per device: streams, threads, queues, RDMA; then others).
 * \return 0, or -ENOMEM. */
int ot_view_make_rows(ot_view *v, const ot_tr_archive *a);
/** \brief Row of a location id, or -1. */
long ot_view_row_of(const ot_view *v, uint64_t location);
/** \brief The RDMA row of a device, or -1. */
long ot_view_rdma_row(const ot_view *v, int device);
/** \brief Whether row \p i is the first of its group (host threads, one device, other producers; in an MPI
 *  job per rank: its host threads, then its devices). */
int ot_view_row_starts_group(const ot_view *v, size_t i);

/** \brief The heading of \p r's group: "host", "device 0", "other locations"; in a job "MPI Rank 1",
 *  "rank 1 device 0". */
const char *ot_view_group_name(const ot_view_row *r, char *buf, size_t size);

/** \brief \p r's device in words: "device 0"; in a job "rank 1 device 0". */
const char *ot_view_device_name(const ot_view_row *r, char *buf, size_t size);
/** \brief Height of one level of a row (px): rows with one level are drawn taller. */
unsigned ot_view_level_height(const ot_view_row *r);
/** \brief Give each row its y and height; set rows_bottom, legend_y and height. */
void ot_view_layout(ot_view *v);

/* ---- view_bucket.c ---- */

/** What a region instance (or piece) is, for ot_view_put_region. */
typedef struct ot_view_piece {
    uint64_t start, dur, bytes, serial;
    uint32_t region;
    int32_t parent;         /**< region id of the enclosing instance on its location, -1 if none */
    uint8_t has_iterations; /**< host OpenMP: 1 a worksharing construct's count, 2 a chunk's (and its first),
                                 3 a task's id and flags (ot_view_bar) */
    uint64_t iterations, first_iteration;
} ot_view_piece;

/** \brief Draw [a, b] of a region on a sub-row: a bar if a pixel wide or
 *         more, else into the pixel columns' aggregate. \return 0 or -ENOMEM. */
int ot_view_put_region(ot_view *v, ot_view_row *row, int level, uint64_t a, uint64_t b, const ot_view_piece *p);
/** \brief Set the whole duration on the bars of instance \p serial at level \p level from index \p first on. */
void ot_view_finish_pieces(ot_view_row *row, int level, size_t first, uint64_t serial, uint64_t dur);
/** \brief An arrow of \p kind between rows \p row_a and \p row_b (ot_view_flow) that starts at t0 and ends at t1:
 *         a transfer issued at t0 and completed at t1, or a message sent at t0 and received at t1 (which may lie
 *         a little before t0: clocks across machines are aligned only so far, docs/mpi.md). \return 0 or -ENOMEM. */
int ot_view_put_arrow(ot_view *v, size_t row_a, size_t row_b, ot_view_arrow_kind kind, uint64_t t0, uint64_t t1,
                      uint64_t bytes);
/** Columns of merged small regions that make one mark: neighbours with the
 *  same leading class and the same coverage step (ot_view_next_mark). */
typedef struct ot_view_mark {
    size_t c0, c1;          /**< first and last column (inclusive) */
    int cat;                /**< the leading class (by time; the last counted where none has time) */
    int step;               /**< coverage of its columns, 0 .. 3: under 25 %, 50 %, 75 %, more */
    double ns[OT_VC_COUNT], busy; /**< time covered, by class and in all */
    uint64_t count, bytes;  /**< regions that started in it, bytes they moved */
} ot_view_mark;

/** \brief The next mark of a level's cells at or after column *c (advanced
 *         past it). \return 1 and *m, or 0 when there is none. */
int ot_view_next_mark(const ot_view *v, const ot_view_level *l, size_t *c, ot_view_mark *m);

/** \brief Number of arrow columns of a flow (plot_w / OT_VIEW_ARROW_PX, rounded up). */
size_t ot_view_arrow_columns(const ot_view *v);
/** \brief x in the plot (px from its left edge) of an absolute time; may lie outside 0 .. plot_w. */
double ot_view_x(const ot_view *v, uint64_t t);

/* ---- view_build.c ---- */

/** Where view_build.c's reader hands what it pairs: region pieces by row and
 *  level (ot_view_put_region's arguments), transfers and MPI messages, memory samples. */
typedef struct ot_view_sink {
    void *user;
    int (*piece)(void *user, size_t row, int level, uint64_t a, uint64_t b, const ot_view_piece *p);
    /** Pieces placed so far on a row's level (where an instance's pieces will start). */
    size_t (*pieces)(void *user, size_t row, int level);
    /** The instance \p serial ended: its whole duration on its pieces from index \p first on. */
    void (*finish)(void *user, size_t row, int level, size_t first, uint64_t serial, uint64_t dur);
    /** A transfer or an MPI message (ot_view_put_arrow's arguments). */
    int (*arrow)(void *user, size_t row_a, size_t row_b, ot_view_arrow_kind kind, uint64_t t0, uint64_t t1,
                 uint64_t bytes);
    /** Device memory in use on a row (NULL: not read). */
    int (*memory)(void *user, size_t row, uint64_t t, uint64_t bytes_in_use);
} ot_view_sink;

/** \brief Read the archive in \p dir into \p sink: \p v (zeroed but for
 *         width and plot_w) gets its rows, regions, depth and window from
 *         \p o. Negative returns as ot_view_build, with the message in \p err. */
int ot_view_read(const char *dir, ot_view *v, const ot_view_options *o, const ot_view_sink *sink, char *err,
                 size_t err_size);

/* ---- view_time.c ---- */

/** \brief A tick step of 1, 2 or 5 x 10^k ns that gives at most \p max_ticks ticks over \p span ns. */
uint64_t ot_view_tick_step(uint64_t span, unsigned max_ticks);
/** \brief Label of the tick at \p t ns from the trace start: in the unit of the
 *         axis's largest value \p max ("16.05 ms", not "16050 µs"), with the
 *         decimals \p step needs. */
void ot_view_format_tick(uint64_t t, uint64_t step, uint64_t max, char *buf, size_t size);

/** \brief The window drawn, "0 - 36.139 ms" or "20.000000 ms - 20.000100 ms" (with an en dash):
 *         precise enough to tell a narrow window's ends apart. */
void ot_view_format_window(const ot_view *v, char *buf, size_t size);
/** \brief A byte count: "512 bytes", "8.00 KiB", "1.25 MiB". */
void ot_view_format_bytes(uint64_t n, char *buf, size_t size);

/* ---- view_svg*.c ---- */

/** \brief Write \p s as XML text / attribute content (& < > " ' escaped, control bytes dropped). */
void ot_view_xml_text(FILE *f, const char *s);
/** \brief The frame: heading, time axis with grid, row labels, group headings. */
void ot_view_svg_frame(const ot_view *v, FILE *f);
/** \brief Height of the legend (px) for what \p v draws. */
unsigned ot_view_legend_height(const ot_view *v);
/** \brief The legend below the rows, starting at \p y. */
void ot_view_svg_legend(const ot_view *v, FILE *f, unsigned y);
/** \brief The plot's contents: merged marks, bars, then the arrows. */
void ot_view_svg_plot(const ot_view *v, FILE *f);
/** \brief The arrows: transfers and MPI messages. */
void ot_view_svg_arrows(const ot_view *v, FILE *f);
/** \brief An arrow from (x0,y0) to (x1,y1) as one path: the shaft and a filled head at (x1,y1). */
void ot_view_arrow_path(FILE *f, double x0, double y0, double x1, double y1);
/** \brief Level geometry of a row: top of level \p level and the height of a bar in it (px). */
double ot_view_level_y(const ot_view_row *r, int level);
double ot_view_bar_h(const ot_view_row *r);

#endif /* OT_ANALYSIS_VIEW_MODEL_H */

/**
 * \file view_store.h
 * \brief The archive as the zoomable page needs it, in memory (view_store.c
 *        builds it in one read; view_tiles.c buckets it tile by tile;
 *        view_json.c and view_page.c write it). Unlike the picture's
 *        ot_view, this grows with the events: a piece is 56 bytes (80 on a level where host
 *        OpenMP loops or chunks carry their iterations).
 */
#ifndef OT_ANALYSIS_VIEW_STORE_H
#define OT_ANALYSIS_VIEW_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "view_model.h"

/** A region instance, or on the last level a piece of one (ot_view_put_region's a, b and piece). */
typedef struct ot_view_item {
    uint64_t a, b;              /**< the piece (absolute ns) */
    uint64_t bytes, serial;
    uint32_t region;
    int32_t parent;
} ot_view_item;

/** The whole instance a last-level piece is of (above the last level, a piece is its whole instance). */
typedef struct ot_view_whole {
    uint64_t start, dur;
} ot_view_whole;

/** A host OpenMP loop's or chunk's iterations (ot_view_piece.has_iterations, iterations, first_iteration). */
typedef struct ot_view_iterations {
    uint64_t iterations, first;
    uint8_t has;
} ot_view_iterations;

/** The pieces of one level of one row; disjoint, sorted by a (hence by b). */
typedef struct ot_view_items {
    ot_view_item *at;
    ot_view_whole *whole;       /**< the last level's: one per piece; NULL above it */
    ot_view_iterations *iterations; /**< one per piece once a piece of the level has iterations (host
                                         OpenMP), else NULL: other rows pay nothing */
    size_t n, cap;
} ot_view_items;

typedef struct ot_view_xfer {
    uint64_t t0, t1, bytes;
} ot_view_xfer;

/** The transfers of one flow (host row, device, direction), or the MPI messages from one row to another
 *  (ot_view_flow), sorted by issue (send) time. */
typedef struct ot_view_xfers {
    size_t row_a, row_b;
    ot_view_arrow_kind kind;
    ot_view_xfer *at;
    size_t n, cap;
} ot_view_xfers;

typedef struct ot_view_sample {
    uint64_t t, value;
} ot_view_sample;

/** Device memory in use, as its location's samples in time order. */
typedef struct ot_view_counter {
    size_t row;
    int device;
    uint64_t max;
    ot_view_sample *at;
    size_t n, cap;
} ot_view_counter;

/** A computed tile, kept for serve mode (view_tiles.c). */
typedef struct ot_view_cached {
    unsigned k;
    uint64_t i;
    int used;                  /**< slot taken */
    int exact;
    char *json;                /**< NULL once evicted (exact stays known) */
    size_t length;
} ot_view_cached;

struct ot_view_trace {
    ot_view *frame;            /**< rows, regions, clock, depth; no bars (its window is the whole trace) */
    char *archive;             /**< the archive's absolute path */
    int has_from, has_to;      /**< the range the page opens at */
    uint64_t from_ns, to_ns;
    ot_view_items *items;      /**< nrows x OT_VIEW_MAX_DEPTH */
    ot_view_xfers *flows;
    size_t nflows;
    ot_view_counter *counters;
    size_t ncounters;
    uint64_t regions;          /**< region instances read */
    unsigned max_level;        /**< the first level whose columns are at most a nanosecond */
    ot_view_cached *cache;     /**< open addressing by (k, i) */
    size_t cache_cap, cache_used, cache_bytes;
};

/** \brief The pieces of row \p row, level \p level. */
static inline ot_view_items *ot_view_items_of(const ot_view_trace *t, size_t row, int level)
{
    return &t->items[row * OT_VIEW_MAX_DEPTH + (size_t)level];
}

/* ---- view_tiles.c ---- */

/** What one tile came to. */
typedef struct ot_view_tile_facts {
    int exact;                 /**< nothing merged: its children would hold the same */
    int content;               /**< a bar, mark, arrow or memory sample in it */
} ot_view_tile_facts;

/** \brief Bucket tile \p k / \p i and write its JSON (contract format) to \p f. \return 0 or -ENOMEM. */
int ot_view_write_tile(const ot_view_trace *t, unsigned k, uint64_t i, FILE *f, ot_view_tile_facts *facts);

/** \brief Time of tile column edge: trace-relative start of tile \p i of 2^\p k (i = 2^k: the duration). */
uint64_t ot_view_tile_edge(const ot_view_trace *t, unsigned k, uint64_t i);

/* ---- view_pyramid.c ---- */

/** A tile's JSON, as the page embeds it. */
typedef struct ot_view_tile_text {
    unsigned k;
    uint64_t i;
    int exact;
    char *json;
    size_t length;
} ot_view_tile_text;

/** The tiles a page embeds: whole levels 0 .. levels-1. */
typedef struct ot_view_tile_set {
    ot_view_tile_text *at;
    size_t n, cap;
    unsigned levels;
    int complete;              /**< no tile is missing: each is exact, on the deepest level, or has its children */
    uint64_t bytes;            /**< of the tiles' JSON, keys and commas included */
} ot_view_tile_set;

/** \brief The tiles of levels 0, 1, ... while their JSON stays within \p budget bytes (level 0 always).
 *  \return 0 or -ENOMEM. */
int ot_view_pyramid(const ot_view_trace *t, uint64_t budget, ot_view_tile_set *set);
void ot_view_tile_set_free(ot_view_tile_set *set);

/* ---- view_json.c ---- */

/** \brief \p s as a JSON string, quotes included: '<' escaped (the JSON sits in a script element),
 *         control bytes escaped, bytes that are not UTF-8 replaced by U+FFFD. */
void ot_view_json_string(FILE *f, const char *s);

/** \brief The page's data up to (not including) the tiles: `{"format": ... "tiles": {`. */
void ot_view_json_head(const ot_view_trace *t, int serve, int complete, FILE *f);

#endif /* OT_ANALYSIS_VIEW_STORE_H */

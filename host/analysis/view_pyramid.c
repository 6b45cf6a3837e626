/**
 * \file view_pyramid.c
 * \brief Which tiles exist, decided from the top: 0/0, then both children
 *        of every tile that exists, is not exact and is above the deepest
 *        level (view_tiles.c says what exact means). The page embeds whole
 *        levels while they fit its budget, leaving out tiles with nothing
 *        in them (ot_view_pyramid); serve mode computes any tile that exists
 *        when it is asked for, and keeps it (ot_view_tile_json).
 *
 * Whole levels rather than as many tiles as fit: the page then shows one
 * level of detail everywhere, and says where that is coarser than the
 * screen, instead of a trace detailed on the left and coarse on the right.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_store.h"

/* Cached tile JSON beyond this is dropped (whether a tile is exact is kept). */
#define CACHE_BYTES ((size_t)256 << 20)

/* ---- one tile's text ---- */

static int tile_text(const ot_view_trace *t, unsigned k, uint64_t i, ot_view_tile_text *out,
                     ot_view_tile_facts *facts)
{
    *out = (ot_view_tile_text){.k = k, .i = i};
    FILE *f = open_memstream(&out->json, &out->length);
    if (!f)
        return -ENOMEM;
    int rc = ot_view_write_tile(t, k, i, f, facts);
    if (fclose(f) != 0 && !rc)
        rc = -ENOMEM;
    if (rc) {
        free(out->json);
        out->json = NULL;
        return -ENOMEM;
    }
    out->exact = facts->exact;
    return 0;
}

/* "K/I": */
static uint64_t key_length(unsigned k, uint64_t i)
{
    char key[48];
    return (uint64_t)snprintf(key, sizeof key, "\"%u/%" PRIu64 "\":,", k, i);
}

/* ---- the page's levels ---- */

static int append(ot_view_tile_set *set, const ot_view_tile_text *tile)
{
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        ot_view_tile_text *at = realloc(set->at, cap * sizeof *at);
        if (!at)
            return -ENOMEM;
        set->at = at;
        set->cap = cap;
    }
    set->at[set->n++] = *tile;
    return 0;
}

static void drop_from(ot_view_tile_set *set, size_t first)
{
    while (set->n > first)
        free(set->at[--set->n].json);
}

int ot_view_pyramid(const ot_view_trace *t, uint64_t budget, ot_view_tile_set *set)
{
    memset(set, 0, sizeof *set);
    ot_view_tile_text tile;
    ot_view_tile_facts facts;
    if (tile_text(t, 0, 0, &tile, &facts) || append(set, &tile)) {
        free(tile.json);
        return -ENOMEM;
    }
    set->bytes = tile.length + key_length(0, 0);
    set->levels = 1;
    size_t parents = 0, parents_end = 1; /* the level above, in set->at */
    for (unsigned k = 1; k <= t->max_level; k++) {
        size_t first = set->n;
        uint64_t bytes = 0;
        for (size_t p = parents; p < parents_end; p++) {
            if (set->at[p].exact)
                continue;
            for (uint64_t i = 2 * set->at[p].i; i < 2 * set->at[p].i + 2; i++) {
                if (tile_text(t, k, i, &tile, &facts))
                    return -ENOMEM;
                if (!facts.content) {
                    free(tile.json);
                    continue;
                }
                bytes += tile.length + key_length(k, i);
                if (append(set, &tile)) {
                    free(tile.json);
                    return -ENOMEM;
                }
                if (set->bytes + bytes > budget) { /* this level does not fit: the page stops above it */
                    drop_from(set, first);
                    return 0;
                }
            }
        }
        if (set->n == first)
            break; /* every tile above was exact */
        set->bytes += bytes;
        set->levels = k + 1;
        parents = first;
        parents_end = set->n;
    }
    set->complete = 1;
    return 0;
}

void ot_view_tile_set_free(ot_view_tile_set *set)
{
    drop_from(set, 0);
    free(set->at);
    memset(set, 0, sizeof *set);
}

/* ---- serve mode: any tile, on demand ---- */

static size_t slot_of(const ot_view_trace *t, unsigned k, uint64_t i)
{
    uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)k * 0xc2b2ae3d27d4eb4full;
    size_t s = (size_t)(h ^ (h >> 29)) & (t->cache_cap - 1);
    while (t->cache[s].used && (t->cache[s].k != k || t->cache[s].i != i))
        s = (s + 1) & (t->cache_cap - 1);
    return s;
}

static int grow_cache(ot_view_trace *t)
{
    if (t->cache_cap && 2 * (t->cache_used + 1) <= t->cache_cap)
        return 0;
    size_t old_cap = t->cache_cap;
    ot_view_cached *old = t->cache;
    t->cache_cap = old_cap ? 2 * old_cap : 256;
    if (!(t->cache = calloc(t->cache_cap, sizeof *t->cache))) {
        t->cache = old;
        t->cache_cap = old_cap;
        return -ENOMEM;
    }
    for (size_t s = 0; s < old_cap; s++)
        if (old[s].used)
            t->cache[slot_of(t, old[s].k, old[s].i)] = old[s];
    free(old);
    return 0;
}

/* Room for \p length more bytes of JSON: past the limit, drop all that is kept. */
static void make_room(ot_view_trace *t, size_t length)
{
    if (t->cache_bytes + length <= CACHE_BYTES)
        return;
    for (size_t s = 0; s < t->cache_cap; s++) {
        free(t->cache[s].json);
        t->cache[s].json = NULL;
    }
    t->cache_bytes = 0;
}

/* The cached entry of an existing tile, computed if need be; NULL with *rc. */
static ot_view_cached *tile_entry(ot_view_trace *t, unsigned k, uint64_t i, int *rc)
{
    *rc = -ENOENT;
    if (k > t->max_level || k > 62 || i >= (uint64_t)1 << k)
        return NULL;
    if (k > 0) {
        ot_view_cached *parent = tile_entry(t, k - 1, i / 2, rc);
        if (!parent)
            return NULL;
        if (parent->exact) {
            *rc = -ENOENT;
            return NULL;
        }
    }
    if ((*rc = grow_cache(t)) != 0)
        return NULL;
    ot_view_cached *e = &t->cache[slot_of(t, k, i)];
    if (e->used && e->json)
        return e;
    ot_view_tile_text tile;
    ot_view_tile_facts facts;
    if ((*rc = tile_text(t, k, i, &tile, &facts)) != 0)
        return NULL;
    make_room(t, tile.length);
    if (!e->used)
        t->cache_used++;
    *e = (ot_view_cached){.k = k, .i = i, .used = 1, .exact = tile.exact, .json = tile.json, .length = tile.length};
    t->cache_bytes += tile.length;
    return e;
}

int ot_view_tile_json(ot_view_trace *t, unsigned k, uint64_t i, const char **json, size_t *length)
{
    int rc;
    ot_view_cached *e = tile_entry(t, k, i, &rc);
    if (!e)
        return rc;
    *json = e->json;
    *length = e->length;
    return 0;
}

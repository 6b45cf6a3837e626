/**
 * \file report_index.c
 * \brief Open addressing with linear probing; the table doubles at half
 *        load, so probes stay short.
 */
#include "report_index.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t cap)
{
    key ^= key >> 33; /* a 64-bit mix (murmur3's finaliser): keys are packed ids */
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

int32_t rp_index_get(const rp_index *ix, uint64_t key)
{
    if (!ix->cap)
        return -1;
    for (size_t i = slot_of(key, ix->cap);; i = (i + 1) & (ix->cap - 1)) {
        if (ix->rows[i] < 0)
            return -1;
        if (ix->keys[i] == key)
            return ix->rows[i];
    }
}

static void insert(uint64_t *keys, int32_t *rows, size_t cap, uint64_t key, int32_t row)
{
    size_t i = slot_of(key, cap);
    while (rows[i] >= 0 && keys[i] != key)
        i = (i + 1) & (cap - 1);
    keys[i] = key;
    rows[i] = row;
}

static int grow(rp_index *ix)
{
    size_t cap = ix->cap ? ix->cap * 2 : 64;
    uint64_t *keys = malloc(cap * sizeof *keys);
    int32_t *rows = malloc(cap * sizeof *rows);
    if (!keys || !rows) {
        free(keys);
        free(rows);
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        rows[i] = -1;
    for (size_t i = 0; i < ix->cap; i++)
        if (ix->rows[i] >= 0)
            insert(keys, rows, cap, ix->keys[i], ix->rows[i]);
    free(ix->keys);
    free(ix->rows);
    ix->keys = keys;
    ix->rows = rows;
    ix->cap = cap;
    return 0;
}

int rp_index_put(rp_index *ix, uint64_t key, int32_t row)
{
    if ((ix->used + 1) * 2 > ix->cap && grow(ix) != 0)
        return -1;
    if (rp_index_get(ix, key) < 0)
        ix->used++;
    insert(ix->keys, ix->rows, ix->cap, key, row);
    return 0;
}

void rp_index_free(rp_index *ix)
{
    free(ix->keys);
    free(ix->rows);
    *ix = (rp_index){0};
}

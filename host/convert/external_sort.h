/**
 * \file external_sort.h
 * \brief Sort any number of fixed-size items in bounded memory: items are
 *        added in any order and read back sorted.
 *
 * Up to OT_ES_MEMORY_ITEMS items are sorted in memory. Past that, sorted
 * runs go to a scratch file (spill_file.h) by replacement selection: an
 * item goes out as soon as it is the smallest of the last
 * OT_ES_MEMORY_ITEMS, so input that is in order up to that much disorder
 * (the conversion's device events, one host thread after another) makes one
 * run per stretch of order, and the runs are merged when read. Memory: the
 * in-memory items, a write buffer, and a small read buffer per run.
 */
#ifndef OT_CONVERT_EXTERNAL_SORT_H
#define OT_CONVERT_EXTERNAL_SORT_H

#include <stddef.h>
#include <stdint.h>

/** Items kept in memory; past them the sort goes to disk. */
#define OT_ES_MEMORY_ITEMS 8192u

/** A total order on items: negative, zero or positive like strcmp. */
typedef int (*ot_es_compare)(const void *a, const void *b);

typedef struct ot_external_sort ot_external_sort;

/**
 * \brief An empty sort of items of \p item_size bytes.
 * \param dir where the scratch file goes if one is needed.
 * \return NULL on ENOMEM.
 */
ot_external_sort *ot_es_new(const char *dir, size_t item_size, ot_es_compare compare);

/** \brief Add an item (before ot_es_finish). \return 0 or a negative errno. */
int ot_es_add(ot_external_sort *s, const void *item);

/**
 * \brief Add an item with its key: a 64-bit summary of the item that
 *        orders what it tells apart (key(a) < key(b) only where
 *        compare(a, b) < 0: its first field, say), so that most
 *        comparisons are of two integers; compare decides between equal
 *        keys. The order is compare's either way, ties included. A sort
 *        takes its items all keyed or all through ot_es_add (key 0).
 * \return 0 or a negative errno.
 */
int ot_es_add_keyed(ot_external_sort *s, const void *item, uint64_t key);

/** \brief Items added. */
uint64_t ot_es_count(const ot_external_sort *s);

/** \brief No more items: start reading them in order. \return 0 or a negative errno. */
int ot_es_finish(ot_external_sort *s);

/**
 * \brief The next item in order, valid until the next call; NULL at the end
 *        (or on a read error, which ot_es_error then tells).
 */
const void *ot_es_next(ot_external_sort *s);

/** \brief 0, or the negative errno that ended reading or writing early. */
int ot_es_error(const ot_external_sort *s);

/** \brief Free (NULL is fine). */
void ot_es_free(ot_external_sort *s);

#endif

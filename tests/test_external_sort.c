/* Sorting in bounded memory: whatever the order items come in, they come
 * back sorted and none is lost, in memory or through the scratch file. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "external_sort.h"

typedef struct item { uint64_t key, seq; } item;

static int by_key(const void *a, const void *b)
{
    const item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *scratch(void)
{
    mkdir(OFFTRACE_TEST_SCRATCH, 0755);
    return OFFTRACE_TEST_SCRATCH;
}

typedef uint64_t (*key_of)(uint64_t i, uint64_t n);

/* How items are added: plain, or with a sort key (ot_es_add_keyed) that is
 * the item's key or only its top bits (equal sort keys: compare decides). */
enum adding { PLAIN, KEYED_EXACT, KEYED_COARSE };

/* Add n items keyed by \p key, read them back: in order, all of them (same
 * sum of keys and of sequence numbers). */
static void sort_and_check_adding(uint64_t n, key_of key, enum adding adding)
{
    ot_external_sort *s = ot_es_new(scratch(), sizeof(item), by_key);
    cr_assert_not_null(s);
    uint64_t key_sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        item it = {key(i, n), i};
        key_sum += it.key;
        int rc = adding == PLAIN         ? ot_es_add(s, &it)
                 : adding == KEYED_EXACT ? ot_es_add_keyed(s, &it, it.key)
                                         : ot_es_add_keyed(s, &it, it.key >> 4);
        cr_assert_eq(rc, 0);
    }
    cr_assert_eq(ot_es_count(s), n);
    cr_assert_eq(ot_es_finish(s), 0);
    item last = {0, 0};
    uint64_t got = 0, got_key_sum = 0, seq_sum = 0;
    for (const item *it; (it = ot_es_next(s)); got++) {
        cr_assert(got == 0 || by_key(&last, it) < 0, "item %llu out of order", (unsigned long long)got);
        last = *it;
        got_key_sum += it->key;
        seq_sum += it->seq;
    }
    cr_assert_eq(ot_es_error(s), 0);
    cr_assert_eq(got, n);
    cr_assert_eq(got_key_sum, key_sum);
    cr_assert_eq(seq_sum, n * (n - 1) / 2);
    ot_es_free(s);
}

static void sort_and_check(uint64_t n, key_of key)
{
    sort_and_check_adding(n, key, PLAIN);
}

static uint64_t ascending(uint64_t i, uint64_t n) { return i * 3; }
static uint64_t descending(uint64_t i, uint64_t n) { return (n - i) * 3; }
static uint64_t random_key(uint64_t i, uint64_t n) { return (i * 0x9E3779B97F4A7C15ull) >> 20; }
static uint64_t few_keys(uint64_t i, uint64_t n) { return i % 7; }
/* Eight host threads one after another, each nearly in order. */
static uint64_t threads_in_turn(uint64_t i, uint64_t n) { return (i % (n / 8)) * 10 + (i * 7919) % 13; }

Test(external_sort, in_memory)
{
    sort_and_check(OT_ES_MEMORY_ITEMS, random_key);
    sort_and_check(1, ascending);
}

Test(external_sort, any_order_through_the_scratch_file)
{
    uint64_t n = 12 * OT_ES_MEMORY_ITEMS + 5;
    sort_and_check(n, ascending);
    sort_and_check(n, descending); /* every run only as long as the memory */
    sort_and_check(n, random_key);
    sort_and_check(n, few_keys);
    sort_and_check(8 * (n / 8), threads_in_turn);
}

/* Sort keys order the integers they tell apart, compare the rest: the
 * same order as without them, in memory and through the scratch file. */
Test(external_sort, keyed)
{
    key_of keys[] = {ascending, descending, random_key, few_keys, threads_in_turn};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        for (enum adding a = KEYED_EXACT; a <= KEYED_COARSE; a++) {
            sort_and_check_adding(OT_ES_MEMORY_ITEMS / 2, keys[k], a);
            sort_and_check_adding(8 * (5 * OT_ES_MEMORY_ITEMS / 8) + 8, keys[k], a);
        }
}

Test(external_sort, nothing_added)
{
    ot_external_sort *s = ot_es_new(scratch(), sizeof(item), by_key);
    cr_assert_eq(ot_es_finish(s), 0);
    cr_assert_null(ot_es_next(s));
    ot_es_free(s);
    ot_es_free(NULL);
}

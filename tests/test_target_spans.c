/* Host time span of every target region, by the id the host gave it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sys/stat.h>

#include "target_spans.h"

/* The table's scratch file goes in the build's test directory. */
static const char *scratch(void)
{
    mkdir(OFFTRACE_TEST_SCRATCH, 0755);
    return OFFTRACE_TEST_SCRATCH;
}

/* Target ids as the host makes them: the host thread in the high bits, a
 * per-thread counter (from 1) in the low ones. */
#define THREADS 8
#define PER_THREAD 12500 /* 100000 ids in all */

static uint64_t id_of(uint64_t thread, uint64_t counter)
{
    return thread << 40 | counter;
}

static uint64_t begin_of(uint64_t id)
{
    return 1000000000ull + (id >> 40) * 7 + (id & 0xffffffffff) * 1000;
}

Test(target_spans, many_ids_put_and_get)
{
    ot_target_spans *t = ot_target_spans_new(scratch());
    cr_assert_not_null(t);
    /* Interleaved as several host threads would make them. */
    for (uint64_t c = 1; c <= PER_THREAD; c++)
        for (uint64_t th = 0; th < THREADS; th++) {
            uint64_t id = id_of(th, c);
            cr_assert_eq(ot_target_spans_put(t, id, begin_of(id), begin_of(id) + 500 + th), 0);
        }
    for (uint64_t th = 0; th < THREADS; th++)
        for (uint64_t c = 1; c <= PER_THREAD; c++) {
            uint64_t id = id_of(th, c), b = 0, e = 0;
            cr_assert_eq(ot_target_spans_get(t, id, &b, &e), 0, "id %#llx missing", (unsigned long long)id);
            cr_assert_eq(b, begin_of(id), "id %#llx", (unsigned long long)id);
            cr_assert_eq(e, begin_of(id) + 500 + th, "id %#llx", (unsigned long long)id);
        }
    /* Ids next to the stored ones are not there. */
    uint64_t b = 1, e = 2;
    cr_assert_eq(ot_target_spans_get(t, id_of(0, PER_THREAD + 1), &b, &e), -ENOENT);
    cr_assert_eq(ot_target_spans_get(t, id_of(THREADS, 1), &b, &e), -ENOENT);
    cr_assert_eq(ot_target_spans_get(t, id_of(3, 1) | 1ull << 39, &b, &e), -ENOENT);
    cr_assert(b == 1 && e == 2, "a miss must leave the outputs alone");
    ot_target_spans_free(t);
}

Test(target_spans, put_again_overwrites)
{
    ot_target_spans *t = ot_target_spans_new(scratch());
    uint64_t id = id_of(2, 17), b, e;
    cr_assert_eq(ot_target_spans_put(t, id, 100, 200), 0);
    cr_assert_eq(ot_target_spans_put(t, id, 300, 450), 0);
    cr_assert_eq(ot_target_spans_get(t, id, &b, &e), 0);
    cr_assert_eq(b, 300);
    cr_assert_eq(e, 450);
    /* Overwriting many times does not fill the table: the others stay. */
    for (uint64_t c = 1; c <= 3000; c++)
        cr_assert_eq(ot_target_spans_put(t, id_of(1, c), c, c + 1), 0);
    for (int round = 0; round < 5; round++)
        for (uint64_t c = 1; c <= 3000; c++)
            cr_assert_eq(ot_target_spans_put(t, id_of(1, c), c * 10 + round, c * 10 + round + 1), 0);
    for (uint64_t c = 1; c <= 3000; c++) {
        cr_assert_eq(ot_target_spans_get(t, id_of(1, c), &b, &e), 0);
        cr_assert_eq(b, c * 10 + 4);
        cr_assert_eq(e, c * 10 + 5);
    }
    cr_assert_eq(ot_target_spans_get(t, id, &b, &e), 0);
    cr_assert_eq(b, 300);
    ot_target_spans_free(t);
}

Test(target_spans, missing_id_is_enoent)
{
    ot_target_spans *t = ot_target_spans_new(scratch());
    uint64_t b = 5, e = 6;
    cr_assert_eq(ot_target_spans_get(t, id_of(0, 1), &b, &e), -ENOENT, "empty table");
    cr_assert_eq(ot_target_spans_put(t, id_of(0, 1), 10, 20), 0);
    cr_assert_eq(ot_target_spans_get(t, id_of(0, 2), &b, &e), -ENOENT);
    cr_assert_eq(ot_target_spans_get(t, id_of(1, 1), &b, &e), -ENOENT);
    cr_assert(b == 5 && e == 6);
    ot_target_spans_free(t);
    ot_target_spans_free(NULL);
}

Test(target_spans, id_zero_is_ignored)
{
    ot_target_spans *t = ot_target_spans_new(scratch());
    uint64_t b = 5, e = 6;
    cr_assert_eq(ot_target_spans_put(t, 0, 10, 20), 0);
    cr_assert_eq(ot_target_spans_get(t, 0, &b, &e), -ENOENT);
    cr_assert_eq(ot_target_spans_put(t, id_of(0, 1), 30, 40), 0);
    cr_assert_eq(ot_target_spans_put(t, 0, 50, 60), 0);
    cr_assert_eq(ot_target_spans_get(t, 0, &b, &e), -ENOENT);
    cr_assert(b == 5 && e == 6);
    cr_assert_eq(ot_target_spans_get(t, id_of(0, 1), &b, &e), 0);
    cr_assert(b == 30 && e == 40, "id 0 must not disturb id 1");
    ot_target_spans_free(t);
}

/* More host threads at once than blocks being filled (the oldest goes to
 * disk early), blocks read back in any order, and ids out of order (kept
 * in memory) among them. */
Test(target_spans, many_threads_and_ids_out_of_order)
{
    enum { MANY = 3 * OT_SPANS_OPEN_BLOCKS, EACH = 2 * OT_SPANS_BLOCK + 7 };
    ot_target_spans *t = ot_target_spans_new(scratch());
    cr_assert_not_null(t);
    for (uint64_t c = 1; c <= EACH; c++)
        for (uint64_t th = 0; th < MANY; th++)
            if (c % 5) /* every fifth id comes later, out of order */
                cr_assert_eq(ot_target_spans_put(t, id_of(th + 1, c), c * 3, c * 3 + th), 0);
    for (uint64_t c = 5; c <= EACH; c += 5)
        cr_assert_eq(ot_target_spans_put(t, id_of(7, c), c * 3, c * 3 + 6), 0);
    for (uint64_t round = 0; round < 2; round++) /* the second round reads blocks from disk again */
        for (uint64_t th = MANY; th-- > 0;)
            for (uint64_t c = EACH; c >= 1; c--) {
                uint64_t b = 0, e = 0;
                int rc = ot_target_spans_get(t, id_of(th + 1, c), &b, &e);
                if (c % 5 == 0 && th != 6) {
                    cr_assert_eq(rc, -ENOENT, "thread %llu id %llu", (unsigned long long)th, (unsigned long long)c);
                    continue;
                }
                cr_assert_eq(rc, 0, "thread %llu id %llu", (unsigned long long)th, (unsigned long long)c);
                cr_assert_eq(b, c * 3);
                cr_assert_eq(e, c * 3 + th);
            }
    ot_target_spans_free(t);
}

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

/* Look-ups as the device pass makes them (the same id again, the next,
 * one further on, a jump back, another thread's, a gap), with puts between
 * them, each checked against what was put last: the place the last
 * look-up found its span must never answer for another (eleventh round). */
Test(target_spans, lookups_near_the_last_and_puts_between)
{
    enum { EACH = 3 * OT_SPANS_BLOCK + 100 }; /* blocks on disk and one still being filled */
    static uint64_t begin[3][EACH + 2], end[3][EACH + 2]; /* [thread][counter], 0: none */
    ot_target_spans *t = ot_target_spans_new(scratch());
    cr_assert_not_null(t);
    for (uint64_t c = 1; c <= EACH; c++)
        for (uint64_t th = 1; th <= 2; th++)
            if (c % 97) { /* gaps inside the blocks */
                begin[th][c] = c * 1000 + th;
                end[th][c] = begin[th][c] + 500;
                cr_assert_eq(ot_target_spans_put(t, id_of(th, c), begin[th][c], end[th][c]), 0);
            }
    uint64_t seed = 12345;
    for (int i = 0; i < 200000; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = seed >> 33;
        static uint64_t th = 1, c = 1;
        switch (r % 16) {
        case 0: case 1: case 2: case 3: case 4: case 5: break;  /* the same again */
        case 6: case 7: case 8: case 9: c = c < EACH ? c + 1 : 1; break;
        case 10: c = c + 3 <= EACH ? c + 3 : 1; break;
        case 11: c = c > 40 ? c - 40 : EACH; break;
        case 12: th = 3 - th; break;
        case 13: c = 1 + (r >> 8) % EACH; break;
        case 14: /* a region put again (out of order): it wins from now on */
            if (begin[th][c]) {
                begin[th][c] += 7;
                end[th][c] += 11;
                cr_assert_eq(ot_target_spans_put(t, id_of(th, c), begin[th][c], end[th][c]), 0);
            }
            break;
        case 15: /* a region of a new thread: blocks change */
            cr_assert_eq(ot_target_spans_put(t, id_of(4, (uint64_t)i + 1), 1, 2), 0);
            break;
        }
        uint64_t b = 0, e = 0;
        int rc = ot_target_spans_get(t, id_of(th, c), &b, &e);
        if (!begin[th][c]) {
            cr_assert_eq(rc, -ENOENT, "look-up %d: thread %llu id %llu", i, (unsigned long long)th,
                         (unsigned long long)c);
            continue;
        }
        cr_assert_eq(rc, 0, "look-up %d: thread %llu id %llu", i, (unsigned long long)th, (unsigned long long)c);
        cr_assert(b == begin[th][c] && e == end[th][c], "look-up %d: thread %llu id %llu: %llu..%llu", i,
                  (unsigned long long)th, (unsigned long long)c, (unsigned long long)b, (unsigned long long)e);
    }
    ot_target_spans_free(t);
}

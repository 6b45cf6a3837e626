/* One device thread's record buffer: one lock-free writer, one reader that
 * drains what is published and frees the blocks the writer has left. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

#include "thread_buffer.h"

#define BIG_BUDGET (64u << 20)

static void fill(offtrace_device_record *r, uint64_t i)
{
    memset(r, 0, sizeof *r);
    r->time = 1000000000000ull + 3 * i;
    r->target_id = (7ull << 40) | (i / 10 + 1);
    r->op_id = i * 11 + 1;
    r->codeptr = 0x400000 + (i & 0xffff);
    r->value = i;
    r->thread = (uint32_t)(i % 5);
    r->kind = (uint8_t)(i % 7 + 1);
    r->subkind = (uint8_t)(i % 3);
    r->endpoint = (uint8_t)(i % 2 ? OFFTRACE_DEVICE_END : OFFTRACE_DEVICE_BEGIN);
    r->flags = (uint8_t)(i % 2);
}

/* Append record number i; false when the buffer dropped it. */
static int write_one(ot_thread_buffer *b, uint64_t i)
{
    offtrace_device_record *slot = ot_thread_buffer_slot(b);
    if (!slot)
        return 0;
    fill(slot, i);
    ot_thread_buffer_publish(b);
    return 1;
}

/* The reader's side: every record must be the next one expected, whole. */
typedef struct {
    uint64_t next;
    uint64_t calls;
    int full_check;
} expect;

static void check_sink(void *context, const offtrace_device_record *records, size_t count)
{
    expect *e = context;
    e->calls++;
    for (size_t k = 0; k < count; k++, e->next++) {
        cr_assert_eq(records[k].value, e->next, "record %llu delivered where %llu was due",
                     (unsigned long long)records[k].value, (unsigned long long)e->next);
        if (e->full_check) {
            offtrace_device_record want;
            fill(&want, e->next);
            cr_assert_eq(memcmp(&records[k], &want, sizeof want), 0, "record %llu differs",
                         (unsigned long long)e->next);
        }
    }
}

Test(thread_buffer, block_is_64_kib)
{
    cr_assert_eq(sizeof(ot_block), 65536);
    cr_assert_gt(OT_BLOCK_RECORDS, 1000);
}

Test(thread_buffer, one_thread_over_several_blocks)
{
    const uint64_t n = 5000;
    cr_assert_gt(n, 3 * OT_BLOCK_RECORDS, "the test must span several blocks");
    ot_thread_buffer b;
    cr_assert_eq(ot_thread_buffer_init(&b, BIG_BUDGET), 0);
    for (uint64_t i = 0; i < n; i++)
        cr_assert(write_one(&b, i), "record %llu dropped", (unsigned long long)i);
    cr_assert_eq(b.blocks_held, (n + OT_BLOCK_RECORDS - 1) / OT_BLOCK_RECORDS);

    expect e = {.full_check = 1};
    size_t delivered = 0;
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), 0, "nothing lost");
    cr_assert_eq(delivered, n);
    cr_assert_eq(e.next, n);
    cr_assert_eq(b.blocks_held, 1, "blocks behind the writer freed");

    /* Nothing new: nothing delivered. Then more records carry on in order. */
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), 0);
    cr_assert_eq(delivered, n);
    for (uint64_t i = n; i < n + 100; i++)
        cr_assert(write_one(&b, i));
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), 0);
    cr_assert_eq(delivered, n + 100);
    cr_assert_eq(e.next, n + 100);
    ot_thread_buffer_destroy(&b);
}

Test(thread_buffer, budget_below_two_blocks_is_raised_to_two)
{
    /* One block could never be freed while the writer sits on it, so the
     * smallest buffer has two; what does not fit is counted as lost. */
    ot_thread_buffer b;
    cr_assert_eq(ot_thread_buffer_init(&b, 64 * 1024), 0);
    cr_assert_eq(b.max_blocks, 2);
    uint64_t written = 0;
    for (uint64_t i = 0; i < 3 * OT_BLOCK_RECORDS; i++)
        written += (uint64_t)write_one(&b, i);
    cr_assert_eq(written, 2 * OT_BLOCK_RECORDS);
    cr_assert_eq(b.blocks_held, 2);

    expect e = {.full_check = 1};
    size_t delivered = 0;
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), OT_BLOCK_RECORDS, "lost count");
    cr_assert_eq(delivered, 2 * OT_BLOCK_RECORDS, "the first two blocks' records kept");
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), 0, "lost reset by the drain");
    cr_assert_eq(delivered, 2 * OT_BLOCK_RECORDS);
    ot_thread_buffer_destroy(&b);
}

Test(thread_buffer, writer_can_write_again_after_a_drain)
{
    /* The smallest budget: the writer fills it and loses the rest; once the
     * reader has drained everything, the writer must be able to store again. */
    ot_thread_buffer b;
    cr_assert_eq(ot_thread_buffer_init(&b, 64 * 1024), 0);
    for (uint64_t i = 0; i < 3 * OT_BLOCK_RECORDS; i++)
        write_one(&b, i);
    expect e = {.full_check = 0};
    size_t delivered = 0;
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), OT_BLOCK_RECORDS);
    cr_assert_eq(delivered, 2 * OT_BLOCK_RECORDS);

    e.next = 1000000;
    int stored = write_one(&b, 1000000);
    uint64_t lost = ot_thread_buffer_drain(&b, check_sink, &e, &delivered);
    cr_assert(stored, "record written after a full drain was dropped (blocks_held %u, max_blocks %u)",
              b.blocks_held, b.max_blocks);
    cr_assert_eq(lost, 0);
    cr_assert_eq(delivered, 2 * OT_BLOCK_RECORDS + 1);
    ot_thread_buffer_destroy(&b);
}

Test(thread_buffer, writer_can_write_again_after_a_drain_with_two_blocks)
{
    /* The same with a budget of two blocks, where the reader keeps the full
     * block the writer is still on and the writer chains the second. */
    ot_thread_buffer b;
    cr_assert_eq(ot_thread_buffer_init(&b, 2 * 64 * 1024), 0);
    cr_assert_eq(b.max_blocks, 2);
    uint64_t written = 0;
    for (uint64_t i = 0; i < 3 * OT_BLOCK_RECORDS; i++)
        written += (uint64_t)write_one(&b, i);
    cr_assert_eq(written, 2 * OT_BLOCK_RECORDS);
    expect e = {.full_check = 1};
    size_t delivered = 0;
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), OT_BLOCK_RECORDS);
    cr_assert_eq(delivered, 2 * OT_BLOCK_RECORDS);
    cr_assert_eq(b.blocks_held, 1);

    e.next = 2 * OT_BLOCK_RECORDS;
    for (uint64_t i = 0; i < OT_BLOCK_RECORDS; i++)
        cr_assert(write_one(&b, e.next + i), "record %llu after the drain dropped", (unsigned long long)i);
    cr_assert_eq(ot_thread_buffer_drain(&b, check_sink, &e, &delivered), 0);
    cr_assert_eq(delivered, 3 * OT_BLOCK_RECORDS);
    ot_thread_buffer_destroy(&b);
}

/* Concurrency: one writer thread, the test's thread draining meanwhile. */
#define CONCURRENT_RECORDS 200000u

typedef struct {
    ot_thread_buffer *buffer;
    uint64_t dropped;
    int done;
} writer_args;

static void *writer(void *arg)
{
    writer_args *w = arg;
    for (uint64_t i = 0; i < CONCURRENT_RECORDS; i++)
        if (!write_one(w->buffer, i))
            w->dropped++;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

Test(thread_buffer, one_writer_while_the_reader_drains)
{
    ot_thread_buffer b;
    cr_assert_eq(ot_thread_buffer_init(&b, BIG_BUDGET), 0);
    writer_args w = {.buffer = &b};
    expect e = {.full_check = 1};
    size_t delivered = 0;
    uint64_t lost = 0, drains = 0;

    pthread_t thread;
    cr_assert_eq(pthread_create(&thread, NULL, writer, &w), 0);
    while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
        lost += ot_thread_buffer_drain(&b, check_sink, &e, &delivered);
        drains++;
    }
    cr_assert_eq(pthread_join(thread, NULL), 0);
    lost += ot_thread_buffer_drain(&b, check_sink, &e, &delivered);

    cr_assert_eq(w.dropped, 0);
    cr_assert_eq(lost, 0);
    cr_assert_eq(delivered, CONCURRENT_RECORDS);
    cr_assert_eq(e.next, CONCURRENT_RECORDS, "every record exactly once, in order");
    cr_assert_eq(b.blocks_held, 1);
    cr_log_info("%llu drains, %llu sink calls", (unsigned long long)drains, (unsigned long long)e.calls);
    ot_thread_buffer_destroy(&b);
}

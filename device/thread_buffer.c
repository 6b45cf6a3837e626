#include "thread_buffer.h"

#include <errno.h>
#include <stdlib.h>

static ot_block *new_block(void)
{
    ot_block *b = malloc(sizeof *b);
    if (b) {
        b->next = NULL;
        b->count = 0;
    }
    return b;
}

int ot_thread_buffer_init(ot_thread_buffer *b, size_t budget_bytes)
{
    b->tail = b->head = new_block();
    if (!b->tail)
        return -ENOMEM;
    b->lost = 0;
    b->blocks_held = 1;
    /* Two blocks at least: the block being written can only be freed once
     * the writer has moved on, so with one the writer could never store
     * again after it first filled. */
    size_t blocks = budget_bytes / sizeof(ot_block);
    b->max_blocks = blocks < 2 ? 2 : blocks > UINT32_MAX ? UINT32_MAX : (uint32_t)blocks;
    b->read_index = 0;
    return 0;
}

/* Slow path: the tail block is full. Chaining is bounded by the budget, so a
 * thread whose records are never flushed cannot eat the machine's memory. */
offtrace_device_record *ot_thread_buffer_slot_slow(ot_thread_buffer *b)
{
    ot_block *fresh = NULL;
    if (__atomic_load_n(&b->blocks_held, __ATOMIC_RELAXED) < b->max_blocks)
        fresh = new_block();
    if (!fresh) {
        __atomic_fetch_add(&b->lost, 1, __ATOMIC_RELAXED);
        return NULL;
    }
    __atomic_fetch_add(&b->blocks_held, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&b->tail->next, fresh, __ATOMIC_RELEASE);
    b->tail = fresh;
    return &fresh->records[0];
}

uint64_t ot_thread_buffer_drain(ot_thread_buffer *b, ot_thread_buffer_sink sink, void *context,
                                size_t *delivered)
{
    for (;;) {
        ot_block *h = b->head;
        /* Read next before count: once next is set the writer has left h for
         * good, so the count read after it is final. */
        ot_block *next = __atomic_load_n(&h->next, __ATOMIC_ACQUIRE);
        uint32_t count = __atomic_load_n(&h->count, __ATOMIC_ACQUIRE);
        if (count > b->read_index) {
            sink(context, &h->records[b->read_index], count - b->read_index);
            *delivered += count - b->read_index;
            b->read_index = count;
        }
        if (!next)
            break;
        b->head = next;
        b->read_index = 0;
        free(h);
        __atomic_fetch_sub(&b->blocks_held, 1, __ATOMIC_RELAXED);
    }
    /* Losses are rare: a plain load spares every flush a locked exchange;
     * a loss counted just after it is reported by the next flush. */
    if (!__atomic_load_n(&b->lost, __ATOMIC_RELAXED))
        return 0;
    return __atomic_exchange_n(&b->lost, 0, __ATOMIC_RELAXED);
}

void ot_thread_buffer_destroy(ot_thread_buffer *b)
{
    for (ot_block *h = b->head, *next; h; h = next) {
        next = h->next;
        free(h);
    }
    b->head = b->tail = NULL;
}

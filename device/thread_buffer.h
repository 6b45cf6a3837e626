/**
 * \file thread_buffer.h
 * \brief One device thread's record buffer: a chain of fixed-size blocks
 *        with exactly one writer (the device thread) and one reader (the
 *        flush, serialised by the caller).
 *
 * The writer appends without locks: it stores the record, then publishes the
 * block's new count with a release store. When a block is full it chains a
 * new one (the only allocation, once per block) as long as the thread's
 * budget allows; past the budget, records are counted as lost. The reader
 * hands over everything published so far and frees blocks the writer has
 * left behind, so memory is returned at every flush.
 */
#ifndef OT_DEVICE_THREAD_BUFFER_H
#define OT_DEVICE_THREAD_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/collector.h"

/** Records per block: a block is 64 KiB including its header. */
#define OT_BLOCK_RECORDS ((65536u - 16u) / sizeof(offtrace_device_record))

typedef struct ot_block {
    struct ot_block *next;  /**< set (release) by the writer when it moves on */
    uint32_t count;         /**< published records (release by the writer) */
    uint32_t pad;
    offtrace_device_record records[OT_BLOCK_RECORDS];
} ot_block;

typedef struct ot_thread_buffer {
    /* writer side */
    ot_block *tail;          /**< block being written */
    uint64_t lost;           /**< atomic: records not stored since the last flush */
    uint32_t blocks_held;    /**< atomic: blocks not yet freed by the reader */
    uint32_t max_blocks;
    /* reader side */
    ot_block *head;          /**< oldest block not yet freed */
    uint32_t read_index;     /**< records of head already handed over */
} ot_thread_buffer;

/**
 * \brief Prepare a buffer with its first block.
 * \param budget_bytes memory the buffer may hold at once; at least two blocks
 *        (128 KiB) are allowed whatever it says.
 * \return 0 or -ENOMEM.
 */
int ot_thread_buffer_init(ot_thread_buffer *b, size_t budget_bytes);

/** \brief Writer, slow path of ot_thread_buffer_slot: the tail block is
 *         full; chain a new one (NULL past the budget: the record is counted lost). */
offtrace_device_record *ot_thread_buffer_slot_slow(ot_thread_buffer *b);

/** \brief Writer: a slot for one record, or NULL when it must be dropped
 *         (then counted). Inline (issue 18): one per device record. */
static inline offtrace_device_record *ot_thread_buffer_slot(ot_thread_buffer *b)
{
    ot_block *t = b->tail;
    if (__builtin_expect(t->count < OT_BLOCK_RECORDS, 1))
        return &t->records[t->count];
    return ot_thread_buffer_slot_slow(b);
}

/** \brief Writer: publish the record written into the last slot. */
static inline void ot_thread_buffer_publish(ot_thread_buffer *b)
{
    ot_block *t = b->tail;
    __atomic_store_n(&t->count, t->count + 1, __ATOMIC_RELEASE);
}

/** \brief Callback that receives consecutive published records. */
typedef void (*ot_thread_buffer_sink)(void *context, const offtrace_device_record *records, size_t count);

/**
 * \brief Reader: hand every published record to \p sink, free blocks the
 *        writer has finished with, and return the lost count accumulated
 *        since the last drain (reset to 0).
 * \param delivered incremented by the number of records handed over.
 */
uint64_t ot_thread_buffer_drain(ot_thread_buffer *b, ot_thread_buffer_sink sink, void *context,
                                size_t *delivered);

/** \brief Free every block (no writer may use \p b any more). */
void ot_thread_buffer_destroy(ot_thread_buffer *b);

#endif /* OT_DEVICE_THREAD_BUFFER_H */

/**
 * \file stream_internal.h
 * \brief What the recorder's streams (stream.c) and its helper threads
 *        (stream_helpers.c) share: the stream registry, the memory budget,
 *        chunk mapping and writing, and waking the helpers.
 */
#ifndef OT_HOST_STREAM_INTERNAL_H
#define OT_HOST_STREAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "stream.h"

/** \brief The streams created so far (the first 1024), for the helpers to visit. */
unsigned ot_streams_registered(ot_stream *const **list);

/** \brief 1 when the held trace data plus \p extra bytes exceed the memory budget. */
int ot_budget_over(size_t extra);

/** \brief 1 past half the memory budget, where the writer starts writing. */
int ot_budget_past_writeback_mark(void);

/**
 * \brief Make a shared file mapping's pages present and writable
 *        (MADV_POPULATE_WRITE); \p may_store: where that is unavailable and
 *        nothing has been written yet, touch each page instead.
 */
void ot_pages_populate(void *p, size_t len, int may_store);

/**
 * \brief Allocate, map (and with \p touch populate) the stream's next chunk; s->lock held.
 * \return the chunk, or NULL and a negative errno in *error (OT_SIZE_LIMIT_REACHED past the size limit).
 */
offtrace_raw_record *ot_chunk_map_locked(ot_stream *s, int touch, uint64_t *offset_out, int *error);

/** \brief Claim the stream's completed chunks nobody has written yet; returns their bytes. */
uint64_t ot_chunk_claim_unwritten(ot_stream *s, uint64_t *from);

/** \brief Write a claimed range to disk and drop it from the page cache and the budget. */
void ot_chunk_write_range(ot_stream *s, uint64_t from, uint64_t bytes);

/** \brief Ask the preparer (started if need be) for the stream's next chunk. */
void ot_helpers_request_chunk(ot_stream *s);

/** \brief Wake the background writer (started if allowed and need be). */
void ot_helpers_wake_writer(void);

/**
 * \brief Hand a filled chunk [addr, addr+len) to the preparer to unmap.
 * \return 1 when it took it; 0 (no preparer running, its queue full, the
 *         helpers stopping): the caller unmaps it itself.
 */
int ot_helpers_unmap_later(void *addr, size_t len);

/** \brief Unmap every chunk handed to ot_helpers_unmap_later and not unmapped
 *         yet, waiting for one being unmapped now: before a range is written
 *         back, so that its pages can leave memory. */
void ot_helpers_unmap_pending(void);

#endif

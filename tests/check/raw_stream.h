/* Synthetic raw recordings for converter tests: the stream header a real
 * process's main thread writes (include/offtrace/raw_format.h). */
#ifndef OT_TEST_RAW_STREAM_H
#define OT_TEST_RAW_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/raw_format.h"

/** \brief A zeroed \p h made the header of thread 0, the process's main
 *         thread (os tid 4242), whose chunks are \p chunk_bytes. */
void raw_main_thread_header(offtrace_raw_stream_header *h, size_t chunk_bytes);

/** \brief A zeroed \p h made the header of host thread \p thread: the main
 *         thread's (raw_main_thread_header) for 0, else a worker's (os tid
 *         4242 + \p thread). */
void raw_thread_header(offtrace_raw_stream_header *h, size_t chunk_bytes, uint32_t thread);

/** \brief clock.pairs' text for two pairs a second apart: (\p ticks0,
 *         \p ns0) and 2e9 ticks later 1e9 ns later (a 2 GHz tick), each
 *         with its realtime. \return its length (as snprintf). */
int raw_two_clock_pairs(char *out, size_t size, unsigned long long ticks0, unsigned long long ns0);

/** \brief Write \p size bytes of \p data to `<dir>/raw/<name>`. \return 0, or -1 (errno set). */
int raw_write_file(const char *dir, const char *name, const void *data, size_t size);

/** \brief A new recording directory \p dir with its raw/ and the two clock
 *         pairs of raw_two_clock_pairs(\p ticks0, \p ns0) in raw/clock.pairs.
 *         \return 0, or -1 (errno set; \p dir must not exist yet). */
int raw_new_recording(const char *dir, unsigned long long ticks0, unsigned long long ns0);

#endif

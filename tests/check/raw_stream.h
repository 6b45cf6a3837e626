/* Synthetic raw recordings for converter tests: the stream header a real
 * process's main thread writes (include/offtrace/raw_format.h). */
#ifndef OT_TEST_RAW_STREAM_H
#define OT_TEST_RAW_STREAM_H

#include <stddef.h>

#include "offtrace/raw_format.h"

/** \brief A zeroed \p h made the header of thread 0, the process's main
 *         thread (os tid 4242), whose chunks are \p chunk_bytes. */
void raw_main_thread_header(offtrace_raw_stream_header *h, size_t chunk_bytes);

#endif

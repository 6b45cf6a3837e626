#include "raw_stream.h"

#include <string.h>

void raw_main_thread_header(offtrace_raw_stream_header *h, size_t chunk_bytes)
{
    memcpy(h->magic, OFFTRACE_RAW_MAGIC, sizeof h->magic);
    h->version = OFFTRACE_RAW_VERSION;
    h->record_size = sizeof(offtrace_raw_record);
    h->thread_index = 0;
    h->thread_kind = OFFTRACE_RAW_THREAD_INITIAL;
    h->os_tid = 4242;
    h->is_process_main = 1;
    h->chunk_bytes = chunk_bytes;
}

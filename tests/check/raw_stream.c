#include "raw_stream.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

void raw_thread_header(offtrace_raw_stream_header *h, size_t chunk_bytes, uint32_t thread)
{
    raw_main_thread_header(h, chunk_bytes);
    if (!thread)
        return;
    h->thread_index = thread;
    h->thread_kind = OFFTRACE_RAW_THREAD_WORKER;
    h->os_tid = 4242 + (int32_t)thread;
    h->is_process_main = 0;
}

int raw_two_clock_pairs(char *out, size_t size, unsigned long long ticks0, unsigned long long ns0)
{
    const unsigned long long realtime = 1700000000000000000ull;
    return snprintf(out, size, "%llu %llu %llu\n%llu %llu %llu\n", ticks0, ns0, ns0 + realtime, ticks0 + 2000000000ull,
                    ns0 + 1000000000ull, ns0 + 1000000000ull + realtime);
}

int raw_write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/raw/%s", dir, name);
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    size_t written = fwrite(data, 1, size, f);
    return fclose(f) == 0 && written == size ? 0 : -1;
}

int raw_new_recording(const char *dir, unsigned long long ticks0, unsigned long long ns0)
{
    char raw[4400], text[256];
    snprintf(raw, sizeof raw, "%s/raw", dir);
    if (mkdir(dir, 0777) != 0 || mkdir(raw, 0777) != 0)
        return -1;
    int len = raw_two_clock_pairs(text, sizeof text, ticks0, ns0);
    return raw_write_file(dir, "clock.pairs", text, (size_t)len);
}

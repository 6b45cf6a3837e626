#define _GNU_SOURCE
#include "stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session.h"

__thread ot_stream *ot_stream_current;
__thread uint32_t ot_thread_kind;
int ot_recording;

/* Streams are never freed while the process runs: a stream whose thread
 * has ended still owns its header mapping, which the exit path reads. */

static int map_next_chunk(ot_stream *s)
{
    size_t chunk = ot_the_session.chunk_bytes;
    uint64_t offset = s->file_bytes;
    if (ftruncate(s->fd, (off_t)(offset + chunk)) != 0)
        return -errno;
    void *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)offset);
    if (p == MAP_FAILED)
        return -errno;
    if (s->end) /* the previous chunk is complete; its pages stay in the file */
        munmap((char *)s->end - chunk, chunk);
    s->next = p;
    s->end = (offtrace_raw_record *)((char *)p + chunk);
    s->file_bytes = offset + chunk;
    ot_session_clock_pair();
    return 0;
}

static ot_stream *stream_create(void)
{
    ot_session *ses = &ot_the_session;
    ot_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    uint32_t index = __atomic_fetch_add(&ses->next_thread_index, 1, __ATOMIC_RELAXED);
    char path[4400];
    snprintf(path, sizeof path, "%s/thread-%u.rec", ses->raw_dir, index);
    s->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (s->fd < 0 || ftruncate(s->fd, OFFTRACE_RAW_HEADER_SIZE) != 0)
        goto fail;
    s->header = mmap(NULL, OFFTRACE_RAW_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    if (s->header == MAP_FAILED)
        goto fail;
    offtrace_raw_stream_header *h = s->header;
    memcpy(h->magic, OFFTRACE_RAW_MAGIC, sizeof h->magic);
    h->version = OFFTRACE_RAW_VERSION;
    h->record_size = sizeof(offtrace_raw_record);
    h->thread_index = index;
    h->thread_kind = ot_thread_kind;
    h->os_tid = (int32_t)syscall(SYS_gettid);
    h->is_process_main = h->os_tid == (int32_t)getpid();
    h->chunk_bytes = ot_the_session.chunk_bytes;
    s->file_bytes = OFFTRACE_RAW_HEADER_SIZE;
    s->id_base = (uint64_t)(index + 1) << 40;
    return s;
fail:
    if (s->fd >= 0)
        close(s->fd);
    free(s);
    return NULL;
}

/* Slow path: first record of a thread, or a full chunk. Saves errno because
 * it runs inside the program's OpenMP calls. */
static ot_stream orphan; /* catches records of threads without a stream */

uint64_t ot_stream_orphan_lost(void)
{
    return __atomic_load_n(&orphan.id_counter, __ATOMIC_RELAXED);
}

offtrace_raw_record *ot_stream_reserve_slow(void)
{
    int saved_errno = errno;
    ot_stream *s = ot_stream_current;
    if (!s) {
        s = stream_create();
        if (!s) {
            __atomic_fetch_add(&orphan.id_counter, 1, __ATOMIC_RELAXED);
            errno = saved_errno;
            return &orphan.scratch;
        }
        ot_stream_current = s;
    }
    if (!ot_recording || map_next_chunk(s) != 0) {
        __atomic_fetch_add(&s->header->lost_records, 1, __ATOMIC_RELAXED);
        errno = saved_errno;
        return &s->scratch;
    }
    errno = saved_errno;
    return s->next++;
}

void ot_stream_close_current(void)
{
    ot_stream *s = ot_stream_current;
    if (!s || !s->end)
        return;
    /* Leave s->next == s->end so a late callback on this thread maps a new
     * chunk instead of writing into unmapped memory. */
    munmap((char *)s->end - ot_the_session.chunk_bytes, ot_the_session.chunk_bytes);
    s->next = s->end = NULL;
}

#define _GNU_SOURCE
#include "device_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "offtrace/raw_format.h"
#include "session.h"
#include "stream.h"

#define CHUNK_BYTES (1u << 20)

/* Failed appends before the next try to map a chunk: a full disk must not
 * make every flush a system call. */
#define RETRY_EVERY 64

typedef struct sink {
    pthread_mutex_t lock;
    int state;              /* 0 unopened, 1 open, -1 failed */
    ot_file_id file;        /* device-N.rec, opened by name for each use (no descriptor is held) */
    unsigned failures;      /* appends that failed since the last success */
    char *chunk;            /* mapping of file bytes [chunk_offset, chunk_offset + CHUNK_BYTES) */
    uint64_t chunk_offset;
    uint64_t used;          /* file bytes written, header included */
    uint64_t lost;
    char backend[32];
} sink;

static sink sinks[OT_SINK_MAX_DEVICES];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_locks(void)
{
    for (int i = 0; i < OT_SINK_MAX_DEVICES; i++)
        pthread_mutex_init(&sinks[i].lock, NULL);
}

void ot_device_sink_set_backend(int num, const char *backend)
{
    if (num >= 0 && num < OT_SINK_MAX_DEVICES)
        snprintf(sinks[num].backend, sizeof sinks[num].backend, "%s", backend ? backend : "?");
}

static int open_file(sink *s, int num, int flags)
{
    char name[32];
    snprintf(name, sizeof name, "device-%d.rec", num);
    return ot_session_open_file(name, flags, &s->file);
}

/* Map the chunk holding file offset `offset`, growing the file to its end.
 * The descriptor is opened for this and closed at once, and checked before
 * each use: a program thread may close it and open a file of its own on the
 * same number meanwhile. */
static int map_chunk(sink *s, int num, uint64_t offset, int create)
{
    if (s->chunk)
        munmap(s->chunk, CHUNK_BYTES);
    s->chunk = NULL;
    s->chunk_offset = offset - offset % CHUNK_BYTES;
    int rc = ot_session_reserve_bytes(CHUNK_BYTES);
    if (rc)
        return rc;
    int fd = open_file(s, num, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR);
    /* Blocks allocated now: a store into a page the full disk cannot back
     * would raise SIGBUS in the program. */
    if (fd < 0)
        rc = fd;
    else if (!ot_session_file_is(fd, &s->file))
        rc = -ESTALE;
    else
        rc = -posix_fallocate(fd, (off_t)s->chunk_offset, CHUNK_BYTES);
    void *p = MAP_FAILED;
    if (!rc && !ot_session_file_is(fd, &s->file))
        rc = -ESTALE;
    if (!rc && (p = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)s->chunk_offset)) ==
                   MAP_FAILED)
        rc = -errno;
    if (fd >= 0)
        close(fd);
    if (rc) {
        ot_session_unreserve_bytes(CHUNK_BYTES);
        return rc;
    }
    s->chunk = p;
    /* Flushes copy into this chunk from the front; the preparer thread
     * makes the rest present and writable ahead of them (MAP_POPULATE only
     * read-populates a shared mapping: every first store still faulted). */
    ot_stream_populate_later(p, CHUNK_BYTES, 1);
    return 0;
}

static int open_sink(sink *s, int num)
{
    int rc = map_chunk(s, num, 0, 1);
    if (rc)
        return rc;
    offtrace_raw_device_header *h = (offtrace_raw_device_header *)s->chunk;
    memcpy(h->magic, OFFTRACE_RAW_DEVICE_MAGIC, sizeof h->magic);
    h->version = OFFTRACE_RAW_VERSION;
    h->record_size = sizeof(offtrace_device_record);
    h->device_num = num;
    memcpy(h->backend, s->backend, sizeof h->backend - 1);
    s->used = sizeof *h;
    return 0;
}

static int copy_in(sink *s, int num, const char *p, size_t bytes)
{
    while (bytes) {
        int rc = !s->chunk || s->used >= s->chunk_offset + CHUNK_BYTES ? map_chunk(s, num, s->used, 0) : 0;
        if (rc)
            return rc;
        size_t room = (size_t)(s->chunk_offset + CHUNK_BYTES - s->used);
        size_t n = bytes < room ? bytes : room;
        memcpy(s->chunk + (s->used - s->chunk_offset), p, n);
        s->used += n;
        p += n;
        bytes -= n;
    }
    return 0;
}

int ot_device_sink_append(int num, const offtrace_device_record *records, size_t count)
{
    if (num < 0 || num >= OT_SINK_MAX_DEVICES)
        return -EINVAL;
    pthread_once(&init_once, init_locks);
    sink *s = &sinks[num];
    pthread_mutex_lock(&s->lock);
    int rc = -EAGAIN;
    uint64_t used_before = s->used;
    if (s->failures++ % RETRY_EVERY == 0) {
        if (s->state != 1)
            s->state = open_sink(s, num) == 0 ? 1 : -1;
        rc = s->state == 1 ? copy_in(s, num, (const char *)records, count * sizeof *records) : -EIO;
    }
    if (rc) {
        /* The whole delivery is counted lost, so none of it stays: the next
         * one is written over it (and a trailing part is trimmed at exit). */
        if (s->state == 1)
            s->used = used_before;
        s->lost += count;
    } else {
        s->failures = 0;
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

uint64_t ot_device_sink_lost(int num)
{
    return num >= 0 && num < OT_SINK_MAX_DEVICES ? sinks[num].lost : 0;
}

static void close_sink(sink *s, int num)
{
    if (s->state == 0 && !s->lost)
        return;
    int fd = s->state == 0 ? -ENOENT : open_file(s, num, O_RDWR);
    if (s->lost && s->chunk && s->chunk_offset == 0)
        ((offtrace_raw_device_header *)s->chunk)->lost_records = s->lost;
    else if (s->lost && (fd < 0 || !ot_session_file_is(fd, &s->file) ||
                         pwrite(fd, &s->lost, sizeof s->lost, offsetof(offtrace_raw_device_header, lost_records)) !=
                             sizeof s->lost))
        fprintf(stderr, "offtrace: %llu device records could not be written, and the trace cannot say so\n",
                (unsigned long long)s->lost);
    if (s->chunk)
        munmap(s->chunk, CHUNK_BYTES);
    s->chunk = NULL;
    if (fd >= 0) {
        if (ot_session_file_is(fd, &s->file) && ftruncate(fd, (off_t)s->used) != 0)
            fprintf(stderr, "offtrace: cannot trim a device record file: %s\n", strerror(errno));
        close(fd);
    }
    s->state = 0;
}

void ot_device_sink_close_all(void)
{
    pthread_once(&init_once, init_locks);
    for (int i = 0; i < OT_SINK_MAX_DEVICES; i++) {
        pthread_mutex_lock(&sinks[i].lock);
        close_sink(&sinks[i], i);
        pthread_mutex_unlock(&sinks[i].lock);
    }
}

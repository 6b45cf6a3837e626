#define _GNU_SOURCE
#include "device_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "offtrace/raw_format.h"
#include "session.h"

/* The file grows against OFFTRACE_MAX_RECORDING_SIZE a MiB at a time. */
#define CHUNK_BYTES (1u << 20)

/* Deliveries are gathered in memory and written with one pwrite when this
 * much is waiting, or when the last write is WRITE_PACE_NS old (at the
 * delivery that finds it so, and at exit). A millisecond, the pace of the
 * flushes themselves: a process killed by a signal loses no more of its
 * device records than it did when they were copied into shared mappings,
 * and one open, pwrite and close a millisecond is a few microseconds. */
#define STAGE_BYTES (64u << 10)
#define WRITE_PACE_NS 1000000ull

/* Failed opens before the next try: a file that cannot be created must not
 * make every flush a system call. */
#define RETRY_EVERY 64

typedef struct sink {
    pthread_mutex_t lock;
    int state;              /* 0 unopened, 1 open, -1 failed */
    ot_file_id file;        /* device-N.rec, opened by name for each use (no descriptor is held) */
    unsigned failures;      /* appends refused since the open failed */
    char *stage;            /* STAGE_BYTES: file bytes [written, written + staged) */
    size_t staged;
    uint64_t written;       /* file bytes written, header included */
    uint64_t reserved;      /* file bytes counted against the size limit */
    uint64_t last_write_ns; /* CLOCK_MONOTONIC */
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

/* Not the coarse clock: its tick (4 ms here) would stretch the pace, and a
 * delivery comes at most once a millisecond per device (device_link.c). */
static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Write file bytes [s->written, s->written + n) from p. The descriptor is
 * opened for this and closed at once, and checked before the write: a
 * program thread may close it and open a file of its own on the same
 * number meanwhile. A full disk is an error here (ENOSPC), never a signal
 * in the program, so nothing is allocated ahead. */
static int write_bytes(sink *s, int num, const char *p, size_t n, int create)
{
    while (s->reserved < s->written + n) {
        int rc = ot_session_reserve_bytes(CHUNK_BYTES);
        if (rc)
            return rc;
        s->reserved += CHUNK_BYTES;
    }
    int fd = open_file(s, num, create ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY);
    int rc = 0;
    if (fd < 0)
        rc = fd;
    else if (!ot_session_file_is(fd, &s->file))
        rc = -ESTALE;
    else {
        ssize_t done = pwrite(fd, p, n, (off_t)s->written);
        rc = done == (ssize_t)n ? 0 : done < 0 ? -errno : -ENOSPC;
    }
    if (fd >= 0)
        close(fd);
    if (!rc)
        s->written += n;
    return rc;
}

/* Write what is staged; if that fails, its records are counted lost. */
static void write_stage(sink *s, int num)
{
    s->last_write_ns = monotonic_ns();
    if (!s->staged)
        return;
    if (write_bytes(s, num, s->stage, s->staged, 0))
        s->lost += s->staged / sizeof(offtrace_device_record);
    s->staged = 0;
}

/* Create the file with its header (written at once: a recording that dies
 * early still has a readable, empty device file). */
static int open_sink(sink *s, int num)
{
    if (!s->stage && !(s->stage = malloc(STAGE_BYTES)))
        return -ENOMEM;
    offtrace_raw_device_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, OFFTRACE_RAW_DEVICE_MAGIC, sizeof h.magic);
    h.version = OFFTRACE_RAW_VERSION;
    h.record_size = sizeof(offtrace_device_record);
    h.device_num = num;
    memcpy(h.backend, s->backend, sizeof h.backend - 1);
    s->written = 0;
    s->staged = 0;
    int rc = write_bytes(s, num, (const char *)&h, sizeof h, 1);
    s->last_write_ns = monotonic_ns();
    return rc;
}

/* 0, or a negative errno when this delivery was not stored. */
static int stage_in(sink *s, int num, const char *p, size_t bytes)
{
    if (s->staged + bytes > STAGE_BYTES)
        write_stage(s, num);
    if (bytes > STAGE_BYTES)
        return write_bytes(s, num, p, bytes, 0);
    memcpy(s->stage + s->staged, p, bytes);
    s->staged += bytes;
    if (monotonic_ns() - s->last_write_ns >= WRITE_PACE_NS)
        write_stage(s, num);
    return 0;
}

int ot_device_sink_append(int num, const offtrace_device_record *records, size_t count)
{
    if (num < 0 || num >= OT_SINK_MAX_DEVICES)
        return -EINVAL;
    pthread_once(&init_once, init_locks);
    sink *s = &sinks[num];
    pthread_mutex_lock(&s->lock);
    int rc = -EIO;
    if (s->state != 1 && s->failures++ % RETRY_EVERY == 0)
        s->state = open_sink(s, num) == 0 ? 1 : -1;
    if (s->state == 1) {
        s->failures = 0;
        rc = stage_in(s, num, (const char *)records, count * sizeof *records);
    }
    if (rc)
        s->lost += count; /* the whole delivery: none of it is in the file */
    pthread_mutex_unlock(&s->lock);
    return rc;
}

uint64_t ot_device_sink_lost(int num)
{
    return num >= 0 && num < OT_SINK_MAX_DEVICES ? sinks[num].lost : 0;
}

static void close_sink(sink *s, int num)
{
    if (s->state == 1)
        write_stage(s, num);
    if (s->state == 0 && !s->lost)
        return;
    int fd = s->state == 0 ? -ENOENT : open_file(s, num, O_RDWR);
    if (s->lost && (fd < 0 || !ot_session_file_is(fd, &s->file) ||
                    pwrite(fd, &s->lost, sizeof s->lost, offsetof(offtrace_raw_device_header, lost_records)) !=
                        sizeof s->lost))
        fprintf(stderr, "offtrace: %llu device records could not be written, and the trace cannot say so\n",
                (unsigned long long)s->lost);
    if (fd >= 0) {
        /* a write cut short by a full disk leaves part of a record */
        if (ot_session_file_is(fd, &s->file) && ftruncate(fd, (off_t)s->written) != 0)
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

#define _GNU_SOURCE
#include "raw_reader.h"

#include "regular_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A begin still pending in the header: the thread died inside the
 * operation, or between writing the operation's COMPLETE record and
 * emptying the slot (then the record is among the last few). */
static void append_pending(ot_raw_stream *s)
{
    const offtrace_raw_record *p = &s->header.pending;
    if (p->event != OFFTRACE_RAW_DATA_OP && p->event != OFFTRACE_RAW_SUBMIT)
        return;
    for (size_t i = s->count, seen = 0; i-- > 0 && seen < 8; seen++)
        if (s->records[i].id == p->id && s->records[i].event == p->event)
            return;
    s->records[s->count++] = *p;
}

/* Why a stream is unusable, from its header alone. */
static int check_stream_header(const offtrace_raw_stream_header *h)
{
    if (memcmp(h->magic, OFFTRACE_RAW_MAGIC, sizeof h->magic))
        return -EPROTO;
    if (h->version != OFFTRACE_RAW_VERSION)
        return -EPROTONOSUPPORT;
    if (h->record_size != sizeof(offtrace_raw_record) || h->chunk_bytes < 4096 ||
        h->chunk_bytes % sizeof(offtrace_raw_record))
        return -EPROTO;
    return 0;
}

/* Committed records of the chunk starting at \p first: up to its first
 * uncommitted slot. */
static size_t chunk_records(const offtrace_raw_record *all, size_t first, size_t per_chunk, size_t max)
{
    size_t n = 0;
    while (first + n < max && n < per_chunk && all[first + n].event != OFFTRACE_RAW_NONE)
        n++;
    return n;
}

/* Copy committed records out of one stream file. A chunk is read up to its
 * first uncommitted slot; an entirely empty chunk ends the stream. The
 * records are counted before anything is allocated: a file may be sparse
 * and far larger than what was written into it. */
static int read_stream(const char *path, ot_raw_stream *out)
{
    struct stat st;
    int fd = ot_open_regular(path, &st);
    if (fd < 0)
        return fd;
    if ((size_t)st.st_size < OFFTRACE_RAW_HEADER_SIZE) {
        close(fd);
        return -EPROTO;
    }
    size_t size = (size_t)st.st_size;
    const char *base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (base == MAP_FAILED)
        return -errno;
    memcpy(&out->header, base, sizeof out->header);
    int rc = check_stream_header(&out->header);
    if (rc)
        goto done;
    size_t per_chunk = out->header.chunk_bytes / sizeof(offtrace_raw_record);
    size_t max = (size - OFFTRACE_RAW_HEADER_SIZE) / sizeof(offtrace_raw_record), total = 0, n;
    const offtrace_raw_record *all = (const offtrace_raw_record *)(base + OFFTRACE_RAW_HEADER_SIZE);
    for (size_t first = 0; first < max && (n = chunk_records(all, first, per_chunk, max)); first += per_chunk)
        total += n;
    out->records = malloc((total + 1) * sizeof(offtrace_raw_record)); /* + the pending begin */
    if (!out->records) {
        rc = -ENOMEM;
        goto done;
    }
    /* A live recording (`convert --force`) goes on committing records
     * between the two passes: copy no more than were counted. */
    for (size_t first = 0; first < max && out->count < total && (n = chunk_records(all, first, per_chunk, max));
         first += per_chunk) {
        if (n > total - out->count)
            n = total - out->count;
        memcpy(out->records + out->count, all + first, n * sizeof *all);
        out->count += n;
    }
    append_pending(out);
done:
    munmap((void *)base, size);
    return rc;
}

/* Count a stream or device file that cannot be used, by cause. */
static void count_ignored(ot_raw_recording *rec, int rc)
{
    enum ot_raw_ignored cause = rc == -EPROTONOSUPPORT ? OT_RAW_IGNORED_OTHER_VERSION
                              : rc == -EPROTO ? OT_RAW_IGNORED_DAMAGED
                              : rc == -ELOOP || rc == -ENODEV || rc == -EISDIR ? OT_RAW_IGNORED_NOT_REGULAR_FILE
                                                              : OT_RAW_IGNORED_UNREADABLE;
    rec->ignored[cause]++;
    rec->ignored_streams++;
}

static int load_clock(const char *raw_dir, ot_raw_recording *rec)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/clock.pairs", raw_dir);
    FILE *f = ot_fopen_regular(path);
    if (!f)
        return -ENOENT;
    unsigned long long ticks, mono, real;
    int first = 1;
    rec->ticks_to_ns = ot_timemap_new(1.0);
    if (!rec->ticks_to_ns) {
        fclose(f);
        return -ENOMEM;
    }
    while (fscanf(f, "%llu %llu %llu", &ticks, &mono, &real) == 3) {
        if (first)
            rec->realtime_offset_ns = (int64_t)(real - mono);
        first = 0;
        ot_timemap_add(rec->ticks_to_ns, ticks, mono);
    }
    fclose(f);
    return ot_timemap_points(rec->ticks_to_ns) ? 0 : -EINVAL;
}

/* The session's counters; a missing or damaged file reads as zeros (the
 * streams' own loss counts still hold). */
static void load_counters(const char *raw_dir, ot_raw_recording *rec)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/counters", raw_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    offtrace_raw_counters c;
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && pread(fd, &c, sizeof c, 0) == (ssize_t)sizeof c &&
        !memcmp(c.magic, OFFTRACE_RAW_COUNTERS_MAGIC, sizeof c.magic) && c.version == OFFTRACE_RAW_VERSION &&
        c.size == sizeof c)
        rec->counters = c;
    close(fd);
}

static void load_devices(const char *raw_dir, ot_raw_recording *rec)
{
    char path[4400], kind[64];
    int num;
    snprintf(path, sizeof path, "%s/devices.txt", raw_dir);
    rec->host_device = -1;
    FILE *f = ot_fopen_regular(path);
    if (!f)
        return;
    while (fscanf(f, "%d %63s", &num, kind) == 2) {
        if (!strcmp(kind, "host")) {
            rec->host_device = num;
            continue;
        }
        ot_raw_device *d = realloc(rec->devices, (rec->device_count + 1) * sizeof *d);
        if (!d)
            break;
        rec->devices = d;
        d[rec->device_count].num = num;
        snprintf(d[rec->device_count].kind, sizeof d->kind, "%s", kind);
        rec->device_count++;
    }
    fclose(f);
}

static int by_name(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

static int add_name(char ***list, size_t *count, const char *dir, const char *name)
{
    char **l = realloc(*list, (*count + 1) * sizeof *l);
    if (!l)
        return -ENOMEM;
    *list = l;
    if (asprintf(&l[*count], "%s/%s", dir, name) < 0)
        return -ENOMEM;
    (*count)++;
    return 0;
}

static int by_thread_index(const void *a, const void *b)
{
    const ot_raw_stream *x = *(ot_raw_stream *const *)a, *y = *(ot_raw_stream *const *)b;
    if (x->header.thread_index != y->header.thread_index)
        return x->header.thread_index < y->header.thread_index ? -1 : 1;
    return x < y ? -1 : x > y; /* the first in name order stays */
}

/* Two streams with one thread index would be one location twice: only a
 * copied or damaged file does that. The later one (in name order) is
 * ignored and counted. */
static int drop_duplicate_threads(ot_raw_recording *rec)
{
    if (rec->stream_count < 2)
        return 0;
    ot_raw_stream **order = malloc(rec->stream_count * sizeof *order);
    if (!order)
        return -ENOMEM;
    for (size_t i = 0; i < rec->stream_count; i++)
        order[i] = &rec->streams[i];
    qsort(order, rec->stream_count, sizeof *order, by_thread_index);
    for (size_t i = 1; i < rec->stream_count; i++)
        if (order[i]->header.thread_index == order[i - 1]->header.thread_index) {
            free(order[i]->records);
            order[i]->records = NULL; /* marks it for removal below */
            order[i]->count = SIZE_MAX;
            rec->ignored[OT_RAW_IGNORED_DUPLICATE_THREAD]++;
            rec->ignored_streams++;
        }
    free(order);
    size_t kept = 0;
    for (size_t i = 0; i < rec->stream_count; i++)
        if (rec->streams[i].count != SIZE_MAX)
            rec->streams[kept++] = rec->streams[i];
        else
            rec->lost_records -= rec->streams[i].header.lost_records;
    rec->stream_count = kept;
    return 0;
}

static int load_streams(ot_raw_recording *rec, char **names, size_t n)
{
    rec->streams = calloc(n ? n : 1, sizeof *rec->streams);
    if (!rec->streams)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        ot_raw_stream *s = &rec->streams[rec->stream_count];
        int rc = read_stream(names[i], s);
        if (rc == -ENOMEM)
            return rc;
        if (rc) {
            free(s->records);
            memset(s, 0, sizeof *s);
            count_ignored(rec, rc);
            continue;
        }
        rec->lost_records += s->header.lost_records;
        rec->stream_count++;
    }
    return drop_duplicate_threads(rec);
}

/* Device files are read whole: the converter revisits their records per
 * device thread. A file of another format is ignored and counted. */
static int read_device_file(const char *path, ot_raw_device_stream *ds)
{
    struct stat st;
    int fd = ot_open_regular(path, &st);
    if (fd < 0)
        return fd;
    int rc = -EPROTO;
    if (st.st_size >= (off_t)sizeof ds->header && pread(fd, &ds->header, sizeof ds->header, 0) == sizeof ds->header &&
        !memcmp(ds->header.magic, OFFTRACE_RAW_DEVICE_MAGIC, sizeof ds->header.magic)) {
        rc = ds->header.version != OFFTRACE_RAW_VERSION ? -EPROTONOSUPPORT
           : ds->header.record_size != sizeof(offtrace_device_record) ? -EPROTO : 0;
    }
    if (rc == 0) {
        size_t payload = (size_t)st.st_size - sizeof ds->header;
        ds->count = payload / sizeof *ds->records;
        ds->torn_records = payload % sizeof *ds->records ? 1 : 0;
        ds->records = malloc((ds->count ? ds->count : 1) * sizeof *ds->records);
        size_t want = ds->count * sizeof *ds->records, got = 0;
        ssize_t n = 1;
        while (ds->records && got < want && (n = pread(fd, (char *)ds->records + got, want - got,
                                                       (off_t)(sizeof ds->header + got))) > 0)
            got += (size_t)n;
        rc = !ds->records ? -ENOMEM : got < want ? -EIO : 0;
        /* A process that died before trimming its file leaves a zero tail. */
        while (rc == 0 && ds->count && ds->records[ds->count - 1].kind == 0)
            ds->count--;
    }
    ds->header.backend[sizeof ds->header.backend - 1] = '\0';
    close(fd);
    if (rc) {
        free(ds->records);
        ds->records = NULL;
    }
    return rc;
}

static int load_device_streams(ot_raw_recording *rec, char **names, size_t n)
{
    rec->device_streams = calloc(n ? n : 1, sizeof *rec->device_streams);
    if (!rec->device_streams)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        int rc = read_device_file(names[i], &rec->device_streams[rec->device_stream_count]);
        if (rc == -ENOMEM)
            return rc;
        if (rc)
            count_ignored(rec, rc);
        else
            rec->device_stream_count++;
    }
    return 0;
}

int ot_raw_load(const char *raw_dir, ot_raw_recording *rec, char *err, size_t err_size)
{
    memset(rec, 0, sizeof *rec);
    DIR *d = opendir(raw_dir);
    if (!d) {
        snprintf(err, err_size, "offtrace: '%s' is not an offtrace recording: %s", raw_dir, strerror(errno));
        return -ENOENT;
    }
    char **streams = NULL, **device_files = NULL;
    size_t stream_files = 0, device_file_count = 0;
    int rc = 0;
    struct dirent *e;
    while (!rc && (e = readdir(d))) {
        if (!strncmp(e->d_name, "thread-", 7) && strstr(e->d_name, ".rec"))
            rc = add_name(&streams, &stream_files, raw_dir, e->d_name);
        else if (!strncmp(e->d_name, "device-", 7) && strstr(e->d_name, ".rec"))
            rc = add_name(&device_files, &device_file_count, raw_dir, e->d_name);
        else if (!strncmp(e->d_name, "maps.", 5))
            rc = add_name(&rec->maps_files, &rec->maps_count, raw_dir, e->d_name);
    }
    closedir(d);
    if (!rc) {
        qsort(streams, stream_files, sizeof *streams, by_name);
        qsort(rec->maps_files, rec->maps_count, sizeof *rec->maps_files, by_name);
        rc = load_clock(raw_dir, rec);
        if (rc)
            snprintf(err, err_size, "offtrace: '%s' has no clock pairs; it is not a usable recording", raw_dir);
    }
    if (!rc) {
        load_devices(raw_dir, rec);
        load_counters(raw_dir, rec);
        rec->stream_files = stream_files;
        rc = load_streams(rec, streams, stream_files);
        if (!rc)
            rc = load_device_streams(rec, device_files, device_file_count);
        if (rc)
            snprintf(err, err_size, "offtrace: cannot read the streams in '%s': %s", raw_dir, strerror(-rc));
    }
    for (size_t i = 0; i < stream_files; i++)
        free(streams[i]);
    free(streams);
    for (size_t i = 0; i < device_file_count; i++)
        free(device_files[i]);
    free(device_files);
    return rc;
}

void ot_raw_free(ot_raw_recording *rec)
{
    for (size_t i = 0; i < rec->stream_count; i++)
        free(rec->streams[i].records);
    free(rec->streams);
    for (size_t i = 0; i < rec->device_stream_count; i++)
        free(rec->device_streams[i].records);
    free(rec->device_streams);
    free(rec->devices);
    for (size_t i = 0; i < rec->maps_count; i++)
        free(rec->maps_files[i]);
    free(rec->maps_files);
    ot_timemap_free(rec->ticks_to_ns);
    memset(rec, 0, sizeof *rec);
}

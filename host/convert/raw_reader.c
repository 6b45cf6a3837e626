#define _GNU_SOURCE
#include "raw_reader.h"

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

/* Copy committed records out of one stream file. A chunk is read up to its
 * first uncommitted slot; an entirely empty chunk ends the stream. */
static int read_stream(const char *path, ot_raw_stream *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < OFFTRACE_RAW_HEADER_SIZE) {
        close(fd);
        return -EINVAL;
    }
    size_t size = (size_t)st.st_size;
    const char *base = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (base == MAP_FAILED)
        return -errno;
    memcpy(&out->header, base, sizeof out->header);
    const offtrace_raw_stream_header *h = &out->header;
    int rc = 0;
    if (memcmp(h->magic, OFFTRACE_RAW_MAGIC, sizeof h->magic) || h->version != OFFTRACE_RAW_VERSION ||
        h->record_size != sizeof(offtrace_raw_record) || h->chunk_bytes < 4096 ||
        h->chunk_bytes % sizeof(offtrace_raw_record)) {
        rc = -EPROTO;
        goto done;
    }
    size_t per_chunk = h->chunk_bytes / sizeof(offtrace_raw_record);
    size_t max = (size - OFFTRACE_RAW_HEADER_SIZE) / sizeof(offtrace_raw_record);
    out->records = malloc((max + 1) * sizeof(offtrace_raw_record)); /* + the pending begin */
    if (!out->records) {
        rc = -ENOMEM;
        goto done;
    }
    const offtrace_raw_record *all = (const offtrace_raw_record *)(base + OFFTRACE_RAW_HEADER_SIZE);
    for (size_t chunk = 0; chunk * per_chunk < max; chunk++) {
        size_t first = chunk * per_chunk, n = 0;
        while (first + n < max && n < per_chunk && all[first + n].event != OFFTRACE_RAW_NONE)
            n++;
        if (n == 0)
            break;
        memcpy(out->records + out->count, all + first, n * sizeof *all);
        out->count += n;
    }
    append_pending(out);
done:
    munmap((void *)base, size);
    return rc;
}

static int load_clock(const char *raw_dir, ot_raw_recording *rec)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/clock.pairs", raw_dir);
    FILE *f = fopen(path, "re");
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
    FILE *f = fopen(path, "re");
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

static int load_streams(const char *raw_dir, ot_raw_recording *rec, char **names, size_t n)
{
    rec->streams = calloc(n ? n : 1, sizeof *rec->streams);
    if (!rec->streams)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        ot_raw_stream *s = &rec->streams[rec->stream_count];
        int rc = read_stream(names[i], s);
        if (rc == -EPROTO || rc == -EINVAL) {
            rec->ignored_streams++;
            continue;
        }
        if (rc)
            return rc;
        rec->lost_records += s->header.lost_records;
        rec->stream_count++;
    }
    return 0;
}

/* Device files are read whole: the converter revisits their records per
 * device thread. A file of another format is ignored and counted. */
static int read_device_file(const char *path, ot_raw_device_stream *ds)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    int rc = -EINVAL;
    if (fread(&ds->header, sizeof ds->header, 1, f) == 1 &&
        !memcmp(ds->header.magic, OFFTRACE_RAW_DEVICE_MAGIC, sizeof ds->header.magic) &&
        ds->header.version == OFFTRACE_RAW_VERSION && ds->header.record_size == sizeof(offtrace_device_record) &&
        fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        size_t payload = size > (long)sizeof ds->header ? (size_t)size - sizeof ds->header : 0;
        ds->count = payload / sizeof *ds->records;
        ds->torn_records = payload % sizeof *ds->records ? 1 : 0;
        ds->records = malloc((ds->count ? ds->count : 1) * sizeof *ds->records);
        rc = -ENOMEM;
        if (ds->records && fseek(f, sizeof ds->header, SEEK_SET) == 0 &&
            fread(ds->records, sizeof *ds->records, ds->count, f) == ds->count)
            rc = 0;
        /* A process that died before trimming its file leaves a zero tail. */
        while (rc == 0 && ds->count && ds->records[ds->count - 1].kind == 0)
            ds->count--;
    }
    ds->header.backend[sizeof ds->header.backend - 1] = '\0';
    fclose(f);
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
            rec->ignored_streams++;
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
        rc = load_streams(raw_dir, rec, streams, stream_files);
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

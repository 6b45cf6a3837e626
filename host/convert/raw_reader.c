#define _GNU_SOURCE
#include "raw_reader.h"

#include "regular_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ---- walking a stream file through a fixed window ---- */

/* Open the file and check that it still is the stream that was loaded
 * (same header fields that shape the records). */
static int open_stream_file(const ot_raw_stream *s, ot_raw_cursor *cur)
{
    struct stat st;
    offtrace_raw_stream_header h;
    int fd = ot_open_regular(s->path, &st);
    if (fd < 0)
        return fd;
    if ((size_t)st.st_size < OFFTRACE_RAW_HEADER_SIZE || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
        check_stream_header(&h) || h.thread_index != s->header.thread_index ||
        h.chunk_bytes != s->header.chunk_bytes) {
        close(fd);
        return -EPROTO;
    }
    cur->fd = fd;
    cur->per_chunk = h.chunk_bytes / sizeof(offtrace_raw_record);
    cur->max = ((uint64_t)st.st_size - OFFTRACE_RAW_HEADER_SIZE) / sizeof(offtrace_raw_record);
    return 0;
}

/* Read the window starting at file record cur->index; 0 at the file's end.
 * The reads grow from a small first one, and stop at the records the pass
 * may still yield (a counted stream's, a probe's): a stream of a few records
 * sits at the start of a chunk of zeros (the file is allocated a chunk at a
 * time), as a long one's last records do, and full windows would copy (and
 * fault in) up to a MiB of them in every pass. The size read never changes
 * which records a pass yields: a read that ends early is followed by
 * another. */
static size_t fill_window(ot_raw_cursor *cur)
{
    uint64_t left = cur->max - cur->index, records = cur->window_want;
    if (cur->limit - cur->yielded < records)
        records = cur->limit - cur->yielded;
    size_t want = (size_t)(left < records ? left : records) * sizeof *cur->window;
    if (cur->window_want < OT_RAW_CURSOR_WINDOW_RECORDS)
        cur->window_want = cur->window_want * 4 < OT_RAW_CURSOR_WINDOW_RECORDS ? cur->window_want * 4
                                                                                 : OT_RAW_CURSOR_WINDOW_RECORDS;
    size_t got = 0;
    ssize_t n = 1;
    while (got < want && (n = pread(cur->fd, (char *)cur->window + got, want - got,
                                    (off_t)(OFFTRACE_RAW_HEADER_SIZE + cur->index * sizeof *cur->window + got))) > 0)
        got += (size_t)n;
    cur->window_first = cur->index;
    cur->window_pos = 0;
    cur->window_len = got / sizeof *cur->window;
    return cur->window_len;
}

/* A live stream's pass has read all it may: wait for more. At the
 * program's end the file is taken as it is then, header included, and the
 * pass goes on as over a finished recording. 0: nothing more (the file can
 * no longer be read). */
static int wait_live(ot_raw_cursor *cur)
{
    if (cur->live->hand_over(cur->live->context)) {
        cur->handed_over = 1;
        return 0;
    }
    uint64_t allowed = cur->live->wait_more(cur->live->context, cur->max);
    if (allowed != OT_RAW_LIVE_ENDED) {
        cur->max = allowed;
        return 1;
    }
    cur->live = NULL;
    struct stat st;
    offtrace_raw_stream_header h;
    if (cur->fd < 0 || fstat(cur->fd, &st) != 0 || pread(cur->fd, &h, sizeof h, 0) != (ssize_t)sizeof h ||
        check_stream_header(&h) || h.thread_index != cur->stream->header.thread_index ||
        h.chunk_bytes != cur->stream->header.chunk_bytes)
        return 0;
    cur->stream->header = h; /* its pending begin and losses, written at the end */
    cur->max = ((uint64_t)st.st_size - OFFTRACE_RAW_HEADER_SIZE) / sizeof(offtrace_raw_record);
    return 1;
}

/* The next committed record of the file: a chunk is read up to its first
 * uncommitted slot, an entirely empty chunk ends the stream. A live stream
 * is read a chunk the writer has left at a time (wait_live): such a chunk is
 * as it will stay. */
static const offtrace_raw_record *next_committed(ot_raw_cursor *cur)
{
    while (cur->fd >= 0 && (cur->index < cur->max || (cur->live && wait_live(cur)))) {
        if (cur->index >= cur->max)
            continue;
        if (cur->window_pos == cur->window_len) {
            if (cur->live && cur->live->hand_over(cur->live->context)) { /* a window's worth at most after the end */
                cur->handed_over = 1;
                return NULL;
            }
            if (!fill_window(cur))
                break;
        }
        const offtrace_raw_record *r = &cur->window[cur->window_pos];
        if (r->event != OFFTRACE_RAW_NONE) {
            cur->index++;
            cur->window_pos++;
            return r;
        }
        uint64_t in_chunk = cur->index % cur->per_chunk; /* a division: only at a chunk's end */
        if (in_chunk == 0 && cur->live) { /* the stream's end, unless the program is still running */
            if (!wait_live(cur))
                break;
            continue;
        }
        if (in_chunk == 0)
            break;
        cur->index += cur->per_chunk - in_chunk; /* the next chunk, in this window or a later one */
        if (cur->index < cur->window_first + cur->window_len)
            cur->window_pos = (size_t)(cur->index - cur->window_first);
        else
            cur->window_pos = cur->window_len;
    }
    if (!cur->handed_over) /* else it reads on from here, on the thread that takes the pass on */
        cur->index = cur->max;
    return NULL;
}

/* A begin still pending in the header: the thread died inside the
 * operation, or between writing the operation's COMPLETE record and
 * emptying the slot (then the record is among the last few). */
static int pending_is_new(const offtrace_raw_record *p, const ot_raw_cursor *cur)
{
    if (p->event != OFFTRACE_RAW_DATA_OP && p->event != OFFTRACE_RAW_SUBMIT)
        return 0;
    size_t last_count = cur->yielded < 8 ? cur->yielded : 8;
    for (size_t i = 0; i < last_count; i++)
        if (cur->last[i].id == p->id && cur->last[i].event == p->event)
            return 0;
    return 1;
}

static void note_kind(ot_raw_stream *s, const offtrace_raw_record *r)
{
    ot_raw_stream_note_kind(s, r);
}

int ot_raw_cursor_open(ot_raw_cursor *cur, ot_raw_stream *s)
{
    memset(cur, 0, sizeof *cur);
    cur->stream = s;
    cur->fd = -1;
    cur->counting = !s->counted;
    cur->limit = s->counted ? s->count - (s->with_pending ? 1 : 0) : SIZE_MAX;
    cur->window_want = OT_RAW_FIRST_WINDOW_RECORDS;
    cur->slow_kind[OFFTRACE_RAW_NONE] = 1;
    cur->window = malloc(OT_RAW_CURSOR_WINDOW_RECORDS * sizeof *cur->window);
    if (!cur->window)
        return -ENOMEM;
    if (open_stream_file(s, cur) != 0)
        cur->fd = -1; /* yields the pending begin only */
    else if (s->live) { /* nothing until the live stream's gate allows it */
        cur->live = s->live;
        cur->max = 0;
    }
    return 0;
}

void ot_raw_cursor_stop_at(ot_raw_cursor *cur, const uint64_t *kinds)
{
    cur->stop_kinds = kinds;
    for (unsigned e = 0; e < 256; e++)
        cur->slow_kind[e] |= (uint8_t)(kinds[e >> 6] >> (e & 63) & 1);
}

/* ot_raw_stream_note_kind of \p n records: a byte per event kind set per
 * record and the stream's bits set once from them, where the bit of each
 * record was a read, a shift and a write of the stream's words (the
 * records may alias them) for every record of a counting pass (issue 18,
 * eleventh round). */
static void note_kinds(ot_raw_stream *s, const offtrace_raw_record *records, size_t n)
{
    if (n < 64) { /* too few for the table's cost */
        for (size_t i = 0; i < n; i++)
            ot_raw_stream_note_kind(s, &records[i]);
        return;
    }
    uint8_t seen[256] = {0};
    for (size_t i = 0; i < n; i++)
        seen[records[i].event] = 1;
    uint64_t target_kinds = 0;
    for (size_t i = 0; seen[OFFTRACE_RAW_TARGET] && i < n; i++) /* a second look where the window holds one */
        if (records[i].event == OFFTRACE_RAW_TARGET)
            target_kinds |= records[i].subkind < 64 ? 1ull << records[i].subkind : UINT64_MAX;
    for (unsigned word = 0; word < 256; word += 8) {
        uint64_t any;
        memcpy(&any, &seen[word], sizeof any);
        for (unsigned e = word; any && e < word + 8; e++)
            if (seen[e])
                s->events_seen[e >> 6] |= 1ull << (e & 63);
    }
    s->target_kinds_seen |= target_kinds;
}

/* What a counting pass learns from the records ot_raw_cursor_next yielded
 * since the last call the whole way (window[unfolded_from, window_pos), all
 * committed, in order): their kinds, and the last of them. */
static void fold_yielded(ot_raw_cursor *cur)
{
    size_t from = cur->unfolded_from, to = cur->window_pos;
    cur->unfolded_from = to;
    if (!cur->counting || !cur->window || from >= to)
        return;
    note_kinds(cur->stream, &cur->window[from], to - from);
    size_t n = to - from, first = n > 8 ? n - 8 : 0;
    for (size_t k = first; k < n; k++) { /* the k-th of them was yielded as number yielded - n + k */
        const offtrace_raw_record *r = &cur->window[from + k];
        cur->last[(cur->yielded - n + k) % 8].id = r->id;
        cur->last[(cur->yielded - n + k) % 8].event = r->event;
    }
}

/* Where ot_raw_cursor_next may go on alone: up to the window's end, the
 * records the file allows (max) and those the pass may yield (limit). */
static void set_fast_end(ot_raw_cursor *cur)
{
    size_t end = cur->window_len;
    uint64_t allowed = cur->index < cur->max ? cur->max - cur->index : 0;
    size_t left = cur->yielded < cur->limit ? cur->limit - cur->yielded : 0;
    if (allowed < end - cur->window_pos)
        end = cur->window_pos + (size_t)allowed;
    if (left < end - cur->window_pos)
        end = cur->window_pos + left;
    cur->fast_end = end;
    cur->unfolded_from = cur->window_pos;
}

/* The stream's end, reached by a pass that reads it uncounted: what the
 * counting at load would have found (unless a pass nested in this one
 * counted it first). */
static void finish_counting(ot_raw_cursor *cur)
{
    ot_raw_stream *s = cur->stream;
    cur->counting = 0;
    if (s->counted)
        return;
    s->with_pending = pending_is_new(&s->header.pending, cur);
    if (s->with_pending)
        note_kind(s, &s->header.pending);
    s->count = cur->yielded + (s->with_pending ? 1 : 0);
    s->counted = 1;
}

static const offtrace_raw_record *next_the_whole_way(ot_raw_cursor *cur);

const offtrace_raw_record *ot_raw_cursor_next_slowly(ot_raw_cursor *cur)
{
    fold_yielded(cur);
    const offtrace_raw_record *r = next_the_whole_way(cur);
    set_fast_end(cur);
    return r;
}

static const offtrace_raw_record *next_the_whole_way(ot_raw_cursor *cur)
{
    if (cur->yielded < cur->limit) {
        const offtrace_raw_record *r = next_committed(cur);
        if (!r && cur->handed_over)
            return NULL; /* not its end: the pass stops here for now */
        if (r && cur->stop_kinds && (cur->stop_kinds[r->event >> 6] >> (r->event & 63) & 1)) {
            cur->stopped = 1; /* the pass ends here: nothing more, the stream stays uncounted */
            cur->limit = cur->yielded;
            cur->counting = 0;
            cur->pending_done = 1;
            return NULL;
        }
        if (r) {
            if (cur->counting) {
                note_kind(cur->stream, r);
                cur->last[cur->yielded % 8].id = r->id;
                cur->last[cur->yielded % 8].event = r->event;
            }
            cur->yielded++;
            return r;
        }
        cur->limit = cur->yielded;
        if (cur->counting)
            finish_counting(cur);
    }
    if (cur->stream->with_pending && !cur->pending_done) {
        cur->pending_done = 1;
        return &cur->stream->header.pending;
    }
    return NULL;
}

void ot_raw_cursor_close(ot_raw_cursor *cur)
{
    fold_yielded(cur);
    if (cur->fd >= 0)
        close(cur->fd);
    free(cur->window);
    cur->fd = -1;
    cur->window = NULL;
}

/* Check a stream file's header; its records are counted by the first pass
 * that reads it through (ot_raw_count, or a pass over it uncounted): a file
 * may be sparse and far larger than what was written into it, and a long
 * run's records do not fit in memory. */
static int read_stream(const char *path, ot_raw_stream *out)
{
    struct stat st;
    int fd = ot_open_regular(path, &st);
    if (fd < 0)
        return fd;
    int rc = (size_t)st.st_size < OFFTRACE_RAW_HEADER_SIZE ? -EPROTO
           : pread(fd, &out->header, sizeof out->header, 0) != (ssize_t)sizeof out->header ? -EIO
           : check_stream_header(&out->header);
    close(fd);
    if (rc)
        return rc;
    uint64_t allocated = (uint64_t)st.st_blocks * 512;
    if (allocated > (uint64_t)st.st_size)
        allocated = (uint64_t)st.st_size;
    out->records_at_most = allocated > OFFTRACE_RAW_HEADER_SIZE
                         ? (size_t)((allocated - OFFTRACE_RAW_HEADER_SIZE) / sizeof(offtrace_raw_record)) + 1 : 1;
    out->path = strdup(path);
    return out->path ? 0 : -ENOMEM;
}

int ot_raw_stream_probe(ot_raw_stream *s, size_t records, const uint64_t *kinds, uint64_t target_kinds)
{
    ot_raw_cursor cur;
    if (ot_raw_cursor_open(&cur, s) != 0)
        return -ENOMEM;
    cur.counting = 0; /* a look at the start: the stream stays as it was */
    if (cur.limit > records)
        cur.limit = records;
    uint64_t looked_at[4] = {kinds[0], kinds[1], kinds[2], kinds[3]}; /* TARGET too: its kind then decides */
    if (target_kinds)
        looked_at[OFFTRACE_RAW_TARGET >> 6] |= 1ull << (OFFTRACE_RAW_TARGET & 63);
    int met = 0;
    for (const offtrace_raw_record *r; !met && (r = ot_raw_cursor_next(&cur));)
        if (looked_at[r->event >> 6] >> (r->event & 63) & 1)
            met = (int)(kinds[r->event >> 6] >> (r->event & 63) & 1) ||
                  (r->event == OFFTRACE_RAW_TARGET && r->subkind < 64 && (target_kinds >> r->subkind & 1));
    ot_raw_cursor_close(&cur);
    return met;
}

int ot_raw_count(ot_raw_recording *rec, ot_raw_visitor visit, void *context)
{
    for (size_t i = 0; i < rec->stream_count; i++) {
        ot_raw_stream *s = &rec->streams[i];
        if (s->counted)
            continue;
        ot_raw_cursor cur;
        if (ot_raw_cursor_open(&cur, s) != 0)
            return -ENOMEM;
        int rc = 0;
        for (const offtrace_raw_record *r; rc == 0 && (r = ot_raw_cursor_next(&cur));)
            rc = visit ? visit(context, s, r) : 0;
        ot_raw_cursor_close(&cur);
        if (rc)
            return rc;
    }
    return 0;
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

/* One clock.pairs field: decimal digits only (strtoull would take "-5" as
 * 2^64 - 5) and below 2^62 ns, about 146 years: CLOCK_MONOTONIC counts from
 * boot and CLOCK_REALTIME from 1970, so anything larger is damage. */
static int clock_field(const char **p, unsigned long long *out)
{
    while (**p == ' ')
        (*p)++;
    if (**p < '0' || **p > '9')
        return -1;
    char *end;
    errno = 0;
    *out = strtoull(*p, &end, 10);
    if (errno || *out >= 1ull << 62 || (*end != ' ' && *end != '\n' && *end != '\0'))
        return -1;
    *p = end;
    return 0;
}

static int load_clock_from(FILE *f, ot_raw_recording *rec);

static int load_clock(const char *raw_dir, ot_raw_recording *rec)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/clock.pairs", raw_dir);
    FILE *f = ot_fopen_regular(path);
    if (!f)
        return -ENOENT;
    return load_clock_from(f, rec);
}

int ot_raw_clock_reload(const char *raw_dir, ot_raw_recording *rec)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/clock.pairs", raw_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 26)) {
        if (fd >= 0)
            close(fd);
        return -EIO;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? pread(fd, text, (size_t)st.st_size, 0) : -1;
    close(fd);
    while (got > 0 && text[got - 1] != '\n') /* a line being written: not yet */
        got--;
    FILE *f = got > 0 ? fmemopen(text, (size_t)got, "r") : NULL;
    if (!f) {
        free(text);
        return got == 0 ? 0 : -ENOMEM;
    }
    ot_raw_recording now = {0};
    int rc = load_clock_from(f, &now);
    free(text);
    if (rc == 0 && !ot_timemap_is_prefix(rec->ticks_to_ns, now.ticks_to_ns))
        rc = -EPROTO;
    if (rc == 0 && ot_timemap_points(now.ticks_to_ns) > ot_timemap_points(rec->ticks_to_ns)) {
        ot_timemap_free(rec->ticks_to_ns);
        rec->ticks_to_ns = now.ticks_to_ns;
        return 1;
    }
    ot_timemap_free(now.ticks_to_ns);
    return rc;
}

static int load_clock_from(FILE *f, ot_raw_recording *rec)
{
    char line[256];
    unsigned long long ticks, mono, real;
    int first = 1;
    rec->ticks_to_ns = ot_timemap_new(1.0);
    if (!rec->ticks_to_ns) {
        fclose(f);
        return -ENOMEM;
    }
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') { /* an overlong line: skip the rest of it */
            int ch;
            while ((ch = fgetc(f)) != EOF && ch != '\n')
                ;
            rec->damaged_clock_pairs++;
            continue;
        }
        if (clock_field(&p, &ticks) || clock_field(&p, &mono) || clock_field(&p, &real)) {
            rec->damaged_clock_pairs += line[0] != '\n';
            continue;
        }
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
            order[i]->count = SIZE_MAX; /* marks it for removal below */
            rec->ignored[OT_RAW_IGNORED_DUPLICATE_THREAD]++;
            rec->ignored_streams++;
        }
    free(order);
    size_t kept = 0;
    for (size_t i = 0; i < rec->stream_count; i++)
        if (rec->streams[i].count != SIZE_MAX) {
            rec->streams[kept++] = rec->streams[i];
        } else {
            rec->lost_records -= rec->streams[i].header.lost_records;
            free(rec->streams[i].path);
        }
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
            free(s->path);
            memset(s, 0, sizeof *s);
            count_ignored(rec, rc);
            continue;
        }
        rec->lost_records += s->header.lost_records;
        rec->stream_count++;
    }
    return drop_duplicate_threads(rec);
}

/* ---- device files: checked and counted at load, walked by passes ---- */

static size_t read_full(int fd, void *buffer, size_t size, off_t offset)
{
    size_t got = 0;
    ssize_t n = 1;
    while (got < size && (n = pread(fd, (char *)buffer + got, size - got, offset + (off_t)got)) > 0)
        got += (size_t)n;
    return got;
}

static off_t device_record_offset(size_t index)
{
    return (off_t)(sizeof(offtrace_raw_device_header) + index * sizeof(offtrace_device_record));
}

/* Where the file's data ends: a hole at the end (a sparse file) holds no
 * record and is not read. */
static uint64_t data_end(int fd, uint64_t size)
{
    off_t pos = 0, end = 0, data;
    while (pos < (off_t)size && (data = lseek(fd, pos, SEEK_DATA)) >= 0) {
        off_t hole = lseek(fd, data, SEEK_HOLE);
        if (hole <= data)
            return size; /* holes not known here: all of it */
        end = hole;
        pos = hole;
    }
    return pos == 0 && end == 0 && errno != ENXIO ? size : (uint64_t)end;
}

/* A process that died before trimming its file leaves a zero tail: its
 * records end at the last one with a kind. Read backwards a window at a time. */
static int count_written(int fd, ot_raw_device_stream *ds)
{
    uint64_t end = data_end(fd, device_record_offset(ds->count));
    if (end < (uint64_t)device_record_offset(ds->count))
        ds->count = end <= sizeof ds->header ? 0
                  : (end - sizeof ds->header + sizeof(offtrace_device_record) - 1) / sizeof(offtrace_device_record);
    offtrace_device_record *window = malloc(OT_RAW_DEVICE_WINDOW_RECORDS * sizeof *window);
    if (!window)
        return -ENOMEM;
    int rc = 0;
    while (ds->count) {
        size_t n = ds->count < OT_RAW_DEVICE_WINDOW_RECORDS ? ds->count : OT_RAW_DEVICE_WINDOW_RECORDS,
               first = ds->count - n;
        if (read_full(fd, window, n * sizeof *window, device_record_offset(first)) < n * sizeof *window) {
            rc = -EIO;
            break;
        }
        while (n && window[n - 1].kind == 0)
            n--;
        ds->count = first + n;
        if (n)
            break;
    }
    free(window);
    return rc;
}

/* A file of another format is ignored and counted. */
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
        ds->count = payload / sizeof(offtrace_device_record);
        ds->torn_records = payload % sizeof(offtrace_device_record) ? 1 : 0;
        rc = count_written(fd, ds);
    }
    if (rc == 0 && !(ds->path = strdup(path)))
        rc = -ENOMEM;
    ds->header.backend[sizeof ds->header.backend - 1] = '\0';
    close(fd);
    return rc;
}

int ot_raw_device_cursor_open(ot_raw_device_cursor *cur, const ot_raw_device_stream *ds)
{
    memset(cur, 0, sizeof *cur);
    cur->fd = -1;
    cur->window = malloc(OT_RAW_DEVICE_WINDOW_RECORDS * sizeof *cur->window);
    if (!cur->window)
        return -ENOMEM;
    struct stat st;
    cur->fd = ot_open_regular(ds->path, &st);
    cur->count = cur->fd >= 0 ? ds->count : 0;
    return 0;
}

size_t ot_raw_device_cursor_refill(ot_raw_device_cursor *cur)
{
    size_t left = cur->count - cur->next,
           n = left < OT_RAW_DEVICE_WINDOW_RECORDS ? left : OT_RAW_DEVICE_WINDOW_RECORDS;
    n = n ? read_full(cur->fd, cur->window, n * sizeof *cur->window, device_record_offset(cur->next)) /
                sizeof *cur->window
          : 0;
    cur->window_pos = 0;
    cur->window_len = n;
    if (!n)
        cur->count = cur->next; /* the end, or a file that shrank */
    return n;
}

void ot_raw_device_cursor_close(ot_raw_device_cursor *cur)
{
    if (cur->fd >= 0)
        close(cur->fd);
    free(cur->window);
    cur->fd = -1;
    cur->window = NULL;
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

int ot_raw_open(const char *raw_dir, ot_raw_recording *rec, char *err, size_t err_size)
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

int ot_raw_load(const char *raw_dir, ot_raw_recording *rec, char *err, size_t err_size)
{
    int rc = ot_raw_open(raw_dir, rec, err, err_size);
    if (rc == 0 && (rc = ot_raw_count(rec, NULL, NULL)) != 0)
        snprintf(err, err_size, "offtrace: cannot read the streams in '%s': %s", raw_dir, strerror(-rc));
    return rc;
}

void ot_raw_free(ot_raw_recording *rec)
{
    for (size_t i = 0; i < rec->stream_count; i++)
        free(rec->streams[i].path);
    free(rec->streams);
    for (size_t i = 0; i < rec->device_stream_count; i++)
        free(rec->device_streams[i].path);
    free(rec->device_streams);
    free(rec->devices);
    for (size_t i = 0; i < rec->maps_count; i++)
        free(rec->maps_files[i]);
    free(rec->maps_files);
    ot_timemap_free(rec->ticks_to_ns);
    memset(rec, 0, sizeof *rec);
}

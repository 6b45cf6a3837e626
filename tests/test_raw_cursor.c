/* A stream cursor's windows (raw_reader.c), growing from a small first
 * read to full ones (issue 18, seventh round: written for a mapped window,
 * tried and left out; the reads are what it checks now). The records a pass yields are checked against those the test wrote: every
 * committed record of every chunk, in order, each chunk cut at its first
 * empty slot, across window and chunk boundaries; and a file cut short
 * after the pass began yields the records still there, without a fault. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/raw_stream.h"
#include "raw_reader.h"

#define CHUNK_RECORDS 1024u
#define CHUNKS 40u

/* Chunk i holds CHUNK_RECORDS - 37 * (i % 9) committed records, then zeros:
 * ids count up from 1 over the committed ones. */
static size_t committed_in(unsigned chunk)
{
    return CHUNK_RECORDS - 37u * (chunk % 9u);
}

static size_t write_stream(const char *path, ot_raw_stream *s)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    cr_assert_geq(fd, 0);
    offtrace_raw_stream_header h;
    memset(&h, 0, sizeof h);
    raw_main_thread_header(&h, CHUNK_RECORDS * sizeof(offtrace_raw_record));
    cr_assert_eq(pwrite(fd, &h, sizeof h, 0), (ssize_t)sizeof h);
    offtrace_raw_record *chunk = calloc(CHUNK_RECORDS, sizeof *chunk);
    uint64_t id = 0;
    for (unsigned c = 0; c < CHUNKS; c++) {
        memset(chunk, 0, CHUNK_RECORDS * sizeof *chunk);
        for (size_t i = 0; i < committed_in(c); i++) {
            chunk[i].event = OFFTRACE_RAW_OMP_PARALLEL;
            chunk[i].endpoint = OFFTRACE_RAW_BEGIN;
            chunk[i].id = ++id;
            chunk[i].time = 1000 + id;
        }
        off_t at = OFFTRACE_RAW_HEADER_SIZE + (off_t)c * CHUNK_RECORDS * (off_t)sizeof *chunk;
        cr_assert_eq(pwrite(fd, chunk, CHUNK_RECORDS * sizeof *chunk, at), (ssize_t)(CHUNK_RECORDS * sizeof *chunk));
    }
    free(chunk);
    close(fd);
    memset(s, 0, sizeof *s);
    s->header = h;
    s->path = strdup(path);
    return (size_t)id;
}

static char *scratch_file(void)
{
    char dir[] = "/tmp/offtrace-raw-cursor-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char *path = malloc(sizeof dir + 32);
    cr_assert_not_null(path);
    snprintf(path, sizeof dir + 32, "%s/thread-0.rec", dir);
    return path;
}

static void remove_scratch(char *path)
{
    unlink(path);
    *strrchr(path, '/') = '\0';
    rmdir(path);
    free(path);
}

Test(raw_cursor, every_committed_record_in_order_across_windows_and_chunks)
{
    char *path = scratch_file();
    ot_raw_stream s;
    size_t written = write_stream(path, &s);
    cr_assert_gt(written, 8 * OT_RAW_CURSOR_WINDOW_RECORDS, "several full windows");
    for (int pass = 0; pass < 2; pass++) { /* uncounted (counting as it goes), then counted */
        ot_raw_cursor cur;
        cr_assert_eq(ot_raw_cursor_open(&cur, &s), 0);
        uint64_t expect = 0;
        for (const offtrace_raw_record *r; (r = ot_raw_cursor_next(&cur));) {
            cr_assert_eq(r->id, expect + 1, "pass %d: record %llu has id %llu", pass, (unsigned long long)expect,
                         (unsigned long long)r->id);
            cr_assert_eq(r->time, 1000 + r->id);
            expect++;
        }
        ot_raw_cursor_close(&cur);
        cr_assert_eq(expect, written, "pass %d: %llu of %zu records", pass, (unsigned long long)expect, written);
        cr_assert(s.counted);
        cr_assert_eq(s.count, written);
    }
    remove_scratch(path);
    free(s.path);
}

Test(raw_cursor, a_file_cut_short_during_a_pass_yields_what_is_left)
{
    char *path = scratch_file();
    ot_raw_stream s;
    write_stream(path, &s);
    ot_raw_cursor cur;
    cr_assert_eq(ot_raw_cursor_open(&cur, &s), 0);
    uint64_t expect = 0;
    for (int i = 0; i < 100; i++) { /* within the first, small window */
        const offtrace_raw_record *r = ot_raw_cursor_next(&cur);
        cr_assert_not_null(r);
        cr_assert_eq(r->id, ++expect);
    }
    /* the file now ends within chunk 20, past the windows read so far */
    const unsigned keep_chunks = 20;
    off_t keep = OFFTRACE_RAW_HEADER_SIZE + ((off_t)keep_chunks * CHUNK_RECORDS + 500) * (off_t)sizeof(offtrace_raw_record);
    cr_assert_eq(truncate(path, keep), 0);
    size_t left = 0;
    for (unsigned c = 0; c < keep_chunks; c++)
        left += committed_in(c);
    left += 500 < committed_in(keep_chunks) ? 500 : committed_in(keep_chunks);
    for (const offtrace_raw_record *r; (r = ot_raw_cursor_next(&cur));)
        cr_assert_eq(r->id, ++expect);
    ot_raw_cursor_close(&cur);
    cr_assert_eq(expect, left, "%llu records of the %zu left", (unsigned long long)expect, left);
    remove_scratch(path);
    free(s.path);
}

/* The file index of the committed record with id \p id (write_stream's layout). */
static uint64_t file_index_of(uint64_t id)
{
    uint64_t before = 0;
    for (unsigned c = 0; c < CHUNKS; c++) {
        if (id <= before + committed_in(c))
            return (uint64_t)c * CHUNK_RECORDS + (id - before - 1);
        before += committed_in(c);
    }
    cr_assert_fail("no record %llu", (unsigned long long)id);
    return 0;
}

static void rewrite_record(const char *path, uint64_t id, uint8_t event, uint8_t subkind)
{
    int fd = open(path, O_RDWR);
    cr_assert_geq(fd, 0);
    off_t at = OFFTRACE_RAW_HEADER_SIZE + (off_t)file_index_of(id) * (off_t)sizeof(offtrace_raw_record);
    offtrace_raw_record r;
    cr_assert_eq(pread(fd, &r, sizeof r, at), (ssize_t)sizeof r);
    r.event = event;
    r.subkind = subkind;
    cr_assert_eq(pwrite(fd, &r, sizeof r, at), (ssize_t)sizeof r);
    close(fd);
}

#define TARGET_KIND 4 /* a TARGET record's kind (ompt_target_update) */

static int seen(const ot_raw_stream *s, uint8_t event)
{
    return (int)(s->events_seen[event >> 6] >> (event & 63) & 1);
}

/* What a pass over an uncounted stream learns as it reads (issue 18, eighth
 * round: the records the inline step yields are noted a window at a time):
 * every kind it holds, wherever in a window it is, the target kinds, and
 * whether the header's pending begin is one of the last records already
 * committed (then it is not yielded again) or a new one (yielded last). */
Test(raw_cursor, a_counting_pass_learns_every_kind_and_the_pending_begin)
{
    char *path = scratch_file();
    for (int pending_is_new = 0; pending_is_new < 2; pending_is_new++) {
        ot_raw_stream s;
        size_t written = write_stream(path, &s);
        rewrite_record(path, 3001, OFFTRACE_RAW_MEASUREMENT, 0);        /* in the middle of a full window */
        rewrite_record(path, 7, OFFTRACE_RAW_TARGET, TARGET_KIND); /* in the small first window */
        rewrite_record(path, written - 3, OFFTRACE_RAW_DATA_OP, 1);     /* among the last eight */
        s.header.pending.event = OFFTRACE_RAW_DATA_OP;
        s.header.pending.endpoint = OFFTRACE_RAW_BEGIN;
        s.header.pending.id = pending_is_new ? written + 1 : written - 3;
        ot_raw_cursor cur;
        cr_assert_eq(ot_raw_cursor_open(&cur, &s), 0);
        size_t yielded = 0;
        uint64_t last_id = 0;
        for (const offtrace_raw_record *r; (r = ot_raw_cursor_next(&cur));) {
            yielded++;
            last_id = r->id;
        }
        ot_raw_cursor_close(&cur);
        cr_assert(s.counted);
        cr_assert_eq(s.with_pending, pending_is_new, "the pending begin %s one of the last records",
                     pending_is_new ? "is not" : "is");
        cr_assert_eq(s.count, written + (size_t)pending_is_new);
        cr_assert_eq(yielded, s.count);
        cr_assert_eq(last_id, pending_is_new ? written + 1 : written);
        cr_assert(seen(&s, OFFTRACE_RAW_OMP_PARALLEL) && seen(&s, OFFTRACE_RAW_MEASUREMENT) &&
                  seen(&s, OFFTRACE_RAW_TARGET) && seen(&s, OFFTRACE_RAW_DATA_OP));
        cr_assert(!seen(&s, OFFTRACE_RAW_NONE) && !seen(&s, OFFTRACE_RAW_SUBMIT) && !seen(&s, OFFTRACE_RAW_OMP_CHUNK));
        cr_assert_eq(s.target_kinds_seen, 1ull << TARGET_KIND);
        free(s.path);
    }
    remove_scratch(path);
}

/* The kinds a counting pass notes a window at a time (issue 18, eleventh
 * round: a byte per kind, folded into the stream's bits once per window):
 * an event byte past the first word of the bits, one in the last, and a
 * TARGET of a kind past 64 (all target kinds then), each where a full
 * window holds it, and nothing else. */
Test(raw_cursor, a_counting_pass_notes_kinds_in_every_word_of_its_bits)
{
    char *path = scratch_file();
    ot_raw_stream s;
    write_stream(path, &s);
    rewrite_record(path, 5000, 130, 0);                  /* third word */
    rewrite_record(path, 9000, 255, 0);                  /* last bit of the last word */
    rewrite_record(path, 20000, OFFTRACE_RAW_TARGET, 70); /* a kind past the 64 bits */
    ot_raw_cursor cur;
    cr_assert_eq(ot_raw_cursor_open(&cur, &s), 0);
    size_t yielded = 0;
    for (const offtrace_raw_record *r; (r = ot_raw_cursor_next(&cur));)
        yielded++;
    ot_raw_cursor_close(&cur);
    cr_assert(s.counted);
    cr_assert_eq(yielded, s.count);
    for (unsigned e = 0; e < 256; e++)
        cr_assert_eq(seen(&s, (uint8_t)e),
                     e == OFFTRACE_RAW_OMP_PARALLEL || e == 130 || e == 255 || e == OFFTRACE_RAW_TARGET,
                     "event byte %u %s", e, seen(&s, (uint8_t)e) ? "noted, none written" : "written, not noted");
    cr_assert_eq(s.target_kinds_seen, UINT64_MAX);
    free(s.path);
    remove_scratch(path);
}

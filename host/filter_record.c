/**
 * \file filter_record.c
 * \brief Filters in the recorder (filter_record.h): OFFTRACE_FILTER loaded
 *        at start-up, raw/filter written and mapped, per-id decisions.
 *
 * Why decisions are taken at definition time: the API library defines each
 * user id once, under its lock, before its first use (user_recorder.h), so
 * the rules' fnmatch calls run once per call site and the hot path reads a
 * byte. Why counts in a mapped file of their own: like raw/counters, they
 * survive a program that dies, and the converter reads them in its own
 * process; one cache line per thread keeps the counting free of atomics
 * and of false sharing.
 */
#define _GNU_SOURCE
#include "filter_record.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter.h"
#include "session.h"

uint8_t ot_filter_user_removed[OT_FILTER_USER_IDS + 1];
OT_TLS uint64_t *ot_filter_thread_removed;
OT_TLS int ot_filter_thread_shares;

static ot_filter *active;                 /* NULL: no filter, or rejected */
static offtrace_raw_filter unmapped_page; /* counts when raw/filter could not be mapped */
static offtrace_raw_filter *page = &unmapped_page;

uint64_t *ot_filter_take_slot(void)
{
    uint32_t i = __atomic_fetch_add(&page->next_slot, 1, __ATOMIC_RELAXED);
    if (i < OFFTRACE_RAW_FILTER_SLOTS) {
        ot_filter_thread_removed = page->slot[i].removed;
    } else {
        ot_filter_thread_shares = 1;
        ot_filter_thread_removed = page->shared.removed;
    }
    return ot_filter_thread_removed;
}

/* raw/filter: the header (allocated, then mapped: a store into an unbacked
 * page of a full file system raises SIGBUS) and the file's text after it. */
static void write_page(const offtrace_raw_filter *h, const char *text, size_t text_len)
{
    int fd = ot_session_open_file(OFFTRACE_RAW_FILTER, O_RDWR | O_CREAT | O_TRUNC, NULL);
    if (fd < 0)
        return;
    int ok = posix_fallocate(fd, 0, OFFTRACE_RAW_FILTER_HEADER_SIZE) == 0 &&
             pwrite(fd, h, sizeof *h, 0) == (ssize_t)sizeof *h &&
             (!text_len || pwrite(fd, text, text_len, OFFTRACE_RAW_FILTER_HEADER_SIZE) == (ssize_t)text_len);
    void *p = ok ? mmap(NULL, OFFTRACE_RAW_FILTER_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                 : MAP_FAILED;
    close(fd);
    if (p != MAP_FAILED)
        page = p;
    else if (ot_the_session.verbose > 0)
        fprintf(stderr, "offtrace: filter: raw/filter could not be written; removed events are not counted "
                        "in the archive\n");
}

void ot_filter_record_open(const char *path)
{
    if (!path || !*path)
        return;
    offtrace_raw_filter *h = calloc(1, sizeof *h);
    if (!h)
        return;
    memcpy(h->magic, OFFTRACE_RAW_FILTER_MAGIC, sizeof h->magic);
    h->version = OFFTRACE_RAW_VERSION;
    h->size = sizeof *h;
    snprintf(h->path, sizeof h->path, "%s", path);
    char *text = NULL;
    size_t text_len = 0;
    ot_filter *f = NULL;
    if (ot_filter_load(path, &f, &text, &text_len, h->problem, sizeof h->problem) != 0) {
        h->rejected = 1;
        fprintf(stderr, "offtrace: filter %s; the program is traced without a filter\n", h->problem);
    }
    h->text_bytes = (uint32_t)text_len;
    write_page(h, text, text_len);
    free(text);
    free(h);
    active = f;
}

void ot_filter_record_define_user(uint32_t id, const char *name, const char *file, uint32_t line)
{
    if (active && id <= OT_FILTER_USER_IDS)
        ot_filter_user_removed[id] = !ot_filter_keeps(active, name, file, line);
}

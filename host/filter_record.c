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
#include <omp-tools.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter.h"
#include "filter_where.h"
#include "session.h"

uint8_t ot_filter_user_removed[OT_FILTER_USER_IDS + 1];
int ot_filter_openmp_active;
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
    if (f && ot_filter_rule_count(f))
        ot_filter_openmp_active = 1;
}

void ot_filter_record_define_user(uint32_t id, const char *name, const char *file, uint32_t line)
{
    if (active && id <= OT_FILTER_USER_IDS)
        ot_filter_user_removed[id] = !ot_filter_keeps(active, name, file, line);
}

int ot_filter_record_removes_name(const char *name)
{
    return active && !ot_filter_keeps(active, name, NULL, 0);
}

/* ---- host OpenMP constructs: decided once per call site ----
 *
 * An open-addressing table of (event, subkind, codeptr) keys: a reader
 * finds its key (acquire) and reads the decision stored before it; a new
 * key is inserted under the lock after the decision is taken (fnmatch, and
 * libdw for file rules). Bounded: past 3/4 full, new call sites are kept,
 * so a program with very many constructs is recorded, not mis-filtered. */
#define SITES 4096u
static uint64_t site_key[SITES];
static uint8_t site_removed[SITES];
static unsigned site_count;
static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;

/* The construct's name as the converter shows it (convert/openmp_naming.c). */
static const char *construct_name(uint8_t event, uint8_t subkind)
{
    switch (event) {
    case OFFTRACE_RAW_OMP_PARALLEL: return "parallel";
    case OFFTRACE_RAW_OMP_MASKED: return "masked";
    case OFFTRACE_RAW_OMP_WORK:
        switch (subkind) {
        case ompt_work_loop: return "loop";
        case ompt_work_sections: return "sections";
        case ompt_work_single_executor: return "single";
        case ompt_work_single_other: return "single (other thread)";
        case ompt_work_workshare: return "workshare";
        case ompt_work_distribute: return "distribute";
        case ompt_work_taskloop: return "taskloop";
        case ompt_work_scope: return "scope";
        case ompt_work_loop_static: return "loop (static)";
        case ompt_work_loop_dynamic: return "loop (dynamic)";
        case ompt_work_loop_guided: return "loop (guided)";
        case ompt_work_loop_other: return "loop";
        default: return "worksharing";
        }
    case OFFTRACE_RAW_OMP_SYNC:
        switch (subkind) {
        case ompt_sync_region_barrier:
        case ompt_sync_region_barrier_explicit: return "barrier";
        case ompt_sync_region_barrier_implicit: return "implicit barrier";
        case ompt_sync_region_barrier_implementation: return "barrier (runtime)";
        case ompt_sync_region_taskwait: return "taskwait";
        case ompt_sync_region_taskgroup: return "taskgroup";
        case ompt_sync_region_reduction: return "reduction";
        case ompt_sync_region_barrier_implicit_workshare: return "implicit barrier (worksharing end)";
        case ompt_sync_region_barrier_implicit_parallel: return "implicit barrier (parallel end)";
        case ompt_sync_region_barrier_teams: return "implicit barrier (teams end)";
        default: return "synchronization";
        }
    default: return "";
    }
}

static int decide_site(uint8_t event, uint8_t subkind, const void *codeptr)
{
    char file[1024];
    uint32_t line = 0;
    file[0] = '\0';
    if (ot_filter_has_file_rules(active))
        ot_filter_where(codeptr, file, sizeof file, &line);
    return !ot_filter_keeps(active, construct_name(event, subkind), file, line);
}

int ot_filter_openmp_removed(uint8_t event, uint8_t subkind, const void *codeptr)
{
    /* user-space code addresses stay below 2^47; bit 63 keeps a key off 0, the empty slot */
    uint64_t key = (uint64_t)(uintptr_t)codeptr | (uint64_t)(event & 0x7f) << 56 | (uint64_t)subkind << 48 | 1ull << 63;
    unsigned h = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 52) & (SITES - 1);
    for (unsigned i = h;; i = (i + 1) & (SITES - 1)) {
        uint64_t k = __atomic_load_n(&site_key[i], __ATOMIC_ACQUIRE);
        if (k == key)
            return site_removed[i];
        if (!k)
            break;
    }
    pthread_mutex_lock(&site_lock);
    int removed = 0;
    unsigned i = h;
    for (;; i = (i + 1) & (SITES - 1)) {
        uint64_t k = __atomic_load_n(&site_key[i], __ATOMIC_RELAXED);
        if (k == key || !k)
            break;
    }
    if (site_key[i] == key) {
        removed = site_removed[i];
    } else if (site_count < SITES / 4 * 3) {
        removed = decide_site(event, subkind, codeptr);
        site_removed[i] = (uint8_t)removed;
        site_count++;
        __atomic_store_n(&site_key[i], key, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&site_lock);
    return removed;
}

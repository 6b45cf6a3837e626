/**
 * \file convert_live.c
 * \brief The live conversion of convert_live.h: the first host stream
 *        written while the program runs, on a thread of record's, checked
 *        against the finished recording before it is kept.
 *
 * The attempt must give exactly the archive the conversion after the end
 * would give. What it takes from the recording before the end, and how it
 * is checked at the end (ot_convert_live_finish):
 * - the map sites, the user and the NVTX definitions: read again when a
 *   record names one not read yet (the recorder writes a site's line, the
 *   program a user id's or an NVTX text's definition, before any record
 *   names it: defs_reread.h); at the end the file must begin with what was
 *   read, and one asked for in vain must still be undefined
 *   (ot_map_names_live_end, ot_user_defs_live_end, ot_nvtx_defs_live_end;
 *   user events only in a program of one thread, and no NVTX range ended on
 *   another thread than its own: both are paired across threads before the
 *   first stream is written; the first thread's NVTX name as its pass
 *   took it);
 * - the device list, the maps snapshots, and every other file of raw/ the
 *   conversion reads at its start: the files are fingerprinted (name, size,
 *   contents) when the attempt starts and must be the same at the end; the
 *   first stream and the devices as ot_raw_open reads them must be the same;
 * - the other threads' streams: the finished recording's, written after the
 *   end, whether their threads started before the attempt began or after,
 *   ended early or not (issue 18, eighth round); of their number the attempt
 *   keeps only the archive's definition chunk, which must not change, and
 *   the device items: once another stream exists, the first stream's go to
 *   the device timelines' sorts, as the conversion after the end sends them
 *   for a recording of several streams (notice_other_streams);
 * - the first stream's records: only chunks the writer has left (the next
 *   chunk holds a committed record: a thread fills its chunks in order), and
 *   only once clock.pairs holds a pair later than every time in them (the
 *   recorder appends one at every chunk switch), so that the tick -> ns map
 *   gives them the values the final map gives (its points are added in
 *   order; a value between two points never changes). The final map must
 *   begin with the points used;
 * - no explicit task (it needs the counting pass: the attempt stops there;
 *   a data region is written in one pass, host_pass.c), no lock event on the
 *   first thread (a lock's id and acquisition order are numbered over every
 *   stream whole: host_mutex.c marks the attempt live_unsupported), no MPI definitions
 *   (their pass reads every stream before the first is written), not an MPI rank
 *   (record does not start it), and the recording complete (status
 *   "recorded"): anything else, or anything unexpected, and the attempt is
 *   dropped without a trace; record then converts the usual way.
 */
#define _GNU_SOURCE
#include "convert_live.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "convert_internal.h"
#include "map_names.h"
#include "nvtx_pass.h"
#include "user_pass.h"
#include "../../user/user_recorder.h"
#include "write_counts.h"
#include "offtrace/offtrace.h"

/* How long the thread sleeps when the program has not written what it may
 * convert next: short against a chunk's time to fill, long against a wake-up. */
#define LIVE_POLL_MS 1
/* Records the gate reads at once to check a chunk's times (64 KiB). */
#define SCAN_RECORDS 1024u

typedef struct file_print {
    char name[64];
    uint64_t size, hash;
} file_print;

struct ot_convert_live {
    char dir[4096], raw_dir[4200];
    pthread_t thread;
    int started;
    int ended; /* atomic: the program has ended */
    int dropped; /* ot_convert_live_drop: not wanted any more */
    int wake;    /* eventfd written at the program's end, -1: none (the thread naps its whole nap) */
    /* the attempt, handed over at the join */
    converter *c;
    int rc;            /* 0: the first stream is written; else given up (or not begun: the program was short) */
    int began;
    ot_write_counts *counts; /* the attempt's start asks for them: its writer counts what it writes */
    ot_convert_options opts;
    ot_raw_live_gate gate;
    file_print *prints;
    size_t print_count;
    /* the first stream as the gate sees it */
    int fd;
    uint64_t per_chunk, chunk_bytes, allowed; /* allowed: records of the chunks handed out */
    offtrace_raw_record *scan;                /* SCAN_RECORDS of a chunk, read to check its times */
    uint64_t records_before_end;              /* committed records handed out before the end (tests, the summary) */
    struct timespec t0;                       /* the attempt's start */
    struct timespec ended_at;                 /* when record learnt the program had ended */
    double live_seconds;                      /* its work before the end (CPU of the thread) */
    int handing_over;                         /* the live thread's pass stopped at the end, for record's thread */
    int other_streams;                        /* a thread stream besides the first is known to exist */
};

static int has_ended(ot_convert_live *l)
{
    return __atomic_load_n(&l->ended, __ATOMIC_ACQUIRE);
}

/* A poll's wait, cut short by the program's end (ot_convert_live_program_ended
 * writes the eventfd): the end is not kept waiting for the nap to finish. */
static void nap(ot_convert_live *l)
{
    struct pollfd p = {.fd = l->wake, .events = POLLIN};
    if (l->wake < 0 || poll(&p, 1, LIVE_POLL_MS) < 0) {
        struct timespec ns = {0, LIVE_POLL_MS * 1000000L};
        nanosleep(&ns, NULL);
    }
}

/* ---- what the attempt takes from raw/ at its start, checked at the end ---- */

/* The files the stream passes and the clock map read as they go, and the
 * ones the end writes or the claim takes: not fingerprinted. */
static int changes_by_design(const char *name)
{
    static const char *const names[] = {"clock.pairs", "counters", "status", "owner", "converter",
                                        /* read again as they grow, checked at the end (ot_*_live_end) */
                                        OFFTRACE_RAW_MAP_DEFS, OFFTRACE_RAW_USER_DEFS, OT_USER_DROPPED_FILE,
                                        OFFTRACE_RAW_NVTX_DEFS};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i]))
            return 1;
    size_t len = strlen(name);
    return len > 4 && !strcmp(name + len - 4, ".rec"); /* thread and device streams */
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static int by_print_name(const void *a, const void *b)
{
    return strcmp(((const file_print *)a)->name, ((const file_print *)b)->name);
}

/* Every other regular file of raw/: its name, size and contents' hash, by name. */
static int fingerprint(const char *raw_dir, file_print **out, size_t *count)
{
    DIR *d = opendir(raw_dir);
    if (!d)
        return -errno;
    file_print *prints = NULL;
    size_t n = 0;
    int rc = 0;
    unsigned char buf[65536];
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.' || changes_by_design(e->d_name))
            continue;
        if (strlen(e->d_name) >= sizeof prints->name) {
            rc = -ENAMETOOLONG;
            break;
        }
        file_print *more = realloc(prints, (n + 1) * sizeof *more);
        if (!more) {
            rc = -ENOMEM;
            break;
        }
        prints = more;
        file_print *f = &prints[n++];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", e->d_name);
        f->hash = 0xcbf29ce484222325ull;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            f->size = UINT64_MAX; /* not a file it reads: named all the same */
        } else {
            for (ssize_t got; (got = read(fd, buf, sizeof buf)) > 0;) {
                f->hash = fnv1a(f->hash, buf, (size_t)got);
                f->size += (uint64_t)got;
            }
        }
        if (fd >= 0)
            close(fd);
    }
    closedir(d);
    if (rc) {
        free(prints);
        return rc;
    }
    qsort(prints, n, sizeof *prints, by_print_name);
    *out = prints;
    *count = n;
    return 0;
}

/* ---- the first stream's gate ---- */

static __thread int on_live_thread; /* set by live_main: the thread whose pass is handed over */

static double thread_cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}


/* The latest time a record's conversion turns into ns (its end, a clock
 * read's width included). */
static uint64_t latest_time(const offtrace_raw_record *r)
{
    uint64_t t = r->time;
    if (r->endpoint == OFFTRACE_RAW_COMPLETE && r->end_time > t)
        t = r->end_time;
    if (r->event == OFFTRACE_RAW_SYNC && r->time + r->src_addr > t)
        t = r->time + r->src_addr;
    return t;
}

/* Whether chunk \p k of the first stream is one the writer has left: the
 * first record of the chunk after it is committed. */
static int chunk_left(ot_convert_live *l, uint64_t k)
{
    offtrace_raw_record next;
    off_t at = (off_t)(OFFTRACE_RAW_HEADER_SIZE + (k + 1) * l->chunk_bytes);
    return pread(l->fd, &next, sizeof next, at) == (ssize_t)sizeof next &&
           __atomic_load_n(&next.event, __ATOMIC_ACQUIRE) != OFFTRACE_RAW_NONE;
}

/* Whether every time in chunk \p k lies before the clock map's last point
 * (with two points at least: a map of one point gives other values once it
 * has two), read a piece at a time. */
static int chunk_timed(ot_convert_live *l, uint64_t k)
{
    const ot_timemap *m = l->c->rec.ticks_to_ns;
    if (ot_timemap_points(m) < 2)
        return 0;
    uint64_t last = ot_timemap_last_x(m);
    for (uint64_t done = 0; done < l->per_chunk; done += SCAN_RECORDS) {
        uint64_t n = l->per_chunk - done < SCAN_RECORDS ? l->per_chunk - done : SCAN_RECORDS;
        off_t at = (off_t)(OFFTRACE_RAW_HEADER_SIZE + k * l->chunk_bytes + done * sizeof *l->scan);
        if (pread(l->fd, l->scan, n * sizeof *l->scan, at) != (ssize_t)(n * sizeof *l->scan))
            return 0;
        for (uint64_t i = 0; i < n; i++) {
            if (l->scan[i].event == OFFTRACE_RAW_NONE) /* the chunk's end: a reader goes no further */
                return 1;
            if (latest_time(&l->scan[i]) >= last)
                return 0;
        }
    }
    return 1;
}

/* Whether raw/ holds a thread stream besides the first (a thread started
 * since the attempt began, ended or not). */
static int other_stream_exists(const ot_convert_live *l)
{
    DIR *d = opendir(l->raw_dir);
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        found = len > 11 && !strncmp(e->d_name, "thread-", 7) && !strcmp(e->d_name + len - 4, ".rec") &&
                strcmp(e->d_name, "thread-0.rec");
    }
    if (d)
        closedir(d);
    return found;
}

/* Once another thread has a stream, the first stream is no longer the last
 * that may add device items: from here on they go to the device timelines'
 * sorts, as the conversion after the end sends all of them for a recording of
 * several streams (ot_cv_tell_device_timelines). Those written as they came
 * before stay first; should a later stream's item come before one of them,
 * the write fails and record converts again after the end (device_timeline.h). */
static void notice_other_streams(ot_convert_live *l)
{
    if (l->other_streams || !other_stream_exists(l))
        return;
    l->other_streams = 1;
    converter *c = l->c;
    c->device_items_last_source = 0;
    for (size_t k = 0; k < c->device_count; k++)
        ot_cv_tell_device_timeline(c, &c->devices[k]);
}

/* The gate (raw_reader.h): the chunks the writer has left and the clock map
 * covers, a chunk more each time; the end. */
static uint64_t wait_more(void *context, uint64_t allowed)
{
    ot_convert_live *l = context;
    for (;;) {
        if (has_ended(l)) { /* the tail's times need the map's last points, the end's pair among them */
            if (on_live_thread) /* else it was handed over: measured then */
                l->live_seconds = thread_cpu_seconds(); /* its work while the program ran */
            if (ot_raw_clock_reload(l->raw_dir, &l->c->rec) < 0)
                l->rc = -EPROTO;
            notice_other_streams(l); /* the tail is read without the gate: every thread's stream exists by now */
            return OT_RAW_LIVE_ENDED;
        }
        uint64_t k = l->allowed / l->per_chunk;
        int timed = 0;
        if (l->c->live_unsupported) { /* the pass met what only the conversion after the end writes */
            l->rc = -ENOTSUP;
            while (!has_ended(l))
                nap(l);
            return OT_RAW_LIVE_ENDED;
        }
        if (chunk_left(l, k) && !(timed = chunk_timed(l, k))) {
            int grew = ot_raw_clock_reload(l->raw_dir, &l->c->rec);
            if (grew < 0) { /* the clock file no longer begins as it did: wait for the end, drop the attempt */
                l->rc = -EPROTO;
                while (!has_ended(l))
                    nap(l);
                return OT_RAW_LIVE_ENDED;
            }
            timed = grew && chunk_timed(l, k);
        }
        if (timed) {
            notice_other_streams(l);
            l->allowed += l->per_chunk;
            l->records_before_end += l->per_chunk;
            if (l->allowed > allowed)
                return l->allowed;
            continue;
        }
        nap(l);
    }
}

/* The gate's other question (raw_reader.h): once the program has ended,
 * the live thread's pass stops where it is and record's own thread goes on
 * with it (ot_convert_live_finish). The live thread runs SCHED_IDLE, and a
 * user without the right to raise a thread's priority (RLIMIT_NICE 0, no
 * CAP_SYS_NICE: most) cannot make it normal again; on a busy machine an
 * idle thread's tail could take many times as long. */
static int hand_over(void *context)
{
    ot_convert_live *l = context;
    if (!has_ended(l) || !on_live_thread)
        return 0;
    if (!l->handing_over) {
        l->handing_over = 1;
        l->live_seconds = thread_cpu_seconds(); /* its work while the program ran */
    }
    return 1;
}

/* ---- the thread ---- */

/* Until the program has left its first chunk (its start-up written: the
 * device list, the maps, the map sites), or ended. 1: begin. */
static int wait_for_first_chunk(ot_convert_live *l)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/thread-0.rec", l->raw_dir);
    while (!has_ended(l)) {
        if (l->fd < 0)
            l->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        offtrace_raw_stream_header h;
        if (l->fd >= 0 && pread(l->fd, &h, sizeof h, 0) == (ssize_t)sizeof h && h.chunk_bytes >= 4096 &&
            h.record_size == sizeof(offtrace_raw_record) && h.chunk_bytes % sizeof(offtrace_raw_record) == 0) {
            l->chunk_bytes = h.chunk_bytes;
            l->per_chunk = h.chunk_bytes / sizeof(offtrace_raw_record);
            if (chunk_left(l, 0))
                return 1;
        }
        nap(l);
    }
    return 0;
}

static void *live_main(void *arg)
{
    ot_convert_live *l = arg;
    on_live_thread = 1;
    struct sched_param idle = {0};
    const char *not_idle = getenv("OFFTRACE_TEST_LIVE_NOT_IDLE"); /* tests: work done before the end, on any load */
    if (!not_idle || strcmp(not_idle, "1"))
        pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle); /* never in the program's way */
    l->rc = -EAGAIN;
    if (!wait_for_first_chunk(l))
        return NULL; /* a short program: nothing to win */
    clock_gettime(CLOCK_MONOTONIC, &l->t0);
    l->began = 1;
    char msg[512];
    l->c = calloc(1, sizeof *l->c);
    l->scan = malloc(SCAN_RECORDS * sizeof *l->scan);
    if (!l->c || !l->scan || fingerprint(l->raw_dir, &l->prints, &l->print_count) != 0)
        return NULL;
    converter *c = l->c;
    c->live = 1;
    char archive_dir[4400];
    snprintf(archive_dir, sizeof archive_dir, "%s/.live-archive", l->dir);
    mkdir(archive_dir, 0777);
    l->opts.counts = &l->counts;
    l->opts.progress_after_ns = INT64_MAX; /* never a progress line: the program's output is on that terminal */
    int rc = ot_cv_start(c, l->dir, archive_dir, &l->opts, 1, msg, sizeof msg);
    size_t path_len = rc == 0 && c->rec.stream_count ? strlen(c->rec.streams[0].path) : 0;
    if (rc == 0 && (c->rec.stream_count == 0 || path_len < 13 ||
                    strcmp(c->rec.streams[0].path + path_len - 13, "/thread-0.rec") ||
                    c->mpi_regions || c->mpi_clock_points))
        rc = -ENOTSUP; /* what the attempt cannot do before the end */
    if (rc == 0) {
        c->rec.streams[0].live = &l->gate;
        ot_cv_tell_device_timelines(c, 0);
        l->other_streams = c->rec.stream_count > 1; /* then the device items are sorted from the start */
        rc = ot_cv_host_thread(c, &c->rec.streams[0]);
        if (rc == OT_CV_HANDED_OVER) /* the rest on record's own thread (ot_convert_live_finish) */
            rc = 0;
        else
            c->rec.streams[0].live = NULL;
    }
    if (l->rc == -EAGAIN)
        l->rc = rc;
    return NULL;
}

/* OFFTRACE_LIVE_CONVERSION as OFFTRACE_ENABLE reads its values; a wrong one
 * is said once and taken as off (the conversion after the end is the safe one). */
static int live_wanted(void)
{
    static const char *const yes[] = {"1", "on", "yes", "true"}, *const no[] = {"0", "off", "no", "false"};
    const char *knob = getenv("OFFTRACE_LIVE_CONVERSION");
    if (!knob)
        return 1;
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(knob, yes[i]))
            return 1;
        if (!strcasecmp(knob, no[i]))
            return 0;
    }
    fprintf(stderr, "offtrace: OFFTRACE_LIVE_CONVERSION='%s' is not valid (accepted: on, off); the archive is "
                    "written after the program ends\n", knob);
    return 0;
}

ot_convert_live *ot_convert_live_start(const char *dir)
{
    if (!live_wanted())
        return NULL;
    ot_convert_live *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    snprintf(l->dir, sizeof l->dir, "%s", dir);
    snprintf(l->raw_dir, sizeof l->raw_dir, "%s/raw", dir);
    l->fd = -1;
    l->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    l->gate = (ot_raw_live_gate){wait_more, hand_over, l};
    l->started = pthread_create(&l->thread, NULL, live_main, l) == 0;
    if (!l->started) {
        if (l->wake >= 0)
            close(l->wake);
        free(l);
        return NULL;
    }
    return l;
}

/* The finished recording as ot_raw_open reads it against what the attempt
 * took: the same first stream (its header as it was), devices, host
 * device, maps snapshots, device files' backends; the clock map begun with
 * the points used; every fingerprinted file unchanged. The other streams
 * are the finished recording's, whatever there were when the attempt
 * began: they are written after the end (threads started or ended since
 * included), so only what the attempt set up from their number must not
 * change: the archive's definition chunk (ot_tw_open). */
static int same_recording(const ot_convert_live *l, const ot_raw_recording *was, const ot_raw_recording *now)
{
    if (!now->stream_count || !was->stream_count || now->device_count != was->device_count ||
        now->host_device != was->host_device || now->maps_count != was->maps_count ||
        !ot_timemap_is_prefix(was->ticks_to_ns, now->ticks_to_ns) ||
        ot_tw_definition_chunk(ot_cv_max_locations(now)) != ot_tw_definition_chunk(ot_cv_max_locations(was)))
        return 0;
    if (strcmp(now->streams[0].path, was->streams[0].path) ||
        now->streams[0].header.thread_index != was->streams[0].header.thread_index)
        return 0;
    const offtrace_raw_stream_header *a = &now->streams[0].header, *b = &was->streams[0].header;
    if (a->os_tid != b->os_tid || a->thread_kind != b->thread_kind || a->is_process_main != b->is_process_main ||
        a->chunk_bytes != b->chunk_bytes || a->lost_records != b->lost_records || a->lost_cause != b->lost_cause ||
        memcmp(&a->pending, &b->pending, sizeof a->pending))
        return 0;
    for (size_t i = 0; i < now->device_count; i++)
        if (now->devices[i].num != was->devices[i].num || strcmp(now->devices[i].kind, was->devices[i].kind))
            return 0;
    for (size_t i = 0; i < now->maps_count; i++)
        if (strcmp(now->maps_files[i], was->maps_files[i]))
            return 0;
    file_print *prints = NULL;
    size_t count = 0;
    int same = fingerprint(l->raw_dir, &prints, &count) == 0 && count == l->print_count &&
               !memcmp(prints, l->prints, count * sizeof *prints);
    free(prints);
    return same;
}

/* Whether raw/status says the recording is complete. */
static int recorded(const char *raw_dir)
{
    char path[4400], text[32] = "";
    snprintf(path, sizeof path, "%s/status", raw_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    ssize_t got = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        close(fd);
    return got > 0 && !strncmp(text, "recorded", 8) && (got == 8 || text[8] == '\n');
}

/* The attempt's archive in its place: the same names ot_convert_directory writes. */
static int move_archive(const char *dir)
{
    static const char *const parts[] = {OFFTRACE_ARCHIVE_NAME ".def", OFFTRACE_ARCHIVE_NAME,
                                        OFFTRACE_ARCHIVE_NAME ".otf2"}; /* the anchor last: it says it is whole */
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char from[4400], to[4400];
        snprintf(from, sizeof from, "%s/.live-archive/%s", dir, parts[i]);
        snprintf(to, sizeof to, "%s/%s", dir, parts[i]);
        if (rename(from, to) != 0)
            return -errno;
    }
    char live_dir[4400];
    snprintf(live_dir, sizeof live_dir, "%s/.live-archive", dir);
    rmdir(live_dir);
    return 0;
}

static void remove_live_archive(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/.live-archive", dir);
    char cmd_path[4400];
    static const char *const parts[] = {OFFTRACE_ARCHIVE_NAME ".def", OFFTRACE_ARCHIVE_NAME ".otf2"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        snprintf(cmd_path, sizeof cmd_path, "%s/%s", path, parts[i]);
        unlink(cmd_path);
    }
    snprintf(cmd_path, sizeof cmd_path, "%s/%s", path, OFFTRACE_ARCHIVE_NAME);
    DIR *d = opendir(cmd_path);
    if (d) {
        for (struct dirent *e; (e = readdir(d));)
            if (e->d_name[0] != '.')
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
        rmdir(cmd_path);
    }
    rmdir(path);
}

void ot_convert_live_program_ended(ot_convert_live *l)
{
    if (l && !__atomic_load_n(&l->ended, __ATOMIC_ACQUIRE)) {
        clock_gettime(CLOCK_MONOTONIC, &l->ended_at); /* before the flag: the thread reads it after */
        __atomic_store_n(&l->ended, 1, __ATOMIC_RELEASE);
        uint64_t one = 1;
        if (l->wake >= 0) { /* a failure: the thread is awake already (the counter is full) */
            ssize_t ignored = write(l->wake, &one, sizeof one);
            (void)ignored;
        }
    }
}

void ot_convert_live_drop(ot_convert_live *l)
{
    ot_convert_live_result ignored;
    char msg[16];
    if (l)
        l->dropped = 1;
    ot_convert_live_finish(l, NULL, &ignored, msg, sizeof msg);
}

/* The attempt's own resources, once its thread is joined. */
static void live_free(ot_convert_live *l)
{
    if (l->fd >= 0)
        close(l->fd);
    if (l->wake >= 0)
        close(l->wake);
    free(l->scan);
    free(l->prints);
    free(l);
}

int ot_convert_live_finish(ot_convert_live *l, const ot_convert_options *opts, ot_convert_live_result *result,
                           char *msg, size_t msg_size)
{
    memset(result, 0, sizeof *result);
    if (!l)
        return 1;
    ot_convert_live_program_ended(l);
    pthread_join(l->thread, NULL);
    int rc = l->rc;
    converter *c = l->c;
    if (c && c->handed_over) { /* the first stream's rest, here, at record's priority (the gate reads l->c) */
        if (rc == 0 && !l->dropped) {
            if ((rc = ot_cv_host_thread_go_on(c)) == 0)
                rc = l->rc; /* the gate's end, on this thread: the clock file read again */
        } else {
            ot_cv_host_thread_drop(c);
        }
        c->rec.streams[0].live = NULL;
    }
    l->c = NULL;
    int kept = 0;
    if (rc == 0 && c && !l->dropped && !c->live_unsupported && recorded(l->raw_dir)) {
        ot_raw_recording now = {0};
        char ignored[512];
        if (ot_raw_open(l->raw_dir, &now, ignored, sizeof ignored) == 0 && same_recording(l, &c->rec, &now) &&
            ot_map_names_live_end(c) == 0 && ot_user_defs_live_end(c, l->raw_dir, now.stream_count) == 0 &&
            ot_nvtx_defs_live_end(c, l->raw_dir, now.streams[0].header.os_tid) == 0) {
            c->live = 0; /* the other streams as the conversion after the end writes them */
            /* the finished recording from here on; the first stream as its pass counted it */
            ot_raw_stream *first = &now.streams[0];
            const ot_raw_stream *done = &c->rec.streams[0];
            first->counted = done->counted;
            first->count = done->count;
            first->with_pending = done->with_pending;
            memcpy(first->events_seen, done->events_seen, sizeof first->events_seen);
            first->target_kinds_seen = done->target_kinds_seen;
            first->header = done->header;
            if (c->operations_paired == ot_cv_operations_paired(&now)) {
                ot_raw_free(&c->rec);
                c->rec = now;
                kept = 1;
            } else {
                ot_raw_free(&now);
            }
        } else {
            ot_raw_free(&now);
        }
    }
    result->began = l->began;
    result->records_before_end = l->records_before_end;
    result->seconds_before_end = l->live_seconds;
    if (!kept) { /* dropped: nothing of it is left */
        ot_write_counts_free(l->counts);
        l->counts = NULL;
        if (c)
            ot_cv_free(c);
        if (l->began)
            remove_live_archive(l->dir);
        live_free(l);
        return 1;
    }
    /* the rest, as ot_convert_directory writes it, with the caller's options for raw/ and the counts; its
     * CONVERSION_SECONDS: from the program's end (what the user waits for: the stream's tail, the check, the rest) */
    rc = ot_cv_write_and_close(c, opts, 1, &l->ended_at, msg, msg_size);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    result->seconds_after_end =
        (double)(t1.tv_sec - l->ended_at.tv_sec) + (t1.tv_nsec - l->ended_at.tv_nsec) * 1e-9;
    if (rc == 0 && (rc = move_archive(l->dir)) != 0)
        snprintf(msg, msg_size, "offtrace: cannot move the archive into '%s': %s", l->dir, strerror(-rc));
    rc = ot_cv_finish(c, opts, rc, msg, msg_size);
    if (rc != 0)
        remove_live_archive(l->dir);
    result->converted = rc == 0;
    live_free(l);
    return rc == 0 ? 0 : 1;
}

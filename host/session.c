#define _GNU_SOURCE
#include "session.h"
#include "rank_clock.h"

#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "clock.h"
#include "job.h" /* issue 16 */
#include "offtrace/offtrace.h"
#include "lineage.h"
#include "liveness.h"

/* Counted into until raw/counters is mapped (nothing is recorded before). */
static offtrace_raw_counters unmapped_counters = {.max_size = UINT64_MAX};

ot_session ot_the_session = {.counters = &unmapped_counters, .job_rank = -1};

/* A descriptor on 0-2 (the program started with one of them closed) would
 * receive the program's own output: move it up before any use. */
static int above_stdio(int fd)
{
    if (fd > 2)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int error = errno;
    close(fd);
    return moved >= 0 ? moved : -error;
}

/* A descriptor table that is full now may not be a moment later: offtrace's
 * own threads each hold one for a few microseconds, and under a limit of 4
 * (one free number) they meet. Up to 64 yields let the holder finish first;
 * only then is the open given up (and what it was for counted lost). */
static int open_path(const char *path, int flags)
{
    for (int attempt = 0;; attempt++) {
        int fd = open(path, flags | O_CLOEXEC, 0666);
        if (fd >= 0)
            return above_stdio(fd);
        if ((errno != EMFILE && errno != ENFILE) || attempt == 64)
            return -errno;
        sched_yield();
    }
}

int ot_session_file_is(int fd, const ot_file_id *id)
{
    struct stat st;
    return fstat(fd, &st) == 0 && (uint64_t)st.st_dev == id->dev && (uint64_t)st.st_ino == id->ino;
}

int ot_session_open_file(const char *name, int flags, ot_file_id *id)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", ot_the_session.raw_dir, name);
    int fd = open_path(path, flags);
    if (fd < 0 || !id)
        return fd;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int error = -errno;
        close(fd);
        return error;
    }
    if (!id->dev && !id->ino) {
        id->dev = (uint64_t)st.st_dev;
        id->ino = (uint64_t)st.st_ino;
    } else if ((uint64_t)st.st_dev != id->dev || (uint64_t)st.st_ino != id->ino) {
        close(fd);
        return -ESTALE;
    }
    return fd;
}

unsigned ot_session_loss_cause(int error)
{
    switch (-error) {
    case ENOSPC: case EDQUOT: return OFFTRACE_RAW_LOSS_DISK_FULL;
    case ECANCELED: return OFFTRACE_RAW_LOSS_SIZE_LIMIT;
    case EMFILE: case ENFILE: case ESTALE: case EBADF: return OFFTRACE_RAW_LOSS_DESCRIPTOR;
    default: return OFFTRACE_RAW_LOSS_OTHER;
    }
}

int ot_session_reserve_bytes(uint64_t bytes)
{
    offtrace_raw_counters *c = ot_the_session.counters;
    uint64_t before = __atomic_fetch_add(&c->allocated_bytes, bytes, __ATOMIC_RELAXED);
    if (before + bytes <= c->max_size && before + bytes >= before)
        return 0;
    __atomic_fetch_sub(&c->allocated_bytes, bytes, __ATOMIC_RELAXED);
    if (!__atomic_exchange_n(&c->size_limit_reached, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "offtrace: the recording reached its size limit of %llu MiB (OFFTRACE_MAX_RECORDING_SIZE, "
                        "record --max-size); from now on records are counted as lost, the program goes on\n",
                (unsigned long long)(c->max_size >> 20));
    return OT_SIZE_LIMIT_REACHED;
}

void ot_session_unreserve_bytes(uint64_t bytes)
{
    __atomic_fetch_sub(&ot_the_session.counters->allocated_bytes, bytes, __ATOMIC_RELAXED);
}

/* The default size limit: a tenth of what the output file system has free
 * now, so that a recording left running cannot take the space the program
 * and the rest of the machine need; at least 64M, so that a nearly full disk
 * still gets a useful trace (what does not fit is then lost to a full disk,
 * counted as such). */
static uint64_t default_max_size(const char *dir)
{
    struct statvfs fs;
    uint64_t size = OFFTRACE_DEFAULT_MIN_RECORDING_SIZE;
    if (statvfs(dir, &fs) == 0) {
        uint64_t share = (uint64_t)fs.f_bavail * fs.f_frsize / 100 * OFFTRACE_DEFAULT_RECORDING_SHARE;
        if (share > size)
            size = share;
    }
    return size;
}

/* raw/counters: allocated before it is mapped (a store into an unbacked page
 * of a full file system raises SIGBUS), its descriptor closed at once. */
static int map_counters(uint64_t max_size)
{
    int fd = ot_session_open_file("counters", O_RDWR | O_CREAT | O_EXCL, NULL);
    if (fd < 0)
        return fd;
    int rc = -posix_fallocate(fd, 0, OFFTRACE_RAW_COUNTERS_SIZE);
    void *p = rc ? MAP_FAILED : mmap(NULL, OFFTRACE_RAW_COUNTERS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (!rc && p == MAP_FAILED)
        rc = -errno;
    close(fd);
    if (rc)
        return rc;
    offtrace_raw_counters *c = p;
    memcpy(c->magic, OFFTRACE_RAW_COUNTERS_MAGIC, sizeof c->magic);
    c->version = OFFTRACE_RAW_VERSION;
    c->size = sizeof *c;
    c->max_size = max_size;
    c->allocated_bytes = OFFTRACE_RAW_COUNTERS_SIZE;
    ot_the_session.counters = c;
    return 0;
}

/* One rank of an MPI job takes the name every rank derives from the job id
 * (job.h), so that all meet in one job directory without talking. */
static void default_output_name(const ot_job *job, char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : (n > 0 ? exe : "program");
    if (job)
        ot_job_default_dir(base, job, buf, size);
    else
        snprintf(buf, size, "offtrace-%s-%d", base, (int)getpid());
}

/* Never reuse a directory: take the name, or the first free <name>.N. */
static int create_fresh_dir(const char *wanted, char *chosen, size_t size, int verbose)
{
    for (unsigned n = 0; n < 1000; n++) {
        if (n == 0)
            snprintf(chosen, size, "%s", wanted);
        else
            snprintf(chosen, size, "%s.%u", wanted, n);
        if (mkdir(chosen, 0777) == 0) {
            if (n > 0 && verbose)
                fprintf(stderr, "offtrace: '%s' exists, writing the trace to '%s'\n", wanted, chosen);
            return 0;
        }
        if (errno != EEXIST)
            return -errno;
    }
    return -EEXIST;
}

/* Room for the first clock pairs, allocated now (the file keeps its size 0):
 * without pairs no record can be placed in time, so on a disk that cannot
 * hold them the run is not traced rather than recorded for nothing. */
static int reserve_clock_pairs(void)
{
    int fd = ot_session_open_file("clock.pairs", O_WRONLY | O_CREAT | O_EXCL, NULL);
    if (fd < 0)
        return fd;
    int rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096) == 0 || errno == EOPNOTSUPP ? 0 : -errno;
    close(fd);
    return rc;
}

enum { NOT_DESCENDANT, DESCENDANT, LATER_IMAGE };

/* Whether this process must not record (the recording's raw/ is then set):
 * an ancestor is being traced, or the recording at `wanted` is live and
 * owned by this very pid with this start time: the image before an exec,
 * whose recording ended with it. */
static int descendant_of_traced(const char *wanted, char *raw_dir, size_t size)
{
    if (ot_lineage_traced_ancestor(raw_dir, size))
        return DESCENDANT;
    pid_t owner;
    snprintf(raw_dir, size, "%s/raw", wanted);
    if (ot_recording_alive(raw_dir, &owner) && owner == getpid())
        return LATER_IMAGE;
    raw_dir[0] = '\0';
    return NOT_DESCENDANT;
}

int ot_session_open(const ot_config *cfg, char *err, size_t err_size)
{
    ot_session *s = &ot_the_session;
    char wanted[4096], chosen[4096], job_dir[4096], why[4400];
    s->chunk_bytes = cfg->chunk_bytes;
    s->memory_budget = cfg->memory_budget;
    s->verbose = cfg->verbose;
    s->keep_raw = cfg->keep_raw;
    s->background_writeback = cfg->background_writeback;
    /* Without `offtrace record`, one rank of an MPI job records into
     * <output>/rank.N of the job directory (under record, record chose it). */
    ot_job job;
    int in_job = cfg->output_preclaimed ? 0 : ot_job_detect(&job, why, sizeof why);
    if (in_job < 0) {
        snprintf(err, err_size, "offtrace: %s; this run is not traced", why);
        return -EINVAL;
    }
    if (cfg->output[0])
        snprintf(wanted, sizeof wanted, "%s", cfg->output);
    else
        default_output_name(in_job ? &job : NULL, wanted, sizeof wanted);
    if (in_job) {
        snprintf(job_dir, sizeof job_dir, "%s", wanted);
        ot_job_rank_dir(job_dir, job.rank, wanted, sizeof wanted);
    }

    /* Without `offtrace record` nothing claims a directory for the program:
     * a descendant of a traced process (or this process's own image before
     * an exec) is recognised by the live recording it would otherwise sit
     * beside, and stays out of its own stderr as under record. */
    int lineage = cfg->output_preclaimed ? NOT_DESCENDANT : descendant_of_traced(wanted, s->raw_dir,
                                                                                   sizeof s->raw_dir);
    if (lineage != NOT_DESCENDANT) {
        ot_note_untraced_process(s->raw_dir);
        err[0] = '\0';
        /* The program itself (not a child) loses this image: said on its
         * stderr, as record would say it, with what to do about the rest. */
        if (lineage == LATER_IMAGE)
            snprintf(err, err_size, "offtrace: the program replaced itself by exec; only the image before the exec "
                                    "is traced, kept unconverted in '%s': run `offtrace convert %s`", wanted, wanted);
        s->raw_dir[0] = '\0';
        return -EEXIST;
    }

    int rc = 0;
    if (in_job && (rc = ot_job_join(job_dir, &job, why, sizeof why)) != 0) {
        snprintf(err, err_size, "offtrace: rank %u: %s; this run is not traced", job.rank, why);
        return rc;
    }
    if (in_job)
        s->job_rank = (int)job.rank;
    if (cfg->output_preclaimed || in_job)
        snprintf(chosen, sizeof chosen, "%s", wanted);
    else
        rc = create_fresh_dir(wanted, chosen, sizeof chosen, cfg->verbose);
    if (rc || !realpath(chosen, s->dir)) {
        snprintf(err, err_size, "offtrace: cannot create output directory '%s': %s; this run is not traced",
                 wanted, strerror(rc ? -rc : errno));
        return rc ? rc : -errno;
    }
    snprintf(s->raw_dir, sizeof s->raw_dir, "%s/raw", s->dir);
    if (mkdir(s->raw_dir, 0777) != 0) {
        rc = -errno;
        if (rc == -EEXIST && cfg->output_preclaimed) {
            /* Under `offtrace record` another process (a child, or this one
             * before an exec) records here: stay out of the program's
             * stderr, leave a note for record to report. */
            ot_note_untraced_process(s->raw_dir);
            err[0] = '\0';
            return rc;
        }
        snprintf(err, err_size, "offtrace: cannot use output directory '%s': %s; this run is not traced",
                 s->dir, strerror(errno));
        return rc;
    }
    rc = map_counters(cfg->max_size ? cfg->max_size : default_max_size(s->raw_dir));
    if (!rc)
        rc = reserve_clock_pairs();
    if (rc) {
        snprintf(err, err_size, "offtrace: cannot write in '%s': %s; this run is not traced",
                 s->raw_dir, strerror(-rc));
        return rc;
    }
    /* Readers tell a live recording from a dead one by it. Written after the
     * files a conversion needs: on a nearly full disk those come first (a
     * recording without raw/owner is taken for one whose writer ended). */
    ot_owner_write(s->raw_dir);
    return 0;
}

/* One write() of a short line on an O_APPEND file is atomic, so threads
 * appending at the same time need no lock. The file is opened for this one
 * line (a chunk switch, a device start: slow paths only). */
static int append_line(const char *file, const char *line)
{
    if (!ot_the_session.raw_dir[0])
        return -ENOENT;
    int fd = ot_session_open_file(file, O_WRONLY | O_CREAT | O_APPEND, NULL);
    if (fd < 0)
        return fd;
    ssize_t n = (ssize_t)strlen(line);
    int rc = write(fd, line, (size_t)n) == n ? 0 : -EIO;
    close(fd);
    return rc;
}

/* The tick rate needs two pairs apart: the first one's CLOCK_MONOTONIC
 * time, and whether a later pair at least OT_RATE_SPAN_NS after it exists. */
#define OT_RATE_SPAN_NS 1000000u
static uint64_t first_pair_ns;
static int rate_known;

void ot_session_clock_pair(void)
{
    ot_clock_pair p = ot_clock_pair_take();
    uint64_t first = 0;
    if (!__atomic_compare_exchange_n(&first_pair_ns, &first, p.monotonic_ns, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED) &&
        p.monotonic_ns - first >= OT_RATE_SPAN_NS)
        __atomic_store_n(&rate_known, 1, __ATOMIC_RELAXED);
    p.monotonic_ns = ot_rank_clock(p.monotonic_ns); /* OFFTRACE_TEST_RANK_CLOCK (issue 16) */
    char line[96];
    snprintf(line, sizeof line, "%llu %llu %llu\n", (unsigned long long)p.ticks,
             (unsigned long long)p.monotonic_ns, (unsigned long long)p.realtime_ns);
    if (append_line("clock.pairs", line) != 0 && ot_the_session.verbose > 1)
        fprintf(stderr, "offtrace: clock pair not written\n");
}

int ot_session_rate_known(void)
{
    return __atomic_load_n(&rate_known, __ATOMIC_RELAXED);
}

void ot_session_rate_pair(int wait)
{
    uint64_t first = __atomic_load_n(&first_pair_ns, __ATOMIC_RELAXED);
    if (!first || __atomic_load_n(&rate_known, __ATOMIC_RELAXED))
        return;
    if (ot_clock_monotonic_ns() - first < OT_RATE_SPAN_NS) {
        if (!wait)
            return;
        while (ot_clock_monotonic_ns() - first < OT_RATE_SPAN_NS)
            ;
    }
    ot_session_clock_pair();
}

void ot_session_add_device(int device_num, const char *kind)
{
    char line[256];
    snprintf(line, sizeof line, "%d %s\n", device_num, kind && *kind ? kind : "unknown");
    append_line("devices.txt", line);
}

/* The dynamic loader's counts of objects loaded and unloaded so far
 * (dl_iterate_phdr's dlpi_adds and dlpi_subs, the same in every object's
 * entry: the first one is enough). */
typedef struct loaded_objects {
    unsigned long long adds, subs;
    int known;
} loaded_objects;

static int note_loaded_objects(struct dl_phdr_info *info, size_t size, void *out)
{
    loaded_objects *o = out;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        o->adds = info->dlpi_adds;
        o->subs = info->dlpi_subs;
        o->known = 1;
    }
    return 1;
}

/* Whether the code mapped may differ from the last snapshot's: nothing
 * taken yet, or a library loaded or unloaded since (a device image is one:
 * it is loaded as a library). Reading /proc/self/maps walks every mapping
 * of the process's ~20 libraries in the kernel (0.15-0.2 ms each time);
 * the exit snapshot of a program that loaded nothing after its device
 * images would only repeat the last one. */
static loaded_objects last_snapshot; /* the objects when the last whole snapshot was written */

static int code_maps_changed(loaded_objects *now)
{
    *now = (loaded_objects){0};
    dl_iterate_phdr(note_loaded_objects, now);
    return !now->known || !last_snapshot.known || now->adds != last_snapshot.adds ||
           now->subs != last_snapshot.subs;
}

/* Read whole before the copy is opened, so that the snapshot needs one
 * descriptor at a time (a program may run with RLIMIT_NOFILE at 4), and
 * removed when it cannot be written whole: the symbolizer then uses an
 * earlier one instead of a cut one. */
void ot_session_snapshot_maps(void)
{
    ot_session *s = &ot_the_session;
    loaded_objects objects;
    if (!code_maps_changed(&objects))
        return;
    int in = open_path("/proc/self/maps", O_RDONLY);
    if (in < 0)
        return;
    size_t used = 0, size = 0;
    char *text = NULL;
    for (;;) {
        if (size - used < 16384) {
            char *bigger = realloc(text, size + 65536);
            if (!bigger)
                break;
            text = bigger;
            size += 65536;
        }
        ssize_t got = read(in, text + used, size - used);
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    close(in);
    char name[64];
    snprintf(name, sizeof name, "maps.%u", __atomic_fetch_add(&s->maps_snapshots, 1, __ATOMIC_RELAXED));
    int out = text ? ot_session_open_file(name, O_WRONLY | O_CREAT | O_TRUNC, NULL) : -ENOMEM;
    if (out >= 0) {
        int whole = write(out, text, used) == (ssize_t)used;
        close(out);
        if (whole) { /* two threads at once (device loads) at worst both write one */
            last_snapshot = objects;
        } else {
            char path[4400];
            snprintf(path, sizeof path, "%s/%s", s->raw_dir, name);
            unlink(path);
        }
    }
    free(text);
}

void ot_session_set_status(const char *status)
{
    char path[4300], tmp[4400];
    snprintf(path, sizeof path, "%s/status", ot_the_session.raw_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open_path(tmp, O_WRONLY | O_CREAT | O_TRUNC);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, status, strlen(status));
    (void)ignored;
    close(fd);
    rename(tmp, path);
}

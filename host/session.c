#define _GNU_SOURCE
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "liveness.h"

ot_session ot_the_session = {.pairs_fd = -1};

static void default_output_name(char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : (n > 0 ? exe : "program");
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

int ot_session_open(const ot_config *cfg, char *err, size_t err_size)
{
    ot_session *s = &ot_the_session;
    char wanted[4096], chosen[4096];
    s->chunk_bytes = cfg->chunk_bytes;
    s->memory_budget = cfg->memory_budget;
    s->verbose = cfg->verbose;
    s->keep_raw = cfg->keep_raw;
    s->background_writeback = cfg->background_writeback;
    if (cfg->output[0])
        snprintf(wanted, sizeof wanted, "%s", cfg->output);
    else
        default_output_name(wanted, sizeof wanted);

    int rc = 0;
    if (cfg->output_preclaimed)
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
    ot_owner_write(s->raw_dir); /* readers tell a live recording from a dead one by it */
    char path[4300];
    snprintf(path, sizeof path, "%s/clock.pairs", s->raw_dir);
    s->pairs_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (s->pairs_fd < 0) {
        snprintf(err, err_size, "offtrace: cannot write in '%s': %s; this run is not traced",
                 s->raw_dir, strerror(errno));
        return -errno;
    }
    return 0;
}

void ot_session_clock_pair(void)
{
    ot_session *s = &ot_the_session;
    if (s->pairs_fd < 0)
        return;
    ot_clock_pair p = ot_clock_pair_take();
    char line[96];
    int n = snprintf(line, sizeof line, "%llu %llu %llu\n", (unsigned long long)p.ticks,
                     (unsigned long long)p.monotonic_ns, (unsigned long long)p.realtime_ns);
    /* One write() of a short line on an O_APPEND file is atomic, so threads
     * rolling over chunks at the same time need no lock here. */
    if (write(s->pairs_fd, line, (size_t)n) != n && s->verbose > 1)
        fprintf(stderr, "offtrace: clock pair not written: %s\n", strerror(errno));
}

static void append_line(const char *file, const char *line)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", ot_the_session.raw_dir, file);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, line, strlen(line));
    (void)ignored;
    close(fd);
}

void ot_session_add_device(int device_num, const char *kind)
{
    char line[256];
    snprintf(line, sizeof line, "%d %s\n", device_num, kind && *kind ? kind : "unknown");
    append_line("devices.txt", line);
}

void ot_session_snapshot_maps(void)
{
    ot_session *s = &ot_the_session;
    char path[4300];
    unsigned n = __atomic_fetch_add(&s->maps_snapshots, 1, __ATOMIC_RELAXED);
    snprintf(path, sizeof path, "%s/maps.%u", s->raw_dir, n);
    int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    char buf[65536];
    ssize_t got;
    while (in >= 0 && out >= 0 && (got = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)got) != got)
            break;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
}

void ot_session_set_status(const char *status)
{
    char path[4300], tmp[4400];
    snprintf(path, sizeof path, "%s/status", ot_the_session.raw_dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, status, strlen(status));
    (void)ignored;
    close(fd);
    rename(tmp, path);
}

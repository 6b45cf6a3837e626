/**
 * \file liveness.c
 * \brief raw/owner: which process writes a recording, and whether it still
 *        runs (liveness.h). Slow path only: session open and the CLI.
 */
#define _GNU_SOURCE
#include "liveness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Files of raw/ are read only when they are plain files: a FIFO put there
 * would block every reader that asks whether the recording is live. */
static int open_plain(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return -1;
    }
    return fd;
}

const char *ot_proc_stat_fields(pid_t pid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    return p ? p + 1 : NULL;
}

/* Field 22 of /proc/<pid>/stat (start time in clock ticks since boot).
 * \return 0 when unknown: no such process, or one that has ended and waits
 * to be reaped (state Z or X). */
static unsigned long long process_start_time(pid_t pid)
{
    char buf[1024];
    const char *p = ot_proc_stat_fields(pid, buf, sizeof buf);
    if (!p || (p[0] == ' ' && (p[1] == 'Z' || p[1] == 'X')))
        return 0;
    for (int field = 3; field <= 22 && p; field++) { /* p is before field `field` */
        while (*p == ' ')
            p++;
        if (field == 22)
            return strtoull(p, NULL, 10);
        p = strchr(p, ' ');
    }
    return 0;
}

static int identity_write(const char *raw_dir, const char *file)
{
    char path[PATH_MAX + 16], tmp[PATH_MAX + 32], line[64];
    snprintf(path, sizeof path, "%s/%s", raw_dir, file);
    snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
    int len = snprintf(line, sizeof line, "%d %llu\n", (int)getpid(), process_start_time(getpid()));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return -errno;
    int rc = write(fd, line, (size_t)len) == len ? 0 : -EIO;
    close(fd);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -errno;
    if (rc)
        unlink(tmp);
    return rc;
}

int ot_owner_write(const char *raw_dir)
{
    return identity_write(raw_dir, "owner");
}


/* Whether the process named in raw/<file> still runs. */
static int identity_alive(const char *raw_dir, const char *file, pid_t *pid)
{
    char path[PATH_MAX + 16], line[64];
    snprintf(path, sizeof path, "%s/%s", raw_dir, file);
    if (pid)
        *pid = 0;
    int fd = open_plain(path);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0)
        return 0;
    line[n] = '\0';
    int owner;
    unsigned long long start;
    if (sscanf(line, "%d %llu", &owner, &start) != 2 || owner <= 0 || start == 0)
        return 0;
    if (pid)
        *pid = owner;
    return process_start_time(owner) == start;
}

int ot_recording_alive(const char *raw_dir, pid_t *pid)
{
    if (!identity_alive(raw_dir, "owner", pid))
        return 0;
    char path[PATH_MAX + 16], status[32] = "";
    snprintf(path, sizeof path, "%s/status", raw_dir);
    int fd = open_plain(path);
    if (fd >= 0) {
        ssize_t n = read(fd, status, sizeof status - 1);
        status[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    /* The writer lives on, but has finished its recording. */
    return strncmp(status, "recorded", 8) != 0 && strncmp(status, "converted", 9) != 0;
}

/* The pid written at the start of the claim file, 0 if none. */
static pid_t claim_holder(int fd)
{
    char line[64];
    ssize_t n = pread(fd, line, sizeof line - 1, 0);
    line[n > 0 ? n : 0] = '\0';
    return (pid_t)atoi(line);
}

int ot_converter_claim(const char *raw_dir, pid_t *holder)
{
    char path[PATH_MAX + 16], line[64];
    snprintf(path, sizeof path, "%s/converter", raw_dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0666);
    struct stat st;
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -ENODEV;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int error = errno == EWOULDBLOCK ? -EBUSY : -errno;
        if (holder)
            *holder = claim_holder(fd);
        close(fd);
        return error;
    }
    /* Kept open (close-on-exec) and locked until this process ends. */
    int len = snprintf(line, sizeof line, "%d %llu\n", (int)getpid(), process_start_time(getpid()));
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)len, 0) != len)
        return 0; /* claimed all the same: the lock is what counts */
    return 0;
}

int ot_conversion_running(const char *raw_dir, pid_t *pid)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/converter", raw_dir);
    if (pid)
        *pid = 0;
    int fd = open_plain(path);
    if (fd < 0)
        return 0;
    int running = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (running && pid)
        *pid = claim_holder(fd);
    close(fd); /* releases a shared lock taken here */
    return running;
}

void ot_note_untraced_process(const char *raw_dir)
{
    char path[PATH_MAX + 32], exe[PATH_MAX], line[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    for (char *c = exe; *c; c++) /* one line per process */
        if (*c == '\n')
            *c = '?';
    int len = snprintf(line, sizeof line, "%d %s\n", (int)getpid(), n > 0 ? exe : "?");
    if (len >= (int)sizeof line)
        len = (int)sizeof line - 1;
    snprintf(path, sizeof path, "%s/../" OT_UNTRACED_PROCESSES_FILE, raw_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, line, (size_t)len);
    (void)ignored;
    close(fd);
}

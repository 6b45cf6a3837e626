#define _GNU_SOURCE
#include "spill_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITE_BUFFER (256u * 1024u)

struct ot_spill_file {
    int fd;
    uint64_t written;  /* bytes in the file */
    size_t buffered;   /* bytes in buffer, to go after them */
    char buffer[WRITE_BUFFER];
};

/* O_TMPFILE where the file system has it; else a name removed at once. */
static int open_nameless(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    char path[4200];
    snprintf(path, sizeof path, "%s/.offtrace-convert-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0)
        unlink(path);
    return fd;
}

ot_spill_file *ot_spill_open(const char *dir)
{
    ot_spill_file *f = malloc(sizeof *f);
    if (!f)
        return NULL;
    f->fd = open_nameless(dir);
    if (f->fd < 0) {
        int saved = errno;
        free(f);
        errno = saved;
        return NULL;
    }
    f->written = 0;
    f->buffered = 0;
    return f;
}

static int write_out(ot_spill_file *f)
{
    size_t done = 0;
    while (done < f->buffered) {
        ssize_t n = pwrite(f->fd, f->buffer + done, f->buffered - done, (off_t)(f->written + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        done += (size_t)n;
    }
    f->written += f->buffered;
    f->buffered = 0;
    return 0;
}

int ot_spill_append(ot_spill_file *f, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        if (f->buffered == WRITE_BUFFER) {
            int rc = write_out(f);
            if (rc)
                return rc;
        }
        size_t n = WRITE_BUFFER - f->buffered < size ? WRITE_BUFFER - f->buffered : size;
        memcpy(f->buffer + f->buffered, p, n);
        f->buffered += n;
        p += n;
        size -= n;
    }
    return 0;
}

uint64_t ot_spill_size(const ot_spill_file *f)
{
    return f->written + f->buffered;
}

int ot_spill_read(ot_spill_file *f, uint64_t offset, void *data, size_t size)
{
    if (f->buffered && offset + size > f->written) {
        int rc = write_out(f);
        if (rc)
            return rc;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(f->fd, (char *)data + got, size - got, (off_t)(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        got += (size_t)n;
    }
    return 0;
}

int ot_spill_write(ot_spill_file *f, uint64_t offset, const void *data, size_t size)
{
    if (offset + size > ot_spill_size(f))
        return -EINVAL;
    if (f->buffered && offset + size > f->written) {
        int rc = write_out(f);
        if (rc)
            return rc;
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(f->fd, (const char *)data + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        done += (size_t)n;
    }
    return 0;
}

void ot_spill_close(ot_spill_file *f)
{
    if (f) {
        close(f->fd);
        free(f);
    }
}

#define _GNU_SOURCE
#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int ot_open_regular(const char *path, struct stat *st)
{
    struct stat own;
    if (!st)
        st = &own;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return S_ISDIR(st->st_mode) ? -EISDIR : -ENODEV;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

FILE *ot_fopen_regular(const char *path)
{
    int fd = ot_open_regular(path, NULL);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *f = fdopen(fd, "re");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

#define _GNU_SOURCE
#include "regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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

int ot_read_regular_file(const char *path, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *f = ot_fopen_regular(path);
    if (!f)
        return 0;
    char *buf = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 4096 > size) {
            char *more = realloc(buf, size = size ? size * 2 : 65536);
            if (!more) {
                free(buf);
                fclose(f);
                return -ENOMEM;
            }
            buf = more;
        }
        size_t got = fread(buf + used, 1, size - used, f);
        used += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *text = buf;
    *len = used;
    return 0;
}

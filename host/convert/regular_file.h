/**
 * \file regular_file.h
 * \brief Open a file of a recording for reading only when it is a plain
 *        file: a FIFO would block the converter forever, a directory or a
 *        device (a link to /dev/zero) would feed it endless or no data.
 */
#ifndef OT_CONVERT_REGULAR_FILE_H
#define OT_CONVERT_REGULAR_FILE_H

#include <stdio.h>
#include <sys/stat.h>

/**
 * \brief Open \p path read-only without following a final symbolic link and
 *        without blocking, and keep it only if it is a regular file.
 * \param st  receives its fstat (may be NULL).
 * \return a descriptor (O_CLOEXEC, blocking again), or a negative errno:
 *         -ELOOP for a symbolic link, -EISDIR for a directory, -ENODEV for
 *         anything else that is not a regular file (FIFO, device, socket).
 */
int ot_open_regular(const char *path, struct stat *st);

/** \brief ot_open_regular as a stdio stream; NULL with errno set. */
FILE *ot_fopen_regular(const char *path);

/**
 * \brief Read the whole of a small regular file of the recording (a
 *        definitions file) into memory.
 * \param text receives a malloc'ed copy (not NUL-terminated; free it),
 *        NULL when the file is absent or not a regular file
 * \return 0 (read, or absent: *text NULL), or -ENOMEM.
 */
int ot_read_regular_file(const char *path, char **text, size_t *len);

#endif

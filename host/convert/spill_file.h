/**
 * \file spill_file.h
 * \brief A scratch file for what the conversion cannot keep in memory: a
 *        long trace's per-event tables go to disk, so the converter's
 *        memory does not grow with the trace.
 *
 * The file lies in the recording's directory (the disk that already holds
 * the records, not a /tmp that may be memory) and has no name: it is gone
 * when the converter closes it or dies. Appends are buffered; reads are
 * pread at any offset (the write buffer is written out first), and so are
 * overwrites.
 */
#ifndef OT_CONVERT_SPILL_FILE_H
#define OT_CONVERT_SPILL_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ot_spill_file ot_spill_file;

/** \brief A new, empty scratch file in \p dir; NULL with errno set. */
ot_spill_file *ot_spill_open(const char *dir);

/** \brief Append \p size bytes; \return 0 or a negative errno. */
int ot_spill_append(ot_spill_file *f, const void *data, size_t size);

/** \brief Bytes appended so far (the offset of the next append). */
uint64_t ot_spill_size(const ot_spill_file *f);

/** \brief Read \p size bytes at \p offset; \return 0 or a negative errno (-EIO when short). */
int ot_spill_read(ot_spill_file *f, uint64_t offset, void *data, size_t size);

/** \brief Overwrite \p size bytes at \p offset, all of them appended before (a table
 *         numbered in place); \return 0 or a negative errno (-EIO when short). */
int ot_spill_write(ot_spill_file *f, uint64_t offset, const void *data, size_t size);

/** \brief Close and forget (NULL is fine). */
void ot_spill_close(ot_spill_file *f);

#endif

/**
 * \file defs_reread.h
 * \brief A definitions file of a recording read again as it grows (issue
 *        18, seventh round): a live conversion (convert_live.c) reads
 *        raw/map-sites.defs, user.defs and nvtx.defs when a record names a
 *        definition it has not read yet. The program appends a definition
 *        before any record names it, so the file read again holds it; what
 *        was read must stay the file's beginning (checked by its bytes'
 *        hash), and a definition asked for in vain is remembered, so that
 *        the end can tell whether the conversion after the end would have
 *        found it.
 */
#ifndef OT_CONVERT_DEFS_REREAD_H
#define OT_CONVERT_DEFS_REREAD_H

#include <stddef.h>
#include <stdint.h>

/** \brief A reader's parser: the definitions in text[at..used), the bytes
 *         it took in *read_to. \p whole: the file is complete (a
 *         definition that does not parse is damage); else one that does not
 *         parse may be one the program is still writing, read again next
 *         time. 0 or a negative errno. */
typedef int (*ot_defs_parser)(void *context, int whole, const char *text, size_t at, size_t used, size_t *read_to);

typedef struct ot_defs_read {
    char path[4200];      /**< the file */
    ot_defs_parser parse; /**< its reader's parser, and what it is given */
    void *context;
    uint64_t bytes; /**< the definitions parsed: the file's first bytes */
    uint64_t hash;  /**< their FNV-1a hash (0 before the first reading) */
    uint64_t size;  /**< the file's size when last read */
    int missed;     /**< a definition asked for and not in the file as read then */
} ot_defs_read;

/** \brief Set up the reading of \p name in \p raw_dir, nothing read yet. */
void ot_defs_reread_setup(ot_defs_read *s, const char *raw_dir, const char *name, ot_defs_parser parse,
                          void *context);

/**
 * \brief Read the regular file (regular_file.h) and hand what follows the
 *        bytes parsed before to the parser (all of it the first time).
 * \return 0 (also when the file is absent: nothing parsed), the parser's
 *         error, -ENOMEM, or -EPROTO when the file no longer begins with the
 *         bytes parsed before (nothing parsed).
 */
int ot_defs_reread(ot_defs_read *s, int whole);

/** \brief A definition asked for and not read yet: the file read again (not
 *         whole) when its size changed since it was last read; when it did
 *         not, or the reading failed, s->missed is set. */
void ot_defs_reread_for_missing(ot_defs_read *s);

#endif

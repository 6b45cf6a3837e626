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

typedef struct ot_defs_read {
    uint64_t bytes; /**< the definitions parsed: the file's first bytes */
    uint64_t hash;  /**< their FNV-1a hash (0 before the first reading) */
    uint64_t size;  /**< the file's size when last read */
    int missed;     /**< a definition asked for and not in the file as read then */
} ot_defs_read;

/** \brief The file read again (\p text, \p used: all of it now): 0 when it
 *         begins with the bytes parsed before (parse on from s->bytes),
 *         -EPROTO when it does not. */
int ot_defs_reread_check(ot_defs_read *s, const char *text, size_t used);

/** \brief The definitions parsed up to \p read_to (from s->bytes on). */
void ot_defs_reread_parsed(ot_defs_read *s, const char *text, size_t read_to);

/** \brief Whether the file at \p path has another size than when last read
 *         (worth reading again). */
int ot_defs_reread_grew(const ot_defs_read *s, const char *path);

#endif

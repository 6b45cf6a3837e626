/**
 * \file byte_size.h
 * \brief The one parser of byte sizes: every size offtrace accepts (the
 *        host library's and the device collector's OFFTRACE_* variables,
 *        `offtrace record -b` and `--max-size`) goes through it.
 *
 * Grammar (letters in any case, nothing else around it):
 *
 *     SIZE := DIGITS [ K | M | G | T ] [ B | iB ]
 *
 * K, M, G and T are powers of 1024 with or without `B` or `iB`: `4M`, `4MB`,
 * `4MiB` and `4194304` are the same size; a bare `B` after the digits
 * (`65536B`) is bytes. No sign, no fraction, no spaces; a size past 2^64-1
 * is refused. README.md's variable table refers to this grammar.
 */
#ifndef OT_UTIL_BYTE_SIZE_H
#define OT_UTIL_BYTE_SIZE_H

#include <stddef.h>
#include <stdint.h>

/** \brief The grammar in words, for messages that say what is accepted. */
#define OT_BYTE_SIZE_FORMS "K, M, G, T, KiB, MB, ...: powers of 1024"

/**
 * \brief Parse \p text as a SIZE (see the file's header).
 * \param bytes set on success only.
 * \return 0, or -EINVAL when \p text is not a SIZE.
 */
int ot_byte_size_parse(const char *text, uint64_t *bytes);

/**
 * \brief ot_byte_size_parse, and the size must lie in [\p min, \p max].
 * \return 0, or -EINVAL (not a SIZE) or -ERANGE (outside the range); *bytes
 *         is set on success only.
 */
int ot_byte_size_parse_range(const char *text, uint64_t min, uint64_t max, uint64_t *bytes);

/**
 * \brief Write \p bytes in the shortest exact form the parser reads back:
 *        "64K", "1G", "1536K", "100000".
 * \return \p buf.
 */
char *ot_byte_size_format(uint64_t bytes, char *buf, size_t size);

#endif

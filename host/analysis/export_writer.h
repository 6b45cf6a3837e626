/**
 * \file export_writer.h
 * \brief Buffered writer of JSON text for `offtrace export`: a large buffer
 *        handed to the FILE in big blocks, integers and times formatted by
 *        hand, strings escaped once (RFC 8259).
 *
 * Why not fprintf: an archive of 10 million events becomes about a gigabyte
 * of JSON; printf's format parsing and float conversion would cost more than
 * reading the archive (docs/performance.md, "Reading archives").
 */
#ifndef OT_ANALYSIS_EXPORT_WRITER_H
#define OT_ANALYSIS_EXPORT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OT_JW_BUFFER (1u << 20)

typedef struct ot_jw {
    FILE *out;
    int error;   /**< errno of the first failed write, 0 if none */
    size_t used;
    char buf[OT_JW_BUFFER];
} ot_jw;

/** \brief Start writing to \p out (not owned). */
void ot_jw_init(ot_jw *w, FILE *out);

/** \brief Hand the buffer to the FILE and fflush it. \return 0 or the errno of a failed write. */
int ot_jw_flush(ot_jw *w);

/** \brief Hand the buffered bytes to the FILE (for ot_jw_room). */
void ot_jw_drain(ot_jw *w);

/** \brief Append more than OT_JW_BUFFER bytes (for ot_jw_raw). */
void ot_jw_raw_large(ot_jw *w, const char *s, size_t n);

/** \brief Make room for \p n bytes (n <= OT_JW_BUFFER); \return where to write them. */
static inline char *ot_jw_room(ot_jw *w, size_t n)
{
    if (w->used + n > OT_JW_BUFFER)
        ot_jw_drain(w);
    return w->buf + w->used;
}

/** \brief Append \p n raw bytes (already valid JSON text). */
static inline void ot_jw_raw(ot_jw *w, const char *s, size_t n)
{
    if (n > OT_JW_BUFFER) { /* only pathological names get here */
        ot_jw_raw_large(w, s, n);
        return;
    }
    memcpy(ot_jw_room(w, n), s, n);
    w->used += n;
}

/** \brief Append a string literal's bytes (the "" makes anything but a literal a compile error). */
#define OT_JW_LIT(w, lit) ot_jw_raw((w), "" lit, sizeof(lit) - 1)

/** \brief Append an unsigned decimal number. */
void ot_jw_u64(ot_jw *w, uint64_t v);

/** \brief Append \p ns nanoseconds as microseconds with three decimals ("12.345", "-0.005"). */
void ot_jw_us(ot_jw *w, int64_t ns);

/** \brief Append "0x" and \p v in lower-case hex. */
void ot_jw_hex(ot_jw *w, uint64_t v);

/** \brief Append \p s as a quoted JSON string; bytes that are not valid UTF-8 become U+FFFD. */
void ot_jw_string(ot_jw *w, const char *s);

/**
 * \brief \p s as a quoted JSON string in a malloc'd buffer (for fragments
 *        built once and copied per event). \return NULL when out of memory.
 */
char *ot_jw_quote(const char *s);

#endif /* OT_ANALYSIS_EXPORT_WRITER_H */

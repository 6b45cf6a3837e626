/**
 * \file export_writer.c
 * \brief The buffered JSON writer of export_writer.h.
 */
#include "export_writer.h"

#include <errno.h>
#include <stdlib.h>

void ot_jw_init(ot_jw *w, FILE *out)
{
    w->out = out;
    w->error = 0;
    w->used = 0;
}

void ot_jw_drain(ot_jw *w)
{
    /* After a failed write, keep discarding: the caller checks w->error at
     * its next event and stops the read. */
    if (w->used && !w->error && fwrite(w->buf, 1, w->used, w->out) != w->used)
        w->error = errno ? errno : EIO;
    w->used = 0;
}

void ot_jw_raw_large(ot_jw *w, const char *s, size_t n)
{
    ot_jw_drain(w);
    if (!w->error && fwrite(s, 1, n, w->out) != n)
        w->error = errno ? errno : EIO;
}

int ot_jw_flush(ot_jw *w)
{
    ot_jw_drain(w);
    if (!w->error && fflush(w->out) != 0)
        w->error = errno ? errno : EIO;
    return w->error;
}

static const char two_digits[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                 "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                 "8081828384858687888990919293949596979899";

static unsigned decimal_length(uint64_t v)
{
    unsigned n = 1;
    for (uint64_t p = 10; n < 20 && v >= p; p *= 10)
        n++;
    return n;
}

/* The decimal digits of v, written backwards so that the last ends just
 * before `end`, two per division. */
static void digits_before(char *end, uint64_t v)
{
    while (v >= 100) {
        end -= 2;
        memcpy(end, two_digits + 2 * (v % 100), 2);
        v /= 100;
    }
    if (v >= 10) {
        end -= 2;
        memcpy(end, two_digits + 2 * v, 2);
    } else {
        *--end = (char)('0' + v);
    }
}

/* Numbers are formatted straight into the buffer: this runs two or three
 * times per event, and a temporary plus memcpy showed in the profile. */
void ot_jw_u64(ot_jw *w, uint64_t v)
{
    unsigned n = decimal_length(v);
    char *p = ot_jw_room(w, 20);
    digits_before(p + n, v);
    w->used += n;
}

void ot_jw_us(ot_jw *w, int64_t ns)
{
    /* Both viewers take microseconds; three decimals keep the nanoseconds
     * exactly (Perfetto re-reads the decimal text, not a double). */
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t whole = a / 1000;
    unsigned frac = (unsigned)(a % 1000), n = decimal_length(whole) + (ns < 0);
    char *p = ot_jw_room(w, 32);
    if (ns < 0)
        p[0] = '-';
    digits_before(p + n, whole);
    p[n] = '.';
    p[n + 1] = (char)('0' + frac / 100);
    memcpy(p + n + 2, two_digits + 2 * (frac % 100), 2);
    w->used += n + 4;
}

void ot_jw_hex(ot_jw *w, uint64_t v)
{
    unsigned n = v ? (unsigned)(64 - __builtin_clzll(v) + 3) / 4 : 1;
    char *p = ot_jw_room(w, 18);
    p[0] = '0';
    p[1] = 'x';
    for (char *d = p + 2 + n; d > p + 2; v >>= 4)
        *--d = "0123456789abcdef"[v & 15];
    w->used += n + 2;
}

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0: overlong
 * forms, surrogates and code points above U+10FFFF are not well formed. */
static int utf8_length(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

/* Escape s into dst (room for 6 * strlen(s) + 3 bytes): quotes, backslash
 * and control characters (DEL too: Perfetto's tokenizer rejects it raw);
 * bytes that are not UTF-8 become U+FFFD so that every viewer parses it. */
static size_t escape_into(char *dst, const char *s)
{
    char *d = dst;
    *d++ = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned c = *p;
        int n = utf8_length(p);
        if (n > 1) {
            memcpy(d, p, (size_t)n);
            d += n;
            p += n;
            continue;
        }
        p++;
        if (n == 0) {
            memcpy(d, "\\ufffd", 6);
            d += 6;
        } else if (c == '"' || c == '\\') {
            *d++ = '\\';
            *d++ = (char)c;
        } else if (c < 0x20 || c == 0x7F) {
            d += snprintf(d, 7, "\\u%04x", c);
        } else {
            *d++ = (char)c;
        }
    }
    *d++ = '"';
    *d = '\0';
    return (size_t)(d - dst);
}

char *ot_jw_quote(const char *s)
{
    char *q = malloc(6 * strlen(s) + 3);
    if (q)
        escape_into(q, s);
    return q;
}

void ot_jw_string(ot_jw *w, const char *s)
{
    size_t worst = 6 * strlen(s) + 3;
    if (worst <= OT_JW_BUFFER) {
        w->used += escape_into(ot_jw_room(w, worst), s);
        return;
    }
    char *q = ot_jw_quote(s);
    if (!q) {
        w->error = ENOMEM;
        return;
    }
    ot_jw_raw(w, q, strlen(q));
    free(q);
}

#include "timemap.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct { uint64_t x, y; } sync_point;

struct ot_timemap {
    sync_point *points;
    size_t count, capacity;
    double default_rate;
};

ot_timemap *ot_timemap_new(double default_rate)
{
    ot_timemap *m = calloc(1, sizeof *m);
    if (m)
        m->default_rate = default_rate;
    return m;
}

int ot_timemap_add(ot_timemap *m, uint64_t x, uint64_t y)
{
    if (m->count) {
        const sync_point *last = &m->points[m->count - 1];
        if (x <= last->x || y <= last->y)
            return 1;
    }
    if (m->count == m->capacity) {
        size_t cap = m->capacity ? m->capacity * 2 : 16;
        sync_point *p = realloc(m->points, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        m->points = p;
        m->capacity = cap;
    }
    m->points[m->count++] = (sync_point){x, y};
    return 0;
}

size_t ot_timemap_points(const ot_timemap *m)
{
    return m->count;
}

int ot_timemap_is_prefix(const ot_timemap *a, const ot_timemap *b)
{
    if (a->count > b->count)
        return 0;
    for (size_t i = 0; i < a->count; i++)
        if (a->points[i].x != b->points[i].x || a->points[i].y != b->points[i].y)
            return 0;
    return 1;
}

uint64_t ot_timemap_last_x(const ot_timemap *m)
{
    return m->count ? m->points[m->count - 1].x : 0;
}

/* Linear through a and b, evaluated in floating point relative to a so that
 * large absolute values keep their precision. */
static uint64_t through(sync_point a, double rate, uint64_t x)
{
    double dx = x >= a.x ? (double)(x - a.x) : -(double)(a.x - x);
    double y = (double)a.y + dx * rate;
    if (y >= 18446744073709551615.0) /* damaged input: a time past the end of uint64 */
        return UINT64_MAX;
    return y <= 0 ? 0 : (uint64_t)(y + 0.5);
}

static double segment_rate(const sync_point *a, const sync_point *b)
{
    return (double)(b->y - a->y) / (double)(b->x - a->x);
}

uint64_t ot_timemap_apply(const ot_timemap *m, uint64_t x)
{
    if (m->count == 0)
        return x;
    if (m->count == 1)
        return through(m->points[0], m->default_rate, x);
    /* Binary search for the last point with p.x <= x. */
    size_t lo = 0, hi = m->count - 1;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (m->points[mid].x <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    size_t seg = lo >= m->count - 1 ? m->count - 2 : lo;
    return through(m->points[seg], segment_rate(&m->points[seg], &m->points[seg + 1]), x);
}

/* through(), the same arithmetic and result, with the segment's start
 * already a double and the integer <-> double conversions through int64
 * where the value fits: the same values, one instruction each on x86-64,
 * where an unsigned conversion is a sequence on the critical path of every
 * record's time (issue 18). The difference x - ax fits when its wrapped
 * value has the sign the comparison says; the rounded result fits below
 * 2^63. (Written as a plain guarded cast, clang folds the guard away and
 * converts unsigned again: hence the one instruction asked for by name.) */
static inline uint64_t through_cheaply(uint64_t ax, double ay, double rate, uint64_t x)
{
    int64_t d = (int64_t)(x - ax);
    double dx = (x >= ax) == (d >= 0) ? (double)d : x >= ax ? (double)(x - ax) : -(double)(ax - x);
    double y = ay + dx * rate;
    if (y >= 18446744073709551615.0)
        return UINT64_MAX;
    if (y <= 0)
        return 0;
    double rounded = y + 0.5;
    if (rounded >= 9223372036854775808.0)
        return (uint64_t)rounded;
#if defined(__x86_64__) && defined(__SSE2__)
    return (uint64_t)_mm_cvttsd_si64(_mm_set_sd(rounded));
#else
    return (uint64_t)(int64_t)rounded;
#endif
}

/* The hint's segment for ot_timemap_apply_quickly (timemap.h): from its
 * first point up to, not including, its second (where the segment ends
 * whatever points come after), while dx converts to double exactly and
 * every value the floating point computes stays below 2^52. */
static void hint_in_fixed_point(ot_timemap_hint *hint, const sync_point *a, const sync_point *b)
{
    hint->span = 0;
    uint64_t bits_of_rate;
    memcpy(&bits_of_rate, &hint->rate, sizeof bits_of_rate);
    int biased = (int)(bits_of_rate >> 52 & 0x7FF);
    if (!(hint->rate > 0) || biased == 0 || biased == 0x7FF) /* zero, subnormal, infinite: never a rate here */
        return;
    /* rate = mantissa * 2^-shift, the mantissa the 53 bits with the implicit one */
    uint64_t mantissa = (bits_of_rate & ((1ull << 52) - 1)) | 1ull << 52;
    int shift = 1075 - biased;
    if (shift < 32 || shift > 127)
        return;
    uint64_t span = b->x - a->x;
    if (span >= 1ull << 53)
        return;
    /* the largest value of the chain (x's product, its sum, + 0.5), above what it can be */
    double largest = ((double)a->y + (double)span * hint->rate) * (1 + 0x1p-30) + 4;
    if (largest >= 0x1p52)
        return;
    int bits = 64 - __builtin_clzll((uint64_t)largest); /* every value below 2^bits: half an ulp is at most 2^(bits - 54) */
    /* three roundings, in units of 2^-32, + 1 for the fixed point's own truncation, + 1 to be strict */
    uint64_t margin = bits > 22 ? 3ull << (bits - 22) : 3;
    margin += 2;
    if (margin >= 1u << 28)
        return;
    hint->first_x = a->x;
    hint->first_y = a->y;
    hint->mantissa = mantissa;
    hint->shift = (unsigned)shift;
    hint->margin = (uint32_t)margin;
    hint->span = span;
}

uint64_t ot_timemap_apply_hinted(const ot_timemap *m, uint64_t x, ot_timemap_hint *hint)
{
    if (m->count < 2)
        return ot_timemap_apply(m, x);
    size_t s = hint->segment, last = m->count - 2;
    /* the segment the search would pick: the last point at or before x, the first and last segments open-ended */
    if (!hint->valid || s > last || (s > 0 && m->points[s].x > x) || (s < last && m->points[s + 1].x <= x)) {
        size_t lo = 0, hi = m->count - 1;
        /* the next segment, the common move of a run of times going forward
         * (a device's records past its next sync pair): no search */
        if (hint->valid && s < last && m->points[s + 1].x <= x && (s + 1 == last || m->points[s + 2].x > x))
            lo = hi = s + 1;
        while (lo < hi) {
            size_t mid = (lo + hi + 1) / 2;
            if (m->points[mid].x <= x)
                lo = mid;
            else
                hi = mid - 1;
        }
        s = lo >= last ? last : lo;
        hint->segment = s;
        hint->rate = segment_rate(&m->points[s], &m->points[s + 1]);
        hint->origin_y = (double)m->points[s].y;
        hint->valid = 1;
        hint_in_fixed_point(hint, &m->points[s], &m->points[s + 1]);
    }
    return through_cheaply(m->points[s].x, hint->origin_y, hint->rate, x);
}

void ot_timemap_free(ot_timemap *m)
{
    if (m) {
        free(m->points);
        free(m);
    }
}

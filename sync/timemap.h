/**
 * \file timemap.h
 * \brief Map one clock onto another from sync points: offset plus drift,
 *        interpolated between neighbouring points.
 *
 * Between two sync points (x0, y0) and (x1, y1) a time x maps to
 * y0 + (x - x0) * (y1 - y0) / (x1 - x0); before the first and after the last
 * point the nearest segment is extended. With one point only, the map is an
 * offset with the rate given at creation. The map is monotonic whenever the
 * points are increasing in both coordinates; points that are not are dropped
 * on insertion, so a jittery clock read can never make time go backwards.
 * Used for host TSC ticks -> host ns now, and for device -> host time later.
 */
#ifndef OT_SYNC_TIMEMAP_H
#define OT_SYNC_TIMEMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ot_timemap ot_timemap;

/**
 * \brief Create an empty map.
 * \param default_rate y units per x unit used while fewer than two points exist.
 * \return the map, or NULL when out of memory.
 */
ot_timemap *ot_timemap_new(double default_rate);

/**
 * \brief Add a sync point. Points must come in increasing x; a point whose x
 *        or y does not increase over the last kept point is ignored.
 * \return 0 when kept, 1 when ignored, -ENOMEM.
 */
int ot_timemap_add(ot_timemap *m, uint64_t x, uint64_t y);

/** \brief Number of points kept. */
size_t ot_timemap_points(const ot_timemap *m);

/** \brief Whether \p a's points are the first points of \p b (a map that
 *         grew by points added in order: its earlier segments, and the
 *         values they give, are unchanged; issue 18, sixth round). */
int ot_timemap_is_prefix(const ot_timemap *a, const ot_timemap *b);

/** \brief x of the last point; 0 without points. */
uint64_t ot_timemap_last_x(const ot_timemap *m);

/** \brief Map x to y. With no point at all, returns x unchanged. */
uint64_t ot_timemap_apply(const ot_timemap *m, uint64_t x);

/** The segment a caller used last, and its rate: a run of nearby x (one
 *  thread's records) stays in one segment, found without a search. */
typedef struct ot_timemap_hint {
    size_t segment;
    double rate;
    double origin_y; /**< the segment's first point's y, as a double */
    int valid; /**< 0 at first: zero-initialise it */
    /* The segment's map in fixed point (issue 18, seventh round; see
     * ot_timemap_apply_quickly): for x - first_x < span, the exact
     * x * rate is (x - first_x) * mantissa / 2^shift. span 0: none. */
    uint64_t first_x, first_y, span, mantissa;
    unsigned shift;  /**< 32 to 127 */
    uint32_t margin; /**< in 2^-32: how near a half the floating-point result may round either way */
} ot_timemap_hint;

/** \brief ot_timemap_apply, same result, starting from \p hint's segment
 *         (updated). The map must not change while a hint is in use, but for
 *         points added after its last (a map that grows as
 *         ot_timemap_is_prefix allows). */
uint64_t ot_timemap_apply_hinted(const ot_timemap *m, uint64_t x, ot_timemap_hint *hint);

/**
 * \brief ot_timemap_apply_hinted, the same result bit for bit, in integer
 *        arithmetic where that result is certain (issue 18, seventh round).
 *
 * The map's arithmetic is floating point (y0 + (x - x0) * rate, + 0.5,
 * truncated): a chain of conversions, a multiply and two adds that every
 * record's time waited on (11 % of a host OpenMP conversion's time). Its
 * rate is a double, so mantissa / 2^shift exactly; (x - x0) * mantissa in
 * 128 bits is the exact product, which gives the integer the floating
 * point rounds toward, and the fraction beside it. Floating point can
 * round to another integer only where the exact value lies within its
 * error (three roundings, each at most half a unit in the last place of a
 * value below the segment's largest y) of an integer: there, and outside
 * the segment the hint holds, the floating-point path decides. Within one
 * segment (between two points, its last point excluded) only: a map that
 * grows keeps these.
 */
static inline uint64_t ot_timemap_apply_quickly(const ot_timemap *m, uint64_t x, ot_timemap_hint *hint)
{
    uint64_t dx = x - hint->first_x;
    if (__builtin_expect(dx < hint->span, 1)) {
        /* the exact dx * rate + 0.5 in 32.32 fixed point, rounded down */
        unsigned __int128 fixed = ((unsigned __int128)dx * hint->mantissa >> (hint->shift - 32)) + 0x80000000u;
        uint32_t fraction = (uint32_t)fixed;
        if (__builtin_expect(fraction - hint->margin <= UINT32_MAX - 2 * hint->margin, 1))
            return hint->first_y + (uint64_t)(fixed >> 32);
    }
    return ot_timemap_apply_hinted(m, x, hint);
}

/** \brief Free the map (NULL is fine). */
void ot_timemap_free(ot_timemap *m);

#endif /* OT_SYNC_TIMEMAP_H */

#include "timemap.h"

#include <errno.h>
#include <stdlib.h>

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

uint64_t ot_timemap_apply_hinted(const ot_timemap *m, uint64_t x, ot_timemap_hint *hint)
{
    if (m->count < 2)
        return ot_timemap_apply(m, x);
    size_t s = hint->segment, last = m->count - 2;
    /* the segment the search would pick: the last point at or before x, the first and last segments open-ended */
    if (!hint->valid || s > last || (s > 0 && m->points[s].x > x) || (s < last && m->points[s + 1].x <= x)) {
        size_t lo = 0, hi = m->count - 1;
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
        hint->valid = 1;
    }
    return through(m->points[s], hint->rate, x);
}

void ot_timemap_free(ot_timemap *m)
{
    if (m) {
        free(m->points);
        free(m);
    }
}

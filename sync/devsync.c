#include "devsync.h"

#include <errno.h>
#include <stdlib.h>

#include "timemap.h"

typedef struct { uint64_t host, device; } pair;

struct ot_devsync {
    pair *pairs;
    size_t count, capacity;
    uint64_t spacing_ns; /* pairs closer than this have been thinned; 0: none yet */
    ot_timemap *map;
};

ot_devsync *ot_devsync_new(void)
{
    return calloc(1, sizeof(ot_devsync));
}

static int by_host_time(const void *a, const void *b);

/* Keep the first pair of every spacing_ns of host time, the spacing doubled
 * until at most half the pairs are left. */
static void thin(ot_devsync *s)
{
    qsort(s->pairs, s->count, sizeof *s->pairs, by_host_time);
    if (!s->spacing_ns)
        s->spacing_ns = 1024;
    for (;; s->spacing_ns *= 2) {
        size_t kept = 0;
        for (size_t i = 0; i < s->count; i++)
            if (!kept || s->pairs[i].host / s->spacing_ns != s->pairs[kept - 1].host / s->spacing_ns)
                kept++;
        if (kept <= OT_DEVSYNC_MAX_PAIRS / 2)
            break;
    }
    size_t kept = 0;
    for (size_t i = 0; i < s->count; i++)
        if (!kept || s->pairs[i].host / s->spacing_ns != s->pairs[kept - 1].host / s->spacing_ns)
            s->pairs[kept++] = s->pairs[i];
    s->count = kept;
}

int ot_devsync_add(ot_devsync *s, uint64_t host_ns, uint64_t device_time)
{
    if (s->count == OT_DEVSYNC_MAX_PAIRS)
        thin(s);
    if (s->count == s->capacity) {
        size_t cap = s->capacity ? s->capacity * 2 : 64;
        pair *p = realloc(s->pairs, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        s->pairs = p;
        s->capacity = cap;
    }
    s->pairs[s->count++] = (pair){host_ns, device_time};
    return 0;
}

static int by_host_time(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    return x->host < y->host ? -1 : x->host > y->host;
}

int ot_devsync_build(ot_devsync *s)
{
    if (!s->count)
        return -ENODATA;
    /* Pairs come from one host thread in host-time order as a rule: sorted
     * already, they are left as they are (what the stable sort leaves them
     * as), where sorting them was 5 % of a conversion's instructions
     * (example_transfer_done_right, issue 18, eleventh round). */
    size_t sorted = 1;
    while (sorted < s->count && s->pairs[sorted - 1].host <= s->pairs[sorted].host)
        sorted++;
    if (sorted < s->count)
        qsort(s->pairs, s->count, sizeof *s->pairs, by_host_time);
    ot_timemap_free(s->map);
    /* With a single pair the device is assumed to tick in ns. */
    s->map = ot_timemap_new(1.0);
    if (!s->map)
        return -ENOMEM;
    for (size_t i = 0; i < s->count; i++)
        if (ot_timemap_add(s->map, s->pairs[i].device, s->pairs[i].host) < 0)
            return -ENOMEM;
    return 0;
}

size_t ot_devsync_points(const ot_devsync *s)
{
    return s->map ? ot_timemap_points(s->map) : 0;
}

uint64_t ot_devsync_to_host(const ot_devsync *s, uint64_t device_time)
{
    return s->map ? ot_timemap_apply(s->map, device_time) : device_time;
}

uint64_t ot_devsync_to_host_hinted(const ot_devsync *s, uint64_t device_time, ot_timemap_hint *hint)
{
    return s->map ? ot_timemap_apply_quickly(s->map, device_time, hint) : device_time;
}

const ot_timemap *ot_devsync_map(const ot_devsync *s)
{
    return s->map;
}

void ot_devsync_free(ot_devsync *s)
{
    if (s) {
        ot_timemap_free(s->map);
        free(s->pairs);
        free(s);
    }
}

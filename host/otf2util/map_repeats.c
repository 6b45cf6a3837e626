/**
 * \file map_repeats.c
 * \brief The per-location record of each data-op region's last map attributes (map_repeats.h).
 */
#include "map_repeats.h"

#include <stdlib.h>

static ot_map_repeat *probe(ot_map_repeat *slots, size_t capacity, OTF2_RegionRef region)
{
    size_t i = ot_map_repeats_home(region, capacity);
    while (slots[i].region != OTF2_UNDEFINED_REGION && slots[i].region != region)
        i = (i + 1) & (capacity - 1);
    return &slots[i];
}

static int grow(ot_map_repeats *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : 16;
    ot_map_repeat *slots = malloc(capacity * sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < capacity; i++)
        slots[i].region = OTF2_UNDEFINED_REGION;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i].region != OTF2_UNDEFINED_REGION)
            *probe(slots, capacity, t->slots[i].region) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return 0;
}

ot_map_repeat *ot_map_repeats_add(ot_map_repeats *t, OTF2_RegionRef region)
{
    if (region == OTF2_UNDEFINED_REGION || (2 * (t->count + 1) > t->capacity && grow(t) != 0))
        return NULL;
    ot_map_repeat *s = probe(t->slots, t->capacity, region);
    *s = (ot_map_repeat){.region = region};
    t->count++;
    return s;
}

void ot_map_repeats_free(ot_map_repeats *t)
{
    free(t->slots);
    *t = (ot_map_repeats){0};
}

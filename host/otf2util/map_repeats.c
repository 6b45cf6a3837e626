/**
 * \file map_repeats.c
 * \brief The per-location record of each data-op region's last map attributes (map_repeats.h).
 */
#include "map_repeats.h"

#include <stdlib.h>

/* Region refs are dense small integers: a multiplicative hash spreads neighbours. */
static size_t home(OTF2_RegionRef region, size_t capacity)
{
    return (size_t)((region * 2654435761u) & (uint32_t)(capacity - 1));
}

static ot_map_repeat *probe(ot_map_repeat *slots, size_t capacity, OTF2_RegionRef region)
{
    size_t i = home(region, capacity);
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

ot_map_repeat *ot_map_repeats_slot(ot_map_repeats *t, OTF2_RegionRef region)
{
    if (region == OTF2_UNDEFINED_REGION)
        return NULL;
    if (t->capacity) {
        ot_map_repeat *s = probe(t->slots, t->capacity, region);
        if (s->region == region)
            return s;
    }
    if (2 * (t->count + 1) > t->capacity && grow(t) != 0)
        return NULL;
    ot_map_repeat *s = probe(t->slots, t->capacity, region);
    *s = (ot_map_repeat){.region = region};
    t->count++;
    return s;
}

const ot_map_repeat *ot_map_repeats_find(const ot_map_repeats *t, OTF2_RegionRef region)
{
    if (!t->capacity || region == OTF2_UNDEFINED_REGION)
        return NULL;
    const ot_map_repeat *s = probe(t->slots, t->capacity, region);
    return s->region == region ? s : NULL;
}

int ot_map_repeats_same(const ot_map_repeat *slot, OTF2_StringRef variable, OTF2_StringRef map_type,
                        OTF2_StringRef site)
{
    return slot && slot->known && slot->variable == variable && slot->map_type == map_type && slot->site == site;
}

void ot_map_repeats_keep(ot_map_repeat *slot, OTF2_StringRef variable, OTF2_StringRef map_type, OTF2_StringRef site)
{
    if (slot)
        *slot = (ot_map_repeat){slot->region, 1, variable, map_type, site};
}

void ot_map_repeats_free(ot_map_repeats *t)
{
    free(t->slots);
    *t = (ot_map_repeats){0};
}

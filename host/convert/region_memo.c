/**
 * \file region_memo.c
 * \brief Open addressing from three words to a 32-bit value (region_memo.h).
 */
#include "region_memo.h"

#include <stdlib.h>

typedef struct memo_slot {
    uint64_t head, a, b;
    uint32_t value;
    uint32_t used;
} memo_slot;

struct ot_region_memo {
    memo_slot *slots;
    size_t capacity, count; /* capacity: a power of two */
};

static size_t slot_of(uint64_t head, uint64_t a, uint64_t b, size_t capacity)
{
    uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^ (a * 0xC2B2AE3D27D4EB4Full) ^ (b * 0x165667B19E3779F9ull);
    return (size_t)(h ^ h >> 29) & (capacity - 1);
}

ot_region_memo *ot_region_memo_new(void)
{
    return calloc(1, sizeof(ot_region_memo));
}

void ot_region_memo_free(ot_region_memo *m)
{
    if (!m)
        return;
    free(m->slots);
    free(m);
}

int ot_region_memo_find(const ot_region_memo *m, uint64_t head, uint64_t a, uint64_t b, uint32_t *value)
{
    if (!m || !m->capacity)
        return 0;
    for (size_t j = slot_of(head, a, b, m->capacity);; j = (j + 1) & (m->capacity - 1)) {
        const memo_slot *s = &m->slots[j];
        if (!s->used)
            return 0;
        if (s->head == head && s->a == a && s->b == b) {
            *value = s->value;
            return 1;
        }
    }
}

static void put(memo_slot *slots, size_t capacity, const memo_slot *entry)
{
    size_t j = slot_of(entry->head, entry->a, entry->b, capacity);
    while (slots[j].used && !(slots[j].head == entry->head && slots[j].a == entry->a && slots[j].b == entry->b))
        j = (j + 1) & (capacity - 1);
    slots[j] = *entry;
}

void ot_region_memo_keep(ot_region_memo *m, uint64_t head, uint64_t a, uint64_t b, uint32_t value)
{
    if (!m)
        return;
    if ((m->count + 1) * 2 > m->capacity) {
        size_t capacity = m->capacity ? m->capacity * 2 : 256;
        memo_slot *slots = calloc(capacity, sizeof *slots);
        if (!slots)
            return;
        for (size_t i = 0; i < m->capacity; i++)
            if (m->slots[i].used)
                put(slots, capacity, &m->slots[i]);
        free(m->slots);
        m->slots = slots;
        m->capacity = capacity;
    }
    memo_slot entry = {head, a, b, value, 1};
    uint32_t known;
    if (!ot_region_memo_find(m, head, a, b, &known))
        m->count++;
    put(m->slots, m->capacity, &entry);
}

#include "target_spans.h"

#include <errno.h>
#include <stdlib.h>

typedef struct span { uint64_t id, begin, end; } span;

/* Open addressing on the id; id 0 marks an empty slot (ids start at 1). */
struct ot_target_spans {
    span *slots;
    size_t capacity, used;
};

ot_target_spans *ot_target_spans_new(void)
{
    return calloc(1, sizeof(ot_target_spans));
}

static span *find(span *slots, size_t capacity, uint64_t id)
{
    size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull >> 17) & (capacity - 1);
    while (slots[i].id && slots[i].id != id)
        i = (i + 1) & (capacity - 1);
    return &slots[i];
}

static int grow(ot_target_spans *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : 1024;
    span *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i].id)
            *find(slots, capacity, t->slots[i].id) = t->slots[i];
    free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return 0;
}

int ot_target_spans_put(ot_target_spans *t, uint64_t id, uint64_t begin, uint64_t end)
{
    if (!id)
        return 0;
    if ((t->used + 1) * 2 > t->capacity && grow(t) != 0)
        return -ENOMEM;
    span *s = find(t->slots, t->capacity, id);
    if (!s->id)
        t->used++;
    *s = (span){id, begin, end};
    return 0;
}

int ot_target_spans_get(const ot_target_spans *t, uint64_t id, uint64_t *begin, uint64_t *end)
{
    if (!id || !t->capacity)
        return -ENOENT;
    const span *s = find(t->slots, t->capacity, id);
    if (!s->id)
        return -ENOENT;
    *begin = s->begin;
    *end = s->end;
    return 0;
}

void ot_target_spans_free(ot_target_spans *t)
{
    if (t) {
        free(t->slots);
        free(t);
    }
}

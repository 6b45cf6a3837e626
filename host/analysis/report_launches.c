/**
 * \file report_launches.c
 * \brief Kernel launches waiting for their device kernel (issue 17): on a
 *        GPU a launch returns long before its kernel runs, and the report
 *        pairs the two through the host operation both carry.
 *
 * A hash table of at most RP_LAUNCHES entries keyed by (device, host
 * operation), open addressing with linear probing in twice as many slots;
 * a removal shifts the entries after it back, so no slot is ever a
 * tombstone. Its size is fixed: a launch stays only until its device
 * kernel begins, and a device queues far fewer kernels than this (CUDA's
 * launch queue holds about a thousand). When it is full the caller settles
 * the launches that ended (they keep their launch span) to make room.
 */
#include <errno.h>
#include <stdlib.h>

#include "report_state.h"

#define SLOTS (2 * RP_LAUNCHES)

int rp_launches_init(rp_launches *t)
{
    t->slots = calloc(SLOTS, sizeof *t->slots);
    t->live = 0;
    return t->slots ? 0 : -ENOMEM;
}

static size_t home(int device, uint64_t op)
{
    return (size_t)(((op ^ (uint64_t)(uint32_t)device << 48) * 0x9E3779B97F4A7C15ull) >> 40) & (SLOTS - 1);
}

rp_launch *rp_launch_find(rp_launches *t, int device, uint64_t op)
{
    if (!t->slots || op == 0)
        return NULL;
    for (size_t i = home(device, op);; i = (i + 1) & (SLOTS - 1)) {
        rp_launch *l = &t->slots[i];
        if (l->op == 0)
            return NULL;
        if (l->op == op && l->device == device)
            return l;
    }
}

rp_launch *rp_launch_add(rp_launches *t, int device, uint64_t op)
{
    if (!t->slots || op == 0 || t->live >= RP_LAUNCHES)
        return NULL;
    size_t i = home(device, op);
    while (t->slots[i].op != 0)
        i = (i + 1) & (SLOTS - 1);
    t->live++;
    t->slots[i] = (rp_launch){.op = op, .device = device, .state = RP_LAUNCH_OPEN};
    return &t->slots[i];
}

/* Whether slot \p at lies cyclically in (hole, i]: then the entry at i may not move to hole. */
static int between(size_t hole, size_t at, size_t i)
{
    return hole <= i ? (hole < at && at <= i) : (hole < at || at <= i);
}

void rp_launch_remove(rp_launches *t, rp_launch *l)
{
    size_t hole = (size_t)(l - t->slots);
    t->slots[hole].op = 0;
    t->live--;
    for (size_t i = (hole + 1) & (SLOTS - 1); t->slots[i].op != 0; i = (i + 1) & (SLOTS - 1)) {
        size_t at = home(t->slots[i].device, t->slots[i].op);
        if (between(hole, at, i))
            continue;
        t->slots[hole] = t->slots[i];
        t->slots[i].op = 0;
        hole = i;
    }
}

void rp_launches_settle(rp_launches *t, void (*settle)(void *user, const rp_launch *l), void *user)
{
    if (!t->slots)
        return;
    /* Removing shifts later entries back, possibly into a slot already passed: look at a slot again
     * until it holds an entry that stays. */
    for (size_t i = 0; i < SLOTS; i++)
        while (t->slots[i].op != 0 && t->slots[i].state == RP_LAUNCH_DONE) {
            rp_launch done = t->slots[i];
            rp_launch_remove(t, &t->slots[i]);
            settle(user, &done);
        }
}

void rp_launches_free(rp_launches *t)
{
    free(t->slots);
    t->slots = NULL;
    t->live = 0;
}

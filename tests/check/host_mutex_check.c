/*
 * host_mutex_check.c - the tests' reading of mutual exclusion in an archive.
 * Regions are classified by the archive's class table (groups named
 * "OFFTRACE::REGION_CLASS::<class>"), a mutex region's kind by its name
 * ("critical @...", "nest lock @..."), the role of loops and barriers by
 * OTF2's region role. Independent of offtrace's reader (host/analysis).
 */
#include "check/host_mutex_check.h"
#include "host_check_base.h"

#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256
#define MAX_HELD 64

/* 0 (K_OTHER): a region of no class the checker reads (host_check_base.h) */
enum kind { K_OTHER, K_MUTEX, K_WAIT, K_NESTED, K_INIT, K_DESTROY, K_CANCEL, K_FLUSH, K_WORK, K_CHUNK, K_SYNC };

typedef struct open_region {
    uint32_t region;
    uint64_t enter;
} open_region;

/* what the checker keeps per location (the base's location facts) */
typedef struct loc {
    open_region stack[MAX_DEPTH];
    size_t depth;
    uint32_t held[MAX_HELD];
    size_t nheld;
    uint64_t regions[MUTEX_CHECK_KINDS], nested;
} loc;

typedef struct state {
    host_check_base base; /* first: the base's callbacks get the state */
    host_mutex_facts *f;
    uint8_t *region_mutex_kind; /* by region ref: ompt_mutex_t of its name, 0 if none */
    size_t region_count;
    uint32_t *last_order; /* by lock id */
    size_t nlocks;
} state;

static int starts(const char *name, const char *stem)
{
    return !strncmp(name, stem, strlen(stem));
}

/* ompt_mutex_t of a mutex region's name; 0 if none. */
static uint8_t mutex_kind_of(const char *name)
{
    static const char *stems[] = {NULL, "lock @", "test lock @", "nest lock @", "test nest lock @", "critical @",
                                  "atomic @", "ordered @"};
    for (uint8_t k = 1; k < MUTEX_CHECK_KINDS; k++)
        if (starts(name, stems[k]) || !strcmp(name, stems[k])) /* with a site, or a bare stem */
            return k;
    return 0;
}

static const host_check_class classes[] = {
    {"OFFTRACE::REGION_CLASS::HOST_MUTEX", K_MUTEX},
    {"OFFTRACE::REGION_CLASS::HOST_MUTEX_WAIT", K_WAIT},
    {"OFFTRACE::REGION_CLASS::HOST_NEST_LOCK_NESTED", K_NESTED},
    {"OFFTRACE::REGION_CLASS::HOST_LOCK_INIT", K_INIT},
    {"OFFTRACE::REGION_CLASS::HOST_LOCK_DESTROY", K_DESTROY},
    {"OFFTRACE::REGION_CLASS::HOST_CANCEL", K_CANCEL},
    {"OFFTRACE::REGION_CLASS::HOST_FLUSH", K_FLUSH},
    {"OFFTRACE::REGION_CLASS::HOST_WORK", K_WORK},
    {"OFFTRACE::REGION_CLASS::HOST_CHUNK", K_CHUNK},
    {"OFFTRACE::REGION_CLASS::HOST_SYNC", K_SYNC},
};

/* The base's region definition, plus the mutex kind of the region's name. */
static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    state *s = u;
    if (host_check_define_region(u, self, name, canonical, description, role, paradigm, flags, file, begin, end) !=
        OTF2_CALLBACK_SUCCESS)
        return OTF2_CALLBACK_ERROR;
    if (self >= s->region_count) {
        size_t n = (size_t)self + 1024;
        uint8_t *grown = realloc(s->region_mutex_kind, n);
        if (!grown)
            return OTF2_CALLBACK_ERROR;
        memset(grown + s->region_count, 0, n - s->region_count);
        s->region_mutex_kind = grown;
        s->region_count = n;
    }
    s->region_mutex_kind[self] = mutex_kind_of(host_check_string(&s->base, name));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    host_check_base *base = &s->base;
    host_mutex_facts *f = s->f;
    loc *l = host_check_find(base, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (!host_check_has_room(base, l->depth, MAX_DEPTH))
        return OTF2_CALLBACK_INTERRUPT;
    const open_region *parent = l->depth ? &l->stack[l->depth - 1] : NULL;
    enum kind pk = parent ? host_check_kind(base, parent->region) : K_OTHER;
    switch (host_check_kind(base, r)) {
    case K_MUTEX:
        f->regions[s->region_mutex_kind[r]]++;
        l->regions[s->region_mutex_kind[r]]++;
        break;
    case K_NESTED:
        f->nested++;
        l->nested++;
        break;
    case K_WAIT:
        f->waits++;
        if (pk != K_MUTEX && pk != K_NESTED) {
            f->waits_outside_construct++;
            host_check_problem(base, "a waiting part %s outside its construct", host_check_region_name(base, r));
        }
        break;
    case K_INIT: f->lock_inits++; break;
    case K_DESTROY: f->lock_destroys++; break;
    case K_CANCEL:
        f->cancels++;
        f->cancel_loops += strstr(host_check_region_name(base, r), "cancel loop (activated)") ||
                           strstr(host_check_region_name(base, r), "cancel loop (detected)");
        break;
    case K_FLUSH: f->flushes++; break;
    case K_SYNC:
        if ((host_check_role(base, r) == OTF2_REGION_ROLE_BARRIER ||
             host_check_role(base, r) == OTF2_REGION_ROLE_IMPLICIT_BARRIER) &&
            (pk == K_CHUNK || (pk == K_WORK && host_check_role(base, parent->region) == OTF2_REGION_ROLE_LOOP))) {
            f->barriers_inside_loops++;
            host_check_problem(base, "%s inside %s", host_check_region_name(base, r),
                               host_check_region_name(base, parent->region));
        }
        break;
    default: break;
    }
    l->stack[l->depth++] = (open_region){r, t};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    host_check_base *base = &s->base;
    loc *l = host_check_find(base, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (!host_check_leaves_innermost(base, l->depth, l->depth ? l->stack[l->depth - 1].region : 0, r)) {
        s->f->unmatched++;
        return OTF2_CALLBACK_SUCCESS;
    }
    const open_region *o = &l->stack[--l->depth];
    enum kind k = host_check_kind(base, r);
    if ((k == K_INIT || k == K_DESTROY || k == K_CANCEL || k == K_FLUSH) && o->enter != t) {
        s->f->zero_length_violations++;
        host_check_problem(base, "%s lasts %llu ns", host_check_region_name(base, r),
                           (unsigned long long)(t - o->enter));
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The kind of the mutex region a lock event belongs to: the innermost open region. */
static uint8_t lock_event_kind(state *s, loc *l, const char *what)
{
    host_check_base *base = &s->base;
    uint32_t r = l->depth ? l->stack[l->depth - 1].region : UINT32_MAX;
    if (!l->depth || host_check_kind(base, r) != K_MUTEX) {
        s->f->lock_events_outside++;
        host_check_problem(base, "a %s outside a lock, critical or ordered region (in %s)", what,
                           l->depth ? host_check_region_name(base, r) : "nothing");
        return 0;
    }
    return s->region_mutex_kind[r];
}

static OTF2_CallbackCode e_acquire(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                   OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    state *s = u;
    host_check_base *base = &s->base;
    loc *l = host_check_find(base, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    s->f->acquired[lock_event_kind(s, l, "ThreadAcquireLock")]++;
    for (size_t i = 0; i < l->nheld; i++)
        if (l->held[i] == lock) {
            s->f->unpaired_lock_events++;
            host_check_problem(base, "lock %u acquired again while held", lock);
        }
    if (l->nheld < MAX_HELD)
        l->held[l->nheld++] = lock;
    if (lock >= s->nlocks) {
        size_t n = lock + 1024;
        s->last_order = realloc(s->last_order, n * sizeof *s->last_order);
        memset(s->last_order + s->nlocks, 0, (n - s->nlocks) * sizeof *s->last_order);
        s->nlocks = n;
    }
    if (!s->last_order[lock])
        s->f->locks++;
    if (order != s->last_order[lock] + 1) {
        s->f->order_not_increasing++;
        host_check_problem(base, "lock %u: acquisition %u after %u", lock, order, s->last_order[lock]);
    }
    s->last_order[lock] = order;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_release(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                   OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    state *s = u;
    host_check_base *base = &s->base;
    loc *l = host_check_find(base, id, t);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    s->f->released[lock_event_kind(s, l, "ThreadReleaseLock")]++;
    for (size_t i = 0; i < l->nheld; i++)
        if (l->held[i] == lock) {
            l->held[i] = l->held[--l->nheld];
            return OTF2_CALLBACK_SUCCESS;
        }
    s->f->unpaired_lock_events++;
    host_check_problem(base, "lock %u released but not held", lock);
    return OTF2_CALLBACK_SUCCESS;
}

static void set_definitions(OTF2_GlobalDefReaderCallbacks *cb)
{
    host_check_definitions(cb);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetThreadAcquireLockCallback(cb, e_acquire);
    OTF2_GlobalEvtReaderCallbacks_SetThreadReleaseLockCallback(cb, e_release);
}

static const host_check_reading reading = {classes, sizeof classes / sizeof classes[0], sizeof(loc),
                                           set_definitions, set_events};

int host_mutex_check(const char *dir, host_mutex_facts *f)
{
    memset(f, 0, sizeof *f);
    state s = {.f = f};
    if (host_check_read(&s.base, dir, &reading, f->first_problem, sizeof f->first_problem)) {
        free(s.region_mutex_kind);
        free(s.last_order);
        return -1;
    }
    for (size_t i = 0; i < s.base.location_count; i++) {
        loc *l = host_check_facts_at(&s.base, i);
        f->unmatched += host_check_left_open(&s.base, i, l->depth);
        f->held_at_end += l->nheld;
        uint64_t any = l->nested;
        for (int k = 0; k < MUTEX_CHECK_KINDS; k++)
            any += l->regions[k];
        if (s.base.locations[i].host && any && f->threads < MUTEX_CHECK_MAX_THREADS) {
            f->thread_nested[f->threads] = l->nested;
            memcpy(f->thread_regions[f->threads++], l->regions, sizeof l->regions);
        }
    }
    host_check_end(&s.base);
    free(s.region_mutex_kind);
    free(s.last_order);
    return 0;
}

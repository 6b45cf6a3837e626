/*
 * host_mutex_check.c - the tests' reading of mutual exclusion in an archive.
 * Regions are classified by the archive's class table (groups named
 * "OFFTRACE::REGION_CLASS::<class>"), a mutex region's kind by its name
 * ("critical @...", "nest lock @..."), the role of loops and barriers by
 * OTF2's region role. Independent of offtrace's reader (host/analysis).
 */
#define _GNU_SOURCE
#include "check/host_mutex_check.h"
#include "otf2_time_order.h"
#include "string_table.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOCS 512
#define MAX_DEPTH 256
#define MAX_HELD 64

enum kind { K_OTHER, K_MUTEX, K_WAIT, K_NESTED, K_INIT, K_DESTROY, K_CANCEL, K_FLUSH, K_WORK, K_CHUNK, K_SYNC };

typedef struct open_region {
    uint32_t region;
    uint64_t enter;
} open_region;

typedef struct loc {
    uint64_t id;
    int host;
    open_region stack[MAX_DEPTH];
    size_t depth;
    uint32_t held[MAX_HELD];
    size_t nheld;
    uint64_t regions[MUTEX_CHECK_KINDS], nested;
} loc;

typedef struct state {
    host_mutex_facts *f;
    check_string_table strings;
    uint8_t *region_kind, *region_mutex_kind;
    OTF2_RegionRole *region_role;
    uint32_t *region_name;
    size_t nregions;
    loc *locs;
    size_t nlocs;
    uint32_t *last_order; /* by lock id */
    size_t nlocks;
} state;

static void problem(state *s, const char *fmt, ...)
{
    if (s->f->first_problem[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->f->first_problem, sizeof s->f->first_problem, fmt, ap);
    va_end(ap);
}

static const char *str(const state *s, OTF2_StringRef r)
{
    return check_string_at(&s->strings, r);
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *text)
{
    state *s = u;
    return check_string_put(&s->strings, self, text) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

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

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    state *s = u;
    if (self >= s->nregions) {
        size_t n = self + 1024;
        s->region_kind = realloc(s->region_kind, n);
        s->region_mutex_kind = realloc(s->region_mutex_kind, n);
        s->region_role = realloc(s->region_role, n * sizeof *s->region_role);
        s->region_name = realloc(s->region_name, n * sizeof *s->region_name);
        memset(s->region_kind + s->nregions, K_OTHER, n - s->nregions);
        memset(s->region_mutex_kind + s->nregions, 0, n - s->nregions);
        s->nregions = n;
    }
    s->region_role[self] = role;
    s->region_name[self] = name;
    s->region_mutex_kind[self] = mutex_kind_of(str(s, name));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    static const struct { const char *name; enum kind kind; } classes[] = {
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
    state *s = u;
    if (type != OTF2_GROUP_TYPE_REGIONS)
        return OTF2_CALLBACK_SUCCESS;
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++)
        if (!strcmp(str(s, name), classes[c].name))
            for (uint32_t i = 0; i < n; i++)
                if (members[i] < s->nregions)
                    s->region_kind[members[i]] = (uint8_t)classes[c].kind;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                      uint64_t events, OTF2_LocationGroupRef group)
{
    state *s = u;
    if (s->nlocs < MAX_LOCS)
        s->locs[s->nlocs++] = (loc){.id = self, .host = type == OTF2_LOCATION_TYPE_CPU_THREAD};
    return OTF2_CALLBACK_SUCCESS;
}

static loc *find(state *s, OTF2_LocationRef id)
{
    for (size_t i = 0; i < s->nlocs; i++)
        if (s->locs[i].id == id)
            return s->locs[i].host ? &s->locs[i] : NULL;
    return NULL;
}

static enum kind kind_of(const state *s, uint32_t r)
{
    return r < s->nregions ? (enum kind)s->region_kind[r] : K_OTHER;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    state *s = u;
    host_mutex_facts *f = s->f;
    loc *l = find(s, id);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (l->depth == MAX_DEPTH) {
        problem(s, "nesting deeper than %d", MAX_DEPTH);
        return OTF2_CALLBACK_INTERRUPT;
    }
    const open_region *parent = l->depth ? &l->stack[l->depth - 1] : NULL;
    enum kind pk = parent ? kind_of(s, parent->region) : K_OTHER;
    switch (kind_of(s, r)) {
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
            problem(s, "a waiting part %s outside its construct", str(s, s->region_name[r]));
        }
        break;
    case K_INIT: f->lock_inits++; break;
    case K_DESTROY: f->lock_destroys++; break;
    case K_CANCEL:
        f->cancels++;
        f->cancel_loops += strstr(str(s, s->region_name[r]), "cancel loop (activated)") ||
                           strstr(str(s, s->region_name[r]), "cancel loop (detected)");
        break;
    case K_FLUSH: f->flushes++; break;
    case K_SYNC:
        if ((s->region_role[r] == OTF2_REGION_ROLE_BARRIER || s->region_role[r] == OTF2_REGION_ROLE_IMPLICIT_BARRIER) &&
            (pk == K_CHUNK || (pk == K_WORK && s->region_role[parent->region] == OTF2_REGION_ROLE_LOOP))) {
            f->barriers_inside_loops++;
            problem(s, "%s inside %s", str(s, s->region_name[r]), str(s, s->region_name[parent->region]));
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
    loc *l = find(s, id);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    if (!l->depth || l->stack[l->depth - 1].region != r) {
        s->f->unmatched++;
        problem(s, "a Leave of %s that is not the innermost open region", str(s, s->region_name[r]));
        return OTF2_CALLBACK_SUCCESS;
    }
    const open_region *o = &l->stack[--l->depth];
    enum kind k = kind_of(s, r);
    if ((k == K_INIT || k == K_DESTROY || k == K_CANCEL || k == K_FLUSH) && o->enter != t) {
        s->f->zero_length_violations++;
        problem(s, "%s lasts %llu ns", str(s, s->region_name[r]), (unsigned long long)(t - o->enter));
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The kind of the mutex region a lock event belongs to: the innermost open region. */
static uint8_t lock_event_kind(state *s, loc *l, const char *what)
{
    uint32_t r = l->depth ? l->stack[l->depth - 1].region : UINT32_MAX;
    if (!l->depth || kind_of(s, r) != K_MUTEX) {
        s->f->lock_events_outside++;
        problem(s, "a %s outside a lock, critical or ordered region (in %s)", what,
                l->depth ? str(s, s->region_name[r]) : "nothing");
        return 0;
    }
    return s->region_mutex_kind[r];
}

static OTF2_CallbackCode e_acquire(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                   OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    state *s = u;
    loc *l = find(s, id);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    s->f->acquired[lock_event_kind(s, l, "ThreadAcquireLock")]++;
    for (size_t i = 0; i < l->nheld; i++)
        if (l->held[i] == lock) {
            s->f->unpaired_lock_events++;
            problem(s, "lock %u acquired again while held", lock);
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
        problem(s, "lock %u: acquisition %u after %u", lock, order, s->last_order[lock]);
    }
    s->last_order[lock] = order;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_release(OTF2_LocationRef id, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                   OTF2_Paradigm model, uint32_t lock, uint32_t order)
{
    state *s = u;
    loc *l = find(s, id);
    if (!l)
        return OTF2_CALLBACK_SUCCESS;
    s->f->released[lock_event_kind(s, l, "ThreadReleaseLock")]++;
    for (size_t i = 0; i < l->nheld; i++)
        if (l->held[i] == lock) {
            l->held[i] = l->held[--l->nheld];
            return OTF2_CALLBACK_SUCCESS;
        }
    s->f->unpaired_lock_events++;
    problem(s, "lock %u released but not held", lock);
    return OTF2_CALLBACK_SUCCESS;
}

static void set_definitions(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetThreadAcquireLockCallback(cb, e_acquire);
    OTF2_GlobalEvtReaderCallbacks_SetThreadReleaseLockCallback(cb, e_release);
}

static size_t location_count(void *user)
{
    return ((state *)user)->nlocs;
}

static uint64_t location_id(void *user, size_t i)
{
    return ((state *)user)->locs[i].id;
}

int host_mutex_check(const char *dir, host_mutex_facts *f)
{
    memset(f, 0, sizeof *f);
    state s = {.f = f, .locs = calloc(MAX_LOCS, sizeof(loc))};
    otf2_time_ordered_read how = {.definitions = set_definitions, .events = set_events,
                                  .location_count = location_count, .location_id = location_id, .user = &s};
    if (otf2_read_in_time_order(dir, &how)) {
        free(s.locs);
        return -1;
    }
    for (size_t i = 0; i < s.nlocs; i++) {
        loc *l = &s.locs[i];
        if (l->depth) {
            f->unmatched += l->depth;
            problem(&s, "location %llu ends with %zu regions open", (unsigned long long)l->id, l->depth);
        }
        f->held_at_end += l->nheld;
        uint64_t any = l->nested;
        for (int k = 0; k < MUTEX_CHECK_KINDS; k++)
            any += l->regions[k];
        if (l->host && any && f->threads < MUTEX_CHECK_MAX_THREADS) {
            f->thread_nested[f->threads] = l->nested;
            memcpy(f->thread_regions[f->threads++], l->regions, sizeof l->regions);
        }
    }
    check_string_free(&s.strings);
    free(s.region_kind);
    free(s.region_mutex_kind);
    free(s.region_role);
    free(s.region_name);
    free(s.locs);
    free(s.last_order);
    return 0;
}

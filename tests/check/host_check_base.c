/**
 * \file host_check_base.c
 * \brief What the host OpenMP archive checkers share (host_check_base.h).
 */
#include "host_check_base.h"
#include "otf2_time_order.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void host_check_end(host_check_base *b)
{
    check_string_free(&b->strings);
    free(b->region_kind);
    free(b->region_role);
    free(b->region_name);
    free(b->locations);
    free(b->location_facts);
    b->region_kind = NULL;
    b->region_role = NULL;
    b->region_name = NULL;
    b->locations = NULL;
    b->location_facts = NULL;
    b->region_count = b->location_count = 0;
}

void host_check_problem(host_check_base *b, const char *fmt, ...)
{
    if (b->first_problem[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->first_problem, b->first_problem_size, fmt, ap);
    va_end(ap);
}

const char *host_check_string(const host_check_base *b, OTF2_StringRef ref)
{
    return check_string_at(&b->strings, ref);
}

static OTF2_CallbackCode define_string(void *user, OTF2_StringRef self, const char *text)
{
    host_check_base *b = user;
    return check_string_put(&b->strings, self, text) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

/* Regions come in ref order: grow the tables in steps, new regions of no class. */
static int grow_regions(host_check_base *b, OTF2_RegionRef self)
{
    size_t n = (size_t)self + 1024;
    uint8_t *kind = realloc(b->region_kind, n * sizeof *kind);
    if (kind)
        b->region_kind = kind;
    OTF2_RegionRole *role = realloc(b->region_role, n * sizeof *role);
    if (role)
        b->region_role = role;
    OTF2_StringRef *name = realloc(b->region_name, n * sizeof *name);
    if (name)
        b->region_name = name;
    if (!kind || !role || !name)
        return -1;
    memset(kind + b->region_count, 0, (n - b->region_count) * sizeof *kind);
    memset(role + b->region_count, 0, (n - b->region_count) * sizeof *role);
    memset(name + b->region_count, 0, (n - b->region_count) * sizeof *name);
    b->region_count = n;
    return 0;
}

OTF2_CallbackCode host_check_define_region(void *user, OTF2_RegionRef self, OTF2_StringRef name,
                                           OTF2_StringRef canonical, OTF2_StringRef description,
                                           OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                           OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    host_check_base *b = user;
    if (self >= b->region_count && grow_regions(b, self))
        return OTF2_CALLBACK_ERROR;
    b->region_role[self] = role;
    b->region_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

/* A group of the class table gives its member regions the checker's kind for that class. */
static OTF2_CallbackCode define_group(void *user, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                      OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n,
                                      const uint64_t *members)
{
    host_check_base *b = user;
    if (type != OTF2_GROUP_TYPE_REGIONS)
        return OTF2_CALLBACK_SUCCESS;
    const host_check_reading *how = b->reading;
    for (size_t c = 0; c < how->class_count; c++)
        if (!strcmp(host_check_string(b, name), how->classes[c].group))
            for (uint32_t i = 0; i < n; i++)
                if (members[i] < b->region_count)
                    b->region_kind[members[i]] = how->classes[c].kind;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode define_location(void *user, OTF2_LocationRef self, OTF2_StringRef name,
                                         OTF2_LocationType type, uint64_t events, OTF2_LocationGroupRef group)
{
    host_check_base *b = user;
    if (b->location_count < HOST_CHECK_MAX_LOCATIONS)
        b->locations[b->location_count++] =
            (host_check_location){.id = self, .host = type == OTF2_LOCATION_TYPE_CPU_THREAD};
    return OTF2_CALLBACK_SUCCESS;
}

static size_t location_count(void *user)
{
    return ((host_check_base *)user)->location_count;
}

static uint64_t location_id(void *user, size_t i)
{
    return ((host_check_base *)user)->locations[i].id;
}

void host_check_definitions(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, define_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, host_check_define_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, define_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, define_location);
}

int host_check_read(host_check_base *b, const char *dir, const host_check_reading *how, char *first_problem,
                    size_t first_problem_size)
{
    *b = (host_check_base){.reading = how, .first_problem = first_problem, .first_problem_size = first_problem_size};
    b->locations = calloc(HOST_CHECK_MAX_LOCATIONS, sizeof *b->locations);
    b->location_facts = calloc(HOST_CHECK_MAX_LOCATIONS, how->location_facts_size);
    otf2_time_ordered_read order = {.definitions = how->definitions, .events = how->events,
                                    .location_count = location_count, .location_id = location_id, .user = b};
    if (b->locations && b->location_facts && otf2_read_in_time_order(dir, &order) == 0)
        return 0;
    host_check_end(b);
    return -1;
}

uint8_t host_check_kind(const host_check_base *b, OTF2_RegionRef r)
{
    return r < b->region_count ? b->region_kind[r] : 0;
}

OTF2_RegionRole host_check_role(const host_check_base *b, OTF2_RegionRef r)
{
    return r < b->region_count ? b->region_role[r] : OTF2_REGION_ROLE_UNKNOWN;
}

const char *host_check_region_name(const host_check_base *b, OTF2_RegionRef r)
{
    return r < b->region_count ? host_check_string(b, b->region_name[r]) : "";
}

void *host_check_facts_at(const host_check_base *b, size_t i)
{
    return (char *)b->location_facts + i * b->reading->location_facts_size;
}

void *host_check_find(host_check_base *b, OTF2_LocationRef id, OTF2_TimeStamp t)
{
    for (size_t i = 0; i < b->location_count; i++)
        if (b->locations[i].id == id) {
            host_check_location *l = &b->locations[i];
            if (t < l->last_time)
                b->time_reversals++;
            l->last_time = t;
            return l->host ? host_check_facts_at(b, i) : NULL;
        }
    return NULL;
}

int host_check_has_room(host_check_base *b, size_t depth, size_t max_depth)
{
    if (depth < max_depth)
        return 1;
    host_check_problem(b, "nesting deeper than %zu", max_depth);
    return 0;
}

int host_check_leaves_innermost(host_check_base *b, size_t depth, OTF2_RegionRef innermost, OTF2_RegionRef r)
{
    if (depth && innermost == r)
        return 1;
    host_check_problem(b, "a Leave of %s that is not the innermost open region", host_check_region_name(b, r));
    return 0;
}

uint64_t host_check_left_open(host_check_base *b, size_t i, size_t depth)
{
    if (depth)
        host_check_problem(b, "location %llu ends with %zu regions open", (unsigned long long)b->locations[i].id,
                           depth);
    return depth;
}

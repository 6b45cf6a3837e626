/**
 * \file otf2_definitions.c
 * \brief The global definitions table the read-back tests share
 *        (otf2_definitions.h), filled by OTF2's global definition reader.
 */
#include "otf2_definitions.h"

#include <stdlib.h>
#include <string.h>

#include "otf2_time_order.h"

static const otf2_region_def undefined_region = {OTF2_UNDEFINED_STRING, OTF2_UNDEFINED_STRING, 0, 0, 0};
static const otf2_metric_member_def undefined_member = {OTF2_UNDEFINED_STRING, OTF2_TYPE_NONE};
static const otf2_attribute_def undefined_attribute = {OTF2_UNDEFINED_STRING, OTF2_TYPE_NONE};

/* Make room for entry \p ref of an array of \p *count entries of \p size bytes, the new ones copies of
 * \p blank (definitions come in ref order: grow in steps). \return the entry, or NULL out of memory. */
static void *slot(void **array, size_t *count, size_t size, uint64_t ref, const void *blank)
{
    if (ref >= *count) {
        size_t n = (size_t)ref + 64;
        char *grown = realloc(*array, n * size);
        if (!grown)
            return NULL;
        for (size_t i = *count; i < n; i++)
            memcpy(grown + i * size, blank, size);
        *array = grown;
        *count = n;
    }
    return (char *)*array + (size_t)ref * size;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *text)
{
    otf2_definitions *d = u;
    d->out_of_memory += check_string_put(&d->strings, self, text) != 0;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                   OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    otf2_definitions *d = u;
    otf2_region_def *r = slot((void **)&d->regions, &d->region_count, sizeof *r, self, &undefined_region);
    if (r)
        *r = (otf2_region_def){.name = name, .file = file, .role = role, .paradigm = paradigm, .line = begin};
    d->out_of_memory += !r;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    otf2_definitions *d = u;
    if (d->location_limit && d->location_count == d->location_limit)
        return OTF2_CALLBACK_SUCCESS;
    otf2_location_def *grown = realloc(d->locations, (d->location_count + 1) * sizeof *grown);
    if (!grown) {
        d->out_of_memory++;
        return OTF2_CALLBACK_SUCCESS;
    }
    d->locations = grown;
    d->locations[d->location_count++] = (otf2_location_def){.id = self, .name = name, .type = type};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                      OTF2_StringRef description, OTF2_Type type)
{
    otf2_definitions *d = u;
    otf2_attribute_def *a = slot((void **)&d->attributes, &d->attribute_count, sizeof *a, self, &undefined_attribute);
    if (a)
        *a = (otf2_attribute_def){.name = name, .type = type};
    d->out_of_memory += !a;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef desc,
                                   OTF2_MetricType type, OTF2_MetricMode mode, OTF2_Type value_type,
                                   OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
    otf2_definitions *d = u;
    otf2_metric_member_def *m = slot((void **)&d->members, &d->member_count, sizeof *m, self, &undefined_member);
    if (m)
        *m = (otf2_metric_member_def){.name = name, .type = value_type};
    d->out_of_memory += !m;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                  OTF2_MetricOccurrence occurrence, OTF2_RecorderKind kind)
{
    otf2_definitions *d = u;
    const OTF2_MetricMemberRef none = OTF2_UNDEFINED_METRIC_MEMBER;
    OTF2_MetricMemberRef *c = slot((void **)&d->class_member, &d->class_count, sizeof *c, self, &none);
    if (c)
        *c = n == 1 ? members[0] : none;
    d->out_of_memory += !c;
    return OTF2_CALLBACK_SUCCESS;
}

static void definition_callbacks(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_class);
}

static size_t location_count(void *u) { return ((otf2_definitions *)u)->location_count; }
static uint64_t location_id(void *u, size_t i) { return ((otf2_definitions *)u)->locations[i].id; }

int otf2_read_with_definitions(const char *dir, otf2_definitions *defs, size_t location_limit,
                               void (*events)(OTF2_GlobalEvtReaderCallbacks *callbacks))
{
    defs->location_limit = location_limit;
    otf2_time_ordered_read how = {.definitions = definition_callbacks, .events = events,
                                  .location_count = location_count, .location_id = location_id, .user = defs};
    int rc = otf2_read_in_time_order(dir, &how);
    return rc == 0 && defs->out_of_memory == 0 ? 0 : -1;
}

const char *otf2_defs_string(const otf2_definitions *d, OTF2_StringRef ref)
{
    return ref < d->strings.count && d->strings.text[ref] ? d->strings.text[ref] : "?";
}

const otf2_region_def *otf2_defs_region(const otf2_definitions *d, OTF2_RegionRef ref)
{
    return ref < d->region_count ? &d->regions[ref] : &undefined_region;
}

const char *otf2_defs_region_name(const otf2_definitions *d, OTF2_RegionRef ref)
{
    return otf2_defs_string(d, otf2_defs_region(d, ref)->name);
}

int otf2_defs_is_user_region(const otf2_definitions *d, OTF2_RegionRef ref)
{
    return otf2_defs_region(d, ref)->paradigm == OTF2_PARADIGM_USER;
}

size_t otf2_defs_location_index(const otf2_definitions *d, OTF2_LocationRef id)
{
    for (size_t i = 0; i < d->location_count; i++)
        if (d->locations[i].id == id)
            return i;
    return 0;
}

const otf2_attribute_def *otf2_defs_attribute(const otf2_definitions *d, OTF2_AttributeRef ref)
{
    return ref < d->attribute_count && d->attributes[ref].name != OTF2_UNDEFINED_STRING ? &d->attributes[ref] : NULL;
}

OTF2_AttributeRef otf2_defs_attribute_named(const otf2_definitions *d, const char *name, OTF2_Type type)
{
    for (size_t i = 0; i < d->attribute_count; i++)
        if (d->attributes[i].name != OTF2_UNDEFINED_STRING && d->attributes[i].type == type &&
            !strcmp(otf2_defs_string(d, d->attributes[i].name), name))
            return (OTF2_AttributeRef)i;
    return UINT32_MAX;
}

const otf2_metric_member_def *otf2_defs_metric_member(const otf2_definitions *d, OTF2_MetricRef metric)
{
    if (metric >= d->class_count || d->class_member[metric] >= d->member_count)
        return NULL;
    const otf2_metric_member_def *m = &d->members[d->class_member[metric]];
    return m->name != OTF2_UNDEFINED_STRING ? m : NULL;
}

void otf2_definitions_free(otf2_definitions *d)
{
    check_string_free(&d->strings);
    free(d->regions);
    free(d->attributes);
    free(d->members);
    free(d->class_member);
    free(d->locations);
    *d = (otf2_definitions){0};
}

/**
 * \file merge_read.c
 * \brief Read one rank's part for the merge: its global definitions through
 *        OTF2's global definition reader, kept with the part's own ids, and
 *        its archive properties. Nothing is unified here (merge.c does).
 */
#define _GNU_SOURCE
#include "merge_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ot_mg_push(ot_mg_vec *v, size_t elem, const void *item)
{
    if (v->count == v->capacity) {
        size_t grown = v->capacity ? v->capacity * 2 : 16;
        void *more = realloc(v->data, grown * elem);
        if (!more)
            return -1;
        v->data = more;
        v->capacity = grown;
    }
    memcpy((char *)v->data + v->count++ * elem, item, elem);
    return 0;
}

#define KEEP(vec, type, ...)                                                                  \
    do {                                                                                      \
        type item_ = {__VA_ARGS__};                                                           \
        return ot_mg_push(&p->vec, sizeof item_, &item_) ? OTF2_CALLBACK_INTERRUPT            \
                                                         : OTF2_CALLBACK_SUCCESS;             \
    } while (0)

/* Parts are offtrace's own archives: their refs are dense. A ref this large
 * means a damaged part, not one to allocate a table for. */
#define OT_MG_MAX_STRINGS (1u << 26)

static OTF2_CallbackCode on_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
    ot_mg_part *p = u;
    p->have_clock = 1;
    p->resolution = resolution;
    p->offset = offset;
    p->length = length;
    p->realtime = realtime;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *text)
{
    ot_mg_part *p = u;
    if (self >= OT_MG_MAX_STRINGS)
        return OTF2_CALLBACK_INTERRUPT;
    if (self >= p->string_count) {
        uint32_t grown = p->string_count ? p->string_count : 256;
        while (grown <= self)
            grown *= 2;
        char **more = realloc(p->strings, grown * sizeof *more);
        if (!more)
            return OTF2_CALLBACK_INTERRUPT;
        memset(more + p->string_count, 0, (grown - p->string_count) * sizeof *more);
        p->strings = more;
        p->string_count = grown;
    }
    free(p->strings[self]);
    return (p->strings[self] = strdup(text ? text : "")) ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode on_paradigm(void *u, OTF2_Paradigm paradigm, OTF2_StringRef name, OTF2_ParadigmClass cls)
{
    ot_mg_part *p = u;
    KEEP(paradigms, ot_mg_paradigm, paradigm, name, cls);
}

static OTF2_CallbackCode on_paradigm_property(void *u, OTF2_Paradigm paradigm, OTF2_ParadigmProperty property,
                                              OTF2_Type type, OTF2_AttributeValue value)
{
    ot_mg_part *p = u;
    KEEP(paradigm_properties, ot_mg_property, paradigm, property, type, value);
}

static OTF2_CallbackCode on_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name,
                                      OTF2_StringRef description, OTF2_Type type)
{
    ot_mg_part *p = u;
    KEEP(attributes, ot_mg_attribute, self, name, description, type);
}

static OTF2_CallbackCode on_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                 OTF2_SystemTreeNodeRef parent)
{
    ot_mg_part *p = u;
    KEEP(nodes, ot_mg_node, self, name, cls, parent);
}

static OTF2_CallbackCode on_node_domain(void *u, OTF2_SystemTreeNodeRef node, OTF2_SystemTreeDomain domain)
{
    ot_mg_part *p = u;
    KEEP(domains, ot_mg_domain, node, domain);
}

static OTF2_CallbackCode on_node_property(void *u, OTF2_SystemTreeNodeRef node, OTF2_StringRef name, OTF2_Type type,
                                          OTF2_AttributeValue value)
{
    ot_mg_part *p = u;
    KEEP(node_properties, ot_mg_property, node, name, type, value);
}

static OTF2_CallbackCode on_location_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                           OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef node,
                                           OTF2_LocationGroupRef creator)
{
    ot_mg_part *p = u;
    KEEP(location_groups, ot_mg_location_group, self, name, type, node, creator);
}

static OTF2_CallbackCode on_location_group_property(void *u, OTF2_LocationGroupRef group, OTF2_StringRef name,
                                                    OTF2_Type type, OTF2_AttributeValue value)
{
    ot_mg_part *p = u;
    KEEP(location_group_properties, ot_mg_property, group, name, type, value);
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    ot_mg_part *p = u;
    KEEP(locations, ot_mg_location, self, name, type, events, group);
}

static OTF2_CallbackCode on_location_property(void *u, OTF2_LocationRef location, OTF2_StringRef name,
                                              OTF2_Type type, OTF2_AttributeValue value)
{
    ot_mg_part *p = u;
    KEEP(location_properties, ot_mg_property, location, name, type, value);
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                   OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                   OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin_line,
                                   uint32_t end_line)
{
    ot_mg_part *p = u;
    KEEP(regions, ot_mg_region, self, name, canonical, description, file, role, paradigm, flags, begin_line,
         end_line);
}

static OTF2_CallbackCode on_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                  OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t count,
                                  const uint64_t *members)
{
    ot_mg_part *p = u;
    ot_mg_group g = {self, name, type, paradigm, flags, count, malloc((count ? count : 1) * sizeof *members)};
    if (!g.members)
        return OTF2_CALLBACK_INTERRUPT;
    if (count)
        memcpy(g.members, members, count * sizeof *members);
    if (ot_mg_push(&p->groups, sizeof g, &g)) {
        free(g.members);
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                 OTF2_CommRef parent, OTF2_CommFlag flags)
{
    ot_mg_part *p = u;
    KEEP(comms, ot_mg_comm, self, name, group, parent, flags);
}

static OTF2_CallbackCode on_window(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                   OTF2_RmaWinFlag flags)
{
    ot_mg_part *p = u;
    KEEP(windows, ot_mg_window, self, name, comm, flags);
}

static OTF2_CallbackCode on_metric_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                          OTF2_StringRef description, OTF2_MetricType metric_type,
                                          OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
                                          int64_t exponent, OTF2_StringRef unit)
{
    ot_mg_part *p = u;
    KEEP(metric_members, ot_mg_metric_member, self, name, description, unit, metric_type, mode, value_type, base,
         exponent);
}

static OTF2_CallbackCode on_metric_class(void *u, OTF2_MetricRef self, uint8_t count,
                                         const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occurrence,
                                         OTF2_RecorderKind recorder)
{
    ot_mg_part *p = u;
    ot_mg_metric_class c = {.self = self, .count = count, .occurrence = occurrence, .recorder = recorder};
    for (unsigned i = 0; i < count; i++)
        c.members[i] = members[i];
    return ot_mg_push(&p->metric_classes, sizeof c, &c) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* Definitions offtrace does not write: refused by name rather than left out of the job archive unnoticed. */
#define UNSUPPORTED(kind)                                  \
    do {                                                   \
        ((ot_mg_part *)u)->unsupported = kind;             \
        return OTF2_CALLBACK_INTERRUPT;                    \
    } while (0)

static OTF2_CallbackCode on_metric_instance(void *u, OTF2_MetricRef self, OTF2_MetricRef cls, OTF2_LocationRef rec,
                                            OTF2_MetricScope scope_type, uint64_t scope)
{
    UNSUPPORTED("MetricInstance");
}

static OTF2_CallbackCode on_parameter(void *u, OTF2_ParameterRef self, OTF2_StringRef name, OTF2_ParameterType type)
{
    UNSUPPORTED("Parameter");
}

static OTF2_CallbackCode on_source_location(void *u, OTF2_SourceCodeLocationRef self, OTF2_StringRef file,
                                            uint32_t line)
{
    UNSUPPORTED("SourceCodeLocation");
}

static OTF2_CallbackCode on_calling_context(void *u, OTF2_CallingContextRef self, OTF2_RegionRef region,
                                            OTF2_SourceCodeLocationRef where, OTF2_CallingContextRef parent)
{
    UNSUPPORTED("CallingContext");
}

static OTF2_CallbackCode on_callpath(void *u, OTF2_CallpathRef self, OTF2_CallpathRef parent, OTF2_RegionRef region)
{
    UNSUPPORTED("Callpath");
}

static OTF2_CallbackCode on_unknown(void *u)
{
    UNSUPPORTED("an unknown definition (a newer OTF2)");
}

static OTF2_GlobalDefReaderCallbacks *part_callbacks(void)
{
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetParadigmCallback(cb, on_paradigm);
    OTF2_GlobalDefReaderCallbacks_SetParadigmPropertyCallback(cb, on_paradigm_property);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback(cb, on_node_domain);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback(cb, on_node_property);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_location_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, on_location_group_property);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, on_location_property);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, on_window);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_metric_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_metric_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, on_metric_instance);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(cb, on_parameter);
    OTF2_GlobalDefReaderCallbacks_SetSourceCodeLocationCallback(cb, on_source_location);
    OTF2_GlobalDefReaderCallbacks_SetCallingContextCallback(cb, on_calling_context);
    OTF2_GlobalDefReaderCallbacks_SetCallpathCallback(cb, on_callpath);
    OTF2_GlobalDefReaderCallbacks_SetUnknownCallback(cb, on_unknown);
    return cb;
}

/* OTF2 prints its errors on stderr unless told otherwise; a damaged part is
 * the merge's to report, in one line. */
typedef struct quiet_errors {
    char text[160];
} quiet_errors;

static OTF2_ErrorCode keep_first_error(void *user, const char *file, uint64_t line, const char *function,
                                       OTF2_ErrorCode code, const char *format, va_list va)
{
    quiet_errors *q = user;
    if (!q->text[0])
        vsnprintf(q->text, sizeof q->text, format ? format : OTF2_Error_GetDescription(code), va);
    return code;
}

static int read_properties(OTF2_Reader *reader, ot_mg_part *p)
{
    uint32_t n = 0;
    char **names = NULL;
    if (OTF2_Reader_GetPropertyNames(reader, &n, &names) != OTF2_SUCCESS)
        return -1;
    p->property_names = calloc(n ? n : 1, sizeof *p->property_names);
    p->property_values = calloc(n ? n : 1, sizeof *p->property_values);
    int rc = p->property_names && p->property_values ? 0 : -1;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        char *value = NULL;
        if (OTF2_Reader_GetProperty(reader, names[i], &value) != OTF2_SUCCESS || !value) {
            rc = -1;
            break;
        }
        p->property_names[i] = strdup(names[i]);
        p->property_values[i] = value;
        p->property_count = i + 1;
        if (!p->property_names[i])
            rc = -1;
    }
    /* OTF2 hands out the names in one allocation with the array. */
    free(names);
    return rc;
}

int ot_mg_read_part(const char *anchor, ot_mg_part *p, char *why, size_t why_size)
{
    quiet_errors quiet = {""};
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(keep_first_error, &quiet);
    OTF2_Reader *reader = OTF2_Reader_Open(anchor);
    OTF2_GlobalDefReaderCallbacks *cb = part_callbacks();
    int rc = -1;
    const char *what = "cannot be opened";
    if (reader && cb && OTF2_Reader_SetSerialCollectiveCallbacks(reader) == OTF2_SUCCESS) {
        uint64_t def_chunk, n;
        char *creator = NULL, *description = NULL;
        OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(reader);
        what = "has unreadable definitions";
        if (g && OTF2_Reader_RegisterGlobalDefCallbacks(reader, g, cb, p) == OTF2_SUCCESS &&
            OTF2_Reader_ReadAllGlobalDefinitions(reader, g, &n) == OTF2_SUCCESS &&
            OTF2_Reader_GetChunkSize(reader, &p->event_chunk, &def_chunk) == OTF2_SUCCESS &&
            read_properties(reader, p) == 0) {
            if (OTF2_Reader_GetCreator(reader, &creator) == OTF2_SUCCESS)
                p->creator = creator;
            if (OTF2_Reader_GetDescription(reader, &description) == OTF2_SUCCESS)
                p->description = description;
            rc = 0;
        }
        if (g)
            OTF2_Reader_CloseGlobalDefReader(reader, g);
    }
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (reader)
        OTF2_Reader_Close(reader);
    OTF2_Error_RegisterCallback(previous, NULL);
    if (rc == 0 && p->unsupported)
        rc = -1;
    if (rc == 0 && !p->have_clock) {
        what = "has no ClockProperties";
        rc = -1;
    }
    if (rc != 0) {
        if (p->unsupported)
            snprintf(why, why_size, "its part has %s definitions, which the merge does not unify", p->unsupported);
        else
            snprintf(why, why_size, "its part %s%s%s", what, quiet.text[0] ? ": " : "", quiet.text);
    }
    return rc;
}

const char *ot_mg_part_property(const ot_mg_part *p, const char *name)
{
    for (uint32_t i = 0; i < p->property_count; i++)
        if (!strcmp(p->property_names[i], name))
            return p->property_values[i];
    return NULL;
}

void ot_mg_free_part(ot_mg_part *p)
{
    for (uint32_t i = 0; i < p->string_count; i++)
        free(p->strings[i]);
    free(p->strings);
    for (size_t i = 0; i < p->groups.count; i++)
        free(OT_MG_AT(p->groups, ot_mg_group, i).members);
    ot_mg_vec *vecs[] = {&p->paradigms, &p->paradigm_properties, &p->attributes, &p->nodes, &p->domains,
                         &p->node_properties, &p->location_groups, &p->location_group_properties, &p->locations,
                         &p->location_properties, &p->regions, &p->groups, &p->comms, &p->windows,
                         &p->metric_members, &p->metric_classes};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
        free(vecs[i]->data);
    for (uint32_t i = 0; i < p->property_count; i++) {
        free(p->property_names[i]);
        free(p->property_values[i]);
    }
    free(p->property_names);
    free(p->property_values);
    free(p->creator);
    free(p->description);
    memset(p, 0, sizeof *p);
}

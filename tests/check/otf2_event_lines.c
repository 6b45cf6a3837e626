/**
 * \file otf2_event_lines.c
 * \brief The event lines of otf2_event_lines.h.
 */
#define _GNU_SOURCE
#include "otf2_event_lines.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "otf2_each_location.h"

#define MAX_REFS 65536

typedef struct group { OTF2_GroupType type; OTF2_Paradigm paradigm; uint32_t count; uint64_t *members; } group;

typedef struct lines {
    char *strings[MAX_REFS];
    uint32_t region_name[MAX_REFS];
    uint32_t attribute_name[MAX_REFS];
    uint32_t window_name[MAX_REFS], window_comm[MAX_REFS];
    uint32_t comm_name[MAX_REFS], comm_group[MAX_REFS];
    group groups[4096];
    uint32_t member_name[MAX_REFS];
    uint32_t class_members[MAX_REFS][4];
    uint8_t class_count[MAX_REFS];
    uint64_t *locations;
    size_t location_count;
    int rank;
    FILE *out;
    uint64_t current;
} lines;

static const char *str(const lines *l, uint32_t ref)
{
    return ref < MAX_REFS && l->strings[ref] ? l->strings[ref] : "?";
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef self, const char *s)
{
    lines *l = u;
    if (self < MAX_REFS)
        l->strings[self] = strdup(s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                    OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t b, uint32_t e)
{
    lines *l = u;
    if (self < MAX_REFS)
        l->region_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef d,
                                       OTF2_Type type)
{
    lines *l = u;
    if (self < MAX_REFS)
        l->attribute_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_window(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                    OTF2_RmaWinFlag flags)
{
    lines *l = u;
    if (self < MAX_REFS) {
        l->window_name[self] = name;
        l->window_comm[self] = comm;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                  OTF2_CommRef parent, OTF2_CommFlag flags)
{
    lines *l = u;
    if (self < MAX_REFS) {
        l->comm_name[self] = name;
        l->comm_group[self] = group;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                   OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    lines *l = u;
    if (self >= 4096)
        return OTF2_CALLBACK_SUCCESS;
    group *g = &l->groups[self];
    g->type = type;
    g->paradigm = paradigm;
    g->count = n;
    g->members = malloc((n ? n : 1) * sizeof *members);
    if (g->members && n)
        memcpy(g->members, members, n * sizeof *members);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef d,
                                    OTF2_MetricType t, OTF2_MetricMode m, OTF2_Type vt, OTF2_Base b, int64_t e,
                                    OTF2_StringRef unit)
{
    lines *l = u;
    if (self < MAX_REFS)
        l->member_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                   OTF2_MetricOccurrence o, OTF2_RecorderKind k)
{
    lines *l = u;
    if (self < MAX_REFS) {
        l->class_count[self] = n > 4 ? 4 : n;
        for (int i = 0; i < l->class_count[self]; i++)
            l->class_members[self][i] = members[i];
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
                                      uint64_t events, OTF2_LocationGroupRef group)
{
    lines *l = u;
    if (l->rank >= 0 && self >> 40 != (uint64_t)l->rank)
        return OTF2_CALLBACK_SUCCESS;
    uint64_t *more = realloc(l->locations, (l->location_count + 1) * sizeof *more);
    if (!more)
        return OTF2_CALLBACK_INTERRUPT;
    l->locations = more;
    l->locations[l->location_count++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static void attributes(lines *l, OTF2_AttributeList *a)
{
    uint32_t n = a ? OTF2_AttributeList_GetNumberOfElements(a) : 0;
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue v;
        if (OTF2_AttributeList_GetAttributeByIndex(a, i, &ref, &type, &v) != OTF2_SUCCESS)
            continue;
        const char *name = ref < MAX_REFS ? str(l, l->attribute_name[ref]) : "?";
        if (type == OTF2_TYPE_STRING)
            fprintf(l->out, " %s=\"%s\"", name, str(l, v.stringRef));
        else if (type == OTF2_TYPE_UINT8 || type == OTF2_TYPE_INT8)
            fprintf(l->out, " %s=%u", name, (unsigned)v.uint8);
        else if (type == OTF2_TYPE_UINT16 || type == OTF2_TYPE_INT16)
            fprintf(l->out, " %s=%u", name, (unsigned)v.uint16);
        else if (type == OTF2_TYPE_UINT32 || type == OTF2_TYPE_INT32)
            fprintf(l->out, " %s=%" PRIu32, name, v.uint32);
        else if (type == OTF2_TYPE_DOUBLE)
            fprintf(l->out, " %s=%g", name, v.float64);
        else if (type == OTF2_TYPE_FLOAT)
            fprintf(l->out, " %s=%g", name, (double)v.float32);
        else if (type == OTF2_TYPE_UINT64 || type == OTF2_TYPE_INT64)
            fprintf(l->out, " %s=%" PRIu64, name, v.uint64);
        else /* a reference: mapped by OTF2's reader, compared by number */
            fprintf(l->out, " %s=ref%u:%" PRIu32, name, (unsigned)type, v.uint32);
    }
}

#define LINE(what) fprintf(l->out, "%" PRIu64 " %s %" PRIu64, location, what, (uint64_t)t)

static OTF2_CallbackCode ev_enter(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    lines *l = u;
    LINE("Enter");
    fprintf(l->out, " %s", region < MAX_REFS ? str(l, l->region_name[region]) : "?");
    attributes(l, a);
    fputc('\n', l->out);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                  OTF2_AttributeList *a, OTF2_RegionRef region)
{
    lines *l = u;
    LINE("Leave");
    fprintf(l->out, " %s", region < MAX_REFS ? str(l, l->region_name[region]) : "?");
    attributes(l, a);
    fputc('\n', l->out);
    return OTF2_CALLBACK_SUCCESS;
}

/* A window's remote rank -> the location it stands for. */
static uint64_t remote_location(const lines *l, OTF2_RmaWinRef win, uint32_t remote)
{
    if (win >= MAX_REFS || l->window_comm[win] >= MAX_REFS)
        return UINT64_MAX;
    uint32_t g = l->comm_group[l->window_comm[win]];
    if (g >= 4096 || remote >= l->groups[g].count)
        return UINT64_MAX;
    uint64_t index = l->groups[g].members[remote];
    for (int k = 0; k < 4096; k++)
        if (l->groups[k].type == OTF2_GROUP_TYPE_COMM_LOCATIONS && l->groups[k].paradigm == l->groups[g].paradigm &&
            l->groups[k].members)
            return index < l->groups[k].count ? l->groups[k].members[index] : UINT64_MAX;
    return UINT64_MAX;
}

static OTF2_CallbackCode rma(lines *l, OTF2_LocationRef location, OTF2_TimeStamp t, const char *what,
                             OTF2_AttributeList *a, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    LINE(what);
    fprintf(l->out, " window=%s remote=%" PRIu64 " bytes=%" PRIu64 " id=%" PRIu64,
            win < MAX_REFS ? str(l, l->window_name[win]) : "?", remote_location(l, win, remote), bytes, id);
    attributes(l, a);
    fputc('\n', l->out);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_put(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *a, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes,
                                uint64_t id)
{
    return rma(u, location, t, "RmaPut", a, win, remote, bytes, id);
}

static OTF2_CallbackCode ev_get(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                OTF2_AttributeList *a, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes,
                                uint64_t id)
{
    return rma(u, location, t, "RmaGet", a, win, remote, bytes, id);
}

static OTF2_CallbackCode ev_complete(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                     OTF2_AttributeList *a, OTF2_RmaWinRef win, uint64_t id)
{
    lines *l = u;
    LINE("RmaOpCompleteBlocking");
    fprintf(l->out, " window=%s id=%" PRIu64 "\n", win < MAX_REFS ? str(l, l->window_name[win]) : "?", id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                   OTF2_AttributeList *a, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    lines *l = u;
    LINE("Metric");
    for (uint8_t i = 0; i < n; i++) {
        const char *name = "?";
        if (metric < MAX_REFS && i < l->class_count[metric] && l->class_members[metric][i] < MAX_REFS)
            name = str(l, l->member_name[l->class_members[metric][i]]);
        fprintf(l->out, " %s=%" PRIu64, name, values[i].unsigned_int);
    }
    fputc('\n', l->out);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode team_event(lines *l, OTF2_LocationRef location, OTF2_TimeStamp t, const char *what,
                                    OTF2_CommRef team, uint32_t creator, uint64_t generation)
{
    LINE(what);
    fprintf(l->out, " team=%s creator=%" PRIu32 " generation=%" PRIu64 "\n",
            team < MAX_REFS ? str(l, l->comm_name[team]) : "?", creator, generation);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_task_create(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *a, OTF2_CommRef team, uint32_t creator, uint32_t gen)
{
    return team_event(u, location, t, "ThreadTaskCreate", team, creator, gen);
}

static OTF2_CallbackCode ev_task_switch(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                        OTF2_AttributeList *a, OTF2_CommRef team, uint32_t creator, uint32_t gen)
{
    return team_event(u, location, t, "ThreadTaskSwitch", team, creator, gen);
}

static OTF2_CallbackCode ev_task_complete(OTF2_LocationRef location, OTF2_TimeStamp t, uint64_t pos, void *u,
                                          OTF2_AttributeList *a, OTF2_CommRef team, uint32_t creator, uint32_t gen)
{
    return team_event(u, location, t, "ThreadTaskComplete", team, creator, gen);
}

static uint64_t location_at(void *u, size_t i) { return ((lines *)u)->locations[i]; }

static void location_end(void *u, size_t i, uint64_t read)
{
    lines *l = u;
    fprintf(l->out, "%" PRIu64 " events %" PRIu64 "\n", l->locations[i], read);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

char *otf2_event_lines(const char *anchor, int rank)
{
    lines *l = calloc(1, sizeof *l);
    OTF2_Reader *r = l ? OTF2_Reader_Open(anchor) : NULL;
    if (!r) {
        free(l);
        return NULL;
    }
    l->rank = rank;
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *dc = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dc, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dc, def_region);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(dc, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(dc, def_window);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(dc, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(dc, def_group);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(dc, def_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(dc, def_class);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dc, def_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, g, dc, l);
    uint64_t n;
    int ok = OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n) == OTF2_SUCCESS;
    OTF2_Reader_CloseGlobalDefReader(r, g);
    OTF2_GlobalDefReaderCallbacks_Delete(dc);
    char *text = NULL;
    size_t length = 0;
    if (ok && (l->out = open_memstream(&text, &length))) {
        qsort(l->locations, l->location_count, sizeof *l->locations, by_id);
        OTF2_EvtReaderCallbacks *ec = OTF2_EvtReaderCallbacks_New();
        OTF2_EvtReaderCallbacks_SetEnterCallback(ec, ev_enter);
        OTF2_EvtReaderCallbacks_SetLeaveCallback(ec, ev_leave);
        OTF2_EvtReaderCallbacks_SetRmaPutCallback(ec, ev_put);
        OTF2_EvtReaderCallbacks_SetRmaGetCallback(ec, ev_get);
        OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(ec, ev_complete);
        OTF2_EvtReaderCallbacks_SetMetricCallback(ec, ev_metric);
        OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(ec, ev_task_create);
        OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(ec, ev_task_switch);
        OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(ec, ev_task_complete);
        otf2_each_location each = {l->location_count, location_at, NULL, location_end, l};
        ok = l->location_count == 0 || otf2_read_each_location(r, &each, ec) == 0;
        OTF2_EvtReaderCallbacks_Delete(ec);
        fclose(l->out);
    } else
        ok = 0;
    OTF2_Reader_Close(r);
    for (int i = 0; i < MAX_REFS; i++)
        free(l->strings[i]);
    for (int i = 0; i < 4096; i++)
        free(l->groups[i].members);
    free(l->locations);
    free(l);
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

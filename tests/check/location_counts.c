/**
 * \file location_counts.c
 * \brief Per-location event counts (location_counts.h): global definitions
 *        for names, then each location's events on its own.
 */
#include "location_counts.h"
#include "string_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

typedef struct counting {
    check_string_table strings;
    uint32_t *region_name;      /* region ref -> string ref */
    size_t region_count;
    location_count *locs;
    size_t loc_count;
    location_count *current;    /* the location being read */
} counting;

static const char *string_at(const counting *c, uint64_t ref)
{
    return check_string_at(&c->strings, ref);
}

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *text)
{
    counting *c = u;
    return check_string_put(&c->strings, self, text) ? OTF2_CALLBACK_ERROR : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                  OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    counting *c = u;
    if (self >= c->region_count) {
        c->region_name = realloc(c->region_name, ((size_t)self + 1) * sizeof *c->region_name);
        c->region_count = (size_t)self + 1;
    }
    c->region_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t events, OTF2_LocationGroupRef group)
{
    counting *c = u;
    c->locs = realloc(c->locs, (c->loc_count + 1) * sizeof *c->locs);
    location_count *l = &c->locs[c->loc_count++];
    memset(l, 0, sizeof *l);
    l->id = self;
    snprintf(l->name, sizeof l->name, "%s", string_at(c, name));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    counting *c = u;
    c->current->enters++;
    if (r < c->region_count && !strncmp(string_at(c, c->region_name[r]), "transfer ", 9))
        c->current->transfer_enters++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    ((counting *)u)->current->leaves++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_rma(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id)
{
    ((counting *)u)->current->rma_ops++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_metric(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                                  OTF2_MetricRef m, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *v)
{
    ((counting *)u)->current->metrics++;
    return OTF2_CALLBACK_SUCCESS;
}

static int read_definitions(OTF2_Reader *rd, counting *c)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, g, cb, c);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, g, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseGlobalDefReader(rd, g);
    return rc;
}

static int read_location(OTF2_Reader *rd, counting *c, location_count *l)
{
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, l->id);
    if (!er)
        return -1;
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, e_rma);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, e_rma);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, e_metric);
    OTF2_Reader_RegisterEvtCallbacks(rd, er, cb, c);
    OTF2_EvtReaderCallbacks_Delete(cb);
    c->current = l;
    uint64_t n;
    int rc = OTF2_Reader_ReadAllLocalEvents(rd, er, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseEvtReader(rd, er);
    return rc;
}

int location_counts(const char *dir, location_count **out, size_t *n)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *rd = OTF2_Reader_Open(anchor);
    if (!rd)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(rd);
    counting c = {0};
    int rc = read_definitions(rd, &c);
    for (size_t i = 0; rc == 0 && i < c.loc_count; i++)
        OTF2_Reader_SelectLocation(rd, c.locs[i].id);
    if (rc == 0 && OTF2_Reader_OpenEvtFiles(rd) == OTF2_SUCCESS) {
        for (size_t i = 0; rc == 0 && i < c.loc_count; i++)
            rc = read_location(rd, &c, &c.locs[i]);
        OTF2_Reader_CloseEvtFiles(rd);
    } else {
        rc = -1;
    }
    OTF2_Reader_Close(rd);
    check_string_free(&c.strings);
    free(c.region_name);
    *out = c.locs;
    *n = c.loc_count;
    return rc;
}

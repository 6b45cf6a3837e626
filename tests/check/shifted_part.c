/**
 * \file shifted_part.c
 * \brief The rank shift of shifted_part.h: OTF2's global definition reader
 *        feeding OTF2's global definition writer, definition by definition.
 */
#define _GNU_SOURCE
#include "shifted_part.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "offtrace/event_catalogue.h"

typedef struct shift {
    OTF2_GlobalDefWriter *w;
    uint64_t add;
    uint64_t *locations;
    size_t count;
} shift;

#define W(call) (call == OTF2_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT)

static OTF2_CallbackCode c_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    return W(OTF2_GlobalDefWriter_WriteClockProperties(((shift *)u)->w, res, off, len, rt));
}
static OTF2_CallbackCode c_string(void *u, OTF2_StringRef self, const char *s)
{
    return W(OTF2_GlobalDefWriter_WriteString(((shift *)u)->w, self, s));
}
static OTF2_CallbackCode c_paradigm(void *u, OTF2_Paradigm p, OTF2_StringRef name, OTF2_ParadigmClass cls)
{
    return W(OTF2_GlobalDefWriter_WriteParadigm(((shift *)u)->w, p, name, cls));
}
static OTF2_CallbackCode c_paradigm_property(void *u, OTF2_Paradigm p, OTF2_ParadigmProperty prop, OTF2_Type t,
                                             OTF2_AttributeValue v)
{
    return W(OTF2_GlobalDefWriter_WriteParadigmProperty(((shift *)u)->w, p, prop, t, v));
}
static OTF2_CallbackCode c_attribute(void *u, OTF2_AttributeRef self, OTF2_StringRef n, OTF2_StringRef d, OTF2_Type t)
{
    return W(OTF2_GlobalDefWriter_WriteAttribute(((shift *)u)->w, self, n, d, t));
}
static OTF2_CallbackCode c_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef n, OTF2_StringRef c,
                                OTF2_SystemTreeNodeRef parent)
{
    return W(OTF2_GlobalDefWriter_WriteSystemTreeNode(((shift *)u)->w, self, n, c, parent));
}
static OTF2_CallbackCode c_domain(void *u, OTF2_SystemTreeNodeRef node, OTF2_SystemTreeDomain d)
{
    return W(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(((shift *)u)->w, node, d));
}
static OTF2_CallbackCode c_node_property(void *u, OTF2_SystemTreeNodeRef node, OTF2_StringRef n, OTF2_Type t,
                                         OTF2_AttributeValue v)
{
    return W(OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(((shift *)u)->w, node, n, t, v));
}
static OTF2_CallbackCode c_group_def(void *u, OTF2_LocationGroupRef self, OTF2_StringRef n, OTF2_LocationGroupType t,
                                     OTF2_SystemTreeNodeRef node, OTF2_LocationGroupRef creator)
{
    return W(OTF2_GlobalDefWriter_WriteLocationGroup(((shift *)u)->w, self, n, t, node, creator));
}
static OTF2_CallbackCode c_group_property(void *u, OTF2_LocationGroupRef g, OTF2_StringRef n, OTF2_Type t,
                                          OTF2_AttributeValue v)
{
    return W(OTF2_GlobalDefWriter_WriteLocationGroupProperty(((shift *)u)->w, g, n, t, v));
}
static OTF2_CallbackCode c_location(void *u, OTF2_LocationRef self, OTF2_StringRef n, OTF2_LocationType t,
                                    uint64_t events, OTF2_LocationGroupRef g)
{
    shift *s = u;
    uint64_t *more = realloc(s->locations, (s->count + 1) * sizeof *more);
    if (!more)
        return OTF2_CALLBACK_INTERRUPT;
    s->locations = more;
    s->locations[s->count++] = self;
    return W(OTF2_GlobalDefWriter_WriteLocation(s->w, self + s->add, n, t, events, g));
}
static OTF2_CallbackCode c_location_property(void *u, OTF2_LocationRef l, OTF2_StringRef n, OTF2_Type t,
                                             OTF2_AttributeValue v)
{
    shift *s = u;
    return W(OTF2_GlobalDefWriter_WriteLocationProperty(s->w, l + s->add, n, t, v));
}
static OTF2_CallbackCode c_region(void *u, OTF2_RegionRef self, OTF2_StringRef n, OTF2_StringRef c, OTF2_StringRef d,
                                  OTF2_RegionRole role, OTF2_Paradigm p, OTF2_RegionFlag f, OTF2_StringRef file,
                                  uint32_t b, uint32_t e)
{
    return W(OTF2_GlobalDefWriter_WriteRegion(((shift *)u)->w, self, n, c, d, role, p, f, file, b, e));
}
static OTF2_CallbackCode c_group(void *u, OTF2_GroupRef self, OTF2_StringRef n, OTF2_GroupType t, OTF2_Paradigm p,
                                 OTF2_GroupFlag f, uint32_t count, const uint64_t *members)
{
    shift *s = u;
    uint64_t *m = malloc((count ? count : 1) * sizeof *m);
    if (!m)
        return OTF2_CALLBACK_INTERRUPT;
    int locations = t == OTF2_GROUP_TYPE_COMM_LOCATIONS || t == OTF2_GROUP_TYPE_LOCATIONS;
    for (uint32_t i = 0; i < count; i++)
        m[i] = members[i] + (locations ? s->add : 0);
    OTF2_CallbackCode rc = W(OTF2_GlobalDefWriter_WriteGroup(s->w, self, n, t, p, f, count, m));
    free(m);
    return rc;
}
static OTF2_CallbackCode c_comm(void *u, OTF2_CommRef self, OTF2_StringRef n, OTF2_GroupRef g, OTF2_CommRef parent,
                                OTF2_CommFlag f)
{
    return W(OTF2_GlobalDefWriter_WriteComm(((shift *)u)->w, self, n, g, parent, f));
}
static OTF2_CallbackCode c_window(void *u, OTF2_RmaWinRef self, OTF2_StringRef n, OTF2_CommRef c, OTF2_RmaWinFlag f)
{
    return W(OTF2_GlobalDefWriter_WriteRmaWin(((shift *)u)->w, self, n, c, f));
}
static OTF2_CallbackCode c_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef n, OTF2_StringRef d,
                                  OTF2_MetricType mt, OTF2_MetricMode mode, OTF2_Type vt, OTF2_Base b, int64_t e,
                                  OTF2_StringRef unit)
{
    return W(OTF2_GlobalDefWriter_WriteMetricMember(((shift *)u)->w, self, n, d, mt, mode, vt, b, e, unit));
}
static OTF2_CallbackCode c_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                 OTF2_MetricOccurrence o, OTF2_RecorderKind k)
{
    return W(OTF2_GlobalDefWriter_WriteMetricClass(((shift *)u)->w, self, n, members, o, k));
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre_flush};

static int copy_definitions(OTF2_Reader *r, shift *s)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, c_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, c_string);
    OTF2_GlobalDefReaderCallbacks_SetParadigmCallback(cb, c_paradigm);
    OTF2_GlobalDefReaderCallbacks_SetParadigmPropertyCallback(cb, c_paradigm_property);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, c_attribute);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, c_node);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback(cb, c_domain);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodePropertyCallback(cb, c_node_property);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, c_group_def);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, c_group_property);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, c_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, c_location_property);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, c_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, c_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, c_comm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, c_window);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, c_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, c_class);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, g, cb, s);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseGlobalDefReader(r, g);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    return rc;
}

static int copy_properties(OTF2_Reader *r, OTF2_Archive *a, int rank)
{
    uint32_t n = 0;
    char **names = NULL;
    if (OTF2_Reader_GetPropertyNames(r, &n, &names) != OTF2_SUCCESS)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        char *value = NULL;
        if (OTF2_Reader_GetProperty(r, names[i], &value) == OTF2_SUCCESS && value)
            OTF2_Archive_SetProperty(a, names[i], value, true);
        free(value);
    }
    free(names);
    char part[16];
    snprintf(part, sizeof part, "%d", rank);
    OTF2_Archive_SetProperty(a, OFFTRACE_JOB_PART_PROPERTY, part, true);
    char *creator = NULL;
    if (OTF2_Reader_GetCreator(r, &creator) == OTF2_SUCCESS && creator)
        OTF2_Archive_SetCreator(a, creator);
    free(creator);
    return 0;
}

int make_shifted_part(const char *recording, const char *job_dir, int rank)
{
    char anchor[4096], dir[4096], from[4200], to[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", recording);
    snprintf(dir, sizeof dir, "%s/rank.%d", job_dir, rank);
    if (mkdir(dir, 0777) && errno != EEXIST)
        return -1;
    snprintf(dir, sizeof dir, "%s/rank.%d/part", job_dir, rank);
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (!r)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    uint64_t event_chunk, def_chunk;
    OTF2_Reader_GetChunkSize(r, &event_chunk, &def_chunk);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, event_chunk, def_chunk,
                                        OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    shift s = {NULL, (uint64_t)rank << 40, NULL, 0};
    int rc = a ? 0 : -1;
    if (a) {
        OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
        OTF2_Archive_SetSerialCollectiveCallbacks(a);
        rc = copy_properties(r, a, rank);
        s.w = OTF2_Archive_GetGlobalDefWriter(a);
        if (rc == 0)
            rc = copy_definitions(r, &s);
        OTF2_Archive_CloseGlobalDefWriter(a, s.w);
        OTF2_Archive_OpenDefFiles(a);
        for (size_t i = 0; i < s.count && rc == 0; i++) {
            OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(a, s.locations[i] + s.add);
            if (d)
                OTF2_Archive_CloseDefWriter(a, d);
            snprintf(from, sizeof from, "%s/traces/%" PRIu64 ".evt", recording, s.locations[i]);
            snprintf(to, sizeof to, "%s/traces/%" PRIu64 ".evt", dir, s.locations[i] + s.add);
            if (rename(from, to) && errno != ENOENT)
                rc = -1;
        }
        OTF2_Archive_CloseDefFiles(a);
        if (OTF2_Archive_Close(a) != OTF2_SUCCESS)
            rc = -1;
    }
    OTF2_Reader_Close(r);
    free(s.locations);
    return rc;
}

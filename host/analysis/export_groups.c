/**
 * \file export_groups.c
 * \brief Location-group names from an archive's global definitions
 *        (export_groups.h).
 */
#include "export_groups.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "otf2_open.h"

/* Refs above this are damage, not data: offtrace writes a few hundred. */
#define MAX_REF (1u << 20)

typedef struct pass {
    char **strings;         /* by string ref; capacity string_count */
    size_t string_count;
    uint32_t *group_name;   /* group ref -> string ref + 1 (0: undefined) */
    size_t group_count;
    uint64_t *location;     /* definition order; location_count used, capacity location_room / location_group_room */
    uint32_t *location_group;
    size_t location_count, location_room, location_group_room;
} pass;

/* Grow a zero-filled array (capacity *count) so that index `need - 1` exists. */
static int ensure(void **array, size_t *count, size_t need, size_t size)
{
    if (need <= *count)
        return 0;
    size_t n = *count ? *count : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*array, n * size);
    if (!p)
        return -1;
    memset((char *)p + *count * size, 0, (n - *count) * size);
    *array = p;
    *count = n;
    return 0;
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *text)
{
    pass *p = u;
    if (self >= MAX_REF || ensure((void **)&p->strings, &p->string_count, (size_t)self + 1, sizeof(char *)))
        return OTF2_CALLBACK_INTERRUPT;
    free(p->strings[self]); /* a damaged file may define a string twice */
    p->strings[self] = strdup(text ? text : "");
    return p->strings[self] ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode on_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                  OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                  OTF2_LocationGroupRef creator)
{
    pass *p = u;
    if (self >= MAX_REF || name >= MAX_REF ||
        ensure((void **)&p->group_name, &p->group_count, (size_t)self + 1, sizeof(uint32_t)))
        return OTF2_CALLBACK_INTERRUPT;
    p->group_name[self] = name + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    pass *p = u;
    size_t n = p->location_count;
    if (n >= MAX_REF || ensure((void **)&p->location, &p->location_room, n + 1, sizeof(uint64_t)) ||
        ensure((void **)&p->location_group, &p->location_group_room, n + 1, sizeof(uint32_t)))
        return OTF2_CALLBACK_INTERRUPT;
    p->location[n] = self;
    p->location_group[n] = group;
    p->location_count = n + 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_ErrorCode quiet(void *user, const char *file, uint64_t line, const char *function, OTF2_ErrorCode code,
                            const char *format, va_list va)
{
    return code;
}

/* \return 0, -1 when the anchor cannot be opened, -2 when the definitions cannot be read. */
static int read_definitions(const char *anchor, pass *p)
{
    OTF2_Reader *r = ot_otf2_open_reader(anchor);
    if (!r)
        return -1;
    int rc = -2;
    OTF2_GlobalDefReader *g = NULL;
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (cb && OTF2_Reader_SetSerialCollectiveCallbacks(r) == OTF2_SUCCESS &&
        (g = OTF2_Reader_GetGlobalDefReader(r)) != NULL) {
        OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
        OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
        OTF2_Reader_RegisterGlobalDefCallbacks(r, g, cb, p);
        uint64_t n;
        rc = OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n) == OTF2_SUCCESS ? 0 : -2;
        OTF2_Reader_CloseGlobalDefReader(r, g);
    }
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(r);
    return rc;
}

/* Move the pass's names into g: one strdup per location with a named group. */
static int resolve(const pass *p, ot_export_groups *g)
{
    g->location = calloc(p->location_count + 1, sizeof *g->location);
    g->group = calloc(p->location_count + 1, sizeof *g->group);
    if (!g->location || !g->group)
        return -1;
    for (size_t i = 0; i < p->location_count; i++) {
        uint32_t grp = p->location_group[i];
        uint32_t name = grp < p->group_count ? p->group_name[grp] : 0;
        if (!name || name - 1 >= p->string_count || !p->strings[name - 1])
            continue;
        g->location[g->count] = p->location[i];
        if (!(g->group[g->count] = strdup(p->strings[name - 1])))
            return -1;
        g->count++;
    }
    return 0;
}

static void pass_free(pass *p)
{
    for (size_t i = 0; i < p->string_count; i++)
        free(p->strings[i]);
    free(p->strings);
    free(p->group_name);
    free(p->location);
    free(p->location_group);
}

int ot_export_groups_read(const char *dir, ot_export_groups *g)
{
    memset(g, 0, sizeof *g);
    char anchor[4200];
    size_t n = strlen(dir);
    if (n > 5 && !strcmp(dir + n - 5, ".otf2")) /* as trace_read.h: a directory or its anchor file */
        snprintf(anchor, sizeof anchor, "%s", dir);
    else
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    struct stat st;
    if (stat(anchor, &st) != 0 || !S_ISREG(st.st_mode))
        return -3;
    pass p = {0};
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(quiet, NULL);
    int rc = read_definitions(anchor, &p);
    OTF2_Error_RegisterCallback(previous, NULL);
    if (rc == 0 && resolve(&p, g) != 0)
        rc = -2;
    pass_free(&p);
    if (rc)
        ot_export_groups_free(g);
    return rc;
}

const char *ot_export_group_of(const ot_export_groups *g, uint64_t location)
{
    for (size_t i = 0; i < g->count; i++)
        if (g->location[i] == location)
            return g->group[i];
    return NULL;
}

void ot_export_groups_free(ot_export_groups *g)
{
    for (size_t i = 0; i < g->count; i++)
        free(g->group[i]);
    free(g->location);
    free(g->group);
    memset(g, 0, sizeof *g);
}

/**
 * \file merge_write.c
 * \brief The job archive of the merge (merge.h): OTF2 makes the archive's
 *        directory as it opens the definition files (and refuses one that
 *        exists); the parts' event files are renamed into it before any
 *        definition is written; each location gets a local definition file
 *        with the mapping tables of its part; the global definitions follow;
 *        the anchor file, written last as OTF2 closes the archive, makes the
 *        job directory a whole archive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "merge_internal.h"
#include "offtrace/offtrace.h"

static const OTF2_MappingType mapping_types[OT_MG_MAP_KINDS] = {
    OTF2_MAPPING_STRING, OTF2_MAPPING_ATTRIBUTE, OTF2_MAPPING_REGION, OTF2_MAPPING_GROUP,
    OTF2_MAPPING_COMM,   OTF2_MAPPING_RMA_WIN,   OTF2_MAPPING_METRIC};

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

/* The biggest definition record decides the definition chunk size (OTF2
 * does not split a record over chunks): a group of every location (up to 9
 * bytes a member), a part's mapping table (up to 2 x 9 bytes an entry), the
 * longest string. */
static uint64_t definition_chunk(const merger *m)
{
    uint64_t largest = 0;
    for (size_t i = 0; i < m->groups.count; i++)
        if (9 * OT_MG_AT(m->groups, job_group, i).members.count > largest)
            largest = 9 * OT_MG_AT(m->groups, job_group, i).members.count;
    for (int r = 0; r < m->size; r++)
        for (int k = 0; k < OT_MG_MAP_KINDS; k++)
            if (18 * (uint64_t)m->parts[r].map_count[k] > largest)
                largest = 18 * (uint64_t)m->parts[r].map_count[k];
    for (size_t i = 0; i < m->strings.count; i++)
        if (strlen(OT_MG_AT(m->strings, char *, i)) > largest)
            largest = strlen(OT_MG_AT(m->strings, char *, i));
    uint64_t need = 4096 + largest;
    need = (need + OTF2_CHUNK_SIZE_MIN - 1) / OTF2_CHUNK_SIZE_MIN * OTF2_CHUNK_SIZE_MIN;
    return need > OTF2_CHUNK_SIZE_MAX ? 0 : need;
}

/* The mapping tables of one part: only where its ids are not the job's. */
static int write_mapping_tables(OTF2_Archive *archive, const part_map *pm)
{
    OTF2_IdMap *maps[OT_MG_MAP_KINDS] = {0};
    int rc = 0;
    for (int k = 0; k < OT_MG_MAP_KINDS && rc == 0; k++) {
        uint32_t used = pm->map_count[k];
        while (used && pm->map[k][used - 1] == UNMAPPED)
            used--;
        int identity = 1;
        for (uint32_t i = 0; i < used && identity; i++)
            identity = pm->map[k][i] == i || pm->map[k][i] == UNMAPPED;
        if (identity)
            continue;
        uint64_t *pairs = malloc(used * sizeof *pairs);
        if (!pairs) {
            rc = -1;
            break;
        }
        for (uint32_t i = 0; i < used; i++)
            pairs[i] = pm->map[k][i] == UNMAPPED ? i : pm->map[k][i];
        maps[k] = OTF2_IdMap_CreateFromUint64Array(used, pairs, true);
        free(pairs);
        if (!maps[k])
            rc = -1;
    }
    for (size_t i = 0; i < pm->location_count && rc == 0; i++) {
        OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(archive, pm->locations[i]);
        if (!w) {
            rc = -1;
            break;
        }
        for (int k = 0; k < OT_MG_MAP_KINDS; k++)
            if (maps[k] && OTF2_DefWriter_WriteMappingTable(w, mapping_types[k], maps[k]) != OTF2_SUCCESS)
                rc = -1;
        OTF2_Archive_CloseDefWriter(archive, w);
    }
    for (int k = 0; k < OT_MG_MAP_KINDS; k++)
        if (maps[k])
            OTF2_IdMap_Free(maps[k]);
    return rc;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A class table group's members, every rank's, once each and in order. */
static size_t sort_unique(uint64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, by_value);
    size_t kept = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[kept - 1])
            v[kept++] = v[i];
    return kept;
}

/* A missing rank's location gets the files every location has (an event
 * file without events, an empty local definition file), so readers find them. */
static int write_empty_locations(const merger *m, OTF2_Archive *archive)
{
    int rc = 0;
    for (int r = 0; r < m->size && rc == 0; r++) {
        uint64_t id = m->parts[r].empty_location;
        if (id == UINT64_MAX)
            continue;
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(archive, id);
        OTF2_EvtWriter *e = OTF2_Archive_GetEvtWriter(archive, id);
        if (!d || !e)
            rc = -1;
        if (d)
            OTF2_Archive_CloseDefWriter(archive, d);
        if (e)
            OTF2_Archive_CloseEvtWriter(archive, e);
    }
    return rc;
}

static void write_global_definitions(merger *m, OTF2_GlobalDefWriter *g)
{
    OTF2_GlobalDefWriter_WriteClockProperties(g, m->resolution, m->first, m->end - m->first, m->realtime);
    for (size_t i = 0; i < m->strings.count; i++)
        OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, OT_MG_AT(m->strings, char *, i));
    for (size_t i = 0; i < m->paradigms.count; i++) {
        const ot_mg_paradigm *d = &OT_MG_AT(m->paradigms, ot_mg_paradigm, i);
        OTF2_GlobalDefWriter_WriteParadigm(g, d->paradigm, d->name, d->cls);
    }
    for (size_t i = 0; i < m->paradigm_properties.count; i++) {
        const ot_mg_property *d = &OT_MG_AT(m->paradigm_properties, ot_mg_property, i);
        OTF2_GlobalDefWriter_WriteParadigmProperty(g, (OTF2_Paradigm)d->owner, (OTF2_ParadigmProperty)d->name,
                                                   d->type, d->value);
    }
    for (size_t i = 0; i < m->attributes.count; i++) {
        const ot_mg_attribute *d = &OT_MG_AT(m->attributes, ot_mg_attribute, i);
        OTF2_GlobalDefWriter_WriteAttribute(g, d->self, d->name, d->description, d->type);
    }
    for (size_t i = 0; i < m->nodes.count; i++) {
        const ot_mg_node *d = &OT_MG_AT(m->nodes, ot_mg_node, i);
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, d->self, d->name, d->cls, d->parent);
    }
    for (size_t i = 0; i < m->domains.count; i++) {
        const ot_mg_domain *d = &OT_MG_AT(m->domains, ot_mg_domain, i);
        OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, d->node, d->domain);
    }
    for (size_t i = 0; i < m->node_properties.count; i++) {
        const ot_mg_property *d = &OT_MG_AT(m->node_properties, ot_mg_property, i);
        OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(g, (uint32_t)d->owner, d->name, d->type, d->value);
    }
    for (size_t i = 0; i < m->location_groups.count; i++) {
        const ot_mg_location_group *d = &OT_MG_AT(m->location_groups, ot_mg_location_group, i);
        OTF2_GlobalDefWriter_WriteLocationGroup(g, d->self, d->name, d->type, d->node, d->creator);
    }
    for (size_t i = 0; i < m->location_group_properties.count; i++) {
        const ot_mg_property *d = &OT_MG_AT(m->location_group_properties, ot_mg_property, i);
        OTF2_GlobalDefWriter_WriteLocationGroupProperty(g, (uint32_t)d->owner, d->name, d->type, d->value);
    }
    for (size_t i = 0; i < m->locations.count; i++) {
        const ot_mg_location *d = &OT_MG_AT(m->locations, ot_mg_location, i);
        OTF2_GlobalDefWriter_WriteLocation(g, d->self, d->name, d->type, d->events, d->group);
    }
    for (size_t i = 0; i < m->location_properties.count; i++) {
        const ot_mg_property *d = &OT_MG_AT(m->location_properties, ot_mg_property, i);
        OTF2_GlobalDefWriter_WriteLocationProperty(g, d->owner, d->name, d->type, d->value);
    }
    for (size_t i = 0; i < m->regions.count; i++) {
        const ot_mg_region *d = &OT_MG_AT(m->regions, ot_mg_region, i);
        OTF2_GlobalDefWriter_WriteRegion(g, d->self, d->name, d->canonical, d->description, d->role, d->paradigm,
                                         d->flags, d->file, d->begin_line, d->end_line);
    }
    for (size_t i = 0; i < m->groups.count; i++) {
        job_group *d = &OT_MG_AT(m->groups, job_group, i);
        uint64_t *members = d->members.data;
        size_t n = d->members.count;
        if (d->union_members)
            n = sort_unique(members, n);
        OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)i, d->name, d->type, d->paradigm, d->flags,
                                        (uint32_t)n, members);
    }
    for (size_t i = 0; i < m->comms.count; i++) {
        const ot_mg_comm *d = &OT_MG_AT(m->comms, ot_mg_comm, i);
        OTF2_GlobalDefWriter_WriteComm(g, d->self, d->name, d->group, d->parent, d->flags);
    }
    for (size_t i = 0; i < m->windows.count; i++) {
        const ot_mg_window *d = &OT_MG_AT(m->windows, ot_mg_window, i);
        OTF2_GlobalDefWriter_WriteRmaWin(g, d->self, d->name, d->comm, d->flags);
    }
    for (size_t i = 0; i < m->metric_members.count; i++) {
        const ot_mg_metric_member *d = &OT_MG_AT(m->metric_members, ot_mg_metric_member, i);
        OTF2_GlobalDefWriter_WriteMetricMember(g, d->self, d->name, d->description, d->metric_type, d->mode,
                                               d->value_type, d->base, d->exponent, d->unit);
    }
    for (size_t i = 0; i < m->metric_classes.count; i++) {
        const ot_mg_metric_class *d = &OT_MG_AT(m->metric_classes, ot_mg_metric_class, i);
        OTF2_GlobalDefWriter_WriteMetricClass(g, d->self, d->count, d->members, d->occurrence, d->recorder);
    }
}

/* OTF2 keeps going after a failed write; the first error it reported is the merge's answer. */
typedef struct write_errors { OTF2_ErrorCode code; char text[160]; } write_errors;

static OTF2_ErrorCode remember_error(void *user, const char *file, uint64_t line, const char *function,
                                     OTF2_ErrorCode code, const char *format, va_list va)
{
    write_errors *e = user;
    if (e->code == OTF2_SUCCESS) {
        e->code = code;
        vsnprintf(e->text, sizeof e->text, format ? format : "", va);
    }
    return code;
}

static int move_event_files(merger *m, char *why, size_t why_size);

int ot_mg_write_archive(merger *m, char *why, size_t why_size)
{
    uint64_t def_chunk = definition_chunk(m);
    if (!def_chunk) {
        snprintf(why, why_size, "offtrace merge: a definition is larger than OTF2's largest chunk");
        return -1;
    }
    write_errors errors = {OTF2_SUCCESS, ""};
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(remember_error, &errors);
    OTF2_Archive *archive = OTF2_Archive_Open(m->dir, OFFTRACE_ARCHIVE_NAME, OTF2_FILEMODE_WRITE, m->event_chunk,
                                              def_chunk, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    int rc = archive ? 0 : -1, moved = -1;
    if (archive) {
        OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL);
        OTF2_Archive_SetSerialCollectiveCallbacks(archive);
        OTF2_Archive_SetCreator(archive, m->creator ? m->creator : "offtrace " OFFTRACE_VERSION_STRING);
        OTF2_Archive_SetDescription(archive, m->description ? m->description : "OpenMP offload trace");
        ot_mg_job_properties(m, archive); /* before the global definitions: it adds location group properties */
        if (OTF2_Archive_OpenDefFiles(archive) != OTF2_SUCCESS)
            rc = -1;
        if (rc == 0 && (moved = move_event_files(m, why, why_size)) != 0)
            rc = -1;
        for (int r = 0; r < m->size && rc == 0; r++)
            rc = write_mapping_tables(archive, &m->parts[r]);
        if (rc == 0 && OTF2_Archive_OpenEvtFiles(archive) != OTF2_SUCCESS)
            rc = -1;
        if (rc == 0) {
            rc = write_empty_locations(m, archive);
            OTF2_Archive_CloseEvtFiles(archive);
        }
        OTF2_Archive_CloseDefFiles(archive);
        OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
        if (g && rc == 0 && !m->out_of_memory) {
            write_global_definitions(m, g);
            OTF2_Archive_CloseGlobalDefWriter(archive, g);
        } else
            rc = -1;
    }
    if (archive && OTF2_Archive_Close(archive) != OTF2_SUCCESS)
        rc = -1;
    OTF2_Error_RegisterCallback(previous, NULL);
    if (moved != 0 && archive)
        return -1; /* why says which file */
    if (rc || errors.code != OTF2_SUCCESS) {
        snprintf(why, why_size, "offtrace merge: writing '%s/%s.otf2' failed%s%s", m->dir, OFFTRACE_ARCHIVE_NAME,
                 errors.text[0] ? ": " : (m->out_of_memory ? ": out of memory" : ""), errors.text);
        return -1;
    }
    return 0;
}

/* ---- moving the event files in ---- */

static void event_paths(const merger *m, int rank, uint64_t location, char *part, char *job, size_t size)
{
    snprintf(part, size, "%s/rank.%d/part/traces/%" PRIu64 ".evt", m->dir, rank, location);
    snprintf(job, size, "%s/traces/%" PRIu64 ".evt", m->dir, location);
}

/* On failure every file moved goes back. */
static int move_event_files(merger *m, char *why, size_t why_size)
{
    char part[4096], job[4096];
    for (int r = 0; r < m->size; r++) {
        part_map *pm = &m->parts[r];
        for (size_t i = 0; i < pm->location_count; i++) {
            event_paths(m, r, pm->locations[i], part, job, sizeof part);
            if (access(part, F_OK) && errno == ENOENT)
                continue; /* a location without events */
            if (rename(part, job) == 0)
                continue;
            snprintf(why, why_size, "offtrace merge: cannot move '%s' into '%s/traces': %s%s", part, m->dir,
                     strerror(errno), errno == EXDEV ? " (parts and job directory must share one file system)" : "");
            for (int q = 0; q <= r; q++)
                for (size_t k = 0; k < (q == r ? i : m->parts[q].location_count); k++) {
                    event_paths(m, q, m->parts[q].locations[k], part, job, sizeof part);
                    rename(job, part);
                }
            return -1;
        }
    }
    return 0;
}

void ot_mg_remove_archive(const merger *m)
{
    char path[4096];
    for (int r = 0; r < m->size; r++)
        for (size_t i = 0; i < m->parts[r].location_count; i++) {
            snprintf(path, sizeof path, "%s/traces/%" PRIu64 ".def", m->dir, m->parts[r].locations[i]);
            unlink(path);
        }
    for (int r = 0; r < m->size; r++)
        if (m->parts[r].empty_location != UINT64_MAX) {
            snprintf(path, sizeof path, "%s/traces/%" PRIu64 ".def", m->dir, m->parts[r].empty_location);
            unlink(path);
            snprintf(path, sizeof path, "%s/traces/%" PRIu64 ".evt", m->dir, m->parts[r].empty_location);
            unlink(path);
        }
    snprintf(path, sizeof path, "%s/%s.def", m->dir, OFFTRACE_ARCHIVE_NAME);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s.otf2", m->dir, OFFTRACE_ARCHIVE_NAME);
    unlink(path);
    snprintf(path, sizeof path, "%s/traces", m->dir);
    rmdir(path);
}

void ot_mg_return_event_files(const merger *m)
{
    char part[4096], job[4096];
    for (int r = 0; r < m->size; r++)
        for (size_t i = 0; i < m->parts[r].location_count; i++) {
            event_paths(m, r, m->parts[r].locations[i], part, job, sizeof part);
            if (access(part, F_OK))
                rename(job, part);
        }
}

/* A merge that stopped half-way (killed) left event files in traces/ and no
 * anchor: they go back to their parts, and what it wrote goes, so that OTF2
 * can make the archive's directory again. */
int ot_mg_undo_stopped_merge(merger *m, char *why, size_t why_size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/traces", m->dir);
    if (access(path, F_OK))
        return 0;
    ot_mg_return_event_files(m);
    ot_mg_remove_archive(m);
    if (access(path, F_OK) == 0) {
        snprintf(why, why_size, "offtrace merge: '%s' holds files of no part; remove it to merge", path);
        return -1;
    }
    return 0;
}



/**
 * \file merge.c
 * \brief The job merge of merge.h: read the job file and each rank's part
 *        (merge_read.c), unify the parts' definitions, decide each rank's
 *        state and the job's properties; merge_write.c writes the archive.
 *
 * Unification rules (docs/mpi.md "One archive: the merge"):
 *  - strings by text; attributes by (name, description, type); regions by
 *    every field of the definition plus the catalogue class the part's class
 *    table gives them; metric members by every field, metric classes by
 *    (members, occurrence, recorder kind); paradigms by number;
 *  - the system tree: one root (the first part's), under it one node per
 *    distinct (name, class, parent): one node per host name, its devices
 *    under it;
 *  - location groups and locations are never unified: location ids already
 *    carry the rank (rank << 40), groups get job-wide numbers;
 *  - groups: REGIONS groups (the class table) by name with their members
 *    unioned; one COMM_LOCATIONS group per paradigm whose members are every
 *    part's, in rank order; COMM_GROUP/COMM_SELF groups with their indexes
 *    translated into that group, then unified by (type, paradigm, name,
 *    flags, members): each rank's offload transfer group stays its own,
 *    identical groups (an MPI world) become one; communicators and RMA
 *    windows by (name, group or communicator, parent, flags).
 * Ids are handed out in order of first appearance, rank by rank, so the
 * catalogue's fixed attribute refs, which every part writes the same way,
 * keep their numbers.
 *
 * OTF2 3.0's reader applies the STRING, ATTRIBUTE, REGION, GROUP, COMM,
 * RMA_WIN and METRIC mapping tables of a location's local definitions to its
 * events (checked with otf2-print: RmaPut's window, Metric's class and
 * ThreadTaskCreate's team are mapped as Enter's region is), so event files
 * are never read or rewritten.
 */
#define _GNU_SOURCE
#include "merge.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge_internal.h"
#include "offtrace/event_catalogue.h"
#include "offtrace/offtrace.h"

/* Ranks occupy the location id's bits from 40 up (issue 11, docs/trace-model.md). */
#define OT_MG_RANK_SHIFT 40
/* The converter's archive property: "no", or why the recording is partial. */
#define OFFTRACE_PARTIAL_KEY OFFTRACE_PROPERTY_PREFIX "PARTIAL"

/* ---- a table from a byte key to a dense id ---- */

static uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    while (n--)
        h = (h ^ *b++) * 1099511628211ull;
    return h;
}

static int km_grow(keymap *m)
{
    size_t cap = m->capacity ? m->capacity * 2 : 64;
    km_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->capacity; i++) {
        if (!m->slots[i].key)
            continue;
        size_t j = hash_bytes(m->slots[i].key, m->slots[i].len) & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->capacity = cap;
    return 0;
}

/* The id of key; if new, \p next is recorded for it and *added set. UNMAPPED when out of memory. */
static uint32_t km_get(keymap *m, const void *key, size_t len, uint32_t next, int *added)
{
    *added = 0;
    if ((m->count + 1) * 2 > m->capacity && km_grow(m))
        return UNMAPPED;
    size_t j = hash_bytes(key, len) & (m->capacity - 1);
    while (m->slots[j].key) {
        if (m->slots[j].len == len && !memcmp(m->slots[j].key, key, len))
            return m->slots[j].id;
        j = (j + 1) & (m->capacity - 1);
    }
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return UNMAPPED;
    memcpy(copy, key, len);
    m->slots[j] = (km_slot){copy, (uint32_t)len, next};
    m->count++;
    *added = 1;
    return next;
}

static void km_free(keymap *m)
{
    for (size_t i = 0; i < m->capacity; i++)
        free(m->slots[i].key);
    free(m->slots);
}

static void kb_put(keybuf *k, const void *p, size_t n)
{
    if (k->n + n > k->cap) {
        size_t cap = k->cap ? k->cap : 256;
        while (cap < k->n + n)
            cap *= 2;
        unsigned char *more = realloc(k->b, cap);
        if (!more) {
            k->failed = 1;
            return;
        }
        k->b = more;
        k->cap = cap;
    }
    memcpy(k->b + k->n, p, n);
    k->n += n;
}

static void kb_u64(keybuf *k, uint64_t v) { kb_put(k, &v, sizeof v); }

/* ---- the job's definitions ---- */


static uint32_t string_of(merger *m, const char *text)
{
    int added;
    uint32_t id = km_get(&m->string_keys, text, strlen(text), (uint32_t)m->strings.count, &added);
    if (id == UNMAPPED) {
        m->out_of_memory = 1;
        return OTF2_UNDEFINED_STRING;
    }
    if (added) {
        char *copy = strdup(text);
        if (!copy || ot_mg_push(&m->strings, sizeof copy, &copy)) {
            free(copy);
            m->out_of_memory = 1;
        }
    }
    return id;
}

static uint32_t *new_map(uint32_t count)
{
    uint32_t *map = malloc((count ? count : 1) * sizeof *map);
    if (map)
        memset(map, 0xFF, (count ? count : 1) * sizeof *map);
    return map;
}

static uint32_t mapped(const part_map *pm, int kind, uint64_t local)
{
    return local < pm->map_count[kind] ? pm->map[kind][local] : UNMAPPED;
}

static int set_map(merger *m, part_map *pm, int kind, uint64_t local, uint32_t global)
{
    if (local >= pm->map_count[kind]) {
        uint32_t grown = pm->map_count[kind] ? pm->map_count[kind] : 64;
        while (grown <= local)
            grown *= 2;
        uint32_t *more = realloc(pm->map[kind], grown * sizeof *more);
        if (!more) {
            m->out_of_memory = 1;
            return -1;
        }
        memset(more + pm->map_count[kind], 0xFF, (grown - pm->map_count[kind]) * sizeof *more);
        pm->map[kind] = more;
        pm->map_count[kind] = grown;
    }
    pm->map[kind][local] = global;
    return 0;
}

/* Finds or adds the definition whose key is m->key; *added says which. */
static uint32_t unify(merger *m, keymap *keys, size_t next, int *added)
{
    if (m->key.failed) {
        m->out_of_memory = 1;
        *added = 0;
        return UNMAPPED;
    }
    uint32_t id = km_get(keys, m->key.b, m->key.n, (uint32_t)next, added);
    if (id == UNMAPPED)
        m->out_of_memory = 1;
    return id;
}

static void push(merger *m, ot_mg_vec *v, size_t elem, const void *item)
{
    if (ot_mg_push(v, elem, item))
        m->out_of_memory = 1;
}

/* A property value: a string ref is translated, anything else kept. */
static OTF2_AttributeValue property_value(const part_map *pm, OTF2_Type type, OTF2_AttributeValue value)
{
    if (type == OTF2_TYPE_STRING)
        value.stringRef = mapped(pm, OT_MG_MAP_STRING, value.stringRef);
    return value;
}

/* ---- checks before a part touches the job's definitions ---- */

static int check_part(merger *m, const ot_mg_part *p, char *why, size_t why_size)
{
    const char *part_of = ot_mg_part_property(p, OFFTRACE_JOB_PART_PROPERTY);
    if (part_of && strtol(part_of, NULL, 10) != p->rank) {
        snprintf(why, why_size, "its part says it is rank %s's", part_of);
        return -1;
    }
    for (size_t i = 0; i < p->locations.count; i++) {
        uint64_t id = OT_MG_AT(p->locations, ot_mg_location, i).self;
        if (id >> OT_MG_RANK_SHIFT != (uint64_t)p->rank) {
            snprintf(why, why_size, "its location %" PRIu64 " does not carry rank %d (rank << 40)", id, p->rank);
            return -1;
        }
    }
    if (m->event_chunk && p->event_chunk != m->event_chunk) {
        snprintf(why, why_size, "its event chunk size %" PRIu64 " differs from the other parts' %" PRIu64,
                 p->event_chunk, m->event_chunk);
        return -1;
    }
    if (m->have_clock && p->resolution != m->resolution) {
        snprintf(why, why_size, "its timer resolution %" PRIu64 " differs from the other parts' %" PRIu64,
                 p->resolution, m->resolution);
        return -1;
    }
    const char *catalogue = ot_mg_part_property(p, OFFTRACE_CATALOGUE_PROPERTY);
    if (m->catalogue[0] && strcmp(catalogue ? catalogue : "", m->catalogue)) {
        snprintf(why, why_size, "its part has catalogue version %s, the other parts %s", catalogue ? catalogue : "none",
                 m->catalogue);
        return -1;
    }
    return 0;
}

/* Each location with events has its event file, in the part or (a merge
 * that stopped half-way) already in the job's traces/. */
static int check_event_files(merger *m, const ot_mg_part *p, char *why, size_t why_size)
{
    for (size_t i = 0; i < p->locations.count; i++) {
        const ot_mg_location *l = &OT_MG_AT(p->locations, ot_mg_location, i);
        if (!l->events)
            continue;
        char path[4096], moved[4096];
        snprintf(path, sizeof path, "%s/rank.%d/part/traces/%" PRIu64 ".evt", m->dir, p->rank, l->self);
        snprintf(moved, sizeof moved, "%s/traces/%" PRIu64 ".evt", m->dir, l->self);
        if (access(path, R_OK) && access(moved, R_OK)) {
            snprintf(why, why_size, "its part lacks the event file of location %" PRIu64, l->self);
            return -1;
        }
    }
    return 0;
}

/* ---- unifying one part ---- */

static void unify_strings(merger *m, const ot_mg_part *p, part_map *pm)
{
    for (uint32_t i = 0; i < p->string_count; i++)
        if (p->strings[i])
            set_map(m, pm, OT_MG_MAP_STRING, i, string_of(m, p->strings[i]));
}

#define S(local) mapped(pm, OT_MG_MAP_STRING, (local))

static void unify_paradigms(merger *m, const ot_mg_part *p, part_map *pm)
{
    int added;
    for (size_t i = 0; i < p->paradigms.count; i++) {
        ot_mg_paradigm d = OT_MG_AT(p->paradigms, ot_mg_paradigm, i);
        m->key.n = 0;
        kb_u64(&m->key, d.paradigm);
        unify(m, &m->paradigm_keys, m->paradigms.count, &added);
        if (added) {
            d.name = S(d.name);
            push(m, &m->paradigms, sizeof d, &d);
        }
    }
    for (size_t i = 0; i < p->paradigm_properties.count; i++) {
        ot_mg_property d = OT_MG_AT(p->paradigm_properties, ot_mg_property, i);
        m->key.n = 0;
        kb_u64(&m->key, d.owner);
        kb_u64(&m->key, d.name);
        unify(m, &m->paradigm_property_keys, m->paradigm_properties.count, &added);
        if (added) {
            d.value = property_value(pm, d.type, d.value);
            push(m, &m->paradigm_properties, sizeof d, &d);
        }
    }
}

static void unify_attributes(merger *m, const ot_mg_part *p, part_map *pm)
{
    int added;
    for (size_t i = 0; i < p->attributes.count; i++) {
        ot_mg_attribute d = OT_MG_AT(p->attributes, ot_mg_attribute, i);
        d.name = S(d.name);
        d.description = S(d.description);
        m->key.n = 0;
        kb_u64(&m->key, d.name);
        kb_u64(&m->key, d.description);
        kb_u64(&m->key, d.type);
        uint32_t id = unify(m, &m->attribute_keys, m->attributes.count, &added);
        if (added) {
            d.self = id;
            push(m, &m->attributes, sizeof d, &d);
        }
        set_map(m, pm, OT_MG_MAP_ATTRIBUTE, OT_MG_AT(p->attributes, ot_mg_attribute, i).self, id);
    }
}

/* The part's node ids -> the job's; nodes come parents first in offtrace's parts. */
static uint32_t *unify_system_tree(merger *m, const ot_mg_part *p, part_map *pm, uint32_t *node_count)
{
    uint32_t count = 0;
    for (size_t i = 0; i < p->nodes.count; i++)
        if (OT_MG_AT(p->nodes, ot_mg_node, i).self >= count)
            count = OT_MG_AT(p->nodes, ot_mg_node, i).self + 1;
    uint32_t *map = new_map(count);
    if (!map) {
        m->out_of_memory = 1;
        return NULL;
    }
    *node_count = count;
    int added;
    for (size_t i = 0; i < p->nodes.count; i++) {
        ot_mg_node d = OT_MG_AT(p->nodes, ot_mg_node, i);
        uint32_t local = d.self;
        d.name = S(d.name);
        d.cls = S(d.cls);
        if (d.parent == OTF2_UNDEFINED_SYSTEM_TREE_NODE) {
            /* One machine for the job: every part's root is the first part's. */
            if (m->root == UNMAPPED) {
                m->root = (uint32_t)m->nodes.count;
                d.self = m->root;
                push(m, &m->nodes, sizeof d, &d);
            }
            map[local] = m->root;
            continue;
        }
        d.parent = d.parent < count ? map[d.parent] : UNMAPPED;
        m->key.n = 0;
        kb_u64(&m->key, d.name);
        kb_u64(&m->key, d.cls);
        kb_u64(&m->key, d.parent);
        uint32_t id = unify(m, &m->node_keys, m->nodes.count, &added);
        if (added) {
            d.self = id;
            push(m, &m->nodes, sizeof d, &d);
        }
        map[local] = id;
    }
    for (size_t i = 0; i < p->domains.count; i++) {
        ot_mg_domain d = OT_MG_AT(p->domains, ot_mg_domain, i);
        d.node = d.node < count ? map[d.node] : UNMAPPED;
        m->key.n = 0;
        kb_u64(&m->key, d.node);
        kb_u64(&m->key, d.domain);
        unify(m, &m->domain_keys, m->domains.count, &added);
        if (added)
            push(m, &m->domains, sizeof d, &d);
    }
    /* A host's properties (hwloc's) from the first rank on that host. */
    for (size_t i = 0; i < p->node_properties.count; i++) {
        ot_mg_property d = OT_MG_AT(p->node_properties, ot_mg_property, i);
        d.owner = d.owner < count ? map[d.owner] : UNMAPPED;
        d.name = S(d.name);
        m->key.n = 0;
        kb_u64(&m->key, d.owner);
        kb_u64(&m->key, d.name);
        unify(m, &m->node_property_keys, m->node_properties.count, &added);
        if (added) {
            d.value = property_value(pm, d.type, d.value);
            push(m, &m->node_properties, sizeof d, &d);
        }
    }
    return map;
}

static void unify_locations(merger *m, const ot_mg_part *p, part_map *pm, const uint32_t *nodes,
                            uint32_t node_count)
{
    uint32_t count = 0;
    for (size_t i = 0; i < p->location_groups.count; i++)
        if (OT_MG_AT(p->location_groups, ot_mg_location_group, i).self >= count)
            count = OT_MG_AT(p->location_groups, ot_mg_location_group, i).self + 1;
    uint32_t *groups = new_map(count);
    pm->locations = malloc((p->locations.count ? p->locations.count : 1) * sizeof *pm->locations);
    if (!groups || !pm->locations) {
        free(groups);
        m->out_of_memory = 1;
        return;
    }
    /* Numbers first: a device's group names its creator, the process's group. */
    for (size_t i = 0; i < p->location_groups.count; i++)
        groups[OT_MG_AT(p->location_groups, ot_mg_location_group, i).self] =
            (uint32_t)(m->location_groups.count + i);
    for (size_t i = 0; i < p->location_groups.count; i++) {
        ot_mg_location_group d = OT_MG_AT(p->location_groups, ot_mg_location_group, i);
        if (d.type == OTF2_LOCATION_GROUP_TYPE_PROCESS && d.creator == OTF2_UNDEFINED_LOCATION_GROUP &&
            pm->process_group == UNMAPPED)
            pm->process_group = groups[d.self];
        d.self = groups[d.self];
        d.name = S(d.name);
        d.node = d.node < node_count ? nodes[d.node] : UNMAPPED;
        d.creator = d.creator < count ? groups[d.creator] : OTF2_UNDEFINED_LOCATION_GROUP;
        push(m, &m->location_groups, sizeof d, &d);
    }
    for (size_t i = 0; i < p->location_group_properties.count; i++) {
        ot_mg_property d = OT_MG_AT(p->location_group_properties, ot_mg_property, i);
        d.owner = d.owner < count ? groups[d.owner] : UNMAPPED;
        d.name = S(d.name);
        d.value = property_value(pm, d.type, d.value);
        push(m, &m->location_group_properties, sizeof d, &d);
    }
    int added;
    for (size_t i = 0; i < p->locations.count; i++) {
        ot_mg_location d = OT_MG_AT(p->locations, ot_mg_location, i);
        m->key.n = 0;
        kb_u64(&m->key, d.self);
        unify(m, &m->location_keys, m->locations.count, &added);
        if (!added)
            continue; /* a part naming one location twice: OTF2 reads it once */
        d.name = S(d.name);
        d.group = d.group < count ? groups[d.group] : UNMAPPED;
        push(m, &m->locations, sizeof d, &d);
        pm->locations[pm->location_count++] = d.self;
    }
    for (size_t i = 0; i < p->location_properties.count; i++) {
        ot_mg_property d = OT_MG_AT(p->location_properties, ot_mg_property, i);
        d.name = S(d.name);
        d.value = property_value(pm, d.type, d.value);
        push(m, &m->location_properties, sizeof d, &d);
    }
    free(groups);
}

static void unify_regions(merger *m, const ot_mg_part *p, part_map *pm)
{
    /* The class of a region, by the part's region id, from the class table. */
    uint32_t count = 0;
    for (size_t i = 0; i < p->regions.count; i++)
        if (OT_MG_AT(p->regions, ot_mg_region, i).self >= count)
            count = OT_MG_AT(p->regions, ot_mg_region, i).self + 1;
    uint32_t *cls = new_map(count);
    if (!cls) {
        m->out_of_memory = 1;
        return;
    }
    static const size_t prefix = sizeof OFFTRACE_REGION_CLASS_GROUP_PREFIX - 1;
    for (size_t i = 0; i < p->groups.count; i++) {
        const ot_mg_group *g = &OT_MG_AT(p->groups, ot_mg_group, i);
        if (g->type != OTF2_GROUP_TYPE_REGIONS || g->name >= p->string_count || !p->strings[g->name] ||
            strncmp(p->strings[g->name], OFFTRACE_REGION_CLASS_GROUP_PREFIX, prefix))
            continue;
        for (uint32_t k = 0; k < g->count; k++)
            if (g->members[k] < count)
                cls[g->members[k]] = S(g->name);
    }
    int added;
    for (size_t i = 0; i < p->regions.count; i++) {
        ot_mg_region d = OT_MG_AT(p->regions, ot_mg_region, i);
        uint32_t local = d.self;
        d.name = S(d.name);
        d.canonical = S(d.canonical);
        d.description = S(d.description);
        d.file = S(d.file);
        m->key.n = 0;
        kb_u64(&m->key, d.name);
        kb_u64(&m->key, d.canonical);
        kb_u64(&m->key, d.description);
        kb_u64(&m->key, d.file);
        kb_u64(&m->key, d.role);
        kb_u64(&m->key, d.paradigm);
        kb_u64(&m->key, d.flags);
        kb_u64(&m->key, d.begin_line);
        kb_u64(&m->key, d.end_line);
        kb_u64(&m->key, cls[local]);
        uint32_t id = unify(m, &m->region_keys, m->regions.count, &added);
        if (added) {
            d.self = id;
            push(m, &m->regions, sizeof d, &d);
        }
        set_map(m, pm, OT_MG_MAP_REGION, local, id);
    }
    free(cls);
}

/* The part's COMM_LOCATIONS group of a paradigm (its members are what a COMM_GROUP's indexes index). */
static const ot_mg_group *part_comm_locations(const ot_mg_part *p, OTF2_Paradigm paradigm)
{
    for (size_t i = 0; i < p->groups.count; i++) {
        const ot_mg_group *g = &OT_MG_AT(p->groups, ot_mg_group, i);
        if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && g->paradigm == paradigm)
            return g;
    }
    return NULL;
}

static uint32_t new_group(merger *m, const ot_mg_group *d, uint32_t name, int union_members)
{
    job_group g = {name, d->type, d->paradigm, d->flags, {0}, union_members};
    uint32_t id = (uint32_t)m->groups.count;
    push(m, &m->groups, sizeof g, &g);
    return id;
}

static void add_member(merger *m, uint32_t group, uint64_t member)
{
    if (group < m->groups.count)
        push(m, &OT_MG_AT(m->groups, job_group, group).members, sizeof member, &member);
}

/* A location's index in the job's COMM_LOCATIONS group \p group, added if new. */
static uint32_t comm_location_index(merger *m, uint32_t group, uint64_t location)
{
    if (group >= m->groups.count)
        return UNMAPPED;
    int added;
    m->key.n = 0;
    kb_u64(&m->key, group);
    kb_u64(&m->key, location);
    size_t next = OT_MG_AT(m->groups, job_group, group).members.count;
    uint32_t index = unify(m, &m->comm_location_keys, next, &added);
    if (added)
        add_member(m, group, location);
    return index;
}

static void unify_groups(merger *m, const ot_mg_part *p, part_map *pm)
{
    int added;
    for (size_t i = 0; i < p->groups.count; i++) {
        const ot_mg_group *d = &OT_MG_AT(p->groups, ot_mg_group, i);
        uint32_t name = S(d->name), id;
        m->key.n = 0;
        kb_u64(&m->key, d->type);
        kb_u64(&m->key, d->paradigm);
        if (d->type == OTF2_GROUP_TYPE_REGIONS) {
            kb_u64(&m->key, name);
            id = unify(m, &m->group_keys, m->groups.count, &added);
            if (added)
                new_group(m, d, name, 1);
            for (uint32_t k = 0; k < d->count; k++) {
                uint32_t region = mapped(pm, OT_MG_MAP_REGION, d->members[k]);
                if (region != UNMAPPED)
                    add_member(m, id, region);
            }
        } else if (d->type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
            id = unify(m, &m->group_keys, m->groups.count, &added); /* one per paradigm */
            if (added)
                new_group(m, d, name, 0);
            for (uint32_t k = 0; k < d->count; k++)
                comm_location_index(m, id, d->members[k]);
        } else {
            ot_mg_vec members = {0};
            const ot_mg_group *locations = part_comm_locations(p, d->paradigm);
            uint32_t job_locations = UNMAPPED;
            if (locations && (d->type == OTF2_GROUP_TYPE_COMM_GROUP || d->type == OTF2_GROUP_TYPE_COMM_SELF))
                job_locations = mapped(pm, OT_MG_MAP_GROUP, locations->self);
            for (uint32_t k = 0; k < d->count; k++) {
                uint64_t member = d->members[k];
                if (job_locations != UNMAPPED)
                    member = member < locations->count
                                 ? comm_location_index(m, job_locations, locations->members[member])
                                 : UNMAPPED;
                push(m, &members, sizeof member, &member);
            }
            m->key.n = 0;
            kb_u64(&m->key, d->type);
            kb_u64(&m->key, d->paradigm);
            kb_u64(&m->key, name);
            kb_u64(&m->key, d->flags);
            kb_put(&m->key, members.data, members.count * sizeof(uint64_t));
            id = unify(m, &m->group_keys, m->groups.count, &added);
            if (added) {
                new_group(m, d, name, 0);
                for (size_t k = 0; k < members.count; k++)
                    add_member(m, id, OT_MG_AT(members, uint64_t, k));
            }
            free(members.data);
        }
        set_map(m, pm, OT_MG_MAP_GROUP, d->self, id);
    }
}

static void unify_comms_and_windows(merger *m, const ot_mg_part *p, part_map *pm)
{
    int added;
    for (size_t i = 0; i < p->comms.count; i++) {
        ot_mg_comm d = OT_MG_AT(p->comms, ot_mg_comm, i);
        uint32_t local = d.self;
        d.name = S(d.name);
        d.group = mapped(pm, OT_MG_MAP_GROUP, d.group);
        d.parent = d.parent == OTF2_UNDEFINED_COMM ? OTF2_UNDEFINED_COMM : mapped(pm, OT_MG_MAP_COMM, d.parent);
        m->key.n = 0;
        kb_u64(&m->key, d.name);
        kb_u64(&m->key, d.group);
        kb_u64(&m->key, d.parent);
        kb_u64(&m->key, d.flags);
        uint32_t id = unify(m, &m->comm_keys, m->comms.count, &added);
        if (added) {
            d.self = id;
            push(m, &m->comms, sizeof d, &d);
        }
        set_map(m, pm, OT_MG_MAP_COMM, local, id);
    }
    for (size_t i = 0; i < p->windows.count; i++) {
        ot_mg_window d = OT_MG_AT(p->windows, ot_mg_window, i);
        uint32_t local = d.self;
        d.name = S(d.name);
        d.comm = mapped(pm, OT_MG_MAP_COMM, d.comm);
        m->key.n = 0;
        kb_u64(&m->key, d.name);
        kb_u64(&m->key, d.comm);
        kb_u64(&m->key, d.flags);
        uint32_t id = unify(m, &m->window_keys, m->windows.count, &added);
        if (added) {
            d.self = id;
            push(m, &m->windows, sizeof d, &d);
        }
        set_map(m, pm, OT_MG_MAP_WINDOW, local, id);
    }
}

static void unify_metrics(merger *m, const ot_mg_part *p, part_map *pm)
{
    uint32_t count = 0;
    for (size_t i = 0; i < p->metric_members.count; i++)
        if (OT_MG_AT(p->metric_members, ot_mg_metric_member, i).self >= count)
            count = OT_MG_AT(p->metric_members, ot_mg_metric_member, i).self + 1;
    uint32_t *members = new_map(count);
    if (!members) {
        m->out_of_memory = 1;
        return;
    }
    int added;
    for (size_t i = 0; i < p->metric_members.count; i++) {
        ot_mg_metric_member d = OT_MG_AT(p->metric_members, ot_mg_metric_member, i);
        uint32_t local = d.self;
        d.name = S(d.name);
        d.description = S(d.description);
        d.unit = S(d.unit);
        m->key.n = 0;
        kb_u64(&m->key, d.name);
        kb_u64(&m->key, d.description);
        kb_u64(&m->key, d.unit);
        kb_u64(&m->key, d.metric_type);
        kb_u64(&m->key, d.mode);
        kb_u64(&m->key, d.value_type);
        kb_u64(&m->key, d.base);
        kb_u64(&m->key, (uint64_t)d.exponent);
        uint32_t id = unify(m, &m->member_keys, m->metric_members.count, &added);
        if (added) {
            d.self = id;
            push(m, &m->metric_members, sizeof d, &d);
        }
        members[local] = id;
    }
    for (size_t i = 0; i < p->metric_classes.count; i++) {
        ot_mg_metric_class d = OT_MG_AT(p->metric_classes, ot_mg_metric_class, i);
        uint32_t local = d.self;
        m->key.n = 0;
        kb_u64(&m->key, d.occurrence);
        kb_u64(&m->key, d.recorder);
        for (unsigned k = 0; k < d.count; k++) {
            d.members[k] = d.members[k] < count ? members[d.members[k]] : UNMAPPED;
            kb_u64(&m->key, d.members[k]);
        }
        uint32_t id = unify(m, &m->class_keys, m->metric_classes.count, &added);
        if (added) {
            d.self = id;
            push(m, &m->metric_classes, sizeof d, &d);
        }
        set_map(m, pm, OT_MG_MAP_METRIC, local, id);
    }
    free(members);
}

#undef S

static void unify_clock(merger *m, const ot_mg_part *p)
{
    uint64_t end = p->offset + p->length;
    if (!m->have_clock || p->offset < m->first) {
        m->first = p->offset;
        m->realtime = p->realtime;
    }
    if (!m->have_clock || end > m->end)
        m->end = end;
    m->have_clock = 1;
    m->resolution = p->resolution;
}

static const char *rank_property(const part_map *pm, const char *name)
{
    for (uint32_t i = 0; i < pm->property_count; i++)
        if (!strcmp(pm->property_names[i], name))
            return pm->property_values[i];
    return NULL;
}

static void unify_part(merger *m, ot_mg_part *p, part_map *pm)
{
    unify_strings(m, p, pm);
    unify_paradigms(m, p, pm);
    unify_attributes(m, p, pm);
    uint32_t node_count = 0;
    uint32_t *nodes = unify_system_tree(m, p, pm, &node_count);
    unify_locations(m, p, pm, nodes, node_count);
    free(nodes);
    unify_regions(m, p, pm);
    unify_groups(m, p, pm);
    unify_comms_and_windows(m, p, pm);
    unify_metrics(m, p, pm);
    unify_clock(m, p);
    if (!m->event_chunk)
        m->event_chunk = p->event_chunk;
    if (!m->creator) {
        m->creator = p->creator;
        m->description = p->description;
        p->creator = p->description = NULL;
    }
    const char *catalogue = ot_mg_part_property(p, OFFTRACE_CATALOGUE_PROPERTY);
    if (!m->catalogue[0] && catalogue)
        snprintf(m->catalogue, sizeof m->catalogue, "%s", catalogue);
    /* The part's properties stay with its rank: they are unioned once every part is in. */
    pm->property_count = p->property_count;
    pm->property_names = p->property_names;
    pm->property_values = p->property_values;
    p->property_count = 0;
    p->property_names = p->property_values = NULL;
    const char *partial = rank_property(pm, OFFTRACE_PARTIAL_KEY);
    if (partial && strcmp(partial, "no")) {
        pm->state = RANK_PARTIAL;
        snprintf(pm->reason, sizeof pm->reason, "%s", partial);
    }
}

/* ---- the job file, missing ranks, the archive's properties ---- */

static int read_job_file(merger *m, char *why, size_t why_size)
{
    char path[4096], line[512];
    snprintf(path, sizeof path, "%s/job", m->dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_size, "offtrace merge: cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    int magic = 0;
    long size = -1;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!strcmp(line, "offtrace-job 1"))
            magic = 1;
        else if (!strncmp(line, "id ", 3))
            snprintf(m->job_id, sizeof m->job_id, "%s", line + 3);
        else if (!strncmp(line, "size ", 5)) {
            char *end;
            size = strtol(line + 5, &end, 10);
            if (*end)
                size = -1;
        }
    }
    fclose(f);
    /* A bound on the ranks one archive is made for here: 2^23 ranks fit the
     * 64-bit location ids above bit 40. */
    if (!magic || size < 1 || size > (1L << 23)) {
        snprintf(why, why_size, "offtrace merge: '%s' is no job file of this offtrace (want 'offtrace-job 1', "
                                "'id <id>', 'size <N>')", path);
        return -1;
    }
    m->size = (int)size;
    return 0;
}

/* A rank.K beyond the job's size would be left out unseen: refused instead. */
static int check_no_stray_parts(merger *m, char *why, size_t why_size)
{
    DIR *d = opendir(m->dir);
    if (!d) {
        snprintf(why, why_size, "offtrace merge: cannot list '%s': %s", m->dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "rank.", 5) || !e->d_name[5])
            continue;
        long rank = strtol(e->d_name + 5, &end, 10);
        if (!*end && rank >= m->size) {
            snprintf(why, why_size, "offtrace merge: '%s/%s' is beyond the job's size %d", m->dir, e->d_name, m->size);
            rc = -1;
            break;
        }
    }
    closedir(d);
    return rc;
}

static void set_group_property(merger *m, uint32_t group, const char *name, OTF2_Type type,
                               OTF2_AttributeValue value)
{
    ot_mg_property d = {group, string_of(m, name), type, value};
    push(m, &m->location_group_properties, sizeof d, &d);
}

/* A rank without a part still has its place (docs/trace-model.md): a
 * location group "MPI Rank N" whose master thread, rank << 40, has no events. */
static void add_missing_rank(merger *m, part_map *pm)
{
    if (m->root == UNMAPPED) {
        ot_mg_node root = {(uint32_t)m->nodes.count, string_of(m, "machine"), string_of(m, "machine"),
                           OTF2_UNDEFINED_SYSTEM_TREE_NODE};
        m->root = root.self;
        push(m, &m->nodes, sizeof root, &root);
    }
    char name[64];
    snprintf(name, sizeof name, "MPI Rank %d", pm->rank);
    ot_mg_location_group g = {(uint32_t)m->location_groups.count, string_of(m, name),
                              OTF2_LOCATION_GROUP_TYPE_PROCESS, m->root, OTF2_UNDEFINED_LOCATION_GROUP};
    pm->process_group = g.self;
    push(m, &m->location_groups, sizeof g, &g);
    uint64_t id = (uint64_t)pm->rank << OT_MG_RANK_SHIFT;
    int added;
    m->key.n = 0;
    kb_u64(&m->key, id);
    unify(m, &m->location_keys, m->locations.count, &added);
    if (!added)
        return;
    ot_mg_location l = {id, string_of(m, "Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD, 0, g.self};
    push(m, &m->locations, sizeof l, &l);
    ot_mg_property role = {id, string_of(m, OFFTRACE_LOCATION_ROLE_PROPERTY), OTF2_TYPE_STRING,
                           {.stringRef = string_of(m, offtrace_location_role_name(OFFTRACE_LOC_HOST_THREAD))}};
    ot_mg_property rank = {id, string_of(m, OFFTRACE_LOCATION_MPI_RANK_PROPERTY), OTF2_TYPE_UINT32,
                           {.uint32 = (uint32_t)pm->rank}};
    push(m, &m->location_properties, sizeof role, &role);
    push(m, &m->location_properties, sizeof rank, &rank);
    pm->empty_location = id;
}

/* Whether a rank before \p rank has property \p name (its union was made then). */
static int rank_property_before(const merger *m, int rank, const char *name)
{
    for (int q = 0; q < rank; q++)
        if (rank_property(&m->parts[q], name))
            return 1;
    return 0;
}

/* Properties the merge writes itself, or that only a part has. */
static int merge_owned(const char *name)
{
    return !strcmp(name, OFFTRACE_JOB_PART_PROPERTY) || !strcmp(name, OFFTRACE_JOB_SIZE_PROPERTY) ||
           !strcmp(name, OFFTRACE_JOB_ID_PROPERTY) || !strcmp(name, OFFTRACE_PARTIAL_RANKS_PROPERTY);
}

/* Properties that describe one rank and mean nothing summed or alike for
 * the job: the clock correction applied to it (mpi_pass.c). They always go
 * to the ranks' groups, even where every rank has the same value. */
static int rank_owned(const char *name)
{
    static const char clock[] = OFFTRACE_PROPERTY_PREFIX "MPI_CLOCK_";
    return !strncmp(name, clock, sizeof clock - 1);
}

/* The "rank state reason" lines of the ranks that are not complete ("" if none). */
static char *incomplete_ranks(const merger *m, int all)
{
    char *text = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&text, &length);
    if (!f)
        return NULL;
    for (int r = 0; r < m->size; r++) {
        const part_map *pm = &m->parts[r];
        if (pm->state == RANK_COMPLETE && !all)
            continue;
        static const char *const states[] = {"complete", "partial", "missing"};
        fprintf(f, "%d %s%s%s\n", r, states[pm->state], pm->reason[0] ? " " : "", pm->reason);
    }
    fclose(f);
    return text;
}

/* A number a count property holds: digits, with a decimal point for seconds. */
static int is_number(const char *s, int *integer)
{
    int digits = 0, points = 0;
    for (; *s; s++) {
        if (*s == '.')
            points++;
        else if (*s >= '0' && *s <= '9')
            digits++;
        else
            return 0;
    }
    if (points)
        *integer = 0;
    return digits && points <= 1;
}

/* The union of the parts' archive properties: a value every part has alike
 * is the job's. One that differs (or that only some parts have) goes to each
 * rank's process location group under the same name, and the job's value is
 * the sum when every value is a number (records, losses, seconds), else
 * says where to look. A rank's own properties (rank_owned) always go to
 * its group, and the job's value says where to look. */
static void union_properties(merger *m, OTF2_Archive *archive)
{
    for (int r = 0; r < m->size; r++) {
        const part_map *pm = &m->parts[r];
        for (uint32_t i = 0; i < pm->property_count; i++) {
            const char *name = pm->property_names[i], *first = pm->property_values[i];
            if (merge_owned(name) || rank_property_before(m, r, name))
                continue;
            int same = 1, numbers = 1, integers = 1;
            uint64_t sum = 0;
            double fractional = 0;
            for (int q = 0; q < m->size; q++) {
                if (m->parts[q].state == RANK_MISSING)
                    continue;
                const char *v = rank_property(&m->parts[q], name);
                same = same && v && !strcmp(v, first);
                if (!v)
                    continue;
                numbers = numbers && is_number(v, &integers);
                if (numbers) {
                    sum += strtoull(v, NULL, 10);
                    fractional += strtod(v, NULL);
                }
            }
            int per_rank = rank_owned(name);
            if (same && !per_rank) {
                OTF2_Archive_SetProperty(archive, name, first, true);
                continue;
            }
            for (int q = 0; q < m->size; q++) {
                const char *v = rank_property(&m->parts[q], name);
                if (v && m->parts[q].process_group != UNMAPPED)
                    set_group_property(m, m->parts[q].process_group, name, OTF2_TYPE_STRING,
                                       (OTF2_AttributeValue){.stringRef = string_of(m, v)});
            }
            char value[64];
            if (per_rank)
                snprintf(value, sizeof value, "per rank: see the ranks' location groups");
            else if (numbers && integers)
                snprintf(value, sizeof value, "%" PRIu64, sum);
            else if (numbers)
                snprintf(value, sizeof value, "%.6f", fractional);
            else
                snprintf(value, sizeof value, "differs per rank: see the ranks' location groups");
            OTF2_Archive_SetProperty(archive, name, value, true);
        }
    }
}

void ot_mg_job_properties(merger *m, OTF2_Archive *archive)
{
    union_properties(m, archive);
    char value[64];
    snprintf(value, sizeof value, "%d", m->size);
    OTF2_Archive_SetProperty(archive, OFFTRACE_JOB_SIZE_PROPERTY, value, true);
    OTF2_Archive_SetProperty(archive, OFFTRACE_JOB_ID_PROPERTY, m->job_id, true);
    char *partial = incomplete_ranks(m, 0);
    if (partial && partial[0]) /* OTF2 keeps no empty value: absent when every rank is complete */
        OTF2_Archive_SetProperty(archive, OFFTRACE_PARTIAL_RANKS_PROPERTY, partial, true);
    /* The job is partial when one of its ranks is; readers that know one
     * process (summary.c) print this. */
    char *why = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&why, &length);
    if (f) {
        const char *sep = "";
        for (int r = 0; r < m->size; r++) {
            const part_map *pm = &m->parts[r];
            if (pm->state == RANK_COMPLETE)
                continue;
            fprintf(f, "%srank %d %s%s%s", sep, r, pm->state == RANK_MISSING ? "missing" : "partial",
                    pm->reason[0] ? ": " : "", pm->reason);
            sep = "; ";
        }
        fclose(f);
    }
    OTF2_Archive_SetProperty(archive, OFFTRACE_PARTIAL_KEY, why && why[0] ? why : "no", true);
    free(why);
    free(partial);
}

static int write_ranks_file(const merger *m, char *why, size_t why_size)
{
    char path[4096], temporary[4096];
    snprintf(path, sizeof path, "%s/ranks", m->dir);
    snprintf(temporary, sizeof temporary, "%s/ranks.tmp", m->dir);
    char *text = incomplete_ranks(m, 1);
    FILE *f = text ? fopen(temporary, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 ? 0 : -1;
    if (f && fclose(f))
        rc = -1;
    if (rc == 0 && rename(temporary, path))
        rc = -1;
    if (rc) {
        snprintf(why, why_size, "offtrace merge: cannot write '%s': %s", path, strerror(errno));
        unlink(temporary);
    }
    free(text);
    return rc;
}

/* ---- the merge ---- */

static int merge_parts(merger *m, char *why, size_t why_size)
{
    int present = 0;
    for (int r = 0; r < m->size && !m->out_of_memory; r++) {
        part_map *pm = &m->parts[r];
        char anchor[4096];
        snprintf(anchor, sizeof anchor, "%s/rank.%d/part/%s.otf2", m->dir, r, OFFTRACE_ARCHIVE_NAME);
        ot_mg_part part = {.rank = r};
        if (access(anchor, F_OK)) {
            pm->state = RANK_MISSING;
            snprintf(pm->reason, sizeof pm->reason, "no part");
        } else if (ot_mg_read_part(anchor, &part, pm->reason, sizeof pm->reason) ||
                   check_part(m, &part, pm->reason, sizeof pm->reason) ||
                   check_event_files(m, &part, pm->reason, sizeof pm->reason)) {
            pm->state = RANK_MISSING; /* pm->reason says why */
        } else {
            unify_part(m, &part, pm);
            present++;
        }
        for (char *c = pm->reason; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        if (pm->state == RANK_MISSING)
            add_missing_rank(m, pm);
        ot_mg_free_part(&part);
    }
    for (int r = 0; r < m->size; r++)
        if (m->parts[r].process_group != UNMAPPED)
            set_group_property(m, m->parts[r].process_group, OFFTRACE_LOCATION_MPI_RANK_PROPERTY, OTF2_TYPE_UINT32,
                               (OTF2_AttributeValue){.uint32 = (uint32_t)r});
    if (m->out_of_memory) {
        snprintf(why, why_size, "offtrace merge: out of memory");
        return -1;
    }
    if (!present) {
        snprintf(why, why_size, "offtrace merge: no rank of the job in '%s' has a readable part (rank 0: %s)", m->dir,
                 m->parts[0].reason);
        return -1;
    }
    if (ot_mg_undo_stopped_merge(m, why, why_size))
        return -1;
    if (ot_mg_write_archive(m, why, why_size) || write_ranks_file(m, why, why_size)) {
        ot_mg_remove_archive(m);
        ot_mg_return_event_files(m); /* as before the merge */
        return -1;
    }
    return 0;
}

static void free_merger(merger *m)
{
    keymap *maps[] = {&m->string_keys, &m->attribute_keys, &m->paradigm_keys, &m->paradigm_property_keys,
                      &m->node_keys, &m->domain_keys, &m->node_property_keys, &m->location_keys, &m->region_keys,
                      &m->group_keys, &m->comm_location_keys, &m->comm_keys, &m->window_keys, &m->member_keys,
                      &m->class_keys};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        km_free(maps[i]);
    for (size_t i = 0; i < m->strings.count; i++)
        free(OT_MG_AT(m->strings, char *, i));
    for (size_t i = 0; i < m->groups.count; i++)
        free(OT_MG_AT(m->groups, job_group, i).members.data);
    ot_mg_vec *vecs[] = {&m->strings, &m->attributes, &m->paradigms, &m->paradigm_properties, &m->nodes,
                         &m->domains, &m->node_properties, &m->location_groups, &m->location_group_properties,
                         &m->locations, &m->location_properties, &m->regions, &m->groups, &m->comms, &m->windows,
                         &m->metric_members, &m->metric_classes};
    for (size_t i = 0; i < sizeof vecs / sizeof *vecs; i++)
        free(vecs[i]->data);
    for (int r = 0; m->parts && r < m->size; r++) {
        part_map *pm = &m->parts[r];
        for (int k = 0; k < OT_MG_MAP_KINDS; k++)
            free(pm->map[k]);
        free(pm->locations);
        for (uint32_t i = 0; i < pm->property_count; i++) {
            free(pm->property_names[i]);
            free(pm->property_values[i]);
        }
        free(pm->property_names);
        free(pm->property_values);
    }
    free(m->parts);
    free(m->creator);
    free(m->description);
    free(m->key.b);
}

int ot_merge_job(const char *job_dir, char *why, size_t why_size)
{
    merger m = {.dir = job_dir, .root = UNMAPPED};
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/%s.otf2", job_dir, OFFTRACE_ARCHIVE_NAME);
    if (access(anchor, F_OK) == 0) {
        snprintf(why, why_size, "offtrace merge: '%s' exists already; offtrace never overwrites a trace", anchor);
        return -1;
    }
    int rc = read_job_file(&m, why, why_size);
    if (rc == 0)
        rc = check_no_stray_parts(&m, why, why_size);
    if (rc == 0 && !(m.parts = calloc((size_t)m.size, sizeof *m.parts))) {
        snprintf(why, why_size, "offtrace merge: out of memory");
        rc = -1;
    }
    for (int r = 0; rc == 0 && r < m.size; r++)
        m.parts[r] = (part_map){.rank = r, .process_group = UNMAPPED, .empty_location = UINT64_MAX};
    if (rc == 0)
        rc = merge_parts(&m, why, why_size);
    free_merger(&m);
    return rc;
}

int ot_merge_job_pending(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/job", dir);
    if (access(path, F_OK))
        return 0;
    snprintf(path, sizeof path, "%s/%s.otf2", dir, OFFTRACE_ARCHIVE_NAME);
    return access(path, F_OK) != 0;
}

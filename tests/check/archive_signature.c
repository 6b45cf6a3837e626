/**
 * \file archive_signature.c
 * \brief The archive signature of archive_signature.h: global definitions
 *        give each location its role and each region its normalised name;
 *        each location's events are then counted into lines
 *        "role / event / detail = number".
 */
#define _GNU_SOURCE
#include "archive_signature.h"
#include "otf2_each_location.h"

#include <ctype.h>
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ lines and their numbers */

typedef struct line {
    char *key;
    uint64_t value;
} line;

typedef struct tally {
    line *slots; /* open addressing on the key's hash */
    size_t capacity, count;
    int failed;
} tally;

static uint64_t hash_of(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static line *slot(line *slots, size_t capacity, const char *key)
{
    size_t i = hash_of(key) & (capacity - 1);
    while (slots[i].key && strcmp(slots[i].key, key))
        i = (i + 1) & (capacity - 1);
    return &slots[i];
}

/* Add \p delta to the line \p key (made with printf's format). */
static void add(tally *t, uint64_t delta, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(tally *t, uint64_t delta, const char *fmt, ...)
{
    char key[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    if (2 * (t->count + 1) > t->capacity) {
        size_t capacity = t->capacity ? 2 * t->capacity : 256;
        line *slots = calloc(capacity, sizeof *slots);
        if (!slots) {
            t->failed = 1;
            return;
        }
        for (size_t i = 0; i < t->capacity; i++)
            if (t->slots[i].key)
                *slot(slots, capacity, t->slots[i].key) = t->slots[i];
        free(t->slots);
        t->slots = slots;
        t->capacity = capacity;
    }
    line *l = slot(t->slots, t->capacity, key);
    if (!l->key) {
        l->key = strdup(key);
        if (!l->key) {
            t->failed = 1;
            return;
        }
        t->count++;
    }
    l->value += delta;
}

/* ------------------------------------------------------------ definitions */

typedef struct named {
    uint64_t id;
    char *name;
} named;

/* id -> text, for the few kinds of definitions the signature names. */
typedef struct names {
    named *items;
    size_t count;
} names;

static void name_add(names *n, uint64_t id, const char *text)
{
    if (n->count % 64 == 0) {
        named *grown = realloc(n->items, (n->count + 64) * sizeof *grown);
        if (!grown)
            return;
        n->items = grown;
    }
    n->items[n->count++] = (named){id, strdup(text ? text : "")};
}

static const char *name_of(const names *n, uint64_t id)
{
    for (size_t i = n->count; i-- > 0;) /* definitions come roughly in id order; recent ones first */
        if (n->items[i].id == id)
            return n->items[i].name ? n->items[i].name : "";
    return "?";
}

static void names_free(names *n)
{
    for (size_t i = 0; i < n->count; i++)
        free(n->items[i].name);
    free(n->items);
}

typedef struct location {
    uint64_t id;
    char role[96];
    uint64_t metric_last[4]; /* the last value of each metric member read on it, 0 before the first */
} location;

typedef struct reader_state {
    tally lines;
    names strings, regions, metrics, groups; /* groups: location group -> its type as text */
    location *locations;
    size_t location_count;
    location *current;
    uint64_t handled; /* events of the current location counted by a callback */
} reader_state;

/* Run-specific parts of a region name: the file id of an offload entry
 * (`__omp_offloading_<device id>_<file id>_<function>_l<line>`, both hexadecimal, from the
 * file's inode), and hexadecimal addresses. */
static void normalise(const char *in, char *out, size_t size)
{
    static const char entry[] = "__omp_offloading_";
    size_t o = 0;
    while (*in && o + 16 < size) {
        if (!strncmp(in, entry, sizeof entry - 1)) {
            o += (size_t)snprintf(out + o, size - o, "%s<dev>_<file>_", entry);
            in += sizeof entry - 1;
            for (int part = 0; part < 2; part++) {
                while (isxdigit((unsigned char)*in))
                    in++;
                if (*in == '_')
                    in++;
            }
        } else if (in[0] == '0' && in[1] == 'x' && isxdigit((unsigned char)in[2])) {
            o += (size_t)snprintf(out + o, size - o, "0x<address>");
            in += 2;
            while (isxdigit((unsigned char)*in))
                in++;
        } else
            out[o++] = *in++;
    }
    out[o] = 0;
}

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *text)
{
    name_add(&((reader_state *)u)->strings, self, text);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                  OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    reader_state *s = u;
    char normalised[512];
    normalise(name_of(&s->strings, name), normalised, sizeof normalised);
    name_add(&s->regions, self, normalised);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                          OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                          OTF2_LocationGroupRef creator)
{
    reader_state *s = u;
    name_add(&s->groups, self,
             type == OTF2_LOCATION_GROUP_TYPE_PROCESS       ? "process"
             : type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR ? "accelerator"
                                                            : "other");
    return OTF2_CALLBACK_SUCCESS;
}

/* A location's role: host threads (CPU threads of the process), and per
 * device its RDMA location, kernel streams, device threads and device queues,
 * from the names the converter gives them ("device 0 stream 1"). Locations
 * of one role are one line each time, whatever their number. */
static void role_of(const char *group, OTF2_LocationType type, const char *name, char *role, size_t size)
{
    int device;
    unsigned index;
    char kind[32];
    if (!strcmp(group, "process"))
        snprintf(role, size, type == OTF2_LOCATION_TYPE_CPU_THREAD ? "host threads" : "process, not a CPU thread");
    else if (sscanf(name, "device %d RDMA", &device) == 1 && strstr(name, "RDMA"))
        snprintf(role, size, "device %d RDMA", device);
    else if (sscanf(name, "device %d %31s %u", &device, kind, &index) == 3)
        snprintf(role, size, "device %d %s%s", device, kind,
                 !strcmp(kind, "stream") || !strcmp(kind, "thread") || !strcmp(kind, "queue") ? "s" : "");
    else
        snprintf(role, size, "%s group, location \"%s\"", group, name);
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t events, OTF2_LocationGroupRef group)
{
    reader_state *s = u;
    if (s->location_count % 64 == 0) {
        location *grown = realloc(s->locations, (s->location_count + 64) * sizeof *grown);
        if (!grown)
            return OTF2_CALLBACK_INTERRUPT;
        s->locations = grown;
    }
    location *l = &s->locations[s->location_count++];
    memset(l, 0, sizeof *l);
    l->id = self;
    role_of(name_of(&s->groups, group), type, name_of(&s->strings, name), l->role, sizeof l->role);
    /* How many locations a role has is left out, but for RDMA locations (one per device used): host
     * threads include libomptarget's hidden helper threads, which run `nowait` target regions as they
     * come free; kernel streams are made from kernels that overlap in time; device threads are the OS
     * threads that ran device work, helper threads again among them. */
    if (strstr(l->role, " RDMA"))
        add(&s->lines, 1, "%s / locations", l->role);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_metric_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                         OTF2_StringRef description, OTF2_MetricType metric_type,
                                         OTF2_MetricMode mode, OTF2_Type value_type, OTF2_Base base,
                                         int64_t exponent, OTF2_StringRef unit)
{
    reader_state *s = u;
    name_add(&s->metrics, self, name_of(&s->strings, name)); /* members by id, then classes by id */
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_metric_class(void *u, OTF2_MetricRef self, uint8_t count,
                                        const OTF2_MetricMemberRef *members, OTF2_MetricOccurrence occurrence,
                                        OTF2_RecorderKind kind)
{
    reader_state *s = u;
    char text[256] = "";
    for (unsigned i = 0; i < count; i++) {
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "%s%s", i ? ", " : "", name_of(&s->metrics, members[i]));
    }
    name_add(&s->metrics, (uint64_t)1 << 40 | self, text);
    return OTF2_CALLBACK_SUCCESS;
}

static int read_definitions(OTF2_Reader *reader, reader_state *s)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!g || !cb) {
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
        return -1;
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, d_location_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, d_metric_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, d_metric_class);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, g, cb, s);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllGlobalDefinitions(reader, g, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseGlobalDefReader(reader, g);
    return rc;
}

/* ----------------------------------------------------------------- events */

/* Events are counted without their attributes: the values are addresses, which change from run to
 * run, and saying what a region or location is through an attribute (issue 11) adds attributes
 * without changing any event. */

#define EVENT_ARGS OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *attrs

static OTF2_CallbackCode e_enter(EVENT_ARGS, OTF2_RegionRef region)
{
    reader_state *s = u;
    s->handled++;
    add(&s->lines, 1, "%s / Enter / %s", s->current->role, name_of(&s->regions, region));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(EVENT_ARGS, OTF2_RegionRef region)
{
    reader_state *s = u;
    s->handled++;
    add(&s->lines, 1, "%s / Leave / %s", s->current->role, name_of(&s->regions, region));
    return OTF2_CALLBACK_SUCCESS;
}

static void rma(reader_state *s, const char *event, uint64_t bytes)
{
    s->handled++;
    add(&s->lines, 1, "%s / %s / events", s->current->role, event);
    add(&s->lines, bytes, "%s / %s / bytes", s->current->role, event);
}

static OTF2_CallbackCode e_put(EVENT_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    rma(u, "RmaPut", bytes);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_get(EVENT_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t id)
{
    rma(u, "RmaGet", bytes);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_complete(EVENT_ARGS, OTF2_RmaWinRef win, uint64_t id)
{
    reader_state *s = u;
    s->handled++;
    add(&s->lines, 1, "%s / RmaOpCompleteBlocking / events", s->current->role);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_metric(EVENT_ARGS, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                  const OTF2_MetricValue *values)
{
    reader_state *s = u;
    s->handled++;
    const char *name = name_of(&s->metrics, (uint64_t)1 << 40 | metric);
    add(&s->lines, 1, "%s / Metric / %s / events", s->current->role, name);
    /* The memory in use after each change: the rises add up to the bytes allocated, whatever order
     * concurrent target regions (nowait) allocate in; the values themselves depend on that order. */
    for (unsigned i = 0; i < n && i < 4; i++)
        if (types[i] == OTF2_TYPE_UINT64) {
            uint64_t v = values[i].unsigned_int, *last = &s->current->metric_last[i];
            add(&s->lines, v > *last ? v - *last : 0, "%s / Metric / %s / value %u rises", s->current->role, name,
                i);
            *last = v;
        }
    return OTF2_CALLBACK_SUCCESS;
}

static uint64_t location_id(void *user, size_t i)
{
    return ((reader_state *)user)->locations[i].id;
}

static void begin_location(void *user, size_t i)
{
    reader_state *s = user;
    s->current = &s->locations[i];
    s->handled = 0;
}

/* events of any other type: one line, so that a new kind of event shows */
static void location_read(void *user, size_t i, uint64_t read)
{
    reader_state *s = user;
    if (read > s->handled)
        add(&s->lines, read - s->handled, "%s / events of other types", s->current->role);
}

static int read_events(OTF2_Reader *reader, reader_state *s)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return -1;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, e_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, e_get);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, e_complete);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, e_metric);
    otf2_each_location each = {.count = s->location_count, .id = location_id, .begin = begin_location,
                               .end = location_read, .user = s};
    int rc = otf2_read_each_location(reader, &each, cb);
    OTF2_EvtReaderCallbacks_Delete(cb);
    return rc;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const line *)a)->key, ((const line *)b)->key);
}

/* The lines, sorted, as "key = value\n". */
static char *text_of(tally *t)
{
    size_t n = 0, size = 1;
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i].key) {
            t->slots[n++] = t->slots[i];
            size += strlen(t->slots[n - 1].key) + 32;
        }
    for (size_t i = n; i < t->capacity; i++)
        t->slots[i].key = NULL;
    qsort(t->slots, n, sizeof *t->slots, by_key);
    char *text = malloc(size);
    if (!text)
        return NULL;
    size_t used = 0;
    text[0] = 0;
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, size - used, "%s = %llu\n", t->slots[i].key,
                                 (unsigned long long)t->slots[i].value);
    return text;
}

int archive_signature(const char *anchor, char **text)
{
    *text = NULL;
    OTF2_Reader *reader = OTF2_Reader_Open(anchor);
    if (!reader)
        return -1;
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    reader_state s = {0};
    int rc = read_definitions(reader, &s);
    if (rc == 0)
        rc = read_events(reader, &s);
    OTF2_Reader_Close(reader);
    if (rc == 0 && !s.lines.failed)
        *text = text_of(&s.lines);
    for (size_t i = 0; i < s.lines.capacity; i++)
        free(s.lines.slots[i].key);
    free(s.lines.slots);
    names *all[] = {&s.strings, &s.regions, &s.metrics, &s.groups};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        names_free(all[i]);
    free(s.locations);
    return *text ? 0 : -1;
}

/**
 * \file map_capture.c
 * \brief The recorder's side of the map capture: the query found once, the
 *        map sites defined once each, a data op matched to its entry.
 *
 * Hot path (every data op and target construct with the capture present):
 * one call of the capture's query per target region (its TARGET begin; the
 * region's data ops and end reuse the answer, map_capture.h), the
 * construct's site (cached in the construct after its first look-up, and
 * the thread's last site remembered across regions), and a scan of its
 * entries (a handful) comparing addresses and sizes, unless the thread's
 * last search in the region found the same range (map_capture.h). No
 * lock, no allocation, no string work.
 *
 * Slow path, once per site: the first thread that meets a site takes the
 * lock, gives it the next id, appends its definition to raw/map-sites.defs (one
 * write, session.c's file rules) and publishes the id in the lock-free
 * table; the names are copied as found (strnlen, bounded) and parsed by the
 * converter, which can afford to be careful.
 */
#define _GNU_SOURCE
#include "map_capture.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "offtrace/raw_format.h"
#include "session.h"

offtrace_capture_query_fn ot_map_capture_query;
__thread ot_map_capture_region ot_map_capture_current __attribute__((tls_model("initial-exec")));
__thread ot_map_capture_found ot_map_capture_last_found __attribute__((tls_model("initial-exec")));

/* ---- map sites ---- */

#define SITE_SLOTS 4096u /* a power of two; sites past SITE_SLOTS - 1 get id 0 */
#define PTR_AND_OBJ 0x10

typedef struct site_slot {
    const void *loc, *names, *types;
    int64_t count;   /* -1: a mapper component (names = its name, types = its type) */
    uint32_t id;     /* 0: free; stored last (release) */
} site_slot;

static site_slot sites[SITE_SLOTS];
static uint32_t sites_used;
static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;

/* A fork while another thread defines a site leaves the lock held in the
 * child, whose only thread would wait for it forever at its first new
 * site: the child starts with it free (a slot being filled stays unused). */
static void site_lock_after_fork(void)
{
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    site_lock = fresh;
}

void ot_map_capture_attach(void)
{
    ot_map_capture_query = (offtrace_capture_query_fn)dlsym(RTLD_DEFAULT, OFFTRACE_CAPTURE_QUERY_SYMBOL);
    if (ot_map_capture_query)
        pthread_atfork(NULL, NULL, site_lock_after_fork);
}

static inline size_t site_hash(const void *loc, const void *names, const void *types, int64_t count)
{
    uint64_t h = (uint64_t)(uintptr_t)loc * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)names * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(uintptr_t)types * 0x165667B19E3779F9ull ^ (uint64_t)count;
    return (size_t)(h >> 40) & (SITE_SLOTS - 1);
}

/* psource of clang's ident_t: four int32, then the pointer. */
static const char *psource_of(const void *loc)
{
    return loc ? *(const char *const *)((const char *)loc + 16) : NULL;
}

static size_t put_text(char *out, const char *text)
{
    if (!text) {
        memcpy(out, "-1 ", 3);
        return 3;
    }
    size_t len = strnlen(text, OFFTRACE_RAW_MAP_NAME_MAX);
    size_t n = (size_t)sprintf(out, "%zu ", len);
    memcpy(out + n, text, len);
    return n + len;
}

/* "<site> <entries> <psource>" then " <type> <name>" per entry, "\n". */
static void define_site(uint32_t id, const void *loc, void *const *names, const int64_t *types, int64_t count)
{
    size_t entries = count < 0 ? 1 : (size_t)count;
    if (entries > OFFTRACE_RAW_MAP_ENTRIES_MAX)
        entries = OFFTRACE_RAW_MAP_ENTRIES_MAX;
    size_t room = 64 + OFFTRACE_RAW_MAP_NAME_MAX + entries * (48 + OFFTRACE_RAW_MAP_NAME_MAX);
    char *buf = malloc(room);
    if (!buf)
        return;
    size_t len = (size_t)sprintf(buf, "%u %zu ", id, entries);
    len += put_text(buf + len, psource_of(loc));
    for (size_t i = 0; i < entries; i++) {
        const char *name = count < 0 ? (const char *)names : names ? (const char *)names[i] : NULL;
        int64_t type = count < 0 ? (int64_t)(intptr_t)types : types ? types[i] : 0;
        len += (size_t)sprintf(buf + len, " %llx ", (unsigned long long)type);
        len += put_text(buf + len, name);
    }
    buf[len++] = '\n';
    int fd = ot_session_open_file(OFFTRACE_RAW_MAP_DEFS, O_WRONLY | O_CREAT | O_APPEND, NULL);
    if (fd >= 0) {
        if (write(fd, buf, len) != (ssize_t)len && ot_the_session.verbose > 1)
            fprintf(stderr, "offtrace: map site %u not written\n", id);
        close(fd);
    }
    free(buf);
}

static uint32_t site_id(const void *loc, void *const *names, const int64_t *types, int64_t count)
{
    size_t start = site_hash(loc, names, types, count);
    for (size_t k = 0; k < SITE_SLOTS; k++) { /* lock-free: ids are published last */
        site_slot *s = &sites[(start + k) & (SITE_SLOTS - 1)];
        uint32_t id = __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
        if (!id)
            break;
        if (s->loc == loc && s->names == names && s->types == types && s->count == count)
            return id;
    }
    pthread_mutex_lock(&site_lock);
    uint32_t id = 0;
    for (size_t k = 0; k < SITE_SLOTS; k++) {
        site_slot *s = &sites[(start + k) & (SITE_SLOTS - 1)];
        if (s->id && s->loc == loc && s->names == names && s->types == types && s->count == count) {
            id = s->id; /* another thread defined it meanwhile */
            break;
        }
        if (!s->id) {
            if (sites_used + 1 >= SITE_SLOTS)
                break; /* full: this site stays unnamed */
            id = ++sites_used;
            *s = (site_slot){loc, names, types, count, 0};
            define_site(id, loc, names, types, count);
            __atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&site_lock);
    return id;
}

/* The thread's last site (map_capture.h): a site's id never changes once given. */
__thread ot_map_capture_last_site_t ot_map_capture_last_site __attribute__((tls_model("initial-exec")));
#define last_site ot_map_capture_last_site

uint32_t ot_map_capture_site(offtrace_capture_construct *c)
{
    if (c->recorder[0]) /* site + 1, so that 0 means not looked up yet */
        return (uint32_t)(c->recorder[0] - 1);
    uint32_t id;
    if (last_site.id && last_site.loc == c->loc && last_site.names == c->names && last_site.types == c->types &&
        last_site.count == c->count) {
        id = last_site.id;
    } else {
        id = site_id(c->loc, c->names, c->types, c->count);
        if (id) {
            last_site.loc = c->loc;
            last_site.names = c->names;
            last_site.types = c->types;
            last_site.count = c->count;
            last_site.id = id;
        }
    }
    c->recorder[0] = (uint64_t)id + 1;
    return id;
}

/* ---- data op -> entry ---- */

static int is_to_device(int op) { return op == ompt_target_data_transfer_to_device || op == ompt_target_data_transfer_to_device_async; }
static int is_from_device(int op) { return op == ompt_target_data_transfer_from_device || op == ompt_target_data_transfer_from_device_async; }

#define MAP_TO 0x1
#define MAP_FROM 0x2
#define MEMBER_OF_BITS 0xFFFF000000000000ull

static inline int entry_score(const int64_t *types, int32_t i, uint64_t direction)
{
    uint64_t t = types ? (uint64_t)types[i] : 0;
    return (direction && (t & direction) ? 2 : 0) + ((t & MEMBER_OF_BITS) ? 1 : 0);
}

/* The entry of [addr, addr + bytes): the same begin and size, else the
 * first whose range holds addr. -1: none. Of several with the same begin
 * and size (a struct mapped with its members: clang's unnamed entry for
 * the whole struct, then the struct's own as its member), the one whose
 * map type moves data the op's way, then a member's.
 * The scores are worked out only when a second entry has the same begin and
 * size: most constructs have none, and the scan is then two compares an
 * entry (issue 18). */
static long find_entry(int32_t count, void *const *begins, const int64_t *sizes, const int64_t *types,
                       uint64_t addr, uint64_t bytes, uint64_t direction, int *only_one)
{
    *only_one = 0;
    if (!begins || !sizes)
        return -1;
    for (int32_t i = 0; i < count; i++) {
        if ((uint64_t)(uintptr_t)begins[i] != addr || (uint64_t)sizes[i] != bytes)
            continue;
        long best = i;
        int best_score = -1;
        for (int32_t j = i + 1; j < count; j++)
            if ((uint64_t)(uintptr_t)begins[j] == addr && (uint64_t)sizes[j] == bytes) {
                if (best_score < 0)
                    best_score = entry_score(types, (int32_t)best, direction);
                int score = entry_score(types, j, direction);
                if (score > best_score)
                    best = j, best_score = score;
            }
        *only_one = best_score < 0; /* no second entry had the same begin and size */
        return best;
    }
    for (int32_t i = 0; i < count; i++) {
        uint64_t b = (uint64_t)(uintptr_t)begins[i];
        if (addr >= b && addr - b < (uint64_t)sizes[i])
            return i;
    }
    return -1;
}

uint64_t ot_map_capture_entry_ref(offtrace_capture_construct *c, uint64_t target_id, uint32_t site, int optype,
                                  uint64_t addr, uint64_t bytes)
{
    int only_one;
    long i = find_entry(c->count, c->begins, c->sizes, c->types, addr, bytes,
                        is_to_device(optype) ? MAP_TO : is_from_device(optype) ? MAP_FROM : 0, &only_one);
    if (i >= 0) {
        if (c->types && (c->types[i] & PTR_AND_OBJ)) {
            c->recorder[1] = OFFTRACE_RAW_MAP_REF(site, i) + 1;
        } else if (only_one) {
            ot_map_capture_last_found.target_id = target_id;
            ot_map_capture_last_found.construct = c;
            ot_map_capture_last_found.addr = addr;
            ot_map_capture_last_found.bytes = bytes;
            ot_map_capture_last_found.ref = OFFTRACE_RAW_MAP_REF(site, i);
        }
        return OFFTRACE_RAW_MAP_REF(site, i);
    }
    uint32_t kept = c->components < OFFTRACE_CAPTURE_MAX_COMPONENTS ? c->components : OFFTRACE_CAPTURE_MAX_COMPONENTS;
    for (uint32_t k = 0; k < kept; k++) { /* a user-defined mapper's components */
        const offtrace_capture_component *m = &c->component[k];
        uint64_t b = (uint64_t)(uintptr_t)m->begin;
        if (b == addr || (addr > b && addr - b < (uint64_t)m->size)) {
            uint64_t ref = OFFTRACE_RAW_MAP_REF(site_id(NULL, (void *const *)m->name,
                                                        (const int64_t *)(intptr_t)m->type, -1), 0);
            if (m->type & PTR_AND_OBJ)
                c->recorder[1] = ref + 1;
            return ref;
        }
    }
    /* libomptarget's own 8-byte store of a device pointer, right after the
     * pointee of a ptr_and_obj entry */
    if (bytes == sizeof(void *) && is_to_device(optype) && c->recorder[1])
        return (c->recorder[1] - 1) | OFFTRACE_RAW_MAP_FIXUP;
    return OFFTRACE_RAW_MAP_REF(site, OFFTRACE_RAW_MAP_NO_ENTRY);
}

#define _GNU_SOURCE
#include "trace_writer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "offtrace/offtrace.h"
#include "offtrace/raw_format.h"
#include "topology.h"

typedef struct interned { char *key; uint32_t id; } interned;

/** Chunks (OTF2_CHUNK_SIZE_MIN, 256 KiB) an event writer fills before OTF2 writes them out. One: the
 *  same CPU time as 4 (the chunk, reused while still in the cache, instead of a fresh megabyte written in
 *  turn), a quarter of the memory per writer open at once, the same files (issue 18, fourth round:
 *  docs/performance.md "the converter's per-event cost"; larger chunks or more of them cost more). */
#define OT_TW_EVENT_CHUNKS 1

/* Open-addressing table from a key string to a dense id. */
typedef struct intern_table {
    interned *slots;
    size_t capacity, count;
    char **by_id; /* key of each id, for writing definitions */
} intern_table;

typedef struct region_def {
    OTF2_StringRef name, file;
    offtrace_event_class cls;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    uint32_t begin_line, end_line;
    OTF2_StringRef canonical;  /* `name` unless ot_tw_region_canonical set another */
} region_def;

typedef struct location_def {
    uint64_t id;
    OTF2_StringRef name;
    offtrace_location_role role;
    int device;
    OTF2_EvtWriter *writer; /**< NULL once ended */
    uint64_t events;        /**< counted when the writer ended */
} location_def;

typedef struct device_def {
    int num;
    OTF2_StringRef name;
    OTF2_SystemTreeNodeRef node;
    OTF2_LocationGroupRef group;
} device_def;

struct ot_trace_writer {
    ot_tw_time_range covered; /* first: ot_tw_cover (trace_writer.h) reaches it through the writer's address */
    OTF2_Archive *archive;
    intern_table strings, region_keys;
    region_def *regions;
    location_def *locations;
    size_t location_count;
    /* Location ids in use (open addressing, UINT64_MAX = empty): OTF2 hands
     * out the same event writer for an id asked twice, and closing it twice
     * crashes, so a second use of an id is refused here. */
    uint64_t *location_ids;
    size_t location_id_capacity;
    uint64_t *comm_members; /* the ranked ones (rank handed out) first, in order; then the others */
    uint32_t comm_count, comm_ranked;
    int thread_team_used; /* ot_tw_thread_team was asked: the OpenMP thread team is defined */
    device_def *devices;
    size_t device_count;
    /* The first error OTF2 reported while writing: OTF2 keeps going after a
     * failed write (a full disk) and its close may still say success. */
    OTF2_ErrorCode error;
    char error_text[256];
    OTF2_ErrorCallback previous_error_handler;
    /* User values (issue 14): one metric member and class per name, refs 1.. (0 is device memory). */
    struct user_metric { OTF2_StringRef name, unit; OTF2_Type type; } *user_metrics;
    uint32_t user_metric_count;
    /* A rank's part of an MPI job (ot_tw_set_job_part): its location ids'
     * high bits, its process group's name. Not a part: is_job_part 0. */
    int is_job_part;
    uint32_t job_rank;
    /* MPI communicators (issue 16, ot_tw_mpi_world): world_size 0 = none. */
    uint32_t mpi_world_size;
    OTF2_StringRef mpi_names[3]; /* the ranks' group, MPI_COMM_WORLD, MPI_COMM_SELF */
    struct mpi_comm { uint64_t id, parent; uint32_t size; OTF2_StringRef name; uint64_t *members; } *mpi_comms;
    size_t mpi_comm_count, mpi_comm_capacity;
    /* What was written, counted per location (write_counts.h) when asked
     * (ot_tw_count_events); each event writer's user data is its location's
     * counts. NULL when not asked, or once taken. */
    ot_write_counts *counts;
    /* Event writers opened before their location is defined
     * (ot_tw_location_writer_ahead), until ot_tw_add_location adopts them:
     * the device timeline writes a kernel stream's events as they come, while
     * the stream's definition keeps its place after the host threads'. */
    struct early_writer { uint64_t id; OTF2_EvtWriter *writer; ot_location_counts *counts; } *early;
    size_t early_count, early_capacity;
    /* Event chunks OTF2 gave back (a flush, a closed writer), populated
     * already, handed out again before any new one (allocate_chunk). Never
     * more than the event chunks once in use at the same time. */
    void **spare_chunks;
    size_t spare_count, spare_capacity;
    /* The file buffer a closed event file left, held for the next one
     * (keep_file_buffer); NULL when none is held. */
    void *file_buffer;
    int flushed_before_close; /* a writer filled its chunk: files are large enough to fill OTF2's buffer */
};

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static int intern_grow(intern_table *t)
{
    size_t cap = t->capacity ? t->capacity * 2 : 256;
    interned *slots = calloc(cap, sizeof *slots);
    char **by_id = realloc(t->by_id, cap * sizeof *by_id);
    if (!slots || !by_id) {
        free(slots);
        if (by_id)
            t->by_id = by_id;
        return -ENOMEM;
    }
    t->by_id = by_id;
    for (size_t i = 0; i < t->capacity; i++) {
        if (!t->slots[i].key)
            continue;
        size_t j = hash_text(t->slots[i].key) & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->capacity = cap;
    return 0;
}

/* Returns the id of key, adding it if new; *added tells which. UINT32_MAX on ENOMEM. */
static uint32_t intern(intern_table *t, const char *key, int *added)
{
    *added = 0;
    if ((t->count + 1) * 2 > t->capacity && intern_grow(t) != 0)
        return UINT32_MAX;
    size_t j = hash_text(key) & (t->capacity - 1);
    while (t->slots[j].key) {
        if (!strcmp(t->slots[j].key, key))
            return t->slots[j].id;
        j = (j + 1) & (t->capacity - 1);
    }
    char *copy = strdup(key);
    if (!copy)
        return UINT32_MAX;
    t->slots[j].key = copy;
    t->slots[j].id = (uint32_t)t->count;
    t->by_id[t->count] = copy;
    *added = 1;
    return (uint32_t)t->count++;
}

static void intern_free(intern_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->by_id[i]);
    free(t->slots);
    free(t->by_id);
}

/* OTF2 takes a buffer of this size for each file it writes, at the file's
 * first write, and frees it at the file's close (OTF2 3.0's posix
 * substrate; seen in strace as its writes' size). A guess at OTF2's
 * internals: where it is wrong, the block held is not the one OTF2 gets,
 * and the next file's buffer faults its pages in as before. */
#define OT_TW_OTF2_FILE_BUFFER (4u << 20)

/* An event file's buffer, freed as its writer closes, is taken back at once
 * (malloc hands out the block just freed) and held until OTF2 flushes a
 * writer next, where it is freed again right before OTF2 asks for the next
 * file's buffer. Left free in between, the next location's small
 * allocations (its pass, its reader) split it, and every large event file
 * faulted in 4 MiB of new pages, 1,024 faults at about 2.6 us here: 2,040
 * of the 2,320 page faults of recording (b)'s conversion (issue 18, ninth
 * round). */
static void keep_file_buffer(ot_trace_writer *w)
{
    /* Only where writers fill their chunks: holding it costs a fault (malloc
     * writes the header of the rest of the heap), and a program whose files
     * are all small only writes a page or two of each buffer (example_cg:
     * 10 faults more, none fewer). */
    if (!w->file_buffer && w->flushed_before_close)
        w->file_buffer = malloc(OT_TW_OTF2_FILE_BUFFER);
}

static void release_file_buffer(ot_trace_writer *w)
{
    free(w->file_buffer);
    w->file_buffer = NULL;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    ot_trace_writer *w = user;
    release_file_buffer(w); /* whichever file flushes next, event or definition file, finds it */
    if (!final)
        w->flushed_before_close = 1;
    return OTF2_FLUSH;
}

/* No post-flush timestamp: a BufferFlush record stamped "now" could lie after
 * events still to be written on the same location. */
static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush, .otf2_post_flush = NULL};

/* The chunks one OTF2 buffer holds. OTF2's own pool lets every event writer
 * keep 128 MiB before it writes anything to disk, so a long trace's
 * conversion held its events in memory; here an event writer gets
 * OT_TW_EVENT_CHUNKS chunks, and when they are full OTF2 writes them out
 * (pre_flush says yes) and hands them back. Definitions are not limited:
 * they grow with the program's code, not with the length of its run. */
typedef struct chunk_pool {
    void **chunks;
    size_t count, capacity;
    uint64_t chunk_size; /* every chunk of one buffer has the size OTF2 asked for first */
} chunk_pool;

/* OTF2 writes every page of a chunk before it lets it go: it fills the
 * unused rest of each chunk it flushes, the last one of every location
 * too. Their pages are faulted in here at once (MADV_POPULATE_WRITE, Linux
 * 5.14; older kernels refuse it and fault them in one by one as before):
 * on this VM 1.8 instead of 2.6 us a page, 64 pages a fresh chunk (issue
 * 18, sixth round). Only a new chunk: one given back is kept populated
 * (give_back_chunk), where asking again walked its 64 pages each flush. */
static void populate(void *memory, uint64_t size)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)memory & ~(page - 1);
    uintptr_t end = ((uintptr_t)memory + size + page - 1) & ~(page - 1);
    madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

static void *allocate_chunk(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer,
                            uint64_t chunk_size)
{
    ot_trace_writer *w = user;
    chunk_pool *p = *per_buffer;
    if (!p && !(p = *per_buffer = calloc(1, sizeof *p)))
        return NULL;
    if (type == OTF2_FILETYPE_EVENTS && p->count >= OT_TW_EVENT_CHUNKS)
        return NULL; /* OTF2 flushes this buffer to disk and asks again */
    if (p->count == p->capacity) {
        size_t grown = p->capacity ? p->capacity * 2 : 8;
        void **more = realloc(p->chunks, grown * sizeof *more);
        if (!more)
            return NULL;
        p->chunks = more;
        p->capacity = grown;
    }
    void *chunk = NULL;
    p->chunk_size = chunk_size;
    if (chunk_size == OTF2_CHUNK_SIZE_MIN && w->spare_count)
        chunk = w->spare_chunks[--w->spare_count];
    else if ((chunk = malloc(chunk_size)))
        populate(chunk, chunk_size);
    if (chunk)
        p->chunks[p->count++] = chunk;
    return chunk;
}

/* A chunk OTF2 is done with (after each flush, at a writer's close) goes
 * to the spares, to be handed out again as it is, its pages faulted in
 * already (issue 18, ninth round). Every event chunk has the size the
 * archive was opened with (OTF2_CHUNK_SIZE_MIN), and so has a definition
 * chunk unless the locations are many (ot_tw_definition_chunk): those of
 * that size are spares too, for any buffer, so that each location's local
 * definition writer, opened and closed in turn at the end, takes a chunk
 * populated already instead of a block from malloc populated again, 65
 * pages walked per location (issue 18, eleventh round). Spares are never
 * more than the chunks once in use at the same time; without memory for
 * the list a chunk is freed as before. */
static void give_back_chunk(ot_trace_writer *w, uint64_t chunk_size, void *chunk)
{
    if (chunk_size == OTF2_CHUNK_SIZE_MIN) {
        if (w->spare_count == w->spare_capacity) {
            size_t grown = w->spare_capacity ? w->spare_capacity * 2 : 8;
            void **more = realloc(w->spare_chunks, grown * sizeof *more);
            if (more) {
                w->spare_chunks = more;
                w->spare_capacity = grown;
            }
        }
        if (w->spare_count < w->spare_capacity) {
            w->spare_chunks[w->spare_count++] = chunk;
            return;
        }
    }
    free(chunk);
}

static void free_chunks(void *user, OTF2_FileType type, OTF2_LocationRef location, void **per_buffer, bool final)
{
    chunk_pool *p = *per_buffer;
    if (!p)
        return;
    for (size_t i = 0; i < p->count; i++)
        give_back_chunk(user, p->chunk_size, p->chunks[i]);
    p->count = 0;
    if (final) {
        free(p->chunks);
        free(p);
        *per_buffer = NULL;
    }
}

static OTF2_MemoryCallbacks memory_callbacks = {.otf2_allocate = allocate_chunk, .otf2_free_all = free_chunks};

static OTF2_ErrorCode remember_error(void *user, const char *file, uint64_t line, const char *function,
                                     OTF2_ErrorCode code, const char *format, va_list va)
{
    ot_trace_writer *w = user;
    if (w->error == OTF2_SUCCESS) {
        w->error = code;
        vsnprintf(w->error_text, sizeof w->error_text, format ? format : "", va);
    }
    return code;
}

/* OTF2's smallest chunks unless the locations need more. Why not its
 * defaults (1 MiB per event writer, 4 MiB per definition writer): OTF2
 * clears every chunk it allocates, one event and one definition chunk per
 * location, and that was half of a short program's exit (CG: 41 -> 31 ms
 * for the whole process); a 600,000-event conversion is as fast with
 * either. */
uint64_t ot_tw_definition_chunk(size_t max_locations)
{
    uint64_t need = 16 * (uint64_t)max_locations;
    need = (need + OTF2_CHUNK_SIZE_MIN - 1) / OTF2_CHUNK_SIZE_MIN * OTF2_CHUNK_SIZE_MIN;
    return need < OTF2_CHUNK_SIZE_MIN ? OTF2_CHUNK_SIZE_MIN : need > OTF2_CHUNK_SIZE_MAX ? OTF2_CHUNK_SIZE_MAX : need;
}

ot_trace_writer *ot_tw_open(const char *dir, size_t max_locations, char *err, size_t err_size)
{
    ot_trace_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, err_size, "offtrace: out of memory");
        return NULL;
    }
    w->covered.first = UINT64_MAX;
    w->previous_error_handler = OTF2_Error_RegisterCallback(remember_error, w);
    w->archive = OTF2_Archive_Open(dir, OFFTRACE_ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
                                   OTF2_CHUNK_SIZE_MIN, ot_tw_definition_chunk(max_locations),
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w->archive) {
        snprintf(err, err_size, "offtrace: cannot create the OTF2 archive in '%s'", dir);
        OTF2_Error_RegisterCallback(w->previous_error_handler, NULL);
        free(w);
        return NULL;
    }
    OTF2_Archive_SetFlushCallbacks(w->archive, &flush_callbacks, w);
    OTF2_Archive_SetMemoryCallbacks(w->archive, &memory_callbacks, w);
    OTF2_Archive_SetSerialCollectiveCallbacks(w->archive);
    OTF2_Archive_SetCreator(w->archive, "offtrace " OFFTRACE_VERSION_STRING);
    OTF2_Archive_SetDescription(w->archive, "OpenMP offload trace");
    OTF2_Archive_OpenEvtFiles(w->archive);
    return w;
}

void ot_tw_set_job_part(ot_trace_writer *w, uint32_t rank, uint32_t size, const char *job_id)
{
    char text[32];
    w->is_job_part = 1;
    w->job_rank = rank;
    snprintf(text, sizeof text, "%u", rank);
    OTF2_Archive_SetProperty(w->archive, OFFTRACE_JOB_PART_PROPERTY, text, true);
    snprintf(text, sizeof text, "%u", size);
    OTF2_Archive_SetProperty(w->archive, OFFTRACE_JOB_SIZE_PROPERTY, text, true);
    OTF2_Archive_SetProperty(w->archive, OFFTRACE_JOB_ID_PROPERTY, job_id ? job_id : "", true);
}

OTF2_StringRef ot_tw_string(ot_trace_writer *w, const char *text)
{
    int added;
    return intern(&w->strings, text ? text : "", &added);
}

/* Appends text, or a number in decimal, at *at (room reserved by the caller). */
static void key_text(char **at, const char *text)
{
    size_t n = strlen(text);
    memcpy(*at, text, n);
    *at += n;
}

static void key_number(char **at, long long value)
{
    char digits[24];
    size_t n = 0;
    unsigned long long v = value < 0 ? 0ull - (unsigned long long)value : (unsigned long long)value;
    do
        digits[n++] = (char)('0' + v % 10);
    while (v /= 10);
    if (value < 0)
        *(*at)++ = '-';
    while (n > 0)
        *(*at)++ = digits[--n];
}

OTF2_RegionRef ot_tw_region_with_role(ot_trace_writer *w, offtrace_event_class cls, OTF2_RegionRole role,
                                      const char *name, const char *file, uint32_t begin_line,
                                      uint32_t end_line)
{
    /* The key: every field, 0x1f between ("name␟class␟role␟paradigm␟file␟begin␟end"), built
     * here rather than by asprintf, whose general formatting was 2,800 instructions a call, a
     * sixth of converting hosttgt, whose tasks ask for their regions again and again (callgrind,
     * issue 18, eleventh round). On the stack when it fits, else whole on the heap: a demangled
     * C++ kernel name can be longer than any fixed buffer. */
    char small[512];
    int added;
    OTF2_Paradigm paradigm = offtrace_class_paradigm(cls);
    const char *key_name = name ? name : "(null)", *key_file = file ? file : ""; /* as asprintf wrote them */
    size_t room = strlen(key_name) + strlen(key_file) + 5 * 21 + 6 + 1;
    char *key = room <= sizeof small ? small : malloc(room);
    if (!key)
        return UINT32_MAX;
    char *at = key;
    key_text(&at, key_name);
    *at++ = '\x1f';
    key_number(&at, (int)cls);
    *at++ = '\x1f';
    key_number(&at, (int)role);
    *at++ = '\x1f';
    key_number(&at, (int)paradigm);
    *at++ = '\x1f';
    key_text(&at, key_file);
    *at++ = '\x1f';
    key_number(&at, begin_line);
    *at++ = '\x1f';
    key_number(&at, end_line);
    *at = '\0';
    uint32_t id = intern(&w->region_keys, key, &added);
    if (key != small)
        free(key);
    if (id == UINT32_MAX || !added)
        return id;
    region_def *r = realloc(w->regions, (id + 1) * sizeof *r);
    if (!r)
        return UINT32_MAX;
    w->regions = r;
    OTF2_StringRef name_ref = ot_tw_string(w, name);
    r[id] = (region_def){name_ref, file ? ot_tw_string(w, file) : OTF2_UNDEFINED_STRING,
                         cls, role, paradigm, begin_line, end_line, name_ref};
    return id;
}

void ot_tw_region_canonical(ot_trace_writer *w, OTF2_RegionRef region, const char *canonical)
{
    if (region < w->region_keys.count && w->regions[region].canonical == w->regions[region].name)
        w->regions[region].canonical = ot_tw_string(w, canonical);
}

void ot_tw_region_set_end_line(ot_trace_writer *w, OTF2_RegionRef region, uint32_t end_line)
{
    if (region < w->region_keys.count) /* the definitions are written at the close */
        w->regions[region].end_line = end_line;
}

OTF2_RegionRef ot_tw_region(ot_trace_writer *w, offtrace_event_class cls, const char *name, const char *file,
                            uint32_t begin_line, uint32_t end_line)
{
    return ot_tw_region_with_role(w, cls, offtrace_class_role(cls), name, file, begin_line, end_line);
}

int ot_tw_add_device(ot_trace_writer *w, int device_num, const char *kind)
{
    device_def *d = realloc(w->devices, (w->device_count + 1) * sizeof *d);
    if (!d)
        return -ENOMEM;
    w->devices = d;
    char name[128];
    snprintf(name, sizeof name, "%s device %d", kind, device_num);
    d[w->device_count] = (device_def){device_num, ot_tw_string(w, name), 0, 0};
    w->device_count++;
    return 0;
}

static uint64_t *location_id_slot(uint64_t *ids, size_t capacity, uint64_t id)
{
    size_t j = (size_t)(id * 0x9E3779B97F4A7C15ull >> 17) & (capacity - 1);
    while (ids[j] != UINT64_MAX && ids[j] != id)
        j = (j + 1) & (capacity - 1);
    return &ids[j];
}

static int location_ids_grow(ot_trace_writer *w)
{
    size_t capacity = w->location_id_capacity ? w->location_id_capacity * 2 : 256;
    uint64_t *ids = malloc(capacity * sizeof *ids);
    if (!ids)
        return -ENOMEM;
    memset(ids, 0xFF, capacity * sizeof *ids);
    for (size_t i = 0; i < w->location_count; i++)
        *location_id_slot(ids, capacity, w->locations[i].id) = w->locations[i].id;
    free(w->location_ids);
    w->location_ids = ids;
    w->location_id_capacity = capacity;
    return 0;
}

/* Callers name locations by their one-process ids; a job part's carry its rank. */
static uint64_t written_id(const ot_trace_writer *w, uint64_t location_id)
{
    return w->is_job_part && location_id != UINT64_MAX ? offtrace_job_location_id(w->job_rank, location_id)
                                                      : location_id;
}

int ot_tw_has_location(const ot_trace_writer *w, uint64_t location_id)
{
    location_id = written_id(w, location_id);
    return w->location_id_capacity && location_id != UINT64_MAX &&
           *location_id_slot(w->location_ids, w->location_id_capacity, location_id) == location_id;
}

/* ---- counting what is written (write_counts.h) ---- */

/* The counts of the event writer written to last. The passes write a
 * location's events in runs, and asking OTF2 for the writer's user data at
 * every event (a call into the library) cost 6 ms of CPU on a 460,000-event
 * conversion of 47 (docs/performance.md, issue 18). One converter writes one
 * archive at a time (single-threaded, see above); forgotten whenever a writer
 * is made or ends (its address may come back for another). */
ot_tw_last_written ot_tw_last;

static void forget_last_writer(void)
{
    ot_tw_last = (ot_tw_last_written){{NULL, NULL}, {NULL, NULL}};
}

ot_location_counts *ot_tw_counts_of_another(const OTF2_EvtWriter *ew)
{
    void *l = NULL;
    OTF2_EvtWriter_GetUserData(ew, &l);
    ot_tw_last.writer[1] = ot_tw_last.writer[0];
    ot_tw_last.counts[1] = ot_tw_last.counts[0];
    ot_tw_last.writer[0] = ew;
    ot_tw_last.counts[0] = l;
    return l;
}

/* The new location's counts, its event writer's user data: \p early's when
 * its writer was opened ahead (NULL: none yet), in the counts' list in the
 * order of the definitions. Without memory for them the location is not
 * counted, which the summary finds (a location the counts lack) and reads
 * the archive back instead. */
static void count_location(ot_trace_writer *w, OTF2_EvtWriter *ew, uint64_t location_id, ot_location_counts *early)
{
    ot_write_counts *all = w->counts;
    forget_last_writer();
    if (!all)
        return;
    ot_location_counts *l = early;
    if (all->location_count == all->capacity) {
        size_t capacity = all->capacity ? 2 * all->capacity : 16;
        ot_location_counts **more = realloc(all->locations, capacity * sizeof *more);
        if (!more) {
            free(l ? l->enters : NULL);
            free(l);
            OTF2_EvtWriter_SetUserData(ew, NULL);
            return;
        }
        all->locations = more;
        all->capacity = capacity;
    }
    if (!l && !(l = calloc(1, sizeof *l)))
        return;
    l->location = location_id;
    all->locations[all->location_count++] = l;
    OTF2_EvtWriter_SetUserData(ew, l);
}

void ot_tw_count_enter(ot_location_counts *l, OTF2_RegionRef region)
{
    if (l->depth++ >= OT_WRITE_COUNTS_MAX_DEPTH)
        return;
    if (region >= l->regions) {
        uint32_t regions = l->regions ? l->regions : 64;
        while (regions <= region && regions < UINT32_MAX / 2)
            regions *= 2;
        uint64_t *more = region < regions ? realloc(l->enters, regions * sizeof *more) : NULL;
        if (!more) {
            l->incomplete = 1;
            return;
        }
        memset(more + l->regions, 0, (regions - l->regions) * sizeof *more);
        l->enters = more;
        l->regions = regions;
    }
    l->enters[region]++;
}

void ot_tw_rma_put(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t, OTF2_RmaWinRef window,
                   uint32_t remote, uint64_t bytes, uint64_t id)
{
    ot_location_counts *l = ot_tw_counts_of(ew);
    if (OTF2_EvtWriter_RmaPut(ew, attributes, t, window, remote, bytes, id) == OTF2_SUCCESS && l) {
        l->puts++;
        l->put_bytes += bytes;
    }
}

void ot_tw_rma_get(OTF2_EvtWriter *ew, OTF2_AttributeList *attributes, uint64_t t, OTF2_RmaWinRef window,
                   uint32_t remote, uint64_t bytes, uint64_t id)
{
    ot_location_counts *l = ot_tw_counts_of(ew);
    if (OTF2_EvtWriter_RmaGet(ew, attributes, t, window, remote, bytes, id) == OTF2_SUCCESS && l) {
        l->gets++;
        l->get_bytes += bytes;
    }
}

int ot_tw_count_events(ot_trace_writer *w)
{
    if (w->location_count || w->early_count)
        return -EINVAL;
    if (!w->counts && !(w->counts = calloc(1, sizeof *w->counts)))
        return -ENOMEM;
    return 0;
}

/* The counts of writers opened ahead and never adopted (a conversion that
 * stopped early): nobody else frees them. */
static void free_early_counts(ot_trace_writer *w)
{
    for (size_t i = 0; i < w->early_count; i++) {
        if (w->early[i].counts) {
            OTF2_EvtWriter_SetUserData(w->early[i].writer, NULL);
            free(w->early[i].counts->enters);
            free(w->early[i].counts);
        }
        w->early[i].counts = NULL;
    }
}

ot_write_counts *ot_tw_take_counts(ot_trace_writer *w)
{
    ot_write_counts *counts = w->counts;
    /* The writers keep pointing at their counts: they must write no more (see trace_writer.h). */
    for (size_t i = 0; i < w->location_count; i++)
        if (w->locations[i].writer)
            OTF2_EvtWriter_SetUserData(w->locations[i].writer, NULL);
    free_early_counts(w);
    w->counts = NULL;
    forget_last_writer();
    return counts;
}

void ot_write_counts_free(ot_write_counts *counts)
{
    for (size_t i = 0; counts && i < counts->location_count; i++) {
        free(counts->locations[i]->enters);
        free(counts->locations[i]);
    }
    if (counts)
        free(counts->locations);
    free(counts);
}

/* The writer opened ahead for (written) id \p id, or NULL. Few at a time
 * (a device's kernel streams until the device is written). */
static struct early_writer *early_writer_of(ot_trace_writer *w, uint64_t id)
{
    for (size_t i = 0; i < w->early_count; i++)
        if (w->early[i].id == id)
            return &w->early[i];
    return NULL;
}

OTF2_EvtWriter *ot_tw_location_writer_ahead(ot_trace_writer *w, uint64_t location_id)
{
    if (location_id == UINT64_MAX || ot_tw_has_location(w, location_id))
        return NULL;
    location_id = written_id(w, location_id);
    if (early_writer_of(w, location_id))
        return NULL;
    if (w->early_count == w->early_capacity) {
        size_t capacity = w->early_capacity ? 2 * w->early_capacity : 8;
        struct early_writer *more = realloc(w->early, capacity * sizeof *more);
        if (!more)
            return NULL;
        w->early = more;
        w->early_capacity = capacity;
    }
    OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(w->archive, location_id);
    if (!ew)
        return NULL;
    forget_last_writer();
    ot_location_counts *counts = w->counts ? calloc(1, sizeof *counts) : NULL;
    if (counts) /* without memory for them the location goes uncounted, as in count_location */
        OTF2_EvtWriter_SetUserData(ew, counts);
    w->early[w->early_count++] = (struct early_writer){location_id, ew, counts};
    return ew;
}

OTF2_EvtWriter *ot_tw_add_location(ot_trace_writer *w, uint64_t location_id, const char *name,
                                   offtrace_location_role role, int device, int comm_member,
                                   uint32_t *rank_out)
{
    if (location_id == UINT64_MAX || ot_tw_has_location(w, location_id))
        return NULL;
    location_id = written_id(w, location_id);
    if ((w->location_count + 1) * 2 > w->location_id_capacity && location_ids_grow(w) != 0)
        return NULL;
    location_def *l = realloc(w->locations, (w->location_count + 1) * sizeof *l);
    if (!l)
        return NULL;
    w->locations = l;
    struct early_writer *early = early_writer_of(w, location_id);
    OTF2_EvtWriter *ew = early ? early->writer : OTF2_Archive_GetEvtWriter(w->archive, location_id);
    if (!ew)
        return NULL;
    count_location(w, ew, location_id, early ? early->counts : NULL);
    if (early) /* adopted: defined here, in the place a writer made now would have */
        *early = w->early[--w->early_count];
    l[w->location_count++] = (location_def){location_id, ot_tw_string(w, name), role, device, ew, 0};
    *location_id_slot(w->location_ids, w->location_id_capacity, location_id) = location_id;
    if (comm_member) {
        uint64_t *m = realloc(w->comm_members, (w->comm_count + 1) * sizeof *m);
        if (!m)
            return NULL;
        w->comm_members = m;
        if (rank_out) { /* before the unranked ones, whose ranks nothing names */
            memmove(&m[w->comm_ranked + 1], &m[w->comm_ranked], (w->comm_count - w->comm_ranked) * sizeof *m);
            m[w->comm_ranked] = location_id;
            *rank_out = w->comm_ranked++;
        } else {
            m[w->comm_count] = location_id;
        }
        w->comm_count++;
    }
    return ew;
}

OTF2_RmaWinRef ot_tw_window(const ot_trace_writer *w)
{
    return 0;
}

OTF2_MetricRef ot_tw_memory_metric(const ot_trace_writer *w)
{
    return 0;
}

OTF2_MetricRef ot_tw_user_metric(ot_trace_writer *w, const char *name, OTF2_Type type)
{
    struct user_metric *more = realloc(w->user_metrics, (w->user_metric_count + 1) * sizeof *more);
    if (!more)
        return OTF2_UNDEFINED_METRIC;
    w->user_metrics = more;
    more[w->user_metric_count] = (struct user_metric){ot_tw_string(w, name), ot_tw_string(w, ""), type};
    return ++w->user_metric_count;
}

void ot_tw_property(ot_trace_writer *w, const char *key, const char *value)
{
    char name[128];
    snprintf(name, sizeof name, "%s%s", OFFTRACE_PROPERTY_PREFIX, key);
    OTF2_Archive_SetProperty(w->archive, name, value, true);
}

/* ---- closing: event files, local definition files, global definitions ---- */

static void end_location(ot_trace_writer *w, location_def *l)
{
    if (!l->writer)
        return;
    OTF2_EvtWriter_GetNumberOfEvents(l->writer, &l->events);
    release_file_buffer(w); /* the closing file may take its buffer now: its first write can be its last */
    OTF2_Archive_CloseEvtWriter(w->archive, l->writer);
    keep_file_buffer(w);
    l->writer = NULL;
    forget_last_writer();
}

void ot_tw_end_location(ot_trace_writer *w, OTF2_EvtWriter *writer)
{
    /* The latest location first: a location usually ends soon after it began. */
    for (size_t i = w->location_count; writer && i-- > 0;)
        if (w->locations[i].writer == writer) {
            end_location(w, &w->locations[i]);
            return;
        }
}

static void close_event_writers(ot_trace_writer *w, uint64_t *event_counts)
{
    for (size_t i = 0; i < w->location_count; i++) {
        end_location(w, &w->locations[i]);
        event_counts[i] = w->locations[i].events;
    }
    OTF2_Archive_CloseEvtFiles(w->archive);
    /* Every location gets a local definition file, even an empty one, so
     * readers find what they look for. */
    OTF2_Archive_OpenDefFiles(w->archive);
    for (size_t i = 0; i < w->location_count; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->archive, w->locations[i].id);
        if (dw)
            OTF2_Archive_CloseDefWriter(w->archive, dw);
    }
    OTF2_Archive_CloseDefFiles(w->archive);
}

/* Every string the global definitions use, interned before any is written
 * because OTF2 wants strings defined before their users. */
typedef struct def_strings {
    ot_topology topo;
    OTF2_StringRef machine, host, cls_machine, cls_node, cls_device, process, paradigm;
    OTF2_StringRef prop_names[OT_TOPOLOGY_MAX_PROPS], prop_values[OT_TOPOLOGY_MAX_PROPS];
    OTF2_StringRef comm_locations, comm_group, comm, window;
    OTF2_StringRef metric_name, metric_desc, metric_unit;
    OTF2_StringRef host_address, host_address_desc, device_address, device_address_desc;
    OTF2_StringRef first_iteration, first_iteration_desc, iterations, iterations_desc, team_size, team_size_desc,
        thread_number, thread_number_desc;
    OTF2_StringRef task_attr[7][2]; /* explicit tasks: name, description (task_attributes) */
    OTF2_StringRef team_locations, team_group, team; /* the OpenMP thread team (write_thread_team) */
    OTF2_StringRef role_key, device_key, role_names[OFFTRACE_LOC_ROLE_COUNT];
    OTF2_StringRef mpi_rank_key; /* a job part's (ot_tw_set_job_part) */
    OTF2_StringRef class_groups[OFFTRACE_CLASS_COUNT]; /**< OTF2_UNDEFINED_STRING: class unused */
} def_strings;

/* ---- explicit tasks' attributes (host_tasks.c) ---- */
static const struct {
    OTF2_AttributeRef ref;
    const char *name, *description;
} task_attributes[7] = {
    {OT_ATTR_TASK_ID, "task id", "the task's id: (creating thread's index + 1) << 40 | that thread's counter"},
    {OT_ATTR_TASK_FLAGS, "task flags", "ompt_task_flag_t bits: 4 explicit, 8 target, 16 taskwait, 0x08000000 "
                                       "undeferred, 0x10000000 untied, 0x20000000 final, 0x40000000 mergeable"},
    {OT_ATTR_PARENT_TASK, "parent task", "the id of the task that created it (0: an implicit task)"},
    {OT_ATTR_TASK_END, "task end", "how the period ended (ompt_task_status_t): 1 complete, 2 yield, 3 cancel, "
                                   "4 detach, 7 switch, 8 taskwait complete"},
    {OT_ATTR_DEPEND_ADDRESS, "depend address", "the address of a depend clause's variable"},
    {OT_ATTR_DEPEND_TYPE, "depend type", "ompt_dependence_type_t: 1 in, 2 out, 3 inout, 4 mutexinoutset, "
                                         "5 source, 6 sink, 7 inoutset, 0x7f depobj"},
    {OT_ATTR_PREDECESSOR_TASK, "predecessor task", "the id of a task this task waited for (a dependence edge)"},
};

static void intern_def_strings(ot_trace_writer *w, def_strings *d)
{
    ot_topology_describe(&d->topo);
    d->machine = ot_tw_string(w, d->topo.machine);
    d->host = ot_tw_string(w, d->topo.hostname);
    d->cls_machine = ot_tw_string(w, "machine");
    d->cls_node = ot_tw_string(w, "node");
    d->cls_device = ot_tw_string(w, "OpenMP Device");
    if (w->is_job_part) { /* Score-P's and Vampir's name for a rank's process */
        char rank_name[32];
        snprintf(rank_name, sizeof rank_name, "MPI Rank %u", w->job_rank);
        d->process = ot_tw_string(w, rank_name);
    } else {
        d->process = ot_tw_string(w, "Process");
    }
    d->paradigm = ot_tw_string(w, "OpenMP Target");
    for (int i = 0; i < d->topo.prop_count; i++) {
        d->prop_names[i] = ot_tw_string(w, d->topo.prop_name[i]);
        d->prop_values[i] = ot_tw_string(w, d->topo.prop_value[i]);
    }
    d->comm_locations = ot_tw_string(w, "offload transfer locations");
    d->comm_group = ot_tw_string(w, "offload transfer group");
    d->comm = ot_tw_string(w, "offload transfers");
    d->window = ot_tw_string(w, "offload transfer window");
    d->metric_name = ot_tw_string(w, "device memory in use");
    d->metric_desc = ot_tw_string(w, "bytes allocated on the device by OpenMP");
    d->metric_unit = ot_tw_string(w, "bytes");
    d->host_address = ot_tw_string(w, "host address");
    d->host_address_desc = ot_tw_string(w, "host start address of the transferred range");
    d->device_address = ot_tw_string(w, "device address");
    d->device_address_desc = ot_tw_string(w, "device start address of the transferred range");
    d->first_iteration = ot_tw_string(w, "first iteration");
    d->first_iteration_desc = ot_tw_string(w, "the chunk's first logical iteration (0 = the loop's first)");
    d->iterations = ot_tw_string(w, "iterations");
    d->iterations_desc = ot_tw_string(w, "the number of logical iterations in the chunk");
    d->team_size = ot_tw_string(w, "team size");
    d->team_size_desc = ot_tw_string(w, "the number of threads the parallel region actually got");
    d->thread_number = ot_tw_string(w, "thread number");
    d->thread_number_desc = ot_tw_string(w, "the thread's number in its team (omp_get_thread_num)");
    for (int i = 0; i < 7; i++) {
        d->task_attr[i][0] = ot_tw_string(w, task_attributes[i].name);
        d->task_attr[i][1] = ot_tw_string(w, task_attributes[i].description);
    }
    if (w->thread_team_used) {
        d->team_locations = ot_tw_string(w, "OpenMP thread team locations");
        d->team_group = ot_tw_string(w, "OpenMP thread team group");
        d->team = ot_tw_string(w, "OpenMP threads");
    }
    d->role_key = ot_tw_string(w, OFFTRACE_LOCATION_ROLE_PROPERTY);
    d->device_key = ot_tw_string(w, OFFTRACE_LOCATION_DEVICE_PROPERTY);
    if (w->is_job_part)
        d->mpi_rank_key = ot_tw_string(w, OFFTRACE_LOCATION_MPI_RANK_PROPERTY);
    for (int r = 0; r < OFFTRACE_LOC_ROLE_COUNT; r++)
        d->role_names[r] = ot_tw_string(w, offtrace_location_role_name((offtrace_location_role)r));
    for (int c = 0; c < OFFTRACE_CLASS_COUNT; c++)
        d->class_groups[c] = OTF2_UNDEFINED_STRING;
    for (size_t i = 0; i < w->region_keys.count; i++) {
        offtrace_event_class c = w->regions[i].cls;
        if (d->class_groups[c] == OTF2_UNDEFINED_STRING && offtrace_class(c)) {
            char name[128];
            snprintf(name, sizeof name, "%s%s", OFFTRACE_REGION_CLASS_GROUP_PREFIX, offtrace_class(c)->class_name);
            d->class_groups[c] = ot_tw_string(w, name);
        }
    }
}

static void write_attributes(OTF2_GlobalDefWriter *g, const def_strings *d)
{
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_HOST_ADDRESS, d->host_address, d->host_address_desc,
                                        OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_DEVICE_ADDRESS, d->device_address, d->device_address_desc,
                                        OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_FIRST_ITERATION, d->first_iteration, d->first_iteration_desc,
                                        OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_ITERATIONS, d->iterations, d->iterations_desc, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_TEAM_SIZE, d->team_size, d->team_size_desc, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_THREAD_NUMBER, d->thread_number, d->thread_number_desc,
                                        OTF2_TYPE_UINT64);
    for (int i = 0; i < 7; i++)
        OTF2_GlobalDefWriter_WriteAttribute(g, task_attributes[i].ref, d->task_attr[i][0], d->task_attr[i][1],
                                            OTF2_TYPE_UINT64);
}

/* ---- mutual exclusion (issue 13): the lock attributes ---- */

typedef struct mutex_strings {
    OTF2_StringRef lock_id, lock_id_desc, implementation, implementation_desc, hint, hint_desc;
} mutex_strings;

static void intern_mutex_strings(ot_trace_writer *w, mutex_strings *m)
{
    m->lock_id = ot_tw_string(w, "lock id");
    m->lock_id_desc = ot_tw_string(w, "the lock of the OTF2 ThreadAcquireLock/ReleaseLock events (one per wait id: a "
                                      "lock's or critical's address)");
    m->implementation = ot_tw_string(w, "lock implementation");
    m->implementation_desc = ot_tw_string(w, "ompt_mutex_impl_t the runtime reports: 1 spin, 2 queuing, "
                                             "3 speculative (0: none)");
    m->hint = ot_tw_string(w, "lock hint");
    m->hint_desc = ot_tw_string(w, "omp_sync_hint_t bits the lock was initialised with");
}

static void write_mutex_attributes(OTF2_GlobalDefWriter *g, const mutex_strings *m)
{
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_LOCK_ID, m->lock_id, m->lock_id_desc, OTF2_TYPE_UINT32);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_LOCK_IMPLEMENTATION, m->implementation, m->implementation_desc,
                                        OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_LOCK_HINT, m->hint, m->hint_desc, OTF2_TYPE_UINT64);
}

/* ---- NVTX (issue 14): category, colour, payload ---- */

typedef struct nvtx_strings {
    OTF2_StringRef name[4], desc[4];
} nvtx_strings;

static void intern_nvtx_strings(ot_trace_writer *w, nvtx_strings *n)
{
    static const char *const text[4][2] = {
        {"nvtx category", "the NVTX category of the range or mark (its name: archive property NVTX_CATEGORY_<domain>_<n>)"},
        {"nvtx color", "the ARGB colour (0xAARRGGBB) the program gave the NVTX range or mark"},
        {"nvtx payload", "the integer payload of the NVTX range or mark (a uint64 above INT64_MAX keeps its bits)"},
        {"nvtx payload (floating)", "the float or double payload of the NVTX range or mark"},
    };
    for (int i = 0; i < 4; i++) {
        n->name[i] = ot_tw_string(w, text[i][0]);
        n->desc[i] = ot_tw_string(w, text[i][1]);
    }
}

static void write_nvtx_attributes(OTF2_GlobalDefWriter *g, const nvtx_strings *n)
{
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_NVTX_CATEGORY, n->name[0], n->desc[0], OTF2_TYPE_UINT32);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_NVTX_COLOR, n->name[1], n->desc[1], OTF2_TYPE_UINT32);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_NVTX_PAYLOAD_INT, n->name[2], n->desc[2], OTF2_TYPE_INT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, OT_ATTR_NVTX_PAYLOAD_FLOAT, n->name[3], n->desc[3], OTF2_TYPE_DOUBLE);
}

/* ---- the variable of a data operation (issue 15): the catalogue's map attributes ---- */

/* ... and of a device activity (issue 17): the catalogue's activity attributes,
 * defined right after the map attributes (refs dense and in order). */
typedef struct map_strings {
    OTF2_StringRef name[OFFTRACE_MAP_ATTRIBUTE_COUNT], description[OFFTRACE_MAP_ATTRIBUTE_COUNT];
    OTF2_StringRef activity_name[OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_COUNT];
    OTF2_StringRef activity_description[OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTE_COUNT];
    OTF2_StringRef team_name[OFFTRACE_TEAM_ATTRIBUTE_COUNT], team_description[OFFTRACE_TEAM_ATTRIBUTE_COUNT];
} map_strings;

static void intern_map_strings(ot_trace_writer *w, map_strings *m)
{
#define MAP_STRINGS(a, offset, type, name_text, description_text)      \
    m->name[offset] = ot_tw_string(w, name_text);                      \
    m->description[offset] = ot_tw_string(w, description_text);
    OFFTRACE_MAP_ATTRIBUTES(MAP_STRINGS)
#undef MAP_STRINGS
#define ACTIVITY_STRINGS(a, offset, type, name_text, description_text) \
    m->activity_name[offset] = ot_tw_string(w, name_text);             \
    m->activity_description[offset] = ot_tw_string(w, description_text);
    OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTES(ACTIVITY_STRINGS)
#undef ACTIVITY_STRINGS
#define TEAM_STRINGS(a, offset, type, name_text, description_text) \
    m->team_name[offset] = ot_tw_string(w, name_text);             \
    m->team_description[offset] = ot_tw_string(w, description_text);
    OFFTRACE_TEAM_ATTRIBUTES(TEAM_STRINGS) /* issue 18 */
#undef TEAM_STRINGS
}

static void write_map_attributes(OTF2_GlobalDefWriter *g, const map_strings *m)
{
#define MAP_ATTRIBUTE(a, offset, type, name_text, description_text) \
    OTF2_GlobalDefWriter_WriteAttribute(g, OFFTRACE_MAP_ATTR_##a, m->name[offset], m->description[offset], OTF2_TYPE_##type);
    OFFTRACE_MAP_ATTRIBUTES(MAP_ATTRIBUTE)
#undef MAP_ATTRIBUTE
#define ACTIVITY_ATTRIBUTE(a, offset, type, name_text, description_text)                              \
    OTF2_GlobalDefWriter_WriteAttribute(g, OFFTRACE_ACTIVITY_ATTR_##a, m->activity_name[offset],      \
                                        m->activity_description[offset], OTF2_TYPE_##type);
    OFFTRACE_DEVICE_ACTIVITY_ATTRIBUTES(ACTIVITY_ATTRIBUTE)
#undef ACTIVITY_ATTRIBUTE
#define TEAM_ATTRIBUTE(a, offset, type, name_text, description_text)                                              \
    OTF2_GlobalDefWriter_WriteAttribute(g, OFFTRACE_TEAM_ATTR_##a, m->team_name[offset], m->team_description[offset], \
                                        OTF2_TYPE_##type);
    OFFTRACE_TEAM_ATTRIBUTES(TEAM_ATTRIBUTE) /* issue 18 */
#undef TEAM_ATTRIBUTE
}

static void write_paradigm(OTF2_GlobalDefWriter *g, const def_strings *d)
{
    OTF2_GlobalDefWriter_WriteParadigm(g, OFFTRACE_OTF2_PARADIGM_OPENMP_TARGET, d->paradigm,
                                       OTF2_PARADIGM_CLASS_ACCELERATOR);
    OTF2_AttributeValue yes;
    OTF2_Type type;
    OTF2_AttributeValue_SetBoolean(OTF2_TRUE, &type, &yes);
    OTF2_GlobalDefWriter_WriteParadigmProperty(g, OFFTRACE_OTF2_PARADIGM_OPENMP_TARGET, OTF2_PARADIGM_PROPERTY_RMA_ONLY,
                                               type, yes);
}

/* Node ids: 0 machine, 1 host node, 2.. one per device. Location groups:
 * 0 the process, 1.. one per device. */
static void write_system_tree(ot_trace_writer *w, OTF2_GlobalDefWriter *g, const def_strings *d)
{
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, d->machine, d->cls_machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, 0, OTF2_SYSTEM_TREE_DOMAIN_MACHINE);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, d->host, d->cls_node, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, 1, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY);
    for (int i = 0; i < d->topo.prop_count; i++) {
        OTF2_AttributeValue v = {.stringRef = d->prop_values[i]};
        OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(g, 1, d->prop_names[i], OTF2_TYPE_STRING, v);
    }
    for (size_t i = 0; i < w->device_count; i++) {
        w->devices[i].node = (OTF2_SystemTreeNodeRef)(2 + i);
        w->devices[i].group = (OTF2_LocationGroupRef)(1 + i);
        OTF2_GlobalDefWriter_WriteSystemTreeNode(g, w->devices[i].node, w->devices[i].name, d->cls_device, 1);
        OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, w->devices[i].node,
                                                       OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE);
    }
}

static OTF2_LocationGroupRef group_of_device(const ot_trace_writer *w, int device)
{
    for (size_t i = 0; i < w->device_count; i++)
        if (w->devices[i].num == device)
            return w->devices[i].group;
    return 0;
}

static void write_locations(ot_trace_writer *w, OTF2_GlobalDefWriter *g, const def_strings *d,
                            const uint64_t *event_counts)
{
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, d->process, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    for (size_t i = 0; i < w->device_count; i++)
        OTF2_GlobalDefWriter_WriteLocationGroup(g, w->devices[i].group, w->devices[i].name,
                                                OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, w->devices[i].node, 0);
    for (size_t i = 0; i < w->location_count; i++) {
        const location_def *l = &w->locations[i];
        /* OTF2 3.0: an accelerator group holds accelerator streams (and
         * metrics) only, never CPU threads; a thread executing OpenMP on the
         * device is one of the device's streams of activity. */
        OTF2_LocationGroupRef group = l->role == OFFTRACE_LOC_HOST_THREAD ? 0 : group_of_device(w, l->device);
        OTF2_GlobalDefWriter_WriteLocation(g, l->id, l->name, offtrace_location_type(l->role), event_counts[i],
                                           group);
    }
}

/* What each location is, for readers: its catalogue role, and its device. */
static void write_location_properties(ot_trace_writer *w, OTF2_GlobalDefWriter *g, const def_strings *d)
{
    for (size_t i = 0; i < w->location_count; i++) {
        const location_def *l = &w->locations[i];
        OTF2_AttributeValue role = {.stringRef = d->role_names[l->role]};
        OTF2_GlobalDefWriter_WriteLocationProperty(g, l->id, d->role_key, OTF2_TYPE_STRING, role);
        if (l->role != OFFTRACE_LOC_HOST_THREAD) {
            OTF2_AttributeValue device = {.uint32 = (uint32_t)l->device};
            OTF2_GlobalDefWriter_WriteLocationProperty(g, l->id, d->device_key, OTF2_TYPE_UINT32, device);
        }
        if (w->is_job_part) {
            OTF2_AttributeValue rank = {.uint32 = w->job_rank};
            OTF2_GlobalDefWriter_WriteLocationProperty(g, l->id, d->mpi_rank_key, OTF2_TYPE_UINT32, rank);
        }
    }
}

static void write_regions(ot_trace_writer *w, OTF2_GlobalDefWriter *g)
{
    for (size_t i = 0; i < w->region_keys.count; i++) {
        const region_def *r = &w->regions[i];
        OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, r->name, r->canonical, OTF2_UNDEFINED_STRING, r->role,
                                         r->paradigm, OTF2_REGION_FLAG_NONE, r->file, r->begin_line,
                                         r->end_line);
    }
}

/* The class table: for each catalogue class used, a group of type REGIONS
 * named OFFTRACE_REGION_CLASS_GROUP_PREFIX + class, whose members are its
 * regions. Group ids 0 and 1 are the RMA groups; these follow. */
static int write_class_table(ot_trace_writer *w, OTF2_GlobalDefWriter *g, const def_strings *d)
{
    uint64_t *members = malloc((w->region_keys.count ? w->region_keys.count : 1) * sizeof *members);
    if (!members)
        return -ENOMEM;
    OTF2_GroupRef next = 2;
    for (int c = 0; c < OFFTRACE_CLASS_COUNT; c++) {
        if (d->class_groups[c] == OTF2_UNDEFINED_STRING)
            continue;
        uint32_t n = 0;
        for (size_t i = 0; i < w->region_keys.count; i++)
            if (w->regions[i].cls == (offtrace_event_class)c)
                members[n++] = i;
        OTF2_GlobalDefWriter_WriteGroup(g, next++, d->class_groups[c], OTF2_GROUP_TYPE_REGIONS,
                                        OTF2_PARADIGM_UNKNOWN, OTF2_GROUP_FLAG_NONE, n, members);
    }
    free(members);
    return 0;
}

/* One window over one communicator whose members are the host threads that
 * transfer and every device's RDMA location; a rank is an index into it. */
static int write_rma(ot_trace_writer *w, OTF2_GlobalDefWriter *g, const def_strings *d)
{
    uint64_t *ranks = malloc((w->comm_count ? w->comm_count : 1) * sizeof *ranks);
    if (!ranks)
        return -ENOMEM;
    for (uint32_t i = 0; i < w->comm_count; i++)
        ranks[i] = i;
    OTF2_GlobalDefWriter_WriteGroup(g, 0, d->comm_locations, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OFFTRACE_OTF2_PARADIGM_OPENMP_TARGET, OTF2_GROUP_FLAG_NONE, w->comm_count,
                                    w->comm_members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, d->comm_group, OTF2_GROUP_TYPE_COMM_GROUP, OFFTRACE_OTF2_PARADIGM_OPENMP_TARGET,
                                    OTF2_GROUP_FLAG_NONE, w->comm_count, ranks);
    free(ranks);
    OTF2_GlobalDefWriter_WriteComm(g, 0, d->comm, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteRmaWin(g, 0, d->window, 0, OTF2_RMA_WIN_FLAG_NONE);
    return 0;
}

/* ---- the OpenMP thread team of explicit tasks (host_tasks.c) ----
 * One team over every host thread, ranked by location id, after the RMA
 * groups and the class table's groups: the communicator OTF2's
 * ThreadTaskCreate/Switch/Complete name a task in. */
OTF2_CommRef ot_tw_thread_team(ot_trace_writer *w)
{
    w->thread_team_used = 1;
    return OT_THREAD_TEAM_COMM;
}

static int by_location_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int write_thread_team(ot_trace_writer *w, OTF2_GlobalDefWriter *g, const def_strings *d)
{
    if (!w->thread_team_used)
        return 0;
    OTF2_GroupRef next = 2;
    for (int c = 0; c < OFFTRACE_CLASS_COUNT; c++)
        next += d->class_groups[c] != OTF2_UNDEFINED_STRING;
    uint64_t *members = malloc((w->location_count ? w->location_count : 1) * 2 * sizeof *members);
    if (!members)
        return -ENOMEM;
    uint64_t *ranks = members + (w->location_count ? w->location_count : 1);
    uint32_t n = 0;
    for (size_t i = 0; i < w->location_count; i++)
        if (w->locations[i].role == OFFTRACE_LOC_HOST_THREAD)
            members[n++] = w->locations[i].id;
    qsort(members, n, sizeof *members, by_location_id);
    for (uint32_t i = 0; i < n; i++)
        ranks[i] = i;
    OTF2_GlobalDefWriter_WriteGroup(g, next, d->team_locations, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, n, members);
    OTF2_GlobalDefWriter_WriteGroup(g, next + 1, d->team_group, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                                    OTF2_GROUP_FLAG_NONE, n, ranks);
    OTF2_GlobalDefWriter_WriteComm(g, OT_THREAD_TEAM_COMM, d->team, next + 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    free(members);
    return 0;
}

static void write_memory_metric(OTF2_GlobalDefWriter *g, const def_strings *d)
{
    OTF2_GlobalDefWriter_WriteMetricMember(g, 0, d->metric_name, d->metric_desc, OTF2_METRIC_TYPE_OTHER,
                                           OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
                                           d->metric_unit);
    OTF2_MetricMemberRef member = 0;
    /* Recorded directly on the RDMA locations (ACCELERATOR_STREAM, which OTF2
     * 3.0 still calls GPU for recorder kinds); ABSTRACT would promise that
     * only MetricInstances of it are recorded (OTF2_Definitions.h). */
    OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                          OTF2_RECORDER_KIND_GPU);
}

/* User values: written on host threads when the program writes them, so
 * asynchronous, recorder kind CPU; the member's name is the value's name. */
static void write_user_metrics(ot_trace_writer *w, OTF2_GlobalDefWriter *g)
{
    for (uint32_t i = 0; i < w->user_metric_count; i++) {
        OTF2_MetricMemberRef member = i + 1;
        OTF2_GlobalDefWriter_WriteMetricMember(g, member, w->user_metrics[i].name, w->user_metrics[i].name,
                                               OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
                                               w->user_metrics[i].type, OTF2_BASE_DECIMAL, 0,
                                               w->user_metrics[i].unit);
        OTF2_GlobalDefWriter_WriteMetricClass(g, member, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                              OTF2_RECORDER_KIND_CPU);
    }
}

/* ---- MPI communicators (issue 16, docs/mpi.md) ----
 * One COMM_LOCATIONS group of paradigm MPI whose member i is rank i's
 * master thread (i << 40: the job's location ids), so that a communicator's
 * group lists world ranks; MPI_COMM_WORLD over all of them, one COMM_SELF
 * group for MPI_COMM_SELF, and a COMM_GROUP per derived communicator. The
 * ranks' other parts define the same, and the merge makes them one. */
#define OT_MPI_COMM_WORLD_REF ((OTF2_CommRef)2)
#define OT_MPI_COMM_SELF_REF ((OTF2_CommRef)3)

void ot_tw_mpi_world(ot_trace_writer *w, uint32_t size)
{
    w->mpi_world_size = size ? size : 1;
    w->mpi_names[0] = ot_tw_string(w, "MPI ranks");
    w->mpi_names[1] = ot_tw_string(w, "MPI_COMM_WORLD");
    w->mpi_names[2] = ot_tw_string(w, "MPI_COMM_SELF");
    w->thread_team_used = 1; /* comm 1: the refs stay dense (the team is defined with them) */
}

int ot_tw_mpi_add_comm(ot_trace_writer *w, uint64_t id, uint64_t parent, uint32_t size, const uint32_t *world_ranks)
{
    if (!w->mpi_world_size || ot_tw_mpi_comm(w, id) != OTF2_UNDEFINED_COMM)
        return 0;
    for (uint32_t i = 0; i < size; i++)
        if (world_ranks[i] >= w->mpi_world_size)
            return -EINVAL;
    if (w->mpi_comm_count == w->mpi_comm_capacity) {
        size_t cap = w->mpi_comm_capacity ? 2 * w->mpi_comm_capacity : 8;
        struct mpi_comm *grown = realloc(w->mpi_comms, cap * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        w->mpi_comms = grown;
        w->mpi_comm_capacity = cap;
    }
    uint64_t *members = malloc((size ? size : 1) * sizeof *members);
    if (!members)
        return -ENOMEM;
    for (uint32_t i = 0; i < size; i++)
        members[i] = world_ranks[i];
    char name[48];
    snprintf(name, sizeof name, "MPI comm %llu", (unsigned long long)id);
    w->mpi_comms[w->mpi_comm_count++] = (struct mpi_comm){id, parent, size, ot_tw_string(w, name), members};
    return 0;
}

OTF2_CommRef ot_tw_mpi_comm(const ot_trace_writer *w, uint64_t id)
{
    if (!w->mpi_world_size)
        return OTF2_UNDEFINED_COMM;
    if (id == OFFTRACE_RAW_MPI_COMM_WORLD)
        return OT_MPI_COMM_WORLD_REF;
    if (id == OFFTRACE_RAW_MPI_COMM_SELF)
        return OT_MPI_COMM_SELF_REF;
    for (size_t i = 0; i < w->mpi_comm_count; i++)
        if (w->mpi_comms[i].id == id)
            return (OTF2_CommRef)(OT_MPI_COMM_SELF_REF + 1 + i);
    return OTF2_UNDEFINED_COMM;
}

/* After the thread team's groups, which are written whenever MPI is. */
static int write_mpi_comms(ot_trace_writer *w, OTF2_GlobalDefWriter *g, const def_strings *d)
{
    if (!w->mpi_world_size)
        return 0;
    OTF2_GroupRef next = 4;
    for (int c = 0; c < OFFTRACE_CLASS_COUNT; c++)
        next += d->class_groups[c] != OTF2_UNDEFINED_STRING;
    uint32_t n = w->mpi_world_size;
    uint64_t *members = malloc((size_t)n * 2 * sizeof *members);
    if (!members)
        return -ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        members[i] = offtrace_job_location_id(i, 0);
        members[n + i] = i;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, next, w->mpi_names[0], OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, n, members);
    OTF2_GlobalDefWriter_WriteGroup(g, next + 1, w->mpi_names[1], OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, n, members + n);
    OTF2_GlobalDefWriter_WriteGroup(g, next + 2, w->mpi_names[2], OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 0, NULL);
    free(members);
    for (size_t i = 0; i < w->mpi_comm_count; i++)
        OTF2_GlobalDefWriter_WriteGroup(g, next + 3 + (OTF2_GroupRef)i, w->mpi_comms[i].name,
                                        OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        w->mpi_comms[i].size, w->mpi_comms[i].members);
    OTF2_GlobalDefWriter_WriteComm(g, OT_MPI_COMM_WORLD_REF, w->mpi_names[1], next + 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(g, OT_MPI_COMM_SELF_REF, w->mpi_names[2], next + 2, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    for (size_t i = 0; i < w->mpi_comm_count; i++) {
        OTF2_CommRef parent = ot_tw_mpi_comm(w, w->mpi_comms[i].parent);
        if (parent >= OT_MPI_COMM_SELF_REF + 1 + i) /* defined after it (never: a parent is made first) */
            parent = OTF2_UNDEFINED_COMM;
        OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)(OT_MPI_COMM_SELF_REF + 1 + i), w->mpi_comms[i].name,
                                       next + 3 + (OTF2_GroupRef)i, parent, OTF2_COMM_FLAG_NONE);
    }
    return 0;
}

int ot_tw_close(ot_trace_writer *w, int64_t realtime_offset_ns, char *err, size_t err_size)
{
    uint64_t *event_counts = calloc(w->location_count ? w->location_count : 1, sizeof *event_counts);
    def_strings *d = calloc(1, sizeof *d);
    if (!event_counts || !d) {
        free(event_counts);
        free(d);
        snprintf(err, err_size, "offtrace: out of memory writing the archive");
        ot_tw_abort(w);
        return -ENOMEM;
    }
    close_event_writers(w, event_counts);
    intern_def_strings(w, d);
    mutex_strings mutex;
    intern_mutex_strings(w, &mutex);
    nvtx_strings nvtx;
    intern_nvtx_strings(w, &nvtx);
    map_strings maps; /* issue 15 */
    intern_map_strings(w, &maps);
    char version[16];
    snprintf(version, sizeof version, "%u", OFFTRACE_CATALOGUE_VERSION);
    OTF2_Archive_SetProperty(w->archive, OFFTRACE_CATALOGUE_PROPERTY, version, true);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(w->archive);
    if (w->covered.first == UINT64_MAX)
        w->covered.first = w->covered.last = 0;
    uint64_t realtime = (uint64_t)((int64_t)w->covered.first + realtime_offset_ns);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, w->covered.first,
                                              w->covered.last - w->covered.first + 1, realtime);
    for (size_t i = 0; i < w->strings.count; i++)
        OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, w->strings.by_id[i]);
    write_paradigm(g, d);
    write_attributes(g, d);
    write_mutex_attributes(g, &mutex);
    write_nvtx_attributes(g, &nvtx);
    write_map_attributes(g, &maps); /* issue 15 */
    write_system_tree(w, g, d);
    write_locations(w, g, d, event_counts);
    write_location_properties(w, g, d);
    write_regions(w, g);
    int rc = write_rma(w, g, d);
    if (rc == 0)
        rc = write_class_table(w, g, d);
    if (rc == 0)
        rc = write_thread_team(w, g, d);
    if (rc == 0)
        rc = write_mpi_comms(w, g, d);
    write_memory_metric(g, d);
    write_user_metrics(w, g);
    OTF2_Archive_CloseGlobalDefWriter(w->archive, g);
    OTF2_ErrorCode otf2_rc = OTF2_Archive_Close(w->archive);
    free(event_counts);
    free(d);
    w->archive = NULL;
    if (otf2_rc == OTF2_SUCCESS)
        otf2_rc = w->error;
    if (rc || otf2_rc != OTF2_SUCCESS)
        snprintf(err, err_size, "offtrace: writing the archive failed: %s%s%s",
                 rc ? strerror(-rc) : OTF2_Error_GetDescription(otf2_rc), w->error_text[0] ? ": " : "",
                 w->error_text);
    ot_tw_abort(w);
    return rc || otf2_rc != OTF2_SUCCESS ? -EIO : 0;
}

void ot_tw_abort(ot_trace_writer *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->mpi_comm_count; i++)
        free(w->mpi_comms[i].members);
    free(w->mpi_comms);
    if (w->archive)
        OTF2_Archive_Close(w->archive);
    OTF2_Error_RegisterCallback(w->previous_error_handler, NULL);
    intern_free(&w->strings);
    intern_free(&w->region_keys);
    free(w->regions);
    free(w->locations);
    free(w->user_metrics);
    free(w->location_ids);
    free(w->comm_members);
    free(w->devices);
    free_early_counts(w);
    free(w->early);
    for (size_t i = 0; i < w->spare_count; i++) /* after OTF2_Archive_Close: it gives the last ones back */
        free(w->spare_chunks[i]);
    free(w->spare_chunks);
    release_file_buffer(w);
    ot_write_counts_free(w->counts);
    forget_last_writer();
    free(w);
}

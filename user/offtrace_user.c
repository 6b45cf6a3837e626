/*
 * libofftrace-user.so: the public user API (include/offtrace/offtrace_user.h).
 *
 * One responsibility: check the program's calls and pass the good ones to
 * the attached recorder (user_recorder.h), or to nobody. The hot path of a
 * region is a thread-local stack push/pop (the nesting check, kept traced or
 * not so that a mistake gives the same message either way) and a load of the
 * recorder pointer; registration (names, ids, the recorder's definition) is
 * the slow path, under one lock, once per handle or name.
 */
#define _GNU_SOURCE
#include "offtrace/offtrace_user.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "user_recorder.h"

#define API __attribute__((visibility("default")))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- the attached recorder ------------------------------------------- */

static const ot_user_recorder *recorder; /* atomic; NULL: not traced */

static inline const ot_user_recorder *current_recorder(void)
{
    return __atomic_load_n(&recorder, __ATOMIC_ACQUIRE);
}

/* ---- definitions: ids -> what they name ------------------------------- */

/* One definition per region handle, named region, event and value. Ids
 * are dense from 1 in one space; definitions are never freed (a handle
 * points at its definition for the rest of the process). */
typedef struct definition {
    uint32_t id;
    uint32_t kind;          /* enum ot_user_def_kind */
    uint32_t line;
    int defined_to_recorder;/* the attached recorder has seen it */
    char *name;
    char *file;
} definition;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static definition *by_id[OFFTRACE_USER_MAX_IDS + 1]; /* events and values; regions have ids too */
static uint32_t id_count;           /* atomic for readers of by_id */
static const ot_user_recorder *defined_for; /* the recorder the definitions went to */

/* ---- misuse: counted, and one line per kind ------------------------- */

enum misuse { MIS_INVALID, MIS_NAME_LONG, MIS_NAME_UTF8, MIS_NESTING, MIS_UNKNOWN, MIS_TYPE, MIS_FULL, MIS_COUNT };
static uint64_t dropped;
static int told[MIS_COUNT];

static int refuse(enum misuse kind, int status, const char *what)
{
    __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
    if (!__atomic_exchange_n(&told[kind], 1, __ATOMIC_RELAXED))
        fprintf(stderr, "offtrace-user: %s (%s); such calls record nothing and are counted, "
                "this line is not repeated\n", what, offtrace_user_status_text(status));
    return status;
}

/* 1 when s is valid UTF-8 of at most OFFTRACE_USER_NAME_MAX bytes, 0 when
 * too long, -1 when not UTF-8 (overlongs, surrogates and code points past
 * U+10FFFF are not UTF-8). */
static int check_name(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;
    while (p[n]) {
        if (n >= OFFTRACE_USER_NAME_MAX)
            return 0;
        unsigned c = p[n];
        int more;
        unsigned cp;
        if (c < 0x80) { n++; continue; }
        else if (c >= 0xc2 && c <= 0xdf) { more = 1; cp = c & 0x1f; }
        else if (c >= 0xe0 && c <= 0xef) { more = 2; cp = c & 0x0f; }
        else if (c >= 0xf0 && c <= 0xf4) { more = 3; cp = c & 0x07; }
        else return -1;
        for (int i = 1; i <= more; i++) {
            unsigned d = p[n + i];
            if ((d & 0xc0) != 0x80)
                return -1;
            cp = (cp << 6) | (d & 0x3f);
        }
        if ((more == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
            (more == 3 && (cp < 0x10000 || cp > 0x10ffff)))
            return -1;
        n += (size_t)more + 1;
    }
    return n > OFFTRACE_USER_NAME_MAX ? 0 : 1;
}

static int refuse_name(const char *name)
{
    if (!name)
        return refuse(MIS_INVALID, OFFTRACE_USER_ERR_INVALID, "a NULL name");
    int ok = check_name(name);
    if (ok == 1)
        return OFFTRACE_USER_OK;
    return ok == 0 ? refuse(MIS_NAME_LONG, OFFTRACE_USER_ERR_NAME, "a name longer than 255 bytes")
                   : refuse(MIS_NAME_UTF8, OFFTRACE_USER_ERR_NAME, "a name that is not valid UTF-8");
}

/* Give the recorder r every definition it has not seen (under the lock).
 * A recorder that attaches late, or re-attaches, sees them all once. */
static void define_all_for(const ot_user_recorder *r)
{
    if (defined_for != r) {
        for (uint32_t i = 1; i <= id_count; i++)
            if (by_id[i])
                by_id[i]->defined_to_recorder = 0;
        defined_for = r;
    }
    if (!r)
        return;
    for (uint32_t i = 1; i <= id_count; i++) {
        definition *d = by_id[i];
        if (d && !d->defined_to_recorder) {
            r->define(d->id, d->kind, d->name, d->file, d->line);
            d->defined_to_recorder = 1;
        }
    }
}

/* A new definition (under the lock); NULL when ids or memory run out. */
static definition *new_definition(uint32_t kind, const char *name, const char *file, uint32_t line)
{
    if (id_count >= OFFTRACE_USER_MAX_IDS)
        return NULL;
    definition *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->name = strdup(name);
    d->file = file ? strdup(file) : NULL;
    if (!d->name || (file && !d->file)) {
        free(d->name);
        free(d->file);
        free(d);
        return NULL;
    }
    d->kind = kind;
    d->line = line;
    d->id = id_count + 1;
    by_id[d->id] = d;
    __atomic_store_n(&id_count, d->id, __ATOMIC_RELEASE);
    return d;
}

static definition *find_by_name(uint32_t kind_lo, uint32_t kind_hi, const char *name)
{
    for (uint32_t i = 1; i <= id_count; i++) {
        definition *d = by_id[i];
        if (d && d->kind >= kind_lo && d->kind <= kind_hi && !d->file && strcmp(d->name, name) == 0)
            return d;
    }
    return NULL;
}

/* ---- the per-thread region stack ---------------------------------------- */

/* The thread's open regions: their definitions (or the marker of a region
 * refused at its begin, or the handle itself for a handle not yet
 * registered), bit 0 set when the begin was recorded (a region begun before
 * the recorder attached is not, and its end records nothing). 64 entries of
 * 8 bytes: small enough for the static TLS a dlopen leaves (initial-exec
 * saves 3 ns a region over the general model). Deeper than STACK_MAX,
 * regions are counted but neither checked nor recorded. */
#define STACK_MAX 64
static const definition refused_region __attribute__((aligned(8))); /* marks a begin that was refused */
typedef struct region_stack {
    uint32_t depth;
    uintptr_t open[STACK_MAX];
} region_stack;
static __thread __attribute__((tls_model("initial-exec"))) region_stack stack;

static int push(const definition *d, const ot_user_recorder *r)
{
    uint32_t k = stack.depth++;
    if (UNLIKELY(k >= STACK_MAX))
        return OFFTRACE_USER_OK;
    int recorded = r && d != &refused_region && r->region_begin(d->id);
    stack.open[k] = (uintptr_t)d | (uintptr_t)recorded;
    return OFFTRACE_USER_OK;
}

/* Close the innermost region, which must be d (or, for a handle used only
 * untraced so far, the handle itself: alias). */
static int pop(const definition *d, const void *alias)
{
    uint32_t depth = stack.depth;
    if (UNLIKELY(depth == 0))
        return refuse(MIS_NESTING, OFFTRACE_USER_ERR_NESTING, "a region end without an open region on its thread");
    if (UNLIKELY(depth > STACK_MAX)) {
        stack.depth--;
        return OFFTRACE_USER_OK;
    }
    uintptr_t entry = stack.open[depth - 1];
    const definition *top = (const definition *)(entry & ~(uintptr_t)1);
    if (top == &refused_region) {
        stack.depth--;
        return OFFTRACE_USER_OK;
    }
    if (UNLIKELY(top != d && (const void *)top != alias))
        return refuse(MIS_NESTING, OFFTRACE_USER_ERR_NESTING,
                      "a region end that is not of the thread's innermost open region");
    stack.depth--;
    const ot_user_recorder *r = current_recorder();
    if ((entry & 1) && r) /* recorded, and a recorder still listens */
        r->region_end(top->id);
    return OFFTRACE_USER_OK;
}

/* ---- regions ----------------------------------------------------------- */

/* Slow path of a handle's first traced begin: its definition. */
static const definition *register_handle(offtrace_user_region *h, const char *name, const char *file, int line,
                                         const ot_user_recorder *r, int *status)
{
    *status = refuse_name(name);
    if (*status)
        return NULL;
    pthread_mutex_lock(&registry_lock);
    definition *d = (definition *)__atomic_load_n(&h->internal_, __ATOMIC_ACQUIRE);
    if (!d) {
        d = new_definition(OT_USER_DEF_REGION, name, file ? file : "", line > 0 ? (uint32_t)line : 0);
        if (d)
            __atomic_store_n(&h->internal_, d, __ATOMIC_RELEASE);
    }
    if (d)
        define_all_for(r);
    pthread_mutex_unlock(&registry_lock);
    if (!d)
        *status = refuse(MIS_FULL, OFFTRACE_USER_ERR_FULL, "more than 4096 user regions, events and values");
    return d;
}

API int offtrace_user_region_begin(offtrace_user_region *handle, const char *name, const char *file, int line)
{
    const ot_user_recorder *r = current_recorder();
    if (UNLIKELY(!handle)) {
        push(&refused_region, NULL);
        return refuse(MIS_INVALID, OFFTRACE_USER_ERR_INVALID, "a NULL region handle");
    }
    const definition *d = __atomic_load_n(&handle->internal_, __ATOMIC_ACQUIRE);
    if (LIKELY(d && (!r || d->defined_to_recorder)))
        return push(d, r);
    if (!r) /* untraced and never registered: nothing to record, only the nesting */
        return push((const definition *)handle, NULL);
    int status;
    d = register_handle(handle, name, file, line, r, &status);
    push(d ? d : &refused_region, d ? r : NULL);
    return status;
}

API int offtrace_user_region_end(offtrace_user_region *handle)
{
    if (UNLIKELY(!handle))
        return refuse(MIS_INVALID, OFFTRACE_USER_ERR_INVALID, "a NULL region handle");
    const definition *d = __atomic_load_n(&handle->internal_, __ATOMIC_ACQUIRE);
    /* An unregistered handle stands for itself on the stack (see begin). */
    return pop(d, handle);
}

/* Named regions, events and values: found by name (a linear search under the
 * lock: the slow path, documented as such). Named regions are registered
 * traced or not, because their end is checked by name. */
static int lookup_or_create(uint32_t kind, const char *name, const definition **out)
{
    int status = refuse_name(name);
    if (status)
        return status;
    pthread_mutex_lock(&registry_lock);
    uint32_t lo = kind, hi = kind;
    if (kind >= OT_USER_DEF_VALUE_INT64)
        lo = OT_USER_DEF_VALUE_INT64, hi = OT_USER_DEF_VALUE_DOUBLE;
    definition *d = find_by_name(lo, hi, name);
    if (d && d->kind != kind)
        status = OFFTRACE_USER_ERR_TYPE;
    else if (!d && !(d = new_definition(kind, name, NULL, 0)))
        status = OFFTRACE_USER_ERR_FULL;
    else
        define_all_for(current_recorder());
    pthread_mutex_unlock(&registry_lock);
    if (status == OFFTRACE_USER_ERR_TYPE)
        return refuse(MIS_TYPE, status, "a value created again with another type");
    if (status == OFFTRACE_USER_ERR_FULL)
        return refuse(MIS_FULL, status, "more than 4096 user regions, events and values");
    *out = d;
    return OFFTRACE_USER_OK;
}

API int offtrace_user_region_begin_named(const char *name)
{
    const definition *d;
    int status = lookup_or_create(OT_USER_DEF_REGION, name, &d);
    if (status) {
        push(&refused_region, NULL);
        return status;
    }
    return push(d, current_recorder());
}

API int offtrace_user_region_end_named(const char *name)
{
    const definition *d;
    if (!name)
        return refuse(MIS_INVALID, OFFTRACE_USER_ERR_INVALID, "a NULL name");
    pthread_mutex_lock(&registry_lock);
    d = find_by_name(OT_USER_DEF_REGION, OT_USER_DEF_REGION, name);
    pthread_mutex_unlock(&registry_lock);
    if (!d) {
        /* Never begun by name (or refused at its begin for the name). */
        if (stack.depth && stack.depth <= STACK_MAX &&
            stack.open[stack.depth - 1] == (uintptr_t)&refused_region) {
            stack.depth--;
            return OFFTRACE_USER_OK;
        }
        return refuse(MIS_NESTING, OFFTRACE_USER_ERR_NESTING,
                      "a region end that is not of the thread's innermost open region");
    }
    return pop(d, d);
}

/* ---- events and values --------------------------------------------------- */

/* The definition of id if it is of kind lo..hi, else NULL. Hot path: ids
 * are published (id_count, release) after their slot is written. */
static inline const definition *by_id_of(offtrace_user_id id, uint32_t lo, uint32_t hi)
{
    if (UNLIKELY(id == 0 || id > __atomic_load_n(&id_count, __ATOMIC_ACQUIRE)))
        return NULL;
    const definition *d = by_id[id];
    return d && d->kind >= lo && d->kind <= hi ? d : NULL;
}

API int offtrace_user_event_create(const char *name, offtrace_user_id *id)
{
    if (!id)
        return refuse(MIS_INVALID, OFFTRACE_USER_ERR_INVALID, "a NULL id pointer");
    const definition *d;
    int status = lookup_or_create(OT_USER_DEF_EVENT, name, &d);
    if (status == OFFTRACE_USER_OK)
        *id = d->id;
    return status;
}

static int event_edge(offtrace_user_id id, int begin)
{
    if (UNLIKELY(!by_id_of(id, OT_USER_DEF_EVENT, OT_USER_DEF_EVENT)))
        return refuse(MIS_UNKNOWN, OFFTRACE_USER_ERR_UNKNOWN_ID, "an unknown user event id");
    const ot_user_recorder *r = current_recorder();
    if (r) {
        if (UNLIKELY(!by_id[id]->defined_to_recorder)) {
            pthread_mutex_lock(&registry_lock);
            define_all_for(r);
            pthread_mutex_unlock(&registry_lock);
        }
        (begin ? r->event_begin : r->event_end)(id);
    }
    return OFFTRACE_USER_OK;
}

API int offtrace_user_event_begin(offtrace_user_id id) { return event_edge(id, 1); }
API int offtrace_user_event_end(offtrace_user_id id) { return event_edge(id, 0); }

API int offtrace_user_value_create(const char *name, offtrace_user_value_type type, offtrace_user_id *id)
{
    if (!id || type < OFFTRACE_USER_INT64 || type > OFFTRACE_USER_DOUBLE)
        return refuse(MIS_INVALID, OFFTRACE_USER_ERR_INVALID, "a NULL id pointer or an unknown value type");
    const definition *d;
    int status = lookup_or_create(OT_USER_DEF_VALUE_INT64 + (uint32_t)(type - OFFTRACE_USER_INT64), name, &d);
    if (status == OFFTRACE_USER_OK)
        *id = d->id;
    return status;
}

static int write_value(offtrace_user_id id, uint32_t kind, uint64_t bits)
{
    const definition *d = by_id_of(id, OT_USER_DEF_VALUE_INT64, OT_USER_DEF_VALUE_DOUBLE);
    if (UNLIKELY(!d))
        return refuse(MIS_UNKNOWN, OFFTRACE_USER_ERR_UNKNOWN_ID, "an unknown user value id");
    if (UNLIKELY(d->kind != kind))
        return refuse(MIS_TYPE, OFFTRACE_USER_ERR_TYPE, "a value written with another type than its own");
    const ot_user_recorder *r = current_recorder();
    if (r) {
        if (UNLIKELY(!d->defined_to_recorder)) {
            pthread_mutex_lock(&registry_lock);
            define_all_for(r);
            pthread_mutex_unlock(&registry_lock);
        }
        r->value(id, bits);
    }
    return OFFTRACE_USER_OK;
}

API int offtrace_user_value_int64(offtrace_user_id id, int64_t value)
{
    return write_value(id, OT_USER_DEF_VALUE_INT64, (uint64_t)value);
}

API int offtrace_user_value_uint64(offtrace_user_id id, uint64_t value)
{
    return write_value(id, OT_USER_DEF_VALUE_UINT64, value);
}

API int offtrace_user_value_double(offtrace_user_id id, double value)
{
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return write_value(id, OT_USER_DEF_VALUE_DOUBLE, bits);
}

/* ---- the trace's clock --------------------------------------------------- */

/* The tick source is the recorder's (sync/clock.c, picked the same way);
 * ticks -> CLOCK_MONOTONIC ns by a rate measured between the library's load
 * and the call, as the converter maps records with clock.pairs. */
static ot_clock_pair loaded_at;

__attribute__((constructor)) static void clock_start(void)
{
    ot_clock_init();
    loaded_at = ot_clock_pair_take();
}

API uint64_t offtrace_user_clock_now(void)
{
    return ot_clock_ticks();
}

/* The mapping ticks -> ns: a reference pair and the rate between the load's
 * pair and it, at least 1 ms apart (the first conversion waits for that once,
 * when called sooner). It is kept, so that a later tick never maps to an
 * earlier ns (two pairs taken for two calls differ by their read jitter,
 * which made t1 >= t0 map to to_ns(t1) < to_ns(t0) under load), and renewed
 * only when the time since the load has grown tenfold (10 ms, 100 ms, 1 s,
 * ...), each time with a tenfold longer baseline and so a better rate. */
static pthread_mutex_t mapping_lock = PTHREAD_MUTEX_INITIALIZER;
static ot_clock_pair mapping_ref;
static double mapping_rate;
static uint64_t mapping_renew_after_ns; /* 0: no mapping yet */

static void mapping_of_now(ot_clock_pair *ref, double *rate)
{
    pthread_mutex_lock(&mapping_lock);
    ot_clock_pair now = ot_clock_pair_take();
    if (!mapping_renew_after_ns || now.monotonic_ns - loaded_at.monotonic_ns >= mapping_renew_after_ns) {
        while (now.monotonic_ns - loaded_at.monotonic_ns < 1000000u)
            now = ot_clock_pair_take();
        uint64_t since_load = now.monotonic_ns - loaded_at.monotonic_ns;
        mapping_ref = now;
        mapping_rate = (double)since_load / (double)(now.ticks - loaded_at.ticks);
        mapping_renew_after_ns = since_load * 10;
    }
    *ref = mapping_ref;
    *rate = mapping_rate;
    pthread_mutex_unlock(&mapping_lock);
}

API uint64_t offtrace_user_clock_to_ns(uint64_t ticks)
{
    if (!ot_clock_use_tsc)
        return ticks; /* the ticks are CLOCK_MONOTONIC ns */
    ot_clock_pair ref;
    double rate;
    mapping_of_now(&ref, &rate);
    double delta = ((double)(int64_t)(ticks - ref.ticks)) * rate;
    return (uint64_t)((int64_t)ref.monotonic_ns + (int64_t)delta);
}

API uint64_t offtrace_user_clock_resolution_ns(void)
{
    if (!ot_clock_use_tsc) {
        struct timespec res;
        if (clock_getres(CLOCK_MONOTONIC, &res) != 0 || (res.tv_sec == 0 && res.tv_nsec == 0))
            return 1;
        return (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
    }
    ot_clock_pair ref;
    double rate;
    mapping_of_now(&ref, &rate);
    uint64_t ns = (uint64_t)rate;
    if ((double)ns < rate)
        ns++;
    return ns ? ns : 1;
}

/* ---- measurement control --------------------------------------------------- */

static int control_status(int rc)
{
    if (rc >= 0)
        return OFFTRACE_USER_OK;
    return rc == -16 /* EBUSY */ ? OFFTRACE_USER_ERR_BUSY : OFFTRACE_USER_ERR_RECORDER;
}

API int offtrace_user_measurement_on(void)
{
    const ot_user_recorder *r = current_recorder();
    if (!r || !r->measurement_set)
        return OFFTRACE_USER_ERR_NOT_TRACED;
    return control_status(r->measurement_set(1));
}

API int offtrace_user_measurement_off(void)
{
    const ot_user_recorder *r = current_recorder();
    if (!r || !r->measurement_set)
        return OFFTRACE_USER_ERR_NOT_TRACED;
    return control_status(r->measurement_set(0));
}

API int offtrace_user_measurement_is_on(void)
{
    const ot_user_recorder *r = current_recorder();
    if (!r)
        return 0;
    /* A recorder without the control mechanism records all the time. */
    return r->measurement_is_on ? r->measurement_is_on() != 0 : 1;
}

API int offtrace_user_measurement_flush(void)
{
    const ot_user_recorder *r = current_recorder();
    if (!r || !r->measurement_flush)
        return OFFTRACE_USER_ERR_NOT_TRACED;
    return control_status(r->measurement_flush());
}

/* ---- the library itself ---------------------------------------------------- */

API int offtrace_user_version(void)
{
    return OFFTRACE_USER_VERSION;
}

API const char *offtrace_user_status_text(int status)
{
    switch (status) {
    case OFFTRACE_USER_OK: return "success";
    case OFFTRACE_USER_ERR_INVALID: return "invalid handle or argument";
    case OFFTRACE_USER_ERR_NAME: return "name too long or not UTF-8";
    case OFFTRACE_USER_ERR_NESTING: return "end without its begin";
    case OFFTRACE_USER_ERR_UNKNOWN_ID: return "unknown id";
    case OFFTRACE_USER_ERR_TYPE: return "wrong value type";
    case OFFTRACE_USER_ERR_FULL: return "too many regions, events and values";
    case OFFTRACE_USER_ERR_NOT_TRACED: return "not traced";
    case OFFTRACE_USER_ERR_BUSY: return "refused or deferred by the recorder";
    case OFFTRACE_USER_ERR_RECORDER: return "the recorder failed";
    default: return "unknown status";
    }
}

API uint64_t offtrace_user_dropped(void)
{
    return __atomic_load_n(&dropped, __ATOMIC_RELAXED);
}

API int offtrace_user_is_traced(void)
{
    return current_recorder() != NULL;
}

API int offtrace_user_init(void)
{
    if (current_recorder())
        return OFFTRACE_USER_OK;
    const char *tools = getenv("OMP_TOOL_LIBRARIES");
    if (tools && *tools) {
        /* Only a runtime already in the process: loading libomp here would
         * change an untraced program. */
        int (*max_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
        if (max_threads)
            (void)max_threads();
    }
    return current_recorder() ? OFFTRACE_USER_OK : OFFTRACE_USER_ERR_NOT_TRACED;
}

/* Called by libofftrace.so (user_recorder.h). */
API int offtrace_user_attach_recorder_(const ot_user_recorder *r)
{
    if (r && (r->abi != OT_USER_RECORDER_ABI || r->size < sizeof(ot_user_recorder) ||
              !r->define || !r->region_begin || !r->region_end || !r->event_begin || !r->event_end || !r->value))
        return -1;
    pthread_mutex_lock(&registry_lock);
    define_all_for(r);
    __atomic_store_n(&recorder, r, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&registry_lock);
    return OT_USER_RECORDER_ABI;
}

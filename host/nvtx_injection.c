/**
 * \file nvtx_injection.c
 * \brief NVTX v3 ranges, marks, domains, categories, colours and payloads
 *        recorded through NVTX's injection interface (issue 14).
 *
 * NVTX v3 is header-only: the program's first NVTX call reads
 * NVTX_INJECTION64_PATH (set by `offtrace record` to this very library),
 * dlopens it (the same, already loaded instance when libomp loaded it as the
 * OMPT tool first) and calls InitializeInjectionNvtx2. We take the callbacks
 * export table and overwrite the slots of the CORE and CORE2 modules we
 * serve; NVTX makes every slot left alone a no-op.
 *
 * Hot path (push, pop, start, end, mark): one or two records on the calling
 * thread's own stream, as every OMPT callback: no lock, no allocation, no
 * system call. A plain-string message (nvtxRangePushA("solve")) is turned
 * into its id through a per-thread cache keyed by the pointer and checked
 * against the interned text (a pointer reused for another text is a miss);
 * a miss takes the one mutex, hashes the text into the process's table and,
 * the first time a text is seen, appends its definition to raw/nvtx.defs.
 * Registered strings, domains and category names are defined the same way,
 * once each, when the program registers them.
 *
 * Whole or nothing, as user regions: a push while recording is off (or
 * before the OMPT tool started recording) records nothing and neither does
 * its pop; a start/end range carries "not recorded" in bit 63 of the id the
 * program gets back, so its end records nothing either. Calls before
 * recording started are counted and the count written as one NVTX_PROBLEM
 * record when recording runs. Bad input (a pop without push, an end of an id
 * never handed out, a NULL message, a message type other than ASCII or
 * registered) records one NVTX_PROBLEM record (subkind = the cause) and never
 * crashes; the converter counts them and the summary prints one line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "clock.h"
#include "filter_record.h"
#include "measurement.h"
#include "offtrace/raw_format.h"
#include "session.h"
#include "stream.h"

#define OT_EXPORT __attribute__((visibility("default")))

/* ---- definitions: the slow path, under one mutex ---- */

static pthread_mutex_t defs_lock = PTHREAD_MUTEX_INITIALIZER;

/* "<id> <kind> <domain> <category> <text bytes> <text>\n", one O_APPEND write.
 * Only while the recorder runs: before, there is no session directory, and
 * a program whose recorder never starts (no libomp, offtrace disabled) must
 * not get a file. (With the runtime started at NVTX's initialisation, see
 * InitializeInjectionNvtx2, a text defined before recording is not seen in
 * practice; one would be named "(undefined message)".) */
static void write_def(uint32_t id, unsigned kind, uint32_t domain, uint32_t category, const char *text, size_t len)
{
    if (!__atomic_load_n(&ot_recording, __ATOMIC_RELAXED))
        return;
    char buf[96 + OFFTRACE_RAW_NVTX_TEXT_MAX + 1];
    int n = snprintf(buf, 96, "%u %u %u %u %zu ", id, kind, domain, category, len);
    if (n <= 0 || n >= 96)
        return;
    memcpy(buf + n, text, len);
    buf[(size_t)n + len] = '\n';
    size_t total = (size_t)n + len + 1;
    int fd = ot_session_open_file(OFFTRACE_RAW_NVTX_DEFS, O_WRONLY | O_CREAT | O_APPEND, NULL);
    if (fd < 0)
        return;
    if (write(fd, buf, total) != (ssize_t)total && ot_the_session.verbose > 1)
        fprintf(stderr, "offtrace: NVTX definition %u not written\n", id);
    close(fd);
}

/* The texts of messages and registered strings: an open-addressing table of
 * interned copies (id = insertion order from 1), bounded: past
 * NVTX_MAX_TEXTS distinct texts a message becomes id NVTX_TEXT_OVERFLOW. */
#define NVTX_TABLE_SIZE (1u << 17)
#define NVTX_MAX_TEXTS (1u << 16)
#define NVTX_TEXT_OVERFLOW 0xFFFFFFFFu

typedef struct text_slot {
    const char *text;
    uint32_t id, hash;
} text_slot;

static text_slot *texts;   /* NVTX_TABLE_SIZE slots, allocated on first use */
/* 1 for a text whose ranges and marks the filter (docs/filters.md) removes:
 * decided once, when the text is first seen, so a removed push costs a load
 * and a branch. Written before the text's id is handed out. */
static uint8_t text_removed[NVTX_MAX_TEXTS + 1];
static uint32_t text_count;
static uint32_t domain_count; /* domain ids from 1; 0 is NVTX's default domain */

static uint32_t hash_text(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* The id of \p s (len bytes), interned and defined on first sight; writes
 * the interned copy to *interned. Caller holds defs_lock. */
static uint32_t intern_locked(const char *s, size_t len, const char **interned)
{
    if (!texts && !(texts = calloc(NVTX_TABLE_SIZE, sizeof *texts)))
        return NVTX_TEXT_OVERFLOW;
    uint32_t h = hash_text(s, len);
    for (uint32_t j = h & (NVTX_TABLE_SIZE - 1);; j = (j + 1) & (NVTX_TABLE_SIZE - 1)) {
        text_slot *t = &texts[j];
        if (!t->text) {
            if (text_count >= NVTX_MAX_TEXTS)
                return NVTX_TEXT_OVERFLOW;
            char *copy = malloc(len + 1);
            if (!copy)
                return NVTX_TEXT_OVERFLOW;
            memcpy(copy, s, len);
            copy[len] = 0;
            t->text = copy;
            t->hash = h;
            t->id = ++text_count;
            text_removed[t->id] = (uint8_t)ot_filter_record_removes_name(copy);
            write_def(t->id, OFFTRACE_RAW_NVTX_DEF_STRING, 0, 0, s, len);
            *interned = copy;
            return t->id;
        }
        if (t->hash == h && strncmp(t->text, s, len) == 0 && t->text[len] == 0) {
            *interned = t->text;
            return t->id;
        }
    }
}

static uint32_t intern(const char *s, const char **interned)
{
    size_t len = strnlen(s, OFFTRACE_RAW_NVTX_TEXT_MAX);
    pthread_mutex_lock(&defs_lock);
    uint32_t id = intern_locked(s, len, interned);
    pthread_mutex_unlock(&defs_lock);
    return id;
}

/* ---- per thread: the message cache and the push stacks ---- */

#define CACHE_SLOTS 64u   /* direct-mapped by the message pointer */
#define STACK_DOMAINS 16u /* domains 15 and up share the last stack */
#define STACK_BITS 256u   /* deeper pushes are recorded, their bit is not kept */

typedef struct nvtx_thread {
    uint64_t token;   /* this thread's part of the range ids it hands out (from 1) */
    uint64_t started; /* ranges it started */
    struct {
        const char *pointer, *text;
        uint32_t id;
    } cache[CACHE_SLOTS];
    uint32_t depth[STACK_DOMAINS];
    uint64_t recorded[STACK_DOMAINS][STACK_BITS / 64]; /* bit d: the push at depth d was recorded */
} nvtx_thread;

static OT_TLS nvtx_thread *this_thread;
static uint64_t thread_tokens;
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static int thread_key_made;

/* At the thread's exit: its state goes, so that a program that starts many
 * threads does not keep 2 KiB per thread. An NVTX call from a later TLS
 * destructor gets a fresh state (then kept). */
static void thread_gone(void *state)
{
    if (this_thread == state)
        this_thread = NULL;
    free(state);
}

static void make_thread_key(void)
{
    thread_key_made = pthread_key_create(&thread_key, thread_gone) == 0;
}

static nvtx_thread *thread_state(void)
{
    nvtx_thread *t = this_thread;
    if (__builtin_expect(t != NULL, 1))
        return t;
    /* once per thread that uses NVTX */
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->token = __atomic_add_fetch(&thread_tokens, 1, __ATOMIC_RELAXED);
    pthread_once(&thread_key_once, make_thread_key);
    if (thread_key_made)
        pthread_setspecific(thread_key, t);
    return this_thread = t;
}

/* The id of a plain-string message; the cache's hit costs a pointer compare
 * and a strcmp against the interned text. */
static uint32_t message_id(nvtx_thread *t, const char *s)
{
    uint32_t slot = (uint32_t)((uintptr_t)s >> 3) & (CACHE_SLOTS - 1);
    if (t && t->cache[slot].pointer == s && strcmp(t->cache[slot].text, s) == 0)
        return t->cache[slot].id;
    const char *interned = NULL;
    uint32_t id = intern(s, &interned);
    if (t && interned) {
        t->cache[slot].pointer = s;
        t->cache[slot].text = interned;
        t->cache[slot].id = id;
    }
    return id;
}

/* ---- records ---- */

static uint64_t calls_before_recording;

static int can_record(void)
{
    return __atomic_load_n(&ot_recording, __ATOMIC_RELAXED);
}

static void put(uint8_t event, uint8_t endpoint, uint8_t subkind, uint64_t id, uint64_t message, uint64_t domain,
                uint64_t category, uint64_t payload, uint64_t color)
{
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve();
    offtrace_raw_record r = {
        .time = now,
        .id = id,
        .target_id = domain,
        .codeptr = category,
        .bytes = payload,
        .src_addr = color,
        .dst_addr = message,
        .subkind = subkind,
        .endpoint = endpoint,
        .event = event,
    };
    ot_stream_store(slot, &r);
}

static void problem(unsigned cause)
{
    if (can_record())
        put(OFFTRACE_RAW_NVTX_PROBLEM, OFFTRACE_RAW_BEGIN, (uint8_t)cause, 0, 0, 0, 0, 1, 0);
}

/* Whether to record now; counts the calls made before recording started and
 * writes their count once recording runs. */
static int recording_now(void)
{
    if (!can_record()) {
        __atomic_fetch_add(&calls_before_recording, 1, __ATOMIC_RELAXED);
        return 0;
    }
    if (__builtin_expect(__atomic_load_n(&calls_before_recording, __ATOMIC_RELAXED) != 0, 0)) {
        uint64_t n = __atomic_exchange_n(&calls_before_recording, 0, __ATOMIC_RELAXED);
        if (n)
            put(OFFTRACE_RAW_NVTX_PROBLEM, OFFTRACE_RAW_BEGIN, OFFTRACE_RAW_NVTX_BEFORE_RECORDING, 0, 0, 0, 0, n, 0);
    }
    return ot_measurement_recording();
}

/* An event's attributes as record fields. */
typedef struct attrs {
    uint64_t message, category, payload, color;
    uint8_t payload_type;
} attrs;

static int read_attributes(nvtx_thread *t, const nvtxEventAttributes_t *a, attrs *out)
{
    *out = (attrs){0};
    if (!a || a->size < 48) { /* v1 and v2 share the first 48 bytes: up to and with the message */
        problem(OFFTRACE_RAW_NVTX_NULL_MESSAGE);
        return 0;
    }
    out->category = a->category;
    if (a->colorType == NVTX_COLOR_ARGB)
        out->color = (uint64_t)1 << 32 | a->color;
    switch (a->payloadType) {
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64: out->payload = a->payload.ullValue; break;
    case NVTX_PAYLOAD_TYPE_INT64: out->payload = (uint64_t)a->payload.llValue; break;
    case NVTX_PAYLOAD_TYPE_DOUBLE: memcpy(&out->payload, &a->payload.dValue, 8); break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32: out->payload = a->payload.uiValue; break;
    case NVTX_PAYLOAD_TYPE_INT32: out->payload = (uint64_t)(int64_t)a->payload.iValue; break;
    case NVTX_PAYLOAD_TYPE_FLOAT: {
        double d = a->payload.fValue; /* a float widens exactly */
        memcpy(&out->payload, &d, 8);
        break;
    }
    default: break;
    }
    out->payload_type = a->payloadType >= NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 &&
                                a->payloadType <= NVTX_PAYLOAD_TYPE_FLOAT
                            ? (uint8_t)a->payloadType
                            : 0;
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
        out->message = message_id(t, a->message.ascii);
    else if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED && a->message.registered)
        out->message = (uint32_t)(uintptr_t)a->message.registered;
    else if (a->messageType == NVTX_MESSAGE_TYPE_ASCII || a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
        problem(OFFTRACE_RAW_NVTX_NULL_MESSAGE);
    else if (a->messageType != NVTX_MESSAGE_UNKNOWN)
        problem(OFFTRACE_RAW_NVTX_UNSUPPORTED);
    return 1;
}

/* Whether the filter removes a range or mark of this message; counted. */
static int filtered_out(const attrs *a)
{
    if (__builtin_expect(a->message == 0 || a->message > NVTX_MAX_TEXTS || !text_removed[a->message], 1))
        return 0;
    ot_filter_count_removed(OFFTRACE_RAW_FILTERED_NVTX);
    return 1;
}

static uint32_t domain_of(nvtxDomainHandle_t d)
{
    return (uint32_t)(uintptr_t)d;
}

/* ---- push / pop: per thread and domain ---- */

static int push(uint32_t domain, const attrs *a)
{
    nvtx_thread *t = thread_state();
    if (!t)
        return -1;
    uint32_t s = domain < STACK_DOMAINS ? domain : STACK_DOMAINS - 1;
    uint32_t level = t->depth[s]++;
    int on = recording_now() && !filtered_out(a);
    if (level < STACK_BITS) {
        uint64_t bit = (uint64_t)1 << (level % 64);
        if (on)
            t->recorded[s][level / 64] |= bit;
        else
            t->recorded[s][level / 64] &= ~bit;
    }
    if (on)
        put(OFFTRACE_RAW_NVTX_RANGE, OFFTRACE_RAW_BEGIN, a->payload_type, 0, a->message, domain, a->category,
            a->payload, a->color);
    return (int)level;
}

static int pop(uint32_t domain)
{
    nvtx_thread *t = thread_state();
    if (!t)
        return -1;
    uint32_t s = domain < STACK_DOMAINS ? domain : STACK_DOMAINS - 1;
    if (t->depth[s] == 0) {
        problem(OFFTRACE_RAW_NVTX_POP_WITHOUT_PUSH);
        return -1;
    }
    uint32_t level = --t->depth[s];
    int recorded = level >= STACK_BITS || (t->recorded[s][level / 64] >> (level % 64) & 1);
    if (recorded && can_record()) /* every end of a recorded push, even while off: whole or nothing */
        put(OFFTRACE_RAW_NVTX_RANGE, OFFTRACE_RAW_END, 0, 0, 0, domain, 0, 0, 0);
    return (int)level;
}

/* ---- start / end ----
 * A range id is the starting thread's token (bits 40-62) and its own count
 * (bits 0-39): no shared counter on the hot path, and an end knows whether
 * its range began on another thread. Bit 63 set: not recorded. */

#define NOT_RECORDED ((uint64_t)1 << 63)
#define COUNT_BITS 40
#define COUNT_MASK (((uint64_t)1 << COUNT_BITS) - 1)

static nvtxRangeId_t start(uint32_t domain, const attrs *a)
{
    nvtx_thread *t = thread_state();
    if (!t)
        return NOT_RECORDED;
    uint64_t id = t->token << COUNT_BITS | (++t->started & COUNT_MASK);
    if (!recording_now() || filtered_out(a))
        return id | NOT_RECORDED;
    put(OFFTRACE_RAW_NVTX_START_END, OFFTRACE_RAW_BEGIN, a->payload_type, id, a->message, domain, a->category,
        a->payload, a->color);
    return id;
}

static void end(nvtxRangeId_t id)
{
    uint64_t plain = id & ~NOT_RECORDED, token = plain >> COUNT_BITS;
    if (token == 0 || token > __atomic_load_n(&thread_tokens, __ATOMIC_RELAXED) || !(plain & COUNT_MASK)) {
        problem(OFFTRACE_RAW_NVTX_UNKNOWN_RANGE);
        return;
    }
    if ((id & NOT_RECORDED) || !can_record())
        return;
    nvtx_thread *t = thread_state();
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve();
    offtrace_raw_record r = {.time = now, .id = id, .endpoint = OFFTRACE_RAW_END, .event = OFFTRACE_RAW_NVTX_START_END};
    ot_stream_store(slot, &r);
    if (!t || t->token != token) {
        /* Ended on another thread than the one that started it: the
         * converter, which pairs per thread, learns the end from nvtx.defs
         * (a write, on this rarer path only). */
        char text[48];
        int n = snprintf(text, sizeof text, "%llu %llu", (unsigned long long)id, (unsigned long long)now);
        pthread_mutex_lock(&defs_lock);
        write_def(0, OFFTRACE_RAW_NVTX_DEF_END_ELSEWHERE, 0, 0, text, (size_t)n);
        pthread_mutex_unlock(&defs_lock);
    }
}

static void mark(uint32_t domain, const attrs *a)
{
    if (recording_now() && !filtered_out(a))
        put(OFFTRACE_RAW_NVTX_MARK, OFFTRACE_RAW_BEGIN, a->payload_type, 0, a->message, domain, a->category,
            a->payload, a->color);
}

/* ---- the slots ---- */

static void ascii_attrs(attrs *a, const char *message)
{
    *a = (attrs){0};
    if (message)
        a->message = message_id(thread_state(), message);
    else
        problem(OFFTRACE_RAW_NVTX_NULL_MESSAGE);
}

static int NVTX_API range_push_a(const char *message)
{
    attrs a;
    if (!can_record()) /* no lookup before recording: the push is not recorded anyway */
        return push(0, &(attrs){0});
    ascii_attrs(&a, message);
    return push(0, &a);
}

static int NVTX_API range_push_ex(const nvtxEventAttributes_t *e)
{
    attrs a;
    read_attributes(thread_state(), e, &a);
    return push(0, &a);
}

static int NVTX_API range_pop(void) { return pop(0); }

static nvtxRangeId_t NVTX_API range_start_a(const char *message)
{
    attrs a;
    ascii_attrs(&a, message);
    return start(0, &a);
}

static nvtxRangeId_t NVTX_API range_start_ex(const nvtxEventAttributes_t *e)
{
    attrs a;
    read_attributes(thread_state(), e, &a);
    return start(0, &a);
}

static void NVTX_API range_end(nvtxRangeId_t id) { end(id); }

static void NVTX_API mark_a(const char *message)
{
    attrs a;
    ascii_attrs(&a, message);
    mark(0, &a);
}

static void NVTX_API mark_ex(const nvtxEventAttributes_t *e)
{
    attrs a;
    if (read_attributes(thread_state(), e, &a))
        mark(0, &a);
}

static void name_category(uint32_t domain, uint32_t category, const char *name)
{
    if (!name) {
        problem(OFFTRACE_RAW_NVTX_NULL_MESSAGE);
        return;
    }
    pthread_mutex_lock(&defs_lock);
    write_def(category, OFFTRACE_RAW_NVTX_DEF_CATEGORY, domain, category, name,
              strnlen(name, OFFTRACE_RAW_NVTX_TEXT_MAX));
    pthread_mutex_unlock(&defs_lock);
}

static void NVTX_API name_category_a(uint32_t category, const char *name) { name_category(0, category, name); }

/* The name goes onto the thread's location ("NAME: Master thread"). */
static void NVTX_API name_os_thread_a(uint32_t thread, const char *name)
{
    if (!name) {
        problem(OFFTRACE_RAW_NVTX_NULL_MESSAGE);
        return;
    }
    pthread_mutex_lock(&defs_lock);
    write_def(thread, OFFTRACE_RAW_NVTX_DEF_THREAD_NAME, 0, 0, name, strnlen(name, OFFTRACE_RAW_NVTX_TEXT_MAX));
    pthread_mutex_unlock(&defs_lock);
}

/* The wide-character variants are not recorded: counted, one line. */
static void NVTX_API mark_w(const wchar_t *m) { (void)m; problem(OFFTRACE_RAW_NVTX_UNSUPPORTED); }
static int NVTX_API range_push_w(const wchar_t *m)
{
    (void)m;
    problem(OFFTRACE_RAW_NVTX_UNSUPPORTED);
    return push(0, &(attrs){0});
}
static nvtxRangeId_t NVTX_API range_start_w(const wchar_t *m)
{
    (void)m;
    problem(OFFTRACE_RAW_NVTX_UNSUPPORTED);
    return start(0, &(attrs){0});
}

static void NVTX_API domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *e)
{
    attrs a;
    if (read_attributes(thread_state(), e, &a))
        mark(domain_of(d), &a);
}

static nvtxRangeId_t NVTX_API domain_range_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *e)
{
    attrs a;
    read_attributes(thread_state(), e, &a);
    return start(domain_of(d), &a);
}

static void NVTX_API domain_range_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    (void)d;
    end(id);
}

static int NVTX_API domain_range_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *e)
{
    attrs a;
    read_attributes(thread_state(), e, &a);
    return push(domain_of(d), &a);
}

static int NVTX_API domain_range_pop(nvtxDomainHandle_t d) { return pop(domain_of(d)); }

static void NVTX_API domain_name_category_a(nvtxDomainHandle_t d, uint32_t category, const char *name)
{
    name_category(domain_of(d), category, name);
}

/* A registered string's handle is its text id (never 0). */
static nvtxStringHandle_t NVTX_API domain_register_string_a(nvtxDomainHandle_t d, const char *s)
{
    (void)d;
    if (!s) {
        problem(OFFTRACE_RAW_NVTX_NULL_MESSAGE);
        return NULL;
    }
    const char *interned;
    uint32_t id = intern(s, &interned);
    return (nvtxStringHandle_t)(uintptr_t)id;
}

/* A domain's handle is its id: 1, 2, ... by creation; the same name twice
 * gives a new id of the same name (NVTX leaves it to the tool). */
static nvtxDomainHandle_t NVTX_API domain_create_a(const char *name)
{
    if (!name) {
        problem(OFFTRACE_RAW_NVTX_NULL_MESSAGE);
        return NULL;
    }
    pthread_mutex_lock(&defs_lock);
    uint32_t id = ++domain_count;
    write_def(id, OFFTRACE_RAW_NVTX_DEF_DOMAIN, id, 0, name, strnlen(name, OFFTRACE_RAW_NVTX_TEXT_MAX));
    pthread_mutex_unlock(&defs_lock);
    return (nvtxDomainHandle_t)(uintptr_t)id;
}

static void NVTX_API domain_destroy(nvtxDomainHandle_t d) { (void)d; }

/* ---- the entry NVTX calls ---- */

static int set_slots(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, const unsigned *ids,
                     NvtxFunctionPointer const *fns, unsigned count)
{
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
        return 0;
    for (unsigned i = 0; i < count; i++)
        if (ids[i] < size && table[ids[i]])
            *table[ids[i]] = fns[i];
    return 1;
}

#define SLOT(fn) ((NvtxFunctionPointer)(fn))

OT_EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    const NvtxExportTableCallbacks *cb = get_table ? get_table(NVTX_ETID_CALLBACKS) : NULL;
    if (!cb || cb->struct_size < sizeof *cb)
        return 0;
    static const unsigned core_ids[] = {
        NVTX_CBID_CORE_MarkEx,       NVTX_CBID_CORE_MarkA,        NVTX_CBID_CORE_MarkW,
        NVTX_CBID_CORE_RangeStartEx, NVTX_CBID_CORE_RangeStartA,  NVTX_CBID_CORE_RangeStartW,
        NVTX_CBID_CORE_RangeEnd,     NVTX_CBID_CORE_RangePushEx,  NVTX_CBID_CORE_RangePushA,
        NVTX_CBID_CORE_RangePushW,   NVTX_CBID_CORE_RangePop,     NVTX_CBID_CORE_NameCategoryA,
        NVTX_CBID_CORE_NameOsThreadA,
    };
    const NvtxFunctionPointer core_fns[] = {
        SLOT(mark_ex),        SLOT(mark_a),        SLOT(mark_w),         SLOT(range_start_ex),
        SLOT(range_start_a),  SLOT(range_start_w), SLOT(range_end),      SLOT(range_push_ex),
        SLOT(range_push_a),   SLOT(range_push_w),  SLOT(range_pop),      SLOT(name_category_a),
        SLOT(name_os_thread_a),
    };
    static const unsigned core2_ids[] = {
        NVTX_CBID_CORE2_DomainMarkEx,         NVTX_CBID_CORE2_DomainRangeStartEx,
        NVTX_CBID_CORE2_DomainRangeEnd,       NVTX_CBID_CORE2_DomainRangePushEx,
        NVTX_CBID_CORE2_DomainRangePop,       NVTX_CBID_CORE2_DomainNameCategoryA,
        NVTX_CBID_CORE2_DomainRegisterStringA, NVTX_CBID_CORE2_DomainCreateA,
        NVTX_CBID_CORE2_DomainDestroy,
    };
    const NvtxFunctionPointer core2_fns[] = {
        SLOT(domain_mark_ex),         SLOT(domain_range_start_ex),    SLOT(domain_range_end),
        SLOT(domain_range_push_ex),   SLOT(domain_range_pop),         SLOT(domain_name_category_a),
        SLOT(domain_register_string_a), SLOT(domain_create_a),        SLOT(domain_destroy),
    };
    if (!set_slots(cb, NVTX_CB_MODULE_CORE, core_ids, core_fns, sizeof core_ids / sizeof *core_ids) ||
        !set_slots(cb, NVTX_CB_MODULE_CORE2, core2_ids, core2_fns, sizeof core2_ids / sizeof *core2_ids))
        return 0;
    /* The recorder starts through OMPT, when the OpenMP runtime initialises:
     * usually at the program's first OpenMP construct, often after its first
     * NVTX range. Asking the runtime a question initialises it now, so that
     * ranges around the first parallel region are recorded too. A program
     * without libomp has no recorder: its calls are counted, not recorded. */
    if (!can_record()) {
        int (*max_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
        if (max_threads)
            (void)max_threads();
    }
    return 1;
}

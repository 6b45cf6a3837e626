/**
 * \file nvtx_pass.c
 * \brief NVTX_* records to OTF2 (issue 14, docs/nvtx.md).
 *
 * A push/pop range is a region of class NVTX_RANGE, a start/end range one of
 * class NVTX_START_END, a mark a zero-length region of class NVTX_MARK (an
 * Enter and a Leave at one time: every OTF2 reader shows it, and the
 * attributes ride on its Enter); all paradigm USER, entered and left on the
 * thread's location through the host pass's stack (ot_cv_pass_open/close),
 * so they nest with the target constructs, host OpenMP and user regions in
 * and around them. The name is the message, and "domain: message" in a
 * domain of the program's own, so that Vampir's function list keeps the
 * domains apart; a range without message is "(no message)".
 *
 * A pop closes the thread's innermost open range of its domain; an end
 * closes the range of its id. A start/end range ended on another thread is
 * drawn on the thread that started it, from its start to its end: the
 * recorder wrote that end's time into nvtx.defs too, and this pass closes
 * the range when the starting thread's records reach that time
 * (ot_nvtx_settle, called by the host pass), so OTF2's nesting per location
 * holds (what lies above it is left and entered again).
 *
 * Category, colour and payload are attributes of the Enter
 * (trace_writer.h: OT_ATTR_NVTX_*), written only when the program gave
 * them; a category's name is the archive property NVTX_CATEGORY_<domain>_<n>.
 */
#define _GNU_SOURCE
#include "nvtx_pass.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "host_mutex.h"
#include "host_tasks.h"
#include "regular_file.h"
#include "trace_writer.h"

typedef struct nvtx_category {
    uint32_t domain, number;
    char *name;
} nvtx_category;

typedef struct region_slot {
    uint64_t key; /* domain << 32 | text id, + 1 (0: empty) */
    OTF2_RegionRef region[3]; /* per kind: range, start/end, mark */
} region_slot;

typedef struct range_end {
    uint64_t id, ticks;
} range_end;

typedef struct pending_close {
    uint64_t id, t;
} pending_close;

typedef struct thread_name {
    uint32_t tid;
    char *name;
} thread_name;

struct ot_nvtx_defs {
    thread_name *thread_names; /* nvtxNameOsThreadA */
    size_t thread_name_count;
    range_end *elsewhere; /* start/end ranges ended on another thread, sorted by id */
    size_t elsewhere_count;
    pending_close *pending; /* of the thread being converted: closes at their ends' times */
    size_t pending_count, pending_capacity;
    char **texts;   /* by text id */
    uint32_t text_count;
    char **domains; /* by domain id */
    uint32_t domain_count;
    nvtx_category *categories;
    size_t category_count;
    region_slot *regions;
    size_t region_capacity, region_used;
};

#define MAX_NVTX_ID (1u << 20)

static int put_name(char ***table, uint32_t *count, uint32_t id, const char *text, size_t len)
{
    if (id >= *count) {
        uint32_t grown = *count ? *count : 64;
        while (grown <= id)
            grown *= 2;
        char **more = realloc(*table, grown * sizeof *more);
        if (!more)
            return -ENOMEM;
        memset(more + *count, 0, (grown - *count) * sizeof *more);
        *table = more;
        *count = grown;
    }
    if ((*table)[id]) /* the first definition of an id wins */
        return 0;
    char *s = malloc(len + 1);
    if (!s)
        return -ENOMEM;
    memcpy(s, text, len);
    s[len] = 0;
    (*table)[id] = s;
    return 0;
}

static int put_category(struct ot_nvtx_defs *n, uint32_t domain, uint32_t number, const char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return -ENOMEM;
    memcpy(s, text, len);
    s[len] = 0;
    for (size_t i = 0; i < n->category_count; i++)
        if (n->categories[i].domain == domain && n->categories[i].number == number) {
            free(n->categories[i].name); /* named again: the last name */
            n->categories[i].name = s;
            return 0;
        }
    nvtx_category *more = realloc(n->categories, (n->category_count + 1) * sizeof *more);
    if (!more) {
        free(s);
        return -ENOMEM;
    }
    n->categories = more;
    n->categories[n->category_count++] = (nvtx_category){domain, number, s};
    return 0;
}

static int put_thread_name(struct ot_nvtx_defs *n, uint32_t tid, const char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return -ENOMEM;
    memcpy(s, text, len);
    s[len] = 0;
    for (size_t i = 0; i < n->thread_name_count; i++)
        if (n->thread_names[i].tid == tid) {
            free(n->thread_names[i].name); /* named again: the last name */
            n->thread_names[i].name = s;
            return 0;
        }
    thread_name *more = realloc(n->thread_names, (n->thread_name_count + 1) * sizeof *more);
    if (!more) {
        free(s);
        return -ENOMEM;
    }
    n->thread_names = more;
    n->thread_names[n->thread_name_count++] = (thread_name){tid, s};
    return 0;
}

void ot_nvtx_thread_name(const converter *c, int32_t os_tid, char *name, size_t size)
{
    const struct ot_nvtx_defs *n = c->nvtx;
    for (size_t i = 0; n && i < n->thread_name_count; i++)
        if ((int32_t)n->thread_names[i].tid == os_tid) {
            char plain[128];
            snprintf(plain, sizeof plain, "%s", name);
            snprintf(name, size, "%s: %s", n->thread_names[i].name, plain);
            return;
        }
}

static int put_end(struct ot_nvtx_defs *n, uint64_t id, uint64_t ticks)
{
    range_end *more = realloc(n->elsewhere, (n->elsewhere_count + 1) * sizeof *more);
    if (!more)
        return -ENOMEM;
    n->elsewhere = more;
    n->elsewhere[n->elsewhere_count++] = (range_end){id, ticks};
    return 0;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const range_end *)a)->id, y = ((const range_end *)b)->id;
    return x < y ? -1 : x > y;
}

static const range_end *ended_elsewhere(const struct ot_nvtx_defs *n, uint64_t id)
{
    if (!n || !n->elsewhere_count)
        return NULL;
    range_end key = {id, 0};
    return bsearch(&key, n->elsewhere, n->elsewhere_count, sizeof key, by_id);
}

/* The definitions in text[at..used): the bytes read. \p whole: the file is
 * complete (a damaged definition ends the reading and is counted); else one
 * that does not read whole may be one the program is still writing: read
 * again next time. -ENOMEM. */
static int parse_defs(converter *c, struct ot_nvtx_defs *n, const char *text, size_t at, size_t used, int whole,
                      size_t *read_to)
{
    int rc = 0;
    while (rc == 0 && at < used) {
        unsigned id, kind, domain, category;
        size_t len;
        int head = 0;
        char field[96];
        size_t field_len = used - at < sizeof field - 1 ? used - at : sizeof field - 1;
        memcpy(field, text + at, field_len);
        field[field_len] = 0;
        if (sscanf(field, "%u %u %u %u %zu %n", &id, &kind, &domain, &category, &len, &head) != 5 || !head ||
            field[head - 1] != ' ' || kind < OFFTRACE_RAW_NVTX_DEF_STRING ||
            kind > OFFTRACE_RAW_NVTX_DEF_THREAD_NAME ||
            ((kind == OFFTRACE_RAW_NVTX_DEF_STRING || kind == OFFTRACE_RAW_NVTX_DEF_DOMAIN) &&
             (id == 0 || id >= MAX_NVTX_ID)) ||
            domain >= MAX_NVTX_ID || len > OFFTRACE_RAW_NVTX_TEXT_MAX || used - at - (size_t)head < len + 1 ||
            text[at + (size_t)head + len] != '\n' || memchr(text + at + head, 0, len)) {
            c->nvtx_problems[0] += whole; /* slot 0: a damaged nvtx.defs (the definitions before it stand) */
            break;
        }
        const char *s = text + at + head;
        if (kind == OFFTRACE_RAW_NVTX_DEF_END_ELSEWHERE) {
            char both[64];
            unsigned long long range, ticks;
            memcpy(both, s, len < sizeof both - 1 ? len : sizeof both - 1);
            both[len < sizeof both - 1 ? len : sizeof both - 1] = 0;
            if (sscanf(both, "%llu %llu", &range, &ticks) != 2) {
                c->nvtx_problems[0] += whole;
                break;
            }
            rc = put_end(n, range, ticks);
        } else if (kind == OFFTRACE_RAW_NVTX_DEF_THREAD_NAME) {
            rc = put_thread_name(n, id, s, len);
        } else {
            rc = kind == OFFTRACE_RAW_NVTX_DEF_STRING ? put_name(&n->texts, &n->text_count, id, s, len)
               : kind == OFFTRACE_RAW_NVTX_DEF_DOMAIN ? put_name(&n->domains, &n->domain_count, id, s, len)
                                                      : put_category(n, domain, category, s, len);
        }
        at += (size_t)head + len + 1;
    }
    *read_to = at;
    return rc;
}

static int parse_more(void *context, int whole, const char *text, size_t at, size_t used, size_t *read_to)
{
    converter *c = context;
    if (!c->nvtx && !(c->nvtx = calloc(1, sizeof *c->nvtx)))
        return -ENOMEM;
    int rc = parse_defs(c, c->nvtx, text, at, used, whole, read_to);
    if (c->nvtx->elsewhere_count) /* searched by id */
        qsort(c->nvtx->elsewhere, c->nvtx->elsewhere_count, sizeof *c->nvtx->elsewhere, by_id);
    return rc;
}


int ot_nvtx_defs_load(converter *c, const char *raw_dir)
{
    ot_defs_reread_setup(&c->nvtx_defs_read, raw_dir, OFFTRACE_RAW_NVTX_DEFS, parse_more, c);
    int rc = ot_defs_reread(&c->nvtx_defs_read, !c->live);
    return rc == -EPROTO ? 0 : rc; /* not at the first reading */
}

static size_t defined_count(const struct ot_nvtx_defs *n)
{
    size_t count = 0;
    for (uint32_t i = 0; n && i < n->text_count; i++)
        count += n->texts[i] != NULL;
    for (uint32_t i = 0; n && i < n->domain_count; i++)
        count += n->domains[i] != NULL;
    return count;
}

int ot_nvtx_defs_live_end(converter *c, const char *raw_dir, int32_t first_os_tid)
{
    size_t before = defined_count(c->nvtx);
    int rc = ot_defs_reread(&c->nvtx_defs_read, 1);
    if (rc)
        return rc;
    /* a text or domain asked for in vain and defined since; a range ended on another thread than its own
     * (its end is read before the first stream is written); the first thread named since its pass began */
    char name[sizeof c->nvtx_thread_name_used] = "";
    ot_nvtx_thread_name(c, first_os_tid, name, sizeof name);
    if ((c->nvtx_defs_read.missed && defined_count(c->nvtx) != before) || (c->nvtx && c->nvtx->elsewhere_count) ||
        strcmp(name, c->nvtx_thread_name_used))
        return -EPROTO;
    return 0;
}

void ot_nvtx_defs_free(converter *c)
{
    struct ot_nvtx_defs *n = c->nvtx;
    if (!n)
        return;
    for (uint32_t i = 0; i < n->text_count; i++)
        free(n->texts[i]);
    for (uint32_t i = 0; i < n->domain_count; i++)
        free(n->domains[i]);
    for (size_t i = 0; i < n->category_count; i++)
        free(n->categories[i].name);
    free(n->texts);
    free(n->domains);
    free(n->categories);
    for (size_t i = 0; i < n->thread_name_count; i++)
        free(n->thread_names[i].name);
    free(n->thread_names);
    free(n->regions);
    free(n->elsewhere);
    free(n->pending);
    free(n);
    c->nvtx = NULL;
}

static void add_pending(converter *c, uint64_t id, uint64_t t);

static const offtrace_event_class kind_class[3] = {OFFTRACE_CLASS_NVTX_RANGE, OFFTRACE_CLASS_NVTX_START_END,
                                                   OFFTRACE_CLASS_NVTX_MARK};

static region_slot *slot_of(struct ot_nvtx_defs *n, uint64_t key)
{
    if (n->region_used * 2 >= n->region_capacity) {
        size_t capacity = n->region_capacity ? n->region_capacity * 2 : 256;
        region_slot *grown = calloc(capacity, sizeof *grown);
        if (!grown)
            return NULL;
        for (size_t i = 0; i < n->region_capacity; i++)
            if (n->regions[i].key) {
                size_t j = (size_t)(n->regions[i].key * 0x9E3779B97F4A7C15ull >> 20) & (capacity - 1);
                while (grown[j].key)
                    j = (j + 1) & (capacity - 1);
                grown[j] = n->regions[i];
            }
        free(n->regions);
        n->regions = grown;
        n->region_capacity = capacity;
    }
    size_t j = (size_t)(key * 0x9E3779B97F4A7C15ull >> 20) & (n->region_capacity - 1);
    while (n->regions[j].key && n->regions[j].key != key)
        j = (j + 1) & (n->region_capacity - 1);
    if (!n->regions[j].key) {
        n->regions[j].key = key;
        for (int k = 0; k < 3; k++)
            n->regions[j].region[k] = OTF2_UNDEFINED_REGION;
        n->region_used++;
    }
    return &n->regions[j];
}

/* The region of (domain, text) for kind 0 range, 1 start/end, 2 mark. */
static OTF2_RegionRef region_for(converter *c, uint32_t domain, uint32_t text, int kind)
{
    struct ot_nvtx_defs *n = c->nvtx;
    region_slot *slot = slot_of(n, ((uint64_t)domain << 32 | text) + 1);
    if (slot && slot->region[kind] != OTF2_UNDEFINED_REGION)
        return slot->region[kind];
    if (__builtin_expect(c->live, 0) && ((text && !(text < n->text_count && n->texts[text])) ||
                                         (domain && !(domain < n->domain_count && n->domains[domain])))) {
        ot_defs_reread_for_missing(&c->nvtx_defs_read); /* the slot stays where it is: read_defs adds names, not regions */
        n = c->nvtx;
    }
    const char *message = text == 0                              ? "(no message)"
                        : text < n->text_count && n->texts[text] ? n->texts[text]
                                                                 : "(undefined message)";
    const char *domain_name = domain == 0 ? NULL
                            : domain < n->domain_count && n->domains[domain] ? n->domains[domain]
                                                                              : "(undefined domain)";
    char *name = NULL;
    if (domain_name ? asprintf(&name, "%s: %s", domain_name, message) < 0 : !(name = strdup(message)))
        return OTF2_UNDEFINED_REGION;
    OTF2_RegionRef region = ot_tw_region(c->tw, kind_class[kind], name, NULL, 0, 0);
    free(name);
    if (slot)
        slot->region[kind] = region;
    return region;
}

static void add_attributes(OTF2_AttributeList *a, const offtrace_raw_record *r)
{
    if (r->codeptr)
        OTF2_AttributeList_AddUint32(a, OT_ATTR_NVTX_CATEGORY, (uint32_t)r->codeptr);
    if (r->src_addr >> 32 & 1)
        OTF2_AttributeList_AddUint32(a, OT_ATTR_NVTX_COLOR, (uint32_t)r->src_addr);
    if (r->subkind == 3 || r->subkind == 6) { /* NVTX_PAYLOAD_TYPE_DOUBLE, _FLOAT: the bits of a double */
        double d;
        memcpy(&d, &r->bytes, sizeof d);
        OTF2_AttributeList_AddDouble(a, OT_ATTR_NVTX_PAYLOAD_FLOAT, d);
    } else if (r->subkind >= 1 && r->subkind <= 5) {
        OTF2_AttributeList_AddInt64(a, OT_ATTR_NVTX_PAYLOAD_INT, (int64_t)r->bytes);
    }
}

void ot_nvtx_convert(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_cv_pass_converter(p);
    if (__builtin_expect(c->live, 0) && !c->nvtx)
        ot_defs_reread_for_missing(&c->nvtx_defs_read); /* nvtx.defs written since the attempt began */
    if (!c->nvtx && !(c->nvtx = calloc(1, sizeof *c->nvtx))) { /* records, but no nvtx.defs: names stand in */
        c->damaged_records++;
        return;
    }
    if (r->event == OFFTRACE_RAW_NVTX_PROBLEM) {
        if (r->subkind > 0 && r->subkind < OFFTRACE_RAW_NVTX_PROBLEMS)
            c->nvtx_problems[r->subkind] += r->bytes;
        else
            c->damaged_records++;
        return;
    }
    int kind = r->event == OFFTRACE_RAW_NVTX_RANGE ? 0 : r->event == OFFTRACE_RAW_NVTX_START_END ? 1 : 2;
    uint64_t id = kind == 0 ? r->target_id : r->id; /* a pop names its domain, an end its range */
    if (r->endpoint == OFFTRACE_RAW_BEGIN) {
        OTF2_RegionRef region = region_for(c, (uint32_t)r->target_id, (uint32_t)r->dst_addr, kind);
        add_attributes(ot_cv_pass_attributes(p), r);
        c->nvtx_records++;
        if (kind == 2) {
            ot_hp_mark(p, region, t);
            return;
        }
        ot_cv_pass_open(p, r->event, id, region, t);
        const range_end *e = kind == 1 ? ended_elsewhere(c->nvtx, id) : NULL;
        if (e) /* its end is on another thread: close it here when this thread's time gets there */
            add_pending(c, id, ot_cv_to_ns(c, e->ticks));
    } else if (r->endpoint == OFFTRACE_RAW_END && kind != 2) {
        if (kind == 1 && ended_elsewhere(c->nvtx, id))
            return; /* closed on the starting thread's location (ot_nvtx_settle) */
        if (ot_cv_pass_close(p, r->event, id, t, r) != 0)
            c->nvtx_unmatched++;
    } else {
        c->damaged_records++;
    }
}

static void add_pending(converter *c, uint64_t id, uint64_t t)
{
    struct ot_nvtx_defs *n = c->nvtx;
    if (n->pending_count == n->pending_capacity) {
        size_t capacity = n->pending_capacity ? n->pending_capacity * 2 : 16;
        pending_close *more = realloc(n->pending, capacity * sizeof *more);
        if (!more) /* left open: closed at the thread's end as unfinished */
            return;
        n->pending = more;
        n->pending_capacity = capacity;
    }
    n->pending[n->pending_count++] = (pending_close){id, t};
    c->nvtx_pending = n->pending_count;
}

uint64_t ot_nvtx_settle(thread_pass *p, uint64_t until, uint64_t not_before)
{
    converter *c = ot_cv_pass_converter(p);
    struct ot_nvtx_defs *n = c->nvtx;
    while (n && n->pending_count) {
        size_t first = 0;
        for (size_t i = 1; i < n->pending_count; i++)
            if (n->pending[i].t < n->pending[first].t)
                first = i;
        if (n->pending[first].t > until)
            break;
        pending_close due = n->pending[first];
        n->pending[first] = n->pending[--n->pending_count];
        uint64_t t = due.t < not_before ? not_before : due.t;
        offtrace_raw_record end = {.id = due.id, .endpoint = OFFTRACE_RAW_END, .event = OFFTRACE_RAW_NVTX_START_END};
        if (ot_cv_pass_close(p, OFFTRACE_RAW_NVTX_START_END, due.id, t, &end) != 0)
            c->nvtx_unmatched++;
        not_before = t;
    }
    c->nvtx_pending = n ? n->pending_count : 0;
    return not_before;
}

void ot_nvtx_properties(converter *c)
{
    uint64_t any = c->nvtx_records;
    for (int i = 0; i < OFFTRACE_RAW_NVTX_PROBLEMS; i++)
        any |= c->nvtx_problems[i];
    if (!any && !c->nvtx)
        return;
    static const char *const names[OFFTRACE_RAW_NVTX_PROBLEMS] = {
        "NVTX_DEFINITIONS_DAMAGED", "NVTX_POPS_WITHOUT_PUSH", "NVTX_ENDS_OF_UNKNOWN_RANGES",
        "NVTX_NULL_MESSAGES", "NVTX_UNSUPPORTED_CALLS", "NVTX_CALLS_BEFORE_RECORDING",
    };
    char value[32];
    snprintf(value, sizeof value, "%llu", (unsigned long long)c->nvtx_records);
    ot_tw_property(c->tw, "NVTX_EVENTS", value);
    snprintf(value, sizeof value, "%llu", (unsigned long long)c->nvtx_unmatched);
    ot_tw_property(c->tw, "NVTX_UNMATCHED_ENDS", value);
    for (int i = 0; i < OFFTRACE_RAW_NVTX_PROBLEMS; i++) {
        snprintf(value, sizeof value, "%llu", (unsigned long long)c->nvtx_problems[i]);
        ot_tw_property(c->tw, names[i], value);
    }
    for (size_t i = 0; c->nvtx && i < c->nvtx->category_count; i++) {
        char key[64];
        snprintf(key, sizeof key, "NVTX_CATEGORY_%u_%u", c->nvtx->categories[i].domain,
                 c->nvtx->categories[i].number);
        ot_tw_property(c->tw, key, c->nvtx->categories[i].name);
    }
}

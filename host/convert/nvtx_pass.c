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
 * closes the range of its id on the thread that ends it. A start/end range
 * ended on another thread is counted as unmatched (its begin stays open to
 * its thread's last record), as user events are.
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

struct ot_nvtx_defs {
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

int ot_nvtx_defs_load(converter *c, const char *raw_dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", raw_dir, OFFTRACE_RAW_NVTX_DEFS);
    FILE *f = ot_fopen_regular(path);
    if (!f)
        return 0;
    struct ot_nvtx_defs *n = calloc(1, sizeof *n);
    char *text = NULL;
    size_t size = 0, used = 0;
    int rc = n ? 0 : -ENOMEM;
    while (rc == 0) {
        if (used + 4096 > size) {
            char *more = realloc(text, size = size ? size * 2 : 65536);
            if (!more) {
                rc = -ENOMEM;
                break;
            }
            text = more;
        }
        size_t got = fread(text + used, 1, size - used, f);
        used += got;
        if (got == 0)
            break;
    }
    fclose(f);
    for (size_t at = 0; rc == 0 && at < used;) {
        unsigned id, kind, domain, category;
        size_t len;
        int head = 0;
        char field[96];
        size_t field_len = used - at < sizeof field - 1 ? used - at : sizeof field - 1;
        memcpy(field, text + at, field_len);
        field[field_len] = 0;
        if (sscanf(field, "%u %u %u %u %zu %n", &id, &kind, &domain, &category, &len, &head) != 5 || !head ||
            field[head - 1] != ' ' || kind < OFFTRACE_RAW_NVTX_DEF_STRING || kind > OFFTRACE_RAW_NVTX_DEF_CATEGORY ||
            (kind != OFFTRACE_RAW_NVTX_DEF_CATEGORY && (id == 0 || id >= MAX_NVTX_ID)) ||
            domain >= MAX_NVTX_ID || len > OFFTRACE_RAW_NVTX_TEXT_MAX || used - at - (size_t)head < len + 1 ||
            text[at + (size_t)head + len] != '\n' || memchr(text + at + head, 0, len)) {
            c->nvtx_problems[0]++; /* slot 0: a damaged nvtx.defs (the definitions before it stand) */
            break;
        }
        const char *s = text + at + head;
        rc = kind == OFFTRACE_RAW_NVTX_DEF_STRING   ? put_name(&n->texts, &n->text_count, id, s, len)
           : kind == OFFTRACE_RAW_NVTX_DEF_DOMAIN   ? put_name(&n->domains, &n->domain_count, id, s, len)
                                                   : put_category(n, domain, category, s, len);
        at += (size_t)head + len + 1;
    }
    free(text);
    c->nvtx = n;
    return rc;
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
    free(n->regions);
    free(n);
    c->nvtx = NULL;
}

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
    static struct ot_nvtx_defs none;
    struct ot_nvtx_defs *n = c->nvtx ? c->nvtx : &none; /* records, but no nvtx.defs: names stand in */
    region_slot *slot = slot_of(n, ((uint64_t)domain << 32 | text) + 1);
    if (slot && slot->region[kind] != OTF2_UNDEFINED_REGION)
        return slot->region[kind];
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
        if (kind == 2)
            ot_hp_mark(p, region, t);
        else
            ot_cv_pass_open(p, r->event, id, region, t);
    } else if (r->endpoint == OFFTRACE_RAW_END && kind != 2) {
        if (ot_cv_pass_close(p, r->event, id, t, r) != 0)
            c->nvtx_unmatched++;
    } else {
        c->damaged_records++;
    }
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

/**
 * \file map_names.c
 * \brief The variable of every data operation (map_names.h).
 *
 * The recorder copied each map site's strings as it found them (bounded,
 * never past a NUL); they are parsed here, where a damaged or malformed
 * one costs a marker, not a crash: a name is ";expr;file;line;col;;", and
 * anything else gives the variable "unknown" and a name problem that says
 * why. A damaged line of the file (a recording cut in the middle of a
 * write) ends the reading; the sites before it stand.
 */
#define _GNU_SOURCE
#include "map_names.h"

#include <errno.h>
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "region_memo.h" /* issue 18 */

#define MAX_SITE_ID (1u << 22) /* a bound against damage: the recorder's table holds 4095 */

#define MAP_TO 0x1
#define MAP_FROM 0x2
#define MAP_ALWAYS 0x4
#define MAP_DELETE 0x8
#define MAP_PRIVATE 0x80
#define MAP_LITERAL 0x100
#define MAP_IMPLICIT 0x200
#define MAP_CLOSE 0x400
#define MAP_PRESENT 0x1000
#define MAP_OMPX_HOLD 0x2000

typedef struct map_entry {
    char *variable;      /* "unknown" when problem */
    const char *problem; /* NULL: named */
    uint64_t type;
} map_entry;

typedef struct map_site {
    int defined;
    int component;       /* a mapper's component (no construct of its own) */
    char *file;          /* from psource, NULL without */
    unsigned line;
    size_t count;
    map_entry *entries;
} map_site;

typedef struct alloc_ref {
    uint64_t addr, ref;
    int32_t device;
    int used;
} alloc_ref;

/* A data op named before (issue 18): the same reference, kind and
 * construct give the same region, op and count; its attributes' strings are
 * interned at its first Enter and kept. */
enum { COUNT_NAMED, COUNT_WITHOUT_DEBUG_INFO, COUNT_UNMATCHED, COUNT_NONE };
enum { MEMO_STRINGS = 6 };
typedef struct named_op {
    OTF2_RegionRef region;
    int counted; /* COUNT_* */
    int strings_known;
    OTF2_StringRef strings[MEMO_STRINGS]; /* variable, map type, member of, site, entry, problem */
    ot_map_op op;
} named_op;

/* Data ops named from their reference's own entry, recently, one per slot of a hash of the reference, the
 * construct's code address and the kind (issue 18, tenth round: a loop's construct names the same ops again and
 * again, and the memo's key (the entry's and sites' lookups, the hash) was about 80 of the 145 instructions of
 * naming one). Twelfth round: the slot was the kind alone, so two variables mapped the same way, or one variable
 * mapped by two constructs in turn (cg), took turns in it and were never found there. The same inputs give the
 * same named op: an entry found stays found, a construct site defined stays defined (a live reading only adds
 * sites). */
enum { RECENT_OPS_BITS = 4, RECENT_OPS = 1 << RECENT_OPS_BITS };
typedef struct recent_op {
    uint64_t ref, construct_codeptr;
    uint32_t construct_site, known; /* known: its named_ops index */
    int cls;
    uint8_t subkind, construct_kind, used;
} recent_op;

typedef struct ot_map_sites {
    named_op *named_ops;
    size_t named_op_count, named_op_capacity;
    recent_op recent[RECENT_OPS];
    map_site *sites; /* by id */
    size_t site_count;
    alloc_ref *allocs;
    size_t alloc_capacity, alloc_used;
    uint64_t named, without_debug_info, not_captured, unmatched, damaged_lines;
    /* the file as read so far: a live conversion (convert_live.c) reads it
     * again when a record names a site it does not know yet */
    int live;          /* read while the program runs: a line not whole yet is not damage */
    int stopped;       /* a damaged line ended the reading, as it ends a whole reading */
    ot_defs_read read; /* the lines parsed */
} ot_map_sites;

/* ---- parsing ---- */

static const char *PROBLEM_NO_DEBUG = "no debug info (build with -g or -gline-tables-only)";
static const char *PROBLEM_COMPILER = "not named by the compiler";
static const char *PROBLEM_MALFORMED = "malformed name string";
static const char *PROBLEM_TRUNCATED = "truncated name string";
/* A data op of one of its construct's own entries (most of them): ot_map_add_attributes leaves the map entry
 * out at this one string, which it knows by its address (a compare, where strcmp was 26 instructions a data op). */
static const char entry_usual[] = OFFTRACE_MAP_ENTRY_USUAL;

/* ";expr;..." -> expr, printable; else "unknown" and why. */
static char *parse_name(const char *s, long len, const char **problem)
{
    *problem = NULL;
    if (len < 0) {
        *problem = PROBLEM_NO_DEBUG;
        return strdup("unknown");
    }
    if (len < 2 || s[0] != ';') {
        *problem = PROBLEM_MALFORMED;
        return strdup("unknown");
    }
    const char *end = memchr(s + 1, ';', (size_t)len - 1);
    if (!end) {
        *problem = PROBLEM_TRUNCATED;
        return strdup("unknown");
    }
    size_t n = (size_t)(end - s - 1);
    if (n == 0) {
        *problem = PROBLEM_MALFORMED;
        return strdup("unknown");
    }
    if (n == 7 && !memcmp(s + 1, "unknown", 7)) {
        *problem = PROBLEM_COMPILER;
        return strdup("unknown");
    }
    char *out = strndup(s + 1, n);
    for (char *p = out; p && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return out;
}

/* ";file;function;line;col;;" -> file and line (none when malformed or unknown). */
static void parse_psource(const char *s, long len, map_site *site)
{
    if (len < 2 || s[0] != ';')
        return;
    const char *limit = s + len, *file = s + 1;
    const char *fn = memchr(file, ';', (size_t)(limit - file));
    if (!fn || fn == file)
        return;
    const char *line = memchr(fn + 1, ';', (size_t)(limit - fn - 1));
    if (!line)
        return;
    unsigned long number = 0;
    for (const char *p = line + 1; p < limit && *p >= '0' && *p <= '9' && number < 100000000; p++)
        number = number * 10 + (unsigned)(*p - '0');
    if (!number || ((size_t)(fn - file) == 7 && !memcmp(file, "unknown", 7)))
        return;
    site->file = strndup(file, (size_t)(fn - file));
    site->line = (unsigned)number;
}

typedef struct cursor {
    const char *p, *end;
} cursor;

static int read_number(cursor *c, long *out, int base)
{
    if (c->p >= c->end)
        return -1;
    char buf[32];
    size_t n = 0;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\n' && n < sizeof buf - 1)
        buf[n++] = *c->p++;
    buf[n] = '\0';
    if (!n || c->p >= c->end || *c->p != ' ')
        return -1;
    c->p++;
    char *e;
    errno = 0;
    long long v = strtoll(buf, &e, base);
    if (*e || errno)
        return -1;
    *out = (long)v;
    return 0;
}

static int read_text(cursor *c, long *len, const char **text)
{
    if (read_number(c, len, 10) != 0 || *len < -1 || *len > (long)OFFTRACE_RAW_MAP_NAME_MAX ||
        (*len > 0 && c->end - c->p < *len))
        return -1;
    *text = c->p;
    if (*len > 0)
        c->p += *len;
    return 0;
}

static void free_site(map_site *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->entries[i].variable);
    free(s->entries);
    free(s->file);
    memset(s, 0, sizeof *s);
}

/* One line; -1 when damaged (the reading stops), -ENOMEM. */
static int parse_line(ot_map_sites *m, cursor *c)
{
    long id, count, len;
    const char *text;
    if (read_number(c, &id, 10) != 0 || id < 1 || id >= MAX_SITE_ID || read_number(c, &count, 10) != 0 ||
        count < 0 || count > (long)OFFTRACE_RAW_MAP_ENTRIES_MAX || read_text(c, &len, &text) != 0)
        return -1;
    if ((size_t)id >= m->site_count) {
        size_t grown = m->site_count ? m->site_count : 64;
        while (grown <= (size_t)id)
            grown *= 2;
        map_site *more = realloc(m->sites, grown * sizeof *more);
        if (!more)
            return -ENOMEM;
        memset(more + m->site_count, 0, (grown - m->site_count) * sizeof *more);
        m->sites = more;
        m->site_count = grown;
    }
    map_site site = {.defined = 1, .component = len < 0, .count = (size_t)count};
    parse_psource(text, len, &site);
    site.entries = calloc(site.count ? site.count : 1, sizeof *site.entries);
    if (!site.entries) {
        free_site(&site);
        return -ENOMEM;
    }
    for (size_t i = 0; i < site.count; i++) {
        long type;
        if (c->p >= c->end || *c->p++ != ' ' || read_number(c, &type, 16) != 0 || read_text(c, &len, &text) != 0) {
            free_site(&site);
            return -1;
        }
        site.entries[i].type = (uint64_t)type;
        if (!(site.entries[i].variable = parse_name(text, len, &site.entries[i].problem))) {
            free_site(&site);
            return -ENOMEM;
        }
    }
    if (c->p >= c->end || *c->p++ != '\n') {
        free_site(&site);
        return -1;
    }
    free_site(&m->sites[id]); /* a repeated id (damage): the last one stands */
    m->sites[id] = site;
    return 0;
}

static int parse_more(void *context, int whole, const char *text, size_t at, size_t used, size_t *read_to)
{
    ot_map_sites *m = context;
    cursor cur = {text + at, text + used};
    int rc = 0;
    while (!m->stopped && cur.p < cur.end) {
        rc = parse_line(m, &cur);
        if (rc == -1 && !whole)
            return 0;
        if (rc == -1) {
            m->damaged_lines++;
            m->stopped = 1;
            return 0;
        }
        if (rc)
            return rc;
        *read_to = (size_t)(cur.p - text);
    }
    return 0;
}

int ot_map_names_load(converter *c, const char *raw_dir)
{
    ot_map_sites *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    c->maps = m;
    ot_defs_reread_setup(&m->read, raw_dir, OFFTRACE_RAW_MAP_DEFS, parse_more, m);
    m->live = c->live;
    int rc = ot_defs_reread(&m->read, !m->live);
    return rc == -EPROTO ? 0 : rc; /* -EPROTO: not at the first reading */
}

/* A live conversion's site not known yet: the recorder writes a site's line
 * before any record names it, so the file is read again when it grew. */
static void read_again_for(ot_map_sites *m)
{
    if (m->stopped)
        m->read.missed = 1;
    else
        ot_defs_reread_for_missing(&m->read);
}

int ot_map_names_live_end(converter *c)
{
    ot_map_sites *m = c->maps;
    if (!m || !m->live)
        return 0;
    size_t sites_before = 0;
    for (size_t i = 0; i < m->site_count; i++)
        sites_before += m->sites[i].defined;
    int rc = ot_defs_reread(&m->read, 1);
    size_t sites_after = 0;
    for (size_t i = 0; i < m->site_count; i++)
        sites_after += m->sites[i].defined;
    m->live = 0;
    /* a site asked for in vain and defined after: the conversion after the end names it */
    return rc ? rc : m->read.missed && sites_after != sites_before ? -EPROTO : 0;
}

void ot_map_names_free(converter *c)
{
    ot_map_sites *m = c->maps;
    if (!m)
        return;
    for (size_t i = 0; i < m->site_count; i++)
        free_site(&m->sites[i]);
    free(m->sites);
    free(m->allocs);
    free(m->named_ops);
    free(m);
    c->maps = NULL;
}

/* ---- allocations: a delete names only the device address ---- */

static size_t alloc_slot(const ot_map_sites *m, int device, uint64_t addr)
{
    uint64_t h = (addr ^ (uint64_t)device << 56) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 20) & (m->alloc_capacity - 1);
}

void ot_map_alloc_done(converter *c, int device, const offtrace_raw_record *end)
{
    ot_map_sites *m = c->maps;
    if (!m || !(end->flags & OFFTRACE_RAW_FLAG_MAP_ENTRY) || !end->dst_addr)
        return;
    if (m->alloc_used * 2 >= m->alloc_capacity) {
        size_t grown = m->alloc_capacity ? m->alloc_capacity * 2 : 1024;
        alloc_ref *old = m->allocs;
        size_t old_capacity = m->alloc_capacity;
        alloc_ref *more = calloc(grown, sizeof *more);
        if (!more)
            return; /* the delete stays unnamed */
        m->allocs = more;
        m->alloc_capacity = grown;
        m->alloc_used = 0;
        for (size_t i = 0; i < old_capacity; i++)
            if (old[i].used) {
                size_t k = alloc_slot(m, old[i].device, old[i].addr);
                while (m->allocs[k].used)
                    k = (k + 1) & (m->alloc_capacity - 1);
                m->allocs[k] = old[i];
                m->alloc_used++;
            }
        free(old);
    }
    size_t k = alloc_slot(m, device, end->dst_addr);
    while (m->allocs[k].used && !(m->allocs[k].device == device && m->allocs[k].addr == end->dst_addr))
        k = (k + 1) & (m->alloc_capacity - 1);
    if (!m->allocs[k].used)
        m->alloc_used++;
    m->allocs[k] = (alloc_ref){end->dst_addr, end->codeptr, device, 1};
}

static const alloc_ref *alloc_of(const ot_map_sites *m, int device, uint64_t addr)
{
    if (!m->alloc_capacity)
        return NULL;
    size_t k = alloc_slot(m, device, addr);
    while (m->allocs[k].used) {
        if (m->allocs[k].device == device && m->allocs[k].addr == addr)
            return &m->allocs[k];
        k = (k + 1) & (m->alloc_capacity - 1);
    }
    return NULL;
}

/* ---- naming ---- */

static const map_site *site_of(ot_map_sites *m, uint32_t id)
{
    if (__builtin_expect(m->live, 0) && id && id < MAX_SITE_ID && !(id < m->site_count && m->sites[id].defined))
        read_again_for(m);
    return id && id < m->site_count && m->sites[id].defined ? &m->sites[id] : NULL;
}

static const map_entry *entry_of(ot_map_sites *m, uint32_t site, uint32_t index)
{
    const map_site *s = site_of(m, site);
    return s && index < s->count ? &s->entries[index] : NULL;
}

static void append(char *out, size_t size, const char *word)
{
    size_t n = strlen(out);
    snprintf(out + n, size - n, "%s%s", n ? "," : "", word);
}

/* Modifiers, then the type, as a map clause spells them. */
static void decode_type(uint64_t t, int at_exit, char *out, size_t size)
{
    out[0] = '\0';
    if (t & MAP_ALWAYS)
        append(out, size, "always");
    if (t & MAP_CLOSE)
        append(out, size, "close");
    if (t & MAP_PRESENT)
        append(out, size, "present");
    if (t & MAP_OMPX_HOLD)
        append(out, size, "ompx_hold");
    const char *type = t & MAP_LITERAL                        ? "firstprivate"
                       : t & MAP_PRIVATE                      ? "private"
                       : t & MAP_DELETE                       ? "delete"
                       : (t & (MAP_TO | MAP_FROM)) == (MAP_TO | MAP_FROM) ? "tofrom"
                       : t & MAP_TO                           ? "to"
                       : t & MAP_FROM                         ? "from"
                       : at_exit                              ? "release"
                                                              : "alloc";
    append(out, size, type);
}

static int is_to_device(uint8_t op) { return op == ompt_target_data_transfer_to_device || op == ompt_target_data_transfer_to_device_async; }
static int is_from_device(uint8_t op) { return op == ompt_target_data_transfer_from_device || op == ompt_target_data_transfer_from_device_async; }
static int is_alloc(uint8_t op) { return op == ompt_target_data_alloc || op == ompt_target_data_alloc_async; }
static int is_delete(uint8_t op) { return op == ompt_target_data_delete || op == ompt_target_data_delete_async; }

/* The construct's file:line: its call site through the symbolizer, else
 * the line clang wrote into its ident_t. */
static void site_label(converter *c, uint64_t codeptr, const map_site *site, char *out, size_t size)
{
    ot_srcloc loc;
    if (ot_symbolizer_lookup(c->sym, codeptr, &loc) != 0)
        memset(&loc, 0, sizeof loc);
    if (!loc.line && site && site->file) {
        const char *base = strrchr(site->file, '/');
        snprintf(out, size, "%s:%u", base ? base + 1 : site->file, site->line);
        return;
    }
    ot_srcloc_format(&loc, codeptr, out, size);
}

/* A delete names the device address: the allocation's entry, and the type
 * of the entry of this construct with the same variable. */
static const map_entry *entry_of_delete(ot_map_sites *m, const offtrace_raw_record *r, int device,
                                        uint32_t construct_site, uint64_t *type, uint32_t *entry_site)
{
    const alloc_ref *a = alloc_of(m, device, r->src_addr);
    if (!a || (a->ref & OFFTRACE_RAW_MAP_FIXUP))
        return NULL;
    *entry_site = OFFTRACE_RAW_MAP_REF_SITE(a->ref);
    const map_entry *allocated = entry_of(m, OFFTRACE_RAW_MAP_REF_SITE(a->ref), OFFTRACE_RAW_MAP_REF_INDEX(a->ref));
    if (!allocated)
        return NULL;
    *type = allocated->type;
    const map_site *from = site_of(m, OFFTRACE_RAW_MAP_REF_SITE(a->ref));
    if (OFFTRACE_RAW_MAP_REF_SITE(a->ref) == construct_site || (from && from->component))
        return allocated; /* allocated and deleted by one construct (a target's own maps, a mapper's component) */
    const map_site *here = site_of(m, construct_site);
    if (here && !allocated->problem)
        for (size_t i = 0; i < here->count; i++)
            if (!here->entries[i].problem && !strcmp(here->entries[i].variable, allocated->variable)) {
                *type = here->entries[i].type;
                return allocated;
            }
    *type = UINT64_MAX; /* the exit's clause is not known */
    return allocated;
}

/* A member's parent: clang leaves the entry of the whole struct unnamed
 * ("unknown"); the struct's own entry, a member of it, has the name. */
static const char *parent_name(const map_site *s, size_t parent)
{
    if (!s->entries[parent].problem)
        return s->entries[parent].variable;
    for (size_t i = parent + 1; i < s->count; i++)
        if (!s->entries[i].problem && (s->entries[i].type >> 48) == parent + 1 && !strchr(s->entries[i].variable, '.') &&
            !strchr(s->entries[i].variable, '['))
            return s->entries[i].variable;
    return NULL;
}

static void count(ot_map_sites *m, int counted)
{
    m->named += counted == COUNT_NAMED;
    m->without_debug_info += counted == COUNT_WITHOUT_DEBUG_INFO;
    m->unmatched += counted == COUNT_UNMATCHED;
}

static OTF2_RegionRef name_data_op(converter *c, const offtrace_raw_record *r, int device, int cls,
                                   uint32_t construct_site, uint8_t construct_kind, uint64_t construct_codeptr,
                                   ot_map_op *out, int *counted);

/* A data op named before, as the memo's entry \p known says. */
static OTF2_RegionRef named_again(ot_map_sites *m, uint32_t known, ot_map_op *out)
{
    const named_op *n = &m->named_ops[known];
    if (n->strings_known) { /* its attributes take the memo's strings: the inline map type and site are not
                             * read, and copying them was 2 % of a data-op-heavy conversion (issue 18) */
        out->variable = n->op.variable;
        out->map_type[0] = '\0';
        out->implicit = n->op.implicit;
        out->member_of = n->op.member_of;
        out->site[0] = '\0';
        out->entry = n->op.entry;
        out->problem = n->op.problem;
        out->memo = n->op.memo;
    } else {
        *out = n->op;
    }
    count(m, n->counted);
    return n->region;
}

OTF2_RegionRef ot_map_data_op(converter *c, const offtrace_raw_record *r, int device, int cls,
                              uint32_t construct_site, uint8_t construct_kind, uint64_t construct_codeptr,
                              ot_map_op *out)
{
    ot_map_sites *m = c->maps;
    if (!m || !(r->flags & OFFTRACE_RAW_FLAG_MAP_ENTRY)) {
        if (m && (r->flags & OFFTRACE_RAW_FLAG_IN_CONSTRUCT) && r->endpoint != OFFTRACE_RAW_END)
            m->not_captured++;
        return UINT32_MAX;
    }
    uint64_t ref = r->codeptr;
    /* construct_codeptr too: one variable mapped alike by two constructs in turn (cg's two kernels) */
    recent_op *recent =
        &m->recent[(ref ^ construct_codeptr ^ r->subkind) * 0x9E3779B97F4A7C15ull >> (64 - RECENT_OPS_BITS)];
    if (recent->used && recent->ref == ref && recent->subkind == r->subkind && recent->cls == cls &&
        recent->construct_site == construct_site && recent->construct_kind == construct_kind &&
        recent->construct_codeptr == construct_codeptr)
        return named_again(m, recent->known, out);
    const map_entry *e = entry_of(m, OFFTRACE_RAW_MAP_REF_SITE(ref), OFFTRACE_RAW_MAP_REF_INDEX(ref));
    int at_exit = construct_kind == ompt_target_exit_data || construct_kind == ompt_target_exit_data_nowait;
    /* The key: what the name is made of. A delete without its own entry is
     * named after the allocation it frees (the device address's map
     * reference, or none), and of its own reference only the fix-up bit
     * counts. A construct site that is not defined reads as none. */
    uint64_t key = ref, site_key = site_of(m, construct_site) ? construct_site : 0; /* below MAX_SITE_ID: 22 bits */
    uint64_t via_alloc = 0;
    if (!e && is_delete(r->subkind)) {
        const alloc_ref *a = alloc_of(m, device, r->src_addr);
        key = !a || (a->ref & OFFTRACE_RAW_MAP_FIXUP) ? UINT64_MAX : a->ref;
        via_alloc = 1ull << 18 | (ref & OFFTRACE_RAW_MAP_FIXUP ? 1ull << 17 : 0);
        if (!construct_site) { /* the allocation is matched against the reference's own site then */
            uint32_t own = OFFTRACE_RAW_MAP_REF_SITE(ref);
            site_key = site_of(m, own) ? own : 0;
            via_alloc |= 1ull << 19;
        }
    }
    uint64_t head = (uint64_t)OT_MEMO_MAP_OP << 56 | site_key << 24 | via_alloc | (uint64_t)at_exit << 16 |
                    (uint64_t)(uint8_t)cls << 8 | r->subkind;
    /* what recent may keep: the key above is the same for the same inputs */
    int recallable = e && site_key == construct_site;
    uint32_t known;
    if ((unsigned)cls <= 0xFF && ot_region_memo_find(c->regions, head, key, construct_codeptr, &known)) {
        if (recallable)
            *recent = (recent_op){ref, construct_codeptr, construct_site, known, cls, r->subkind, construct_kind, 1};
        return named_again(m, known, out);
    }
    int counted;
    OTF2_RegionRef region = name_data_op(c, r, device, cls, construct_site, construct_kind, construct_codeptr, out,
                                         &counted);
    if (region == UINT32_MAX || (unsigned)cls > 0xFF)
        return region;
    if (m->named_op_count == m->named_op_capacity) {
        size_t grown = m->named_op_capacity ? m->named_op_capacity * 2 : 64;
        named_op *more = realloc(m->named_ops, grown * sizeof *more);
        if (!more)
            return region; /* named again next time */
        m->named_ops = more;
        m->named_op_capacity = grown;
    }
    out->memo = (uint32_t)m->named_op_count + 1;
    m->named_ops[m->named_op_count] = (named_op){.region = region, .counted = counted, .op = *out};
    if (recallable)
        *recent = (recent_op){ref, construct_codeptr, construct_site, (uint32_t)m->named_op_count, cls, r->subkind,
                              construct_kind, 1};
    ot_region_memo_keep(c->regions, head, key, construct_codeptr, (uint32_t)m->named_op_count++);
    return region;
}

/* What ot_map_data_op returns, from the sites; *counted (when asked) says
 * which count it went to. */
static OTF2_RegionRef name_data_op(converter *c, const offtrace_raw_record *r, int device, int cls,
                                   uint32_t construct_site, uint8_t construct_kind, uint64_t construct_codeptr,
                                   ot_map_op *out, int *counted)
{
    ot_map_sites *m = c->maps;
    uint64_t ref = r->codeptr;
    uint32_t site = OFFTRACE_RAW_MAP_REF_SITE(ref), index = OFFTRACE_RAW_MAP_REF_INDEX(ref);
    const map_entry *e = entry_of(m, site, index);
    uint64_t type = e ? e->type : UINT64_MAX;
    uint32_t entry_site = site;
    if (!e && is_delete(r->subkind))
        e = entry_of_delete(m, r, device, construct_site ? construct_site : site, &type, &entry_site);
    memset(out, 0, sizeof *out);
    out->entry = !e ? "none" : ref & OFFTRACE_RAW_MAP_FIXUP ? "pointer fix-up"
               : site_of(m, entry_site) && site_of(m, entry_site)->component ? "mapper component" : entry_usual;
    out->variable = e ? e->variable : "unknown";
    out->problem = e ? e->problem : NULL;
    int at_exit = construct_kind == ompt_target_exit_data || construct_kind == ompt_target_exit_data_nowait;
    if (type == UINT64_MAX)
        snprintf(out->map_type, sizeof out->map_type, "unknown");
    else
        decode_type(type, at_exit, out->map_type, sizeof out->map_type);
    out->implicit = type != UINT64_MAX && (type & MAP_IMPLICIT);
    const map_site *s = site_of(m, entry_site);
    uint64_t parent = type == UINT64_MAX ? 0 : type >> 48;
    if (parent && s && !s->component && parent <= s->count)
        out->member_of = parent_name(s, parent - 1);
    if (out->member_of && e && !strcmp(out->member_of, e->variable))
        out->member_of = NULL; /* the struct's own entry, member of its unnamed whole */
    site_label(c, construct_codeptr, site_of(m, construct_site), out->site, sizeof out->site);
    int which = e && !e->problem ? COUNT_NAMED
              : e && e->problem == PROBLEM_NO_DEBUG ? COUNT_WITHOUT_DEBUG_INFO
              : !e ? COUNT_UNMATCHED : COUNT_NONE;
    count(m, which);
    if (counted)
        *counted = which;

    const char *stem = is_to_device(r->subkind) ? "h2d" : is_from_device(r->subkind) ? "d2h"
                     : is_alloc(r->subkind) ? "alloc" : is_delete(r->subkind) ? "delete" : NULL;
    if (!stem)
        stem = offtrace_class((offtrace_event_class)cls)->name;
    char name[1400];
    if (!e)
        snprintf(name, sizeof name, "%s (no map entry) @%s", stem, out->site);
    else if (ref & OFFTRACE_RAW_MAP_FIXUP)
        snprintf(name, sizeof name, "%s pointer fix-up of %s @%s", stem, out->variable, out->site);
    else
        snprintf(name, sizeof name, "%s %s (%s%s) @%s", stem, out->variable, out->map_type,
                 out->implicit ? ", implicit" : "", out->site);
    const map_site *construct = site_of(m, construct_site);
    unsigned line = construct ? construct->line : 0;
    return ot_tw_region(c->tw, (offtrace_event_class)cls, name, construct ? construct->file : NULL, line, line);
}

void ot_map_add_attributes(converter *c, OTF2_AttributeList *a, const ot_map_op *op, ot_map_repeat *previous)
{
    named_op *n = op->memo ? &c->maps->named_ops[op->memo - 1] : NULL;
    OTF2_StringRef s[MEMO_STRINGS];
    if (n && n->strings_known) {
        memcpy(s, n->strings, sizeof s);
    } else { /* interned in the order they are written: string refs stay as they were */
        s[0] = ot_tw_string(c->tw, op->variable);
        s[1] = ot_tw_string(c->tw, op->map_type);
        s[2] = op->member_of ? ot_tw_string(c->tw, op->member_of) : 0;
        s[3] = ot_tw_string(c->tw, op->site);
        s[4] = ot_tw_string(c->tw, op->entry);
        s[5] = op->problem ? ot_tw_string(c->tw, op->problem) : 0;
        if (n) {
            memcpy(n->strings, s, sizeof s);
            n->strings_known = 1;
        }
    }
    /* Implicit and map entry only when not their usual value (event_catalogue.h): each attribute costs OTF2
     * 12-15 ns per event, and most data ops are of an explicit map's entry (docs/performance.md, "Issue 18:
     * the converter's per-event cost ... (fourth round)"). The entry's string stays interned above, so the
     * definitions are those of an archive that carries it. */
    /* The variable, map type and site only where they are not those of the previous Enter of the same region on
     * the location (map_repeats.h): the region's name spells them, and carrying them on every Enter was 12 of a
     * target region's 18 attributes (docs/variables.md, docs/performance.md "Issue 18: ... (tenth round)"). */
    int repeated = ot_map_repeats_same(previous, s[0], s[1], s[3]);
    if (!repeated) {
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_VARIABLE, s[0]);
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MAP_TYPE, s[1]);
        ot_map_repeats_keep(previous, s[0], s[1], s[3]);
    }
    if (op->implicit != OFFTRACE_MAP_IMPLICIT_USUAL)
        OTF2_AttributeList_AddUint8(a, OFFTRACE_MAP_ATTR_IMPLICIT, (uint8_t)op->implicit);
    if (op->member_of)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MEMBER_OF, s[2]);
    if (!repeated)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MAP_SITE, s[3]);
    if (op->entry != entry_usual)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_MAP_ENTRY, s[4]);
    if (op->problem)
        OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_NAME_PROBLEM, s[5]);
}

void ot_map_add_variable(converter *c, OTF2_AttributeList *a, const ot_map_op *op)
{
    const named_op *n = op->memo ? &c->maps->named_ops[op->memo - 1] : NULL;
    OTF2_AttributeList_AddStringRef(a, OFFTRACE_MAP_ATTR_VARIABLE,
                                    n && n->strings_known ? n->strings[0] : ot_tw_string(c->tw, op->variable));
}

static void set_number(converter *c, const char *key, uint64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    ot_tw_property(c->tw, key, text);
}

void ot_map_names_properties(converter *c)
{
    ot_map_sites *m = c->maps;
    if (!m)
        return;
    set_number(c, "MAP_NAMED_OPERATIONS", m->named);
    set_number(c, "MAP_OPERATIONS_WITHOUT_DEBUG_INFO", m->without_debug_info);
    set_number(c, "MAP_OPERATIONS_WITHOUT_ENTRY", m->unmatched);
    set_number(c, "MAP_OPERATIONS_NOT_CAPTURED", m->not_captured);
    if (m->damaged_lines)
        set_number(c, "MAP_SITES_DAMAGED", m->damaged_lines);
}

/*
 * Variable names (issue 15): tests/support/map_names.c recorded with the
 * map capture, its archive read back with OTF2's reader. Every data
 * operation of a construct carries the variable as the program wrote it,
 * the map type, implicit or not, and the construct's line, compared with
 * what the program declares (it prints each construct's line); without -g
 * the names are unknown, the types and sites stay, and the summary says
 * once how to get them; broken names passed to libomptarget by hand are
 * marked, never a crash; transfers still count as the runtime counts them.
 * The map attributes are on the data op's Enter; its put/get, issued inside
 * that Enter on the same location, carries the variable alone (issue 18):
 * the test takes the rest of a put/get's map from its enclosing Enter, and
 * checks that placement. An Enter leaves the variable, map type and site out
 * where they are those of the previous Enter of its region on its location
 * (tenth round): the test takes them from there, and checks that none is
 * carried again.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/otf2_time_order.h"
#include "check/run.h"
#include "check/runtime_counts.h"
#include "offtrace/event_catalogue.h"

#define MAX_DEFS 1024
#define MAX_LOCS 64
#define MAX_OPS 2048

typedef struct op_seen {
    char kind[16];       /* h2d, d2h (from the RMA event) or the region's first word */
    int rma;             /* 1: an RMA put/get, 0: the Enter of the data op's region */
    uint64_t bytes;      /* RMA only */
    char variable[1200], map_type[64], site[128], entry[32], problem[96], member_of[128];
    int implicit;
} op_seen;

typedef struct reading {
    char *strings[MAX_DEFS];
    OTF2_StringRef region_name[MAX_DEFS];
    uint64_t locs[MAX_LOCS];
    size_t nlocs;
    op_seen ops[MAX_OPS];
    size_t nops;
    unsigned plain_data_ops; /* data op regions without the map attributes */
    /* per location: regions open, and the named data op open at depth open_op_depth (ops index + 1, 0: none) */
    unsigned depth[MAX_LOCS], open_op_depth[MAX_LOCS];
    size_t open_op[MAX_LOCS];
    unsigned rma_extra;    /* puts/gets carrying a map attribute other than the variable */
    unsigned rma_orphans;  /* named puts/gets not inside a named data op's Enter */
    unsigned rma_mismatch; /* named puts/gets of another variable than their data op */
    unsigned enter_without_site; /* named Enters without map type or site */
    unsigned usual_written;      /* named Enters carrying implicit or map entry at its usual value */
    unsigned repeat_written;     /* named Enters carrying the variable, map type and site of the previous Enter of
                                    their region on their location */
    unsigned repeat_left_out;    /* named Enters leaving them out (docs/variables.md "The attributes") */
    size_t last_op[MAX_LOCS][MAX_DEFS]; /* per location and region: ops index + 1 of its last Enter that carried
                                            them, 0: none */
} reading;

static const char *str(reading *s, OTF2_StringRef r) { return r < MAX_DEFS && s->strings[r] ? s->strings[r] : "?"; }

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *text)
{
    reading *s = u;
    if (self < MAX_DEFS)
        s->strings[self] = strdup(text);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                  OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
    reading *s = u;
    if (self < MAX_DEFS)
        s->region_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t events, OTF2_LocationGroupRef group)
{
    reading *s = u;
    if (s->nlocs < MAX_LOCS)
        s->locs[s->nlocs++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static void copy_string(reading *s, OTF2_AttributeList *a, OTF2_AttributeRef ref, char *out, size_t size)
{
    OTF2_StringRef v;
    if (OTF2_AttributeList_TestAttributeByID(a, ref) && OTF2_AttributeList_GetStringRef(a, ref, &v) == OTF2_SUCCESS)
        snprintf(out, size, "%s", str(s, v));
}

static size_t location_index(const reading *s, OTF2_LocationRef l)
{
    for (size_t i = 0; i < s->nlocs; i++)
        if (s->locs[i] == l)
            return i;
    cr_assert_fail("an event on location %llu, which the definitions do not have", (unsigned long long)l);
    return 0;
}

/* A put/get carries the variable alone: the rest of its map is its enclosing data op's Enter's. */
static void map_of_enclosing_op(reading *s, size_t loc, OTF2_AttributeList *a, op_seen *o)
{
    for (OTF2_AttributeRef ref = OFFTRACE_MAP_ATTRIBUTE_FIRST;
         ref < OFFTRACE_MAP_ATTRIBUTE_FIRST + OFFTRACE_MAP_ATTRIBUTE_COUNT; ref++)
        s->rma_extra += ref != OFFTRACE_MAP_ATTR_VARIABLE && OTF2_AttributeList_TestAttributeByID(a, ref);
    if (!s->open_op[loc] || s->open_op_depth[loc] != s->depth[loc]) {
        s->rma_orphans++;
        return;
    }
    const op_seen *e = &s->ops[s->open_op[loc] - 1];
    s->rma_mismatch += strcmp(e->variable, o->variable) != 0;
    memcpy(o->map_type, e->map_type, sizeof o->map_type);
    memcpy(o->site, e->site, sizeof o->site);
    memcpy(o->entry, e->entry, sizeof o->entry);
    memcpy(o->problem, e->problem, sizeof o->problem);
    memcpy(o->member_of, e->member_of, sizeof o->member_of);
    o->implicit = e->implicit;
}

/* 1 when the list carries the map attributes (a put/get: the variable), or is of an Enter of region \p region
 * (UINT32_MAX: a put/get) that leaves them out where the previous Enter of its region on its location carried
 * them: the op is kept. */
static int take_op(reading *s, size_t loc, OTF2_RegionRef region, OTF2_AttributeList *a, const char *kind, int rma,
                   uint64_t bytes)
{
    OTF2_StringRef v;
    size_t *last = !rma && region < MAX_DEFS ? &s->last_op[loc][region] : NULL;
    int carried = a && OTF2_AttributeList_TestAttributeByID(a, OFFTRACE_MAP_ATTR_VARIABLE) &&
                  OTF2_AttributeList_GetStringRef(a, OFFTRACE_MAP_ATTR_VARIABLE, &v) == OTF2_SUCCESS;
    if (!carried && (!last || !*last))
        return 0;
    cr_assert_lt(s->nops, MAX_OPS);
    op_seen *o = &s->ops[s->nops++];
    memset(o, 0, sizeof *o);
    snprintf(o->kind, sizeof o->kind, "%s", kind);
    o->rma = rma;
    o->bytes = bytes;
    copy_string(s, a, OFFTRACE_MAP_ATTR_VARIABLE, o->variable, sizeof o->variable);
    if (rma) {
        map_of_enclosing_op(s, loc, a, o);
        return 1;
    }
    if (!carried) { /* the three of its region's previous Enter on the location */
        const op_seen *before = &s->ops[*last - 1];
        memcpy(o->variable, before->variable, sizeof o->variable);
        memcpy(o->map_type, before->map_type, sizeof o->map_type);
        memcpy(o->site, before->site, sizeof o->site);
        s->repeat_left_out++;
        s->enter_without_site += OTF2_AttributeList_TestAttributeByID(a, OFFTRACE_MAP_ATTR_MAP_TYPE) ||
                                 OTF2_AttributeList_TestAttributeByID(a, OFFTRACE_MAP_ATTR_MAP_SITE);
    } else {
        s->enter_without_site += !OTF2_AttributeList_TestAttributeByID(a, OFFTRACE_MAP_ATTR_MAP_TYPE) ||
                                 !OTF2_AttributeList_TestAttributeByID(a, OFFTRACE_MAP_ATTR_MAP_SITE);
        copy_string(s, a, OFFTRACE_MAP_ATTR_MAP_TYPE, o->map_type, sizeof o->map_type);
        copy_string(s, a, OFFTRACE_MAP_ATTR_MAP_SITE, o->site, sizeof o->site);
        const op_seen *before = last && *last ? &s->ops[*last - 1] : NULL;
        s->repeat_written += before && !strcmp(before->variable, o->variable) &&
                             !strcmp(before->map_type, o->map_type) && !strcmp(before->site, o->site);
        if (last)
            *last = s->nops;
    }
    copy_string(s, a, OFFTRACE_MAP_ATTR_MAP_ENTRY, o->entry, sizeof o->entry);
    copy_string(s, a, OFFTRACE_MAP_ATTR_NAME_PROBLEM, o->problem, sizeof o->problem);
    copy_string(s, a, OFFTRACE_MAP_ATTR_MEMBER_OF, o->member_of, sizeof o->member_of);
    uint8_t implicit = OFFTRACE_MAP_IMPLICIT_USUAL;
    int has_implicit = OTF2_AttributeList_TestAttributeByID(a, OFFTRACE_MAP_ATTR_IMPLICIT);
    if (has_implicit)
        OTF2_AttributeList_GetUint8(a, OFFTRACE_MAP_ATTR_IMPLICIT, &implicit);
    o->implicit = implicit;
    /* Implicit and map entry are left out at their usual values (event_catalogue.h): one carried at that
     * value is misplaced, one absent is that value -- which the program's own maps check below. */
    s->usual_written += (has_implicit && implicit == OFFTRACE_MAP_IMPLICIT_USUAL) ||
                        !strcmp(o->entry, OFFTRACE_MAP_ENTRY_USUAL);
    if (!o->entry[0])
        snprintf(o->entry, sizeof o->entry, "%s", OFFTRACE_MAP_ENTRY_USUAL);
    return 1;
}

static OTF2_CallbackCode e_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    const char *name = r < MAX_DEFS ? str(s, s->region_name[r]) : "?";
    char kind[16];
    snprintf(kind, sizeof kind, "%.*s", (int)strcspn(name, " "), name);
    size_t loc = location_index(s, l);
    s->depth[loc]++;
    if (take_op(s, loc, r, a, kind, 0, 0)) {
        s->open_op[loc] = s->nops;
        s->open_op_depth[loc] = s->depth[loc];
    } else if (!strncmp(name, "data op ", 8))
        s->plain_data_ops++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                 OTF2_RegionRef r)
{
    reading *s = u;
    size_t loc = location_index(s, l);
    if (s->open_op[loc] && s->open_op_depth[loc] == s->depth[loc])
        s->open_op[loc] = 0;
    cr_assert_gt(s->depth[loc], 0);
    s->depth[loc]--;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_put(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matching)
{
    take_op(u, location_index(u, l), UINT32_MAX, a, "h2d", 1, bytes);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_get(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matching)
{
    take_op(u, location_index(u, l), UINT32_MAX, a, "d2h", 1, bytes);
    return OTF2_CALLBACK_SUCCESS;
}

static void set_definitions(OTF2_GlobalDefReaderCallbacks *cb)
{
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, d_location);
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(cb, e_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(cb, e_get);
}

static size_t location_count(void *u) { return ((reading *)u)->nlocs; }
static uint64_t location_id(void *u, size_t i) { return ((reading *)u)->locs[i]; }

static reading *read_archive(const char *dir)
{
    reading *s = calloc(1, sizeof *s);
    cr_assert_not_null(s);
    otf2_time_ordered_read how = {.definitions = set_definitions, .events = set_events,
                                  .location_count = location_count, .location_id = location_id, .user = s};
    cr_assert_eq(otf2_read_in_time_order(dir, &how), 0, "cannot read %s", dir);
    /* the placement: everything on the Enter, the variable alone on its put/get */
    cr_expect_eq(s->enter_without_site, 0, "a named data op's Enter without its map type or site");
    cr_expect_eq(s->usual_written, 0, "a named data op's Enter carrying implicit 0 or map entry `entry`");
    cr_expect_eq(s->repeat_written, 0,
                 "a named data op's Enter carrying the variable, map type and site of its region's previous one");
    cr_expect_eq(s->rma_extra, 0, "a put/get carries more than its variable");
    cr_expect_eq(s->rma_orphans, 0, "a named put/get outside its named data op");
    cr_expect_eq(s->rma_mismatch, 0, "a put/get names another variable than its data op");
    return s;
}

static void free_reading(reading *s)
{
    for (size_t i = 0; i < MAX_DEFS; i++)
        free(s->strings[i]);
    free(s);
}

/* Ops of this kind, variable, type (NULL: any) and construct line, as Enter
 * (rma 0) or RMA (rma 1) events; bytes summed into *bytes when not NULL. */
static unsigned count_ops(const reading *s, int rma, const char *kind, const char *variable, const char *type,
                          int implicit, unsigned line, uint64_t *bytes)
{
    char site[64];
    snprintf(site, sizeof site, "map_names.c:%u", line);
    unsigned n = 0;
    for (size_t i = 0; i < s->nops; i++) {
        const op_seen *o = &s->ops[i];
        if (o->rma != rma || strcmp(o->kind, kind) || strcmp(o->variable, variable) ||
            (type && strcmp(o->map_type, type)) || o->implicit != implicit || strcmp(o->site, site))
            continue;
        n++;
        if (bytes)
            *bytes += o->bytes;
    }
    return n;
}

static void dump(const reading *s)
{
    for (size_t i = 0; i < s->nops; i++)
        cr_log_info("%s %s %s (%s%s) @%s [%s] %s", s->ops[i].rma ? "rma" : "enter", s->ops[i].kind,
                    s->ops[i].variable, s->ops[i].map_type, s->ops[i].implicit ? ", implicit" : "", s->ops[i].site,
                    s->ops[i].entry, s->ops[i].problem);
}

/* The constructs' lines as the program prints them ("LINE <what> <line>"). */
typedef struct lines {
    unsigned enter, target, update, mapper, member, implicit, nowait, nowait_update, exit, zero, device1, api;
} lines;

static lines program_lines(const char *program)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *argv[] = {path, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", program, r.err);
    lines l = {0};
    struct {
        const char *what;
        unsigned *line;
    } want[] = {{"enter", &l.enter},       {"target", &l.target},   {"update", &l.update},
                {"mapper", &l.mapper},     {"member", &l.member},   {"implicit", &l.implicit},
                {"nowait", &l.nowait},     {"nowait_update", &l.nowait_update},
                {"exit", &l.exit},         {"zero", &l.zero},       {"device1", &l.device1},
                {"api", &l.api}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char key[64];
        snprintf(key, sizeof key, "LINE %s ", want[i].what);
        const char *at = strstr(r.out, key);
        cr_assert_not_null(at, "%s printed no %s", program, key);
        *want[i].line = (unsigned)strtoul(at + strlen(key), NULL, 10);
    }
    run_free(&r);
    return l;
}

static void record(const char *name, const char *option, const char *program, char *dir, size_t size, char **err)
{
    scratch_path(dir, (unsigned)size, name);
    cr_assert_eq(record_program(dir, option, NULL, program, NULL, err), 0, "%s", err && *err ? *err : "");
    char *msg = NULL;
    cr_expect_eq(otf2_print_check(dir, &msg), 0, "%s", msg ? msg : "");
    free(msg);
}

/* What map_names.c declares, construct by construct. */
static void expect_named(const reading *s, const lines *l)
{
    uint64_t bytes = 0;
    /* target enter data map(to: x[0:N]) map(alloc: y[0:N]) */
    cr_expect_eq(count_ops(s, 0, "alloc", "x[0:1024]", "to", 0, l->enter, NULL), 1);
    cr_expect_eq(count_ops(s, 0, "h2d", "x[0:1024]", "to", 0, l->enter, NULL), 1);
    cr_expect_eq(count_ops(s, 1, "h2d", "x[0:1024]", "to", 0, l->enter, &bytes), 1);
    cr_expect_eq(bytes, 8192);
    cr_expect_eq(count_ops(s, 0, "alloc", "y[0:1024]", "alloc", 0, l->enter, NULL), 1);
    /* target map(present, to: x) map(always, from: y) map(tofrom: sum); alpha firstprivate: no data op */
    cr_expect_eq(count_ops(s, 0, "alloc", "sum", "tofrom", 0, l->target, NULL), 1);
    cr_expect_eq(count_ops(s, 0, "h2d", "sum", "tofrom", 0, l->target, NULL), 1);
    cr_expect_eq(count_ops(s, 0, "d2h", "sum", "tofrom", 0, l->target, NULL), 1);
    cr_expect_eq(count_ops(s, 0, "delete", "sum", "tofrom", 0, l->target, NULL), 1);
    bytes = 0;
    cr_expect_eq(count_ops(s, 1, "d2h", "y[0:1024]", "always,from", 0, l->target, &bytes), 1);
    cr_expect_eq(bytes, 8192);
    cr_expect_eq(count_ops(s, 0, "h2d", "x[0:1024]", NULL, 0, l->target, NULL), 0, "present: nothing moves");
    cr_expect_eq(count_ops(s, 0, "h2d", "alpha", NULL, 1, l->target, NULL), 0);
    /* target update from(y[0:N / 2]): the expression as written, macro expanded */
    bytes = 0;
    cr_expect_eq(count_ops(s, 1, "d2h", "y[0:1024 / 2]", "from", 0, l->update, &bytes), 1);
    cr_expect_eq(bytes, 4096);
    /* target map(tofrom: s) through declare mapper(struct vec v) map(v, v.data[0:v.len]) */
    cr_expect_eq(count_ops(s, 0, "alloc", "s", "tofrom", 0, l->mapper, NULL), 1);
    cr_expect_eq(count_ops(s, 0, "alloc", "v.data[0:v.len]", "tofrom", 0, l->mapper, NULL), 1);
    bytes = 0;
    cr_expect_eq(count_ops(s, 1, "h2d", "v.data[0:v.len]", "tofrom", 0, l->mapper, &bytes), 2,
                 "the pointee and the pointer fix-up");
    cr_expect_eq(bytes, 128 + 8);
    unsigned fixups = 0, components = 0, entries = 0;
    for (size_t i = 0; i < s->nops; i++) {
        fixups += !s->ops[i].rma && !strcmp(s->ops[i].entry, "pointer fix-up");
        components += !s->ops[i].rma && !strcmp(s->ops[i].entry, "mapper component");
        entries += !s->ops[i].rma && !strcmp(s->ops[i].variable, "y[0:1024]") && !strcmp(s->ops[i].entry, "entry");
    }
    cr_expect_geq(entries, 2, "y's own entry (its map entry left out at its usual value)");
    cr_expect_eq(fixups, 2, "v.data (mapper) and p.pos (member)");
    cr_expect_geq(components, 4); /* v.data: alloc, h2d, d2h, delete */
    /* target map(tofrom: p, p.pos[0:16]): a struct and its member, the member's parent named */
    cr_expect_eq(count_ops(s, 0, "alloc", "p", "tofrom", 0, l->member, NULL), 1);
    bytes = 0;
    cr_expect_eq(count_ops(s, 1, "h2d", "p.pos[0:16]", "tofrom", 0, l->member, &bytes), 2, "pointee and fix-up");
    cr_expect_eq(bytes, 128 + 8);
    unsigned members = 0;
    for (size_t i = 0; i < s->nops; i++)
        members += !strcmp(s->ops[i].variable, "p.pos[0:16]") && !strcmp(s->ops[i].member_of, "p");
    cr_expect_geq(members, 6, "alloc, h2d, fix-up, d2h, delete of p.pos[0:16] say they are p's");
    /* table[] used without a map clause: tofrom, implicit */
    bytes = 0;
    cr_expect_eq(count_ops(s, 1, "h2d", "table", "tofrom", 1, l->implicit, &bytes), 1);
    cr_expect_eq(bytes, 64 * sizeof(double));
    cr_expect_eq(count_ops(s, 1, "d2h", "table", "tofrom", 1, l->implicit, NULL), 1);
    /* target map(tofrom: w[0:N]) nowait: on a helper thread, named the same */
    cr_expect_eq(count_ops(s, 1, "h2d", "w[0:1024]", "tofrom", 0, l->nowait, NULL), 1);
    cr_expect_eq(count_ops(s, 1, "d2h", "w[0:1024]", "tofrom", 0, l->nowait, NULL), 1);
    /* target update to(y[0:64]) nowait: a target task calling the _nowait_mapper entry point */
    bytes = 0;
    cr_expect_eq(count_ops(s, 1, "h2d", "y[0:64]", "to", 0, l->nowait_update, &bytes), 1);
    cr_expect_eq(bytes, 512);
    /* target exit data map(release: x) map(delete: y): deletes named from their allocation */
    cr_expect_eq(count_ops(s, 0, "delete", "x[0:1024]", "release", 0, l->exit, NULL), 1);
    cr_expect_eq(count_ops(s, 0, "delete", "y[0:1024]", "delete", 0, l->exit, NULL), 1);
    /* a zero-length section moves nothing and names nothing wrong */
    cr_expect_eq(count_ops(s, 0, "h2d", "x[0:0]", NULL, 0, l->zero, NULL), 0);
    /* device(1) */
    bytes = 0;
    cr_expect_eq(count_ops(s, 1, "h2d", "y[0:64]", "tofrom", 0, l->device1, &bytes), 1);
    cr_expect_eq(bytes, 512);
    /* the memory API has no map clause: no names, its own region with the line */
    for (size_t i = 0; i < s->nops; i++)
        cr_expect(strstr(s->ops[i].site, "map_names.c:") != NULL, "a named op without the construct's line: %s",
                  s->ops[i].site);
    cr_expect_eq(s->plain_data_ops, 3, "omp_target_alloc, _memcpy and _free: their data ops stay unnamed");
}

Test(map_names, every_data_op_names_its_variable_type_and_line)
{
    lines l = program_lines("map_names");
    char dir[512], *err = NULL;
    record("map-names", NULL, "map_names", dir, sizeof dir, &err);
    cr_expect(!strstr(err, "offtrace: variables"), "a hint although every name is there:\n%s", err);
    free(err);
    reading *s = read_archive(dir);
    dump(s);
    expect_named(s, &l);
    for (size_t i = 0; i < s->nops; i++)
        cr_expect_eq(s->ops[i].problem[0], '\0', "%s: %s", s->ops[i].variable, s->ops[i].problem);
    free_reading(s);
}

Test(map_names, host_only_names_them_too)
{
    lines l = program_lines("map_names");
    char dir[512];
    record("map-names-host-only", "--host-only", "map_names", dir, sizeof dir, NULL);
    reading *s = read_archive(dir);
    expect_named(s, &l);
    free_reading(s);
}

/* Counts and bytes of transfers equal the runtime's (an independent OMPT
 * counter): the capture changes names, never what is counted. */
Test(map_names, transfers_still_count_as_the_runtime_counts)
{
    runtime_counts rt;
    cr_assert_eq(runtime_counts_of_run("map_names", NULL, &rt), 0, "%s", rt.problem);
    char dir[512];
    record("map-names-counts", NULL, "map_names", dir, sizeof dir, NULL);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_expect_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_expect_geq(f.named_transfers, 10, "the map placement was checked on the named transfers");
    cr_expect_eq(f.puts, rt.h2d);
    cr_expect_eq(f.put_bytes, rt.h2d_bytes);
    cr_expect_eq(f.gets, rt.d2h);
    cr_expect_eq(f.get_bytes, rt.d2h_bytes);
    cr_expect_eq(f.target, rt.target);
    cr_expect_eq(f.kernels, rt.kernels);
}

/* Without -g: the same operations, types and constructs; every name
 * unknown, marked why; one hint in the summary. */
Test(map_names, without_debug_info_types_stay_and_names_are_unknown)
{
    char dir[512], *err = NULL;
    record("map-names-nog", NULL, "map_names_nog", dir, sizeof dir, &err);
    unsigned hints = 0;
    for (const char *p = err; (p = strstr(p, "offtrace: variables")); p++)
        hints++;
    cr_expect_eq(hints, 1, "%s", err);
    cr_expect(strstr(err, "-gline-tables-only") != NULL, "%s", err);
    free(err);
    reading *nog = read_archive(dir);
    char dir_g[512];
    record("map-names-g", NULL, "map_names", dir_g, sizeof dir_g, NULL);
    reading *g = read_archive(dir_g);
    cr_assert_gt(nog->nops, 0);
    cr_expect_eq(nog->nops, g->nops);
    for (size_t i = 0; i < nog->nops && i < g->nops; i++) {
        cr_expect_str_eq(nog->ops[i].variable, "unknown");
        cr_expect(strstr(nog->ops[i].problem, "debug info") != NULL, "%s", nog->ops[i].problem);
        cr_expect_str_eq(nog->ops[i].kind, g->ops[i].kind);
        cr_expect_eq(nog->ops[i].implicit, g->ops[i].implicit);
        cr_expect_eq(nog->ops[i].bytes, g->ops[i].bytes);
        if (strcmp(g->ops[i].kind, "delete")) /* a delete's type comes from its name */
            cr_expect_str_eq(nog->ops[i].map_type, g->ops[i].map_type, "op %zu (%s)", i, g->ops[i].variable);
    }
    free_reading(nog);
    free_reading(g);
}

Test(map_names, no_capture_leaves_the_old_names_and_says_how)
{
    char dir[512], *err = NULL;
    record("map-names-no-capture", "--no-capture", "map_names", dir, sizeof dir, &err);
    cr_expect(strstr(err, "offtrace: variables        not captured") != NULL, "%s", err);
    free(err);
    reading *s = read_archive(dir);
    cr_expect_eq(s->nops, 0);
    cr_expect_gt(s->plain_data_ops, 10);
    free_reading(s);
}

/* Names malformed, cut by the recorder's bound, empty, absent; a mapper that
 * maps nothing; a zero-length entry: marked, and the program unharmed. */
Test(map_names, broken_names_are_marked_not_a_crash)
{
    char dir[512], *err = NULL;
    record("map-bad-names", NULL, "map_bad_names", dir, sizeof dir, &err);
    cr_expect(!strstr(err, "PARTIAL"), "%s", err);
    free(err);
    reading *s = read_archive(dir);
    dump(s);
    unsigned good = 0, malformed = 0, truncated = 0, absent = 0, by_nothing = 0, zero = 0;
    for (size_t i = 0; i < s->nops; i++) {
        const op_seen *o = &s->ops[i];
        good += !strcmp(o->variable, "good[0:16]");
        by_nothing += !strcmp(o->variable, "mapped_by_nothing");
        zero += !strcmp(o->variable, "zero[0:0]");
        if (strcmp(o->variable, "unknown"))
            continue;
        malformed += !strcmp(o->problem, "malformed name string");
        truncated += !strcmp(o->problem, "truncated name string");
        absent += strstr(o->problem, "debug info") != NULL;
    }
    cr_expect_eq(good, 6, "alloc, h2d (enter and RMA), d2h (enter and RMA), delete");
    cr_expect_eq(malformed, 12, "two entries (no leading ';', an empty expression), 6 events each");
    cr_expect_eq(truncated, 6);
    cr_expect_eq(absent, 6);
    cr_expect_eq(by_nothing, 0, "the empty mapper maps nothing");
    cr_expect_eq(zero, 0);
    free_reading(s);
}

/* raw/map-sites.defs damaged after the fact (a cut write, garbage, absurd
 * ids, counts and lengths): the conversion keeps the sites before the
 * damage, names the rest unknown, and the archive stays valid. */
Test(map_names, a_damaged_sites_file_converts)
{
    char dir[512];
    scratch_path(dir, sizeof dir, "map-names-damaged-defs");
    char *env[] = {"OFFTRACE_KEEP_RAW=1", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, env, "map_names", NULL, &err), 0, "%s", err ? err : "");
    free(err);
    char path[600];
    snprintf(path, sizeof path, "%s/raw/map-sites.defs", dir);
    size_t len = 0;
    char *defs = read_whole_file(path, &len);
    cr_assert_not_null(defs);
    cr_assert_gt(len, 100);
    const char *damage[] = {
        NULL,                                       /* cut in the middle of the second line */
        "1 2 -5 x\n",                               /* a negative length */
        "4294967296 1 3 abc 1 2 ;a;\n",             /* an id past the bound */
        "1 99999999 3 abc\n",                       /* an entry count past the bound */
        "1 1 3 abc 1 999999 ;a\n",                  /* a name longer than the file */
        "1 1 3 abc zz 3 ;a;\n",                     /* a type that is no number */
        "\n\n\n",                                   /* empty lines */
        "2 1 3 abc 1 4 ;\n;;\n1 0 -1 \n",           /* a newline inside a name; a site without entries */
    };
    for (size_t k = 0; k < sizeof damage / sizeof damage[0]; k++) {
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        if (damage[k])
            fputs(damage[k], f);
        else
            fwrite(defs, 1, (size_t)(strchr(defs, '\n') - defs) + 20, f);
        fclose(f);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "rm -rf '%s/traces' '%s/traces.otf2' '%s/traces.def'", dir, dir, dir);
        cr_assert_eq(system(cmd), 0);
        run_result r;
        cr_assert_eq(run_offtrace(&r, "convert", "--keep-raw", dir, NULL), 0);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "damage %zu: %s", k, r.err);
        run_free(&r);
        char *msg = NULL;
        cr_expect_eq(otf2_print_check(dir, &msg), 0, "damage %zu: %s", k, msg ? msg : "");
        free(msg);
        reading *s = read_archive(dir);
        cr_expect_gt(s->nops, 0, "damage %zu: the data ops keep their map attributes", k);
        unsigned first_site = 0;
        for (size_t i = 0; i < s->nops; i++)
            first_site += !strcmp(s->ops[i].variable, "x[0:1024]") && !strcmp(s->ops[i].map_type, "to");
        if (!damage[k])
            cr_expect_gt(first_site, 0, "the site before the cut keeps its names");
        free_reading(s);
    }
    free(defs);
}

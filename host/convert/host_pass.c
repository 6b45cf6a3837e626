/**
 * \file host_pass.c
 * \brief Convert one host thread's records: its Enter/Leave and RMA events
 *        go straight to its location; kernels, transfers and memory changes
 *        go to the device timelines.
 *
 * A `target data` construct reaches OMPT as an enter-data and a later
 * exit-data construct. Both are shown as one "target data" region around
 * them, read in one pass (no pre-pass: a live conversion writes the Enter
 * before the program has reached the exit, convert_live.c): the region is
 * entered at every enter-data, named after the enter-data's site; an
 * exit-data on the same thread, for the same device, ends the innermost
 * such region still open when it is the thread's innermost open item
 * (last in, first out), and the first exit met gives the region its end
 * line. The exit may be in another function: an init/finalize pair of
 * `enter data` and `exit data` is a data region as much as a structured
 * `target data` is, and its region should end where its data does. An
 * enter-data whose region no exit ends stays open until the thread's end
 * (or the end of a region around it), closed there and counted
 * (DATA_REGIONS_WITHOUT_EXIT).
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "host_mutex.h"
#include "user_pass.h"
#include "mpi_pass.h"
#include "nvtx_pass.h"
#include "host_tasks.h"
#include "openmp_naming.h"
#include "map_names.h" /* issue 15 */
#include "region_memo.h" /* issue 18 */

#define NO_REGION UINT32_MAX
#define EVENT_SPAN 0xFF /* open_item.event of a target data span */

typedef struct open_item {
    uint8_t event, subkind;
    int device;
    uint64_t id, begin, bytes, codeptr, addr;
    OTF2_RegionRef region, outer; /* outer: API wrapper entered before region */
    uint32_t map_site; /* TARGET: its map site (issue 15), 0: none */
} open_item;

/* Two values a kind of Enter leaves out where usual: the location's last such Enter's (written: there was one). */
typedef struct usual_pair {
    uint64_t a, b;
    int written;
} usual_pair;

typedef struct thread_pass {
    converter *c;
    ot_raw_stream *s;
    OTF2_EvtWriter *w;
    OTF2_AttributeList *attributes; /* addresses of a put/get */
    open_item *open; /* grows: constructs nest as deep as the program nests them */
    size_t depth, open_capacity;
    int failed;      /* -ENOMEM when the stack could not grow */
    uint64_t last_time;
    uint64_t marked_lost; /* records lost in gaps that LOST records mark */
    uint64_t off_since;   /* measurement control: when this thread switched recording off */
    int off;              /* an off window opened by this thread is open */
    ot_mutex_thread *mutex; /* host_mutex.c's state of the thread, from its first mutex record */
    ot_raw_cursor cur;    /* the pass's place in the stream: a live pass handed over goes on from it */
    /* The last chunk Enter written on this location (first iteration, iterations): the next one leaves out its
     * iterations when they are the same and its first iteration when it follows on, readers supply them
     * (docs/host-openmp.md "A chunk's iterations"). */
    usual_pair chunk;
    /* The region of this location's last chunk, and its loop's site and schedule: a loop's chunks follow each
     * other on a thread, each asking host_openmp_region for the same region (issue 18, eleventh round: its key
     * and the recent entries' search were a tenth of a chunk's own instructions). region NO_REGION: none yet. */
    struct last_chunk_site {
        uint64_t codeptr;
        OTF2_RegionRef region;
        uint8_t subkind;
    } chunk_site;
    /* The last implicit task Enter written on this location (team size, thread number): the next one leaves out
     * each where it is the same (docs/host-openmp.md "An implicit task's team size and thread number"). */
    usual_pair team;
    /* The last variable, map type and site of each named data op's region on this location: an Enter leaves
     * them out where they repeat, readers supply them (docs/variables.md "The attributes"). */
    ot_map_repeats map_repeats;
} thread_pass;

static int is_enter_data(uint8_t k) { return k == ompt_target_enter_data || k == ompt_target_enter_data_nowait; }
static int is_exit_data(uint8_t k) { return k == ompt_target_exit_data || k == ompt_target_exit_data_nowait; }
static int is_to_device(uint8_t op) { return op == ompt_target_data_transfer_to_device || op == ompt_target_data_transfer_to_device_async; }
static int is_from_device(uint8_t op) { return op == ompt_target_data_transfer_from_device || op == ompt_target_data_transfer_from_device_async; }
static int is_alloc(uint8_t op) { return op == ompt_target_data_alloc || op == ompt_target_data_alloc_async; }
static int is_delete(uint8_t op) { return op == ompt_target_data_delete || op == ompt_target_data_delete_async; }

static void locate(converter *c, uint64_t codeptr, ot_srcloc *loc, char *label, size_t size)
{
    if (ot_symbolizer_lookup(c->sym, codeptr, loc) != 0)
        memset(loc, 0, sizeof *loc);
    ot_srcloc_format(loc, codeptr, label, size);
}

/* Every region below is a function of its recipe's inputs: the first event
 * of a call site names it, the others find it in the memo (region_memo.h),
 * the ones asked for last in the converter's few recent entries first: a
 * compare where the memo hashes (issue 18, seventh round). A memo entry never
 * changes, so a recent one is the memo's answer. The recent entries are 8
 * sets of two, the newest first, indexed by a multiplicative hash: with one
 * entry per index, a parallel region's site and its implicit task took the
 * same one in turn on the primary thread, each a miss and a search of the
 * memo at every region (issue 18, eleventh round). */
static int memo_find(converter *c, uint64_t head, uint64_t a, uint64_t b, OTF2_RegionRef *r)
{
    size_t set = (size_t)(((head ^ a) * 0x9E3779B97F4A7C15ull) >> 61) * 2;
    if (c->memo_recent[set].head == head && c->memo_recent[set].a == a && c->memo_recent[set].b == b) {
        *r = c->memo_recent[set].value;
        return 1;
    }
    if (c->memo_recent[set + 1].head == head && c->memo_recent[set + 1].a == a && c->memo_recent[set + 1].b == b) {
        *r = c->memo_recent[set + 1].value;
        return 1;
    }
    if (!ot_region_memo_find(c->regions, head, a, b, r))
        return 0;
    c->memo_recent[set + 1] = c->memo_recent[set];
    c->memo_recent[set].head = head;
    c->memo_recent[set].a = a;
    c->memo_recent[set].b = b;
    c->memo_recent[set].value = *r;
    return 1;
}

static OTF2_RegionRef memo_keep(converter *c, uint64_t head, uint64_t a, uint64_t b, OTF2_RegionRef r)
{
    if (r != NO_REGION) /* out of memory: asked again next time */
        ot_region_memo_keep(c->regions, head, a, b, r);
    return r;
}

static offtrace_event_class construct_class(uint8_t kind)
{
    switch (kind) {
    case ompt_target: return OFFTRACE_CLASS_TARGET;
    case ompt_target_enter_data: return OFFTRACE_CLASS_ENTER_DATA;
    case ompt_target_exit_data: return OFFTRACE_CLASS_EXIT_DATA;
    case ompt_target_update: return OFFTRACE_CLASS_UPDATE;
    case ompt_target_nowait: return OFFTRACE_CLASS_TARGET_NOWAIT;
    case ompt_target_enter_data_nowait: return OFFTRACE_CLASS_ENTER_DATA_NOWAIT;
    case ompt_target_exit_data_nowait: return OFFTRACE_CLASS_EXIT_DATA_NOWAIT;
    case ompt_target_update_nowait: return OFFTRACE_CLASS_UPDATE_NOWAIT;
    default: return OFFTRACE_CLASS_TARGET_OTHER_KIND;
    }
}

/* A region named "<the class's name> @<site>", with the site's file and line. */
static OTF2_RegionRef sited_region(converter *c, offtrace_event_class cls, uint64_t codeptr)
{
    uint64_t head = ot_region_memo_head(OT_MEMO_SITED, (uint32_t)cls);
    OTF2_RegionRef known;
    if (memo_find(c, head, codeptr, 0, &known))
        return known;
    ot_srcloc loc;
    char label[512], name[640];
    locate(c, codeptr, &loc, label, sizeof label);
    snprintf(name, sizeof name, "%s @%s", offtrace_class(cls)->name, label);
    return memo_keep(c, head, codeptr, 0, ot_tw_region(c->tw, cls, name, loc.file, loc.line, loc.line));
}

static OTF2_RegionRef construct_region(converter *c, uint8_t kind, uint64_t codeptr)
{
    return sited_region(c, construct_class(kind), codeptr);
}

/* A kernel is named after its symbol when the symbolizer finds it. */
static OTF2_RegionRef kernel_region_named(converter *c, uint64_t target_codeptr);

static OTF2_RegionRef kernel_region(converter *c, uint64_t target_codeptr)
{
    uint64_t head = ot_region_memo_head(OT_MEMO_KERNEL, 0);
    OTF2_RegionRef known;
    if (memo_find(c, head, target_codeptr, 0, &known))
        return known;
    return memo_keep(c, head, target_codeptr, 0, kernel_region_named(c, target_codeptr));
}

static OTF2_RegionRef kernel_region_named(converter *c, uint64_t target_codeptr)
{
    ot_srcloc loc;
    char label[512], name[640];
    locate(c, target_codeptr, &loc, label, sizeof label);
    if (loc.kernel) { /* readable name (any length), the raw symbol as canonical name */
        const char *display = loc.kernel_display ? loc.kernel_display : loc.kernel;
        OTF2_RegionRef r = ot_tw_region(c->tw, OFFTRACE_CLASS_KERNEL, display, loc.file, loc.line, loc.line);
        if (r != UINT32_MAX)
            ot_tw_region_canonical(c->tw, r, loc.kernel);
        return r;
    }
    snprintf(name, sizeof name, "%s @%s", offtrace_class(OFFTRACE_CLASS_KERNEL)->name, label);
    return ot_tw_region(c->tw, OFFTRACE_CLASS_KERNEL, name, loc.file, loc.line, loc.line);
}

static offtrace_event_class data_op_class(uint8_t op)
{
    return is_to_device(op) ? OFFTRACE_CLASS_DATA_OP_TO_DEVICE
         : is_from_device(op) ? OFFTRACE_CLASS_DATA_OP_FROM_DEVICE
         : is_alloc(op) ? OFFTRACE_CLASS_DATA_OP_ALLOC
         : is_delete(op) ? OFFTRACE_CLASS_DATA_OP_DELETE
         : op == ompt_target_data_disassociate ? OFFTRACE_CLASS_DATA_OP_DISASSOCIATE
                                               : OFFTRACE_CLASS_DATA_OP_ASSOCIATE;
}

static OTF2_RegionRef plain_region(converter *c, offtrace_event_class cls);

static OTF2_RegionRef data_op_region(converter *c, uint8_t op)
{
    return plain_region(c, data_op_class(op));
}

/* Data operations outside any construct come from the device memory API. */
static OTF2_RegionRef api_region(converter *c, uint8_t op, uint64_t codeptr)
{
    uint64_t head = ot_region_memo_head(OT_MEMO_API_CALL, op);
    OTF2_RegionRef known;
    if (memo_find(c, head, codeptr, 0, &known))
        return known;
    const char *api = is_alloc(op) ? "omp_target_alloc"
                    : is_delete(op) ? "omp_target_free"
                    : (is_to_device(op) || is_from_device(op)) ? "omp_target_memcpy"
                    : "omp_target_associate_ptr";
    ot_srcloc loc;
    char label[512], name[640];
    locate(c, codeptr, &loc, label, sizeof label);
    snprintf(name, sizeof name, "%s @%s", api, label);
    return memo_keep(c, head, codeptr, 0, ot_tw_region(c->tw, OFFTRACE_CLASS_API_CALL, name, loc.file, loc.line, loc.line));
}

static OTF2_RegionRef rdma_region(converter *c, int to_device)
{
    return plain_region(c, to_device ? OFFTRACE_CLASS_TRANSFER_TO_DEVICE : OFFTRACE_CLASS_TRANSFER_FROM_DEVICE);
}

/* A region named by the catalogue alone. */
static OTF2_RegionRef plain_region(converter *c, offtrace_event_class cls)
{
    uint64_t head = ot_region_memo_head(OT_MEMO_PLAIN, (uint32_t)cls);
    OTF2_RegionRef known;
    if (memo_find(c, head, 0, 0, &known))
        return known;
    return memo_keep(c, head, 0, 0, ot_tw_region(c->tw, cls, offtrace_class(cls)->name, NULL, 0, 0));
}

/* offtrace's own regions, and others without a site, are named by the catalogue alone. */
static OTF2_RegionRef measurement_region(converter *c, offtrace_event_class cls)
{
    return plain_region(c, cls);
}

/* ---- data regions: an enter-data's region, ended by its exit-data ---- */

/* "target data @<the enter-data's site>", its lines the enter-data's until
 * an exit ends one of its regions (data_region_ended). */
static OTF2_RegionRef data_region(converter *c, uint64_t enter_codeptr)
{
    return sited_region(c, OFFTRACE_CLASS_TARGET_DATA, enter_codeptr);
}

/* Whether the exit-data construct \p exit ends the data region \p span:
 * the same device (the thread and the nesting are the caller's). */
static int exit_ends(const open_item *span, const open_item *exit)
{
    return span->event == EVENT_SPAN && span->device == exit->device;
}

/* The first exit that ends a region of an enter-data site gives the region
 * its end line (when both sites are in one file); the others leave it. */
static void data_region_ended(converter *c, const open_item *span, uint64_t exit_codeptr)
{
    uint64_t head = ot_region_memo_head(OT_MEMO_TARGET_DATA, 0); /* a site whose region's end line is set */
    OTF2_RegionRef known;
    if (span->region == NO_REGION || memo_find(c, head, span->codeptr, 0, &known))
        return;
    ot_srcloc begin, end;
    char label[512];
    locate(c, exit_codeptr, &end, label, sizeof label);
    locate(c, span->codeptr, &begin, label, sizeof label);
    if (end.file && begin.file && !strcmp(end.file, begin.file))
        ot_tw_region_set_end_line(c->tw, span->region, end.line);
    memo_keep(c, head, span->codeptr, 0, span->region);
}

/* ---- write pass ---- */

static void enter(thread_pass *p, uint64_t t, OTF2_RegionRef r)
{
    if (r == NO_REGION)
        return;
    ot_tw_enter(p->w, NULL, t, r);
    ot_tw_cover(p->c->tw, t);
}

static void leave(thread_pass *p, uint64_t t, OTF2_RegionRef r)
{
    if (r == NO_REGION)
        return;
    ot_tw_leave(p->w, NULL, t, r);
    ot_tw_cover(p->c->tw, t);
}

static open_item *push(thread_pass *p)
{
    if (p->depth == p->open_capacity) {
        size_t grown = p->open_capacity ? p->open_capacity * 2 : 64;
        open_item *more = realloc(p->open, grown * sizeof *more);
        if (!more) {
            p->failed = -ENOMEM;
            return NULL;
        }
        p->open = more;
        p->open_capacity = grown;
    }
    open_item *o = &p->open[p->depth++];
    memset(o, 0, sizeof *o);
    o->region = o->outer = NO_REGION;
    return o;
}

static void close_operation(thread_pass *p, const open_item *o, uint64_t t, const offtrace_raw_record *end);

/* ot_cv_device, the first device (the one of nearly every operation: one device offloads) found without the call
 * (issue 18, eleventh round). */
static inline device_state *device_of(converter *c, int num)
{
    return c->device_count && c->devices[0].num == num ? &c->devices[0] : ot_cv_device(c, num);
}

/* Close an item at time t; `end` is its END record, or NULL when the thread
 * stopped (the program died) before the operation finished. Inline: most
 * items (host OpenMP, plain regions) are a Leave or two and a count; what a
 * target construct, data op or submit does more is close_operation's. */
static inline void close_item(thread_pass *p, const open_item *o, uint64_t t, const offtrace_raw_record *end)
{
    converter *c = p->c;
    if (o->event == EVENT_SPAN) { /* a data region: its exit-data ended it, or nothing did */
        c->data_regions_without_exit += !end;
        leave(p, t, o->region);
        return;
    }
    if (!end)
        c->unfinished++;
    if (o->event == OFFTRACE_RAW_DATA_OP || o->event == OFFTRACE_RAW_SUBMIT || o->event == OFFTRACE_RAW_TARGET)
        close_operation(p, o, t, end);
    leave(p, t, o->region);
    leave(p, t, o->outer);
}

/* close_item of an item its \p end record ended (not NULL: close_item counts an item with none): the items of most records (host OpenMP, plain regions: no
 * device work, no API wrapper around) are one Leave, written here without close_item's call, which the pass
 * cannot inline at its every caller (issue 18, eleventh round: its call was about a third of its cost). */
static inline void close_ended(thread_pass *p, const open_item *o, uint64_t t, const offtrace_raw_record *end)
{
    if (o->outer == NO_REGION && o->event != EVENT_SPAN && o->event != OFFTRACE_RAW_DATA_OP &&
        o->event != OFFTRACE_RAW_SUBMIT && o->event != OFFTRACE_RAW_TARGET)
        leave(p, t, o->region);
    else
        close_item(p, o, t, end);
}

/* A target construct's, data op's or submit's part of its close: its device's transfer, memory or kernel, or
 * the construct's span. */
static void close_operation(thread_pass *p, const open_item *o, uint64_t t, const offtrace_raw_record *end)
{
    converter *c = p->c;
    /* no device (-1: host OpenMP, plain regions, tasks): ot_cv_device finds none, looked for or not */
    device_state *d = o->device >= 0 ? device_of(c, o->device) : NULL;
    if (o->event == OFFTRACE_RAW_DATA_OP) {
        if ((is_to_device(o->subkind) || is_from_device(o->subkind)) && d && d->rdma) {
            /* Same condition as the put/get in on_data_op: no completion without its op. */
            OTF2_EvtWriter_RmaOpCompleteBlocking(p->w, NULL, t, ot_tw_window(c->tw), o->id);
            ot_dt_add_transfer(d->timeline, o->begin, t, rdma_region(c, is_to_device(o->subkind)));
        } else if (is_alloc(o->subkind) && end && d && d->timeline) {
            ot_cv_alloc_remember(c, o->device, end->dst_addr, end->bytes);
            ot_map_alloc_done(c, o->device, end); /* what its delete frees (issue 15) */
            ot_dt_add_memory(d->timeline, t, (int64_t)end->bytes);
        } else if (is_delete(o->subkind) && end && d && d->timeline) {
            uint64_t bytes = ot_cv_alloc_forget(c, o->device, end->src_addr);
            if (bytes)
                ot_dt_add_memory(d->timeline, t, -(int64_t)bytes);
        }
    } else if (o->event == OFFTRACE_RAW_SUBMIT && d && d->timeline) {
        ot_dt_add_kernel(d->timeline, o->begin, t, kernel_region(c, o->codeptr), c->operations_paired ? o->id : 0);
    } else if (o->event == OFFTRACE_RAW_TARGET) {
        ot_target_spans_put(c->spans, o->id, o->begin, t);
    }
}

/* Pop to the item with this event and id, closing anything above it as
 * unfinished; \p r: the record that ends it (not NULL). Returns 0 when found. */
static inline __attribute__((always_inline)) int pop_matching(thread_pass *p, uint8_t event, uint64_t id, uint64_t t,
                                                              const offtrace_raw_record *r)
{
    size_t i = p->depth;
    while (i-- > 0)
        if (p->open[i].event == event && p->open[i].id == id)
            break;
    if (i == (size_t)-1) {
        p->c->unmatched++;
        return -1;
    }
    while (p->depth > i + 1)
        close_item(p, &p->open[--p->depth], t, NULL);
    close_ended(p, &p->open[--p->depth], t, r);
    return 0;
}

static const open_item *find_open(const thread_pass *p, uint8_t event, uint64_t id)
{
    for (size_t i = p->depth; i-- > 0;)
        if (p->open[i].event == event && p->open[i].id == id)
            return &p->open[i];
    return NULL;
}

static void on_target(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    if (r->endpoint == OFFTRACE_RAW_BEGIN) {
        open_item *o;
        if (is_enter_data(r->subkind) && (o = push(p))) { /* its data region, around it */
            o->event = EVENT_SPAN;
            o->id = r->id;
            o->device = r->dst_device;
            o->codeptr = r->codeptr;
            o->region = data_region(p->c, r->codeptr);
            enter(p, t, o->region);
        }
        if ((o = push(p))) {
            o->event = OFFTRACE_RAW_TARGET;
            o->subkind = r->subkind;
            o->id = r->id;
            o->device = r->dst_device;
            o->codeptr = r->codeptr;
            o->begin = t;
            o->map_site = r->flags & OFFTRACE_RAW_FLAG_MAP_ENTRY ? (uint32_t)r->bytes : 0;
            o->region = construct_region(p->c, r->subkind, r->codeptr);
            enter(p, t, o->region);
        }
        return;
    }
    const open_item *begun = find_open(p, OFFTRACE_RAW_TARGET, r->id);
    open_item construct = begun ? *begun : (open_item){0}; /* as its BEGIN said: pop_matching moves the stack */
    if (pop_matching(p, OFFTRACE_RAW_TARGET, r->id, t, r) != 0 || !is_exit_data(construct.subkind) || !p->depth)
        return;
    open_item *span = &p->open[p->depth - 1];
    if (exit_ends(span, &construct)) {
        data_region_ended(p->c, span, construct.codeptr);
        close_item(p, &p->open[--p->depth], t, r);
    }
}

static const open_item *innermost_target(const thread_pass *p);

/* The variable of a data op of a construct the map capture saw (issue 15,
 * map_names.h): its region, named after it, and its attributes. 0: none. */
static int name_data_op(thread_pass *p, const offtrace_raw_record *r, int device, OTF2_RegionRef *region,
                        ot_map_op *op)
{
    if (!(r->flags & OFFTRACE_RAW_FLAG_IN_CONSTRUCT))
        return 0;
    const open_item *target = innermost_target(p);
    OTF2_RegionRef named = ot_map_data_op(p->c, r, device, data_op_class(r->subkind), target ? target->map_site : 0,
                                          target ? target->subkind : 0, target ? target->codeptr : 0, op);
    if (named == UINT32_MAX)
        return 0;
    *region = named;
    return 1;
}

/* The begin of a data op (a BEGIN record or a COMPLETE record's begin) on \p device (ot_cv_op_device's, which the
 * dispatch found to meet it). */
static void open_data_op(thread_pass *p, const offtrace_raw_record *r, uint64_t t, int device)
{
    ot_map_op op;
    OTF2_RegionRef named_region = NO_REGION;
    int named = name_data_op(p, r, device, &named_region, &op); /* before push moves the stack */
    open_item *o = push(p);
    if (!o)
        return;
    o->event = OFFTRACE_RAW_DATA_OP;
    o->subkind = r->subkind;
    o->id = r->id;
    o->device = device;
    o->begin = t;
    o->bytes = r->bytes;
    if (!(r->flags & OFFTRACE_RAW_FLAG_IN_CONSTRUCT))
        o->outer = api_region(p->c, r->subkind, r->codeptr);
    o->region = named ? named_region : data_op_region(p->c, r->subkind);
    enter(p, t, o->outer);
    if (o->region != NO_REGION) {
        if (named) /* the variable on the Enter (issue 15) */
            ot_map_add_attributes(p->c, p->attributes, &op, ot_map_repeats_slot(&p->map_repeats, o->region));
        /* and its operation, which the device's copy it caused carries too (issue 17, device_pass.c) */
        if (p->c->operations_paired)
            OTF2_AttributeList_AddUint64(p->attributes, OFFTRACE_ACTIVITY_ATTR_HOST_OPERATION, r->id);
        ot_tw_enter(p->w, p->attributes, t, o->region);
        ot_tw_cover(p->c->tw, t);
    }
    device_state *d = device_of(p->c, o->device);
    if (!d || !d->rdma || !(is_to_device(r->subkind) || is_from_device(r->subkind)))
        return;
    int to_device = is_to_device(r->subkind);
    /* OTF2 empties the list when the event is written. */
    OTF2_AttributeList_AddUint64(p->attributes, OT_ATTR_HOST_ADDRESS, to_device ? r->src_addr : r->dst_addr);
    OTF2_AttributeList_AddUint64(p->attributes, OT_ATTR_DEVICE_ADDRESS, to_device ? r->dst_addr : r->src_addr);
    /* The put/get says which variable moved (a transfer's line in Vampir shows its own attributes only);
     * the rest is on the Enter just written, where readers take it from (issue 18: each attribute costs
     * OTF2 its writing). Without that Enter (no region), all of them. */
    if (named && o->region != NO_REGION)
        ot_map_add_variable(p->c, p->attributes, &op);
    else if (named)
        ot_map_add_attributes(p->c, p->attributes, &op, NULL);
    if (to_device)
        ot_tw_rma_put(p->w, p->attributes, t, ot_tw_window(p->c->tw), d->rdma_rank, r->bytes, r->id);
    else
        ot_tw_rma_get(p->w, p->attributes, t, ot_tw_window(p->c->tw), d->rdma_rank, r->bytes, r->id);
}

static const open_item *innermost_target(const thread_pass *p)
{
    for (size_t i = p->depth; i-- > 0;)
        if (p->open[i].event == OFFTRACE_RAW_TARGET)
            return &p->open[i];
    return NULL;
}

/* The begin of a submit; a COMPLETE record names no target region (its
 * end_time holds that place), so the thread's innermost open one is taken. */
static void open_submit(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    const open_item *target = r->endpoint == OFFTRACE_RAW_COMPLETE ? innermost_target(p)
                                                                  : find_open(p, OFFTRACE_RAW_TARGET, r->target_id);
    int device = target ? target->device : -1; /* push may move the stack */
    uint64_t codeptr = target ? target->codeptr : 0;
    open_item *o = push(p);
    if (!o)
        return;
    o->event = OFFTRACE_RAW_SUBMIT;
    o->id = r->id;
    o->begin = t;
    o->device = device;
    o->codeptr = codeptr;
}

/* A data op or submit: BEGIN, END, or both from one COMPLETE record; \p device: a data op's (ot_cv_op_device). */
static void on_operation(thread_pass *p, const offtrace_raw_record *r, uint64_t t, int device)
{
    if (r->endpoint == OFFTRACE_RAW_END) {
        pop_matching(p, r->event, r->id, t, r);
        return;
    }
    if (r->event == OFFTRACE_RAW_DATA_OP)
        open_data_op(p, r, t, device);
    else
        open_submit(p, r, t);
    if (r->endpoint != OFFTRACE_RAW_COMPLETE)
        return;
    uint64_t end = ot_cv_to_ns(p->c, r->end_time);
    if (end < t)
        end = t;
    p->last_time = end;
    pop_matching(p, r->event, r->id, end, r);
}

/* The class a source is written as on its host thread when that is all
 * there is to it: a plain region from BEGIN to END (or one COMPLETE
 * record), named after the class and, with a code address, its site. A new
 * kind of that shape needs its catalogue lines and nothing here. */
static offtrace_event_class plain_region_class(offtrace_source source)
{
#define PLAIN_REGION(c, src, name, form, role, paradigm, location, reader, construct, op, nowait, view, export, \
                     report)                                                                                   \
    if (source == OFFTRACE_SOURCE_##src && OFFTRACE_FORM_##form == OFFTRACE_FORM_ENTER_LEAVE &&               \
        OFFTRACE_LOC_##location == OFFTRACE_LOC_HOST_THREAD)                                                  \
        return OFFTRACE_CLASS_##c;
    OFFTRACE_EVENT_CLASSES(PLAIN_REGION)
#undef PLAIN_REGION
    return OFFTRACE_CLASS_NONE;
}

static void on_plain_region(thread_pass *p, const offtrace_raw_record *r, uint64_t t, offtrace_event_class cls)
{
    if (cls == OFFTRACE_CLASS_NONE) { /* a source without its class line (test_catalogue forbids it) */
        p->c->damaged_records++;
        return;
    }
    if (r->endpoint == OFFTRACE_RAW_END) {
        pop_matching(p, r->event, r->id, t, r);
        return;
    }
    open_item *o = push(p);
    if (!o)
        return;
    o->event = r->event;
    o->id = r->id;
    o->device = -1;
    o->region = r->codeptr ? sited_region(p->c, cls, r->codeptr) : measurement_region(p->c, cls);
    enter(p, t, o->region);
    if (r->endpoint != OFFTRACE_RAW_COMPLETE)
        return;
    uint64_t end = ot_cv_to_ns(p->c, r->end_time);
    p->last_time = end = end < t ? t : end;
    pop_matching(p, r->event, r->id, end, r);
}

/* ---- the program's own host OpenMP ---- */

static int is_host_chunk(const open_item *o)
{
    return o->event == OFFTRACE_RAW_OMP_CHUNK;
}

static OTF2_RegionRef host_openmp_region_named(converter *c, const offtrace_raw_record *r, offtrace_event_class cls,
                                               uint64_t head);

/* A work, sync or wait region: the kind refines the name and role. Inline where the memo knows it (its two callers
 * in the pass: the call was 4 % of a host OpenMP pass where the compiler stopped inlining it whole); named the first
 * time by host_openmp_region_named. */
static inline __attribute__((always_inline)) OTF2_RegionRef host_openmp_region(converter *c, const offtrace_raw_record *r,
                                                                         offtrace_event_class cls)
{
    uint64_t head = ot_region_memo_head(OT_MEMO_HOST_OPENMP, (uint32_t)cls << 8 | r->subkind);
    OTF2_RegionRef known;
    if (memo_find(c, head, r->codeptr, 0, &known))
        return known;
    return host_openmp_region_named(c, r, cls, head);
}

static OTF2_RegionRef host_openmp_region_named(converter *c, const offtrace_raw_record *r, offtrace_event_class cls,
                                               uint64_t head)
{
    ot_naming n = cls == OFFTRACE_CLASS_HOST_WORK ? ot_work_naming(r->subkind)
                  : cls == OFFTRACE_CLASS_HOST_CHUNK ? ot_chunk_naming(r->subkind)
                                                      : ot_sync_naming(r->subkind);
    char stem[128], label[512], name[640];
    snprintf(stem, sizeof stem, cls == OFFTRACE_CLASS_HOST_SYNC_WAIT ? "%s (waiting)" : "%s", n.name);
    if (!r->codeptr)
        return memo_keep(c, head, 0, 0, ot_tw_region_with_role(c->tw, cls, n.role, stem, NULL, 0, 0));
    ot_srcloc loc;
    locate(c, r->codeptr, &loc, label, sizeof label);
    snprintf(name, sizeof name, "%s @%s", stem, label);
    return memo_keep(c, head, r->codeptr, 0, ot_tw_region_with_role(c->tw, cls, n.role, name, loc.file, loc.line, loc.line));
}

/* A chunk's region: the thread's last chunk's where it is of the same loop site and schedule
 * (host_openmp_region's answer all the same). */
static inline OTF2_RegionRef chunk_region(thread_pass *p, const offtrace_raw_record *r)
{
    if (p->chunk_site.region != NO_REGION && p->chunk_site.codeptr == r->codeptr &&
        p->chunk_site.subkind == r->subkind)
        return p->chunk_site.region;
    OTF2_RegionRef region = host_openmp_region(p->c, r, OFFTRACE_CLASS_HOST_CHUNK);
    if (region != NO_REGION)
        p->chunk_site = (struct last_chunk_site){r->codeptr, region, r->subkind};
    return region;
}

/* A chunk lasts until the thread's next chunk or the end of the construct
 * it belongs to: that is when the runtime hands the thread more work or
 * says there is none. */
static void close_open_chunk(thread_pass *p, uint64_t t, const offtrace_raw_record *r)
{
    if (p->depth && is_host_chunk(&p->open[p->depth - 1]))
        close_ended(p, &p->open[--p->depth], t, r);
}

/* libomp reports no end of a cancelled dynamic loop: the thread left it
 * when it reached the barrier after it. */
static void end_cancelled_work(thread_pass *p, uint64_t t, const offtrace_raw_record *r)
{
    close_open_chunk(p, t, r);
    if (p->depth && p->open[p->depth - 1].event == OFFTRACE_RAW_OMP_WORK)
        close_item(p, &p->open[--p->depth], t, r);
}

static OTF2_RegionRef teams_region(converter *c, offtrace_event_class cls)
{
    uint64_t head = ot_region_memo_head(OT_MEMO_PLAIN, (uint32_t)cls);
    OTF2_RegionRef known;
    if (memo_find(c, head, 1, 0, &known)) /* 1: named "teams", not after the class */
        return known;
    return memo_keep(c, head, 1, 0, ot_tw_region(c->tw, cls, "teams", NULL, 0, 0));
}

/* An Enter's values \p va and \p vb, each added to its attributes unless it is the usual one (\p usual_a, \p usual_b:
 * what follows from the location's \p last such Enter; issue 18: an attribute costs OTF2 more than the event);
 * kept as the next one's last when the Enter is \p written (it has a region). */
static void add_unusual_pair(thread_pass *p, usual_pair *last, OTF2_AttributeRef ra, uint64_t va, uint64_t usual_a,
                             OTF2_AttributeRef rb, uint64_t vb, uint64_t usual_b, int written)
{
    if (!(last->written && va == usual_a))
        OTF2_AttributeList_AddUint64(p->attributes, ra, va);
    if (!(last->written && vb == usual_b))
        OTF2_AttributeList_AddUint64(p->attributes, rb, vb);
    if (written)
        *last = (usual_pair){va, vb, 1};
}

static void on_host_openmp(thread_pass *p, const offtrace_raw_record *r, uint64_t t, offtrace_event_class cls)
{
    if (r->event == OFFTRACE_RAW_OMP_WORK && r->endpoint == OFFTRACE_RAW_END)
        ot_host_mutex_work_ended(p->mutex);
    else if (r->event == OFFTRACE_RAW_OMP_SYNC && r->endpoint == OFFTRACE_RAW_BEGIN &&
             ot_host_mutex_take_cancelled_work(p->mutex))
        end_cancelled_work(p, t, r);
    if (r->event == OFFTRACE_RAW_OMP_CHUNK || (r->event == OFFTRACE_RAW_OMP_WORK && r->endpoint == OFFTRACE_RAW_END))
        close_open_chunk(p, t, r);
    if (r->endpoint == OFFTRACE_RAW_END) {
        pop_matching(p, r->event, 0, t, r);
        if (r->event == OFFTRACE_RAW_OMP_PARALLEL) { /* covered itself: an end with no begin leaves nothing */
            OTF2_EvtWriter_ThreadJoin(p->w, NULL, t, OTF2_PARADIGM_OPENMP);
            ot_tw_cover(p->c->tw, t);
        }
        return;
    }
    if (r->event == OFFTRACE_RAW_OMP_PARALLEL) {
        OTF2_EvtWriter_ThreadFork(p->w, NULL, t, OTF2_PARADIGM_OPENMP, (uint32_t)r->bytes);
        ot_tw_cover(p->c->tw, t);
    }
    OTF2_RegionRef region;
    if (cls == OFFTRACE_CLASS_HOST_PARALLEL && r->subkind)
        region = teams_region(p->c, cls);
    else if (cls == OFFTRACE_CLASS_HOST_PARALLEL || cls == OFFTRACE_CLASS_HOST_MASKED)
        region = r->codeptr ? sited_region(p->c, cls, r->codeptr) : measurement_region(p->c, cls);
    else if (cls == OFFTRACE_CLASS_HOST_IMPLICIT_TASK)
        region = measurement_region(p->c, cls);
    else if (cls == OFFTRACE_CLASS_HOST_CHUNK)
        region = chunk_region(p, r);
    else
        region = host_openmp_region(p->c, r, cls);
    open_item *o = push(p);
    if (!o)
        return;
    o->event = r->event;
    o->device = -1;
    o->region = region;
    if (cls == OFFTRACE_CLASS_HOST_CHUNK)
        add_unusual_pair(p, &p->chunk, OT_ATTR_FIRST_ITERATION, r->src_addr, p->chunk.a + p->chunk.b,
                         OT_ATTR_ITERATIONS, r->bytes, p->chunk.b, region != NO_REGION);
    else if (cls == OFFTRACE_CLASS_HOST_WORK) /* a loop's trip count, a sections' section count */
        OTF2_AttributeList_AddUint64(p->attributes, OT_ATTR_ITERATIONS, r->bytes);
    else if (cls == OFFTRACE_CLASS_HOST_IMPLICIT_TASK)
        add_unusual_pair(p, &p->team, OT_ATTR_TEAM_SIZE, r->bytes, p->team.a, OT_ATTR_THREAD_NUMBER, r->src_addr,
                         p->team.b, region != NO_REGION);
    if (region != NO_REGION) {
        ot_tw_enter(p->w, p->attributes, t, region);
        ot_tw_cover(p->c->tw, t);
    } else { /* no region (out of memory): its attributes must not ride on the next event written */
        OTF2_AttributeList_RemoveAllAttributes(p->attributes);
    }
}

/* ---- for host_tasks.c (host_tasks.h) ---- */

converter *ot_hp_converter(thread_pass *p)
{
    return p->c;
}

OTF2_AttributeList *ot_hp_attributes(thread_pass *p)
{
    return p->attributes;
}

OTF2_EvtWriter *ot_hp_writer(thread_pass *p)
{
    return p->w;
}

uint32_t ot_hp_thread_index(const thread_pass *p)
{
    return p->s->header.thread_index;
}

void ot_hp_open(thread_pass *p, uint8_t event, uint64_t id, OTF2_RegionRef region, uint64_t t)
{
    open_item *o = push(p);
    if (!o || region == NO_REGION) { /* the attributes were for its Enter */
        OTF2_AttributeList_RemoveAllAttributes(p->attributes);
        if (!o)
            return;
    }
    o->event = event;
    o->id = id;
    o->device = -1;
    o->region = region;
    if (region == NO_REGION)
        return;
    ot_tw_enter(p->w, p->attributes, t, region);
    ot_tw_cover(p->c->tw, t);
}

int ot_hp_where(const thread_pass *p, uint8_t event, uint64_t id)
{
    const open_item *o = find_open(p, event, id);
    return !o ? 0 : o == &p->open[p->depth - 1] ? 1 : 2;
}

void ot_hp_close_innermost(thread_pass *p, uint64_t t)
{
    if (!p->depth)
        return;
    const open_item *o = &p->open[--p->depth];
    if (o->region == NO_REGION) {
        OTF2_AttributeList_RemoveAllAttributes(p->attributes);
        return;
    }
    ot_tw_leave(p->w, p->attributes, t, o->region);
    ot_tw_cover(p->c->tw, t);
}

void ot_hp_mark(thread_pass *p, OTF2_RegionRef region, uint64_t t)
{
    if (region == NO_REGION) {
        OTF2_AttributeList_RemoveAllAttributes(p->attributes);
        return;
    }
    ot_tw_enter(p->w, p->attributes, t, region);
    ot_tw_leave(p->w, NULL, t, region);
    ot_tw_cover(p->c->tw, t);
}

/* ---- lent to host_mutex.c (mutual exclusion) ---- */

converter *ot_cv_pass_converter(thread_pass *p) { return p->c; }
OTF2_EvtWriter *ot_cv_pass_writer(thread_pass *p) { return p->w; }
OTF2_AttributeList *ot_cv_pass_attributes(thread_pass *p) { return p->attributes; }
uint32_t ot_cv_pass_thread(const thread_pass *p) { return p->s->header.thread_index; }
ot_mutex_thread **ot_cv_pass_mutex(thread_pass *p) { return &p->mutex; }
size_t ot_cv_pass_stream_index(const thread_pass *p) { return (size_t)(p->s - p->c->rec.streams); }
uint64_t ot_cv_pass_last_time(const thread_pass *p) { return p->last_time; }
void ot_cv_pass_advance(thread_pass *p, uint64_t t)
{
    if (t > p->last_time)
        p->last_time = t;
}

int ot_cv_pass_open(thread_pass *p, uint8_t event, uint64_t id, OTF2_RegionRef region, uint64_t t)
{
    open_item *o = push(p);
    if (!o || region == NO_REGION) { /* the attributes were for its Enter */
        OTF2_AttributeList_RemoveAllAttributes(p->attributes);
        if (!o)
            return -1;
    }
    o->event = event;
    o->id = id;
    o->device = -1;
    o->region = region;
    if (region != NO_REGION) {
        ot_tw_enter(p->w, p->attributes, t, region);
        ot_tw_cover(p->c->tw, t);
    }
    return 0;
}

int ot_cv_pass_close(thread_pass *p, uint8_t event, uint64_t id, uint64_t t, const offtrace_raw_record *r)
{
    size_t i = p->depth;
    while (i-- > 0)
        if (p->open[i].event == event && p->open[i].id == id)
            break;
    if (i == (size_t)-1) {
        p->c->unmatched++;
        return -1;
    }
    if (i + 1 == p->depth && r) { /* the innermost, as nearly always: nothing to move (issue 18, eleventh round) */
        close_ended(p, &p->open[--p->depth], t, r);
        return 0;
    }
    for (size_t j = p->depth; j-- > i + 1;) { /* out of order: leave what is above, enter it again after */
        leave(p, t, p->open[j].region);
        leave(p, t, p->open[j].outer);
    }
    open_item closed = p->open[i];
    memmove(&p->open[i], &p->open[i + 1], (p->depth - i - 1) * sizeof *p->open);
    p->depth--;
    close_item(p, &closed, t, r);
    for (size_t j = i; j < p->depth; j++) {
        enter(p, t, p->open[j].outer);
        enter(p, t, p->open[j].region);
    }
    return 0;
}

/* Records the thread could not store: a measurement-system region over the
 * gap, so that a reader sees where the trace has a hole. */
static void mark_lost(thread_pass *p, uint64_t from, uint64_t to, unsigned cause)
{
    OTF2_RegionRef region = measurement_region(
        p->c, cause == OFFTRACE_RAW_LOSS_SIZE_LIMIT ? OFFTRACE_CLASS_SIZE_LIMIT : OFFTRACE_CLASS_RECORDS_LOST);
    enter(p, from, region);
    leave(p, to, region);
}

static void on_lost(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    uint64_t end = ot_cv_to_ns(p->c, r->end_time);
    if (end < t)
        end = t;
    mark_lost(p, t, end, r->subkind);
    p->last_time = end;
    p->marked_lost += r->bytes;
}

/* ---- measurement control (issue 14) ----
 *
 * A switch is an OTF2 MeasurementOnOff event on the switching thread's
 * location, and the window it opens an "offtrace: measurement off" region
 * there (as Score-P draws it). Switches are refused inside parallel and
 * target regions, so the window nests in whatever the thread had open. A
 * window closed by another thread ends at that thread's switch on in its
 * MeasurementOnOff, and on the opener's location at its last event. */
static void on_measurement(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    int on = r->endpoint == OFFTRACE_RAW_END;
    OTF2_EvtWriter_MeasurementOnOff(p->w, NULL, t, on ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF);
    ot_tw_cover(p->c->tw, t);
    if (!on) {
        p->c->measurement_off_switches++;
        if (p->off) /* two offs in a row: only damage makes them; the first window stays */
            return;
        p->off = 1;
        p->off_since = t;
        on_plain_region(p, r, t, OFFTRACE_CLASS_MEASUREMENT_OFF);
        return;
    }
    if (!p->off)
        return;
    p->off = 0;
    p->c->measurement_off_ns += t - p->off_since;
    pop_matching(p, r->event, r->id, t, r);
}

/* A window still open at the thread's end (recording ended off) ends there:
 * not an unfinished operation. */
static void end_measurement_window(thread_pass *p)
{
    if (!p->off)
        return;
    offtrace_raw_record end = {.endpoint = OFFTRACE_RAW_END, .subkind = 1, .event = OFFTRACE_RAW_MEASUREMENT};
    p->off = 0;
    p->c->measurement_off_ns += p->last_time - p->off_since;
    pop_matching(p, OFFTRACE_RAW_MEASUREMENT, 0, p->last_time, &end);
}

/* A clock pair keeps its own host time: the per-thread monotonic fix-up
 * above must not bend the device's clock map. A pair whose read took too
 * long is left out: its neighbours bound the map better than it does. */
static void on_sync(thread_pass *p, const offtrace_raw_record *r)
{
    uint64_t width_ns = ot_cv_to_ns(p->c, r->time + r->src_addr) - ot_cv_to_ns(p->c, r->time);
    if (width_ns > OT_CV_SYNC_MAX_WIDTH_NS) { /* the device time lies anywhere in a wide window */
        p->c->sync_points_imprecise++;
        return;
    }
    device_state *d = ot_cv_device(p->c, r->dst_device);
    if (d && !d->sync)
        d->sync = ot_devsync_new();
    if (d && d->sync && ot_devsync_add(d->sync, ot_cv_to_ns(p->c, r->time), r->bytes) == 0)
        p->c->sync_points++;
}

/* Whether a record is one the recorder can write: an event of the
 * catalogue's sources, and an endpoint for the events that have one (SYNC
 * has none). */
static int recorder_writes(const offtrace_raw_record *r)
{
    if (offtrace_raw_source(r->event) == OFFTRACE_SOURCE_NONE)
        return 0;
    return r->event == OFFTRACE_RAW_SYNC || (r->endpoint >= OFFTRACE_RAW_BEGIN && r->endpoint <= OFFTRACE_RAW_COMPLETE);
}

static void thread_name(const offtrace_raw_stream_header *h, char *name, size_t size)
{
    if (h->is_process_main)
        snprintf(name, size, "Master thread");
    else if (h->thread_kind == OFFTRACE_RAW_THREAD_WORKER)
        snprintf(name, size, "OpenMP thread %u (tid %d)", h->thread_index, h->os_tid);
    else
        snprintf(name, size, "thread %u (tid %d)", h->thread_index, h->os_tid);
}

/* The pass's set-up: its location, attribute list and cursor. NULL out of
 * memory (*rc says why). */
static thread_pass *pass_begin(converter *c, ot_raw_stream *s, int *rc_out)
{
    thread_pass *p = calloc(1, sizeof *p);
    *rc_out = -ENOMEM;
    if (!p)
        return NULL;
    p->cur.fd = -1;
    p->chunk_site.region = NO_REGION;
    p->c = c;
    p->s = s;
    char name[128];
    thread_name(&s->header, name, sizeof name);
    ot_nvtx_thread_name(c, s->header.os_tid, name, sizeof name);
    if (c->live) /* what the name took from nvtx.defs, checked at the end (ot_nvtx_defs_live_end) */
        ot_nvtx_thread_name(c, s->header.os_tid, c->nvtx_thread_name_used, sizeof c->nvtx_thread_name_used);
    p->w = ot_tw_add_location(c->tw, s->header.thread_index, name, OFFTRACE_LOC_HOST_THREAD, -1, 1, NULL);
    p->attributes = OTF2_AttributeList_New();
    int rc = p->w && p->attributes ? ot_raw_cursor_open(&p->cur, s) : -ENOMEM;
    if (rc == 0 && c->read_once) /* a task there: the conversion starts again the usual way (convert.c) */
        ot_raw_cursor_stop_at(&p->cur, c->task_kinds);
    *rc_out = rc;
    return p;
}

/* ot_cv_meet_device for a record that names \p device (the catalogue's field of its kind: a TARGET's dst_device, a
 * DATA_OP's ot_cv_op_device), without its call where there is nothing to meet: no device, or the one the last
 * device record met (its own first test; issue 18, eleventh round: the call and its search of the field were
 * 2.3 % of mapA's conversion). */
static inline int meet_device(converter *c, const offtrace_raw_record *r, int device)
{
    if (device < 0 || (int64_t)device == c->last_met_device - 1)
        return 0;
    return ot_cv_meet_device(c, r);
}

/* The records, from where the pass is on: 0 at the stream's end (or
 * where it stopped), OT_CV_HANDED_OVER where its live gate stopped it. */
static int pass_run(thread_pass *p)
{
    converter *c = p->c;
    int rc = 0;
    for (const offtrace_raw_record *r; rc == 0 && !p->failed && (r = ot_raw_cursor_next(&p->cur));) {
        if (!recorder_writes(r)) { /* its time too is garbage: it must not move the thread's clock */
            c->damaged_records++;
            if (c->device_kinds[r->event >> 6] >> (r->event & 63) & 1) /* it names a device all the same */
                p->failed = ot_cv_meet_device(c, r);
            continue;
        }
        uint64_t t = ot_cv_to_ns(c, r->time);
        if (c->nvtx_pending) /* NVTX ranges ended on another thread by now */
            p->last_time = ot_nvtx_settle(p, t, p->last_time);
        if (t < p->last_time) /* never let a clock read make time run back */
            t = p->last_time;
        if (__builtin_expect(p->c->user != NULL, 0)) /* user events it began and another thread ended by now */
            ot_user_close_due(p, t);
        p->last_time = t;
        if (p->mutex)
            ot_host_mutex_settle(p, r);
        offtrace_source source = offtrace_raw_source(r->event);
        /* the kinds whose records name a device (the catalogue: TARGET and DATA_OP, ot_cv_meet_device) meet it
         * first; tested in their branches, not for every record */
        if (source == OFFTRACE_SOURCE_TARGET) {
            if ((p->failed = meet_device(c, r, r->dst_device)) == 0)
                on_target(p, r, t);
        } else if (source == OFFTRACE_SOURCE_DATA_OP || source == OFFTRACE_SOURCE_SUBMIT) {
            /* a data op's found once: to meet it, and for its begin; a submit's is its target's (-1: none to meet) */
            int device = source == OFFTRACE_SOURCE_DATA_OP ? ot_cv_op_device(c, r) : -1;
            if ((p->failed = meet_device(c, r, device)) == 0)
                on_operation(p, r, t, device);
        }
        else if (source == OFFTRACE_SOURCE_SYNC)
            on_sync(p, r);
        else if (source == OFFTRACE_SOURCE_LOST)
            on_lost(p, r, t);
        else if (source >= OFFTRACE_SOURCE_OMP_PARALLEL && source <= OFFTRACE_SOURCE_OMP_MASKED)
            on_host_openmp(p, r, t, plain_region_class(source));
        else if (source >= OFFTRACE_SOURCE_OMP_TASK_CREATE && source <= OFFTRACE_SOURCE_OMP_TASK_DEPENDENCE)
            ot_host_tasks_convert(p, r, t);
        else if (source >= OFFTRACE_SOURCE_OMP_MUTEX && source <= OFFTRACE_SOURCE_OMP_FLUSH)
            ot_host_mutex_record(p, r, t);
        else if (source == OFFTRACE_SOURCE_MEASUREMENT)
            on_measurement(p, r, t);
        else if (source >= OFFTRACE_SOURCE_USER_REGION && source <= OFFTRACE_SOURCE_USER_VALUE)
            ot_user_convert(p, r, t);
        else if (source >= OFFTRACE_SOURCE_NVTX_RANGE && source <= OFFTRACE_SOURCE_NVTX_PROBLEM)
            ot_nvtx_convert(p, r, t);
        else if (source >= OFFTRACE_SOURCE_MPI_CALL && source <= OFFTRACE_SOURCE_MPI_CLOCK)
            ot_mpi_convert(p, r, t);
        else { /* the recorder's buffer flushes, and every kind that is a plain region */
            p->c->buffer_flushes += source == OFFTRACE_SOURCE_FLUSH && r->endpoint == OFFTRACE_RAW_BEGIN;
            on_plain_region(p, r, t, plain_region_class(source));
        }
    }
    return rc == 0 && !p->failed && p->cur.handed_over ? OT_CV_HANDED_OVER : rc;
}

/* The stream's end: what is still open closed, the location ended, the
 * pass freed. */
static int pass_end(thread_pass *p, int rc)
{
    converter *c = p->c;
    ot_raw_stream *s = p->s;
    if (rc == 0 && p->cur.stopped)
        rc = -EAGAIN;
    if (rc == 0)
        ot_host_mutex_settle(p, NULL);
    if (rc == 0 && c->nvtx_pending)
        p->last_time = ot_nvtx_settle(p, UINT64_MAX, p->last_time);
    if (rc == 0)
        ot_user_close_due(p, UINT64_MAX);
    if (rc == 0)
        end_measurement_window(p);
    /* Losses up to the end were never followed by a LOST record. */
    if (rc == 0 && s->header.lost_records > p->marked_lost) {
        while (p->depth)
            close_item(p, &p->open[--p->depth], p->last_time, NULL);
        mark_lost(p, p->last_time, p->last_time, s->header.lost_cause);
    }
    while (rc == 0 && p->depth)
        close_item(p, &p->open[--p->depth], p->last_time, NULL);
    if (rc == 0)
        rc = p->failed;
    ot_raw_cursor_close(&p->cur);
    if (rc == 0) {
        ot_host_tasks_end_thread(p, p->last_time);
        ot_tw_end_location(c->tw, p->w); /* nothing more is written there: to disk, out of memory */
    }
    free(p->open);
    ot_host_mutex_thread_free(p->mutex);
    ot_map_repeats_free(&p->map_repeats);
    if (p->attributes)
        OTF2_AttributeList_Delete(p->attributes);
    free(p);
    return rc;
}

int ot_cv_host_thread(converter *c, ot_raw_stream *s)
{
    int rc;
    thread_pass *p = pass_begin(c, s, &rc);
    if (!p)
        return rc;
    if (rc == 0 && (rc = pass_run(p)) == OT_CV_HANDED_OVER) {
        c->handed_over = p; /* ot_cv_host_thread_go_on finishes it */
        return rc;
    }
    return pass_end(p, rc);
}

int ot_cv_host_thread_go_on(converter *c)
{
    thread_pass *p = c->handed_over;
    c->handed_over = NULL;
    if (!p)
        return -EINVAL;
    p->cur.handed_over = 0;
    int rc = pass_run(p);
    if (rc == OT_CV_HANDED_OVER) /* the gate hands a pass over once */
        rc = -EPROTO;
    return pass_end(p, rc);
}

void ot_cv_host_thread_drop(converter *c)
{
    if (c->handed_over)
        pass_end(c->handed_over, -ECANCELED);
    c->handed_over = NULL;
}

/**
 * \file export_chrome.c
 * \brief The Chrome trace-event export of export_chrome.h: a trace_read
 *        visitor that writes each region instance the reader pairs as an "X"
 *        event, each put and get and each MPI message as a flow arrow, an MPI
 *        collective's operation, communicator, root and bytes as its call's
 *        args, and memory samples as counters, as they stream past.
 *
 * Order, for importers that take events at equal timestamps in file order
 * (older Perfetto and Catapult bind a flow to the slice open at its time,
 * and nest a slice under the one already seen): a slice is written at its
 * Leave, which would put a child before its parent when both begin at the
 * same time, so such a child is held until its parent is written (only
 * children sharing their parent's begin are held: a handful). Flow events
 * are spooled to a temporary file and written after every slice, so at any
 * timestamp the slice they bind to comes first.
 */
#define _GNU_SOURCE
#include "export_chrome.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export_writer.h"
#include "trace_read.h"

/* pids: the host is 1, device d is 2 + d; in an MPI job's archive the pid is
 * the rank, its host threads and devices its threads. tids are distinct from
 * every pid (Perfetto treats tids as system-wide, like Linux thread ids). */
#define HOST_PID 1u
#define DEVICE_PID(d) (2u + (unsigned)(d))
#define TID_BASE 100000u

/* MPI messages' flow ids have bit 63 set: Chrome's flow ids are global, and a transfer's (its RMA matching id,
 * in a job with the rank in bits 48-62) never has it. */
#define MESSAGE_FLOW_ID (1ull << 63)

/* One rank's part in a collective (issue 16), kept from its CollectiveEnd until the slice of the MPI call
 * around it is written (at its Leave, or later when held), which gets it as args. */
typedef struct pending_collective {
    uint64_t call_serial;      /* the MPI call's ot_tr_span.serial */
    char op[40];               /* "MPI_Allreduce" */
    uint32_t comm, size, root, root_rank;
    uint64_t sent, received;
} pending_collective;

/* Slices held at one depth of a location until their parent is written. */
typedef struct held_slices {
    ot_tr_span *spans;
    size_t count, capacity;
} held_slices;

/* One location: where its events go. */
typedef struct lane {
    char prefix[64];           /* ,"pid":P,"tid":T,"ts":  */
    uint8_t prefix_len;
    uint32_t pid, tid;
    char *name;
    held_slices *held;         /* by depth (OT_TR_MAX_DEPTH + 1), made at the first held slice */
    pending_collective *collectives; /* of MPI calls not written yet: one, or a few while slices are held */
    size_t collective_count, collective_capacity;
} lane;

/* A region's JSON, built at its first Enter. */
typedef struct region_text {
    char *head;                /* {"ph":"X","name":"...","cat":"..." */
    size_t head_len;
    char *site;                /* "site":"file:line" or NULL */
    size_t site_len;
} region_text;

typedef struct exporter {
    ot_jw *w;
    ot_jw *flows;              /* flow events, on a temporary file until the slices are written */
    const ot_tr_archive *archive;
    const char *dir;
    lane *lanes;
    size_t lane_count;
    int *rdma_lane;            /* device -> its RDMA row's lane, -1 */
    int max_device;
    int job;                   /* several ranks: one process per rank */
    region_text **regions;     /* by region id */
    size_t region_count;
    uint64_t origin, realtime;
    char *creator;
    int oom;
    ot_export_chrome_stats stats;
} exporter;

/* ---- events ---- */

static int64_t rel(const exporter *e, uint64_t t)
{
    return (int64_t)(t - e->origin);
}

/* Host OpenMP (issue 13): one "cat" per kind, so that a viewer can filter
 * loops, chunks, tasks, locks or waiting apart; the OMPT kind (region role)
 * splits the worksharing, sync and mutex classes. NULL for the other
 * classes (lock init/destroy, cancel and flush keep the catalogue's). */
static const char *host_openmp_category(const ot_tr_region *r)
{
    switch (r->cls) {
    case OFFTRACE_CLASS_HOST_PARALLEL: return "openmp.parallel";
    case OFFTRACE_CLASS_HOST_IMPLICIT_TASK: return "openmp.implicit_task";
    case OFFTRACE_CLASS_HOST_WORK: return r->role == OTF2_REGION_ROLE_LOOP ? "openmp.loop" : "openmp.worksharing";
    case OFFTRACE_CLASS_HOST_CHUNK: return r->role == OTF2_REGION_ROLE_SECTION ? "openmp.section" : "openmp.chunk";
    case OFFTRACE_CLASS_HOST_SYNC: return r->role == OTF2_REGION_ROLE_TASK_WAIT ? "openmp.taskwait" : "openmp.barrier";
    case OFFTRACE_CLASS_HOST_SYNC_WAIT: return "openmp.wait";
    case OFFTRACE_CLASS_HOST_MASKED: return "openmp.masked";
    case OFFTRACE_CLASS_HOST_TASK: return "openmp.task";
    case OFFTRACE_CLASS_HOST_TASK_CREATE: return "openmp.task_create";
    case OFFTRACE_CLASS_HOST_TASK_DEPEND:
    case OFFTRACE_CLASS_HOST_TASK_DEPENDENCE: return "openmp.task_depend";
    case OFFTRACE_CLASS_HOST_MUTEX:
    case OFFTRACE_CLASS_HOST_NEST_LOCK_NESTED:
        return r->role == OTF2_REGION_ROLE_ORDERED    ? "openmp.ordered"
               : !strncmp(r->name, "critical", 8) ? "openmp.critical"
                                                      : "openmp.lock";
    case OFFTRACE_CLASS_HOST_MUTEX_WAIT: return "openmp.lock_wait";
    default: return NULL;
    }
}

/* The export column of the catalogue: a region's "cat" (host OpenMP refined above). */
static const char *category(const ot_tr_region *r)
{
    const char *omp = host_openmp_category(r);
    if (omp)
        return omp;
    const offtrace_class_info *c = offtrace_class((offtrace_event_class)r->cls);
    return c ? c->export_category : "other";
}

/* The source site: the part after '@', else the definition's file:line
 * (kernels are named after their symbol). */
static char *site_of(const ot_tr_region *r)
{
    char *site = NULL;
    if (r->site && r->site[0])
        site = strdup(r->site);
    else if (r->file && r->file[0] && asprintf(&site, "%s:%u", r->file, r->line) < 0)
        site = NULL;
    if (!site)
        return NULL;
    char *quoted = ot_jw_quote(site);
    free(site);
    char *text = NULL;
    if (quoted && asprintf(&text, "\"site\":%s", quoted) < 0)
        text = NULL;
    free(quoted);
    return text;
}

static region_text *build_region_text(const ot_tr_region *r)
{
    region_text *t = calloc(1, sizeof *t);
    char *name = ot_jw_quote(r->name ? r->name : "");
    if (!t || !name || asprintf(&t->head, "{\"ph\":\"X\",\"name\":%s,\"cat\":\"%s\"", name, category(r)) < 0) {
        free(name);
        free(t);
        return NULL;
    }
    free(name);
    t->head_len = strlen(t->head);
    if ((r->site && r->site[0]) || (r->file && r->file[0])) {
        if (!(t->site = site_of(r))) {
            free(t->head);
            free(t);
            return NULL;
        }
        t->site_len = strlen(t->site);
    }
    return t;
}

/* Build the region's text at its first Enter; 0, or -1 out of memory. */
static int prepare_region(exporter *e, const ot_tr_region *r)
{
    if (r->id >= e->region_count) /* the reader checks ids; this is only a guard */
        return -1;
    if (!e->regions[r->id] && !(e->regions[r->id] = build_region_text(r)))
        return -1;
    return 0;
}

/* Each event starts with ",\n" except the first; begin writes the first. */
static void next_event(exporter *e)
{
    OT_JW_LIT(e->w, ",\n");
}

/* An NVTX attribute (issue 14) as a Chrome `args` member: the colour as
 * "#AARRGGBB" (Chrome's cname takes only its own palette), a payload as
 * the number it was. */
static void write_nvtx_arg(ot_jw *w, int k, uint64_t bits, const char *lead)
{
    char text[64];
    int n;
    if (k == OT_TR_ATTR_NVTX_COLOR) {
        n = snprintf(text, sizeof text, "%s\"nvtx color\":\"#%08llX\"", lead, (unsigned long long)bits);
    } else if (k == OT_TR_ATTR_NVTX_PAYLOAD) {
        n = snprintf(text, sizeof text, "%s\"nvtx payload\":%lld", lead, (long long)(int64_t)bits);
    } else {
        double d;
        memcpy(&d, &bits, sizeof d);
        n = isfinite(d) ? snprintf(text, sizeof text, "%s\"nvtx payload\":%.17g", lead, d)
                        : snprintf(text, sizeof text, "%s\"nvtx payload\":\"%g\"", lead, d);
    }
    if (n > 0 && (size_t)n < sizeof text)
        ot_jw_raw(w, text, (size_t)n);
}

/* An MPI collective's part on this rank (issue 16), as args of its call's slice. */
static int write_collective_args(ot_jw *w, const pending_collective *c, int any)
{
    static const char open[] = ",\"args\":{";
    ot_jw_raw(w, any ? "," : open, any ? 1 : sizeof open - 1);
    OT_JW_LIT(w, "\"op\":");
    ot_jw_string(w, c->op);
    OT_JW_LIT(w, ",\"communicator\":");
    ot_jw_u64(w, c->comm);
    if (c->size) {
        OT_JW_LIT(w, ",\"communicator size\":");
        ot_jw_u64(w, c->size);
    }
    if (c->root != OTF2_UNDEFINED_UINT32) {
        OT_JW_LIT(w, ",\"root\":");
        ot_jw_u64(w, c->root);
        if (c->root_rank != OTF2_UNDEFINED_UINT32) {
            OT_JW_LIT(w, ",\"root rank\":");
            ot_jw_u64(w, c->root_rank);
        }
    }
    OT_JW_LIT(w, ",\"bytes sent\":");
    ot_jw_u64(w, c->sent);
    OT_JW_LIT(w, ",\"bytes received\":");
    ot_jw_u64(w, c->received);
    return 1;
}

/* The bytes (and addresses) of the put/get a data op or a transfer region moved; an MPI collective's part. */
static void write_args(ot_jw *w, const region_text *t, const ot_tr_span *span, const pending_collective *coll)
{
    static const char open[] = ",\"args\":{";
    ot_tr_region_class k = span->region->klass;
    int bytes = span->transfers && (k == OT_TR_DATA_OP || k == OT_TR_TRANSFER);
    int addresses = bytes && k == OT_TR_DATA_OP && span->last.has_addresses;
    int any = 0;
    if (t->site) {
        ot_jw_raw(w, open, sizeof open - 1);
        ot_jw_raw(w, t->site, t->site_len);
        any = 1;
    }
    if (bytes) {
        ot_jw_raw(w, any ? "," : open, any ? 1 : sizeof open - 1);
        OT_JW_LIT(w, "\"bytes\":");
        ot_jw_u64(w, span->last.bytes);
        any = 1;
    }
    if (addresses) {
        ot_jw_raw(w, any ? "," : open, any ? 1 : sizeof open - 1);
        OT_JW_LIT(w, "\"host address\":\"");
        ot_jw_hex(w, span->last.host_address);
        OT_JW_LIT(w, "\",\"device address\":\"");
        ot_jw_hex(w, span->last.device_address);
        OT_JW_LIT(w, "\"");
        any = 1;
    }
    /* host OpenMP: a chunk's iterations, a loop's trip count, an implicit task's team, an explicit task's id,
     * flags and parent (on its creation and periods), an edge's predecessor, a lock's id */
    static const char *const attribute_keys[OT_TR_ATTRS] = {
        [OT_TR_ATTR_FIRST_ITERATION] = "\"first iteration\":", [OT_TR_ATTR_ITERATIONS] = "\"iterations\":",
        [OT_TR_ATTR_TEAM_SIZE] = "\"team size\":", [OT_TR_ATTR_THREAD_NUMBER] = "\"thread number\":",
        [OT_TR_ATTR_TASK_ID] = "\"task id\":", [OT_TR_ATTR_TASK_FLAGS] = "\"task flags\":",
        [OT_TR_ATTR_PARENT_TASK] = "\"parent task\":", [OT_TR_ATTR_PREDECESSOR_TASK] = "\"predecessor task\":",
        [OT_TR_ATTR_LOCK_ID] = "\"lock id\":", [OT_TR_ATTR_NVTX_CATEGORY] = "\"nvtx category\":",
        [OT_TR_ATTR_NVTX_COLOR] = "\"nvtx color\":", [OT_TR_ATTR_NVTX_PAYLOAD] = "\"nvtx payload\":",
        [OT_TR_ATTR_NVTX_PAYLOAD_FLOAT] = "\"nvtx payload\":"};
    for (int k = 0; span->attrs && k < OT_TR_ATTRS; k++) {
        /* not the host operation (issue 17): it pairs a launch with its kernel for the report, and a slice
         * gains nothing from the id */
        if (!(span->attrs >> k & 1) || k == OT_TR_ATTR_HOST_OPERATION)
            continue;
        if (k >= OT_TR_ATTR_NVTX_COLOR) { /* NVTX (issue 14): a colour string, a signed or a floating payload */
            write_nvtx_arg(w, k, span->attr[k], any ? "," : open);
            any = 1;
            continue;
        }
        ot_jw_raw(w, any ? "," : open, any ? 1 : sizeof open - 1);
        ot_jw_raw(w, attribute_keys[k], strlen(attribute_keys[k]));
        ot_jw_u64(w, span->attr[k]);
        any = 1;
    }
    /* a data op's variable (issue 15): the map attributes its Enter carried, by their catalogue names */
    const char *const map_values[] = {span->map.variable, span->map.map_type, span->map.member_of,
                                      span->map.site, span->map.name_problem};
    static const char *const map_keys[] = {"\"variable\":", "\"map type\":", "\"member of\":",
                                           "\"map site\":", "\"name problem\":"};
    for (size_t k = 0; k < sizeof map_keys / sizeof map_keys[0]; k++) {
        if (!map_values[k])
            continue;
        ot_jw_raw(w, any ? "," : open, any ? 1 : sizeof open - 1);
        ot_jw_raw(w, map_keys[k], strlen(map_keys[k]));
        ot_jw_string(w, map_values[k]);
        any = 1;
    }
    if (span->map.implicit >= 0) {
        ot_jw_raw(w, any ? "," : open, any ? 1 : sizeof open - 1);
        OT_JW_LIT(w, "\"implicit\":");
        ot_jw_u64(w, (uint64_t)span->map.implicit);
        any = 1;
    }
    if (coll)
        any = write_collective_args(w, coll, any);
    if (span->unfinished) {
        ot_jw_raw(w, any ? "," : open, any ? 1 : sizeof open - 1);
        OT_JW_LIT(w, "\"unfinished\":true");
        any = 1;
    }
    if (any)
        OT_JW_LIT(w, "}");
}

/* The collective kept for the MPI call \p span, taken off the lane; NULL if none (the common case: no scan). */
static const pending_collective *take_collective(lane *l, const ot_tr_span *span, pending_collective *out)
{
    for (size_t i = 0; i < l->collective_count; i++)
        if (l->collectives[i].call_serial == span->serial) {
            *out = l->collectives[i];
            l->collectives[i] = l->collectives[--l->collective_count];
            return out;
        }
    return NULL;
}

/* One "X" event: a region instance on lane l. */
static void write_slice(exporter *e, lane *l, const ot_tr_span *span)
{
    const region_text *t = e->regions[span->region->id];
    pending_collective kept;
    const pending_collective *coll = l->collective_count ? take_collective(l, span, &kept) : NULL;
    ot_jw *w = e->w;
    next_event(e);
    ot_jw_raw(w, t->head, t->head_len);
    ot_jw_raw(w, l->prefix, l->prefix_len);
    ot_jw_us(w, rel(e, span->begin));
    OT_JW_LIT(w, ",\"dur\":");
    ot_jw_us(w, span->end > span->begin ? (int64_t)(span->end - span->begin) : 0);
    write_args(w, t, span, coll);
    OT_JW_LIT(w, "}");
    e->stats.slices++;
    e->stats.unfinished += span->unfinished != 0;
}

/* A flow start ("s") or end ("f", bound to the enclosing slice). Both ends
 * carry the same name and category: Perfetto pairs v1 flows by (id, cat, name). */
static void write_flow(exporter *e, const lane *l, int end, uint64_t time, uint64_t id, int to_device)
{
    ot_jw *w = e->flows;
    OT_JW_LIT(w, ",\n");
    if (end)
        OT_JW_LIT(w, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"");
    else
        OT_JW_LIT(w, "{\"ph\":\"s\",\"name\":\"");
    if (to_device)
        OT_JW_LIT(w, "transfer host->device\",\"cat\":\"transfer\",\"id\":\"");
    else
        OT_JW_LIT(w, "transfer device->host\",\"cat\":\"transfer\",\"id\":\"");
    ot_jw_hex(w, id);
    OT_JW_LIT(w, "\"");
    ot_jw_raw(w, l->prefix, l->prefix_len);
    ot_jw_us(w, rel(e, time));
    OT_JW_LIT(w, "}");
}

/* An MPI message's flow start ("s" on the sender's thread at the send, inside its MPI_Send / MPI_Isend) or
 * end ("f", bound to the enclosing slice, on the receiver's thread at the receive: its MPI_Recv or the
 * MPI_Wait / MPI_Test that completed it). */
static void write_message_flow(exporter *e, const lane *l, int end, uint64_t time, uint64_t id,
                               const ot_tr_message *m)
{
    ot_jw *w = e->flows;
    OT_JW_LIT(w, ",\n");
    if (end)
        OT_JW_LIT(w, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"MPI message\",\"cat\":\"mpi.message\",\"id\":\"");
    else
        OT_JW_LIT(w, "{\"ph\":\"s\",\"name\":\"MPI message\",\"cat\":\"mpi.message\",\"id\":\"");
    ot_jw_hex(w, id);
    OT_JW_LIT(w, "\"");
    ot_jw_raw(w, l->prefix, l->prefix_len);
    ot_jw_us(w, rel(e, time));
    OT_JW_LIT(w, ",\"args\":{\"from rank\":");
    ot_jw_u64(w, m->send_rank);
    OT_JW_LIT(w, ",\"to rank\":");
    ot_jw_u64(w, m->recv_rank);
    OT_JW_LIT(w, ",\"tag\":");
    ot_jw_u64(w, m->tag);
    OT_JW_LIT(w, ",\"communicator\":");
    ot_jw_u64(w, m->comm);
    OT_JW_LIT(w, ",\"bytes\":");
    ot_jw_u64(w, end ? m->recv_bytes : m->bytes);
    OT_JW_LIT(w, "}}");
}

/* ---- the visitor ---- */

static int status(const exporter *e)
{
    return e->w->error || e->flows->error || e->oom ? 1 : 0;
}

/* A region's text is made at its first Enter. */
static int on_enter(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    exporter *e = user;
    if (prepare_region(e, span->region)) {
        e->oom = 1;
        return 1;
    }
    return 0;
}

static int hold(held_slices *h, const ot_tr_span *span)
{
    if (h->count == h->capacity) {
        size_t capacity = h->capacity ? 2 * h->capacity : 8;
        ot_tr_span *more = realloc(h->spans, capacity * sizeof *more);
        if (!more)
            return -1;
        h->spans = more;
        h->capacity = capacity;
    }
    h->spans[h->count] = *span;
    h->spans[h->count++].data = NULL;
    return 0;
}

/* A slice and, after it, what its children held (each followed by its own):
 * written now, or held at its depth when its parent begins at the same time. */
static int on_leave(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    exporter *e = user;
    lane *l = &e->lanes[loc->index];
    uint32_t d = span->depth;
    const ot_tr_span *parent = d > 0 ? ot_tr_open_span(e->archive, loc, d - 1) : NULL;
    held_slices *below = l->held && d < OT_TR_MAX_DEPTH ? &l->held[d + 1] : NULL;
    if (parent && parent->begin == span->begin && d <= OT_TR_MAX_DEPTH) {
        if (!l->held && !(l->held = calloc(OT_TR_MAX_DEPTH + 1, sizeof *l->held))) {
            e->oom = 1;
            return 1;
        }
        held_slices *here = &l->held[d];
        below = d < OT_TR_MAX_DEPTH ? &l->held[d + 1] : NULL;
        if (hold(here, span)) {
            e->oom = 1;
            return 1;
        }
        for (size_t i = 0; below && i < below->count; i++)
            if (hold(here, &below->spans[i])) {
                e->oom = 1;
                return 1;
            }
    } else {
        write_slice(e, l, span);
        for (size_t i = 0; below && i < below->count; i++)
            write_slice(e, l, &below->spans[i]);
    }
    if (below)
        below->count = 0;
    return status(e);
}

/* The arrow from the put/get on the host thread to its transfer on the
 * device's RDMA row (the reader gives both slices their bytes). */
static int on_issue(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    exporter *e = user;
    int r = x->device >= 0 && x->device <= e->max_device ? e->rdma_lane[x->device] : -1;
    if (r < 0) /* no RDMA row to point at: no arrow */
        return status(e);
    /* Chrome's flow ids are global; each rank of a job numbers its transfers alike: the rank in bits 48-63. */
    uint64_t id = e->job ? x->id ^ (uint64_t)loc->rank << 48 : x->id;
    write_flow(e, &e->lanes[loc->index], 0, x->issued, id, x->to_device);
    write_flow(e, &e->lanes[r], 1, x->issued, id, x->to_device);
    e->stats.flows++;
    return status(e);
}

/* An MPI message (issue 16): one flow from its send to its receive, with an id of its own. One whose send or
 * receive is not in the archive (a rank died, a part is missing) has no end to point at: counted only. */
static int on_message(void *user, const ot_tr_message *m)
{
    exporter *e = user;
    if (!m->sender || !m->receiver) {
        e->stats.messages_left_out++;
        return status(e);
    }
    uint64_t id = MESSAGE_FLOW_ID | ++e->stats.message_flows;
    write_message_flow(e, &e->lanes[m->sender->index], 0, m->send_time, id, m);
    write_message_flow(e, &e->lanes[m->receiver->index], 1, m->recv_time, id, m);
    return status(e);
}

/* One rank's part in a collective (issue 16): kept for its MPI call's slice, which is written later (at its
 * Leave); outside any call (not an archive offtrace writes) an instant of its own. */
static int on_collective(void *user, const ot_tr_location *loc, const ot_tr_collective *c)
{
    exporter *e = user;
    lane *l = &e->lanes[loc->index];
    pending_collective p = {.call_serial = c->call_serial, .comm = c->comm, .size = c->size, .root = c->root,
                            .root_rank = c->root_rank, .sent = c->sent, .received = c->received};
    snprintf(p.op, sizeof p.op, "%s", c->op_name ? c->op_name : "MPI collective");
    e->stats.collectives++;
    if (!c->call) {
        next_event(e);
        OT_JW_LIT(e->w, "{\"ph\":\"i\",\"s\":\"t\",\"name\":");
        ot_jw_string(e->w, p.op);
        OT_JW_LIT(e->w, ",\"cat\":\"mpi.collective\"");
        ot_jw_raw(e->w, l->prefix, l->prefix_len);
        ot_jw_us(e->w, rel(e, c->end));
        write_collective_args(e->w, &p, 0);
        OT_JW_LIT(e->w, "}}");
        return status(e);
    }
    if (l->collective_count == l->collective_capacity) {
        size_t capacity = l->collective_capacity ? 2 * l->collective_capacity : 4;
        pending_collective *more = realloc(l->collectives, capacity * sizeof *more);
        if (!more) {
            e->oom = 1;
            return 1;
        }
        l->collectives = more;
        l->collective_capacity = capacity;
    }
    l->collectives[l->collective_count++] = p;
    return status(e);
}

/* A user value (issue 14): a counter of its own name on its thread, the value as a JSON number. */
static int on_value(void *user, const ot_tr_location *loc, uint64_t time, const ot_tr_metric *metric,
                    OTF2_MetricValue value)
{
    exporter *e = user;
    ot_jw *w = e->w;
    char number[40];
    if (metric->type == OTF2_TYPE_INT64)
        snprintf(number, sizeof number, "%lld", (long long)value.signed_int);
    else if (metric->type != OTF2_TYPE_DOUBLE)
        snprintf(number, sizeof number, "%llu", (unsigned long long)value.unsigned_int);
    else if (value.floating_point == value.floating_point && value.floating_point <= 1.7976931348623157e308 &&
             value.floating_point >= -1.7976931348623157e308)
        snprintf(number, sizeof number, "%.17g", value.floating_point);
    else
        snprintf(number, sizeof number, "null"); /* JSON has no NaN or infinity */
    next_event(e);
    OT_JW_LIT(w, "{\"ph\":\"C\",\"name\":");
    ot_jw_string(w, metric->name);
    ot_jw_raw(w, e->lanes[loc->index].prefix, e->lanes[loc->index].prefix_len);
    ot_jw_us(w, rel(e, time));
    OT_JW_LIT(w, ",\"args\":{\"value\":");
    ot_jw_raw(w, number, strlen(number));
    OT_JW_LIT(w, "}}");
    e->stats.counters++;
    return status(e);
}

static int on_memory(void *user, const ot_tr_location *loc, uint64_t time, uint64_t bytes)
{
    exporter *e = user;
    ot_jw *w = e->w;
    next_event(e);
    OT_JW_LIT(w, "{\"ph\":\"C\",\"name\":\"device memory in use\"");
    ot_jw_raw(w, e->lanes[loc->index].prefix, e->lanes[loc->index].prefix_len);
    ot_jw_us(w, rel(e, time));
    OT_JW_LIT(w, ",\"args\":{\"bytes\":");
    ot_jw_u64(w, bytes);
    OT_JW_LIT(w, "}}");
    e->stats.counters++;
    return status(e);
}

/* ---- definitions: processes, threads, metadata ---- */

/* Display order inside a process: kernel streams, the RDMA row, device
 * threads, queues (host threads by index). */
static unsigned class_rank(ot_tr_location_class k)
{
    switch (k) {
    case OT_TR_HOST_THREAD: return 0;
    case OT_TR_KERNEL_STREAM: return 1;
    case OT_TR_RDMA: return 2;
    case OT_TR_DEVICE_THREAD: return 3;
    case OT_TR_DEVICE_QUEUE: return 4;
    default: return 5;
    }
}

/* Display order: by rank (0 in one process), then host threads before devices in number order, then class. */
typedef struct lane_key {
    uint32_t rank;
    int device;
    unsigned klass;
    uint32_t index;
} lane_key;

static int by_key(const void *a, const void *b)
{
    const lane_key *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->klass != y->klass)
        return x->klass < y->klass ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* tids follow the display order, because Perfetto orders thread tracks by
 * tid and ignores thread_sort_index. */
static int assign_lanes(exporter *e, const ot_tr_archive *a)
{
    size_t n = e->lane_count;
    lane_key *key = malloc((n ? n : 1) * sizeof *key);
    if (!key)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        key[i] = (lane_key){l->rank, l->device_number, class_rank(l->klass), (uint32_t)i};
    }
    qsort(key, n, sizeof *key, by_key);
    for (size_t p = 0; p < n; p++) {
        size_t i = key[p].index;
        const ot_tr_location *l = ot_tr_location_at(a, i);
        lane *ln = &e->lanes[i];
        if (!(ln->name = strdup(l->name))) {
            free(key);
            return -1;
        }
        ln->pid = e->job ? l->rank : l->device >= 0 ? DEVICE_PID(l->device) : HOST_PID;
        ln->tid = TID_BASE + (uint32_t)p;
        ln->prefix_len = (uint8_t)snprintf(ln->prefix, sizeof ln->prefix, ",\"pid\":%u,\"tid\":%u,\"ts\":", ln->pid,
                                           ln->tid);
        if (l->klass == OT_TR_RDMA && l->device <= e->max_device)
            e->rdma_lane[l->device] = (int)i;
    }
    free(key);
    return 0;
}

static void write_name(exporter *e, const char *what, unsigned pid, const uint32_t *tid, const char *name,
                       uint32_t sort_index)
{
    ot_jw *w = e->w;
    for (int sort = 0; sort < 2; sort++) {
        next_event(e);
        OT_JW_LIT(w, "{\"ph\":\"M\",\"name\":\"");
        ot_jw_raw(w, what, strlen(what));
        if (sort)
            OT_JW_LIT(w, "_sort_index\",\"pid\":");
        else
            OT_JW_LIT(w, "_name\",\"pid\":");
        ot_jw_u64(w, pid);
        if (tid) {
            OT_JW_LIT(w, ",\"tid\":");
            ot_jw_u64(w, *tid);
        }
        if (sort) {
            OT_JW_LIT(w, ",\"args\":{\"sort_index\":");
            ot_jw_u64(w, sort_index);
        } else {
            OT_JW_LIT(w, ",\"args\":{\"name\":");
            ot_jw_string(w, name);
        }
        OT_JW_LIT(w, "}}");
    }
}

/* "device 0 generic-64bit" from the group "generic-64bit device 0"; any
 * length (the group's name is the device kind the runtime reported), so
 * malloc'd; NULL when out of memory. */
static char *device_name(const exporter *e, const ot_tr_archive *a, int device)
{
    const char *group = NULL;
    for (size_t i = 0; i < e->lane_count && !group; i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        if (l->device == device)
            group = l->group;
    }
    char suffix[32];
    int n = snprintf(suffix, sizeof suffix, " device %d", device);
    size_t len = group ? strlen(group) : 0, size = len + 2 * sizeof suffix;
    char *buf = malloc(size);
    if (!buf)
        return NULL;
    if (group && len > (size_t)n && !strcmp(group + len - (size_t)n, suffix))
        snprintf(buf, size, "device %d %.*s", device, (int)(len - (size_t)n), group);
    else if (group && len)
        snprintf(buf, size, "device %d (%s)", device, group);
    else
        snprintf(buf, size, "device %d", device);
    return buf;
}

/* A job: one process per rank, "MPI Rank N", its locations its threads. */
static void write_job_metadata(exporter *e, const ot_tr_archive *a)
{
    OT_JW_LIT(e->w, "{\"traceEvents\":[\n");
    int first = 1;
    for (uint32_t r = 0; r < ot_tr_rank_count(a); r++) {
        char name[32];
        snprintf(name, sizeof name, "MPI Rank %u", r);
        if (!first)
            next_event(e);
        first = 0;
        OT_JW_LIT(e->w, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
        ot_jw_u64(e->w, r);
        OT_JW_LIT(e->w, ",\"args\":{\"name\":");
        ot_jw_string(e->w, name);
        OT_JW_LIT(e->w, "}}");
        next_event(e);
        OT_JW_LIT(e->w, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":");
        ot_jw_u64(e->w, r);
        OT_JW_LIT(e->w, ",\"args\":{\"sort_index\":");
        ot_jw_u64(e->w, r);
        OT_JW_LIT(e->w, "}}");
    }
    for (size_t i = 0; i < e->lane_count; i++) {
        const lane *l = &e->lanes[i];
        write_name(e, "thread", l->pid, &l->tid, ot_tr_location_at(a, i)->name, l->tid - TID_BASE);
    }
}

static void write_metadata(exporter *e, const ot_tr_archive *a)
{
    if (e->job) {
        write_job_metadata(e, a);
        return;
    }
    OT_JW_LIT(e->w, "{\"traceEvents\":[\n"
                    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"host\"}}");
    next_event(e);
    OT_JW_LIT(e->w, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":1,\"args\":{\"sort_index\":0}}");
    for (int d = 0; d <= e->max_device; d++) {
        int used = 0;
        for (size_t i = 0; i < e->lane_count && !used; i++)
            used = ot_tr_location_at(a, i)->device == d;
        if (!used)
            continue;
        char *name = device_name(e, a, d);
        if (!name) {
            e->oom = 1;
            continue;
        }
        write_name(e, "process", DEVICE_PID(d), NULL, name, 1u + (uint32_t)d);
        free(name);
    }
    for (size_t i = 0; i < e->lane_count; i++) {
        const lane *l = &e->lanes[i];
        write_name(e, "thread", l->pid, &l->tid, ot_tr_location_at(a, i)->name, l->tid - TID_BASE);
    }
}

static int on_begin(void *user, const ot_tr_archive *a)
{
    exporter *e = user;
    e->archive = a;
    e->origin = ot_tr_first_time(a);
    e->realtime = ot_tr_realtime(a);
    e->max_device = ot_tr_max_device(a);
    e->job = ot_tr_rank_count(a) > 1;
    e->lane_count = ot_tr_location_count(a);
    e->region_count = ot_tr_region_count(a);
    e->creator = strdup(ot_tr_creator(a));
    e->lanes = calloc(e->lane_count + 1, sizeof *e->lanes);
    e->rdma_lane = malloc(((size_t)e->max_device + 2) * sizeof *e->rdma_lane);
    e->regions = calloc(e->region_count + 1, sizeof *e->regions);
    if (!e->creator || !e->lanes || !e->rdma_lane || !e->regions) {
        e->oom = 1;
        return 1;
    }
    for (int d = 0; d <= e->max_device; d++)
        e->rdma_lane[d] = -1;
    if (assign_lanes(e, a)) {
        e->oom = 1;
        return 1;
    }
    write_metadata(e, a);
    return status(e);
}

/* ---- the end ---- */

/* The reader has delivered what was left open (as unfinished slices). */
static int on_end(void *user, const ot_tr_archive *a)
{
    exporter *e = user;
    e->stats.events = ot_tr_events(a);
    e->stats.unmatched = ot_tr_regions_too_deep(a);
    return 0;
}

/* OTF2's global reader skips the rest of a location whose event file is cut
 * short, and the read still succeeds (trace_read.c passes that on): compare
 * with the counts the definitions announce. Foreign archives may hold event
 * kinds the reader does not deliver, so only offtrace's locations count. */
static void write_count(ot_jw *w, const char *key, uint64_t v)
{
    OT_JW_LIT(w, ",\"");
    ot_jw_raw(w, key, strlen(key));
    OT_JW_LIT(w, "\":");
    ot_jw_u64(w, v);
}

/* After the events: what was exported, and how to get back to archive time
 * (nanosecond values as strings: they exceed a double's exact integers). */
static void write_trailer(exporter *e)
{
    ot_jw *w = e->w;
    OT_JW_LIT(w, "\n],\n\"otherData\":{\"producer\":\"offtrace export --format chrome\","
                 "\"archive\":");
    ot_jw_string(w, e->dir);
    OT_JW_LIT(w, ",\"creator\":");
    ot_jw_string(w, e->creator ? e->creator : "");
    OT_JW_LIT(w, ",\"time_origin_ns\":\"");
    ot_jw_u64(w, e->origin);
    OT_JW_LIT(w, "\",\"realtime_of_origin_ns\":\"");
    ot_jw_u64(w, e->realtime);
    OT_JW_LIT(w, "\"");
    write_count(w, "archive_events", e->stats.events);
    write_count(w, "slices", e->stats.slices);
    write_count(w, "transfer_flows", e->stats.flows);
    write_count(w, "counter_samples", e->stats.counters);
    write_count(w, "unfinished_slices", e->stats.unfinished);
    write_count(w, "unmatched_events", e->stats.unmatched);
    if (e->job || e->stats.message_flows || e->stats.messages_left_out || e->stats.collectives) { /* issue 16 */
        write_count(w, "mpi_message_flows", e->stats.message_flows);
        write_count(w, "mpi_messages_left_out", e->stats.messages_left_out);
        write_count(w, "mpi_collectives", e->stats.collectives);
    }
    OT_JW_LIT(w, "}}\n");
}

static void exporter_free(exporter *e)
{
    for (size_t i = 0; e->regions && i < e->region_count; i++)
        if (e->regions[i]) {
            free(e->regions[i]->head);
            free(e->regions[i]->site);
            free(e->regions[i]);
        }
    for (size_t i = 0; e->lanes && i < e->lane_count; i++) {
        free(e->lanes[i].name);
        for (size_t d = 0; e->lanes[i].held && d <= OT_TR_MAX_DEPTH; d++)
            free(e->lanes[i].held[d].spans);
        free(e->lanes[i].held);
        free(e->lanes[i].collectives);
    }
    free(e->regions);
    free(e->lanes);
    free(e->rdma_lane);
    free(e->creator);
    free(e->w);
    if (e->flows && e->flows->out)
        fclose(e->flows->out);
    free(e->flows);
}

/* The spooled flow events, after the slices; 0 or an errno. */
static int append_flows(exporter *e)
{
    if (ot_jw_flush(e->flows))
        return e->flows->error;
    FILE *f = e->flows->out;
    rewind(f);
    size_t n;
    while ((n = fread(e->flows->buf, 1, OT_JW_BUFFER, f)) > 0)
        ot_jw_raw(e->w, e->flows->buf, n);
    return ferror(f) ? EIO : 0;
}

static int fail(char *err, size_t err_size, int rc, const char *what, int errnum)
{
    snprintf(err, err_size, "offtrace: %s%s%s", what, errnum ? ": " : "", errnum ? strerror(errnum) : "");
    return rc;
}

int ot_export_chrome(const char *dir, FILE *out, ot_export_chrome_stats *stats, char *err, size_t err_size)
{
    exporter e = {.dir = dir, .max_device = -1};
    if (!(e.w = malloc(sizeof *e.w)) || !(e.flows = malloc(sizeof *e.flows))) {
        exporter_free(&e);
        return fail(err, err_size, -ENOMEM, "out of memory", 0);
    }
    ot_jw_init(e.w, out);
    ot_jw_init(e.flows, tmpfile());
    if (!e.flows->out) {
        int errnum = errno;
        exporter_free(&e);
        return fail(err, err_size, -EIO, "cannot make a temporary file for the flow events", errnum);
    }
    ot_tr_visitor v = {.begin = on_begin, .enter = on_enter, .leave = on_leave, .issue = on_issue,
                       .memory = on_memory, .value = on_value, .message = on_message,
                       .collective = on_collective, .end = on_end,
                       .output_on_terminal = isatty(fileno(out))};
    int rc = ot_trace_read(dir, &v, &e, err, err_size);
    int flows_error = 0;
    if (rc == 0 && !(flows_error = append_flows(&e)))
        write_trailer(&e);
    if (rc == 0 && flows_error)
        rc = fail(err, err_size, -EIO, "reading back the flow events failed", flows_error);
    if (rc >= 0 && e.oom)
        rc = fail(err, err_size, -ENOMEM, "out of memory", 0);
    else if (rc >= 0 && ot_jw_flush(e.w))
        rc = fail(err, err_size, -EIO, "writing the export failed", e.w->error);
    else if (rc > 0) /* a visitor stopped the read without saying why: not expected */
        rc = fail(err, err_size, -EIO, "the export stopped early", 0);
    if (stats)
        *stats = e.stats;
    exporter_free(&e);
    return rc;
}

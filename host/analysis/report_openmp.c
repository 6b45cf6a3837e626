/**
 * \file report_openmp.c
 * \brief The report's share of the program's own host OpenMP (issue 13):
 *        per parallel region, loop and barrier site what it cost, each
 *        loop's per-thread busy time and its time per iteration range, and
 *        the device's idle time between target regions while the host ran
 *        serially or waited (docs/report.md, "Host OpenMP").
 *
 * Memory is flat in events: one row per site (report.h ot_rp_omp_site, a
 * loop's iteration space in OT_RP_LOOP_BINS bins), one state per host thread
 * and device, and the teams and loop instances open now (a loop instance
 * lives until every thread of its team has left it).
 *
 * Teams. A parallel region's Enter on its encountering thread opens a team;
 * the implicit task numbered 0 inside it joins that team, and an implicit
 * task of another thread joins the most recently opened team that still
 * has room (its team size). That is exact for one team at a time and for
 * nested teams whose workers start in order; it may put a late worker of an
 * outer team into a newer inner one. A team ends at its parallel region's
 * Leave: waiting still open then (a worker's last implicit barrier, which
 * libomp 19 reports only when the worker is next woken) counts up to there.
 *
 * Loop instances. A thread entering a loop site joins the oldest open
 * instance of that site in its team where its thread number has not
 * joined yet, so that a `nowait` loop's instances stay apart when threads
 * drift. A thread's busy time in an instance is its time in chunks when
 * any thread of the instance had chunks, else its time in the loop less
 * the waiting inside it.
 *
 * Explicit tasks (level all). One row per creation site: the `task create
 * @f:l` point and the periods `task @f:l` share it. A task's run time is
 * its periods' time less the task periods and waiting parts nested in them
 * (a task that waits in a taskwait runs other tasks there: their time is
 * theirs). The scheduling delay is creation to first period: the tasks
 * created and not yet started are kept by id (a hash table, removed at the
 * first period), so that memory grows with the tasks pending at once, not
 * with all tasks.
 *
 * Mutual exclusion (level all). One row per critical, lock or ordered site:
 * acquisitions, time acquire to release, its waiting part (wait) and the
 * rest (hold), the most threads in its waiting part at once. A thread's
 * waiting for a lock counts as waiting between target regions (wait_at).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offtrace/event_catalogue.h"
#include "report_state.h"

#define LOOPS_PER_TEAM 8   /* loop instances one team may have open at once (nowait loops drift) */
#define GAP_WAIT_SITES 4   /* sync sites remembered per gap between target regions */
#define SLOW_FACTOR 1.5    /* a bin is slow at this many times the loop's mean time per iteration ... */
#define SLOW_MIN_SHARE 0.10 /* ... and a range of them when its time beyond that mean is this share of the loop's */

typedef struct loop_instance {
    uint64_t serial;       /* 0: free */
    int32_t site;
    uint32_t size, joined, left;
    uint64_t joined_mask;  /* thread numbers below 64 that joined */
    uint64_t begin, end, trip;
    int has_chunks;
    uint64_t *chunk_ns, *loop_ns; /* by thread number, `size` entries */
} loop_instance;

typedef struct team {
    uint64_t serial;       /* 0: free */
    int32_t site;
    uint64_t begin;
    uint32_t size, joined;
    uint64_t wait_ns;
    loop_instance loops[LOOPS_PER_TEAM];
} team;

typedef struct gap_wait {
    int32_t site;
    uint64_t ns;
} gap_wait;

typedef struct omp_thread {
    team *team;            /* of the innermost implicit task, NULL */
    uint64_t team_serial;
    uint32_t number, size;
    team solo;             /* worksharing outside every team */
    int tasks;             /* implicit tasks open: serial when 0 */
    uint64_t serial_ns, serial_since;
    int waiting;           /* in a sync region's waiting part */
    uint64_t wait_begin, waited_ns;
    int32_t wait_site;
    team *wait_team;       /* the team the waiting counts for, NULL once its team ended */
    uint64_t wait_team_serial;
    /* since the end of its last target region */
    int after_target;
    int32_t target_site;
    int device;
    uint64_t target_end, serial_mark, wait_mark, busy_mark;
    gap_wait gap_waits[GAP_WAIT_SITES];
    int lock_waiting;      /* in a mutex's waiting part */
    uint64_t lock_wait_begin, lock_waited_ns;
} omp_thread;

typedef struct pending_task { /* created, no period seen yet */
    uint64_t id;           /* 0: free slot */
    uint64_t created;
} pending_task;

typedef struct omp_device {
    uint32_t active;
    uint64_t since, busy_ns;
} omp_device;

struct rp_omp {
    omp_thread *threads;
    size_t thread_count;
    team **teams;
    size_t team_count;
    omp_device *devices;
    size_t device_count;
    int32_t *site_of_region;
    size_t region_count;
    uint64_t next_serial;
    pending_task *pending; /* open addressing, linear probing, at most half full */
    size_t pending_cap, pending_count;
};

/* ---- rows ---- */

static int32_t omp_site_of(rp_state *s, const ot_tr_region *region, ot_rp_omp_kind kind)
{
    struct rp_omp *o = s->omp;
    if (region->id < o->region_count && o->site_of_region[region->id] >= 0)
        return o->site_of_region[region->id];
    ot_report *r = s->r;
    int32_t i = rp_add_row((void **)&r->omp_sites, &r->omp_site_count, &r->omp_site_cap, sizeof *r->omp_sites);
    if (i < 0) {
        s->failed = 1;
        return -1;
    }
    ot_rp_omp_site *x = &r->omp_sites[i];
    x->name = strdup(region->name);
    x->site = strdup(region->site[0] ? region->site : region->name);
    x->file = strdup(region->file);
    x->line = region->line;
    x->kind = kind;
    x->parallel_site = -1;
    if (kind == OT_RP_OMP_LOOP) { /* "loop (dynamic) @..." -> "dynamic" */
        const char *open = strchr(region->name, '('), *close = open ? strchr(open, ')') : NULL;
        const char *at = strchr(region->name, '@');
        if (open && close && (!at || close < at) && (size_t)(close - open - 1) < sizeof x->schedule)
            memcpy(x->schedule, open + 1, (size_t)(close - open - 1));
    }
    if (!x->name || !x->site || !x->file) {
        s->failed = 1;
        return -1;
    }
    if (region->id < o->region_count)
        o->site_of_region[region->id] = i;
    return i;
}

static int grow_u64(uint64_t **a, uint32_t *count, uint32_t need)
{
    if (need <= *count)
        return 0;
    uint64_t *p = realloc(*a, need * sizeof *p);
    if (!p)
        return -1;
    memset(p + *count, 0, (need - *count) * sizeof *p);
    *a = p;
    *count = need;
    return 0;
}

/* ---- time integrals: serial, waiting, device busy ---- */

static uint64_t serial_at(const omp_thread *th, uint64_t t)
{
    return th->serial_ns + (th->tasks == 0 && t > th->serial_since ? t - th->serial_since : 0);
}

static uint64_t wait_at(const omp_thread *th, uint64_t t)
{
    return th->waited_ns + (th->waiting && t > th->wait_begin ? t - th->wait_begin : 0) + th->lock_waited_ns +
           (th->lock_waiting && t > th->lock_wait_begin ? t - th->lock_wait_begin : 0);
}

static uint64_t busy_at(const struct rp_omp *o, int device, uint64_t t)
{
    if (device < 0 || (size_t)device >= o->device_count)
        return 0;
    const omp_device *d = &o->devices[device];
    return d->busy_ns + (d->active && t > d->since ? t - d->since : 0);
}

void rp_omp_device_activity(rp_state *s, int device, uint64_t t, int starts)
{
    struct rp_omp *o = s->omp;
    if (!o || device < 0 || (size_t)device >= o->device_count)
        return;
    omp_device *d = &o->devices[device];
    if (starts) {
        if (d->active++ == 0)
            d->since = t;
    } else if (d->active && --d->active == 0 && t > d->since) {
        d->busy_ns += t - d->since;
    }
}

/* ---- loop instances ---- */

/* Spread a chunk's time evenly over the bins its iterations fall in. */
static int add_to_bins(ot_rp_omp_site *x, uint64_t trip, uint64_t first, uint64_t count, uint64_t ns)
{
    if (!count)
        return 0;
    if (!x->bin_ns) {
        x->bin_ns = calloc(OT_RP_LOOP_BINS, sizeof *x->bin_ns);
        x->bin_iterations = calloc(OT_RP_LOOP_BINS, sizeof *x->bin_iterations);
        if (!x->bin_ns || !x->bin_iterations)
            return -1;
        x->bin_trip = trip ? trip : first + count;
    }
    uint64_t space = x->bin_trip;
    if (first >= space) /* an instance with a larger trip count: its tail goes to the last bin */
        first = space - 1;
    if (first + count > space)
        count = space - first;
    const uint64_t B = OT_RP_LOOP_BINS;
    uint64_t b0 = (uint64_t)((unsigned __int128)first * B / space);
    uint64_t b1 = (uint64_t)((unsigned __int128)(first + count - 1) * B / space);
    for (uint64_t b = b0; b <= b1 && b < B; b++) {
        uint64_t lo = (uint64_t)(((unsigned __int128)b * space + B - 1) / B);
        uint64_t hi = (uint64_t)(((unsigned __int128)(b + 1) * space + B - 1) / B);
        uint64_t from = lo > first ? lo : first, to = hi < first + count ? hi : first + count;
        if (to <= from)
            continue;
        x->bin_iterations[b] += to - from;
        x->bin_ns[b] += (uint64_t)((double)ns * (double)(to - from) / (double)count);
    }
    return 0;
}

static void loop_finish(rp_state *s, loop_instance *li)
{
    ot_rp_omp_site *x = &s->r->omp_sites[li->site];
    x->instances++;
    x->wall_ns += li->end > li->begin ? li->end - li->begin : 0;
    if (x->instances == 1)
        x->trip = li->trip;
    else if (li->trip != x->trip)
        x->trip_varies = 1;
    x->trip_total += li->trip;
    if (li->size > x->threads)
        x->threads = li->size;
    uint64_t sum = 0, max = 0;
    if (grow_u64(&x->thread_busy_ns, &x->thread_busy_count, li->size) < 0)
        s->failed = 1;
    for (uint32_t j = 0; j < li->size; j++) {
        uint64_t busy = li->has_chunks ? li->chunk_ns[j] : li->loop_ns[j];
        sum += busy;
        if (busy > max)
            max = busy;
        if (j < x->thread_busy_count)
            x->thread_busy_ns[j] += busy;
    }
    x->busy_ns += sum;
    x->busy_max_ns += max;
    x->busy_mean_ns += li->joined ? sum / li->joined : 0;
    free(li->chunk_ns);
    free(li->loop_ns);
    memset(li, 0, sizeof *li);
}

static loop_instance *loop_join(rp_state *s, team *tm, uint32_t number, uint32_t size, int32_t site, uint64_t t,
                                uint64_t trip)
{
    if (!size)
        size = 1;
    if (number >= size)
        number = size - 1;
    loop_instance *found = NULL, *free_slot = NULL, *oldest = NULL;
    for (int k = 0; k < LOOPS_PER_TEAM; k++) {
        loop_instance *li = &tm->loops[k];
        if (!li->serial) {
            if (!free_slot)
                free_slot = li;
            continue;
        }
        if (!oldest || li->serial < oldest->serial)
            oldest = li;
        if (li->site == site && li->joined < li->size && !(number < 64 && li->joined_mask >> number & 1) &&
            (!found || li->serial < found->serial))
            found = li;
    }
    if (!found) {
        if (!free_slot) { /* more open instances than kept: the oldest ends here */
            loop_finish(s, oldest);
            s->r->summary.omp_instances_dropped++;
            free_slot = oldest;
        }
        found = free_slot;
        *found = (loop_instance){.serial = ++s->omp->next_serial, .site = site, .size = size, .begin = t,
                                 .trip = trip};
        found->chunk_ns = calloc(size, sizeof *found->chunk_ns);
        found->loop_ns = calloc(size, sizeof *found->loop_ns);
        if (!found->chunk_ns || !found->loop_ns) {
            s->failed = 1;
            return NULL;
        }
    }
    found->joined++;
    if (number < 64)
        found->joined_mask |= 1ull << number;
    if (t < found->begin)
        found->begin = t;
    return found;
}

/* ---- teams ---- */

static team *team_open(rp_state *s, int32_t site, uint64_t t)
{
    struct rp_omp *o = s->omp;
    team *tm = NULL;
    for (size_t i = 0; i < o->team_count && !tm; i++)
        if (!o->teams[i]->serial)
            tm = o->teams[i];
    if (!tm) {
        team **p = realloc(o->teams, (o->team_count + 1) * sizeof *p);
        if (!p || !(tm = calloc(1, sizeof *tm))) {
            if (p)
                o->teams = p;
            s->failed = 1;
            return NULL;
        }
        o->teams = p;
        o->teams[o->team_count++] = tm;
    }
    memset(tm, 0, sizeof *tm);
    tm->serial = ++o->next_serial;
    tm->site = site;
    tm->begin = t;
    return tm;
}

static int team_alive(const team *tm, uint64_t serial)
{
    return tm && tm->serial && tm->serial == serial;
}

/* The team an implicit task of thread number \p number joins (see the file comment). */
static team *team_for(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span, uint32_t number,
                      uint32_t size)
{
    struct rp_omp *o = s->omp;
    if (number == 0 && span->depth > 0) {
        rp_span *up = ot_tr_open_span(s->archive, loc, span->depth - 1)->data;
        if (up->kind == RP_SPAN_OMP && team_alive(up->omp.team, up->omp.team_serial))
            return up->omp.team;
    }
    team *best = NULL;
    for (size_t i = 0; i < o->team_count; i++) {
        team *tm = o->teams[i];
        if (tm->serial && (tm->size == 0 || tm->joined < tm->size) && (tm->size == 0 || tm->size == size) &&
            (!best || tm->serial > best->serial))
            best = tm;
    }
    return best;
}

static void wait_add(rp_state *s, omp_thread *th, uint64_t ns)
{
    if (th->wait_site >= 0)
        s->r->omp_sites[th->wait_site].wait_ns += ns;
    if (team_alive(th->wait_team, th->wait_team_serial))
        th->wait_team->wait_ns += ns;
}

static void team_close(rp_state *s, team *tm, uint64_t t)
{
    struct rp_omp *o = s->omp;
    for (size_t i = 0; i < o->thread_count; i++) { /* waiting still open counts up to the team's end */
        omp_thread *th = &o->threads[i];
        if (th->waiting && th->wait_team == tm && team_alive(tm, th->wait_team_serial)) {
            uint64_t from = th->wait_begin > tm->begin ? th->wait_begin : tm->begin;
            wait_add(s, th, t > from ? t - from : 0);
            th->wait_team = NULL;
            th->wait_site = -1;
        }
    }
    for (int k = 0; k < LOOPS_PER_TEAM; k++)
        if (tm->loops[k].serial)
            loop_finish(s, &tm->loops[k]);
    if (tm->site >= 0) {
        ot_rp_omp_site *x = &s->r->omp_sites[tm->site];
        uint64_t wall = t > tm->begin ? t - tm->begin : 0;
        x->instances++;
        x->wall_ns += wall;
        x->thread_ns += (tm->size ? tm->size : 1) * wall;
        x->wait_ns += tm->wait_ns;
        if (tm->size > x->threads)
            x->threads = tm->size;
    }
    tm->serial = 0;
}

/* ---- the visitor's share ---- */

static rp_omp_span *omp_span(const ot_tr_span *span)
{
    rp_span *x = span->data;
    x->kind = RP_SPAN_OMP;
    memset(&x->omp, 0, sizeof x->omp);
    x->omp.site = -1;
    return &x->omp;
}

static rp_omp_span *open_omp_span(const rp_state *s, const ot_tr_location *loc, uint32_t depth)
{
    rp_span *x = ot_tr_open_span(s->archive, loc, depth)->data;
    return x->kind == RP_SPAN_OMP ? &x->omp : NULL;
}

/* ---- explicit tasks: the row of a creation site, the tasks not yet started ---- */

/* The row of the tasks created at \p region's site: `task create @f:l` and `task @f:l` share it. */
static int32_t task_site_of(rp_state *s, const ot_tr_region *region)
{
    struct rp_omp *o = s->omp;
    if (region->id < o->region_count && o->site_of_region[region->id] >= 0)
        return o->site_of_region[region->id];
    ot_report *r = s->r;
    const char *where = region->site[0] ? region->site : region->name;
    for (size_t i = 0; i < r->omp_site_count; i++)
        if (r->omp_sites[i].kind == OT_RP_OMP_TASK && !strcmp(r->omp_sites[i].site, where)) {
            if (region->id < o->region_count)
                o->site_of_region[region->id] = (int32_t)i;
            return (int32_t)i;
        }
    int32_t i = omp_site_of(s, region, OT_RP_OMP_TASK);
    if (i < 0)
        return i;
    ot_rp_omp_site *x = &r->omp_sites[i];
    char *name = NULL;
    if (asprintf(&name, "task @%s", x->site) < 0) {
        s->failed = 1;
        return -1;
    }
    free(x->name);
    x->name = name;
    return i;
}

static size_t pending_slot(const struct rp_omp *o, uint64_t id)
{
    uint64_t h = id * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (o->pending_cap - 1);
}

static int pending_put(struct rp_omp *o, uint64_t id, uint64_t t)
{
    if (!id)
        return 0;
    if (2 * (o->pending_count + 1) > o->pending_cap) {
        size_t cap = o->pending_cap ? 2 * o->pending_cap : 1024;
        pending_task *old = o->pending, *p = calloc(cap, sizeof *p);
        if (!p)
            return -1;
        size_t old_cap = o->pending_cap;
        o->pending = p, o->pending_cap = cap, o->pending_count = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].id)
                pending_put(o, old[i].id, old[i].created);
        free(old);
    }
    size_t i = pending_slot(o, id);
    while (o->pending[i].id && o->pending[i].id != id)
        i = (i + 1) & (o->pending_cap - 1);
    o->pending_count += !o->pending[i].id;
    o->pending[i] = (pending_task){id, t};
    return 0;
}

/* Remove task \p id (backward-shift deletion keeps every probe run whole); 0 if not pending. */
static int pending_take(struct rp_omp *o, uint64_t id, uint64_t *created)
{
    if (!id || !o->pending_cap)
        return 0;
    size_t mask = o->pending_cap - 1, i = pending_slot(o, id);
    while (o->pending[i].id != id) {
        if (!o->pending[i].id)
            return 0;
        i = (i + 1) & mask;
    }
    *created = o->pending[i].created;
    for (size_t j = (i + 1) & mask; o->pending[j].id; j = (j + 1) & mask) {
        size_t home = pending_slot(o, o->pending[j].id);
        if (((j - home) & mask) >= ((j - i) & mask)) { /* its home is at or before the hole */
            o->pending[i] = o->pending[j];
            i = j;
        }
    }
    o->pending[i].id = 0;
    o->pending_count--;
    return 1;
}

static uint64_t attr_or(const ot_tr_span *span, int k, uint64_t otherwise)
{
    return span->attrs >> k & 1 ? span->attr[k] : otherwise;
}

/* ompt_task_flag_t bits (omp-tools.h) */
#define TASK_TARGET 0x08u
#define TASK_TASKWAIT 0x10u
#define TASK_UNDEFERRED 0x08000000u
#define TASK_UNTIED 0x10000000u
#define TASK_FINAL 0x20000000u
#define TASK_MERGEABLE 0x40000000u

static void task_created(rp_state *s, int32_t site, const ot_tr_span *span)
{
    ot_rp_omp_site *x = &s->r->omp_sites[site];
    uint64_t flags = attr_or(span, OT_TR_ATTR_TASK_FLAGS, 0);
    x->instances++;
    x->thread_instances++;
    x->undeferred += !!(flags & TASK_UNDEFERRED);
    x->final += !!(flags & TASK_FINAL);
    x->untied += !!(flags & TASK_UNTIED);
    x->mergeable += !!(flags & TASK_MERGEABLE);
    x->target += !!(flags & TASK_TARGET);
    x->taskwait += !!(flags & TASK_TASKWAIT);
    if (pending_put(s->omp, attr_or(span, OT_TR_ATTR_TASK_ID, 0), span->begin) < 0)
        s->failed = 1;
}

static void task_period_begins(rp_state *s, int32_t site, const ot_tr_span *span)
{
    ot_rp_omp_site *x = &s->r->omp_sites[site];
    uint64_t created;
    x->periods++;
    if (pending_take(s->omp, attr_or(span, OT_TR_ATTR_TASK_ID, 0), &created)) {
        x->started++;
        x->delay_ns += span->begin > created ? span->begin - created : 0;
    }
}

/* The time of a task period or a waiting part is not the run time of the
 * task period or task wait it is nested in: hand it to that one. */
static void nest_into_enclosing(rp_state *s, const ot_tr_location *loc, const ot_tr_span *span, uint64_t ns)
{
    for (uint32_t depth = span->depth; depth-- > 0;) {
        const ot_tr_span *up = ot_tr_open_span(s->archive, loc, depth);
        int cls = up->region->cls;
        if (cls == OFFTRACE_CLASS_HOST_IMPLICIT_TASK)
            return;
        if (cls == OFFTRACE_CLASS_HOST_TASK || cls == OFFTRACE_CLASS_HOST_SYNC_WAIT) {
            rp_omp_span *x = open_omp_span(s, loc, depth);
            if (x)
                x->inner_ns += ns;
            return;
        }
    }
}

/* ---- mutual exclusion ---- */

static int32_t mutex_site_of(rp_state *s, const ot_tr_region *region)
{
    int32_t i = omp_site_of(s, region, OT_RP_OMP_MUTEX);
    if (i < 0)
        return i;
    ot_rp_omp_site *x = &s->r->omp_sites[i];
    if (!x->mutex[0]) { /* "nest lock (nested) @f:l" -> "nest lock (nested)" */
        const char *at = strstr(region->name, " @");
        size_t n = at ? (size_t)(at - region->name) : strlen(region->name);
        if (n >= sizeof x->mutex)
            n = sizeof x->mutex - 1;
        memcpy(x->mutex, region->name, n);
        x->mutex[n] = 0;
    }
    return i;
}

static int is_loop(const ot_tr_region *region)
{
    return region->role == OTF2_REGION_ROLE_LOOP;
}

int rp_omp_enter(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span)
{
    struct rp_omp *o = s->omp;
    omp_thread *th = &o->threads[slot];
    const ot_tr_region *region = span->region;
    rp_omp_span *x = omp_span(span);
    s->r->summary.host_openmp_regions++;
    switch (region->cls) {
    case OFFTRACE_CLASS_HOST_PARALLEL:
        x->site = omp_site_of(s, region, OT_RP_OMP_PARALLEL);
        if (x->site >= 0 && (x->team = team_open(s, x->site, span->begin)))
            x->team_serial = ((team *)x->team)->serial;
        break;
    case OFFTRACE_CLASS_HOST_IMPLICIT_TASK: {
        uint32_t number = span->attrs >> OT_TR_ATTR_THREAD_NUMBER & 1 ? (uint32_t)span->attr[OT_TR_ATTR_THREAD_NUMBER]
                                                                      : 0;
        uint32_t size = span->attrs >> OT_TR_ATTR_TEAM_SIZE & 1 ? (uint32_t)span->attr[OT_TR_ATTR_TEAM_SIZE] : 1;
        x->saved_team = th->team, x->saved_team_serial = th->team_serial;
        x->saved_number = th->number, x->saved_size = th->size;
        team *tm = team_for(s, loc, span, number, size ? size : 1);
        if (tm) {
            if (!tm->size)
                tm->size = size ? size : 1;
            tm->joined++;
        }
        th->team = tm, th->team_serial = tm ? tm->serial : 0;
        th->number = number, th->size = size ? size : 1;
        if (th->tasks++ == 0 && span->begin > th->serial_since)
            th->serial_ns += span->begin - th->serial_since;
        break;
    }
    case OFFTRACE_CLASS_HOST_WORK:
        if (!is_loop(region))
            break;
        x->site = omp_site_of(s, region, OT_RP_OMP_LOOP);
        if (x->site < 0)
            break;
        s->r->omp_sites[x->site].thread_instances++;
        int in_team = team_alive(th->team, th->team_serial);
        team *tm = in_team ? th->team : &th->solo;
        if (!in_team && !tm->serial)
            tm->serial = ++o->next_serial, tm->site = -1;
        uint64_t trip = span->attrs >> OT_TR_ATTR_ITERATIONS & 1 ? span->attr[OT_TR_ATTR_ITERATIONS] : 0;
        loop_instance *li = loop_join(s, tm, in_team ? th->number : 0, in_team ? th->size : 1, x->site, span->begin,
                                      trip);
        x->loop = li, x->loop_serial = li ? li->serial : 0;
        break;
    case OFFTRACE_CLASS_HOST_SYNC:
        x->site = omp_site_of(s, region, OT_RP_OMP_SYNC);
        if (x->site < 0)
            break;
        ot_rp_omp_site *row = &s->r->omp_sites[x->site];
        row->thread_instances++;
        row->instances += !th->team || th->number == 0;
        /* A barrier without a source line of its own (a parallel region's
         * end whose codeptr the runtime did not give) is one site for every
         * region it ends: it belongs to none of them alone. */
        if (team_alive(th->team, th->team_serial) && th->team->site >= 0 && row->parallel_site != OT_RP_SHARED_SITE)
            row->parallel_site = row->parallel_site >= 0 && row->parallel_site != th->team->site ? OT_RP_SHARED_SITE
                                                                                                 : th->team->site;
        break;
    case OFFTRACE_CLASS_HOST_SYNC_WAIT: {
        rp_omp_span *up = span->depth ? open_omp_span(s, loc, span->depth - 1) : NULL;
        /* A wait inside a task run inside another wait (a task tree's
         * taskwaits): the outer one is taken up again when this one ends. */
        x->saved_number = th->waiting;
        if (th->waiting) {
            x->saved_size = (uint32_t)th->wait_site;
            x->saved_team = th->wait_team;
            x->saved_team_serial = th->wait_team_serial;
        }
        th->waiting = 1;
        th->wait_begin = span->begin;
        th->wait_site = up ? up->site : -1;
        th->wait_team = team_alive(th->team, th->team_serial) ? th->team : NULL;
        th->wait_team_serial = th->team_serial;
        break;
    }
    case OFFTRACE_CLASS_HOST_TASK_CREATE:
        x->site = task_site_of(s, region);
        if (x->site >= 0)
            task_created(s, x->site, span);
        break;
    case OFFTRACE_CLASS_HOST_TASK:
        x->site = task_site_of(s, region);
        if (x->site >= 0)
            task_period_begins(s, x->site, span);
        break;
    case OFFTRACE_CLASS_HOST_MUTEX:
    case OFFTRACE_CLASS_HOST_NEST_LOCK_NESTED:
        x->site = mutex_site_of(s, region);
        if (x->site >= 0) {
            s->r->omp_sites[x->site].instances++;
            s->r->omp_sites[x->site].thread_instances++;
        }
        break;
    case OFFTRACE_CLASS_HOST_MUTEX_WAIT: {
        rp_omp_span *up = span->depth ? open_omp_span(s, loc, span->depth - 1) : NULL;
        x->site = up ? up->site : -1;
        if (x->site >= 0) {
            ot_rp_omp_site *row = &s->r->omp_sites[x->site];
            if (++row->waiters > row->max_waiters)
                row->max_waiters = row->waiters;
        }
        th->lock_waiting = 1;
        th->lock_wait_begin = span->begin;
        break;
    }
    /* HOST_CHUNK: all at its Leave; HOST_MASKED, depend items and edges, lock init/destroy, cancel, flush:
     * nothing. */
    default:
        break;
    }
    return s->failed ? -ENOMEM : 0;
}

/* The innermost open loop of the thread, below \p depth and inside its implicit task. */
static rp_omp_span *enclosing_loop(const rp_state *s, const ot_tr_location *loc, uint32_t depth)
{
    while (depth-- > 0) {
        const ot_tr_span *up = ot_tr_open_span(s->archive, loc, depth);
        if (up->region->cls == OFFTRACE_CLASS_HOST_IMPLICIT_TASK)
            return NULL;
        rp_omp_span *x = open_omp_span(s, loc, depth);
        if (x && x->loop)
            return x;
    }
    return NULL;
}

static void gap_note_wait(omp_thread *th, int32_t site, uint64_t ns)
{
    if (!th->after_target || site < 0)
        return;
    gap_wait *least = &th->gap_waits[0];
    for (int k = 0; k < GAP_WAIT_SITES; k++) {
        if (th->gap_waits[k].site == site && th->gap_waits[k].ns) {
            th->gap_waits[k].ns += ns;
            return;
        }
        if (th->gap_waits[k].ns < least->ns)
            least = &th->gap_waits[k];
    }
    if (ns > least->ns)
        *least = (gap_wait){site, ns};
}

int rp_omp_leave(rp_state *s, int32_t slot, const ot_tr_location *loc, const ot_tr_span *span)
{
    struct rp_omp *o = s->omp;
    omp_thread *th = &o->threads[slot];
    rp_span *sp = span->data;
    if (sp->kind != RP_SPAN_OMP)
        return 0;
    rp_omp_span *x = &sp->omp;
    uint64_t ns = span->end > span->begin ? span->end - span->begin : 0;
    switch (span->region->cls) {
    case OFFTRACE_CLASS_HOST_PARALLEL:
        if (team_alive(x->team, x->team_serial))
            team_close(s, x->team, span->end);
        break;
    case OFFTRACE_CLASS_HOST_IMPLICIT_TASK:
        th->team = x->saved_team, th->team_serial = x->saved_team_serial;
        th->number = x->saved_number, th->size = x->saved_size;
        if (th->tasks > 0 && --th->tasks == 0)
            th->serial_since = span->end;
        break;
    case OFFTRACE_CLASS_HOST_WORK: {
        loop_instance *li = x->loop;
        if (!li || li->serial != x->loop_serial)
            break;
        uint32_t number = th->number < li->size ? th->number : li->size - 1;
        li->loop_ns[number] += ns > x->wait_ns ? ns - x->wait_ns : 0;
        if (span->end > li->end)
            li->end = span->end;
        if (++li->left >= li->size)
            loop_finish(s, li);
        break;
    }
    case OFFTRACE_CLASS_HOST_CHUNK: {
        rp_omp_span *up = span->depth ? open_omp_span(s, loc, span->depth - 1) : NULL;
        loop_instance *li = up ? up->loop : NULL;
        if (!li || li->serial != up->loop_serial)
            break;
        uint32_t number = th->number < li->size ? th->number : li->size - 1;
        li->chunk_ns[number] += ns;
        li->has_chunks = 1;
        ot_rp_omp_site *row = &s->r->omp_sites[li->site];
        uint64_t first = span->attrs >> OT_TR_ATTR_FIRST_ITERATION & 1 ? span->attr[OT_TR_ATTR_FIRST_ITERATION] : 0;
        uint64_t count = span->attrs >> OT_TR_ATTR_ITERATIONS & 1 ? span->attr[OT_TR_ATTR_ITERATIONS] : 0;
        row->chunks++;
        row->chunk_iterations += count;
        if (add_to_bins(row, li->trip, first, count, ns) < 0)
            s->failed = 1;
        break;
    }
    case OFFTRACE_CLASS_HOST_SYNC_WAIT: {
        /* Tasks the thread ran while it waited are work, not waiting. */
        uint64_t own = ns > x->inner_ns ? ns - x->inner_ns : 0;
        if (th->waiting) {
            if (th->wait_site >= 0 || th->wait_team) /* not yet counted up to its team's end */
                wait_add(s, th, own);
            rp_omp_span *loop = enclosing_loop(s, loc, span->depth);
            if (loop)
                loop->wait_ns += own;
            gap_note_wait(th, th->wait_site >= 0 ? th->wait_site : x->site, own);
            th->waited_ns += own;
            th->waiting = 0;
        }
        if (x->saved_number) {
            th->waiting = 1;
            th->wait_begin = span->end;
            th->wait_site = (int32_t)x->saved_size;
            th->wait_team = x->saved_team;
            th->wait_team_serial = x->saved_team_serial;
        }
        nest_into_enclosing(s, loc, span, ns);
        break;
    }
    case OFFTRACE_CLASS_HOST_TASK:
        if (x->site >= 0) {
            uint64_t run = ns > x->inner_ns ? ns - x->inner_ns : 0;
            s->r->omp_sites[x->site].run_ns += run;
            s->r->omp_sites[x->site].wall_ns += run;
        }
        nest_into_enclosing(s, loc, span, ns);
        break;
    case OFFTRACE_CLASS_HOST_MUTEX:
    case OFFTRACE_CLASS_HOST_NEST_LOCK_NESTED:
        if (x->site >= 0) {
            s->r->omp_sites[x->site].wall_ns += ns;
            s->r->omp_sites[x->site].hold_ns += ns > x->wait_ns ? ns - x->wait_ns : 0;
        }
        break;
    case OFFTRACE_CLASS_HOST_MUTEX_WAIT: {
        rp_omp_span *up = span->depth ? open_omp_span(s, loc, span->depth - 1) : NULL;
        if (up)
            up->wait_ns += ns;
        if (x->site >= 0) {
            ot_rp_omp_site *row = &s->r->omp_sites[x->site];
            row->wait_ns += ns;
            if (row->waiters)
                row->waiters--;
        }
        if (th->lock_waiting) {
            th->lock_waited_ns += ns;
            th->lock_waiting = 0;
        }
        gap_note_wait(th, x->site, ns);
        nest_into_enclosing(s, loc, span, ns);
        break;
    }
    default:
        break;
    }
    return s->failed ? -ENOMEM : 0;
}

/* ---- gaps between target regions ---- */

void rp_omp_target_end(rp_state *s, int32_t slot, int32_t site, int device, uint64_t t)
{
    struct rp_omp *o = s->omp;
    if (!o || slot < 0 || (size_t)slot >= o->thread_count)
        return;
    omp_thread *th = &o->threads[slot];
    th->after_target = device >= 0;
    if (!th->after_target)
        return;
    th->target_site = site;
    th->device = device;
    th->target_end = t;
    th->serial_mark = serial_at(th, t);
    th->wait_mark = wait_at(th, t);
    th->busy_mark = busy_at(o, device, t);
    memset(th->gap_waits, 0, sizeof th->gap_waits);
}

void rp_omp_target_begin(rp_state *s, int32_t slot, int32_t site, uint64_t t)
{
    struct rp_omp *o = s->omp;
    if (!o || slot < 0 || (size_t)slot >= o->thread_count || !o->threads[slot].after_target)
        return;
    omp_thread *th = &o->threads[slot];
    th->after_target = 0;
    ot_report *r = s->r;
    ot_rp_gap *g = NULL;
    for (size_t i = 0; i < r->gap_count && !g; i++)
        if (r->gaps[i].from_site == th->target_site && r->gaps[i].to_site == site && r->gaps[i].device == th->device)
            g = &r->gaps[i];
    if (!g) {
        int32_t i = rp_add_row((void **)&r->gaps, &r->gap_count, &r->gap_cap, sizeof *r->gaps);
        if (i < 0) {
            s->failed = 1;
            return;
        }
        g = &r->gaps[i];
        *g = (ot_rp_gap){.from_site = th->target_site, .to_site = site, .device = th->device, .wait_site = -1};
    }
    uint64_t gap = t > th->target_end ? t - th->target_end : 0, busy = busy_at(o, th->device, t) - th->busy_mark;
    g->count++;
    g->gap_ns += gap;
    g->idle_ns += gap > busy ? gap - busy : 0;
    g->serial_ns += serial_at(th, t) - th->serial_mark;
    g->wait_ns += wait_at(th, t) - th->wait_mark;
    const gap_wait *most = &th->gap_waits[0];
    for (int k = 1; k < GAP_WAIT_SITES; k++)
        if (th->gap_waits[k].ns > most->ns)
            most = &th->gap_waits[k];
    if (most->ns && g->wait_site < 0)
        g->wait_site = most->site;
}

/* ---- setup and wrap-up ---- */

int rp_omp_begin(rp_state *s)
{
    struct rp_omp *o = calloc(1, sizeof *o);
    if (!o)
        return -ENOMEM;
    s->omp = o;
    o->thread_count = s->thread_count;
    o->threads = calloc(o->thread_count ? o->thread_count : 1, sizeof *o->threads);
    o->device_count = s->r->device_count;
    o->devices = calloc(o->device_count ? o->device_count : 1, sizeof *o->devices);
    o->region_count = s->region_count;
    o->site_of_region = malloc((o->region_count ? o->region_count : 1) * sizeof *o->site_of_region);
    if (!o->threads || !o->devices || !o->site_of_region)
        return -ENOMEM;
    for (size_t i = 0; i < o->region_count; i++)
        o->site_of_region[i] = -1;
    for (size_t i = 0; i < o->thread_count; i++)
        o->threads[i].wait_site = o->threads[i].target_site = -1;
    return 0;
}

/* Keep \p run among the OT_RP_SLOW_RANGES largest excesses, largest first. */
static void keep_run(ot_rp_omp_site *x, double *excess, ot_rp_range run, double e)
{
    uint32_t k = x->slow_count;
    if (k == OT_RP_SLOW_RANGES) {
        if (e <= excess[k - 1])
            return;
        k--;
    } else {
        x->slow_count++;
    }
    x->slow[k] = run, excess[k] = e;
    for (; k > 0 && excess[k] > excess[k - 1]; k--) {
        ot_rp_range r = x->slow[k];
        double t = excess[k];
        x->slow[k] = x->slow[k - 1], excess[k] = excess[k - 1];
        x->slow[k - 1] = r, excess[k - 1] = t;
    }
}

/* The slowest iteration ranges of a loop: runs of adjacent bins whose time
 * per iteration is SLOW_FACTOR times the loop's mean or more, by the time
 * they took beyond that mean. */
static void slow_ranges(ot_rp_omp_site *x)
{
    if (!x->bin_ns)
        return;
    uint64_t ns = 0, it = 0;
    for (int b = 0; b < OT_RP_LOOP_BINS; b++)
        ns += x->bin_ns[b], it += x->bin_iterations[b];
    if (!it || !ns)
        return;
    double mean = (double)ns / (double)it, excess[OT_RP_SLOW_RANGES] = {0}, run_excess = 0;
    const uint64_t B = OT_RP_LOOP_BINS, space = x->bin_trip;
    ot_rp_range run = {0};
    for (uint64_t b = 0; b <= B; b++) {
        if (b < B && !x->bin_iterations[b])
            continue; /* a bin without iterations (a loop of fewer iterations than bins) breaks no run */
        if (b < B && (double)x->bin_ns[b] >= SLOW_FACTOR * mean * (double)x->bin_iterations[b]) {
            if (!run.executed)
                run.first = (uint64_t)(((unsigned __int128)b * space + B - 1) / B);
            run.count = (uint64_t)(((unsigned __int128)(b + 1) * space + B - 1) / B) - run.first;
            run.executed += x->bin_iterations[b];
            run.ns += x->bin_ns[b];
            run_excess += (double)x->bin_ns[b] - mean * (double)x->bin_iterations[b];
            continue;
        }
        if (run.executed && run_excess >= SLOW_MIN_SHARE * (double)ns)
            keep_run(x, excess, run, run_excess);
        run = (ot_rp_range){0};
        run_excess = 0;
    }
}

void rp_omp_wrap_up(rp_state *s)
{
    struct rp_omp *o = s->omp;
    if (!o)
        return;
    for (size_t i = 0; i < o->team_count; i++)
        if (o->teams[i]->serial)
            team_close(s, o->teams[i], ot_tr_last_time(s->archive));
    for (size_t i = 0; i < o->thread_count; i++)
        for (int k = 0; k < LOOPS_PER_TEAM; k++)
            if (o->threads[i].solo.loops[k].serial)
                loop_finish(s, &o->threads[i].solo.loops[k]);
    for (size_t i = 0; i < s->r->omp_site_count; i++)
        slow_ranges(&s->r->omp_sites[i]);
}

void rp_omp_free(rp_state *s)
{
    struct rp_omp *o = s->omp;
    if (!o)
        return;
    for (size_t i = 0; i < o->team_count; i++) {
        for (int k = 0; k < LOOPS_PER_TEAM; k++) {
            free(o->teams[i]->loops[k].chunk_ns);
            free(o->teams[i]->loops[k].loop_ns);
        }
        free(o->teams[i]);
    }
    for (size_t i = 0; i < o->thread_count; i++)
        for (int k = 0; k < LOOPS_PER_TEAM; k++) {
            free(o->threads[i].solo.loops[k].chunk_ns);
            free(o->threads[i].solo.loops[k].loop_ns);
        }
    free(o->teams);
    free(o->threads);
    free(o->devices);
    free(o->site_of_region);
    free(o->pending);
    free(o);
    s->omp = NULL;
}

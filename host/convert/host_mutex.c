/**
 * \file host_mutex.c
 * \brief Mutual exclusion on a host thread (issue 13, level all).
 *
 * What a thread's records become:
 *  - OMP_MUTEX BEGIN (mutex_acquire) opens `critical @f:l`, `lock @f:l`,
 *    `test lock @f:l`, `nest lock @f:l`, `ordered @f:l` (class HOST_MUTEX,
 *    role CRITICAL, ORDERED or ATOMIC by kind) and inside it its waiting
 *    part `… (waiting) @f:l` (HOST_MUTEX_WAIT); OMP_MUTEX_ACQUIRED (or the
 *    end_time of an OMP_MUTEX COMPLETE record, which the recorder makes of
 *    an acquire and its acquired) closes the waiting part and writes
 *    ThreadAcquireLock; OMP_MUTEX END
 *    (mutex_released) writes ThreadReleaseLock and closes the region. The
 *    region is acquire to release, its waiting child the wait, the rest the
 *    hold.
 *  - A nest lock set by its owner: mutex_acquire then nest_lock begin (no
 *    acquired): the region is `nest lock (nested) @f:l`
 *    (HOST_NEST_LOCK_NESTED) with its (empty) waiting part; its unset
 *    (nest_lock end) closes it. No lock event: ownership does not change.
 *  - An omp_test_lock that fails is followed by no acquired: its region and
 *    waiting part are closed where they began (zero length) when the
 *    thread's next record is anything else.
 *  - lock init/destroy, cancel and flush are instants: zero-length regions
 *    (`omp_init_lock @f:l`, `omp_destroy_nest_lock @f:l`, `cancel loop
 *    (activated) @f:l`, `flush @f:l`), which every reader, `view`, `export`
 *    and `report` show without code of their own.
 *
 * OTF2's lock events want one lock id per lock and, per lock, the order of
 * its acquisitions over all threads. The conversion goes thread by thread,
 * so the first mutex record met has mutex_locks.c read every host stream's
 * acquired records once: a lock's acquisitions in time order are its
 * acquisition order, and lock ids are the wait ids' ranks.
 */
#define _GNU_SOURCE
#include <omp-tools.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_internal.h"
#include "host_mutex.h"
#include "mutex_locks.h"
#include "region_memo.h" /* issue 18 */

/* ---- one thread ---- */

typedef struct held_lock {
    uint64_t wait_id;
    uint32_t lock_id, order;
} held_lock;

struct ot_mutex_thread {
    held_lock *held; /* locks this thread acquired and has not released, in acquisition order */
    size_t held_count, held_capacity;
    /* an omp_test_lock / omp_test_nest_lock whose outcome the next record tells */
    int test_pending;
    uint64_t test_wait_id, test_time;
    int cancelled_work;
    /* the regions of this thread's last acquire (a thread takes the same lock at the same site again and
     * again): its site, kind and nesting, valid when regions_known */
    uint64_t last_codeptr;
    uint8_t last_kind;
    int last_nested, regions_known;
    OTF2_RegionRef last_region, last_waiting;
    /* the wait id named last and its lock id (an acquire, its acquired and release name one lock) */
    uint64_t named_wait_id;
    uint32_t named_lock;
    int named_known;
};

static ot_mutex_thread *thread_state(thread_pass *p)
{
    ot_mutex_thread **m = ot_cv_pass_mutex(p);
    if (!*m)
        *m = calloc(1, sizeof **m);
    return *m;
}

void ot_host_mutex_thread_free(ot_mutex_thread *m)
{
    if (!m)
        return;
    free(m->held);
    free(m);
}

static int grow(void **items, size_t *capacity, size_t used, size_t size)
{
    if (used < *capacity)
        return 0;
    size_t grown = *capacity ? *capacity * 2 : 256;
    void *more = realloc(*items, grown * size);
    if (!more)
        return -ENOMEM;
    *items = more;
    *capacity = grown;
    return 0;
}

static const held_lock *find_held(const ot_mutex_thread *m, uint64_t wait_id)
{
    for (size_t i = m->held_count; i-- > 0;)
        if (m->held[i].wait_id == wait_id)
            return &m->held[i];
    return NULL;
}

/* The lock id of \p wait_id (mutex_locks.h). */
static uint32_t lock_id_of(converter *c, ot_mutex_thread *m, uint64_t wait_id)
{
    if (!m->named_known || m->named_wait_id != wait_id) {
        m->named_lock = ot_mutex_lock_id(ot_mutex_locks_of(c), wait_id);
        m->named_wait_id = wait_id;
        m->named_known = 1;
    }
    return m->named_lock;
}

static int is_nest_kind(uint8_t kind) { return kind == ompt_mutex_nest_lock || kind == ompt_mutex_test_nest_lock; }
static int is_test_kind(uint8_t kind) { return kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock; }

static const char *mutex_name(uint8_t kind, OTF2_RegionRole *role)
{
    *role = OTF2_REGION_ROLE_CRITICAL;
    switch (kind) {
    case ompt_mutex_lock: return "lock";
    case ompt_mutex_test_lock: return "test lock";
    case ompt_mutex_nest_lock: return "nest lock";
    case ompt_mutex_test_nest_lock: return "test nest lock";
    case ompt_mutex_critical: return "critical";
    case ompt_mutex_atomic: *role = OTF2_REGION_ROLE_ATOMIC; return "atomic";
    case ompt_mutex_ordered: *role = OTF2_REGION_ROLE_ORDERED; return "ordered";
    default: return "mutex (unknown kind)";
    }
}

/* "<stem> @<site>" as region of class \p cls with \p role (no site: the stem alone). */
static OTF2_RegionRef sited(converter *c, offtrace_event_class cls, OTF2_RegionRole role, const char *stem,
                            uint64_t codeptr)
{
    if (!codeptr)
        return ot_tw_region_with_role(c->tw, cls, role, stem, NULL, 0, 0);
    ot_srcloc loc;
    char label[512], name[640];
    if (ot_symbolizer_lookup(c->sym, codeptr, &loc) != 0)
        memset(&loc, 0, sizeof loc);
    ot_srcloc_format(&loc, codeptr, label, sizeof label);
    snprintf(name, sizeof name, "%s @%s", stem, label);
    return ot_tw_region_with_role(c->tw, cls, role, name, loc.file, loc.line, loc.line);
}

/* A region of this file is a function of its class, a variant (what its
 * name and role follow: a mutex kind, nested or not, a cancel's flags) and
 * the call site: the first record of a site names it, the others find it in
 * the memo (region_memo.h; issue 18, eleventh round: the naming, twice per
 * acquisition, was most of a lock archive's conversion). */
static uint64_t memo_head(offtrace_event_class cls, uint32_t variant)
{
    return ot_region_memo_head(OT_MEMO_HOST_MUTEX, (uint32_t)cls << 16 | variant);
}

static OTF2_RegionRef memo_keep(converter *c, uint64_t head, uint64_t codeptr, uint64_t extra, OTF2_RegionRef region)
{
    if (region != UINT32_MAX) /* out of memory: asked again next time */
        ot_region_memo_keep(c->regions, head, codeptr, extra, region);
    return region;
}

/* mutex_acquire's region (\p waiting: its waiting part) for a mutex of \p kind, \p nested (a nest lock set by its
 * owner) or not. */
static OTF2_RegionRef acquire_region(converter *c, uint8_t kind, int nested, int waiting, uint64_t codeptr)
{
    offtrace_event_class cls = waiting  ? OFFTRACE_CLASS_HOST_MUTEX_WAIT
                               : nested ? OFFTRACE_CLASS_HOST_NEST_LOCK_NESTED
                                        : OFFTRACE_CLASS_HOST_MUTEX;
    uint64_t head = memo_head(cls, nested ? 0x100u : kind);
    OTF2_RegionRef region;
    if (ot_region_memo_find(c->regions, head, codeptr, 0, &region))
        return region;
    OTF2_RegionRole role;
    const char *name = mutex_name(kind, &role);
    if (nested) {
        name = offtrace_class(OFFTRACE_CLASS_HOST_NEST_LOCK_NESTED)->name;
        role = OTF2_REGION_ROLE_CRITICAL;
    }
    char stem[128];
    if (waiting) {
        snprintf(stem, sizeof stem, "%s (waiting)", name);
        name = stem;
        role = OTF2_REGION_ROLE_CODE;
    }
    return memo_keep(c, head, codeptr, 0, sited(c, cls, role, name, codeptr));
}

/* mutex_acquire: the region and its waiting part. */
static void on_acquire(thread_pass *p, ot_mutex_thread *m, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_cv_pass_converter(p);
    int nested = is_nest_kind(r->subkind) && find_held(m, r->src_addr);
    if (!m->regions_known || m->last_codeptr != r->codeptr || m->last_kind != r->subkind || m->last_nested != nested) {
        m->last_region = acquire_region(c, r->subkind, nested, 0, r->codeptr);
        m->last_waiting = acquire_region(c, r->subkind, nested, 1, r->codeptr);
        m->last_codeptr = r->codeptr;
        m->last_kind = r->subkind;
        m->last_nested = nested;
        m->regions_known = m->last_region != UINT32_MAX && m->last_waiting != UINT32_MAX;
    }
    OTF2_RegionRef region = m->last_region, waiting = m->last_waiting;
    OTF2_AttributeList *a = ot_cv_pass_attributes(p);
    OTF2_AttributeList_AddUint32(a, OT_ATTR_LOCK_ID, lock_id_of(c, m, r->src_addr));
    if (!nested) {
        OTF2_AttributeList_AddUint64(a, OT_ATTR_LOCK_IMPLEMENTATION, r->dst_addr);
        OTF2_AttributeList_AddUint64(a, OT_ATTR_LOCK_HINT, r->bytes);
    }
    if (ot_cv_pass_open(p, nested ? OFFTRACE_RAW_OMP_NEST_LOCK : OFFTRACE_RAW_OMP_MUTEX, r->src_addr, region, t) ||
        ot_cv_pass_open(p, OFFTRACE_RAW_OMP_MUTEX_ACQUIRED, r->src_addr, waiting, t))
        return;
    if (is_test_kind(r->subkind)) {
        m->test_pending = 1;
        m->test_wait_id = r->src_addr;
        m->test_time = t;
    }
}

/* mutex_acquired (\p ticks, \p t: its time): the wait is over; the lock is this thread's. */
static void on_acquired(thread_pass *p, ot_mutex_thread *m, const offtrace_raw_record *r, uint64_t ticks, uint64_t t)
{
    if (ot_cv_pass_close(p, OFFTRACE_RAW_OMP_MUTEX_ACQUIRED, r->src_addr, t, r) != 0)
        return;
    converter *c = ot_cv_pass_converter(p);
    uint32_t lock = lock_id_of(c, m, r->src_addr);
    held_lock h = {r->src_addr, lock, ot_mutex_acquisition_order(ot_mutex_locks_of(c), lock, ticks, ot_cv_pass_thread(p))};
    if (grow((void **)&m->held, &m->held_capacity, m->held_count, sizeof *m->held) == 0)
        m->held[m->held_count++] = h;
    OTF2_EvtWriter_ThreadAcquireLock(ot_cv_pass_writer(p), NULL, t, OTF2_PARADIGM_OPENMP, h.lock_id, h.order);
    ot_tw_cover(c->tw, t);
}

/* mutex_released: the lock is given up. */
static void on_released(thread_pass *p, ot_mutex_thread *m, const offtrace_raw_record *r, uint64_t t)
{
    for (size_t i = m->held_count; i-- > 0;)
        if (m->held[i].wait_id == r->src_addr) {
            OTF2_EvtWriter_ThreadReleaseLock(ot_cv_pass_writer(p), NULL, t, OTF2_PARADIGM_OPENMP, m->held[i].lock_id,
                                             m->held[i].order);
            ot_tw_cover(ot_cv_pass_converter(p)->tw, t);
            memmove(&m->held[i], &m->held[i + 1], (m->held_count - i - 1) * sizeof *m->held);
            m->held_count--;
            break;
        }
    ot_cv_pass_close(p, OFFTRACE_RAW_OMP_MUTEX, r->src_addr, t, r);
}

/* Zero-length regions: lock init/destroy, cancel, flush. */
static const char *cancel_construct(uint64_t flags)
{
    return flags & ompt_cancel_parallel ? "parallel"
           : flags & ompt_cancel_sections ? "sections"
           : flags & ompt_cancel_loop ? "loop"
           : flags & ompt_cancel_taskgroup ? "taskgroup"
                                            : "construct";
}

static const char *cancel_state(uint64_t flags)
{
    return flags & ompt_cancel_activated ? "activated"
           : flags & ompt_cancel_detected ? "detected"
           : flags & ompt_cancel_discarded_task ? "task discarded"
                                                 : "unknown";
}

/* An instant's region: \p cls with \p variant (an init's or destroy's nest kind or not) or \p flags (a cancel's). */
static OTF2_RegionRef instant_region(converter *c, offtrace_event_class cls, uint32_t variant, uint64_t flags,
                                     uint64_t codeptr)
{
    uint64_t head = memo_head(cls, variant);
    OTF2_RegionRef region;
    if (ot_region_memo_find(c->regions, head, codeptr, flags, &region))
        return region;
    char stem[128];
    OTF2_RegionRole role = OTF2_REGION_ROLE_WRAPPER;
    if (cls == OFFTRACE_CLASS_HOST_LOCK_INIT || cls == OFFTRACE_CLASS_HOST_LOCK_DESTROY) {
        snprintf(stem, sizeof stem, "omp_%s_%slock", cls == OFFTRACE_CLASS_HOST_LOCK_INIT ? "init" : "destroy",
                 variant ? "nest_" : "");
    } else if (cls == OFFTRACE_CLASS_HOST_CANCEL) {
        role = OTF2_REGION_ROLE_CODE;
        snprintf(stem, sizeof stem, "cancel %s (%s)", cancel_construct(flags), cancel_state(flags));
    } else {
        role = OTF2_REGION_ROLE_FLUSH;
        snprintf(stem, sizeof stem, "%s", offtrace_class(cls)->name);
    }
    return memo_keep(c, head, codeptr, flags, sited(c, cls, role, stem, codeptr));
}

static void on_instant(thread_pass *p, ot_mutex_thread *m, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_cv_pass_converter(p);
    OTF2_AttributeList *a = ot_cv_pass_attributes(p);
    OTF2_RegionRef region;
    if (r->event == OFFTRACE_RAW_OMP_LOCK_INIT || r->event == OFFTRACE_RAW_OMP_LOCK_DESTROY) {
        int init = r->event == OFFTRACE_RAW_OMP_LOCK_INIT;
        region = instant_region(c, init ? OFFTRACE_CLASS_HOST_LOCK_INIT : OFFTRACE_CLASS_HOST_LOCK_DESTROY,
                                (uint32_t)is_nest_kind(r->subkind), 0, r->codeptr);
        OTF2_AttributeList_AddUint32(a, OT_ATTR_LOCK_ID, lock_id_of(c, m, r->src_addr));
        if (init) {
            OTF2_AttributeList_AddUint64(a, OT_ATTR_LOCK_IMPLEMENTATION, r->dst_addr);
            OTF2_AttributeList_AddUint64(a, OT_ATTR_LOCK_HINT, r->bytes);
        }
    } else if (r->event == OFFTRACE_RAW_OMP_CANCEL) {
        region = instant_region(c, OFFTRACE_CLASS_HOST_CANCEL, 0, r->bytes, r->codeptr);
        if ((r->bytes & (ompt_cancel_loop | ompt_cancel_sections)) &&
            (r->bytes & (ompt_cancel_activated | ompt_cancel_detected)))
            m->cancelled_work = 1;
    } else {
        region = instant_region(c, OFFTRACE_CLASS_HOST_FLUSH, 0, 0, r->codeptr);
    }
    if (ot_cv_pass_open(p, r->event, 0, region, t) == 0)
        ot_cv_pass_close(p, r->event, 0, t, r);
}

void ot_host_mutex_record(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    ot_mutex_thread *m = thread_state(p);
    if (!m)
        return;
    switch (r->event) {
    case OFFTRACE_RAW_OMP_MUTEX:
        if (r->endpoint == OFFTRACE_RAW_END) {
            on_released(p, m, r, t);
            break;
        }
        on_acquire(p, m, r, t);
        if (r->endpoint == OFFTRACE_RAW_COMPLETE) { /* the acquire and its acquired in one record */
            uint64_t end = ot_cv_to_ns(ot_cv_pass_converter(p), r->end_time);
            m->test_pending = 0;
            on_acquired(p, m, r, r->end_time, end < t ? t : end);
        }
        break;
    case OFFTRACE_RAW_OMP_MUTEX_ACQUIRED: on_acquired(p, m, r, r->time, t); break;
    case OFFTRACE_RAW_OMP_NEST_LOCK:
        if (r->endpoint == OFFTRACE_RAW_END) /* the owner's inner unset */
            ot_cv_pass_close(p, OFFTRACE_RAW_OMP_NEST_LOCK, r->src_addr, t, r);
        else /* the owner's inner set: its (empty) wait is over */
            ot_cv_pass_close(p, OFFTRACE_RAW_OMP_MUTEX_ACQUIRED, r->src_addr, t, r);
        break;
    default: on_instant(p, m, r, t); break;
    }
}

void ot_host_mutex_settle(thread_pass *p, const offtrace_raw_record *next)
{
    ot_mutex_thread *m = *ot_cv_pass_mutex(p);
    if (!m || !m->test_pending)
        return;
    m->test_pending = 0;
    if (next && next->src_addr == m->test_wait_id &&
        ((next->event == OFFTRACE_RAW_OMP_MUTEX_ACQUIRED) ||
         (next->event == OFFTRACE_RAW_OMP_NEST_LOCK && next->endpoint == OFFTRACE_RAW_BEGIN)))
        return; /* it succeeded */
    /* it failed: nothing was held, and nothing happened in between; it is
     * over, not unfinished */
    static const offtrace_raw_record over;
    if (ot_cv_pass_close(p, OFFTRACE_RAW_OMP_MUTEX_ACQUIRED, m->test_wait_id, m->test_time, &over) == 0)
        ot_cv_pass_close(p, OFFTRACE_RAW_OMP_MUTEX, m->test_wait_id, m->test_time, &over);
}

void ot_host_mutex_work_ended(ot_mutex_thread *m)
{
    if (m)
        m->cancelled_work = 0;
}

int ot_host_mutex_take_cancelled_work(ot_mutex_thread *m)
{
    if (!m || !m->cancelled_work)
        return 0;
    m->cancelled_work = 0;
    return 1;
}

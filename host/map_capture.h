/**
 * \file map_capture.h
 * \brief The recorder's side of the map capture (issue 15,
 *        include/offtrace/capture.h): which map entry a data operation
 *        belongs to, and the map sites' definitions (raw/map-sites.defs).
 */
#ifndef OT_MAP_CAPTURE_H
#define OT_MAP_CAPTURE_H

#include <omp-tools.h>
#include <stdint.h>

#include "offtrace/capture.h"
#include "offtrace/raw_format.h"

/** The capture's query, NULL when libofftrace-capture.so is not in the
 *  process (set once, at the tool's initialisation). */
extern offtrace_capture_query_fn ot_map_capture_query;

/** \brief Find the capture (dlsym(RTLD_DEFAULT)); without it, nothing is named. */
void ot_map_capture_attach(void);

/** \brief The construct's map site (defined in map-sites.defs on first sight;
 *         cached in the construct); 0 when the site table is full. */
uint32_t ot_map_capture_site(offtrace_capture_construct *c);

/**
 * The thread's last site: a loop of regions meets the same site at every
 * region, in a fresh construct each time (the construct's cache lasts one
 * region), so four compares, inline at the region's TARGET begin, spare
 * the call, the hash and the table's line (issue 18, ninth round: inline).
 */
typedef struct ot_map_capture_last_site_t {
    const void *loc, *names, *types;
    int64_t count;
    uint32_t id; /**< 0: nothing remembered */
} ot_map_capture_last_site_t;

extern __thread ot_map_capture_last_site_t ot_map_capture_last_site __attribute__((tls_model("initial-exec")));

/** \brief ot_map_capture_site with the construct's cache and the thread's
 *         last site looked at inline. */
static inline uint32_t ot_map_capture_site_cached(offtrace_capture_construct *c)
{
    if (__builtin_expect(c->recorder[0] != 0, 1)) /* site + 1, so that 0 means not looked up yet */
        return (uint32_t)(c->recorder[0] - 1);
    const ot_map_capture_last_site_t *l = &ot_map_capture_last_site;
    if (l->id && l->loc == c->loc && l->names == c->names && l->types == c->types && l->count == c->count) {
        c->recorder[0] = (uint64_t)l->id + 1;
        return l->id;
    }
    return ot_map_capture_site(c);
}

/**
 * \brief The reference of a data operation that moves or allocates host
 *        memory at \p addr (ot_map_capture_ref): the search of the entries.
 */
uint64_t ot_map_capture_entry_ref(offtrace_capture_construct *c, uint64_t target_id, uint32_t site, int optype,
                                  uint64_t addr, uint64_t bytes);

/**
 * The thread's last search that found exactly one entry with the data
 * op's begin and size (and not a ptr_and_obj entry, whose search also
 * notes it for the pointer's fix-up), with the region it was made in: a
 * mapped variable's allocation, its copy to the device and its copy back
 * search the same range of the same region, so two searches of three for
 * a `tofrom` variable are this compare (issue 18, third round). Keyed by
 * the region's id, unique in the process: a construct's entries do not
 * change within its region, and one answer with one match does not depend
 * on the op's direction.
 */
typedef struct ot_map_capture_found {
    uint64_t target_id; /**< 0: nothing remembered */
    const offtrace_capture_construct *construct; /**< the one searched (a region's ops normally share one) */
    uint64_t addr, bytes, ref;
} ot_map_capture_found;

extern __thread ot_map_capture_found ot_map_capture_last_found __attribute__((tls_model("initial-exec")));

/**
 * \brief The map reference (raw_format.h) of a data operation of the
 *        construct \p c: the entry whose host range it moves or allocates.
 *        Inline up to the search: a delete (one data op of four in a
 *        mapped region) names the device address, so it is the site alone
 *        (its entry is found at conversion from its allocation).
 * \param optype ompt_target_data_op_t.
 */
static inline uint64_t ot_map_capture_op_addr(int optype, uint64_t src, uint64_t dst)
{
    switch (optype) {
    case ompt_target_data_alloc:
    case ompt_target_data_alloc_async:
    case ompt_target_data_transfer_to_device:
    case ompt_target_data_transfer_to_device_async:
        return src;
    case ompt_target_data_transfer_from_device:
    case ompt_target_data_transfer_from_device_async:
        return dst;
    default:
        return 0;
    }
}

/** \brief Whether the thread's last search answers for \p addr and \p bytes
 *         in the construct \p c of the region \p target_id. */
static inline int ot_map_capture_found_last(const offtrace_capture_construct *c, uint64_t target_id, uint64_t addr,
                                            uint64_t bytes)
{
    return ot_map_capture_last_found.target_id == target_id && ot_map_capture_last_found.addr == addr &&
           ot_map_capture_last_found.bytes == bytes && ot_map_capture_last_found.construct == c;
}

static inline uint64_t ot_map_capture_ref(offtrace_capture_construct *c, uint64_t target_id, int optype,
                                          uint64_t src, uint64_t dst, uint64_t bytes)
{
    uint32_t site = ot_map_capture_site_cached(c);
    uint64_t addr = ot_map_capture_op_addr(optype, src, dst);
    if (!addr)
        return OFFTRACE_RAW_MAP_REF(site, OFFTRACE_RAW_MAP_NO_ENTRY);
    if (ot_map_capture_found_last(c, target_id, addr, bytes))
        return ot_map_capture_last_found.ref;
    return ot_map_capture_entry_ref(c, target_id, site, optype, addr, bytes);
}

/**
 * The construct of the target region the thread is in, as the capture's
 * query gave it at the region's TARGET begin, with the region's id: the
 * region's data ops and its TARGET end use it instead of asking again (one
 * query per region, not six, for an empty mapped region). The id decides:
 * a data op or an end of another region (one nested in it, or one that
 * began on another thread) asks the query as before. Between a construct's
 * TARGET begin and end its slot in the capture's stack stays where it is
 * (the capture pops only when libomptarget returns), so the answer cannot
 * change in between.
 */
typedef struct ot_map_capture_region {
    uint64_t target_id; /**< 0: none */
    offtrace_capture_construct *construct; /**< NULL: the query found none */
} ot_map_capture_region;

extern __thread ot_map_capture_region ot_map_capture_current __attribute__((tls_model("initial-exec")));

/** \brief The construct of the region \p target_id (see ot_map_capture_region). */
static inline offtrace_capture_construct *ot_map_capture_construct_of(uint64_t target_id)
{
    if (__builtin_expect(ot_map_capture_current.target_id == target_id, 1))
        return ot_map_capture_current.construct;
    return ot_map_capture_query();
}

/** \brief Name a TARGET record after its construct \p c and the
 *         construct's map site \p site (ot_map_capture_mark_target). */
static inline void ot_map_capture_name_target(offtrace_raw_record *r, const offtrace_capture_construct *c,
                                              uint32_t site)
{
    r->codeptr = (uint64_t)(uintptr_t)c->call_site;
    r->bytes = site;
    r->flags |= OFFTRACE_RAW_FLAG_MAP_ENTRY;
}

/**
 * \brief The construct of the region \p target_id when it and its map site
 *        are known without a call: the TARGET end of the region this
 *        thread began last (its begin asked the query and looked the site
 *        up). NULL otherwise (ot_map_capture_mark_target then asks), and
 *        always without the capture (the current region is set only where
 *        the capture's query is).
 */
static inline offtrace_capture_construct *ot_map_capture_known_construct(uint64_t target_id)
{
    offtrace_capture_construct *c = ot_map_capture_current.construct;
    /* target_id 0 (an op outside any construct) never matches: the
     * current region's id is 0 between regions while its construct stays */
    if (target_id != 0 && ot_map_capture_current.target_id == target_id && c && c->recorder[0] != 0)
        return c;
    return 0;
}

/** \brief The map site of a construct that ot_map_capture_known_construct returned. */
static inline uint32_t ot_map_capture_known_site(const offtrace_capture_construct *c)
{
    return (uint32_t)(c->recorder[0] - 1);
}

/** \brief A TARGET record of the construct the thread is in: its codeptr
 *         becomes the program's call site, its bytes the map site. */
static inline void ot_map_capture_mark_target(offtrace_raw_record *r)
{
    offtrace_capture_construct *c;
    if (__builtin_expect(ot_map_capture_query == 0, 0))
        return;
    if (r->endpoint == OFFTRACE_RAW_BEGIN) {
        c = ot_map_capture_query();
        ot_map_capture_current.target_id = r->id;
        ot_map_capture_current.construct = c;
    } else {
        c = ot_map_capture_construct_of(r->id);
        if (ot_map_capture_current.target_id == r->id)
            ot_map_capture_current.target_id = 0; /* the region is over */
    }
    if (c)
        ot_map_capture_name_target(r, c, ot_map_capture_site_cached(c));
}

/** \brief A DATA_OP record inside a construct: its codeptr (a libomptarget
 *         address) becomes its map reference. Only the end's record: it is
 *         the one written (a COMPLETE record); a begin stays in the pending
 *         slot unless an operation nests in it, and such a BEGIN record
 *         (libomptarget nests none in clang-19's constructs) goes unnamed.
 *         Half the look-ups per region. */
static inline void ot_map_capture_mark_data_op(offtrace_raw_record *r)
{
    offtrace_capture_construct *c;
    if (__builtin_expect(ot_map_capture_query != 0, 1) && r->endpoint == OFFTRACE_RAW_END && r->target_id &&
        (c = ot_map_capture_construct_of(r->target_id))) {
        r->codeptr = ot_map_capture_ref(c, r->target_id, r->subkind, r->src_addr, r->dst_addr, r->bytes);
        r->flags |= OFFTRACE_RAW_FLAG_MAP_ENTRY;
    }
}

#endif

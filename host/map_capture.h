/**
 * \file map_capture.h
 * \brief The recorder's side of the map capture (issue 15,
 *        include/offtrace/capture.h): which map entry a data operation
 *        belongs to, and the map sites' definitions (raw/map-sites.defs).
 */
#ifndef OT_MAP_CAPTURE_H
#define OT_MAP_CAPTURE_H

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
 * \brief The map reference (raw_format.h) of a data operation of the
 *        construct \p c: the entry whose host range it moves or allocates.
 * \param optype ompt_target_data_op_t.
 */
uint64_t ot_map_capture_ref(offtrace_capture_construct *c, int optype, uint64_t src, uint64_t dst, uint64_t bytes);

/** \brief A TARGET record of the construct the thread is in: its codeptr
 *         becomes the program's call site, its bytes the map site. */
static inline void ot_map_capture_mark_target(offtrace_raw_record *r)
{
    offtrace_capture_construct *c;
    if (__builtin_expect(ot_map_capture_query != 0, 1) && (c = ot_map_capture_query())) {
        r->codeptr = (uint64_t)(uintptr_t)c->call_site;
        r->bytes = ot_map_capture_site(c);
        r->flags |= OFFTRACE_RAW_FLAG_MAP_ENTRY;
    }
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
        (c = ot_map_capture_query())) {
        r->codeptr = ot_map_capture_ref(c, r->subkind, r->src_addr, r->dst_addr, r->bytes);
        r->flags |= OFFTRACE_RAW_FLAG_MAP_ENTRY;
    }
}

#endif

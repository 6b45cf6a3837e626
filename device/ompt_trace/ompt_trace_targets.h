/**
 * \file ompt_trace_targets.h
 * \brief Which host target a trace record belongs to: pairs the host's
 *        target ids (target_begin) with the runtime's (trace records).
 *
 * OMPT trace records carry the runtime's own target id; the host knows its
 * constructs by the ids its tool assigned. The two sides meet in order: the
 * host announces each construct at its begin (ot_ompt_targets_host_begin),
 * and when the runtime's target-begin record shows up in a buffer, it is
 * paired with the oldest announced construct of the same kind that is still
 * unpaired (ot_ompt_targets_runtime_begin). Kinds compare without the nowait
 * distinction. Records of a construct whose begin record was never paired
 * resolve to host id 0 (unknown).
 *
 * Bounds: OT_OMPT_TARGETS_PENDING announced constructs wait for their
 * record (the oldest is forgotten past it: a runtime that emits no record
 * for some kind of construct must not fill the queue forever), and the last
 * OT_OMPT_TARGETS_KNOWN pairs are remembered (records of older constructs
 * resolve to 0).
 *
 * Not thread-safe: the caller serialises access.
 */
#ifndef OT_DEVICE_OMPT_TRACE_TARGETS_H
#define OT_DEVICE_OMPT_TRACE_TARGETS_H

#include <stdint.h>

#define OT_OMPT_TARGETS_PENDING 256u
#define OT_OMPT_TARGETS_KNOWN 256u

typedef struct ot_ompt_targets {
    /** Announced constructs not yet paired, oldest first. */
    struct {
        uint64_t host_id;
        int kind;
    } pending[OT_OMPT_TARGETS_PENDING];
    unsigned pending_count;
    /** Learned pairs, a ring; known_next is the slot written next. */
    struct {
        uint64_t runtime_id;
        uint64_t host_id;
        uint64_t codeptr;
    } known[OT_OMPT_TARGETS_KNOWN];
    unsigned known_next;
    unsigned known_count;
} ot_ompt_targets;

/** \brief Start empty. */
void ot_ompt_targets_init(ot_ompt_targets *t);

/** \brief The host announces construct \p host_id of kind \p kind (ompt_target_t). */
void ot_ompt_targets_host_begin(ot_ompt_targets *t, uint64_t host_id, int kind);

/**
 * \brief A runtime target-begin record: pair \p runtime_id with the oldest
 *        pending host construct of the same kind.
 * \param codeptr the construct's code address from the record (0 unknown)
 * \return the host id it was paired with, 0 when none was pending (the
 *         runtime id is then remembered as unknown, so that a reused runtime
 *         id does not resolve to an older construct). Runtime id 0 is never
 *         remembered: it stands for "no id" in the records.
 */
uint64_t ot_ompt_targets_runtime_begin(ot_ompt_targets *t, uint64_t runtime_id, int kind,
                                       uint64_t codeptr);

/**
 * \brief Resolve a runtime target id (the most recent pair wins).
 * \param host_id  set to the host id, 0 when unknown
 * \param codeptr  set to the construct's code address, 0 when unknown
 * \return 1 when \p runtime_id is known, else 0 (always 0 for id 0).
 */
int ot_ompt_targets_find(const ot_ompt_targets *t, uint64_t runtime_id, uint64_t *host_id,
                         uint64_t *codeptr);

#endif /* OT_DEVICE_OMPT_TRACE_TARGETS_H */

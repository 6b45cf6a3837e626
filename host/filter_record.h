/**
 * \file filter_record.h
 * \brief The recorder's side of filters (docs/filters.md): loads
 *        OFFTRACE_FILTER once, decides once per user id, counts what it
 *        removes in raw/filter (raw_format.h) for the converter.
 *
 * Hot path: a filtered user region begin is one load of its id's byte and
 * a branch, then one increment of the thread's own counter; an unfiltered
 * one pays the load and the branch (the byte is 0 without a filter).
 */
#ifndef OT_HOST_FILTER_RECORD_H
#define OT_HOST_FILTER_RECORD_H

#include <stdint.h>

#include "offtrace/raw_format.h"
#include "stream.h"

#define OT_FILTER_USER_IDS 4096u /* OFFTRACE_USER_MAX_IDS */

/** 1 for a user id whose region, event or value the filter removes. */
extern uint8_t ot_filter_user_removed[OT_FILTER_USER_IDS + 1];

/**
 * \brief Load the filter file \p path (OFFTRACE_FILTER) and write
 *        raw/filter. A file that cannot be read or parsed is said in one
 *        line on stderr ("offtrace: filter FILE:LINE: ...") and noted as
 *        rejected: the program is then traced without any filter. Once, at
 *        start-up, after the session opened.
 */
void ot_filter_record_open(const char *path);

/** \brief Decide, once, whether user id \p id is removed (its definition). */
void ot_filter_record_define_user(uint32_t id, const char *name, const char *file, uint32_t line);

/** \brief 1 when the loaded filter removes regions named \p name that
 *         have no source file (NVTX messages: decided once per text). */
int ot_filter_record_removes_name(const char *name);

/** 1 when a filter with rules applies: host OpenMP callbacks then ask
 *  ot_filter_openmp_removed (one load and a branch when 0). */
extern int ot_filter_openmp_active;

/**
 * \brief Whether the filter removes the host OpenMP construct of raw event
 *        \p event (OFFTRACE_RAW_OMP_PARALLEL, _WORK, _SYNC, _MASKED) and
 *        \p subkind at call site \p codeptr: decided on the first
 *        encounter (its shown name, and with file rules its file:line from
 *        the debug information) and cached per (event, subkind, codeptr)
 *        in a table read without a lock. When the table is full (4096 call
 *        sites) new call sites are recorded, not filtered.
 * \return 1 removed, 0 recorded.
 */
int ot_filter_openmp_removed(uint8_t event, uint8_t subkind, const void *codeptr);

/** The calling thread's counters; NULL until its first removal. */
extern OT_TLS uint64_t *ot_filter_thread_removed;
/** 1 when the thread counts into the shared slot (atomically). */
extern OT_TLS int ot_filter_thread_shares;

uint64_t *ot_filter_take_slot(void);

/** \brief Count one removed event of \p kind (enum offtrace_raw_filtered_kind). */
static inline void ot_filter_count_removed(unsigned kind)
{
    uint64_t *removed = ot_filter_thread_removed;
    if (__builtin_expect(!removed, 0))
        removed = ot_filter_take_slot();
    if (__builtin_expect(!ot_filter_thread_shares, 1))
        removed[kind]++;
    else
        __atomic_fetch_add(&removed[kind], 1, __ATOMIC_RELAXED);
}

#endif

/**
 * \file devsync.h
 * \brief Device time -> host time for one device, from the (host, device)
 *        clock pairs taken at device attach, at every target begin and end,
 *        and at detach.
 *
 * Pairs arrive from several host threads in any order. Once all are in,
 * they are ordered by host time and fed to a time map (offset plus drift,
 * interpolated between neighbouring pairs): a device time between two pairs
 * is mapped on the line through them, so its error is at most the larger
 * error of the two pairs, however far apart they are and however much the
 * device clock drifts. A pair whose device time does not increase over the
 * previous one (a jittery read) is dropped, so the map is monotonic.
 *
 * Memory is bounded: past OT_DEVSYNC_MAX_PAIRS pairs (the collector takes
 * them at target begin and end, at most once a millisecond per device: past
 * a minute of a busy run), only the first pair of every stretch of host time is kept,
 * the stretch doubled from 1 us until half the pairs are left. A run of a
 * million target regions keeps a pair every few ms, still far closer than
 * the device clock's drift changes.
 */
#ifndef OT_SYNC_DEVSYNC_H
#define OT_SYNC_DEVSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "timemap.h"

/** Pairs kept at most (16 bytes each, as much again in the map). */
#define OT_DEVSYNC_MAX_PAIRS 65536u

typedef struct ot_devsync ot_devsync;

/** \brief An empty set of pairs, or NULL when out of memory. */
ot_devsync *ot_devsync_new(void);

/** \brief Add a pair (any order). \return 0 or -ENOMEM. */
int ot_devsync_add(ot_devsync *s, uint64_t host_ns, uint64_t device_time);

/**
 * \brief Build the map from the pairs added so far; call before mapping.
 * \return 0, -ENOMEM, or -ENODATA when there is no pair at all.
 */
int ot_devsync_build(ot_devsync *s);

/** \brief Pairs kept in the map (after dropping non-monotonic ones). */
size_t ot_devsync_points(const ot_devsync *s);

/** \brief Map a device time to host ns (identity while there is no pair). */
uint64_t ot_devsync_to_host(const ot_devsync *s, uint64_t device_time);

/** \brief ot_devsync_to_host, the same value, starting from \p hint (one
 *         per run of nearby device times, zero-initialised; see
 *         ot_timemap_apply_quickly): a device location's records stay in
 *         one segment of the map for thousands of records, where a search
 *         of the map's points for each cost more than the rest of placing
 *         it (issue 18, eleventh round). Not valid across ot_devsync_build. */
uint64_t ot_devsync_to_host_hinted(const ot_devsync *s, uint64_t device_time, ot_timemap_hint *hint);

/** \brief The map ot_devsync_to_host uses (NULL while there is no pair: the
 *         identity), for a caller that maps its records inline through
 *         ot_timemap_apply_quickly. Valid until ot_devsync_build or free. */
const ot_timemap *ot_devsync_map(const ot_devsync *s);

/** \brief Free (NULL is fine). */
void ot_devsync_free(ot_devsync *s);

#endif /* OT_SYNC_DEVSYNC_H */

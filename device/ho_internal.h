/**
 * \file ho_internal.h
 * \brief State shared by the host-offload backend (host_offload.c: devices,
 *        buffers, flush) and its handlers of the host runtime's OpenMP
 *        events (ho_callbacks.c).
 */
#ifndef OT_DEVICE_HO_INTERNAL_H
#define OT_DEVICE_HO_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "host_offload.h"
#include "thread_buffer.h"

/** One device thread of one device: its buffer and its number. */
typedef struct ho_slot {
    ot_thread_buffer buffer;
    uint32_t index;   /**< device thread number, 0, 1, ... in order of first use */
    int owned;        /**< atomic: 1 while an OS thread writes into it */
} ho_slot;

typedef struct ho_device {
    int attached;                 /**< atomic */
    pthread_mutex_t lock;         /**< slot creation and flush */
    ho_slot *slots[OT_HO_MAX_THREADS];
    uint32_t slot_count;          /**< atomic, release after slots[] is set */
    uint64_t unbuffered;          /**< atomic: events of threads that got no slot */
} ho_device;

/** Nested device parallel regions per encountering thread that get a team
 *  summary (OFFTRACE_DEVICE_DETAIL=teams); deeper ones get their PARALLEL
 *  records without one. */
#define OT_HO_TEAM_NESTING 4
/** Threads of a team with an arrival slot of their own; threads numbered
 *  past it add into the team's shared totals (atomics). */
#define OT_HO_TEAM_SLOTS 64

/**
 * The summary of one team being gathered (OFFTRACE_DEVICE_DETAIL=teams).
 * Its encountering thread owns it and starts it at parallel_begin; each
 * thread of the team stores its arrival at the closing barrier into its own
 * slot (no lock, no shared write for slot-holders); the barrier orders
 * those stores before the owner's parallel_end, which reads and clears them.
 * A generation tells a thread's late event (a worker reports its implicit
 * task's end only when next woken) from the next region using the summary.
 */
typedef struct ho_team {
    uint64_t begin;                      /**< device time of the region's BEGIN */
    uint64_t generation;                 /**< atomic: bumped at each begin */
    uint32_t threads;                    /**< the team's size (its implicit tasks say); 0: unknown */
    uint64_t extra_count, extra_sum;     /**< atomic: threads numbered >= OT_HO_TEAM_SLOTS */
    uint64_t extra_min, extra_max;       /**< atomic */
    /** Per thread number: arrival - begin + 1 (atomic; 0: none yet), each
     *  on a cache line of its own, so that threads arriving together do not
     *  take one line from each other. */
    struct {
        uint64_t value;
    } __attribute__((aligned(64))) arrival[OT_HO_TEAM_SLOTS];
} ho_team;

/** Per OS thread: which device work it is doing now, if any. */
typedef struct ho_thread {
    int device;            /**< -1 outside device work */
    uint64_t target_id;
    uint32_t depth;        /**< implicit tasks entered in device work */
    int adopted;           /**< context inherited from a device parallel region */
    uint32_t parallel_depth; /**< device parallel regions this thread encountered, not yet ended */
    ho_team *teams;        /**< OT_HO_TEAM_NESTING summaries it owns, made at first use (teams level) */
    /** The team of the implicit task at each nesting (teams level): its
     *  summary (NULL: none), generation and this thread's number in it. */
    struct {
        ho_team *team;
        uint64_t generation, begin;
        uint32_t index;
    } member[OT_HO_TEAM_NESTING];
    ho_slot *slot;         /**< slot of `device`, NULL if none could be had */
    uint32_t registry_index;
    int in_use;            /**< atomic: owned by a live OS thread */
    ho_slot *slots[OT_DEV_MAX_DEVICES];
} ho_thread;

extern ho_device ot_ho_devices[OT_DEV_MAX_DEVICES];

/** OFFTRACE_DEVICE_DETAIL (enum ot_device_detail), set at the first attach. */
extern int ot_ho_detail;

/** \brief The calling thread's state, created on first use (NULL if out of memory). */
ho_thread *ot_ho_self(void);

/** \brief The calling thread's state or NULL, without creating it. */
ho_thread *ot_ho_self_if_any(void);

/** \brief The thread registered at \p registry_index (parallel_data->value - 1), or NULL. */
ho_thread *ot_ho_registered(uint64_t registry_index);

/** \brief Enter device work on \p device for \p target_id. */
void ot_ho_enter_device(ho_thread *t, int device, uint64_t target_id);

/** \brief Leave device work. */
void ot_ho_leave_device(ho_thread *t);

#endif /* OT_DEVICE_HO_INTERNAL_H */

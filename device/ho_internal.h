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

/** Per OS thread: which device work it is doing now, if any. */
typedef struct ho_thread {
    int device;            /**< -1 outside device work */
    uint64_t target_id;
    uint32_t depth;        /**< implicit tasks entered while adopted */
    int adopted;           /**< context inherited from a device parallel region */
    ho_slot *slot;         /**< slot of `device`, NULL if none could be had */
    uint32_t registry_index;
    int in_use;            /**< atomic: owned by a live OS thread */
    ho_slot *slots[OT_DEV_MAX_DEVICES];
} ho_thread;

extern ho_device ot_ho_devices[OT_DEV_MAX_DEVICES];

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

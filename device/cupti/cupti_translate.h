/**
 * \file cupti_translate.h
 * \brief CUPTI activity records -> offtrace_device_record, joined with what
 *        the host told the backend (operations, devices).
 *
 * The translator owns no thread and makes one CUPTI call only:
 * cuptiActivityGetNextRecord, a pure walk over a buffer that works without
 * a GPU or driver (the unit tests feed it buffers they build). Everything
 * else is plain data handling, so the whole join can be tested here.
 *
 * Flow: the backend feeds every completed CUPTI buffer to
 * ot_cupti_tr_buffer(); kernels, copies and memsets are kept as pending
 * activities and external-correlation records fill a table. At the end of
 * each flush the backend calls ot_cupti_tr_drain(): every pending activity
 * is joined (CUPTI correlationId -> host op id -> target id and device),
 * sorted per device by (stream, start), and handed out as BEGIN/END record
 * pairs. An activity whose external correlation has not arrived by then is
 * emitted with op_id 0 and counted (ot_cupti_stats.uncorrelated): holding it
 * longer would break the per-stream order of what was already delivered.
 *
 * Devices: records carry the CUDA device ordinal, the host speaks OpenMP
 * device numbers. The slot of a device is its attach order. An activity
 * whose host operation is known goes to the device that operation was
 * issued on, and teaches the translator that CUDA ordinal's device. Other
 * activities use what was learned, else assume CUDA ordinal = attach order.
 *
 * Locking: ot_cupti_tr_op_begin() is lock-free and may run on any thread at
 * any time. Every other function needs the caller to serialise calls on one
 * translator (the backend holds its mutex, once per buffer or flush).
 */
#ifndef OT_CUPTI_TRANSLATE_H
#define OT_CUPTI_TRANSLATE_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_activity.h>

#include "offtrace/collector.h"

/** Most OpenMP devices one translator serves (slots 0 .. this - 1). */
#define OT_CUPTI_MAX_DEVICES 64

/** CUDA 13 has no OpenMP correlation kind; the host op id travels in CUSTOM0. */
#define OT_CUPTI_EXTERNAL_KIND CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0

/** Activities held between two drains; past it they are counted as lost. */
#define OT_CUPTI_PENDING_MAX (1u << 20)

typedef struct ot_cupti_tr ot_cupti_tr;

/** Counters since ot_cupti_tr_new(). */
typedef struct ot_cupti_stats {
    uint64_t activities;   /**< kernel, memcpy and memset records read */
    uint64_t correlations; /**< external-correlation records of OT_CUPTI_EXTERNAL_KIND */
    uint64_t ignored;      /**< records of any other kind or external kind */
    uint64_t uncorrelated; /**< activities emitted with op_id 0 */
    uint64_t unmapped;     /**< activities of no attached device, not emitted */
    uint64_t lost;         /**< sum of the values of the LOST records emitted */
    uint64_t delivered;    /**< records handed to the emit function */
} ot_cupti_stats;

/**
 * \brief Receives the records of one device at a drain.
 * \param ctx        the ctx given to ot_cupti_tr_drain()
 * \param slot       the device's slot (ot_cupti_tr_add_device())
 * \param omp_device its OpenMP device number
 * \param records    \p count records, valid only during the call
 */
typedef void (*ot_cupti_emit_fn)(void *ctx, int slot, int omp_device,
                                 const offtrace_device_record *records, size_t count);

/** \brief A new translator with no device; NULL when out of memory. */
ot_cupti_tr *ot_cupti_tr_new(void);

/** \brief Free \p tr and everything it holds (NULL is fine). */
void ot_cupti_tr_free(ot_cupti_tr *tr);

/**
 * \brief Start serving OpenMP device \p omp_device.
 * A device attached again gets its old slot back.
 * \return its slot (0, 1, ... in first-attach order), or -ENOSPC.
 */
int ot_cupti_tr_add_device(ot_cupti_tr *tr, int omp_device);

/** \brief Stop serving the device in \p slot: its later activities are unmapped. */
void ot_cupti_tr_remove_device(ot_cupti_tr *tr, int slot);

/**
 * \brief Remember that host operation \p op_id belongs to target region
 *        \p target_id on the device in \p slot.
 * Lock-free; any thread. The table is bounded (4-way sets, oldest entry of a
 * set replaced); an entry pushed out before its activities are drained only
 * costs those activities their target_id and device hint, never the op_id.
 * \p op_id 0 is ignored.
 */
void ot_cupti_tr_op_begin(ot_cupti_tr *tr, uint64_t op_id, uint64_t target_id, int slot);

/**
 * \brief Take in one CUPTI activity record.
 * Kernels (KERNEL, CONCURRENT_KERNEL), MEMCPY, MEMCPY2 (peer copies) and
 * MEMSET become pending activities; EXTERNAL_CORRELATION records of
 * OT_CUPTI_EXTERNAL_KIND fill the correlation table; the rest is ignored.
 * \return 1 when the record was used, 0 when it was ignored.
 */
int ot_cupti_tr_record(ot_cupti_tr *tr, const CUpti_Activity *record);

/**
 * \brief Take in every record of a completed CUPTI buffer, in buffer order,
 *        walked with cuptiActivityGetNextRecord.
 * \return the number of records walked (used or ignored).
 */
long ot_cupti_tr_buffer(ot_cupti_tr *tr, uint8_t *buffer, size_t valid_size);

/**
 * \brief Count \p count records CUPTI dropped (cuptiActivityGetNumDroppedRecords).
 * CUPTI does not say whose they were: they are reported on the live device
 * with the lowest slot at the next drain.
 */
void ot_cupti_tr_add_lost(ot_cupti_tr *tr, uint64_t count);

/**
 * \brief Join, sort and emit every pending activity, then forget them.
 * Per live device, in slot order, one call of \p emit with: the activities
 * sorted by (stream, start, end), each as a BEGIN record directly followed
 * by its END record; then, if anything of that device was lost since the
 * last drain, one OFFTRACE_DEVICE_LOST record (time \p now, value = count).
 * Devices with nothing to report are not called.
 * \param now the device clock now, the time of LOST records
 * \return the number of records emitted.
 */
long ot_cupti_tr_drain(ot_cupti_tr *tr, uint64_t now, ot_cupti_emit_fn emit, void *ctx);

/** \brief The counters of \p tr. */
ot_cupti_stats ot_cupti_tr_stats(const ot_cupti_tr *tr);

/**
 * \brief The offtrace copy direction (enum offtrace_device_copy) of a CUPTI
 *        copy kind (CUpti_ActivityMemcpyKind). Arrays count as device memory.
 */
uint8_t ot_cupti_copy_direction(uint8_t copy_kind);

#endif /* OT_CUPTI_TRANSLATE_H */

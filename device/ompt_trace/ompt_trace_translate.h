/**
 * \file ompt_trace_translate.h
 * \brief OMPT trace records -> offtrace device records. Pure functions: no
 *        state, no allocation, safe from any thread.
 *
 * Mapping (all on stream 0 with OFFTRACE_DEVICE_FLAG_STREAM):
 *  - target_submit(_emi) (ompt_record_target_kernel_t): KERNEL BEGIN at
 *    `time`, END at `end_time`; op_id = host_op_id, value = requested_num_teams.
 *  - target_data_op(_emi) (ompt_record_target_data_op_t) of a transfer:
 *    MEMCPY BEGIN at `time`, END at `end_time`; subkind = direction,
 *    value = bytes, op_id = host_op_id, codeptr = codeptr_ra.
 *  - everything else, including alloc/delete/associate/disassociate data
 *    ops (no data moves; the host records them itself): nothing.
 * An end before its begin (a runtime bug) is clamped to the begin so that
 * the pair still nests.
 */
#ifndef OT_DEVICE_OMPT_TRACE_TRANSLATE_H
#define OT_DEVICE_OMPT_TRACE_TRANSLATE_H

#include <stddef.h>
#include <stdint.h>

#include <omp-tools.h>

#include "offtrace/collector.h"

/** What the backend does with a trace record. */
typedef enum ot_ompt_class {
    OT_OMPT_SKIP = 0,         /**< nothing to learn or deliver */
    OT_OMPT_TARGET_BEGIN = 1, /**< a target construct begins: learn its runtime id */
    OT_OMPT_ACTIVITY = 2,     /**< a kernel or transfer: translate it */
} ot_ompt_class;

/** Records ot_ompt_translate writes at most for one trace record. */
#define OT_OMPT_TRANSLATE_MAX 2

/** \brief Classify \p r (see ot_ompt_class). */
ot_ompt_class ot_ompt_classify(const ompt_record_ompt_t *r);

/**
 * \brief The runtime's target id of \p r: the record header's, or for a
 *        target record whose header has none, the one in its body.
 */
uint64_t ot_ompt_runtime_target_id(const ompt_record_ompt_t *r);

/**
 * \brief Copy direction of a data operation.
 * \return an enum offtrace_device_copy value, or -1 when \p optype moves no
 *         data (alloc, delete, associate, disassociate, unknown).
 */
int ot_ompt_copy_direction(ompt_target_data_op_t optype);

/**
 * \brief Translate an OT_OMPT_ACTIVITY record.
 * \param r              the trace record
 * \param host_target_id the host's id of the target it belongs to, 0 unknown
 * \param target_codeptr the target construct's code address, used when \p r
 *                       has none of its own (kernels); 0 unknown
 * \param out            room for OT_OMPT_TRANSLATE_MAX records
 * \return the number of records written: 2 (BEGIN, END) or 0 when \p r
 *         describes nothing the device timeline shows.
 */
size_t ot_ompt_translate(const ompt_record_ompt_t *r, uint64_t host_target_id,
                         uint64_t target_codeptr, offtrace_device_record out[OT_OMPT_TRANSLATE_MAX]);

#endif /* OT_DEVICE_OMPT_TRACE_TRANSLATE_H */

/* OMPT trace records -> offtrace device records (see ompt_trace_translate.h). */
#include "ompt_trace_translate.h"

#include <string.h>

/* The device record's fields must hold what the OMPT records carry. */
_Static_assert(sizeof(ompt_id_t) <= sizeof(uint64_t), "op and target ids fit");
_Static_assert(sizeof(ompt_device_time_t) <= sizeof(uint64_t), "device times fit");
_Static_assert(sizeof(size_t) <= sizeof(uint64_t), "byte counts fit");
_Static_assert(sizeof(uintptr_t) <= sizeof(uint64_t), "code addresses fit");
_Static_assert(OFFTRACE_COPY_DEVICE_TO_DEVICE <= UINT8_MAX, "directions fit the subkind");

static int is_kernel(const ompt_record_ompt_t *r)
{
    return r->type == ompt_callback_target_submit || r->type == ompt_callback_target_submit_emi;
}

static int is_data_op(const ompt_record_ompt_t *r)
{
    return r->type == ompt_callback_target_data_op || r->type == ompt_callback_target_data_op_emi;
}

ot_ompt_class ot_ompt_classify(const ompt_record_ompt_t *r)
{
    if (r->type == ompt_callback_target || r->type == ompt_callback_target_emi)
        return r->record.target.endpoint == ompt_scope_begin ? OT_OMPT_TARGET_BEGIN : OT_OMPT_SKIP;
    if (is_kernel(r))
        return OT_OMPT_ACTIVITY;
    if (is_data_op(r) && ot_ompt_copy_direction(r->record.target_data_op.optype) >= 0)
        return OT_OMPT_ACTIVITY;
    return OT_OMPT_SKIP;
}

uint64_t ot_ompt_runtime_target_id(const ompt_record_ompt_t *r)
{
    if (r->target_id == 0 && (r->type == ompt_callback_target || r->type == ompt_callback_target_emi))
        return r->record.target.target_id;
    return r->target_id;
}

int ot_ompt_copy_direction(ompt_target_data_op_t optype)
{
    switch (optype) {
    case ompt_target_data_transfer_to_device:
    case ompt_target_data_transfer_to_device_async:
        return OFFTRACE_COPY_HOST_TO_DEVICE;
    case ompt_target_data_transfer_from_device:
    case ompt_target_data_transfer_from_device_async:
        return OFFTRACE_COPY_DEVICE_TO_HOST;
    default:
        return -1;
    }
}

/* Fill out[0] (BEGIN) and out[1] (END) with what both share. */
static void fill_pair(offtrace_device_record out[2], uint64_t begin, uint64_t end,
                      const offtrace_device_record *proto)
{
    out[0] = *proto;
    out[0].time = begin;
    out[0].endpoint = OFFTRACE_DEVICE_BEGIN;
    out[1] = *proto;
    out[1].time = end < begin ? begin : end;
    out[1].endpoint = OFFTRACE_DEVICE_END;
}

size_t ot_ompt_translate(const ompt_record_ompt_t *r, uint64_t host_target_id,
                         uint64_t target_codeptr, offtrace_device_record out[OT_OMPT_TRANSLATE_MAX])
{
    offtrace_device_record proto;
    memset(&proto, 0, sizeof proto);
    proto.target_id = host_target_id;
    proto.codeptr = target_codeptr;
    proto.thread = 0;
    proto.flags = OFFTRACE_DEVICE_FLAG_STREAM;

    if (is_kernel(r)) {
        const ompt_record_target_kernel_t *k = &r->record.target_kernel;
        proto.kind = OFFTRACE_DEVICE_KERNEL;
        proto.op_id = k->host_op_id;
        /* the launch configuration as collector.h packs it: the teams are the
         * grid; OMPT does not say the block, registers or shared memory */
        proto.value = offtrace_kernel_grid((uint32_t)k->requested_num_teams, 1, 1);
        fill_pair(out, r->time, k->end_time, &proto);
        out[1].value = 0;
        out[1].codeptr = 0;
        return 2;
    }
    if (is_data_op(r)) {
        const ompt_record_target_data_op_t *op = &r->record.target_data_op;
        int direction = ot_ompt_copy_direction(op->optype);
        if (direction < 0)
            return 0;
        proto.kind = OFFTRACE_DEVICE_MEMCPY;
        proto.subkind = (uint8_t)direction;
        proto.op_id = op->host_op_id;
        proto.value = op->bytes;
        if (op->codeptr_ra)
            proto.codeptr = (uint64_t)(uintptr_t)op->codeptr_ra;
        fill_pair(out, r->time, op->end_time, &proto);
        return 2;
    }
    return 0;
}

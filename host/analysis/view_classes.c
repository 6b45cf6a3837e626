/**
 * \file view_classes.c
 * \brief What colour a region gets in `offtrace view`: its legend class,
 *        from the reader's classification (trace_read.h) and, for OpenMP on
 *        the device, from the region role.
 */
#include <string.h>

#include "view_model.h"

/* Colours (Tableau-like, distinguishable in print and for most colour
 * vision): host constructs blue/purple, device work green/teal, transfers
 * warm (red = to the device, orange = back), waiting pink, bookkeeping
 * yellow/brown/grey. The target data span is pale because it encloses
 * everything and must not drown what is inside it. */
static const struct {
    const char *colour, *name;
} classes[OT_VC_COUNT] = {
    [OT_VC_TARGET] = {"#4e79a7", "target construct"},
    [OT_VC_TARGET_DATA] = {"#b9d3ee", "target data region"},
    [OT_VC_DATA_CONSTRUCT] = {"#9467bd", "enter / exit data, update"},
    [OT_VC_KERNEL] = {"#59a14f", "kernel"},
    [OT_VC_H2D] = {"#e15759", "transfer host\xe2\x86\x92" "device"},
    [OT_VC_D2H] = {"#f28e2b", "transfer device\xe2\x86\x92host"},
    [OT_VC_ALLOC] = {"#edc948", "device alloc / delete"},
    [OT_VC_API] = {"#9c755f", "omp_target_* call"},
    [OT_VC_DEV_PARALLEL] = {"#a8d5cf", "device teams / parallel / implicit task"},
    [OT_VC_DEV_LOOP] = {"#2a9d8f", "device loop / distribute / single"},
    [OT_VC_DEV_SYNC] = {"#ff9da7", "device barrier / taskwait"},
    [OT_VC_DEV_TASK] = {"#c85a9e", "device explicit task"},
    [OT_VC_MEASUREMENT] = {"#3b3b3b", "offtrace: records lost"},
    [OT_VC_OTHER] = {"#bab0ac", "other"},
};

const char *ot_view_cat_colour(ot_view_cat c) { return classes[c < OT_VC_COUNT ? c : OT_VC_OTHER].colour; }
const char *ot_view_cat_name(ot_view_cat c) { return classes[c < OT_VC_COUNT ? c : OT_VC_OTHER].name; }

/* Arrows are a shade darker than their transfer bars so that they stay
 * visible where they cross those bars. */
const char *ot_view_arrow_colour(int to_device) { return to_device ? "#b8282b" : "#c4650a"; }

static ot_view_cat by_op(int op)
{
    switch (op) {
    case OT_TR_OP_TO_DEVICE: return OT_VC_H2D;
    case OT_TR_OP_FROM_DEVICE: return OT_VC_D2H;
    case OT_TR_OP_ALLOC:
    case OT_TR_OP_DELETE: return OT_VC_ALLOC;
    default: return OT_VC_OTHER;
    }
}

static ot_view_cat device_openmp(const ot_tr_region *r)
{
    switch (r->role) {
    case OTF2_REGION_ROLE_LOOP:
    case OTF2_REGION_ROLE_SINGLE:
    case OTF2_REGION_ROLE_SINGLE_SBLOCK:
    case OTF2_REGION_ROLE_SECTIONS:
    case OTF2_REGION_ROLE_SECTION:
    case OTF2_REGION_ROLE_WORKSHARE:
    case OTF2_REGION_ROLE_MASTER: return OT_VC_DEV_LOOP;
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
    case OTF2_REGION_ROLE_TASK_WAIT:
    case OTF2_REGION_ROLE_CRITICAL:
    case OTF2_REGION_ROLE_ORDERED: return OT_VC_DEV_SYNC;
    case OTF2_REGION_ROLE_TASK:
    case OTF2_REGION_ROLE_TASK_UNTIED:
        /* implicit and initial tasks only frame their parallel region */
        return strncmp(r->name, "task", 4) == 0 ? OT_VC_DEV_TASK : OT_VC_DEV_PARALLEL;
    default: return OT_VC_DEV_PARALLEL;
    }
}

/* CUPTI / OMPT-trace activity on device queues, by name. */
static ot_view_cat device_activity(const ot_tr_region *r)
{
    if (strncmp(r->name, "kernel", 6) == 0)
        return OT_VC_KERNEL;
    if (strstr(r->name, "host->device"))
        return OT_VC_H2D;
    if (strstr(r->name, "device->host"))
        return OT_VC_D2H;
    return OT_VC_OTHER;
}

ot_view_cat ot_view_category(const ot_tr_region *r)
{
    switch (r->klass) {
    case OT_TR_TARGET: return r->construct == OT_TR_CONSTRUCT_TARGET ? OT_VC_TARGET : OT_VC_DATA_CONSTRUCT;
    case OT_TR_TARGET_DATA: return OT_VC_TARGET_DATA;
    case OT_TR_KERNEL: return OT_VC_KERNEL;
    case OT_TR_DATA_OP:
    case OT_TR_TRANSFER: return by_op(r->op);
    case OT_TR_API: return OT_VC_API;
    case OT_TR_DEVICE_OPENMP: return device_openmp(r);
    case OT_TR_DEVICE_ACTIVITY: return device_activity(r);
    case OT_TR_MEASUREMENT: return OT_VC_MEASUREMENT;
    default: return OT_VC_OTHER;
    }
}

/**
 * \file view_classes.c
 * \brief What colour a region gets in `offtrace view`: its legend class, the
 *        view column of its catalogue class (offtrace/event_catalogue.h).
 */
#include "offtrace/event_catalogue.h"
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
    /* host OpenMP (issue 13): the team pale, loops and their chunks in two
     * blues apart from the target construct's, barriers rose with their
     * waiting part a strong red (where threads lose time), masked lilac */
    [OT_VC_HOST_PARALLEL] = {"#d4e4f1", "host parallel region / implicit task"},
    [OT_VC_HOST_LOOP] = {"#76b7d6", "host loop / worksharing"},
    [OT_VC_HOST_CHUNK] = {"#1f5f8b", "host loop chunk / section"},
    [OT_VC_HOST_SYNC] = {"#f4c6cc", "host barrier / taskwait"},
    [OT_VC_HOST_WAIT] = {"#c0392b", "waiting in a host barrier / taskwait"},
    [OT_VC_HOST_MASKED] = {"#b6a2d4", "host masked"},
    /* explicit tasks olive (their points darker), locks sand with their
     * waiting part a dark crimson (lost time, as the barrier's red) */
    [OT_VC_HOST_TASK] = {"#a5ab3c", "host explicit task"},
    [OT_VC_HOST_TASK_POINT] = {"#5c6116", "host task create / depend"},
    [OT_VC_HOST_MUTEX] = {"#dcc18a", "host lock / critical / ordered held"},
    [OT_VC_HOST_MUTEX_WAIT] = {"#7b1f3f", "waiting for a host lock / critical"},
    /* the program's own words: a cyan no OpenMP class uses */
    [OT_VC_USER] = {"#17becf", "user region / event"},
    /* MPI (issue 16): indigo and violet, saturated where the muted blues
     * and purples of OpenMP are not; point-to-point, collectives, the rest
     * pale (MPI_Init can take most of a short run and must not drown it) */
    [OT_VC_MPI_P2P] = {"#3f37c9", "MPI point-to-point"},
    [OT_VC_MPI_COLLECTIVE] = {"#7b2cbf", "MPI collective"},
    [OT_VC_MPI_OTHER] = {"#c8bfff", "MPI (init, finalize, communicators)"},
    [OT_VC_MEASUREMENT] = {"#3b3b3b", "offtrace: records lost, measurement off"},
    [OT_VC_OTHER] = {"#bab0ac", "other"},
};

const char *ot_view_cat_colour(ot_view_cat c) { return classes[c < OT_VC_COUNT ? c : OT_VC_OTHER].colour; }
const char *ot_view_cat_name(ot_view_cat c) { return classes[c < OT_VC_COUNT ? c : OT_VC_OTHER].name; }

/* Arrows are a shade darker than their transfer bars so that they stay
 * visible where they cross those bars; MPI messages near black, as Vampir
 * draws them, over the MPI calls' indigo. */
const char *ot_view_arrow_colour(ot_view_arrow_kind kind)
{
    return kind == OT_VIEW_MESSAGE ? "#1a1a1a" : kind == OT_VIEW_H2D ? "#b8282b" : "#c4650a";
}

/* The view column of the catalogue, by class. */
static const uint8_t view_columns[OFFTRACE_CLASS_COUNT] = {
    [OFFTRACE_CLASS_NONE] = OT_VC_OTHER,
#define VIEW_COLUMN(c, source, name, form, role, paradigm, location, reader, construct, op, nowait, view, export, \
                    report)                                                                                     \
    [OFFTRACE_CLASS_##c] = OT_VC_##view,
    OFFTRACE_EVENT_CLASSES(VIEW_COLUMN)
#undef VIEW_COLUMN
};

/* Host OpenMP (issue 13): each kind its own colour; lock init/destroy,
 * cancel and flush (instants) keep the catalogue's view column. */
static int host_openmp_category(const ot_tr_region *r)
{
    switch (r->cls) {
    case OFFTRACE_CLASS_HOST_PARALLEL:
    case OFFTRACE_CLASS_HOST_IMPLICIT_TASK: return OT_VC_HOST_PARALLEL;
    case OFFTRACE_CLASS_HOST_WORK: return OT_VC_HOST_LOOP;
    case OFFTRACE_CLASS_HOST_CHUNK: return OT_VC_HOST_CHUNK;
    case OFFTRACE_CLASS_HOST_SYNC: return OT_VC_HOST_SYNC;
    case OFFTRACE_CLASS_HOST_SYNC_WAIT: return OT_VC_HOST_WAIT;
    case OFFTRACE_CLASS_HOST_MASKED: return OT_VC_HOST_MASKED;
    case OFFTRACE_CLASS_HOST_TASK: return OT_VC_HOST_TASK;
    case OFFTRACE_CLASS_HOST_TASK_CREATE:
    case OFFTRACE_CLASS_HOST_TASK_DEPEND:
    case OFFTRACE_CLASS_HOST_TASK_DEPENDENCE: return OT_VC_HOST_TASK_POINT;
    case OFFTRACE_CLASS_HOST_MUTEX:
    case OFFTRACE_CLASS_HOST_NEST_LOCK_NESTED: return OT_VC_HOST_MUTEX;
    case OFFTRACE_CLASS_HOST_MUTEX_WAIT: return OT_VC_HOST_MUTEX_WAIT;
    default: return -1;
    }
}

ot_view_cat ot_view_category(const ot_tr_region *r)
{
    int omp = host_openmp_category(r);
    if (omp >= 0)
        return (ot_view_cat)omp;
    return r->cls > 0 && r->cls < OFFTRACE_CLASS_COUNT ? (ot_view_cat)view_columns[r->cls] : OT_VC_OTHER;
}

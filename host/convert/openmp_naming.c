/**
 * \file openmp_naming.c
 * \brief The names and OTF2 roles of OpenMP worksharing constructs and sync
 *        regions, by their OMPT kind: the same words on device threads
 *        (device_regions.c) and host threads (host_pass.c).
 */
#include "openmp_naming.h"

#include <omp-tools.h>

ot_naming ot_work_naming(uint8_t subkind)
{
    switch (subkind) {
    case ompt_work_loop: return (ot_naming){"loop", OTF2_REGION_ROLE_LOOP};
    case ompt_work_sections: return (ot_naming){"sections", OTF2_REGION_ROLE_SECTIONS};
    case ompt_work_single_executor: return (ot_naming){"single", OTF2_REGION_ROLE_SINGLE};
    case ompt_work_single_other: return (ot_naming){"single (other thread)", OTF2_REGION_ROLE_SINGLE};
    case ompt_work_workshare: return (ot_naming){"workshare", OTF2_REGION_ROLE_WORKSHARE};
    case ompt_work_distribute: return (ot_naming){"distribute", OTF2_REGION_ROLE_LOOP};
    case ompt_work_taskloop: return (ot_naming){"taskloop", OTF2_REGION_ROLE_LOOP};
    case ompt_work_scope: return (ot_naming){"scope", OTF2_REGION_ROLE_CODE};
    case ompt_work_loop_static: return (ot_naming){"loop (static)", OTF2_REGION_ROLE_LOOP};
    case ompt_work_loop_dynamic: return (ot_naming){"loop (dynamic)", OTF2_REGION_ROLE_LOOP};
    case ompt_work_loop_guided: return (ot_naming){"loop (guided)", OTF2_REGION_ROLE_LOOP};
    case ompt_work_loop_other: return (ot_naming){"loop", OTF2_REGION_ROLE_LOOP};
    default: return (ot_naming){"worksharing", OTF2_REGION_ROLE_WORKSHARE};
    }
}

ot_naming ot_sync_naming(uint8_t subkind)
{
    switch (subkind) {
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_explicit: return (ot_naming){"barrier", OTF2_REGION_ROLE_BARRIER};
    case ompt_sync_region_barrier_implicit: return (ot_naming){"implicit barrier", OTF2_REGION_ROLE_IMPLICIT_BARRIER};
    case ompt_sync_region_barrier_implementation:
        return (ot_naming){"barrier (runtime)", OTF2_REGION_ROLE_IMPLICIT_BARRIER};
    case ompt_sync_region_taskwait: return (ot_naming){"taskwait", OTF2_REGION_ROLE_TASK_WAIT};
    case ompt_sync_region_taskgroup: return (ot_naming){"taskgroup", OTF2_REGION_ROLE_TASK_WAIT};
    case ompt_sync_region_reduction: return (ot_naming){"reduction", OTF2_REGION_ROLE_CODE};
    case ompt_sync_region_barrier_implicit_workshare:
        return (ot_naming){"implicit barrier (worksharing end)", OTF2_REGION_ROLE_IMPLICIT_BARRIER};
    case ompt_sync_region_barrier_implicit_parallel:
        return (ot_naming){"implicit barrier (parallel end)", OTF2_REGION_ROLE_IMPLICIT_BARRIER};
    case ompt_sync_region_barrier_teams:
        return (ot_naming){"implicit barrier (teams end)", OTF2_REGION_ROLE_IMPLICIT_BARRIER};
    default: return (ot_naming){"synchronization", OTF2_REGION_ROLE_BARRIER};
    }
}

ot_naming ot_chunk_naming(uint8_t subkind)
{
    switch (subkind) {
    case ompt_dispatch_section: return (ot_naming){"section", OTF2_REGION_ROLE_SECTION};
    case ompt_dispatch_taskloop_chunk: return (ot_naming){"taskloop chunk", OTF2_REGION_ROLE_CODE};
    case ompt_dispatch_distribute_chunk: return (ot_naming){"distribute chunk", OTF2_REGION_ROLE_CODE};
    case ompt_dispatch_iteration: return (ot_naming){"iteration", OTF2_REGION_ROLE_CODE};
    default: return (ot_naming){"chunk", OTF2_REGION_ROLE_CODE};
    }
}

/**
 * \file mpi_pass.c
 * \brief MPI calls as regions, one per MPI function (mpi_pass.h).
 *
 * Why one region per function and not per call site, as offtrace names its
 * OpenMP constructs: Score-P and Vampir name MPI regions so ("MPI_Send"),
 * and the tools that read MPI archives (Scalasca's patterns, Vampir's MPI
 * summaries) group by that name.
 */
#include "mpi_pass.h"

#include <stdio.h>
#include <stdlib.h>

#include "convert_internal.h"
#include "host_mutex.h"
#include "offtrace/event_catalogue_otf2.h"
#include "offtrace/mpi_calls.h"
#include "trace_writer.h"

#define OT_CV_MPI_COLL_CHECK(op, value) \
    _Static_assert(OFFTRACE_RAW_MPI_COLL_##op == (int)OTF2_COLLECTIVE_OP_##op, "collective " #op " is OTF2's");
OFFTRACE_RAW_MPI_COLLECTIVE_OPS(OT_CV_MPI_COLL_CHECK)
#undef OT_CV_MPI_COLL_CHECK

/* The region of call number \p call, defined on first use; UINT32_MAX for a
 * number past the table (damage) or out of memory. */
static OTF2_RegionRef call_region(converter *c, unsigned call)
{
    if (call >= OFFTRACE_MPI_CALL_COUNT)
        return UINT32_MAX;
    if (!c->mpi_regions) {
        c->mpi_regions = malloc(OFFTRACE_MPI_CALL_COUNT * sizeof *c->mpi_regions);
        if (!c->mpi_regions)
            return UINT32_MAX;
        for (unsigned i = 0; i < OFFTRACE_MPI_CALL_COUNT; i++)
            c->mpi_regions[i] = UINT32_MAX;
    }
    if (c->mpi_regions[call] != UINT32_MAX)
        return c->mpi_regions[call];
    static const offtrace_event_class classes[] = {
#define OT_CV_MPI_CLASS(name, family, role, op, body, params, args) OFFTRACE_CLASS_MPI_##family,
        OFFTRACE_MPI_CALLS(OT_CV_MPI_CLASS)
#undef OT_CV_MPI_CLASS
    };
    static const OTF2_RegionRole roles[] = {
#define OT_CV_MPI_ROLE(name, family, role, op, body, params, args) OTF2_REGION_ROLE_##role,
        OFFTRACE_MPI_CALLS(OT_CV_MPI_ROLE)
#undef OT_CV_MPI_ROLE
    };
    c->mpi_regions[call] =
        ot_tw_region_with_role(c->tw, classes[call], roles[call], offtrace_mpi_call_name(call), NULL, 0, 0);
    return c->mpi_regions[call];
}

void ot_mpi_convert(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_cv_pass_converter(p);
    if (r->event != OFFTRACE_RAW_MPI_CALL) { /* part 3b writes these as OTF2's MPI events */
        c->mpi_records_not_converted++;
        return;
    }
    c->mpi_calls += r->endpoint != OFFTRACE_RAW_END;
    if (r->endpoint == OFFTRACE_RAW_END) { /* its BEGIN's call number; the id is always 0 */
        ot_cv_pass_close(p, r->event, 0, t, r);
        return;
    }
    OTF2_RegionRef region = call_region(c, r->subkind);
    if (region == UINT32_MAX) {
        c->damaged_records++;
        return;
    }
    if (ot_cv_pass_open(p, r->event, 0, region, t) != 0 || r->endpoint != OFFTRACE_RAW_COMPLETE)
        return;
    uint64_t end = ot_cv_to_ns(c, r->end_time);
    if (end < t)
        end = t;
    ot_cv_pass_advance(p, end);
    ot_cv_pass_close(p, r->event, 0, end, r);
}

void ot_mpi_properties(converter *c)
{
    if (!c->mpi_calls && !c->mpi_records_not_converted)
        return;
    char value[32];
    snprintf(value, sizeof value, "%llu", (unsigned long long)c->mpi_calls);
    ot_tw_property(c->tw, "MPI_CALLS", value);
    snprintf(value, sizeof value, "%llu", (unsigned long long)c->mpi_records_not_converted);
    ot_tw_property(c->tw, "MPI_RECORDS_NOT_CONVERTED", value);
}

void ot_mpi_free(converter *c)
{
    free(c->mpi_regions);
    c->mpi_regions = NULL;
}

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
#include <string.h>

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

#define OT_MPI_MAX_RANKS (1u << 24)

/* raw/mpi.clock: "<init|finalize> <local ns> <offset ns> <round trip ns> <same boot>".
 * Ranks that share rank 0's boot have offset 0 by rule: nothing to correct. */
static void clock_load(converter *c, const char *raw_dir)
{
    char path[4400], phase[16];
    snprintf(path, sizeof path, "%s/" OFFTRACE_RAW_MPI_CLOCK_FILE, raw_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    unsigned long long local, rtt;
    long long offset;
    int same, points = 0, moved = 0;
    while (points < 2 && fscanf(f, "%15s %llu %lld %llu %d", phase, &local, &offset, &rtt, &same) == 5) {
        if (strcmp(phase, points == 0 ? "init" : "finalize") != 0 || (points && local <= c->mpi_clock_at[0]))
            break;
        c->mpi_clock_at[points] = local;
        c->mpi_clock_offset[points] = offset;
        moved |= offset != 0;
        char key[48], value[32];
        snprintf(key, sizeof key, "MPI_CLOCK_OFFSET_%s_NS", points ? "FINALIZE" : "INIT");
        snprintf(value, sizeof value, "%lld", offset);
        ot_tw_property(c->tw, key, value);
        snprintf(key, sizeof key, "MPI_CLOCK_ROUND_TRIP_%s_NS", points ? "FINALIZE" : "INIT");
        snprintf(value, sizeof value, "%llu", rtt);
        ot_tw_property(c->tw, key, value);
        if (!points) /* the rule that gave the offsets: a shared clock, or measured (docs/mpi.md) */
            ot_tw_property(c->tw, "MPI_CLOCK_SAME_MACHINE", same ? "1" : "0");
        points++;
    }
    fclose(f);
    c->mpi_clock_points = moved ? points : 0;
}

uint64_t ot_mpi_on_rank0_clock(const converter *c, uint64_t ns)
{
    int64_t offset = c->mpi_clock_offset[0];
    if (c->mpi_clock_points == 2 && ns > c->mpi_clock_at[0]) { /* the drift: linear between the two */
        if (ns >= c->mpi_clock_at[1])
            offset = c->mpi_clock_offset[1];
        else
            offset += (int64_t)((double)(c->mpi_clock_offset[1] - c->mpi_clock_offset[0]) *
                                (double)(ns - c->mpi_clock_at[0]) / (double)(c->mpi_clock_at[1] - c->mpi_clock_at[0]));
    }
    if (offset < 0 && (uint64_t)-offset > ns)
        return 0;
    return ns + (uint64_t)offset;
}

void ot_mpi_defs_load(converter *c, const char *raw_dir)
{
    c->mpi_collective_begin = UINT64_MAX;
    clock_load(c, raw_dir);
    char path[4400];
    snprintf(path, sizeof path, "%s/" OFFTRACE_RAW_MPI_RANK_FILE, raw_dir);
    FILE *f = fopen(path, "r");
    unsigned rank, size;
    /* a size past what location ids hold (rank << 40: 2^24 ranks) is damage, not a job */
    int ok = f && fscanf(f, "%u %u", &rank, &size) == 2 && rank < size && size <= OT_MPI_MAX_RANKS;
    if (f)
        fclose(f);
    if (!ok)
        return; /* not an MPI program, or MPI_Init never came: its records name no communicator */
    ot_tw_mpi_world(c->tw, size);
    snprintf(path, sizeof path, "%s/" OFFTRACE_RAW_MPI_COMMS_FILE, raw_dir);
    f = fopen(path, "r");
    if (!f)
        return;
    /* "<id> <parent> <size> <world rank> ...": ranks read into a buffer grown to the largest size */
    uint32_t *ranks = NULL;
    size_t capacity = 0;
    unsigned long long id, parent;
    unsigned members;
    while (fscanf(f, "%llu %llu %u", &id, &parent, &members) == 3) {
        if (members > size || members == 0) {
            c->mpi_comms_damaged++;
            break;
        }
        if (members > capacity) {
            uint32_t *grown = realloc(ranks, members * sizeof *ranks);
            if (!grown)
                break;
            ranks = grown;
            capacity = members;
        }
        unsigned i = 0;
        while (i < members && fscanf(f, "%u", &ranks[i]) == 1)
            i++;
        if (i < members || ot_tw_mpi_add_comm(c->tw, id, parent, members, ranks) != 0) {
            c->mpi_comms_damaged++;
            break;
        }
    }
    free(ranks);
    fclose(f);
}

/* An MPI event of record \p r at \p t on the thread of \p p; 0 when written. */
static int mpi_event(thread_pass *p, converter *c, const offtrace_raw_record *r, uint64_t t)
{
    OTF2_EvtWriter *w = ot_cv_pass_writer(p);
    OTF2_CommRef comm = ot_tw_mpi_comm(c->tw, r->id);
    uint32_t peer = (uint32_t)r->src_addr, tag = (uint32_t)r->dst_addr;
    switch (r->event) {
    case OFFTRACE_RAW_MPI_SEND:
        if (comm == OTF2_UNDEFINED_COMM)
            return -1;
        OTF2_EvtWriter_MpiSend(w, NULL, t, peer, comm, tag, r->bytes);
        return 1;
    case OFFTRACE_RAW_MPI_RECV:
        if (comm == OTF2_UNDEFINED_COMM)
            return -1;
        OTF2_EvtWriter_MpiRecv(w, NULL, t, peer, comm, tag, r->bytes);
        return 1;
    case OFFTRACE_RAW_MPI_ISEND:
        if (comm == OTF2_UNDEFINED_COMM)
            return -1;
        OTF2_EvtWriter_MpiIsend(w, NULL, t, peer, comm, tag, r->bytes, r->target_id);
        return 1;
    case OFFTRACE_RAW_MPI_IRECV_REQUEST:
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, r->target_id);
        return 1;
    case OFFTRACE_RAW_MPI_REQUEST_DONE:
        if (r->subkind == OFFTRACE_RAW_MPI_DONE_ISEND)
            OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, r->target_id);
        else if (r->subkind == OFFTRACE_RAW_MPI_DONE_CANCELLED)
            OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t, r->target_id);
        else if (r->subkind == OFFTRACE_RAW_MPI_DONE_IRECV && comm != OTF2_UNDEFINED_COMM)
            OTF2_EvtWriter_MpiIrecv(w, NULL, t, peer, comm, tag, r->bytes, r->target_id);
        else
            return -1;
        return 1;
    case OFFTRACE_RAW_MPI_REQUEST_TEST:
        OTF2_EvtWriter_MpiRequestTest(w, NULL, t, r->target_id);
        return 1;
    case OFFTRACE_RAW_MPI_COLLECTIVE: {
        /* The Begin is written with its End, once the End's communicator is
         * known to be defined: a pair is whole or absent. The wrappers
         * record nothing between the two (their recursion guard). */
        size_t stream = ot_cv_pass_stream_index(p);
        if (r->endpoint == OFFTRACE_RAW_BEGIN) {
            c->mpi_collective_begin = t;
            c->mpi_collective_stream = stream;
            return 0; /* written and counted with its End */
        }
        uint64_t begin = c->mpi_collective_begin;
        c->mpi_collective_begin = UINT64_MAX;
        if (begin == UINT64_MAX || c->mpi_collective_stream != stream || comm == OTF2_UNDEFINED_COMM ||
            r->subkind > OFFTRACE_RAW_MPI_COLL_REDUCE_SCATTER_BLOCK)
            return -2;
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, begin);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, (OTF2_CollectiveOp)r->subkind, comm,
                                        r->src_addr == OFFTRACE_RAW_MPI_NO_ROOT ? OTF2_UNDEFINED_UINT32 : peer,
                                        r->bytes, r->dst_addr);
        return 2;
    }
    default:
        return -1;
    }
}

void ot_mpi_convert(thread_pass *p, const offtrace_raw_record *r, uint64_t t)
{
    converter *c = ot_cv_pass_converter(p);
    if (r->event == OFFTRACE_RAW_MPI_COMM || r->event == OFFTRACE_RAW_MPI_CLOCK) {
        c->mpi_definitions++; /* communicators from mpi.comms, clocks from mpi.clock */
        return;
    }
    if (r->event != OFFTRACE_RAW_MPI_CALL) {
        int rc = mpi_event(p, c, r, t); /* events written, or -records not converted */
        if (rc >= 0)
            c->mpi_events += (uint64_t)rc;
        else
            c->mpi_records_not_converted += (uint64_t)-rc;
        ot_tw_cover(c->tw, t);
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
    if (!c->mpi_calls && !c->mpi_records_not_converted && !c->mpi_events)
        return;
    char value[32];
    snprintf(value, sizeof value, "%llu", (unsigned long long)c->mpi_calls);
    ot_tw_property(c->tw, "MPI_CALLS", value);
    snprintf(value, sizeof value, "%llu", (unsigned long long)c->mpi_records_not_converted);
    ot_tw_property(c->tw, "MPI_RECORDS_NOT_CONVERTED", value);
    snprintf(value, sizeof value, "%llu", (unsigned long long)c->mpi_events);
    ot_tw_property(c->tw, "MPI_EVENTS", value);
    if (c->mpi_comms_damaged)
        ot_tw_property(c->tw, "MPI_COMMUNICATORS_DAMAGED", "1");
}

void ot_mpi_free(converter *c)
{
    free(c->mpi_regions);
    c->mpi_regions = NULL;
}

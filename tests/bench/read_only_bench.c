/*
 * How fast trace_read.h delivers an archive's events, paired, to a visitor
 * that does nothing but count them: the floor under every analysis verb
 * (report, view, export) and the summary. With --local, the same events read location by location
 * with OTF2's own per-location readers and no time-ordered merge: the floor
 * under trace_read itself. Prints events, seconds and events per second.
 *   usage: bench_read_only DIR [ROUNDS] [--local]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <otf2/otf2.h>

#include "trace_read.h"

static int count_span(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    ++*(uint64_t *)user;
    return 0;
}

static int count_transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    ++*(uint64_t *)user;
    return 0;
}

/* Each delivery but `issue` stands for one event; Completions come with `transfer`. */
static int count_memory(void *user, const ot_tr_location *loc, uint64_t time, uint64_t bytes)
{
    ++*(uint64_t *)user;
    return 0;
}

/* ---- --local: OTF2's per-location readers, every event counted ---- */

typedef struct local_count {
    uint64_t events;
    uint64_t ids[4096];
    size_t locations;
} local_count;

static OTF2_CallbackCode l_region(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                                  OTF2_RegionRef r)
{
    ((local_count *)u)->events++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode l_rma(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                               OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes, uint64_t id)
{
    ((local_count *)u)->events++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode l_complete(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u,
                                    OTF2_AttributeList *a, OTF2_RmaWinRef w, uint64_t id)
{
    ((local_count *)u)->events++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode l_metric(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void *u, OTF2_AttributeList *a,
                                  OTF2_MetricRef m, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *v)
{
    ((local_count *)u)->events++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode l_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                                    uint64_t events, OTF2_LocationGroupRef group)
{
    local_count *c = u;
    if (c->locations == sizeof c->ids / sizeof c->ids[0])
        return OTF2_CALLBACK_INTERRUPT;
    c->ids[c->locations++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static int read_definitions(OTF2_Reader *r, local_count *c)
{
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, l_location);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, g, cb, c);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseGlobalDefReader(r, g);
    return rc;
}

static int read_location(OTF2_Reader *r, OTF2_EvtReaderCallbacks *cb, local_count *c, uint64_t id)
{
    OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, id);
    if (!er)
        return -1;
    OTF2_Reader_RegisterEvtCallbacks(r, er, cb, c);
    uint64_t n;
    int rc = OTF2_Reader_ReadAllLocalEvents(r, er, &n) == OTF2_SUCCESS ? 0 : -1;
    OTF2_Reader_CloseEvtReader(r, er);
    return rc;
}

/* Every event of every location, one location after the other. */
static int read_local(const char *dir, uint64_t *events)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    static local_count c;
    c.events = c.locations = 0;
    int rc = r && OTF2_Reader_SetSerialCollectiveCallbacks(r) == OTF2_SUCCESS ? read_definitions(r, &c) : -1;
    for (size_t i = 0; rc == 0 && i < c.locations; i++)
        OTF2_Reader_SelectLocation(r, c.ids[i]);
    if (rc == 0 && OTF2_Reader_OpenEvtFiles(r) == OTF2_SUCCESS) {
        OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
        OTF2_EvtReaderCallbacks_SetEnterCallback(cb, l_region);
        OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, l_region);
        OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, l_rma);
        OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, l_rma);
        OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, l_complete);
        OTF2_EvtReaderCallbacks_SetMetricCallback(cb, l_metric);
        for (size_t i = 0; rc == 0 && i < c.locations; i++)
            rc = read_location(r, cb, &c, c.ids[i]);
        OTF2_EvtReaderCallbacks_Delete(cb);
        OTF2_Reader_CloseEvtFiles(r);
    } else {
        rc = -1;
    }
    if (r)
        OTF2_Reader_Close(r);
    *events = c.events;
    return rc;
}

/* ---- through trace_read ---- */

static int read_visited(const char *dir, uint64_t *events)
{
    ot_tr_visitor v = {.enter = count_span, .leave = count_span, .issue = count_transfer,
                       .transfer = count_transfer, .memory = count_memory};
    char err[512];
    *events = 0;
    if (ot_trace_read(dir, &v, events, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_read_only DIR [ROUNDS] [--local]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    int local = argc > 3 && !strcmp(argv[3], "--local");
    double best = 0;
    uint64_t events = 0;
    for (int r = 0; r < rounds; r++) {
        double start = now_s();
        if ((local ? read_local : read_visited)(argv[1], &events) != 0) {
            fprintf(stderr, "bench_read_only: cannot read %s\n", argv[1]);
            return 1;
        }
        double s = now_s() - start;
        if (r == 0 || s < best)
            best = s;
    }
    printf("%s: %llu events, best of %d: %.3f s, %.2f M events/s\n", local ? "OTF2 per-location readers" : "trace_read",
           (unsigned long long)events, rounds, best, events / best / 1e6);
    return 0;
}

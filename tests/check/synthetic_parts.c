/**
 * \file synthetic_parts.c
 * \brief The job parts of synthetic_parts.h, written with OTF2's writer.
 */
#define _GNU_SOURCE
#include "synthetic_parts.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "offtrace/event_catalogue.h"

enum {
    S_EMPTY, S_MACHINE, S_HOST, S_NODE_CLASS, S_DEVICE_CLASS, S_DEVICE_NODE, S_GROUP, S_DEVICE_GROUP, S_MASTER,
    S_RDMA, S_MAIN, S_TARGET, S_DATA_OP, S_TRANSFER, S_RANK_REGION, S_FILE, S_HOST_ADDRESS, S_HOST_ADDRESS_DESC,
    S_NOTE, S_NOTE_DESC, S_ODD_ATTR, S_HALO, S_COMM_LOCATIONS, S_COMM_GROUP, S_COMM, S_WINDOW, S_SCRATCH_COMM,
    S_SCRATCH_WINDOW, S_MEMORY, S_BYTES, S_USER_METRIC, S_ROLE_KEY, S_HOST_THREAD, S_RDMA_ROLE, S_RANK_KEY,
    S_DEVICE_KEY, S_CLASS_TARGET, S_CLASS_DATA_OP, S_CLASS_TRANSFER, S_PARADIGM, S_COUNT
};
enum { R_MAIN, R_TARGET, R_DATA_OP, R_TRANSFER, R_RANK_ONLY, R_COUNT };

typedef struct part {
    int rank, odd;
    char text[S_COUNT][96];
    uint32_t ref[S_COUNT];    /* the rank's string ref of each string */
    uint32_t region[R_COUNT]; /* the rank's region ref of each region */
    OTF2_AttributeRef host_address, note, odd_attr;
    OTF2_RmaWinRef window;
    OTF2_MetricRef memory, user;
    uint64_t master, rdma, t0;
} part;

static void name_strings(part *p)
{
    static const char *const fixed[S_COUNT] = {
        [S_EMPTY] = "", [S_MACHINE] = "machine", [S_NODE_CLASS] = "node", [S_DEVICE_CLASS] = "OpenMP Device",
        [S_DEVICE_NODE] = "x86 device 0", [S_MASTER] = "Master thread", [S_RDMA] = "device 0 RDMA",
        [S_MAIN] = "main", [S_TARGET] = "target @cg.c:10", [S_DATA_OP] = "data op host->device @cg.c:11",
        [S_TRANSFER] = "transfer host->device", [S_FILE] = "cg.c", [S_HOST_ADDRESS] = "host address",
        [S_HOST_ADDRESS_DESC] = "host start address", [S_NOTE] = "note", [S_NOTE_DESC] = "a string value",
        [S_ODD_ATTR] = "odd rank attr", [S_COMM_LOCATIONS] = "offload transfer locations",
        [S_COMM_GROUP] = "offload transfer group", [S_COMM] = "offload transfers",
        [S_WINDOW] = "offload transfer window", [S_SCRATCH_COMM] = "scratch comm",
        [S_SCRATCH_WINDOW] = "scratch window", [S_MEMORY] = "device memory in use", [S_BYTES] = "bytes",
        [S_ROLE_KEY] = OFFTRACE_LOCATION_ROLE_PROPERTY, [S_HOST_THREAD] = "HOST_THREAD", [S_RDMA_ROLE] = "RDMA",
        [S_RANK_KEY] = OFFTRACE_LOCATION_MPI_RANK_PROPERTY, [S_DEVICE_KEY] = OFFTRACE_LOCATION_DEVICE_PROPERTY,
        [S_CLASS_TARGET] = OFFTRACE_REGION_CLASS_GROUP_PREFIX "TARGET",
        [S_CLASS_DATA_OP] = OFFTRACE_REGION_CLASS_GROUP_PREFIX "DATA_OP_TO_DEVICE",
        [S_CLASS_TRANSFER] = OFFTRACE_REGION_CLASS_GROUP_PREFIX "TRANSFER_TO_DEVICE",
        [S_PARADIGM] = "OpenMP Target"};
    for (int i = 0; i < S_COUNT; i++)
        snprintf(p->text[i], sizeof p->text[i], "%s", fixed[i] ? fixed[i] : "");
    snprintf(p->text[S_HOST], sizeof p->text[S_HOST], "%s", p->rank < 2 ? "node-a" : "node-b");
    snprintf(p->text[S_GROUP], sizeof p->text[S_GROUP], "MPI Rank %d", p->rank);
    snprintf(p->text[S_DEVICE_GROUP], sizeof p->text[S_DEVICE_GROUP], "MPI Rank %d device 0", p->rank);
    snprintf(p->text[S_RANK_REGION], sizeof p->text[S_RANK_REGION], "rank %d only", p->rank);
    snprintf(p->text[S_HALO], sizeof p->text[S_HALO], "halo %d", p->rank);
    snprintf(p->text[S_USER_METRIC], sizeof p->text[S_USER_METRIC], "rank %d value", p->rank);
    /* Rotated by rank: the same string has another ref in every part. */
    for (int i = 0; i < S_COUNT; i++)
        p->ref[i] = (uint32_t)((i + 7 * p->rank) % S_COUNT);
    for (int i = 0; i < R_COUNT; i++)
        p->region[i] = (uint32_t)((i + p->rank) % R_COUNT);
}

#define REF(s) p->ref[s]

static void write_definitions(OTF2_GlobalDefWriter *g, const part *p, const uint64_t events[2])
{
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, p->t0, 61, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t ref = 0; ref < S_COUNT; ref++)
        for (int s = 0; s < S_COUNT; s++)
            if (p->ref[s] == ref)
                OTF2_GlobalDefWriter_WriteString(g, ref, p->text[s]);
    OTF2_GlobalDefWriter_WriteParadigm(g, OFFTRACE_PARADIGM_OPENMP_TARGET, REF(S_PARADIGM),
                                       OTF2_PARADIGM_CLASS_ACCELERATOR);
    OTF2_AttributeValue yes;
    OTF2_Type type;
    OTF2_AttributeValue_SetBoolean(OTF2_TRUE, &type, &yes);
    OTF2_GlobalDefWriter_WriteParadigmProperty(g, OFFTRACE_PARADIGM_OPENMP_TARGET, OTF2_PARADIGM_PROPERTY_RMA_ONLY,
                                               type, yes);
    if (p->odd)
        OTF2_GlobalDefWriter_WriteAttribute(g, p->odd_attr, REF(S_ODD_ATTR), REF(S_EMPTY), OTF2_TYPE_UINT32);
    OTF2_GlobalDefWriter_WriteAttribute(g, p->host_address, REF(S_HOST_ADDRESS), REF(S_HOST_ADDRESS_DESC),
                                        OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, p->note, REF(S_NOTE), REF(S_NOTE_DESC), OTF2_TYPE_STRING);

    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, REF(S_MACHINE), REF(S_MACHINE), OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, 0, OTF2_SYSTEM_TREE_DOMAIN_MACHINE);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, REF(S_HOST), REF(S_NODE_CLASS), 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, 1, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 2, REF(S_DEVICE_NODE), REF(S_DEVICE_CLASS), 1);
    OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, 2, OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, REF(S_GROUP), OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, REF(S_DEVICE_GROUP), OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 2, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, p->master, REF(S_MASTER), OTF2_LOCATION_TYPE_CPU_THREAD, events[0], 0);
    OTF2_GlobalDefWriter_WriteLocation(g, p->rdma, REF(S_RDMA), OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, events[1], 1);
    OTF2_AttributeValue v;
    const uint64_t locations[2] = {p->master, p->rdma};
    for (int l = 0; l < 2; l++) {
        v.stringRef = REF(l ? S_RDMA_ROLE : S_HOST_THREAD);
        OTF2_GlobalDefWriter_WriteLocationProperty(g, locations[l], REF(S_ROLE_KEY), OTF2_TYPE_STRING, v);
        v.uint32 = (uint32_t)p->rank;
        OTF2_GlobalDefWriter_WriteLocationProperty(g, locations[l], REF(S_RANK_KEY), OTF2_TYPE_UINT32, v);
    }
    v.uint32 = 0;
    OTF2_GlobalDefWriter_WriteLocationProperty(g, p->rdma, REF(S_DEVICE_KEY), OTF2_TYPE_UINT32, v);

    static const struct { int name; OTF2_RegionRole role; OTF2_Paradigm paradigm; uint32_t line; } regions[R_COUNT] = {
        [R_MAIN] = {S_MAIN, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, 3},
        [R_TARGET] = {S_TARGET, OTF2_REGION_ROLE_TASK_WAIT, OFFTRACE_PARADIGM_OPENMP_TARGET, 10},
        [R_DATA_OP] = {S_DATA_OP, OTF2_REGION_ROLE_DATA_TRANSFER, OFFTRACE_PARADIGM_OPENMP_TARGET, 11},
        [R_TRANSFER] = {S_TRANSFER, OTF2_REGION_ROLE_DATA_TRANSFER, OFFTRACE_PARADIGM_OPENMP_TARGET, 0},
        [R_RANK_ONLY] = {S_RANK_REGION, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, 20},
    };
    for (uint32_t ref = 0; ref < R_COUNT; ref++)
        for (int r = 0; r < R_COUNT; r++)
            if (p->region[r] == ref)
                OTF2_GlobalDefWriter_WriteRegion(g, ref, REF(regions[r].name), REF(regions[r].name), REF(S_EMPTY),
                                                 regions[r].role, regions[r].paradigm, OTF2_REGION_FLAG_NONE,
                                                 regions[r].line ? REF(S_FILE) : OTF2_UNDEFINED_STRING,
                                                 regions[r].line, regions[r].line);

    const uint64_t members[2] = {p->master, p->rdma}, ranks[2] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, REF(S_COMM_LOCATIONS), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                    OFFTRACE_PARADIGM_OPENMP_TARGET, OTF2_GROUP_FLAG_NONE, 2, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, REF(S_COMM_GROUP), OTF2_GROUP_TYPE_COMM_GROUP,
                                    OFFTRACE_PARADIGM_OPENMP_TARGET, OTF2_GROUP_FLAG_NONE, 2, ranks);
    uint64_t target[] = {p->region[R_TARGET]}, data_op[] = {p->region[R_DATA_OP]},
             transfer[] = {p->region[R_TRANSFER]};
    OTF2_GlobalDefWriter_WriteGroup(g, 2, REF(S_CLASS_TARGET), OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 1, target);
    OTF2_GlobalDefWriter_WriteGroup(g, 3, REF(S_CLASS_DATA_OP), OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 1, data_op);
    OTF2_GlobalDefWriter_WriteGroup(g, 4, REF(S_CLASS_TRANSFER), OTF2_GROUP_TYPE_REGIONS, OTF2_PARADIGM_UNKNOWN,
                                    OTF2_GROUP_FLAG_NONE, 1, transfer);
    if (p->odd) {
        OTF2_GlobalDefWriter_WriteComm(g, 0, REF(S_SCRATCH_COMM), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        OTF2_GlobalDefWriter_WriteComm(g, 1, REF(S_COMM), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        OTF2_GlobalDefWriter_WriteRmaWin(g, 0, REF(S_SCRATCH_WINDOW), 0, OTF2_RMA_WIN_FLAG_NONE);
        OTF2_GlobalDefWriter_WriteRmaWin(g, 1, REF(S_WINDOW), 1, OTF2_RMA_WIN_FLAG_NONE);
    } else {
        OTF2_GlobalDefWriter_WriteComm(g, 0, REF(S_COMM), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        OTF2_GlobalDefWriter_WriteRmaWin(g, 0, REF(S_WINDOW), 0, OTF2_RMA_WIN_FLAG_NONE);
    }

    OTF2_GlobalDefWriter_WriteMetricMember(g, p->memory, REF(S_MEMORY), REF(S_MEMORY), OTF2_METRIC_TYPE_OTHER,
                                           OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
                                           REF(S_BYTES));
    if (p->user != OTF2_UNDEFINED_METRIC)
        OTF2_GlobalDefWriter_WriteMetricMember(g, p->user, REF(S_USER_METRIC), REF(S_USER_METRIC),
                                               OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64,
                                               OTF2_BASE_DECIMAL, 0, REF(S_EMPTY));
    OTF2_MetricMemberRef member = p->memory;
    OTF2_GlobalDefWriter_WriteMetricClass(g, p->memory, 1, &member, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_GPU);
    if (p->user != OTF2_UNDEFINED_METRIC) {
        member = p->user;
        OTF2_GlobalDefWriter_WriteMetricClass(g, p->user, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                              OTF2_RECORDER_KIND_CPU);
    }
}

static void metric(OTF2_EvtWriter *w, uint64_t t, OTF2_MetricRef m, uint64_t value)
{
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue v = {.unsigned_int = value};
    OTF2_EvtWriter_Metric(w, NULL, t, m, 1, &type, &v);
}

/* Master thread: main > target > data op (attributes, RmaPut to the RDMA
 * row, its completion), "rank R only", rank 2's user metric. RDMA row: the
 * transfer and the device memory metric. */
static void write_part_events(OTF2_EvtWriter *master, OTF2_EvtWriter *rdma, const part *p, uint64_t events[2])
{
    uint64_t t = p->t0;
    OTF2_AttributeList *a = OTF2_AttributeList_New();
    OTF2_EvtWriter_Enter(master, NULL, t, p->region[R_MAIN]);
    OTF2_EvtWriter_Enter(master, NULL, t + 10, p->region[R_TARGET]);
    OTF2_AttributeList_AddUint64(a, p->host_address, 0x1000 + (uint64_t)p->rank);
    OTF2_AttributeList_AddStringRef(a, p->note, p->ref[S_HALO]);
    if (p->odd)
        OTF2_AttributeList_AddUint32(a, p->odd_attr, (uint32_t)p->rank);
    OTF2_EvtWriter_Enter(master, a, t + 20, p->region[R_DATA_OP]);
    OTF2_EvtWriter_RmaPut(master, NULL, t + 20, p->window, 1, 800 + (uint64_t)p->rank, 7);
    OTF2_EvtWriter_RmaOpCompleteBlocking(master, NULL, t + 30, p->window, 7);
    OTF2_EvtWriter_Leave(master, NULL, t + 30, p->region[R_DATA_OP]);
    OTF2_EvtWriter_Enter(master, NULL, t + 40, p->region[R_RANK_ONLY]);
    OTF2_EvtWriter_Leave(master, NULL, t + 45, p->region[R_RANK_ONLY]);
    OTF2_EvtWriter_Leave(master, NULL, t + 50, p->region[R_TARGET]);
    events[0] = 9;
    if (p->user != OTF2_UNDEFINED_METRIC) {
        metric(master, t + 55, p->user, 42);
        events[0]++;
    }
    OTF2_EvtWriter_Leave(master, NULL, t + 60, p->region[R_MAIN]);
    events[0]++;
    OTF2_EvtWriter_Enter(rdma, NULL, t + 20, p->region[R_TRANSFER]);
    metric(rdma, t + 25, p->memory, 4096 * (uint64_t)(p->rank + 1));
    OTF2_EvtWriter_Leave(rdma, NULL, t + 30, p->region[R_TRANSFER]);
    events[1] = 3;
    OTF2_AttributeList_Delete(a);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre_flush};

static int make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(buf, 0777) && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

int write_synthetic_part(const char *job_dir, int rank, const char *partial)
{
    part p = {.rank = rank, .odd = rank & 1};
    name_strings(&p);
    p.odd_attr = 0;
    p.host_address = p.odd ? 1 : 0;
    p.note = p.odd ? 2 : 1;
    p.window = p.odd ? 1 : 0;
    p.user = rank == 2 ? 0 : OTF2_UNDEFINED_METRIC;
    p.memory = rank == 2 ? 1 : 0;
    p.master = (uint64_t)rank << 40;
    p.rdma = (uint64_t)rank << 40 | offtrace_location_id(OFFTRACE_LOC_RDMA, 0, 0);
    p.t0 = 1000 + 100 * (uint64_t)rank;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/rank.%d/part", job_dir, rank);
    if (make_dirs(dir))
        return -1;
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                                         OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar)
        return -1;
    OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_SetCreator(ar, "offtrace 0.1.0");
    char value[32];
    snprintf(value, sizeof value, "%u", OFFTRACE_CATALOGUE_VERSION);
    OTF2_Archive_SetProperty(ar, OFFTRACE_CATALOGUE_PROPERTY, value, true);
    snprintf(value, sizeof value, "%d", rank);
    OTF2_Archive_SetProperty(ar, OFFTRACE_JOB_PART_PROPERTY, value, true);
    OTF2_Archive_SetProperty(ar, "OFFTRACE::PARTIAL", partial ? partial : "no", true);
    snprintf(value, sizeof value, "%d", 100 + rank);
    OTF2_Archive_SetProperty(ar, "OFFTRACE::RECORDS", value, true);
    OTF2_Archive_SetProperty(ar, "OFFTRACE::SAME", "x", true);
    OTF2_Archive_SetProperty(ar, "OFFTRACE::MPI_CLOCK_OFFSET_INIT_NS", "0", true); /* alike, yet the rank's own */
    OTF2_Archive_OpenEvtFiles(ar);
    OTF2_EvtWriter *master = OTF2_Archive_GetEvtWriter(ar, p.master);
    OTF2_EvtWriter *rdma = OTF2_Archive_GetEvtWriter(ar, p.rdma);
    uint64_t events[2];
    write_part_events(master, rdma, &p, events);
    OTF2_Archive_CloseEvtWriter(ar, master);
    OTF2_Archive_CloseEvtWriter(ar, rdma);
    OTF2_Archive_CloseEvtFiles(ar);
    OTF2_Archive_OpenDefFiles(ar);
    for (int l = 0; l < 2; l++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(ar, l ? p.rdma : p.master);
        OTF2_Archive_CloseDefWriter(ar, d);
    }
    OTF2_Archive_CloseDefFiles(ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    write_definitions(g, &p, events);
    OTF2_Archive_CloseGlobalDefWriter(ar, g);
    return OTF2_Archive_Close(ar) == OTF2_SUCCESS ? 0 : -1;
}

int write_job_file(const char *job_dir, const char *id, int size)
{
    if (make_dirs(job_dir))
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/job", job_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "offtrace-job 1\nid %s\nsize %d\n", id, size);
    return fclose(f) ? -1 : 0;
}

/*
 * OTF2 3.0 conformance: every example's archive, with and without device
 * detail, keeps the structural rules of the OTF2 headers (tests/check/
 * otf2_rules.c); and the checker can fail: archives written with OTF2's own
 * writer, each breaking one rule, are reported with that rule.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/otf2_rules.h"
#include "check/run.h"

/* ------------------------------------------------------ the examples */

static void check_example(const char *example, const char *option, char *const args[])
{
    char dir[4096], anchor[4200];
    scratch_path(dir, sizeof dir, example);
    char *env[] = {"OMP_NUM_THREADS=2", NULL};
    char *err = NULL;
    int recorded = record_program(dir, option, env, example, args, &err);
    cr_assert_eq(recorded, 0, "offtrace record %s %s failed: %s", option ? option : "", example, err ? err : "");
    free(err);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    otf2_rules_report report;
    cr_assert_eq(otf2_rules_check(anchor, &report), 0, "OTF2 cannot read %s", anchor);
    cr_assert_gt(report.events, 0, "%s: no events read", anchor);
    for (int rule = 0; rule < OTF2_RULE_COUNT; rule++)
        cr_expect_eq(report.violations[rule], 0, "%s %s: %s (%llu times)", example, option ? option : "",
                     report.first[rule], (unsigned long long)report.violations[rule]);
}

static const char *const examples[] = {"example_cg", "example_saxpy", "example_stencil",
                                       "example_enter_exit", "example_nowait", "example_two_devices",
                                       "example_device_tasks", "example_transfer_mistakes",
                                       "example_transfer_done_right"};

Test(otf2_rules, every_example_with_and_without_device_detail, .timeout = 300)
{
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
        check_example(examples[i], NULL, NULL);
        check_example(examples[i], "--host-only", NULL);
    }
}

/* ----------------------------------------------- broken archives */

/* One way to break the rules each; B_NONE writes an archive that keeps them all. */
typedef enum breakage {
    B_NONE,
    B_DUPLICATE_STRING,
    B_UNDEFINED_STRING,
    B_UNDEFINED_REGION,
    B_LOCATION_IN_UNDEFINED_GROUP,
    B_NO_CLOCK,
    B_PARADIGM_TWICE,
    B_RMA_ONLY_NOT_BOOLEAN,
    B_TWO_ROOTS,
    B_ACCELERATOR_WITHOUT_CREATOR,
    B_CPU_THREAD_IN_ACCELERATOR,
    B_STREAM_IN_PROCESS,
    B_GROUP_MEMBER_UNDEFINED,
    B_COMM_GROUP_BEFORE_LOCATIONS,
    B_COMM_OF_LOCATIONS_GROUP,
    B_METRIC_MEMBER_FLOAT,
    B_INSTANCE_OF_CPU_CLASS,
    B_PROPERTY_UNDEFINED_STRING,
    B_EVENT_COUNT,
    B_TIME_BACKWARDS,
    B_OUTSIDE_CLOCK,
    B_LEAVE_OTHER_REGION,
    B_REGION_LEFT_OPEN,
    B_REMOTE_RANK,
    B_COMPLETION_WITHOUT_OP,
    B_OP_NEVER_COMPLETED,
    B_COMPLETION_OTHER_WINDOW,
    B_MATCHING_ID_REUSED_WHILE_PENDING,
    B_METRIC_VALUE_TYPE,
    B_METRIC_ABSTRACT_DIRECT,
    B_METRIC_INSTANCE_ELSEWHERE,
    B_SYNC_METRIC_NOT_AFTER_ENTER,
    B_ATTRIBUTE_TYPE,
    B_WINDOW_CREATE_WITHOUT_FLAG,
    B_PROGRAM_BEGIN_WITHOUT_END,
    B_MPI_MATCHED, /* MPI: only these archives have MPI definitions and events; this one breaks nothing */
    B_MPI_SEND_UNMATCHED,
    B_MPI_LENGTHS_DIFFER,
    B_MPI_PEER_NOT_IN_COMM,
} breakage;

static int is_mpi(breakage b) { return b >= B_MPI_MATCHED; }

enum {
    S_EMPTY, S_MACHINE, S_DEVICE, S_PROCESS, S_THREAD, S_STREAM, S_MAIN, S_KERNEL, S_LOCATIONS, S_GROUP, S_COMM,
    S_WINDOW, S_MEMORY, S_BYTES, S_ADDRESS, S_CALLS, S_PARADIGM, S_COUNT
};
enum { R_MAIN, R_KERNEL };
enum { L_THREAD = 0, L_STREAM = 1 };
enum { M_MEMORY, M_CALLS, M_ABSTRACT, M_INSTANCE }; /* metric classes and the instance (one id space) */

/* Timestamps: a base whose bytes are unlikely anywhere else in an event file, so that one of them can be
 * found and patched (OTF2's writer refuses to write a location's events out of order). */
#define T0 0x5a5a5a000000ull
#define CLOCK_LENGTH 1000u
#define LEAVE_MAIN_TIME (T0 + 150)

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *caller, bool final)
{
    return OTF2_FLUSH;
}

static OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush};

static uint64_t write_thread(OTF2_EvtWriter *w, breakage b)
{
    uint64_t n = 0;
    OTF2_AttributeList *attributes = OTF2_AttributeList_New();
    if (b == B_ATTRIBUTE_TYPE)
        OTF2_AttributeList_AddUint32(attributes, 0, 7);
    else
        OTF2_AttributeList_AddUint64(attributes, 0, 0x1000);
    OTF2_EvtWriter_ProgramBegin(w, NULL, T0, S_MAIN, 0, NULL), n++;
    OTF2_EvtWriter_Enter(w, NULL, T0, b == B_UNDEFINED_REGION ? 99 : R_MAIN), n++;
    OTF2_Type int64 = OTF2_TYPE_INT64;
    OTF2_MetricValue calls = {.signed_int = 1};
    OTF2_EvtWriter_Metric(w, NULL, b == B_SYNC_METRIC_NOT_AFTER_ENTER ? T0 + 1 : T0, M_CALLS, 1, &int64, &calls), n++;
    if (b == B_WINDOW_CREATE_WITHOUT_FLAG)
        OTF2_EvtWriter_RmaWinCreate(w, NULL, T0 + 5, 0), n++;
    OTF2_EvtWriter_RmaPut(w, attributes, T0 + 10, 0, b == B_REMOTE_RANK ? 2 : 1, 64, 1), n++;
    if (b == B_MATCHING_ID_REUSED_WHILE_PENDING)
        OTF2_EvtWriter_RmaGet(w, NULL, T0 + 11, 0, 1, 64, 1), n++;
    if (b != B_OP_NEVER_COMPLETED)
        OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, T0 + 20, 0, b == B_COMPLETION_WITHOUT_OP ? 7 : 1), n++;
    if (b == B_MATCHING_ID_REUSED_WHILE_PENDING)
        OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, T0 + 21, 0, 1), n++;
    OTF2_EvtWriter_RmaGet(w, NULL, T0 + 30, 0, 1, 32, 2), n++;
    OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, NULL, T0 + 40, b == B_COMPLETION_OTHER_WINDOW ? 1 : 0, 2), n++;
    OTF2_EvtWriter_Enter(w, NULL, T0 + 50, R_KERNEL), n++;
    if (is_mpi(b)) /* a message to itself on a communicator of one: sent, then received */
        OTF2_EvtWriter_MpiSend(w, NULL, T0 + 51, b == B_MPI_PEER_NOT_IN_COMM ? 1 : 0, 1, 5, 64), n++;
    if (b == B_MPI_LENGTHS_DIFFER || b == B_MPI_MATCHED)
        OTF2_EvtWriter_MpiRecv(w, NULL, T0 + 52, 0, 1, 5, b == B_MPI_MATCHED ? 64 : 32), n++;
    OTF2_EvtWriter_Leave(w, NULL, T0 + 60, R_KERNEL), n++;
    if (b != B_REGION_LEFT_OPEN)
        OTF2_EvtWriter_Leave(w, NULL, b == B_TIME_BACKWARDS ? LEAVE_MAIN_TIME : T0 + 140,
                             b == B_LEAVE_OTHER_REGION ? R_KERNEL : R_MAIN), n++;
    if (b == B_TIME_BACKWARDS) /* the Leave's time is patched to before the previous event's, later */
        OTF2_EvtWriter_Enter(w, NULL, T0 + 151, R_KERNEL), OTF2_EvtWriter_Leave(w, NULL, T0 + 152, R_KERNEL), n += 2;
    if (b != B_PROGRAM_BEGIN_WITHOUT_END)
        OTF2_EvtWriter_ProgramEnd(w, NULL, b == B_OUTSIDE_CLOCK ? T0 + CLOCK_LENGTH + 1 : T0 + 160, 0), n++;
    OTF2_AttributeList_Delete(attributes);
    return n;
}

static uint64_t write_stream(OTF2_EvtWriter *w, breakage b)
{
    OTF2_Type uint64 = OTF2_TYPE_UINT64, int64 = OTF2_TYPE_INT64;
    OTF2_MetricValue bytes = {.unsigned_int = 4096};
    OTF2_EvtWriter_Enter(w, NULL, T0 + 5, R_KERNEL);
    OTF2_EvtWriter_Metric(w, NULL, T0 + 6, b == B_METRIC_ABSTRACT_DIRECT ? M_ABSTRACT : M_MEMORY, 1,
                          b == B_METRIC_VALUE_TYPE ? &int64 : &uint64, &bytes);
    OTF2_EvtWriter_Leave(w, NULL, T0 + 145, R_KERNEL);
    return 3;
}

static uint64_t write_instance_recorder(OTF2_EvtWriter *w, breakage b)
{
    OTF2_Type uint64 = OTF2_TYPE_UINT64;
    OTF2_MetricValue bytes = {.unsigned_int = 8};
    OTF2_EvtWriter_Metric(w, NULL, T0 + 7, M_INSTANCE, 1, &uint64, &bytes);
    return 1;
}

static void write_definitions(OTF2_GlobalDefWriter *g, breakage b, const uint64_t events[3])
{
    static const char *const strings[S_COUNT] = {"", "machine", "device", "process", "main thread", "stream 0",
                                                 "main", "kernel", "transfer locations", "transfer group",
                                                 "transfers", "window", "memory", "bytes", "address", "calls",
                                                 "Test Offload"};
    if (b != B_NO_CLOCK)
        OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, T0, CLOCK_LENGTH, OTF2_UNDEFINED_TIMESTAMP);
    for (unsigned i = 0; i < S_COUNT; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    if (b == B_DUPLICATE_STRING)
        OTF2_GlobalDefWriter_WriteString(g, S_MAIN, "main again");
    OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_CUDA, S_PARADIGM, OTF2_PARADIGM_CLASS_ACCELERATOR);
    if (b == B_PARADIGM_TWICE)
        OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_CUDA, S_PARADIGM, OTF2_PARADIGM_CLASS_ACCELERATOR);
    OTF2_AttributeValue value;
    OTF2_Type type;
    OTF2_AttributeValue_SetBoolean(OTF2_TRUE, &type, &value);
    if (b == B_RMA_ONLY_NOT_BOOLEAN)
        type = OTF2_TYPE_UINT32, value.uint32 = 1;
    OTF2_GlobalDefWriter_WriteParadigmProperty(g, OTF2_PARADIGM_CUDA, OTF2_PARADIGM_PROPERTY_RMA_ONLY, type, value);
    OTF2_GlobalDefWriter_WriteAttribute(g, 0, S_ADDRESS, S_EMPTY, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_MACHINE, S_MACHINE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, S_DEVICE, S_DEVICE,
                                             b == B_TWO_ROOTS ? OTF2_UNDEFINED_SYSTEM_TREE_NODE : 0);
    OTF2_AttributeValue name = {.stringRef = b == B_PROPERTY_UNDEFINED_STRING ? 500 : S_MACHINE};
    OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(g, 0, S_MACHINE, OTF2_TYPE_STRING, name);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, S_PROCESS, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, S_DEVICE, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 1,
                                            b == B_ACCELERATOR_WITHOUT_CREATOR ? OTF2_UNDEFINED_LOCATION_GROUP : 0);
    OTF2_GlobalDefWriter_WriteLocation(g, L_THREAD, b == B_UNDEFINED_STRING ? 400 : S_THREAD,
                                       b == B_STREAM_IN_PROCESS ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
                                                                : OTF2_LOCATION_TYPE_CPU_THREAD,
                                       events[0] + (b == B_EVENT_COUNT), b == B_LOCATION_IN_UNDEFINED_GROUP ? 9 : 0);
    OTF2_GlobalDefWriter_WriteLocation(g, L_STREAM, S_STREAM,
                                       b == B_CPU_THREAD_IN_ACCELERATOR ? OTF2_LOCATION_TYPE_CPU_THREAD
                                                                        : OTF2_LOCATION_TYPE_ACCELERATOR_STREAM,
                                       events[1], 1);
    OTF2_GlobalDefWriter_WriteLocation(g, 2, S_STREAM, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, events[2], 1);
    OTF2_GlobalDefWriter_WriteRegion(g, R_MAIN, S_MAIN, S_MAIN, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_KERNEL, S_KERNEL, S_KERNEL, S_EMPTY, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    uint64_t locations[] = {L_THREAD, b == B_GROUP_MEMBER_UNDEFINED ? 77 : L_STREAM}, ranks[] = {0, 1};
    if (b != B_COMM_GROUP_BEFORE_LOCATIONS)
        OTF2_GlobalDefWriter_WriteGroup(g, 0, S_LOCATIONS, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_CUDA,
                                        OTF2_GROUP_FLAG_NONE, 2, locations);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, S_GROUP, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_CUDA,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    if (b == B_COMM_GROUP_BEFORE_LOCATIONS)
        OTF2_GlobalDefWriter_WriteGroup(g, 0, S_LOCATIONS, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_CUDA,
                                        OTF2_GROUP_FLAG_NONE, 2, locations);
    OTF2_GlobalDefWriter_WriteComm(g, 0, S_COMM, b == B_COMM_OF_LOCATIONS_GROUP ? 0 : 1, OTF2_UNDEFINED_COMM,
                                   OTF2_COMM_FLAG_NONE);
    if (is_mpi(b)) { /* paradigm MPI: its own COMM_LOCATIONS group (the thread) and a communicator of it */
        uint64_t thread = L_THREAD, rank = 0;
        OTF2_GlobalDefWriter_WriteGroup(g, 2, S_LOCATIONS, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 1, &thread);
        OTF2_GlobalDefWriter_WriteGroup(g, 3, S_GROUP, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, 1, &rank);
        OTF2_GlobalDefWriter_WriteComm(g, 1, S_COMM, 3, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    }
    OTF2_GlobalDefWriter_WriteRmaWin(g, 0, S_WINDOW, 0, OTF2_RMA_WIN_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteRmaWin(g, 1, S_WINDOW, 0, OTF2_RMA_WIN_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteMetricMember(g, 0, S_MEMORY, S_EMPTY, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                           b == B_METRIC_MEMBER_FLOAT ? OTF2_TYPE_FLOAT : OTF2_TYPE_UINT64,
                                           OTF2_BASE_DECIMAL, 0, S_BYTES);
    OTF2_GlobalDefWriter_WriteMetricMember(g, 1, S_CALLS, S_EMPTY, OTF2_METRIC_TYPE_OTHER,
                                           OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0,
                                           S_EMPTY);
    OTF2_MetricMemberRef memory = 0, calls = 1;
    OTF2_GlobalDefWriter_WriteMetricClass(g, M_MEMORY, 1, &memory, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_GPU);
    OTF2_GlobalDefWriter_WriteMetricClass(g, M_CALLS, 1, &calls, OTF2_METRIC_SYNCHRONOUS, OTF2_RECORDER_KIND_CPU);
    OTF2_GlobalDefWriter_WriteMetricClass(g, M_ABSTRACT, 1, &memory, OTF2_METRIC_ASYNCHRONOUS,
                                          b == B_INSTANCE_OF_CPU_CLASS ? OTF2_RECORDER_KIND_CPU
                                                                       : OTF2_RECORDER_KIND_ABSTRACT);
    OTF2_GlobalDefWriter_WriteMetricInstance(g, M_INSTANCE, M_ABSTRACT, b == B_METRIC_INSTANCE_ELSEWHERE ? 1 : 2,
                                             OTF2_SCOPE_LOCATION_GROUP, 1);
}

/* Replace the one occurrence of \p from (8 bytes, as OTF2 stores timestamps) in \p path by \p to. */
static void patch_timestamp(const char *path, uint64_t from, uint64_t to)
{
    size_t length;
    char *bytes = read_whole_file(path, &length);
    cr_assert_not_null(bytes, "cannot read %s", path);
    size_t found = 0, at = 0;
    for (size_t i = 0; i + 8 <= length; i++)
        if (!memcmp(bytes + i, &from, 8))
            found++, at = i;
    cr_assert_eq(found, 1, "timestamp %llx found %zu times in %s", (unsigned long long)from, found, path);
    memcpy(bytes + at, &to, 8);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, length, f), length);
    fclose(f);
    free(bytes);
}

/* Write the test archive with \p b into a fresh directory; its anchor in \p anchor. */
static void write_archive(breakage b, char *anchor, size_t size)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "otf2-rules");
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_EVENTS_DEFAULT,
                                        OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    cr_assert_not_null(a);
    OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, "otf2 rules test");
    OTF2_Archive_OpenEvtFiles(a);
    uint64_t events[3];
    uint64_t (*writers[3])(OTF2_EvtWriter *, breakage) = {write_thread, write_stream, write_instance_recorder};
    for (OTF2_LocationRef l = 0; l < 3; l++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, l);
        cr_assert_not_null(w);
        events[l] = writers[l](w, b);
        uint64_t counted;
        OTF2_EvtWriter_GetNumberOfEvents(w, &counted);
        cr_assert_eq(counted, events[l], "the test miscounts location %llu's events", (unsigned long long)l);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a); /* empty local definitions: OTF2's reader looks for them */
    for (OTF2_LocationRef l = 0; l < 3; l++)
        OTF2_Archive_CloseDefWriter(a, OTF2_Archive_GetDefWriter(a, l));
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    write_definitions(g, b, events);
    OTF2_Archive_CloseGlobalDefWriter(a, g);
    cr_assert_eq(OTF2_Archive_Close(a), OTF2_SUCCESS);
    if (b == B_TIME_BACKWARDS) {
        char evt[4200];
        snprintf(evt, sizeof evt, "%s/traces/%d.evt", dir, L_THREAD);
        patch_timestamp(evt, LEAVE_MAIN_TIME, T0 + 55); /* before the kernel's Leave at T0 + 60 */
    }
    snprintf(anchor, size, "%s/traces.otf2", dir);
}

Test(otf2_rules_broken, the_unbroken_archive_keeps_every_rule)
{
    char anchor[4200], summary[8192];
    write_archive(B_NONE, anchor, sizeof anchor);
    otf2_rules_report report;
    cr_assert_eq(otf2_rules_check(anchor, &report), 0);
    otf2_rules_summary(&report, summary, sizeof summary);
    cr_assert_eq(otf2_rules_total(&report), 0, "%s", summary);
    cr_assert_eq(report.locations, 3);
    cr_assert_eq(report.events, 15);
}

Test(otf2_rules_broken, a_matched_mpi_message_keeps_every_rule)
{
    char anchor[4200], summary[8192];
    write_archive(B_MPI_MATCHED, anchor, sizeof anchor);
    otf2_rules_report report;
    cr_assert_eq(otf2_rules_check(anchor, &report), 0);
    otf2_rules_summary(&report, summary, sizeof summary);
    cr_assert_eq(otf2_rules_total(&report), 0, "%s", summary);
    cr_assert_eq(report.events, 17);
}

/* The archive broken by \p b breaks \p rule, and its message names the rule and \p where. */
static void expect_broken(breakage b, otf2_rule rule, const char *where)
{
    char anchor[4200], summary[8192];
    write_archive(b, anchor, sizeof anchor);
    otf2_rules_report report;
    cr_assert_eq(otf2_rules_check(anchor, &report), 0, "OTF2 cannot read %s", anchor);
    otf2_rules_summary(&report, summary, sizeof summary);
    cr_assert_gt(report.violations[rule], 0, "rule %s not reported; the checker said: %s", otf2_rule_name(rule),
                 summary[0] ? summary : "nothing");
    char name[64];
    snprintf(name, sizeof name, "OTF2 rule %s: ", otf2_rule_name(rule));
    cr_assert(strstr(report.first[rule], name) == report.first[rule], "%s", report.first[rule]);
    cr_assert_not_null(strstr(report.first[rule], where), "'%s' does not name %s", report.first[rule], where);
    cr_assert_null(strchr(report.first[rule], '\n'));
}

#define BROKEN(test, b, rule, where)                                                                       \
    Test(otf2_rules_broken, test)                                                                          \
    {                                                                                                      \
        expect_broken(b, rule, where);                                                                     \
    }

BROKEN(string_defined_twice, B_DUPLICATE_STRING, OTF2_RULE_UNIQUE_ID, "String 6")
BROKEN(location_name_undefined, B_UNDEFINED_STRING, OTF2_RULE_REFERENCE, "Location 0")
BROKEN(enter_of_undefined_region, B_UNDEFINED_REGION, OTF2_RULE_REFERENCE, "location 0, event 2 (Enter")
BROKEN(location_in_undefined_group, B_LOCATION_IN_UNDEFINED_GROUP, OTF2_RULE_REFERENCE, "Location 0")
BROKEN(no_clock_properties, B_NO_CLOCK, OTF2_RULE_CLOCK_PROPERTIES, "ClockProperties")
BROKEN(paradigm_defined_twice, B_PARADIGM_TWICE, OTF2_RULE_PARADIGM, "Paradigm 5")
BROKEN(rma_only_not_a_boolean, B_RMA_ONLY_NOT_BOOLEAN, OTF2_RULE_PARADIGM, "ParadigmProperty (5, 2)")
BROKEN(two_system_tree_roots, B_TWO_ROOTS, OTF2_RULE_SYSTEM_TREE_ROOT, "SystemTreeNodes")
BROKEN(accelerator_group_without_creator, B_ACCELERATOR_WITHOUT_CREATOR, OTF2_RULE_LOCATION_GROUP_CREATOR,
       "LocationGroup 1")
BROKEN(cpu_thread_in_accelerator_group, B_CPU_THREAD_IN_ACCELERATOR, OTF2_RULE_LOCATION_GROUP_CONTENTS,
       "LocationGroup 1")
BROKEN(accelerator_stream_in_process_group, B_STREAM_IN_PROCESS, OTF2_RULE_LOCATION_GROUP_CONTENTS,
       "LocationGroup 0")
BROKEN(comm_locations_member_undefined, B_GROUP_MEMBER_UNDEFINED, OTF2_RULE_GROUP_MEMBERS, "Group 0")
BROKEN(comm_group_before_its_comm_locations, B_COMM_GROUP_BEFORE_LOCATIONS, OTF2_RULE_GROUP_MEMBERS, "Group 1")
BROKEN(comm_of_a_comm_locations_group, B_COMM_OF_LOCATIONS_GROUP, OTF2_RULE_COMM_GROUP_TYPE, "Comm 0")
BROKEN(metric_member_of_type_float, B_METRIC_MEMBER_FLOAT, OTF2_RULE_METRIC_MEMBER_TYPE, "MetricMember 0")
BROKEN(instance_of_a_cpu_class, B_INSTANCE_OF_CPU_CLASS, OTF2_RULE_METRIC_INSTANCE, "MetricInstance 3")
BROKEN(property_naming_no_string, B_PROPERTY_UNDEFINED_STRING, OTF2_RULE_PROPERTY_VALUE,
       "SystemTreeNodeProperty of 0")
BROKEN(declared_event_count_wrong, B_EVENT_COUNT, OTF2_RULE_LOCATION_EVENT_COUNT, "location 0")
BROKEN(time_goes_back, B_TIME_BACKWARDS, OTF2_RULE_TIME_ORDER, "location 0, event 10 (Leave")
BROKEN(event_after_the_clock_range, B_OUTSIDE_CLOCK, OTF2_RULE_CLOCK_RANGE, "location 0, event 11 (ProgramEnd")
BROKEN(leave_of_an_outer_region, B_LEAVE_OTHER_REGION, OTF2_RULE_REGION_NESTING, "location 0, event 10 (Leave")
BROKEN(region_never_left, B_REGION_LEFT_OPEN, OTF2_RULE_REGION_NESTING, "location 0")
BROKEN(remote_rank_outside_the_communicator, B_REMOTE_RANK, OTF2_RULE_RMA_REMOTE_RANK,
       "location 0, event 4 (RmaPut")
BROKEN(completion_without_its_operation, B_COMPLETION_WITHOUT_OP, OTF2_RULE_RMA_MATCHING,
       "location 0, event 5 (RmaOpCompleteBlocking")
BROKEN(operation_never_completed, B_OP_NEVER_COMPLETED, OTF2_RULE_RMA_MATCHING, "location 0")
BROKEN(completion_on_another_window, B_COMPLETION_OTHER_WINDOW, OTF2_RULE_RMA_MATCHING,
       "location 0, event 7 (RmaOpCompleteNonBlocking")
BROKEN(matching_id_reused_while_pending, B_MATCHING_ID_REUSED_WHILE_PENDING, OTF2_RULE_RMA_MATCHING,
       "location 0, event 5 (RmaGet")
BROKEN(metric_value_of_the_wrong_type, B_METRIC_VALUE_TYPE, OTF2_RULE_METRIC_VALUES, "location 1, event 2 (Metric")
BROKEN(abstract_metric_class_recorded_directly, B_METRIC_ABSTRACT_DIRECT, OTF2_RULE_METRIC_RECORDER,
       "location 1, event 2 (Metric")
BROKEN(metric_instance_recorded_elsewhere, B_METRIC_INSTANCE_ELSEWHERE, OTF2_RULE_METRIC_RECORDER,
       "location 2, event 1 (Metric")
BROKEN(synchronous_metric_not_after_enter, B_SYNC_METRIC_NOT_AFTER_ENTER, OTF2_RULE_METRIC_OCCURRENCE,
       "location 0, event 3 (Metric")
BROKEN(attribute_value_of_the_wrong_type, B_ATTRIBUTE_TYPE, OTF2_RULE_ATTRIBUTE_VALUE, "location 0, event 4 (RmaPut")
BROKEN(window_created_without_the_flag, B_WINDOW_CREATE_WITHOUT_FLAG, OTF2_RULE_CREATE_DESTROY_FLAG,
       "location 0, event 4 (RmaWinCreate")
BROKEN(program_begin_without_end, B_PROGRAM_BEGIN_WITHOUT_END, OTF2_RULE_PROGRAM_BEGIN_END, "LocationGroup 0")
BROKEN(mpi_send_never_received, B_MPI_SEND_UNMATCHED, OTF2_RULE_MPI_MATCHING, "a send no receive matches (64 bytes)")
BROKEN(mpi_received_length_differs, B_MPI_LENGTHS_DIFFER, OTF2_RULE_MPI_MATCHING, "another length")
BROKEN(mpi_receiver_not_in_comm, B_MPI_PEER_NOT_IN_COMM, OTF2_RULE_MPI_PEER_RANK, "receiver 1 is no rank")

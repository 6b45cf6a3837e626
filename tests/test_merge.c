/*
 * The job merge (issue 16 part 2, host/convert/merge.h) on parts written with
 * OTF2's writer (check/synthetic_parts.h: definitions that overlap and differ
 * between ranks, under ids that differ) and on a real recording used as rank
 * 0's part: the job archive passes otf2-print -Werror and the OTF2 structure
 * rules, every location's events read back with OTF2's reader say what they
 * said in the part (regions, attribute values, RMA windows and remote
 * locations, metrics by name), definitions are unified as docs/mpi.md says,
 * and missing and partial ranks are listed.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "check/otf2_event_lines.h"
#include "check/otf2_rules.h"
#include "check/run.h"
#include "check/shifted_part.h"
#include "check/synthetic_parts.h"
#include "merge.h"
#include "offtrace/event_catalogue.h"

/* ---- what the job archive's global definitions hold ---- */

typedef struct job_defs {
    char *strings[1024];
    char location_groups[64][64];
    uint32_t location_group_type[64], location_group_node[64];
    int location_group_count;
    char nodes[64][64];
    uint32_t node_parent[64];
    int node_count;
    int regions_named_main, regions_named_target, rank_only_regions;
    uint32_t target_class_members, comm_locations_groups, comm_location_members, windows, comms;
    int rank_properties_on_groups;
    int clock_offsets_on_groups;
    char records_of_rank1[32];
    uint64_t clock_offset, clock_length;
} job_defs;

static const char *jstr(const job_defs *d, uint32_t ref) { return ref < 1024 && d->strings[ref] ? d->strings[ref] : "?"; }

static OTF2_CallbackCode d_string(void *u, OTF2_StringRef self, const char *s)
{
    job_defs *d = u;
    if (self < 1024)
        d->strings[self] = strdup(s);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group_def(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                     OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef node,
                                     OTF2_LocationGroupRef creator)
{
    job_defs *d = u;
    if (d->location_group_count < 64) {
        snprintf(d->location_groups[d->location_group_count], 64, "%s", jstr(d, name));
        d->location_group_type[d->location_group_count] = type;
        d->location_group_node[d->location_group_count++] = node;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_node(void *u, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef cls,
                                OTF2_SystemTreeNodeRef parent)
{
    job_defs *d = u;
    if (d->node_count < 64) {
        snprintf(d->nodes[d->node_count], 64, "%s", jstr(d, name));
        d->node_parent[d->node_count++] = parent;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
                                  OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                  OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t b, uint32_t e)
{
    job_defs *d = u;
    const char *n = jstr(d, name);
    d->regions_named_main += !strcmp(n, "main");
    d->regions_named_target += !strcmp(n, "target @cg.c:10");
    d->rank_only_regions += strstr(n, " only") != NULL;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *u, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
                                 OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    job_defs *d = u;
    if (!strcmp(jstr(d, name), OFFTRACE_REGION_CLASS_GROUP_PREFIX "TARGET"))
        d->target_class_members = n;
    if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
        d->comm_locations_groups++;
        d->comm_location_members = n;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_window(void *u, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm,
                                  OTF2_RmaWinFlag flags)
{
    ((job_defs *)u)->windows++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *u, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                                OTF2_CommRef parent, OTF2_CommFlag flags)
{
    ((job_defs *)u)->comms++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group_property(void *u, OTF2_LocationGroupRef group, OTF2_StringRef name, OTF2_Type type,
                                          OTF2_AttributeValue value)
{
    job_defs *d = u;
    if (!strcmp(jstr(d, name), OFFTRACE_LOCATION_MPI_RANK_PROPERTY))
        d->rank_properties_on_groups++;
    if (!strcmp(jstr(d, name), "OFFTRACE::RECORDS") && type == OTF2_TYPE_STRING &&
        !strcmp(d->location_groups[group], "MPI Rank 1"))
        snprintf(d->records_of_rank1, sizeof d->records_of_rank1, "%s", jstr(d, value.stringRef));
    if (!strcmp(jstr(d, name), "OFFTRACE::MPI_CLOCK_OFFSET_INIT_NS") && type == OTF2_TYPE_STRING &&
        !strcmp(jstr(d, value.stringRef), "0"))
        d->clock_offsets_on_groups++;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
    job_defs *d = u;
    d->clock_offset = offset;
    d->clock_length = length;
    return OTF2_CALLBACK_SUCCESS;
}

static void read_job_defs(const char *anchor, job_defs *d)
{
    memset(d, 0, sizeof *d);
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    cr_assert_not_null(r, "OTF2 cannot open %s", anchor);
    OTF2_Reader_SetSerialCollectiveCallbacks(r);
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(r);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, d_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, d_clock);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, d_group_def);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, d_node);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, d_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, d_group);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(cb, d_window);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupPropertyCallback(cb, d_group_property);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, g, cb, d);
    uint64_t n;
    cr_assert_eq(OTF2_Reader_ReadAllGlobalDefinitions(r, g, &n), OTF2_SUCCESS);
    OTF2_Reader_CloseGlobalDefReader(r, g);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(r);
}

static void free_job_defs(job_defs *d)
{
    for (int i = 0; i < 1024; i++)
        free(d->strings[i]);
}

static char *archive_property(const char *anchor, const char *name)
{
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    cr_assert_not_null(r);
    char *value = NULL;
    if (OTF2_Reader_GetProperty(r, name, &value) != OTF2_SUCCESS)
        value = NULL;
    OTF2_Reader_Close(r);
    return value;
}

/* ---- helpers ---- */

static void fresh_job(char *dir, size_t size, const char *name, int ranks, const char *id)
{
    scratch_path(dir, (unsigned)size, name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(write_job_file(dir, id, ranks), 0, "cannot write the job file in %s", dir);
}

static char *part_lines(const char *dir, int rank)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/rank.%d/part/traces.otf2", dir, rank);
    char *lines = otf2_event_lines(anchor, -1);
    cr_assert_not_null(lines, "OTF2 cannot read %s", anchor);
    return lines;
}

static void assert_valid(const char *dir)
{
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "otf2-print rejects %s: %s", dir, message ? message : "");
    free(message);
    char anchor[4200], summary[4096];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    otf2_rules_report report;
    cr_assert_eq(otf2_rules_check(anchor, &report), 0, "the rules checker cannot read %s", anchor);
    otf2_rules_summary(&report, summary, sizeof summary);
    cr_assert_eq(otf2_rules_total(&report), 0, "%s breaks OTF2's rules:\n%s", anchor, summary);
}

static void merge_ok(const char *dir)
{
    char why[512] = "";
    cr_assert_eq(ot_merge_job(dir, why, sizeof why), 0, "the merge failed: %s", why);
}

static char *ranks_file(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/ranks", dir);
    char *text = read_whole_file(path, NULL);
    cr_assert_not_null(text, "no %s", path);
    return text;
}

/* The first line where two texts differ, short enough for a message. */
static void first_difference(const char *a, const char *b, char *out, size_t size)
{
    unsigned line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++, b++;
    }
    snprintf(out, size, "line %u: part '%.*s', job '%.*s'", line, (int)strcspn(la, "\n") > 200 ? 200 : (int)strcspn(la, "\n"),
             la, (int)strcspn(lb, "\n") > 200 ? 200 : (int)strcspn(lb, "\n"), lb);
}

/* Every rank's events in the job archive are what its part said. */
static void assert_same_events(const char *dir, char **before, int ranks)
{
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    for (int r = 0; r < ranks; r++) {
        if (!before[r])
            continue;
        char *after = otf2_event_lines(anchor, r);
        cr_assert_not_null(after, "OTF2 cannot read the events of %s", anchor);
        char where[600];
        first_difference(before[r], after, where, sizeof where);
        cr_assert(!strcmp(after, before[r]), "rank %d's events changed in the merge: %s", r, where);
        free(after);
    }
}

static void merge_synthetic(char *dir, size_t size, const char *name, int ranks, const char *partial_rank1)
{
    fresh_job(dir, size, name, ranks, "4242");
    char *before[8] = {0};
    for (int r = 0; r < ranks; r++) {
        cr_assert_eq(write_synthetic_part(dir, r, r == 1 ? partial_rank1 : NULL), 0);
        before[r] = part_lines(dir, r);
    }
    merge_ok(dir);
    assert_valid(dir);
    assert_same_events(dir, before, ranks);
    for (int r = 0; r < ranks; r++)
        free(before[r]);
}

/* ---- tests ---- */

Test(merge, two_parts_keep_every_event_and_unify_definitions)
{
    char dir[4096], anchor[4200];
    merge_synthetic(dir, sizeof dir, "merge-two", 2, NULL);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    job_defs d;
    read_job_defs(anchor, &d);
    /* the events check above needs the rank's strings and regions; these say each is there once */
    cr_expect_eq(d.regions_named_main, 1, "\"main\" of both ranks is one region");
    cr_expect_eq(d.regions_named_target, 1);
    cr_expect_eq(d.rank_only_regions, 2, "each rank's own region is kept");
    cr_expect_eq(d.target_class_members, 1, "the class table's TARGET group names the one target region");
    cr_expect_eq(d.comm_locations_groups, 1, "one COMM_LOCATIONS group for the offload paradigm");
    cr_expect_eq(d.comm_location_members, 4, "every rank's master thread and RDMA row are in it");
    cr_expect_eq(d.windows, 3, "rank 0's window, rank 1's window and its scratch window");
    cr_assert_eq(d.location_group_count, 4);
    cr_expect_str_eq(d.location_groups[0], "MPI Rank 0");
    cr_expect_str_eq(d.location_groups[1], "MPI Rank 0 device 0");
    cr_expect_str_eq(d.location_groups[2], "MPI Rank 1");
    cr_expect_eq(d.location_group_node[0], d.location_group_node[2], "both ranks on node-a");
    int machines = 0, hosts = 0;
    for (int i = 0; i < d.node_count; i++) {
        machines += d.node_parent[i] == OTF2_UNDEFINED_SYSTEM_TREE_NODE;
        hosts += !strcmp(d.nodes[i], "node-a");
    }
    cr_expect_eq(machines, 1, "one machine");
    cr_expect_eq(hosts, 1, "one node-a");
    cr_expect_eq(d.rank_properties_on_groups, 2, "each rank's process group says its rank");
    cr_expect_str_eq(d.records_of_rank1, "101", "a property that differs per rank goes to the rank's group");
    cr_expect_eq(d.clock_offsets_on_groups, 2, "a rank's clock offset stays with its group, even when alike");
    /* rank 0's part covers 1000..1060, rank 1's 1100..1160 */
    cr_expect_eq(d.clock_offset, 1000, "the job begins with its first part");
    cr_expect_eq(d.clock_length, 161, "and ends with its last");
    free_job_defs(&d);

    char *text = ranks_file(dir);
    cr_expect_str_eq(text, "0 complete\n1 complete\n");
    free(text);
    char *v = archive_property(anchor, OFFTRACE_JOB_SIZE_PROPERTY);
    cr_expect_str_eq(v ? v : "", "2");
    free(v);
    v = archive_property(anchor, OFFTRACE_JOB_ID_PROPERTY);
    cr_expect_str_eq(v ? v : "", "4242");
    free(v);
    v = archive_property(anchor, OFFTRACE_PARTIAL_RANKS_PROPERTY);
    cr_expect_null(v, "no rank is partial or missing: %s", v);
    free(v);
    v = archive_property(anchor, "OFFTRACE::PARTIAL");
    cr_expect_str_eq(v ? v : "", "no");
    free(v);
    v = archive_property(anchor, "OFFTRACE::RECORDS");
    cr_expect_str_eq(v ? v : "", "201", "a count that differs is summed");
    free(v);
    v = archive_property(anchor, "OFFTRACE::SAME");
    cr_expect_str_eq(v ? v : "", "x");
    free(v);
    v = archive_property(anchor, "OFFTRACE::MPI_CLOCK_OFFSET_INIT_NS");
    cr_expect_str_eq(v ? v : "", "per rank: see the ranks' location groups", "offsets are never summed");
    free(v);
    v = archive_property(anchor, OFFTRACE_JOB_PART_PROPERTY);
    cr_expect_null(v, "the job archive is no part");
    free(v);
    /* the event files were moved, not copied */
    char evt[4300];
    snprintf(evt, sizeof evt, "%s/rank.1/part/traces/%" PRIu64 ".evt", dir, (uint64_t)1 << 40);
    cr_expect_neq(access(evt, F_OK), 0, "%s is still there", evt);
    snprintf(evt, sizeof evt, "%s/traces/%" PRIu64 ".evt", dir, (uint64_t)1 << 40);
    cr_expect_eq(access(evt, F_OK), 0, "%s is missing", evt);
}

Test(merge, three_parts_on_two_hosts)
{
    char dir[4096], anchor[4200];
    merge_synthetic(dir, sizeof dir, "merge-three", 3, NULL);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    job_defs d;
    read_job_defs(anchor, &d);
    int machines = 0, hosts = 0, devices = 0;
    for (int i = 0; i < d.node_count; i++) {
        machines += d.node_parent[i] == OTF2_UNDEFINED_SYSTEM_TREE_NODE;
        hosts += !strncmp(d.nodes[i], "node-", 5);
        devices += !strcmp(d.nodes[i], "x86 device 0");
    }
    cr_expect_eq(machines, 1);
    cr_expect_eq(hosts, 2, "node-a and node-b");
    cr_expect_eq(devices, 2, "one device node per host");
    cr_expect_eq(d.location_group_count, 6);
    cr_expect_str_eq(d.location_groups[4], "MPI Rank 2");
    cr_expect_neq(d.location_group_node[0], d.location_group_node[4], "rank 2 is on node-b");
    cr_expect_eq(d.comm_location_members, 6);
    free_job_defs(&d);
    char *text = ranks_file(dir);
    cr_expect_str_eq(text, "0 complete\n1 complete\n2 complete\n");
    free(text);
}

Test(merge, a_partial_part_is_listed_partial)
{
    char dir[4096], anchor[4200];
    merge_synthetic(dir, sizeof dir, "merge-partial", 3, "killed by SIGTERM");
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    char *text = ranks_file(dir);
    cr_expect_str_eq(text, "0 complete\n1 partial killed by SIGTERM\n2 complete\n");
    free(text);
    char *v = archive_property(anchor, OFFTRACE_PARTIAL_RANKS_PROPERTY);
    cr_expect_str_eq(v ? v : "", "1 partial killed by SIGTERM\n");
    free(v);
    v = archive_property(anchor, "OFFTRACE::PARTIAL");
    cr_expect_str_eq(v ? v : "", "rank 1 partial: killed by SIGTERM");
    free(v);
}

Test(merge, a_missing_part_is_listed_missing)
{
    char dir[4096], anchor[4200];
    fresh_job(dir, sizeof dir, "merge-missing", 3, "77");
    char *before[3] = {0};
    for (int r = 0; r < 3; r += 2) {
        cr_assert_eq(write_synthetic_part(dir, r, NULL), 0);
        before[r] = part_lines(dir, r);
    }
    merge_ok(dir);
    assert_valid(dir);
    assert_same_events(dir, before, 3);
    free(before[0]);
    free(before[2]);
    char *text = ranks_file(dir);
    cr_expect_str_eq(text, "0 complete\n1 missing no part\n2 complete\n");
    free(text);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    char *v = archive_property(anchor, OFFTRACE_PARTIAL_RANKS_PROPERTY);
    cr_expect_str_eq(v ? v : "", "1 missing no part\n");
    free(v);
    job_defs d;
    read_job_defs(anchor, &d);
    int found = 0;
    for (int i = 0; i < d.location_group_count; i++)
        found += !strcmp(d.location_groups[i], "MPI Rank 1");
    cr_expect_eq(found, 1, "the missing rank keeps its place: a location group without locations");
    cr_expect_eq(d.rank_properties_on_groups, 3);
    free_job_defs(&d);
}

Test(merge, a_part_without_its_rank_in_the_location_ids_is_left_out)
{
    char dir[4096];
    fresh_job(dir, sizeof dir, "merge-wrong-rank", 2, "1");
    cr_assert_eq(write_synthetic_part(dir, 0, NULL), 0);
    cr_assert_eq(write_synthetic_part(dir, 1, NULL), 0);
    char from[4200], to[4200];
    /* rank 0's part as rank 1's: its ids say rank 0 */
    snprintf(from, sizeof from, "rm -rf '%s/rank.1' && cp -r '%s/rank.0' '%s/rank.1'", dir, dir, dir);
    cr_assert_eq(system(from), 0);
    snprintf(to, sizeof to, "%s/rank.1/part/traces.otf2", dir);
    merge_ok(dir);
    assert_valid(dir);
    char *text = ranks_file(dir);
    cr_expect(strstr(text, "1 missing its part says it is rank 0's") != NULL, "%s", text);
    free(text);
}

/* A part whose definitions are cut short (a rank killed while it wrote its
 * part) is listed missing with why; the others are merged. */
Test(merge, a_damaged_part_is_listed_missing)
{
    char dir[4096], path[4200];
    fresh_job(dir, sizeof dir, "merge-damaged", 2, "d");
    cr_assert_eq(write_synthetic_part(dir, 0, NULL), 0);
    cr_assert_eq(write_synthetic_part(dir, 1, NULL), 0);
    snprintf(path, sizeof path, "%s/rank.1/part/traces.def", dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(truncate(path, st.st_size / 2), 0);
    merge_ok(dir);
    assert_valid(dir);
    char *text = ranks_file(dir);
    static const char expected[] = "0 complete\n1 missing its part has unreadable definitions";
    cr_expect(!strncmp(text, expected, sizeof expected - 1), "%s", text);
    cr_expect_eq(count_occurrences(text, "\n"), 2, "one line per rank: %s", text);
    free(text);
}

Test(merge, refuses_what_it_cannot_merge)
{
    char dir[4096], why[512] = "";
    fresh_job(dir, sizeof dir, "merge-refused", 2, "9");
    cr_assert_neq(ot_merge_job(dir, why, sizeof why), 0, "a job without any part");
    cr_expect(strstr(why, "no rank of the job") != NULL, "%s", why);
    cr_expect_eq(ot_merge_job_pending(dir), 1);

    cr_assert_eq(write_synthetic_part(dir, 0, NULL), 0);
    cr_assert_eq(write_synthetic_part(dir, 1, NULL), 0);
    char stray[4200];
    snprintf(stray, sizeof stray, "%s/rank.2", dir);
    cr_assert_eq(mkdir(stray, 0777), 0);
    cr_assert_neq(ot_merge_job(dir, why, sizeof why), 0, "a rank beyond the job's size");
    cr_expect(strstr(why, "beyond the job's size 2") != NULL, "%s", why);
    rmdir(stray);

    merge_ok(dir);
    cr_expect_eq(ot_merge_job_pending(dir), 0);
    cr_assert_neq(ot_merge_job(dir, why, sizeof why), 0, "a job merged already");
    cr_expect(strstr(why, "never overwrites") != NULL, "%s", why);

    char bad[4096], path[4200];
    fresh_job(bad, sizeof bad, "merge-bad-job", 2, "9");
    snprintf(path, sizeof path, "%s/job", bad);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("offtrace-job 1\nsize many\n", f);
    fclose(f);
    cr_assert_neq(ot_merge_job(bad, why, sizeof why), 0);
    cr_expect(strstr(why, "is no job file") != NULL, "%s", why);
    cr_expect(strchr(why, '\n') == NULL, "one line: %s", why);
}

/* A merge killed after it moved some event files in (and before the anchor
 * file): the next merge puts them back and makes the whole archive. */
Test(merge, a_merge_killed_half_way_is_redone)
{
    char dir[4096], cmd[8500];
    fresh_job(dir, sizeof dir, "merge-redone", 2, "again");
    char *before[2];
    for (int r = 0; r < 2; r++) {
        cr_assert_eq(write_synthetic_part(dir, r, NULL), 0);
        before[r] = part_lines(dir, r);
    }
    snprintf(cmd, sizeof cmd, "mkdir '%s/traces' && mv '%s/rank.1/part/traces/%" PRIu64 ".evt' '%s/traces/' && "
                              "touch '%s/traces/0.def' '%s/traces.def'",
             dir, dir, (uint64_t)1 << 40, dir, dir, dir);
    cr_assert_eq(system(cmd), 0);
    merge_ok(dir);
    assert_valid(dir);
    assert_same_events(dir, before, 2);
    free(before[0]);
    free(before[1]);
}

/* `offtrace convert DIR` on a job directory waiting for its merge merges it. */
Test(merge, offtrace_convert_merges_a_job_directory)
{
    char dir[4096], anchor[4200];
    fresh_job(dir, sizeof dir, "merge-cli", 2, "cli");
    cr_assert_eq(write_synthetic_part(dir, 0, NULL), 0);
    cr_assert_eq(write_synthetic_part(dir, 1, "killed by SIGKILL"), 0);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "convert failed: %s", r.err);
    cr_expect(strstr(r.err, "offtrace: archive") && strstr(r.err, "rank 1 partial: killed by SIGKILL"), "the job's summary: %s", r.err);
    run_free(&r);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    cr_assert_eq(access(anchor, F_OK), 0);
    assert_valid(dir);
    char *text = ranks_file(dir);
    cr_expect_str_eq(text, "0 complete\n1 partial killed by SIGKILL\n");
    free(text);
    cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
    cr_expect(strstr(r.err, "converted already") != NULL, "%s", r.err);
    run_free(&r);
}

/* A real recording (example_cg: threads, devices, the class table, the
 * thread team, metrics) as rank 0's part of a job of two whose rank 1 died
 * before it had a part. */
Test(merge, a_real_recording_as_rank_0, .timeout = 120)
{
    char recording[4096], dir[4096], err_line[16] = "";
    scratch_path(recording, sizeof recording, "merge-real-recording");
    char cmd[8500];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", recording);
    cr_assert_eq(system(cmd), 0);
    char *err = NULL;
    cr_assert_eq(record_program(recording, NULL, NULL, "example_cg", NULL, &err), 0, "record failed: %s",
                 err ? err : err_line);
    free(err);
    fresh_job(dir, sizeof dir, "merge-real", 2, "real");
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/rank.0' && mv '%s' '%s/rank.0/part'", dir, recording, dir);
    cr_assert_eq(system(cmd), 0);
    char *before[2] = {part_lines(dir, 0), NULL};
    cr_assert(strstr(before[0], "RmaPut") != NULL, "the recording has transfers");
    merge_ok(dir);
    assert_valid(dir);
    assert_same_events(dir, before, 2);
    free(before[0]);
    char *text = ranks_file(dir);
    cr_expect_str_eq(text, "0 complete\n1 missing no part\n");
    free(text);
}

static void record_example(char *dir, size_t size, const char *name, const char *program)
{
    scratch_path(dir, (unsigned)size, name);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    char *err = NULL;
    cr_assert_eq(record_program(dir, NULL, NULL, program, NULL, &err), 0, "record %s failed: %s", program,
                 err ? err : "");
    free(err);
}

/* Three real recordings as a job's parts, ranks 1 and 2 given their rank in
 * the location ids by a test-side copy of their definitions (check/
 * shifted_part.h): every definition of rank 1 (another program) and rank 2
 * (the same program as rank 0, run again) is renumbered in the job, so the
 * mapping tables carry every event. */
Test(merge, three_real_recordings, .timeout = 120)
{
    static const char *const programs[3] = {"example_cg", "example_saxpy", "example_cg"};
    char dir[4096], recording[4096], cmd[8500];
    fresh_job(dir, sizeof dir, "merge-real-three", 3, "real3");
    char *before[3] = {0};
    for (int r = 0; r < 3; r++) {
        char name[64];
        snprintf(name, sizeof name, "merge-real-three-rank%d", r);
        record_example(recording, sizeof recording, name, programs[r]);
        if (r == 0) {
            snprintf(cmd, sizeof cmd, "mkdir -p '%s/rank.0' && mv '%s' '%s/rank.0/part'", dir, recording, dir);
            cr_assert_eq(system(cmd), 0);
        } else
            cr_assert_eq(make_shifted_part(recording, dir, r), 0, "cannot make rank %d's part", r);
        before[r] = part_lines(dir, r);
    }
    merge_ok(dir);
    assert_valid(dir);
    assert_same_events(dir, before, 3);
    for (int r = 0; r < 3; r++)
        free(before[r]);
    char *text = ranks_file(dir);
    cr_expect_str_eq(text, "0 complete\n1 complete\n2 complete\n");
    free(text);
}

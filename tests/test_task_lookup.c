/*
 * The explicit tasks' creations as task switches find them
 * (host/convert/host_tasks.c, issue 18, twelfth round): a synthetic
 * recording whose truth is known. Thread 0 creates TASKS tasks with ids in
 * order (a counter with gaps, as the recorder's shared counter leaves; or
 * half of them out of order) and
 * per task a site, flags and parent computed from its id, one id twice (the
 * first creation counts); thread 1 runs them in a scattered order (a stride
 * through the ids, so that the look-ups jump across the creations' file and
 * its cached blocks), and switches twice to ids never created. Every period
 * must carry its own task's flags and parent and lie in its own site's
 * region, every completion of a created task must have OTF2's
 * ThreadTaskComplete, and the switches to unknown tasks none of either.
 * Enough tasks that the creations go through the sort's scratch file
 * (more than OT_ES_MEMORY_ITEMS). Read back with OTF2's reader.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <omp-tools.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/otf2_definitions.h"
#include "check/raw_stream.h"
#include "check/run.h"
#include "convert.h"
#include "external_sort.h"
#include "offtrace/raw_format.h"

#define NS0 5000000000ull /* host ns of the first clock pair */
#define TICKS0 1000000000ull
#define TASKS (OT_ES_MEMORY_ITEMS + 4000u)
#define MANY_TASKS (600u * 256u) /* past the look-up index's 512 blocks of 256: it keeps every other one */
#define STRIDE 7919u     /* a prime: i * STRIDE % tasks visits every task once */
#define SITES 5u
#define CHUNK (24u << 20) /* one chunk per stream holds all its records */
#define TWICE 77u        /* the task created twice: the second creation has other flags */

static uint64_t task_id(uint32_t i) { return 1ull << 40 | (3ull * i + 1); }
static uint64_t site_of(uint64_t id) { return 0x401000 + 0x40 * (id % SITES); }
static uint64_t flags_of(uint64_t id) { return 4 | (id % 3 == 0 ? 0x08000000 : 0); } /* explicit, sometimes undeferred */
static uint64_t parent_of(uint64_t id) { return id % 11 ? 0 : id - 3; }

static offtrace_raw_record *new_stream(char **stream, uint32_t thread)
{
    *stream = calloc(1, OFFTRACE_RAW_HEADER_SIZE + CHUNK);
    cr_assert_not_null(*stream);
    offtrace_raw_stream_header *h = (offtrace_raw_stream_header *)*stream;
    raw_thread_header(h, CHUNK, thread);
    return (offtrace_raw_record *)(*stream + OFFTRACE_RAW_HEADER_SIZE);
}

static void write_stream(const char *dir, char *stream, uint32_t thread)
{
    char file[64];
    snprintf(file, sizeof file, "thread-%u.rec", thread);
    cr_assert_eq(raw_write_file(dir, file, stream, OFFTRACE_RAW_HEADER_SIZE + CHUNK), 0, "cannot write %s", file);
    free(stream);
}

static offtrace_raw_record schedule(uint64_t time, uint64_t prior, uint8_t status, uint64_t next)
{
    return (offtrace_raw_record){.time = time, .id = prior, .target_id = next, .subkind = status,
                                 .endpoint = OFFTRACE_RAW_BEGIN, .event = OFFTRACE_RAW_OMP_TASK_SCHEDULE};
}

static void make_recording(const char *dir, uint32_t tasks, int scattered)
{
    cr_assert_eq(raw_new_recording(dir, TICKS0, NS0), 0, "cannot make the recording %s", dir);
    char *stream;
    offtrace_raw_record *r = new_stream(&stream, 0);
    size_t k = 0;
    uint64_t time = TICKS0 + 1000;
    for (uint32_t n = 0; n < tasks; n++) {
        /* scattered: the second half of the creations in a stride's order */
        uint32_t half = tasks / 2, i = !scattered || n < half ? n : half + (uint32_t)((uint64_t)(n - half) * STRIDE % (tasks - half));
        uint64_t id = task_id(i);
        r[k++] = (offtrace_raw_record){.time = time += 10, .id = id, .target_id = parent_of(id), .codeptr = site_of(id),
                                       .bytes = (uint32_t)flags_of(id), .endpoint = OFFTRACE_RAW_BEGIN,
                                       .event = OFFTRACE_RAW_OMP_TASK_CREATE};
        if (i == TWICE) /* a damaged record: the same id again, other flags */
            r[k++] = (offtrace_raw_record){.time = time += 10, .id = id, .codeptr = site_of(id), .bytes = 0x10,
                                           .endpoint = OFFTRACE_RAW_BEGIN, .event = OFFTRACE_RAW_OMP_TASK_CREATE};
    }
    if (scattered) /* an id of the first half again, after the sort took over: the first creation counts */
        r[k++] = (offtrace_raw_record){.time = time += 10, .id = task_id(5), .codeptr = site_of(task_id(5)), .bytes = 0x10,
                                       .endpoint = OFFTRACE_RAW_BEGIN, .event = OFFTRACE_RAW_OMP_TASK_CREATE};
    cr_assert_lt(k * sizeof *r, CHUNK);
    write_stream(dir, stream, 0);

    r = new_stream(&stream, 1);
    k = 0;
    for (uint32_t i = 0; i < tasks; i++) {
        uint64_t id = task_id((uint32_t)((uint64_t)i * STRIDE % tasks));
        r[k++] = schedule(time += 10, 0, ompt_task_switch, id);
        r[k++] = schedule(time += 10, id, ompt_task_complete, 0);
        if (i == tasks / 2 || i == tasks - 1) { /* never created: between two ids, and past the last */
            uint64_t unknown = i == tasks - 1 ? task_id(tasks) : id + 1;
            r[k++] = schedule(time += 10, 0, ompt_task_switch, unknown);
            r[k++] = schedule(time += 10, unknown, ompt_task_complete, 0);
        }
    }
    cr_assert_lt(k * sizeof *r, CHUNK);
    write_stream(dir, stream, 1);
}

typedef struct reading {
    otf2_definitions defs; /* first: the reader's user data */
    uint64_t periods, wrong_flags, wrong_parent, wrong_site, without_id, completes, creates, twice_created;
    char first_problem[256];
} reading;

static int attribute_named(const reading *s, OTF2_AttributeList *a, const char *name, uint64_t *value)
{
    OTF2_AttributeRef ref = otf2_defs_attribute_named(&s->defs, name, OTF2_TYPE_UINT64);
    return a && ref != UINT32_MAX && OTF2_AttributeList_GetUint64(a, ref, value) == OTF2_SUCCESS;
}

static void problem(reading *s, const char *what, uint64_t id)
{
    if (!s->first_problem[0])
        snprintf(s->first_problem, sizeof s->first_problem, "%s of task %#" PRIx64, what, id);
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef location, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                  OTF2_RegionRef region)
{
    reading *s = u;
    const char *name = otf2_defs_region_name(&s->defs, region);
    if (!name)
        return OTF2_CALLBACK_SUCCESS;
    uint64_t id, flags, parent;
    if (!strncmp(name, "task create @", 13)) {
        s->creates++;
        s->twice_created += attribute_named(s, a, "task id", &id) && id == task_id(TWICE);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (strncmp(name, "task @", 6))
        return OTF2_CALLBACK_SUCCESS;
    s->periods++;
    if (!attribute_named(s, a, "task id", &id)) {
        s->without_id++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (!attribute_named(s, a, "task flags", &flags) || flags != flags_of(id))
        s->wrong_flags++, problem(s, "the flags", id);
    if (!attribute_named(s, a, "parent task", &parent) || parent != parent_of(id))
        s->wrong_parent++, problem(s, "the parent", id);
    /* the site's address in the name: no symbol there, so the region names it */
    char site[32];
    snprintf(site, sizeof site, "%" PRIx64, site_of(id));
    if (!strstr(name, site))
        s->wrong_site++, problem(s, "the site", id);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_complete(OTF2_LocationRef location, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
                                     OTF2_CommRef team, uint32_t creator, uint32_t generation)
{
    ((reading *)u)->completes++;
    return OTF2_CALLBACK_SUCCESS;
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, on_complete);
}

static void convert_and_check(const char *name, uint32_t tasks, int scattered)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, name);
    make_recording(dir, tasks, scattered);
    ot_convert_options opts;
    memset(&opts, 0, sizeof opts);
    opts.keep_raw = 1;
    char msg[512] = "";
    cr_assert_eq(ot_convert_directory(dir, &opts, msg, sizeof msg), 0, "conversion of %s failed: %s", dir, msg);

    reading *s = calloc(1, sizeof *s);
    cr_assert_not_null(s);
    cr_assert_eq(otf2_read_with_definitions(dir, &s->defs, 0, set_events), 0, "cannot read %s", dir);
    cr_expect_eq(s->creates, tasks + 1 + !!scattered, "%" PRIu64 " creations", s->creates);
    cr_expect_eq(s->twice_created, 2, "both creations of one id are in the archive (its period has the first's flags)");
    cr_expect_eq(s->periods, tasks, "%" PRIu64 " periods for %u created tasks run (and 2 never created)", s->periods,
                 tasks);
    cr_expect_eq(s->without_id, 0);
    cr_expect_eq(s->wrong_flags + s->wrong_parent + s->wrong_site, 0,
                 "%" PRIu64 " wrong flags, %" PRIu64 " wrong parents, %" PRIu64 " wrong sites; first: %s", s->wrong_flags,
                 s->wrong_parent, s->wrong_site, s->first_problem);
    cr_expect_eq(s->completes, tasks, "%" PRIu64 " ThreadTaskComplete", s->completes);
    otf2_definitions_free(&s->defs);
    free(s);
}

Test(task_lookup, every_period_finds_its_own_tasks_creation, .timeout = 120)
{
    convert_and_check("task-lookup", TASKS, 0);
}

/* Creations out of id order (a damaged or merged stream): past the first
 * one out of order they go through the external sort, those written
 * before it included, and the look-ups find the same. */
Test(task_lookup, creations_out_of_order_are_sorted_first, .timeout = 120)
{
    convert_and_check("task-lookup-scattered", TASKS, 1);
}

/* More blocks of creations than the look-up index holds: it keeps every
 * other one, and a look-up reads the first ids of the blocks between. */
Test(task_lookup, more_tasks_than_the_index_has_blocks, .timeout = 240)
{
    convert_and_check("task-lookup-many", MANY_TASKS, 0);
}

/*
 * The archive reader's paired delivery (trace_read.h) on a small archive
 * written with OTF2's writer (check/synthetic_archive.h): region instances
 * with their depth, begin and end, puts with their completions, the put a
 * transfer region on the RDMA row shows, and what is left at the end (a put
 * never completed, a region never left) delivered after the last event;
 * then the summary (summary.h), a visitor of the same reader.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/archive_check.h"
#include "check/run.h"
#include "check/synthetic_archive.h"
#include "summary.h"
#include "trace_read.h"

#define MAX_SEEN 32

/* What the visitor was handed, in order. */
typedef struct seen {
    char what;                 /* 'E'nter, 'L'eave, 'I'ssue, 'T'ransfer */
    uint64_t location;
    char region[48];
    uint64_t begin, end, issued, completed, bytes, transfers, id;
    uint32_t depth, open;
    int unfinished, scratch_kept;
} seen;

typedef struct record {
    const ot_tr_archive *archive;
    seen seen[MAX_SEEN];
    size_t count;
    uint64_t unmatched, last_time, events;
    int ended;
} record;

static seen *add(record *r, char what, const ot_tr_location *loc)
{
    cr_assert_lt(r->count, MAX_SEEN);
    seen *s = &r->seen[r->count++];
    memset(s, 0, sizeof *s);
    s->what = what;
    s->location = loc->id;
    return s;
}

static int on_begin(void *user, const ot_tr_archive *a)
{
    ((record *)user)->archive = a;
    return 0;
}

/* The scratch holds the begin time from enter to leave. */
static int on_span(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    record *r = user;
    uint64_t *scratch = span->data;
    seen *s = add(r, span->end || span->unfinished ? 'L' : 'E', loc);
    snprintf(s->region, sizeof s->region, "%s", span->region->name);
    s->begin = span->begin;
    s->end = span->end;
    s->depth = span->depth;
    s->unfinished = span->unfinished;
    s->bytes = span->bytes;
    s->transfers = span->transfers;
    s->open = ot_tr_open_count(r->archive, loc);
    cr_assert_eq(ot_tr_open_span(r->archive, loc, span->depth), span, "the span is the innermost open one");
    if (s->what == 'E')
        *scratch = span->begin + 1;
    else
        s->scratch_kept = *scratch == span->begin + 1;
    return 0;
}

static int on_issue(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    seen *s = add(user, 'I', loc);
    s->issued = x->issued;
    s->id = x->id;
    *(uint64_t *)x->data = x->id * 2;
    return 0;
}

static int on_transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    seen *s = add(user, 'T', loc);
    s->issued = x->issued;
    s->completed = x->completed;
    s->bytes = x->bytes;
    s->id = x->id;
    s->scratch_kept = *(uint64_t *)x->data == x->id * 2;
    cr_assert_eq(x->device, 0);
    return 0;
}

static int on_end(void *user, const ot_tr_archive *a)
{
    record *r = user;
    r->unmatched = ot_tr_unmatched_completions(a);
    r->last_time = ot_tr_last_time(a);
    r->events = ot_tr_events(a);
    r->ended = 1;
    return 0;
}

static const seen *find(const record *r, char what, const char *region_prefix, uint64_t begin)
{
    for (size_t i = 0; i < r->count; i++) {
        const seen *s = &r->seen[i];
        if (s->what == what && !strncmp(s->region, region_prefix, strlen(region_prefix)) && s->begin == begin)
            return s;
    }
    return NULL;
}

static size_t index_of(const record *r, const seen *s)
{
    return (size_t)(s - r->seen);
}

static void read_paired(record *r, int unordered)
{
    char dir[4096], err[512];
    scratch_path(dir, sizeof dir, "paired");
    cr_assert_eq(write_paired_archive(dir), 0);
    memset(r, 0, sizeof *r);
    ot_tr_visitor v = {.span_data = sizeof(uint64_t), .transfer_data = sizeof(uint64_t), .unordered = unordered,
                       .begin = on_begin, .enter = on_span, .leave = on_span, .issue = on_issue,
                       .transfer = on_transfer, .end = on_end};
    cr_assert_eq(ot_trace_read(dir, &v, r, err, sizeof err), 0, "%s", err);
    cr_assert(r->ended);
}

Test(trace_read, regions_come_paired_with_their_depth)
{
    record r;
    read_paired(&r, 0);
    const seen *op = find(&r, 'L', "data op", 110);
    cr_assert_not_null(op);
    cr_assert_eq(op->end, 150);
    cr_assert_eq(op->depth, 1);
    cr_assert_eq(op->open, 2, "the target region is open around it");
    cr_assert(op->scratch_kept, "the visitor's scratch travels from enter to leave");
    cr_assert_eq(op->transfers, 1);
    cr_assert_eq(op->bytes, 800);
    cr_assert_not_null(find(&r, 'E', "target", 100));
    cr_assert_eq(find(&r, 'E', "data op", 200)->depth, 1);
    cr_assert_eq(find(&r, 'L', "data op", 200)->bytes, 16);
    cr_assert_eq(r.events, 13);
}

Test(trace_read, a_put_comes_with_its_completion_and_gives_its_transfer_region_its_bytes)
{
    record r;
    read_paired(&r, 0);
    size_t issue = r.count, done = r.count;
    for (size_t i = 0; i < r.count; i++) {
        if (r.seen[i].what == 'I' && r.seen[i].id == 7)
            issue = i;
        if (r.seen[i].what == 'T' && r.seen[i].id == 7)
            done = i;
    }
    cr_assert(issue < done && done < r.count);
    cr_assert_eq(r.seen[done].issued, 110);
    cr_assert_eq(r.seen[done].completed, 150);
    cr_assert_eq(r.seen[done].bytes, 800);
    cr_assert(r.seen[done].scratch_kept);
    cr_assert(done < index_of(&r, find(&r, 'L', "data op", 110)), "completed before its data op ends");
    const seen *rdma = find(&r, 'L', "transfer", 110);
    cr_assert_eq(rdma->location, (1ull << 32) | 0xFFFFu);
    cr_assert_eq(rdma->bytes, 800, "the RDMA row's transfer region shows its put");
    cr_assert_eq(find(&r, 'L', "transfer", 200)->bytes, 16);
    cr_assert_eq(r.unmatched, 1, "the completion of id 99");
}

/* Left at the end: the put never completed, then the region never left,
 * ended at the last event (230, on the RDMA row), after every event. */
Test(trace_read, what_is_left_open_comes_after_the_last_event)
{
    record r;
    read_paired(&r, 0);
    cr_assert_eq(r.last_time, 230);
    const seen *last_event = find(&r, 'L', "transfer", 200);
    cr_assert_eq(last_event->end, 230);
    cr_assert_geq(r.count, 3);
    const seen *put = &r.seen[r.count - 2], *target = &r.seen[r.count - 1];
    cr_assert(index_of(&r, last_event) < r.count - 2);
    cr_assert_eq(put->what, 'T');
    cr_assert_eq(put->id, 8);
    cr_assert_eq(put->completed, 0, "never completed");
    cr_assert_eq(put->bytes, 16);
    cr_assert_eq(target->what, 'L');
    cr_assert_str_eq(target->region, "target @paired.c:3");
    cr_assert(target->unfinished);
    cr_assert_eq(target->end, 230);
    cr_assert_eq(target->depth, 0);
}

/* Location by location: the same pairs, but no put for the RDMA row's regions. */
Test(trace_read, unordered_reading_pairs_the_same)
{
    record r;
    read_paired(&r, 1);
    cr_assert_eq(find(&r, 'L', "data op", 110)->bytes, 800);
    cr_assert_eq(find(&r, 'L', "transfer", 110)->transfers, 0);
    cr_assert(find(&r, 'L', "target", 100)->unfinished);
    cr_assert_eq(r.unmatched, 1);
    cr_assert_eq(r.events, 13);
}

/* ---- a put/get's variable (issue 15): on the put, or (issue 18) taken from its data op's Enter ---- */

typedef struct maps_seen {
    unsigned ops, puts;
} maps_seen;

/* The strings live while the archive is read: checked in the visitor. */
static void expect_map(const ot_tr_map *m, int second)
{
    const char *variable = second ? "y" : "x[0:100]", *type = second ? "tofrom" : "to";
    cr_assert_not_null(m->variable);
    cr_expect_str_eq(m->variable, variable);
    cr_assert_not_null(m->map_type, "%s", variable);
    cr_expect_str_eq(m->map_type, type);
    cr_expect_eq(m->implicit, !second, "%s", variable);
    cr_assert_not_null(m->site);
    cr_expect_str_eq(m->site, "paired.c:4");
    cr_assert_not_null(m->entry);
    cr_expect_str_eq(m->entry, "entry");
    if (second) {
        cr_assert_not_null(m->member_of, "%s", variable);
        cr_expect_str_eq(m->member_of, "s");
    } else
        cr_expect_null(m->member_of, "%s", variable);
    cr_expect_null(m->name_problem);
}

static int on_op(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    maps_seen *m = user;
    if (!span->end && span->region->klass == OT_TR_DATA_OP) {
        expect_map(&span->map, span->begin >= 200);
        m->ops++;
    }
    return 0;
}

static int on_put(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    maps_seen *m = user;
    cr_assert(x->id == 7 || x->id == 8);
    expect_map(&x->map, x->id == 8);
    m->puts++;
    return 0;
}

static const char *const layout_names[OT_MAPPED_LAYOUTS] = {"usual-values-left-out", "map-on-the-puts",
                                                             "variable-alone-on-the-puts"};

/* Every layout reads the same: every reader (report, view, export, info) gets the whole map with the data op
 * and the put, implicit and map entry at their usual values where the archive left them out, and the variable,
 * map type and site of the previous Enter of the region on the location where it left those out. */
Test(trace_read, a_put_has_its_data_ops_map_whether_it_carries_it_or_not)
{
    for (int layout = 0; layout < OT_MAPPED_LAYOUTS; layout++)
        for (int unordered = 0; unordered < 2; unordered++) {
            char dir[4096], err[512];
            scratch_path(dir, sizeof dir, layout_names[layout]);
            cr_assert_eq(write_mapped_archive(dir, layout), 0);
            maps_seen m = {0};
            ot_tr_visitor v = {.unordered = unordered, .enter = on_op, .transfer = on_put};
            cr_log_info("layout %s, %s", layout_names[layout], unordered ? "unordered" : "in time order");
            cr_assert_eq(ot_trace_read(dir, &v, &m, err, sizeof err), 0, "%s", err);
            cr_assert_eq(m.ops, 3);
            cr_assert_eq(m.puts, 2);
        }
}

/* The tests' own check of the placement (check/archive_check.c, run on every example's archive) can fail:
 * the layouts before (every map attribute on the put too; implicit 0 or map entry `entry` carried; the
 * variable, map type and site carried again) break it once per put, once per Enter that carries a usual value
 * (all three Enters here) and once per Enter that repeats its region's previous one (the third). */
Test(trace_read, the_archive_check_wants_the_variable_alone_on_a_put)
{
    static const unsigned expected[OT_MAPPED_LAYOUTS] = {0, 6, 4};
    for (int layout = 0; layout < OT_MAPPED_LAYOUTS; layout++) {
        char dir[4096];
        scratch_path(dir, sizeof dir, layout_names[layout]);
        cr_assert_eq(write_mapped_archive(dir, layout), 0);
        archive_facts f;
        cr_assert_eq(archive_check(dir, &f), 0);
        cr_expect_eq(f.named_transfers, 2);
        cr_expect_eq(f.bad_map_placement, expected[layout], "%s: %s", layout_names[layout], f.first_problem);
    }
}

/* A host chunk's Enter leaves out its iterations and first iteration where they follow from the location's
 * previous chunk (docs/host-openmp.md "A chunk's iterations"); every reader gets them as if carried, after a
 * chunk too deep to deliver too, and the archive that carries them all reads the same. */
typedef struct chunks_seen {
    unsigned delivered, tasks_delivered;
    unsigned next[2]; /* per location: the index in ot_synthetic_chunks of the next chunk expected */
    unsigned next_task[2]; /* and in ot_synthetic_teams of the next implicit task */
} chunks_seen;

/* A span's two values \p ka and \p kb, carried or supplied, against what the archive's writer meant (\p what's
 * number \p k). */
static void expect_pair(const ot_tr_span *span, const char *what, unsigned k, int ka, unsigned long long a, int kb,
                        unsigned long long b)
{
    cr_assert(span->attrs >> ka & 1 && span->attrs >> kb & 1, "%s %u without its values", what, k);
    cr_expect_eq(span->attr[ka], a, "%s %u", what, k);
    cr_expect_eq(span->attr[kb], b, "%s %u", what, k);
}

static int chunk_location(unsigned k) { return ot_synthetic_chunks[k].location; }
static int team_location(unsigned k) { return ot_synthetic_teams[k].location; }

/* The index of location \p id's next expected of \p n entries (located by \p location), past \p too_deep (the one
 * the reader does not deliver); *i moves on past it. */
static unsigned next_expected(unsigned *i, unsigned n, int (*location)(unsigned), uint64_t id, unsigned too_deep)
{
    while (*i < n && location(*i) != (int)id)
        ++*i;
    if (id == 1 && *i == too_deep)
        ++*i;
    cr_assert_lt(*i, n);
    return (*i)++;
}

/* The same for an implicit task's team size and thread number (docs/host-openmp.md "An implicit task's team
 * size and thread number"), in the same archive: each loop is in one. */
static void on_implicit_task(chunks_seen *seen, const ot_tr_location *loc, const ot_tr_span *span)
{
    /* location 1's first implicit task (2) is too deep to deliver */
    unsigned k = next_expected(&seen->next_task[loc->id], OT_SYNTHETIC_TEAMS, team_location, loc->id, 2);
    expect_pair(span, "implicit task", k, OT_TR_ATTR_TEAM_SIZE, ot_synthetic_teams[k].size, OT_TR_ATTR_THREAD_NUMBER,
                ot_synthetic_teams[k].number);
    seen->tasks_delivered++;
}

static int on_chunk(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    chunks_seen *seen = user;
    cr_assert(loc->id < 2);
    if (!span->end && span->region->cls == OFFTRACE_CLASS_HOST_IMPLICIT_TASK)
        on_implicit_task(seen, loc, span);
    if (span->end || span->region->cls != OFFTRACE_CLASS_HOST_CHUNK)
        return 0;
    /* location 1's first chunk (6) is too deep to deliver */
    unsigned k = next_expected(&seen->next[loc->id], OT_SYNTHETIC_CHUNKS, chunk_location, loc->id, 6);
    expect_pair(span, "chunk", k, OT_TR_ATTR_FIRST_ITERATION, ot_synthetic_chunks[k].first, OT_TR_ATTR_ITERATIONS,
                ot_synthetic_chunks[k].iterations);
    seen->delivered++;
    return 0;
}

Test(trace_read, a_chunk_and_an_implicit_task_have_their_values_whether_they_carry_them_or_not)
{
    for (int carry_all = 0; carry_all < 2; carry_all++)
        for (int unordered = 0; unordered < 2; unordered++) {
            char dir[4096], err[512];
            scratch_path(dir, sizeof dir, carry_all ? "chunks-carried" : "chunks-left-out");
            cr_assert_eq(write_chunked_archive(dir, carry_all), 0);
            chunks_seen seen = {0};
            ot_tr_visitor v = {.unordered = unordered, .enter = on_chunk};
            cr_assert_eq(ot_trace_read(dir, &v, &seen, err, sizeof err), 0, "%s", err);
            cr_expect_eq(seen.delivered, OT_SYNTHETIC_CHUNKS - 1);
            cr_expect_eq(seen.tasks_delivered, OT_SYNTHETIC_TEAMS - 1);
        }
}

/* The tests' own check counts a chunk or implicit task carrying a value it should leave out as misplaced. */
Test(trace_read, the_archive_check_wants_a_chunks_usual_values_left_out)
{
    for (int carry_all = 0; carry_all < 2; carry_all++) {
        char dir[4096];
        scratch_path(dir, sizeof dir, carry_all ? "chunks-carried" : "chunks-left-out");
        cr_assert_eq(write_chunked_archive(dir, carry_all), 0);
        archive_facts f;
        cr_assert_eq(archive_check(dir, &f), 0);
        cr_expect_eq(f.bad_map_placement, carry_all ? OT_SYNTHETIC_CHUNKS_USUAL + OT_SYNTHETIC_TEAMS_USUAL : 0, "%s",
                     f.first_problem);
    }
}

Test(trace_read, the_summary_counts_every_put_once)
{
    char dir[4096], err[512];
    scratch_path(dir, sizeof dir, "paired-summary");
    cr_assert_eq(write_paired_archive(dir), 0);
    ot_summary s;
    cr_assert_eq(ot_summary_read(dir, &s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(s.constructs[OT_CONSTRUCT_TARGET], 1);
    cr_assert_eq(s.h2d_count, 2);
    cr_assert_eq(s.h2d_bytes, 816);
    cr_assert_eq(s.d2h_count, 0);
    cr_assert_eq(s.events, 13);
    cr_assert_eq(s.host_threads, 1);
    cr_assert_eq(s.devices, 1);
    cr_assert_eq(s.device_streams, 0, "the RDMA row is no kernel stream");
    cr_assert_str_eq(s.partial, "no");
}

/* The summary's text for \p s (freed by the caller). */
static char *printed(const ot_summary *s)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    cr_assert_not_null(f);
    ot_summary_print(s, "run1", f);
    fclose(f);
    return text;
}

/* Two device events per target region and device thread come late every run
 * (the host-offload worker's implicit task and last barrier end when it is
 * woken for the next target): normal, not said. More is said, in words. */
Test(trace_read, the_summary_speaks_plainly_and_leaves_out_what_is_normal)
{
    ot_summary s = {.host_threads = 1, .device_records = 700, .device_locations = 2, .device_threads = 2,
                    .device_clamped = 40, .partial = "no"};
    s.constructs[OT_CONSTRUCT_TARGET] = 10;
    char *text = printed(&s);
    cr_assert(strstr(text, "offtrace: device detail    700 events on 2 device threads\n"), "%s", text);
    cr_assert(strstr(text, ", 1 host thread, "), "%s", text);
    cr_assert_null(strstr(text, "placed at"), "%s", text);
    cr_assert_null(strstr(text, "device timing"), "the normal late ends are not news: %s", text);
    cr_assert_eq(ot_summary_misplaced_device_events(&s), 0);
    free(text);

    s.host_threads = 3;
    s.device_threads = 1;
    s.device_queues = 1;
    s.device_clamped = 21;
    text = printed(&s);
    cr_assert(strstr(text, "offtrace: device detail    700 events on 1 device thread and 1 queue\n"), "%s", text);
    cr_assert(strstr(text, ", 3 host threads, "), "%s", text);
    cr_assert(strstr(text, "offtrace: device timing    21 device events fell outside their target region"), "%s",
              text);
    cr_assert_eq(ot_summary_misplaced_device_events(&s), 21);
    free(text);
}

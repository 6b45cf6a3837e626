/**
 * \file test_device_timeline.c
 * \brief The device timeline writes a device's kernels, transfers and
 *        memory changes as they come when no later host thread adds any,
 *        and the archive is the one sorting them gives (issue 18, sixth
 *        round): every recording here is converted both ways
 *        (ot_convert_options.sort_device_items) and the two archives'
 *        traces.def and event files compared byte for byte.
 *
 * Real programs under `offtrace record` (raw records kept): one host thread
 * offloading more items than the sort keeps in memory (so the sort spills,
 * the other way does not), two host threads offloading at once, `target
 * nowait` on helper threads, two devices. And recordings written here whose
 * one thread's launches, transfers and allocations nest: around a few, the
 * late item still finds its place (items wait a little before they are
 * written); around many, it comes before one written already: the
 * conversion starts again, sorting, and the archive is still the sorted one.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/raw_stream.h"
#include "check/archive_check.h"
#include "check/run.h"
#include "convert.h"
#include "offtrace/raw_format.h"

TestSuite(device_timeline, .timeout = 300);

/* ---- converting both ways ---- */

/* Convert DIR's raw records (kept) with or without the sort; the archive
 * is moved to DIR/<tag>/. */
/* The last conversion's CLIPPED_TRANSFER_REGIONS. */
static uint64_t clipped;

static struct ot_convert_device_items convert_as(const char *dir, int sort, const char *tag)
{
    struct ot_convert_device_items items;
    memset(&items, 0xff, sizeof items);
    ot_convert_options opts;
    memset(&opts, 0, sizeof opts);
    opts.keep_raw = 1;
    opts.sort_device_items = sort;
    opts.device_items = &items;
    char msg[1024] = "";
    int rc = ot_convert_directory(dir, &opts, msg, sizeof msg);
    cr_assert_eq(rc, 0, "converting %s failed (%d): %s", dir, rc, msg);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s (%s): %s", dir, tag, f.first_problem);
    cr_assert_eq(archive_property(dir, "OFFTRACE::CLIPPED_TRANSFER_REGIONS", &clipped), 0);
    char to[4400], from[4400];
    snprintf(to, sizeof to, "%s/%s", dir, tag);
    cr_assert_eq(mkdir(to, 0777), 0);
    static const char *parts[] = {"traces", "traces.def", "traces.otf2"};
    for (int i = 0; i < 3; i++) {
        snprintf(from, sizeof from, "%s/%s", dir, parts[i]);
        snprintf(to, sizeof to, "%s/%s/%s", dir, tag, parts[i]);
        cr_assert_eq(rename(from, to), 0, "cannot move %s", from);
    }
    return items;
}

static void expect_same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = read_whole_file(a, &na), *y = read_whole_file(b, &nb);
    cr_assert_not_null(x, "cannot read %s", a);
    cr_assert_not_null(y, "cannot read %s", b);
    cr_assert(na == nb && memcmp(x, y, na) == 0, "%s and %s differ (%zu and %zu bytes)", a, b, na, nb);
    free(x);
    free(y);
}

/* traces.def and every event file of DIR/sorted and DIR/as-they-come are
 * the same bytes; returns the number of event files. */
static unsigned expect_same_archives(const char *dir)
{
    char a[4400], b[4400];
    snprintf(a, sizeof a, "%s/sorted/traces.def", dir);
    snprintf(b, sizeof b, "%s/as-they-come/traces.def", dir);
    expect_same_file(a, b);
    unsigned files[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        char traces[4400];
        snprintf(traces, sizeof traces, "%s/%s/traces", dir, side ? "as-they-come" : "sorted");
        DIR *d = opendir(traces);
        cr_assert_not_null(d, "no %s", traces);
        for (struct dirent *e; (e = readdir(d));) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".evt") != 0)
                continue;
            files[side]++;
            if (side == 0) {
                snprintf(a, sizeof a, "%s/sorted/traces/%s", dir, e->d_name);
                snprintf(b, sizeof b, "%s/as-they-come/traces/%s", dir, e->d_name);
                expect_same_file(a, b);
            }
        }
        closedir(d);
    }
    cr_assert_eq(files[0], files[1], "%s: %u event files sorted, %u as they came", dir, files[0], files[1]);
    cr_assert_gt(files[0], 0u);
    return files[0];
}

typedef struct both_ways {
    struct ot_convert_device_items sorted, as_they_come;
    uint64_t clipped; /* transfers drawn clipped */
} both_ways;

static both_ways convert_both_ways(const char *dir)
{
    both_ways w;
    w.sorted = convert_as(dir, 1, "sorted");
    w.clipped = clipped;
    w.as_they_come = convert_as(dir, 0, "as-they-come");
    cr_assert_eq(clipped, w.clipped);
    expect_same_archives(dir);
    cr_assert_eq(w.sorted.as_they_came, 0u);
    cr_assert_eq(w.sorted.started_again, 0);
    cr_assert_eq(w.as_they_come.as_they_came + w.as_they_come.sorted, w.sorted.sorted,
                 "%s: %llu items written as they came and %llu sorted, %llu when all are sorted", dir,
                 (unsigned long long)w.as_they_come.as_they_came, (unsigned long long)w.as_they_come.sorted,
                 (unsigned long long)w.sorted.sorted);
    return w;
}

static void record(const char *dir, const char *option, const char *program, char *const args[])
{
    char *env[] = {"OFFTRACE_KEEP_RAW=1", "OMP_NUM_THREADS=2", NULL};
    char *err = NULL;
    cr_assert_eq(record_program(dir, option, env, program, args, &err), 0, "record %s failed:\n%s", program,
                 err ? err : "");
    free(err);
}

/* ---- real programs ---- */

Test(device_timeline, one_host_thread_items_are_written_as_they_come_without_a_sort)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "timeline-one-thread");
    /* 6,000 empty `target map(tofrom: 64 B)`: 30,000 items, more than the sort keeps in memory */
    char *args[] = {"map64", "6000", NULL};
    record(dir, NULL, "bench_target_loop", args);
    both_ways w = convert_both_ways(dir);
    cr_assert_gt(w.sorted.sorted, 2u * 8192u, "only %llu device items", (unsigned long long)w.sorted.sorted);
    cr_assert_eq(w.as_they_come.sorted, 0u, "%llu items sorted", (unsigned long long)w.as_they_come.sorted);
    cr_assert_eq(w.as_they_come.started_again, 0);
}

Test(device_timeline, host_only_items_are_written_as_they_come)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "timeline-host-only");
    char *args[] = {"3000", NULL};
    record(dir, "--host-only", "hostile_many", args);
    both_ways w = convert_both_ways(dir);
    cr_assert_gt(w.as_they_come.as_they_came, 3000u);
    cr_assert_eq(w.as_they_come.sorted, 0u);
    cr_assert_eq(w.as_they_come.started_again, 0);
}

/* Two host threads offload 1 ms kernels at once: the first thread's items
 * cannot be written before the second's are known; sorted, no new start. */
Test(device_timeline, two_offloading_threads_are_sorted)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "timeline-overlap");
    record(dir, NULL, "hostile_overlap", NULL);
    both_ways w = convert_both_ways(dir);
    cr_assert_gt(w.as_they_come.sorted, 0u);
    cr_assert_eq(w.as_they_come.started_again, 0);
}

Test(device_timeline, nowait_targets_on_helper_threads_are_sorted)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "timeline-nowait");
    char *args[] = {"2", "100", NULL};
    record(dir, NULL, "hostile_nowait64", args);
    both_ways w = convert_both_ways(dir);
    cr_assert_eq(w.as_they_come.started_again, 0);
}

Test(device_timeline, two_devices_from_one_thread_are_written_as_they_come)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "timeline-two-devices");
    record(dir, NULL, "example_two_devices", NULL);
    both_ways w = convert_both_ways(dir);
    cr_assert_gt(w.as_they_come.as_they_came, 0u);
    cr_assert_eq(w.as_they_come.started_again, 0);
}

/* ---- a thread whose operations nest ---- */

#define NS0 5000000000ull
#define TICKS0 1000000000ull
#define T0 (NS0 + 1000000ull)

static uint64_t ticks_of(uint64_t ns)
{
    return TICKS0 + 2 * (ns - NS0);
}

static void write_raw_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/raw/%s", dir, name);
    FILE *f = fopen(path, "we");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, size, f), size);
    cr_assert_eq(fclose(f), 0);
}

static offtrace_raw_record op(uint8_t event, uint8_t endpoint, uint64_t ns, uint64_t id)
{
    offtrace_raw_record r = {.time = ticks_of(ns), .event = event, .endpoint = endpoint, .id = id,
                             .target_id = 77, .src_device = 1, .dst_device = 0};
    return r;
}

/* What nests in the one thread's target region on device 0: \p inner
 * operations inside an outer one of the same kind (launches, transfers), or
 * allocations inside a transfer. Inner ones end first, so the outer one,
 * which begins earlier, comes after them (the recorder keeps such orders:
 * test_recorder's nested operations). Then launches and transfers in
 * order. SAME_TIMES nests nothing: an allocation ends where a transfer
 * begins; the second one, of no duration, where the first transfer ends and
 * the second begins. */
enum nesting { LAUNCHES_NEST, TRANSFERS_NEST, ALLOCATIONS_IN_TRANSFER, SAME_TIMES };

/* Records of an operation from \p begin to \p end (ns). */
static size_t operation(offtrace_raw_record *r, uint8_t event, uint8_t subkind, uint64_t begin, uint64_t end,
                        uint64_t id, uint64_t device_addr)
{
    r[0] = op(event, OFFTRACE_RAW_BEGIN, begin, id);
    r[0].subkind = subkind;
    if (event == OFFTRACE_RAW_DATA_OP) {
        r[0].bytes = subkind == ompt_target_data_alloc ? 4096 : 64;
        r[0].src_addr = subkind == ompt_target_data_alloc ? 0 : 0x1000;
        r[0].dst_addr = device_addr;
        r[0].flags = OFFTRACE_RAW_FLAG_IN_CONSTRUCT;
    }
    r[1] = r[0];
    r[1].time = ticks_of(end);
    r[1].endpoint = OFFTRACE_RAW_END;
    return 2;
}

static size_t nesting_records(offtrace_raw_record *r, enum nesting what, unsigned inner)
{
    size_t n = 0;
    r[n] = op(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_BEGIN, T0, 77);
    r[n++].subkind = ompt_target;
    uint64_t at = T0 + 1000, id = 500;
    if (what != SAME_TIMES) { /* outer begins, inner ones, outer ends */
        uint8_t outer_event = what == LAUNCHES_NEST ? OFFTRACE_RAW_SUBMIT : OFFTRACE_RAW_DATA_OP;
        size_t outer = n;
        n += operation(r + n, outer_event, what == LAUNCHES_NEST ? 0 : ompt_target_data_transfer_to_device, at,
                       at + 1000 * (inner + 1), id++, 0x2000);
        offtrace_raw_record outer_end = r[outer + 1];
        n = outer + 1;
        for (unsigned i = 0; i < inner; i++) {
            uint64_t b = at + 1000 * (i + 1);
            if (what == LAUNCHES_NEST)
                n += operation(r + n, OFFTRACE_RAW_SUBMIT, 0, b, b + 500, id++, 0);
            else
                n += operation(r + n, OFFTRACE_RAW_DATA_OP,
                               what == TRANSFERS_NEST ? ompt_target_data_transfer_to_device : ompt_target_data_alloc,
                               b, b + 500, id++, 0x10000 + 0x1000 * (uint64_t)i);
        }
        r[n++] = outer_end;
        at += 1000 * (inner + 2);
    } else {
        for (int i = 0; i < 2; i++) { /* its memory change and the transfer's Enter at one time */
            n += operation(r + n, OFFTRACE_RAW_DATA_OP, ompt_target_data_alloc, at - (i ? 0 : 500), at, id++,
                           0x3000 + 0x1000 * (uint64_t)i);
            n += operation(r + n, OFFTRACE_RAW_DATA_OP, ompt_target_data_transfer_to_device, at, at + 3000, id++,
                           0x2000);
            at += 3000;
        }
    }
    for (int i = 0; i < 3; i++, at += 10000)
        n += operation(r + n, OFFTRACE_RAW_SUBMIT, 0, at, at + 5000, id++, 0);
    r[n] = op(OFFTRACE_RAW_TARGET, OFFTRACE_RAW_END, at, 77);
    r[n++].subkind = ompt_target;
    return n;
}

static void make_nesting_recording(char *dir, size_t size, const char *name, enum nesting what, unsigned inner)
{
    scratch_path(dir, (unsigned)size, name);
    cr_assert_eq(raw_new_recording(dir, TICKS0, NS0), 0, "cannot make the recording %s", dir);
    char text[256];
    int len = snprintf(text, sizeof text, "0 generic-64bit\n1 host\n");
    write_raw_file(dir, "devices.txt", text, (size_t)len);
    const size_t chunk = 65536;
    char *stream = calloc(1, OFFTRACE_RAW_HEADER_SIZE + chunk);
    offtrace_raw_stream_header *h = (offtrace_raw_stream_header *)stream;
    raw_main_thread_header(h, chunk);
    cr_assert_lt(nesting_records((offtrace_raw_record *)(stream + OFFTRACE_RAW_HEADER_SIZE), what, inner),
                 chunk / sizeof(offtrace_raw_record));
    write_raw_file(dir, "thread-0.rec", stream, OFFTRACE_RAW_HEADER_SIZE + chunk);
    free(stream);
}

/* A nesting recording converted both ways: \p items device items, and
 * whether the conversion started again, sorting. */
static both_ways nesting(const char *name, enum nesting what, unsigned inner, uint64_t items, int started_again)
{
    char dir[4096];
    make_nesting_recording(dir, sizeof dir, name, what, inner);
    both_ways w = convert_both_ways(dir);
    cr_assert_eq(w.sorted.sorted, items, "%s: %llu items", name, (unsigned long long)w.sorted.sorted);
    cr_assert_eq(w.as_they_come.started_again, started_again, "%s: started again or not", name);
    /* started again: the second attempt sorted them all */
    cr_assert_eq(w.as_they_come.as_they_came, started_again ? 0 : items, "%s", name);
    return w;
}

/* A few items late: they wait, in order, before being written. */
Test(device_timeline, an_operation_around_a_few_others_on_its_thread_is_written_in_order)
{
    nesting("timeline-launch-around-one", LAUNCHES_NEST, 1, 5, 0);       /* 2 nested, 3 launches after */
    nesting("timeline-transfer-around-one", TRANSFERS_NEST, 1, 5, 0);    /* 2 transfers, 3 launches */
    nesting("timeline-transfer-around-allocation", ALLOCATIONS_IN_TRANSFER, 1, 5, 0); /* 1, 1, 3 */
}

/* More items late than wait: the conversion starts again, sorted. */
Test(device_timeline, an_operation_around_many_others_starts_the_conversion_again_sorted)
{
    nesting("timeline-launch-around-many", LAUNCHES_NEST, 100, 104, 1);
    both_ways w = nesting("timeline-transfer-around-many", TRANSFERS_NEST, 100, 104, 1);
    cr_assert_eq(w.clipped, 0u, "the inner transfers end inside the outer one");
    nesting("timeline-transfer-around-allocations", ALLOCATIONS_IN_TRANSFER, 100, 104, 1);
}

Test(device_timeline, items_at_equal_times_are_written_as_they_come_in_the_sorted_order)
{
    both_ways w = nesting("timeline-same-times", SAME_TIMES, 0, 7, 0); /* 3 launches, 2 transfers, 2 allocations */
    cr_assert_eq(w.clipped, 0u, "a transfer that begins where the one before ended is not inside it");
}

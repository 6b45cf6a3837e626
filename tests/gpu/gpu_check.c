/*
 * gpu_check - judge, on the build machine, an archive that tests/gpu/run.sh
 * recorded on a GPU machine: the test suite's archive rules, the counts
 * against the independent OMPT counter's line of a run of its own, and what
 * only a real device shows: the device's own view of every kernel and copy
 * (CUPTI's activities on "device N queue Q") against the host's.
 *
 *   usage: gpu_check ARCHIVE_DIR COUNTS_FILE
 *
 * One line per fact ("ok" or "PROBLEM"), then "gpu_check: PASS" or
 * "gpu_check: FAIL (N problems)"; the exit status says the same (0, 1; 2 when
 * the archive or the counts cannot be read).
 *
 * The clock check: a kernel cannot start on the device before the host
 * began to launch it, nor end after the host's target region around it
 * ended. The n-th kernel activity of a device (by start time) is paired with
 * the n-th host launch ("device N stream K" locations), so the smallest
 * "device start - host launch begin" says how early the sync put the device
 * clock at worst (negative: a violation of causality, the sync's error).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/archive_check.h"
#include "check/otf2_definitions.h"
#include "check/runtime_counts.h"
#include "offtrace/event_catalogue.h"

typedef struct times {
    uint64_t *v;
    size_t n, cap;
} times;

typedef struct state {
    otf2_definitions defs; /* first: the reader's user pointer */
    times device_kernel_begin, host_launch_begin, device_kernel_ns;
    times device_kernel_op, host_launch_op; /* their host operations (attribute HOST_OPERATION), 0: none */
    uint64_t last_kernel_begin;
    uint64_t device_kernels, kernels_with_grid, kernels_with_block;
    uint64_t h2d, h2d_bytes, d2h, d2h_bytes, copies_without_bytes;
    uint64_t memsets, runtime_own, runtime_own_bytes, launch_copies, launch_copy_bytes;
    int out_of_memory;
} state;

static void push(state *s, times *t, uint64_t v)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        uint64_t *p = realloc(t->v, cap * sizeof *p);
        if (!p) {
            s->out_of_memory = 1;
            return;
        }
        t->v = p, t->cap = cap;
    }
    t->v[t->n++] = v;
}

static const char *location_name(const state *s, OTF2_LocationRef location)
{
    size_t i = otf2_defs_location_index(&s->defs, location);
    if (i < s->defs.location_count && s->defs.locations[i].id == location)
        return otf2_defs_string(&s->defs, s->defs.locations[i].name);
    return "";
}

/* (GetAttributeByID complains on stderr about an attribute that is not there.) */
static int has_attribute(OTF2_AttributeList *a, OTF2_AttributeRef ref, OTF2_AttributeValue *value)
{
    for (uint32_t i = 0; a && i < OTF2_AttributeList_GetNumberOfElements(a); i++) {
        OTF2_AttributeRef id;
        OTF2_Type type;
        if (OTF2_AttributeList_GetAttributeByIndex(a, i, &id, &type, value) == OTF2_SUCCESS && id == ref)
            return 1;
    }
    return 0;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attributes, OTF2_RegionRef region)
{
    state *s = user;
    const char *where = location_name(s, location), *what = otf2_defs_region_name(&s->defs, region);
    OTF2_AttributeValue v;
    if (strstr(where, " stream ")) { /* the host's launch of a kernel (catalogue class KERNEL) */
        push(s, &s->host_launch_begin, time);
        push(s, &s->host_launch_op, has_attribute(attributes, OFFTRACE_ACTIVITY_ATTR_HOST_OPERATION, &v) ? v.uint64 : 0);
        return OTF2_CALLBACK_SUCCESS;
    }
    if (!strstr(where, " queue "))
        return OTF2_CALLBACK_SUCCESS;
    if (!strcmp(what, "kernel (device)")) {
        s->device_kernels++;
        push(s, &s->device_kernel_op, has_attribute(attributes, OFFTRACE_ACTIVITY_ATTR_HOST_OPERATION, &v) ? v.uint64 : 0);
        push(s, &s->device_kernel_begin, time);
        s->last_kernel_begin = time;
        s->kernels_with_grid += has_attribute(attributes, OFFTRACE_ACTIVITY_ATTR_GRID, &v);
        s->kernels_with_block += has_attribute(attributes, OFFTRACE_ACTIVITY_ATTR_BLOCK, &v);
    } else if (!strcmp(what, "memcpy host->device") || !strcmp(what, "memcpy device->host")) {
        int to_device = !strcmp(what, "memcpy host->device");
        uint64_t bytes = has_attribute(attributes, OFFTRACE_ACTIVITY_ATTR_BYTES, &v) ? v.uint64 : 0;
        s->copies_without_bytes += bytes == 0;
        *(to_device ? &s->h2d : &s->d2h) += 1;
        *(to_device ? &s->h2d_bytes : &s->d2h_bytes) += bytes;
    } else if (strstr(what, "(runtime's own)") || strstr(what, "(kernel launch)")) { /* not a map's copies */
        int launch = strstr(what, "(kernel launch)") != NULL;
        *(launch ? &s->launch_copies : &s->runtime_own) += 1;
        if (has_attribute(attributes, OFFTRACE_ACTIVITY_ATTR_BYTES, &v))
            *(launch ? &s->launch_copy_bytes : &s->runtime_own_bytes) += v.uint64;
    } else if (!strcmp(what, "memset")) {
        s->memsets++;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* A kernel's own duration on the device: its queue Leave after its Enter
 * (activities on one queue do not overlap). */
static OTF2_CallbackCode on_leave(OTF2_LocationRef location, OTF2_TimeStamp time, void *user,
                                  OTF2_AttributeList *attributes, OTF2_RegionRef region)
{
    state *s = user;
    if (strstr(location_name(s, location), " queue ") && !strcmp(otf2_defs_region_name(&s->defs, region), "kernel (device)") &&
        s->device_kernel_begin.n)
        push(s, &s->device_kernel_ns, time - s->last_kernel_begin);
    return OTF2_CALLBACK_SUCCESS;
}

static void set_events(OTF2_GlobalEvtReaderCallbacks *cb)
{
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
}

static int problems;

static void fact(int ok, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void fact(int ok, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    printf("%-8s ", ok ? "ok" : "PROBLEM");
    vprintf(format, args);
    putchar('\n');
    va_end(args);
    problems += !ok;
}

static void equal(const char *what, unsigned long long archive, unsigned long long runtime)
{
    fact(archive == runtime, "%-34s archive %llu, runtime %llu", what, archive, runtime);
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_signed(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Device start - host launch begin of the n-th kernels, in ns. */
static void clock_check(state *s)
{
    times *d = &s->device_kernel_begin, *h = &s->host_launch_begin;
    if (!d->n || d->n != h->n) {
        fact(d->n == 0 && h->n == 0, "%-34s %zu device kernels, %zu host launches: not paired",
             "clock: kernels paired", d->n, h->n);
        return;
    }
    qsort(d->v, d->n, sizeof *d->v, by_value);
    qsort(h->v, h->n, sizeof *h->v, by_value);
    int64_t *lead = malloc(d->n * sizeof *lead);
    if (!lead)
        return;
    for (size_t i = 0; i < d->n; i++)
        lead[i] = (int64_t)(d->v[i] - h->v[i]);
    qsort(lead, d->n, sizeof *lead, by_signed);
    int64_t min = lead[0], max = lead[d->n - 1];
    fact(min >= 0, "%-34s min %" PRId64 " ns, median %" PRId64 " ns, max %" PRId64 " ns over %zu kernels",
         "clock: device start - host launch", min, lead[d->n / 2], max, d->n);
    free(lead);
}

/* Each kernel the device ran against the launch it came from, by the host
 * operation both carry: CUPTI's correlation of the kernel to the driver
 * call, and of that call to the operation the collector pushed, is what
 * puts it there (docs/report.md pairs launches and kernels the same way). */
static void operation_check(state *s)
{
    times *d = &s->device_kernel_op, *h = &s->host_launch_op;
    qsort(d->v, d->n, sizeof *d->v, by_value);
    qsort(h->v, h->n, sizeof *h->v, by_value);
    size_t with_op = 0, paired = 0, i = 0, j = 0;
    for (size_t k = 0; k < d->n; k++)
        with_op += d->v[k] != 0;
    while (i < d->n && j < h->n) { /* multiset intersection of the non-zero ids */
        if (d->v[i] == 0 || d->v[i] < h->v[j])
            i++;
        else if (h->v[j] == 0 || h->v[j] < d->v[i])
            j++;
        else
            paired++, i++, j++;
    }
    equal("device kernels with a host operation", with_op, d->n);
    equal("... paired with their host launch", paired, h->n);
}

static uint64_t property(const char *dir, const char *name)
{
    char anchor[4200], *value = NULL;
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    uint64_t n = 0;
    if (r && OTF2_Reader_GetProperty(r, name, &value) == OTF2_SUCCESS && value)
        n = strtoull(value, NULL, 10);
    free(value);
    if (r)
        OTF2_Reader_Close(r);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gpu_check ARCHIVE_DIR COUNTS_FILE\n");
        return 2;
    }
    const char *dir = argv[1];
    runtime_counts rt;
    if (runtime_counts_read(argv[2], &rt) != 0) {
        fprintf(stderr, "gpu_check: %s: %s\n", argv[2], rt.problem);
        return 2;
    }
    archive_facts f;
    if (archive_check(dir, &f) != 0) {
        fprintf(stderr, "gpu_check: %s: not a readable archive\n", dir);
        return 2;
    }
    fact(archive_violations(&f) == 0, "%-34s %llu%s%s", "archive rules (tests/check)",
         (unsigned long long)archive_violations(&f), f.first_problem[0] ? ": " : "", f.first_problem);
    equal("target constructs", f.target, rt.target);
    equal("target enter data", f.enter_data, rt.enter_data);
    equal("target exit data", f.exit_data, rt.exit_data);
    equal("target update", f.update, rt.update);
    equal("kernels (host launches)", f.kernels, rt.kernels);
    equal("host->device transfers (RMA put)", f.puts, rt.h2d);
    equal("host->device bytes", f.put_bytes, rt.h2d_bytes);
    equal("device->host transfers (RMA get)", f.gets, rt.d2h);
    equal("device->host bytes", f.get_bytes, rt.d2h_bytes);

    state *s = calloc(1, sizeof *s);
    if (!s || otf2_read_with_definitions(dir, &s->defs, 0, set_events) != 0 || s->out_of_memory) {
        fprintf(stderr, "gpu_check: %s: events unreadable\n", dir);
        return 2;
    }
    equal("kernels on the device (CUPTI)", s->device_kernels, rt.kernels);
    equal("... with their grid", s->kernels_with_grid, s->device_kernels);
    equal("... with their block and registers", s->kernels_with_block, s->device_kernels);
    equal("device copies host->device (CUPTI)", s->h2d, rt.h2d);
    equal("device copies host->device, bytes", s->h2d_bytes, rt.h2d_bytes);
    equal("device copies device->host (CUPTI)", s->d2h, rt.d2h);
    equal("device copies device->host, bytes", s->d2h_bytes, rt.d2h_bytes);
    fact(s->copies_without_bytes == 0, "%-34s %llu", "device copies without bytes",
         (unsigned long long)s->copies_without_bytes);
    printf("%-8s %-34s %llu\n", "info", "device memsets (CUPTI)", (unsigned long long)s->memsets);
    printf("%-8s %-34s %llu, %llu bytes\n", "info", "runtime's own copies and memsets",
           (unsigned long long)s->runtime_own, (unsigned long long)s->runtime_own_bytes);
    printf("%-8s %-34s %llu, %llu bytes\n", "info", "kernel launches' copies and memsets",
           (unsigned long long)s->launch_copies, (unsigned long long)s->launch_copy_bytes);
    if (s->device_kernel_ns.n) {
        times *k = &s->device_kernel_ns;
        qsort(k->v, k->n, sizeof *k->v, by_value);
        uint64_t sum = 0;
        for (size_t i = 0; i < k->n; i++)
            sum += k->v[i];
        printf("%-8s %-34s mean %.1f us, median %.1f us, max %.1f us over %zu kernels\n", "info",
               "kernel time on the device (CUPTI)", sum / 1e3 / k->n, k->v[k->n / 2] / 1e3, k->v[k->n - 1] / 1e3,
               k->n);
    }
    operation_check(s);
    clock_check(s);
    printf("%-8s %-34s %llu (max %llu ns before, %llu ns after its target region)\n", "info",
           "device events clamped to target", (unsigned long long)property(dir, "OFFTRACE::DEVICE_EVENTS_CLAMPED_TO_TARGET"),
           (unsigned long long)property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_BEFORE_TARGET_NS"),
           (unsigned long long)property(dir, "OFFTRACE::DEVICE_CLAMPED_MAX_AFTER_TARGET_NS"));
    otf2_definitions_free(&s->defs);
    free(s->device_kernel_begin.v);
    free(s->host_launch_begin.v);
    free(s->device_kernel_ns.v);
    free(s->device_kernel_op.v);
    free(s->host_launch_op.v);
    free(s);
    if (problems)
        printf("gpu_check: FAIL (%d problems)\n", problems);
    else
        printf("gpu_check: PASS\n");
    return problems ? 1 : 0;
}

/* The CUPTI backend without a GPU: activity buffers built here exactly as
 * CUPTI lays them out (records back to back, walked by CUPTI's own
 * cuptiActivityGetNextRecord), translated, joined and drained; and the
 * module loaded the way the collector loads it. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "cupti_translate.h"

/* ---- building activity buffers ---- */

typedef struct abuf {
    _Alignas(8) uint8_t bytes[1 << 18];
    size_t used;
} abuf;

static abuf buf;

static void put(const void *record, size_t size)
{
    cr_assert_leq(buf.used + size, sizeof buf.bytes);
    cr_assert_eq(size % 8, 0, "CUPTI records are padded to 8 bytes");
    memcpy(buf.bytes + buf.used, record, size);
    buf.used += size;
}

static void put_correlation_of_kind(uint32_t correlation, uint64_t op_id, CUpti_ExternalCorrelationKind kind)
{
    CUpti_ActivityExternalCorrelation c = {.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                           .externalKind = kind,
                                           .externalId = op_id,
                                           .correlationId = correlation};
    put(&c, sizeof c);
}

static void put_correlation(uint32_t correlation, uint64_t op_id)
{
    put_correlation_of_kind(correlation, op_id, OT_CUPTI_EXTERNAL_KIND);
}

static void put_kernel(uint32_t cuda_device, uint32_t stream, uint32_t correlation, uint64_t start, uint64_t end)
{
    CUpti_ActivityKernel10 k = {.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                .start = start,
                                .end = end,
                                .completed = end,
                                .deviceId = cuda_device,
                                .contextId = 1,
                                .streamId = stream,
                                .correlationId = correlation,
                                .gridX = 80,
                                .gridY = 3,
                                .gridZ = 2,
                                .blockX = 128,
                                .blockY = 2,
                                .blockZ = 1,
                                .registersPerThread = 40,
                                .staticSharedMemory = 1024,
                                .dynamicSharedMemory = 4096,
                                .name = "__omp_offloading_fd00_1234_main_l10"};
    put(&k, sizeof k);
}

static void put_memcpy(uint8_t copy_kind, uint64_t bytes, uint32_t stream, uint32_t correlation, uint64_t start,
                       uint64_t end)
{
    CUpti_ActivityMemcpy6 m = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY,
                               .copyKind = copy_kind,
                               .bytes = bytes,
                               .start = start,
                               .end = end,
                               .streamId = stream,
                               .correlationId = correlation,
                               .copyCount = 1};
    put(&m, sizeof m);
}

static void put_memset(uint64_t bytes, uint32_t stream, uint32_t correlation, uint64_t start, uint64_t end)
{
    CUpti_ActivityMemset4 m = {.kind = CUPTI_ACTIVITY_KIND_MEMSET,
                               .value = 0xff,
                               .bytes = bytes,
                               .start = start,
                               .end = end,
                               .streamId = stream,
                               .correlationId = correlation};
    put(&m, sizeof m);
}

static void put_driver_call(uint32_t correlation, uint64_t start, uint64_t end)
{
    CUpti_ActivityAPI a = {.kind = CUPTI_ACTIVITY_KIND_DRIVER, .cbid = 307, .start = start, .end = end,
                           .correlationId = correlation};
    put(&a, sizeof a);
}

/* ---- what a drain emits ---- */

#define GOT_MAX 4096
static struct {
    offtrace_device_record rec[GOT_MAX];
    int device[GOT_MAX];
    size_t n;
    int calls;
} got;

static void capture(void *ctx, int slot, int omp_device, const offtrace_device_record *records, size_t count)
{
    cr_assert_leq(got.n + count, GOT_MAX);
    for (size_t i = 0; i < count; i++) {
        got.rec[got.n] = records[i];
        got.device[got.n++] = omp_device;
    }
    got.calls++;
}

static ot_cupti_tr *tr;

/* The records of the buffer so far go in; returns how many CUPTI walked. */
static long feed(void)
{
    long n = ot_cupti_tr_buffer(tr, buf.bytes, buf.used);
    buf.used = 0;
    return n;
}

static long drain(uint64_t now)
{
    memset(&got, 0, sizeof got);
    return ot_cupti_tr_drain(tr, now, capture, NULL);
}

static void setup(void)
{
    buf.used = 0;
    memset(&got, 0, sizeof got);
    tr = ot_cupti_tr_new();
    cr_assert_not_null(tr);
    cr_assert_eq(ot_cupti_tr_add_device(tr, 0), 0);
}

static void teardown(void)
{
    ot_cupti_tr_free(tr);
}

static void assert_pair(size_t i, uint8_t kind, uint32_t stream, uint64_t start, uint64_t end)
{
    const offtrace_device_record *b = &got.rec[i], *e = &got.rec[i + 1];
    cr_assert_eq(b->endpoint, OFFTRACE_DEVICE_BEGIN, "record %zu", i);
    cr_assert_eq(e->endpoint, OFFTRACE_DEVICE_END, "record %zu", i + 1);
    cr_assert_eq(b->kind, kind);
    cr_assert_eq(e->kind, kind);
    cr_assert_eq(b->thread, stream);
    cr_assert_eq(e->thread, stream);
    cr_assert_eq(b->flags, OFFTRACE_DEVICE_FLAG_STREAM);
    cr_assert_eq(e->flags, OFFTRACE_DEVICE_FLAG_STREAM);
    cr_assert_eq(b->time, start);
    cr_assert_eq(e->time, end);
    cr_assert_eq(b->op_id, e->op_id);
    cr_assert_eq(b->target_id, e->target_id);
    if (kind != OFFTRACE_DEVICE_KERNEL) /* a kernel's carry its launch configuration instead */
        cr_assert_eq(b->value, e->value);
    cr_assert_eq(b->subkind, e->subkind);
}

TestSuite(cupti_translate, .init = setup, .fini = teardown);

/* ---- activities ---- */

Test(cupti_translate, kernel_is_a_begin_end_pair_on_its_stream)
{
    ot_cupti_tr_op_begin(tr, 42, 9, 0);
    put_correlation(7, 42);
    put_kernel(0, 13, 7, 1000, 2500);
    cr_assert_eq(feed(), 2);
    cr_assert_eq(drain(5000), 2);
    cr_assert_eq(got.calls, 1);
    assert_pair(0, OFFTRACE_DEVICE_KERNEL, 13, 1000, 2500);
    cr_assert_eq(got.rec[0].op_id, 42);
    cr_assert_eq(got.rec[0].target_id, 9);
    /* the launch configuration, packed as collector.h says: grid 80x3x2, block 128x2x1, 40 registers,
     * 1 KiB static + 4 KiB dynamic shared memory */
    cr_assert_eq(got.rec[0].value, 80ull | 3ull << 32 | 2ull << 48);
    cr_assert_eq(got.rec[1].value, 128ull | 2ull << 16 | 1ull << 32 | 40ull << 48);
    cr_assert_eq(got.rec[1].codeptr, 5120);
    cr_assert_eq(got.rec[0].codeptr, 0);
    cr_assert_eq(got.device[0], 0);
    ot_cupti_stats s = ot_cupti_tr_stats(tr);
    cr_assert_eq(s.activities, 1);
    cr_assert_eq(s.correlations, 1);
    cr_assert_eq(s.uncorrelated, 0);
    cr_assert_eq(s.delivered, 2);
}

Test(cupti_translate, memcpy_carries_direction_and_bytes)
{
    put_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8000, 2, 1, 100, 200);
    put_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 4000, 2, 2, 300, 450);
    put_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 16, 2, 3, 500, 510);
    put_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, 1, 2, 4, 600, 601);
    cr_assert_eq(feed(), 4);
    cr_assert_eq(drain(1000), 8);
    const uint8_t dir[] = {OFFTRACE_COPY_HOST_TO_DEVICE, OFFTRACE_COPY_DEVICE_TO_HOST,
                           OFFTRACE_COPY_DEVICE_TO_DEVICE, OFFTRACE_COPY_OTHER};
    const uint64_t bytes[] = {8000, 4000, 16, 1}, start[] = {100, 300, 500, 600}, end[] = {200, 450, 510, 601};
    for (int i = 0; i < 4; i++) {
        assert_pair(2 * i, OFFTRACE_DEVICE_MEMCPY, 2, start[i], end[i]);
        cr_assert_eq(got.rec[2 * i].subkind, dir[i], "copy %d", i);
        cr_assert_eq(got.rec[2 * i].value, bytes[i], "copy %d", i);
    }
}

Test(cupti_translate, copy_directions_of_every_cupti_copy_kind)
{
    cr_assert_eq(ot_cupti_copy_direction(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA), OFFTRACE_COPY_HOST_TO_DEVICE);
    cr_assert_eq(ot_cupti_copy_direction(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH), OFFTRACE_COPY_DEVICE_TO_HOST);
    cr_assert_eq(ot_cupti_copy_direction(CUPTI_ACTIVITY_MEMCPY_KIND_ATOA), OFFTRACE_COPY_DEVICE_TO_DEVICE);
    cr_assert_eq(ot_cupti_copy_direction(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD), OFFTRACE_COPY_DEVICE_TO_DEVICE);
    cr_assert_eq(ot_cupti_copy_direction(CUPTI_ACTIVITY_MEMCPY_KIND_DTOA), OFFTRACE_COPY_DEVICE_TO_DEVICE);
    cr_assert_eq(ot_cupti_copy_direction(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP), OFFTRACE_COPY_DEVICE_TO_DEVICE);
    cr_assert_eq(ot_cupti_copy_direction(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN), OFFTRACE_COPY_OTHER);
}

Test(cupti_translate, peer_copy_is_device_to_device)
{
    CUpti_ActivityMemcpyPtoP4 m = {.kind = CUPTI_ACTIVITY_KIND_MEMCPY2, .copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP,
                                   .bytes = 1 << 20, .start = 10, .end = 90, .streamId = 5,
                                   .srcDeviceId = 0, .dstDeviceId = 1, .correlationId = 3};
    put(&m, sizeof m);
    cr_assert_eq(feed(), 1);
    cr_assert_eq(drain(100), 2);
    assert_pair(0, OFFTRACE_DEVICE_MEMCPY, 5, 10, 90);
    cr_assert_eq(got.rec[0].subkind, OFFTRACE_COPY_DEVICE_TO_DEVICE);
    cr_assert_eq(got.rec[0].value, 1 << 20);
}

Test(cupti_translate, memset_carries_bytes)
{
    put_memset(65536, 7, 11, 40, 55);
    cr_assert_eq(feed(), 1);
    cr_assert_eq(drain(100), 2);
    assert_pair(0, OFFTRACE_DEVICE_MEMSET, 7, 40, 55);
    cr_assert_eq(got.rec[0].value, 65536);
}

Test(cupti_translate, api_records_are_walked_over_and_ignored)
{
    put_correlation(7, 42);
    put_driver_call(7, 900, 950);
    put_kernel(0, 1, 7, 1000, 2000);
    cr_assert_eq(feed(), 3);
    cr_assert_eq(drain(3000), 2);
    cr_assert_eq(got.rec[0].op_id, 42);
    cr_assert_eq(ot_cupti_tr_stats(tr).ignored, 1);
}

/* ---- the correlation join ---- */

Test(cupti_translate, correlation_after_the_activity_in_the_same_buffer)
{
    ot_cupti_tr_op_begin(tr, 42, 9, 0);
    put_kernel(0, 13, 7, 1000, 2500);
    put_correlation(7, 42);
    cr_assert_eq(feed(), 2);
    cr_assert_eq(drain(5000), 2);
    cr_assert_eq(got.rec[0].op_id, 42);
    cr_assert_eq(got.rec[1].target_id, 9);
}

Test(cupti_translate, correlation_in_an_earlier_buffer_of_the_same_flush)
{
    ot_cupti_tr_op_begin(tr, 42, 9, 0);
    put_correlation(7, 42);
    feed();
    put_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8, 1, 7, 10, 20);
    feed();
    cr_assert_eq(drain(30), 2);
    cr_assert_eq(got.rec[0].op_id, 42);
}

Test(cupti_translate, correlation_in_a_later_buffer_of_the_same_flush)
{
    ot_cupti_tr_op_begin(tr, 42, 9, 0);
    put_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8, 1, 7, 10, 20);
    feed();
    put_correlation(7, 42);
    feed();
    cr_assert_eq(drain(30), 2);
    cr_assert_eq(got.rec[0].op_id, 42);
    cr_assert_eq(got.rec[0].target_id, 9);
}

Test(cupti_translate, correlation_from_an_earlier_flush)
{
    ot_cupti_tr_op_begin(tr, 42, 9, 0);
    put_correlation(7, 42);
    feed();
    cr_assert_eq(drain(5), 0);
    cr_assert_eq(got.calls, 0);
    put_kernel(0, 1, 7, 10, 20);
    feed();
    cr_assert_eq(drain(30), 2);
    cr_assert_eq(got.rec[0].op_id, 42);
    cr_assert_eq(got.rec[0].target_id, 9);
}

Test(cupti_translate, correlation_after_the_flush_is_too_late_and_counted)
{
    ot_cupti_tr_op_begin(tr, 42, 9, 0);
    put_kernel(0, 1, 7, 10, 20);
    feed();
    cr_assert_eq(drain(30), 2);
    cr_assert_eq(got.rec[0].op_id, 0);
    cr_assert_eq(got.rec[0].target_id, 0);
    cr_assert_eq(ot_cupti_tr_stats(tr).uncorrelated, 1);
    put_correlation(7, 42);
    feed();
    cr_assert_eq(drain(40), 0);
}

Test(cupti_translate, unknown_correlation_gives_op_zero)
{
    put_correlation(8, 42);
    put_kernel(0, 1, 7, 10, 20);
    put_kernel(0, 1, 9, 30, 40);
    feed();
    cr_assert_eq(drain(50), 4);
    cr_assert_eq(got.rec[0].op_id, 0);
    cr_assert_eq(got.rec[2].op_id, 0);
    cr_assert_eq(ot_cupti_tr_stats(tr).uncorrelated, 2);
}

Test(cupti_translate, op_unknown_to_the_table_keeps_its_id_without_target)
{
    put_correlation(7, 77);
    put_kernel(0, 1, 7, 10, 20);
    feed();
    cr_assert_eq(drain(30), 2);
    cr_assert_eq(got.rec[0].op_id, 77);
    cr_assert_eq(got.rec[0].target_id, 0);
    cr_assert_eq(ot_cupti_tr_stats(tr).uncorrelated, 0);
}

Test(cupti_translate, other_tools_correlation_kinds_are_not_ours)
{
    put_correlation_of_kind(7, 42, CUPTI_EXTERNAL_CORRELATION_KIND_OPENACC);
    put_kernel(0, 1, 7, 10, 20);
    feed();
    drain(30);
    cr_assert_eq(got.rec[0].op_id, 0);
    cr_assert_eq(ot_cupti_tr_stats(tr).ignored, 1);
}

Test(cupti_translate, recent_ops_of_many_threads_survive_a_long_run)
{
    /* Host op ids are thread bits | per-thread counter. */
    const int threads = 8, per_thread = 20000, recent = 64;
    for (int i = 1; i <= per_thread; i++)
        for (uint64_t t = 1; t <= (uint64_t)threads; t++)
            ot_cupti_tr_op_begin(tr, t << 40 | (uint64_t)i, t << 40 | 1000000u | (uint64_t)i, 0);
    uint32_t corr = 1;
    for (int i = per_thread - recent + 1; i <= per_thread; i++)
        for (uint64_t t = 1; t <= (uint64_t)threads; t++, corr++) {
            put_correlation(corr, t << 40 | (uint64_t)i);
            put_kernel(0, (uint32_t)t, corr, 10 * corr, 10 * corr + 5);
        }
    feed();
    cr_assert_eq(drain(1), 2 * threads * recent);
    for (size_t r = 0; r < got.n; r++)
        cr_assert_eq(got.rec[r].target_id, got.rec[r].op_id | 1000000u, "record %zu", r);
}

/* ---- devices ---- */

Test(cupti_translate, cuda_ordinal_is_attach_order_when_nothing_else_is_known)
{
    cr_assert_eq(ot_cupti_tr_add_device(tr, 3), 1);
    put_kernel(1, 1, 7, 10, 20);
    put_kernel(0, 1, 8, 30, 40);
    feed();
    cr_assert_eq(drain(50), 4);
    cr_assert_eq(got.calls, 2);
    cr_assert_eq(got.device[0], 0);
    cr_assert_eq(got.rec[0].time, 30);
    cr_assert_eq(got.device[2], 3);
    cr_assert_eq(got.rec[2].time, 10);
}

Test(cupti_translate, the_operations_device_wins_and_teaches_the_mapping)
{
    /* OpenMP device 5 attached second but is CUDA ordinal 0. */
    cr_assert_eq(ot_cupti_tr_add_device(tr, 5), 1);
    ot_cupti_tr_op_begin(tr, 42, 9, 1);
    put_kernel(0, 1, 6, 10, 20); /* no op: comes before the one that teaches */
    put_correlation(7, 42);
    put_kernel(0, 1, 7, 30, 40);
    put_kernel(1, 1, 8, 50, 60); /* slot 1 is known to be CUDA 0: unmapped */
    feed();
    cr_assert_eq(drain(70), 4);
    cr_assert_eq(got.device[0], 5);
    cr_assert_eq(got.device[2], 5);
    cr_assert_eq(got.rec[2].op_id, 42);
    cr_assert_eq(ot_cupti_tr_stats(tr).unmapped, 1);
}

Test(cupti_translate, activity_of_no_attached_device_is_counted_not_delivered)
{
    put_kernel(7, 1, 7, 10, 20);
    feed();
    cr_assert_eq(drain(30), 0);
    cr_assert_eq(got.calls, 0);
    cr_assert_eq(ot_cupti_tr_stats(tr).unmapped, 1);
}

Test(cupti_translate, a_removed_device_gets_nothing_and_comes_back_in_its_slot)
{
    ot_cupti_tr_remove_device(tr, 0);
    put_kernel(0, 1, 7, 10, 20);
    feed();
    cr_assert_eq(drain(30), 0);
    cr_assert_eq(ot_cupti_tr_add_device(tr, 0), 0);
    put_kernel(0, 1, 8, 40, 50);
    feed();
    cr_assert_eq(drain(60), 2);
}

Test(cupti_translate, too_many_devices)
{
    for (int i = 1; i < OT_CUPTI_MAX_DEVICES; i++)
        cr_assert_eq(ot_cupti_tr_add_device(tr, 100 + i), i);
    cr_assert_eq(ot_cupti_tr_add_device(tr, 999), -ENOSPC);
}

/* ---- order ---- */

Test(cupti_translate, each_stream_in_time_order_pairs_adjacent)
{
    put_kernel(0, 2, 1, 500, 600);
    put_kernel(0, 1, 2, 300, 400);
    put_memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 8, 2, 3, 100, 200);
    feed();
    put_memset(8, 1, 4, 50, 60);
    put_kernel(0, 1, 5, 700, 800);
    feed();
    cr_assert_eq(drain(900), 10);
    assert_pair(0, OFFTRACE_DEVICE_MEMSET, 1, 50, 60);
    assert_pair(2, OFFTRACE_DEVICE_KERNEL, 1, 300, 400);
    assert_pair(4, OFFTRACE_DEVICE_KERNEL, 1, 700, 800);
    assert_pair(6, OFFTRACE_DEVICE_MEMCPY, 2, 100, 200);
    assert_pair(8, OFFTRACE_DEVICE_KERNEL, 2, 500, 600);
}

/* ---- losses ---- */

Test(cupti_translate, dropped_records_become_a_lost_record)
{
    ot_cupti_tr_add_lost(tr, 5);
    cr_assert_eq(drain(777), 1);
    const offtrace_device_record *r = &got.rec[0];
    cr_assert_eq(r->kind, OFFTRACE_DEVICE_LOST);
    cr_assert_eq(r->endpoint, OFFTRACE_DEVICE_POINT);
    cr_assert_eq(r->value, 5);
    cr_assert_eq(r->time, 777);
    cr_assert_eq(ot_cupti_tr_stats(tr).lost, 5);
    cr_assert_eq(drain(800), 0);
}

Test(cupti_translate, lost_record_follows_the_devices_activities)
{
    put_kernel(0, 1, 7, 10, 20);
    put_kernel(0, 1, 8, 0, 0); /* CUPTI could not time it */
    feed();
    cr_assert_eq(drain(30), 3);
    assert_pair(0, OFFTRACE_DEVICE_KERNEL, 1, 10, 20);
    cr_assert_eq(got.rec[2].kind, OFFTRACE_DEVICE_LOST);
    cr_assert_eq(got.rec[2].value, 1);
}

Test(cupti_translate, drops_are_reported_on_the_first_live_device)
{
    cr_assert_eq(ot_cupti_tr_add_device(tr, 1), 1);
    ot_cupti_tr_remove_device(tr, 0);
    ot_cupti_tr_add_lost(tr, 3);
    cr_assert_eq(drain(30), 1);
    cr_assert_eq(got.device[0], 1);
    cr_assert_eq(got.rec[0].value, 3);
}

/* ---- the module, as the collector loads it ---- */

static size_t delivered;

static void count_delivered(ot_dev_device *d, const offtrace_device_record *records, size_t count)
{
    delivered += count;
}

static const ot_cupti_module *load_module(void)
{
    void *module = dlopen(OFFTRACE_LIB_DIR "/" OT_CUPTI_MODULE_NAME, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(module, "%s", dlerror());
    ot_cupti_entry_fn entry = (ot_cupti_entry_fn)dlsym(module, OT_CUPTI_ENTRY_NAME);
    cr_assert_not_null(entry, "%s", dlerror());
    const ot_cupti_module *m = entry();
    cr_assert_not_null(m);
    return m;
}

static const ot_dev_backend *load_backend(int verbose)
{
    const ot_cupti_module *m = load_module();
    cr_assert(ot_cupti_module_fits(m));
    const ot_dev_backend *b = m->open(count_delivered, verbose);
    cr_assert_not_null(b);
    return b;
}

/* The loader's check (collector.c uses the module only if it fits): the
 * module says the version and sizes it was built with, and a descriptor
 * that differs in any of them is refused. */
Test(cupti_module, says_its_layout_and_the_check_refuses_another)
{
    const ot_cupti_module *m = load_module();
    cr_assert_eq(m->version, OT_CUPTI_MODULE_VERSION);
    cr_assert_eq(m->size, sizeof(ot_cupti_module));
    cr_assert_eq(m->backend_size, sizeof(ot_dev_backend));
    cr_assert_eq(m->record_size, sizeof(offtrace_device_record));
    cr_assert(ot_cupti_module_fits(m));
    ot_cupti_module other = *m;
    other.version++;
    cr_assert_not(ot_cupti_module_fits(&other));
    other = *m;
    other.size -= 8;
    cr_assert_not(ot_cupti_module_fits(&other));
    other = *m;
    other.backend_size += 8;
    cr_assert_not(ot_cupti_module_fits(&other));
    other = *m;
    other.record_size = 40;
    cr_assert_not(ot_cupti_module_fits(&other));
    cr_assert_not(ot_cupti_module_fits(NULL));
}

/* The old, unversioned entry name is gone: a collector of before looks for
 * it and finds nothing, rather than calling through another layout. */
Test(cupti_module, exports_no_unversioned_entry)
{
    void *module = dlopen(OFFTRACE_LIB_DIR "/" OT_CUPTI_MODULE_NAME, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(module, "%s", dlerror());
    cr_assert_null(dlsym(module, "ot_cupti_backend_entry"));
    cr_assert_not_null(dlsym(module, "offtrace_cupti_module_v1"));
}

Test(cupti_module, names_itself_and_wants_operations)
{
    const ot_dev_backend *b = load_backend(0);
    cr_assert_str_eq(b->name, "cupti");
    cr_assert_eq(b->wants_operations, 1);
    cr_assert(b->attach && b->target_begin && b->target_end && b->operation_begin && b->operation_end &&
              b->device_time && b->flush && b->detach);
}

Test(cupti_module, exports_only_its_entry)
{
    void *module = dlopen(OFFTRACE_LIB_DIR "/" OT_CUPTI_MODULE_NAME, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(module, "%s", dlerror());
    cr_assert_null(dlsym(module, "ot_cupti_tr_new"));
    cr_assert_null(dlsym(module, "ot_cupti_tr_drain"));
}

Test(cupti_module, refuses_devices_that_are_not_nvidia)
{
    const ot_dev_backend *b = load_backend(1);
    ot_dev_device d = {.num = 0};
    cr_assert_eq(b->attach(&d, "generic-64bit", NULL, NULL), -ENOTSUP);
    cr_assert_eq(b->attach(&d, "x86_64-pc-linux-gnu", NULL, NULL), -ENOTSUP);
    cr_assert_eq(b->attach(&d, NULL, NULL, NULL), -ENOTSUP);
}

/* Without a driver CUPTI cannot trace: attach must say so and fail cleanly.
 * On a machine with a GPU it succeeds and must detach cleanly. */
Test(cupti_module, cuda_device_attaches_or_fails_cleanly, .init = cr_redirect_stderr)
{
    const ot_dev_backend *b = load_backend(1);
    ot_dev_device d = {.num = 2};
    int rc = b->attach(&d, "CUDA", NULL, NULL);
    if (rc == 0) {
        cr_assert_not_null(d.state);
        cr_assert_geq(b->flush(&d), 0);
        b->detach(&d);
        return;
    }
    cr_assert_lt(rc, 0);
    fflush(stderr);
    char line[512] = "";
    cr_assert_not_null(fgets(line, sizeof line, cr_get_redirected_stderr()));
    const char *want = "offtrace: CUPTI unavailable for device 2: ";
    cr_assert_eq(strncmp(line, want, strlen(want)), 0, "stderr: %s", line);
    cr_assert_eq(b->attach(&d, "sm_90", NULL, NULL), rc, "a second try fails the same way");
}

/*
 * The CUPTI backend: NVIDIA GPUs seen through CUPTI's activity API.
 *
 * CUPTI is process-wide: one set of enabled activity kinds and one stream of
 * buffers holds every device's records. So the state here is one static
 * block shared by all attached devices; each device only names its slot.
 * Buffers are translated as CUPTI completes them (on whatever thread CUPTI
 * chooses) and the records are delivered at the end of a flush, when the
 * correlations of everything flushed have been seen; see cupti_translate.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cupti.h>

#include "backend.h"
#include "cupti_translate.h"

#define OT_CUPTI_BUFFER_SIZE (1u << 20)
#define OT_CUPTI_EXPORT __attribute__((visibility("default")))

/* DRIVER records are skipped, but CUPTI writes external-correlation records
 * only in front of API records, so the driver API kind must be on. */
static const CUpti_ActivityKind wanted_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_DRIVER,
};
#define N_WANTED (sizeof wanted_kinds / sizeof wanted_kinds[0])

/* The mutex guards everything but the translator's op table (lock-free,
 * written on the host's hot path) and deliver/verbose (set once at entry).
 * It is taken once per buffer, flush, attach or detach. The translator is
 * kept for the life of the process: CUPTI may complete a buffer at any time. */
static struct {
    pthread_mutex_t lock;
    ot_cupti_tr *tr;
    ot_dev_device *devices[OT_CUPTI_MAX_DEVICES];
    int slots[OT_CUPTI_MAX_DEVICES]; /* device->state points at its slot here */
    int attached;
    int callbacks_registered;
    int enabled;
    ot_dev_deliver_fn deliver;
    int verbose;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int slot_of(const ot_dev_device *d)
{
    return *(const int *)d->state;
}

static const char *result_string(CUptiResult r)
{
    const char *s = NULL;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        return "unknown CUPTI error";
    return s;
}

/* ---- CUPTI's buffer callbacks ---- */

static void CUPTIAPI on_buffer_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* NULL makes CUPTI drop records and count them: reported as LOST. */
    *buffer = aligned_alloc(8, OT_CUPTI_BUFFER_SIZE);
    *size = *buffer ? OT_CUPTI_BUFFER_SIZE : 0;
    *max_records = 0;
}

static void note_dropped(void)
{
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS && dropped)
        ot_cupti_tr_add_lost(g.tr, dropped);
}

static void CUPTIAPI on_buffer_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                        size_t size, size_t valid_size)
{
    pthread_mutex_lock(&g.lock);
    if (g.tr) {
        ot_cupti_tr_buffer(g.tr, buffer, valid_size);
        note_dropped();
    }
    pthread_mutex_unlock(&g.lock);
    free(buffer);
}

/* ---- starting and stopping CUPTI (under the lock) ---- */

static void disable_kinds(size_t n)
{
    for (size_t i = 0; i < n; i++)
        cuptiActivityDisable(wanted_kinds[i]);
}

static CUptiResult start_cupti(void)
{
    CUptiResult r;
    if (!g.callbacks_registered) {
        r = cuptiActivityRegisterCallbacks(on_buffer_request, on_buffer_complete);
        if (r != CUPTI_SUCCESS)
            return r;
        g.callbacks_registered = 1;
    }
    for (size_t i = 0; i < N_WANTED; i++) {
        r = cuptiActivityEnable(wanted_kinds[i]);
        if (r != CUPTI_SUCCESS) {
            disable_kinds(i);
            return r;
        }
    }
    g.enabled = 1;
    return CUPTI_SUCCESS;
}

static void report_stats(void)
{
    if (g.verbose < 2)
        return;
    ot_cupti_stats s = ot_cupti_tr_stats(g.tr);
    fprintf(stderr,
            "offtrace: CUPTI: %llu activities, %llu without host operation, %llu of no attached "
            "device, %llu lost\n",
            (unsigned long long)s.activities, (unsigned long long)s.uncorrelated,
            (unsigned long long)s.unmapped, (unsigned long long)s.lost);
}

static void stop_cupti(void)
{
    disable_kinds(N_WANTED);
    g.enabled = 0;
    report_stats();
}

/* ---- delivery ---- */

static void emit(void *ctx, int slot, int omp_device, const offtrace_device_record *records,
                 size_t count)
{
    ot_dev_device *d = g.devices[slot];
    if (d && g.deliver)
        g.deliver(d, records, count);
}

/* Every device's records go out, not only the flushing device's: CUPTI
 * flushes all of them at once. Each record is delivered exactly once, so
 * the host may add up the counts of its per-device flushes. */
static long drain(void)
{
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    pthread_mutex_lock(&g.lock);
    note_dropped();
    long n = ot_cupti_tr_drain(g.tr, now, emit, NULL);
    pthread_mutex_unlock(&g.lock);
    return n;
}

/* ---- the backend ---- */

static int looks_nvidia(const char *type)
{
    if (!type)
        return 0;
    if (strncasecmp(type, "sm_", 3) == 0)
        return 1;
    static const char *const words[] = {"cuda", "nvptx", "nvidia"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        for (const char *p = type; *p; p++)
            if (strncasecmp(p, words[i], strlen(words[i])) == 0)
                return 1;
    return 0;
}

/* Under the lock: CUPTI on (first device), then a slot. */
static int attach_locked(ot_dev_device *d)
{
    if (!g.tr && !(g.tr = ot_cupti_tr_new()))
        return -ENOMEM;
    if (!g.enabled) {
        CUptiResult r = start_cupti();
        if (r != CUPTI_SUCCESS) {
            if (g.verbose >= 1)
                fprintf(stderr, "offtrace: CUPTI unavailable for device %d: %s\n", d->num,
                        result_string(r));
            return -EIO;
        }
    }
    int slot = ot_cupti_tr_add_device(g.tr, d->num);
    if (slot < 0) {
        if (g.attached == 0)
            stop_cupti();
        return slot;
    }
    g.devices[slot] = d;
    g.slots[slot] = slot;
    d->state = &g.slots[slot];
    g.attached++;
    return 0;
}

static int cupti_attach(ot_dev_device *d, const char *device_type, ompt_device_t *device,
                        ompt_function_lookup_t device_lookup)
{
    if (!looks_nvidia(device_type))
        return -ENOTSUP;
    pthread_mutex_lock(&g.lock);
    int rc = attach_locked(d);
    pthread_mutex_unlock(&g.lock);
    return rc;
}

static void cupti_target_begin(ot_dev_device *d, uint64_t target_id, int kind)
{
    /* Nothing: the target id reaches records through each operation. */
}

static void cupti_target_end(ot_dev_device *d, uint64_t target_id, int kind)
{
    /* Nothing: the host flushes right after. */
}

static void cupti_operation_begin(ot_dev_device *d, uint64_t target_id, uint64_t op_id)
{
    ot_cupti_tr_op_begin(g.tr, op_id, target_id, slot_of(d));
    cuptiActivityPushExternalCorrelationId(OT_CUPTI_EXTERNAL_KIND, op_id);
}

static void cupti_operation_end(ot_dev_device *d, uint64_t op_id)
{
    uint64_t last = 0;
    cuptiActivityPopExternalCorrelationId(OT_CUPTI_EXTERNAL_KIND, &last);
}

static uint64_t cupti_device_time(ot_dev_device *d)
{
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    return t;
}

/* cuptiActivityFlushAll is expensive: about 60 us a call on an H200 (CUDA 13,
 * driver 580), which at every target end made CG with 3,000 small kernels
 * 1.6 times as slow (docs/gpu.md). So a target end forces CUPTI's buffers
 * out at most once per OT_CUPTI_FLUSH_INTERVAL_NS; in between, records wait
 * in CUPTI's buffers (CUPTI hands over full ones by itself, and they are
 * translated as they come). Nothing is lost or reordered by waiting: the
 * converter places each record in its target region by the target id it
 * carries, not by when it arrived. The detach at the end always forces. */
#define OT_CUPTI_FLUSH_INTERVAL_NS 10000000ull
/* OFFTRACE_CUPTI_FLUSH_INTERVAL_MS overrides it (0: every target end), for measuring. */
static uint64_t flush_interval_ns = OT_CUPTI_FLUSH_INTERVAL_NS;

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long cupti_flush(ot_dev_device *d)
{
    static uint64_t last_flush_ns;
    uint64_t now = monotonic_ns();
    uint64_t last = __atomic_load_n(&last_flush_ns, __ATOMIC_RELAXED);
    if (last && now - last < flush_interval_ns)
        return 0;
    __atomic_store_n(&last_flush_ns, now, __ATOMIC_RELAXED);
    CUptiResult r = cuptiActivityFlushAll(0);
    long n = drain();
    return r == CUPTI_SUCCESS || n > 0 ? n : -EIO;
}

/* The last device out forces out buffers with unfinished records too:
 * nothing will finish them later. */
static void cupti_detach(ot_dev_device *d)
{
    if (!d->state)
        return; /* never attached here */
    pthread_mutex_lock(&g.lock);
    int last = g.attached == 1;
    pthread_mutex_unlock(&g.lock);
    cuptiActivityFlushAll(last ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    drain();
    pthread_mutex_lock(&g.lock);
    int slot = slot_of(d);
    ot_cupti_tr_remove_device(g.tr, slot);
    g.devices[slot] = NULL;
    d->state = NULL;
    if (--g.attached == 0 && g.enabled)
        stop_cupti();
    pthread_mutex_unlock(&g.lock);
}

static const ot_dev_backend cupti_backend = {
    .name = "cupti",
    .wants_operations = 1,
    .attach = cupti_attach,
    .target_begin = cupti_target_begin,
    .target_end = cupti_target_end,
    .operation_begin = cupti_operation_begin,
    .operation_end = cupti_operation_end,
    .device_time = cupti_device_time,
    .flush = cupti_flush,
    .detach = cupti_detach,
};

static const ot_dev_backend *cupti_open(ot_dev_deliver_fn deliver, int verbose)
{
    const char *interval = getenv("OFFTRACE_CUPTI_FLUSH_INTERVAL_MS");
    char *end = NULL;
    unsigned long long ms = interval ? strtoull(interval, &end, 10) : 0;
    if (interval && end != interval && !*end && ms <= 60000)
        flush_interval_ns = ms * 1000000ull;
    g.deliver = deliver;
    g.verbose = verbose;
    return &cupti_backend;
}

static const ot_cupti_module module = {
    .version = OT_CUPTI_MODULE_VERSION,
    .size = sizeof(ot_cupti_module),
    .backend_size = sizeof(ot_dev_backend),
    .record_size = sizeof(offtrace_device_record),
    .open = cupti_open,
};

OT_CUPTI_EXPORT const ot_cupti_module *offtrace_cupti_module_v1(void);

_Static_assert(__builtin_types_compatible_p(__typeof__(&offtrace_cupti_module_v1), ot_cupti_entry_fn),
               "offtrace_cupti_module_v1 must match ot_cupti_entry_fn of backend.h");
_Static_assert(OT_CUPTI_MODULE_VERSION == 1, "rename offtrace_cupti_module_v1 with the version");

const ot_cupti_module *offtrace_cupti_module_v1(void)
{
    return &module;
}

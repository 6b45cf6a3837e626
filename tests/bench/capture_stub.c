/*
 * A stand-in for libomptarget in the capture benchmark (capture_bench.c,
 * issue 15): its __tgt_target_kernel does what offtrace's recorder does for
 * an empty `target map(tofrom: 64 B)` region when the map capture is there:
 * marks the target's begin and end records and the ends of the region's
 * four data operations (alloc, h2d, d2h, delete) with the recorder's own
 * inline functions (host/map_capture.h), on records it then drops. Without
 * the capture preloaded the marks are the one NULL test a traced program
 * pays. What is timed is what the capture adds: its wrapper and these
 * look-ups; the records' cost is the recorder's, measured elsewhere.
 */
#include <stdint.h>

#include "map_capture.h"

static volatile uint64_t sink;

__attribute__((constructor)) static void attach(void) { ot_map_capture_attach(); }

static inline void keep(const offtrace_raw_record *r) { sink += r->codeptr ^ r->bytes ^ r->flags; }

int __tgt_target_kernel(void *loc, int64_t device, int32_t teams, int32_t thread_limit, void *host_ptr, void *args)
{
    struct {
        uint32_t version, count;
        void **bases, **begins;
    } *k = args;
    uint64_t host = (uint64_t)(uintptr_t)k->begins[0], dev = host + 4096;
    offtrace_raw_record target = {.id = 1, .target_id = 1, .endpoint = OFFTRACE_RAW_BEGIN, .event = OFFTRACE_RAW_TARGET};
    ot_map_capture_mark_target(&target);
    keep(&target);
    static const struct {
        uint8_t op;
        int src_is_host;
    } ops[4] = {{1 /* alloc */, 1}, {2 /* to device */, 1}, {3 /* from device */, 0}, {4 /* delete */, 0}};
    for (int i = 0; i < 4; i++) {
        offtrace_raw_record r = {.id = 2 + (uint64_t)i, .target_id = 1, .bytes = ops[i].op == 4 ? 0 : 64,
                                 .src_addr = ops[i].src_is_host ? host : dev, .dst_addr = ops[i].src_is_host ? dev : host,
                                 .subkind = ops[i].op, .endpoint = OFFTRACE_RAW_END, .event = OFFTRACE_RAW_DATA_OP};
        ot_map_capture_mark_data_op(&r);
        keep(&r);
    }
    target.endpoint = OFFTRACE_RAW_END;
    ot_map_capture_mark_target(&target);
    keep(&target);
    return 0;
}

#include "device_regions.h"
#include "openmp_naming.h"

#include <omp-tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cached {
    uint64_t key, codeptr;
    OTF2_RegionRef region;
    int used;
} cached;

struct ot_device_regions {
    ot_trace_writer *tw;
    ot_symbolizer *sym;
    cached *slots;
    size_t capacity, used;
};

static offtrace_event_class copy_class(uint8_t subkind)
{
    switch (subkind) {
    case OFFTRACE_COPY_HOST_TO_DEVICE: return OFFTRACE_CLASS_QUEUE_MEMCPY_TO_DEVICE;
    case OFFTRACE_COPY_DEVICE_TO_HOST: return OFFTRACE_CLASS_QUEUE_MEMCPY_FROM_DEVICE;
    default: return OFFTRACE_CLASS_QUEUE_MEMCPY;
    }
}

/* What caused a copy or memset on a queue: a host data operation (the
 * program's maps), a kernel launch (libomptarget 19's CUDA plugin copies a
 * 16-byte buffer to the device for each kernel with a reduction, seen on an
 * H200), or nothing the host knows of (the runtime's own, or a correlation
 * lost). The last two are named apart so that the copies of the program's
 * maps stay exactly the host's data operations. */
enum { CAUSE_DATA_OP, CAUSE_NONE, CAUSE_LAUNCH };
static int cause_of(const offtrace_device_record *rec)
{
    if (!(rec->flags & OFFTRACE_DEVICE_FLAG_STREAM) ||
        (rec->kind != OFFTRACE_DEVICE_MEMCPY && rec->kind != OFFTRACE_DEVICE_MEMSET))
        return CAUSE_DATA_OP;
    return rec->op_id == 0 ? CAUSE_NONE : rec->op_id & OFFTRACE_OPERATION_SUBMIT_BIT ? CAUSE_LAUNCH : CAUSE_DATA_OP;
}

/* The catalogue class of a device record. */
static offtrace_event_class class_of(const offtrace_device_record *rec)
{
    switch (offtrace_device_source(rec->kind)) {
    case OFFTRACE_SOURCE_DEVICE_PARALLEL: return OFFTRACE_CLASS_DEVICE_PARALLEL;
    case OFFTRACE_SOURCE_DEVICE_IMPLICIT_TASK: return OFFTRACE_CLASS_DEVICE_IMPLICIT_TASK;
    case OFFTRACE_SOURCE_DEVICE_WORK: return OFFTRACE_CLASS_DEVICE_WORK;
    case OFFTRACE_SOURCE_DEVICE_SYNC: return OFFTRACE_CLASS_DEVICE_SYNC;
    case OFFTRACE_SOURCE_DEVICE_TASK: return OFFTRACE_CLASS_DEVICE_TASK;
    case OFFTRACE_SOURCE_DEVICE_KERNEL: return OFFTRACE_CLASS_QUEUE_KERNEL;
    case OFFTRACE_SOURCE_DEVICE_MEMCPY: return copy_class(rec->subkind);
    case OFFTRACE_SOURCE_DEVICE_MEMSET: return OFFTRACE_CLASS_QUEUE_MEMSET;
    case OFFTRACE_SOURCE_DEVICE_LOST: return OFFTRACE_CLASS_DEVICE_RECORDS_LOST;
    default: return OFFTRACE_CLASS_DEVICE_OTHER_KIND;
    }
}

/* The name and role within the class, where the subkind refines the
 * catalogue's; with_location: whether the construct's code address says
 * where it is in the source. */
static ot_naming naming_of(const offtrace_device_record *rec, offtrace_event_class cls, int *with_location)
{
    ot_naming n = {offtrace_class(cls)->name, offtrace_class_role(cls)};
    *with_location = 1;
    switch (cls) {
    case OFFTRACE_CLASS_DEVICE_PARALLEL:
        if (rec->subkind)
            n.name = "teams";
        return n;
    case OFFTRACE_CLASS_DEVICE_WORK: return ot_work_naming(rec->subkind);
    case OFFTRACE_CLASS_DEVICE_SYNC: return ot_sync_naming(rec->subkind);
    case OFFTRACE_CLASS_DEVICE_TASK: return n;
    default: break;
    }
    *with_location = 0;
    if (cls == OFFTRACE_CLASS_DEVICE_IMPLICIT_TASK && rec->subkind)
        n.name = "initial task";
    else if (cls == OFFTRACE_CLASS_QUEUE_MEMCPY && rec->subkind == OFFTRACE_COPY_DEVICE_TO_DEVICE)
        n.name = "memcpy device->device";
    static const char *const apart[2][4] = {
        {"memcpy host->device (runtime's own)", "memcpy device->host (runtime's own)", "memset (runtime's own)",
         "memcpy (runtime's own)"},
        {"memcpy host->device (kernel launch)", "memcpy device->host (kernel launch)", "memset (kernel launch)",
         "memcpy (kernel launch)"},
    };
    int cause = cause_of(rec);
    if (cause != CAUSE_DATA_OP)
        n.name = apart[cause == CAUSE_LAUNCH][cls == OFFTRACE_CLASS_QUEUE_MEMCPY_TO_DEVICE     ? 0
                                              : cls == OFFTRACE_CLASS_QUEUE_MEMCPY_FROM_DEVICE ? 1
                                              : cls == OFFTRACE_CLASS_QUEUE_MEMSET             ? 2
                                                                                               : 3];
    return n;
}

static OTF2_RegionRef make_region(ot_device_regions *r, const offtrace_device_record *rec)
{
    int with_location;
    offtrace_event_class cls = class_of(rec);
    ot_naming n = naming_of(rec, cls, &with_location);
    if (!with_location || !rec->codeptr)
        return ot_tw_region_with_role(r->tw, cls, n.role, n.name, NULL, 0, 0);
    ot_srcloc loc;
    char label[512], name[640];
    if (ot_symbolizer_lookup(r->sym, rec->codeptr, &loc) != 0)
        memset(&loc, 0, sizeof loc);
    ot_srcloc_format(&loc, rec->codeptr, label, sizeof label);
    snprintf(name, sizeof name, "%s @%s", n.name, label);
    return ot_tw_region_with_role(r->tw, cls, n.role, name, loc.file, loc.line, loc.line);
}

ot_device_regions *ot_device_regions_new(ot_trace_writer *tw, ot_symbolizer *sym)
{
    ot_device_regions *r = calloc(1, sizeof *r);
    if (r) {
        r->tw = tw;
        r->sym = sym;
    }
    return r;
}

static cached *find(cached *slots, size_t capacity, uint64_t key, uint64_t codeptr)
{
    size_t i = (size_t)((key ^ codeptr) * 0x9E3779B97F4A7C15ull >> 20) & (capacity - 1);
    while (slots[i].used && (slots[i].key != key || slots[i].codeptr != codeptr))
        i = (i + 1) & (capacity - 1);
    return &slots[i];
}

static int grow(ot_device_regions *r)
{
    size_t capacity = r->capacity ? r->capacity * 2 : 256;
    cached *slots = calloc(capacity, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < r->capacity; i++)
        if (r->slots[i].used)
            *find(slots, capacity, r->slots[i].key, r->slots[i].codeptr) = r->slots[i];
    free(r->slots);
    r->slots = slots;
    r->capacity = capacity;
    return 0;
}

OTF2_RegionRef ot_device_region(ot_device_regions *r, const offtrace_device_record *rec)
{
    uint64_t key = (uint64_t)cause_of(rec) << 16 | (uint64_t)rec->kind << 8 | rec->subkind;
    if ((r->used + 1) * 2 > r->capacity && grow(r) != 0)
        return make_region(r, rec);
    cached *c = find(r->slots, r->capacity, key, rec->codeptr);
    if (!c->used) {
        *c = (cached){key, rec->codeptr, make_region(r, rec), 1};
        r->used++;
    }
    return c->region;
}

void ot_device_regions_free(ot_device_regions *r)
{
    if (r) {
        free(r->slots);
        free(r);
    }
}

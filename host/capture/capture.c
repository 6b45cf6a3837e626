/**
 * \file capture.c
 * \brief libofftrace-capture.so: the map entries of every offload construct
 *        (include/offtrace/capture.h, docs/variables.md).
 *
 * Preloaded by `offtrace record`, it defines libomptarget's entry points
 * that clang-19 calls for target constructs (__tgt_target_kernel, the
 * __tgt_target_data_{begin,end,update}_mapper entry points and their
 * _nowait_mapper forms) and the one user-defined mappers call
 * (__tgt_push_mapper_component). Each stores its arguments in the thread's
 * construct stack, calls libomptarget's own function (dlsym(RTLD_NEXT),
 * resolved once in the constructor) and pops. No allocation, no lock, no
 * string work: the recorder reads the names when it needs them.
 *
 * Why the return address: for the plain entry points OMPT's codeptr_ra
 * points into libomptarget; __builtin_return_address(0) here is the
 * program's own call site.
 *
 * Depends on the C library (and libdl) only; does nothing but forward when
 * no recorder asks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "offtrace/capture.h"

#define EXPORT __attribute__((visibility("default")))

typedef void data_fn(void *, int64_t, int32_t, void **, void **, int64_t *, int64_t *, void **, void **);
typedef void data_nowait_fn(void *, int64_t, int32_t, void **, void **, int64_t *, int64_t *, void **, void **,
                            int32_t, void *, int32_t, void *);
typedef int kernel_fn(void *, int64_t, int32_t, int32_t, void *, void *);
typedef void push_fn(void *, void *, void *, int64_t, int64_t, void *);

static data_fn *real_begin, *real_end, *real_update;
static data_nowait_fn *real_begin_nowait, *real_end_nowait, *real_update_nowait;
static kernel_fn *real_kernel;
static push_fn *real_push;

static void *next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

__attribute__((constructor)) static void resolve_all(void)
{
    real_begin = (data_fn *)next_symbol("__tgt_target_data_begin_mapper");
    real_end = (data_fn *)next_symbol("__tgt_target_data_end_mapper");
    real_update = (data_fn *)next_symbol("__tgt_target_data_update_mapper");
    real_begin_nowait = (data_nowait_fn *)next_symbol("__tgt_target_data_begin_nowait_mapper");
    real_end_nowait = (data_nowait_fn *)next_symbol("__tgt_target_data_end_nowait_mapper");
    real_update_nowait = (data_nowait_fn *)next_symbol("__tgt_target_data_update_nowait_mapper");
    real_kernel = (kernel_fn *)next_symbol("__tgt_target_kernel");
    real_push = (push_fn *)next_symbol("__tgt_push_mapper_component");
}

/* A program that loads libomptarget itself later (dlopen) finds it here on
 * its first call; the stores race only with stores of the same value. */
#define REAL(var, type, name)                                                                           \
    do {                                                                                                \
        if (__builtin_expect(!var, 0) && !(var = (type *)next_symbol(name))) {                          \
            fprintf(stderr, "offtrace: %s called but libomptarget does not define it\n", name);         \
            abort();                                                                                    \
        }                                                                                               \
    } while (0)

static __thread offtrace_capture_construct stack[OFFTRACE_CAPTURE_MAX_DEPTH]
    __attribute__((tls_model("initial-exec")));
static __thread unsigned depth __attribute__((tls_model("initial-exec")));

EXPORT offtrace_capture_construct *offtrace_capture_current_v1(void)
{
    unsigned d = depth;
    return d && d <= OFFTRACE_CAPTURE_MAX_DEPTH ? &stack[d - 1] : NULL;
}

static inline void push(uint32_t entry_point, const void *loc, int64_t device, int32_t count, void **bases,
                        void **begins, int64_t *sizes, int64_t *types, void **names, void **mappers,
                        const void *call_site)
{
    unsigned d = depth++;
    if (d >= OFFTRACE_CAPTURE_MAX_DEPTH)
        return;
    offtrace_capture_construct *c = &stack[d];
    c->loc = loc;
    c->call_site = call_site;
    c->device = device;
    c->count = count > 0 ? count : 0;
    c->entry_point = entry_point;
    c->bases = bases;
    c->begins = begins;
    c->sizes = sizes;
    c->types = types;
    c->names = names;
    c->mappers = mappers;
    c->components = 0;
    c->recorder[0] = c->recorder[1] = 0;
}

static inline void pop(void) { depth--; }

#define DATA_ENTRY(fn, var, kind)                                                                         \
    EXPORT void fn(void *loc, int64_t device, int32_t count, void **bases, void **begins, int64_t *sizes, \
                   int64_t *types, void **names, void **mappers)                                          \
    {                                                                                                     \
        REAL(var, data_fn, #fn);                                                                          \
        push(kind, loc, device, count, bases, begins, sizes, types, names, mappers,                       \
             __builtin_return_address(0));                                                                \
        var(loc, device, count, bases, begins, sizes, types, names, mappers);                             \
        pop();                                                                                            \
    }

DATA_ENTRY(__tgt_target_data_begin_mapper, real_begin, OFFTRACE_CAPTURE_DATA_BEGIN)
DATA_ENTRY(__tgt_target_data_end_mapper, real_end, OFFTRACE_CAPTURE_DATA_END)
DATA_ENTRY(__tgt_target_data_update_mapper, real_update, OFFTRACE_CAPTURE_DATA_UPDATE)

#define DATA_NOWAIT_ENTRY(fn, var, kind)                                                                  \
    EXPORT void fn(void *loc, int64_t device, int32_t count, void **bases, void **begins, int64_t *sizes, \
                   int64_t *types, void **names, void **mappers, int32_t dep_count, void *deps,           \
                   int32_t noalias_count, void *noalias)                                                  \
    {                                                                                                     \
        REAL(var, data_nowait_fn, #fn);                                                                   \
        push(kind, loc, device, count, bases, begins, sizes, types, names, mappers,                       \
             __builtin_return_address(0));                                                                \
        var(loc, device, count, bases, begins, sizes, types, names, mappers, dep_count, deps,             \
            noalias_count, noalias);                                                                      \
        pop();                                                                                            \
    }

DATA_NOWAIT_ENTRY(__tgt_target_data_begin_nowait_mapper, real_begin_nowait, OFFTRACE_CAPTURE_DATA_BEGIN)
DATA_NOWAIT_ENTRY(__tgt_target_data_end_nowait_mapper, real_end_nowait, OFFTRACE_CAPTURE_DATA_END)
DATA_NOWAIT_ENTRY(__tgt_target_data_update_nowait_mapper, real_update_nowait, OFFTRACE_CAPTURE_DATA_UPDATE)

/* LLVM 19's KernelArgsTy (offload/include/Shared/APITypes.h), the fields
 * up to the map arrays: the same from version 1 to 3. */
typedef struct kernel_args {
    uint32_t version, count;
    void **bases, **begins;
    int64_t *sizes, *types;
    void **names, **mappers;
} kernel_args;

EXPORT int __tgt_target_kernel(void *loc, int64_t device, int32_t teams, int32_t thread_limit, void *host_ptr,
                               void *args)
{
    REAL(real_kernel, kernel_fn, "__tgt_target_kernel");
    const kernel_args *k = args;
    if (k && k->version >= 1 && k->version <= 3)
        push(OFFTRACE_CAPTURE_KERNEL, loc, device, (int32_t)k->count, k->bases, k->begins, k->sizes, k->types,
             k->names, k->mappers, __builtin_return_address(0));
    else /* a layout this library does not know: the call site only */
        push(OFFTRACE_CAPTURE_KERNEL, loc, device, 0, NULL, NULL, NULL, NULL, NULL, NULL,
             __builtin_return_address(0));
    int rc = real_kernel(loc, device, teams, thread_limit, host_ptr, args);
    pop();
    return rc;
}

/* A user-defined mapper's component: kept in the innermost construct, whose
 * processing called the mapper. */
EXPORT void __tgt_push_mapper_component(void *handle, void *base, void *begin, int64_t size, int64_t type,
                                        void *name)
{
    REAL(real_push, push_fn, "__tgt_push_mapper_component");
    offtrace_capture_construct *c = offtrace_capture_current_v1();
    if (c) {
        uint32_t n = c->components++;
        if (n < OFFTRACE_CAPTURE_MAX_COMPONENTS)
            c->component[n] = (offtrace_capture_component){base, begin, size, type, (const char *)name};
    }
    real_push(handle, base, begin, size, type, name);
}

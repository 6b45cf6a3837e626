/**
 * \file symbolize_load.c
 * \brief The symbolizer's API (symbolize.h) for the converter: its code is
 *        in libofftrace-symbolize.so, loaded the first time it is needed
 *        (symbolize_library.h says why), or linked in where a test or a
 *        fuzzer links symbolize.c itself.
 */
#define _GNU_SOURCE
#include "symbolize_library.h"
#include "self_dir.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* symbolize.c's table when it is linked into this program (weak: absent,
 * it is 0 and the library is loaded instead). */
extern const ot_symbolizer_ops ot_symbolizer_library __attribute__((weak, visibility("hidden")));

static const ot_symbolizer_ops *ops;
static char load_error[PATH_MAX + 256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* In lib/ beside the running program's directory: bin/offtrace, as
 * installed or built, and the tests' tests/ in the build tree. Loaded once
 * and kept: its modules' handles live as long as the process's symbolizers. */
static void load(void)
{
    if (&ot_symbolizer_library) {
        ops = &ot_symbolizer_library;
        return;
    }
    char exe[PATH_MAX], path[PATH_MAX + 64];
    if (ot_self_dir(exe, sizeof exe) != 0) {
        snprintf(load_error, sizeof load_error, "offtrace: cannot find the symbolizer (%s): /proc/self/exe is not "
                 "readable", OT_SYMBOLIZER_LIBRARY);
        return;
    }
    snprintf(path, sizeof path, "%s/../lib/%s", exe, OT_SYMBOLIZER_LIBRARY);
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const ot_symbolizer_ops *table = library ? dlsym(library, OT_SYMBOLIZER_TABLE) : NULL;
    if (!table) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "offtrace: cannot load the symbolizer: %s (is offtrace installed "
                 "whole?)", why ? why : path);
        return;
    }
    ops = table;
}

int ot_symbolizer_load(void)
{
    pthread_once(&load_once, load);
    return ops ? 0 : -1;
}

const char *ot_symbolizer_load_error(void)
{
    return load_error;
}

ot_symbolizer *ot_symbolizer_open(void)
{
    return ot_symbolizer_load() == 0 ? ops->open() : NULL;
}

/* The others take a symbolizer ot_symbolizer_open made: the library is loaded. */
int ot_symbolizer_add_maps(ot_symbolizer *s, const char *maps_path)
{
    return s ? ops->add_maps(s, maps_path) : -EINVAL;
}

int ot_symbolizer_lookup(ot_symbolizer *s, uint64_t return_address, ot_srcloc *out)
{
    return s ? ops->lookup(s, return_address, out) : -EINVAL;
}

int ot_symbolizer_find_kernel(ot_symbolizer *s, const char *module_path, const char *function, unsigned line,
                              const char **kernel)
{
    if (!s) {
        if (kernel)
            *kernel = NULL;
        return -EINVAL;
    }
    return ops->find_kernel(s, module_path, function, line, kernel);
}

void ot_symbolizer_close(ot_symbolizer *s)
{
    if (s)
        ops->close(s);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int ot_srcloc_format(const ot_srcloc *loc, uint64_t return_address, char *buf, size_t size)
{
    if (!buf)
        size = 0;
    if (loc && loc->file && loc->line)
        return snprintf(buf, size, "%s:%u", base_name(loc->file), loc->line);
    if (loc && loc->function)
        return snprintf(buf, size, "%s+0x%" PRIx64, loc->function, loc->function_offset);
    if (loc && loc->module)
        return snprintf(buf, size, "%s+0x%" PRIx64, base_name(loc->module), loc->module_offset);
    return snprintf(buf, size, "0x%" PRIx64, return_address);
}

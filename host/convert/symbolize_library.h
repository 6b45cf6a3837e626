/**
 * \file symbolize_library.h
 * \brief The symbolizer as a library of its own, libofftrace-symbolize.so
 *        (issue 18, seventh round): what it exports and how the converter
 *        finds it.
 *
 * The symbolizer needs libdw and libelf, and they bring libz, liblzma and
 * libbz2: loaded at a command's start they cost every verb about 0.45 ms
 * (issue 18, sixth round), though only a conversion symbolizes. So the
 * symbolizer's code (symbolize.c, sym_*.c) is linked into a library that
 * symbolize_load.c loads when a conversion first needs it, and that
 * `offtrace record` loads while the program runs. Tests and fuzzers that
 * link the symbolizer's code in use it directly (symbolize_load.c).
 */
#ifndef OT_CONVERT_SYMBOLIZE_LIBRARY_H
#define OT_CONVERT_SYMBOLIZE_LIBRARY_H

#include "symbolize.h"

/** The file, in the lib/ beside the CLI's bin/ (tests: the build's lib/). */
#define OT_SYMBOLIZER_LIBRARY "libofftrace-symbolize.so"
/** The one symbol it exports: an ot_symbolizer_ops. */
#define OT_SYMBOLIZER_TABLE "ot_symbolizer_library"

/** The symbolizer's API (symbolize.h), as the library implements it. */
typedef struct ot_symbolizer_ops {
    ot_symbolizer *(*open)(void);
    int (*add_maps)(ot_symbolizer *s, const char *maps_path);
    int (*lookup)(ot_symbolizer *s, uint64_t return_address, ot_srcloc *out);
    int (*find_kernel)(ot_symbolizer *s, const char *module_path, const char *function, unsigned line,
                       const char **kernel);
    void (*close)(ot_symbolizer *s);
} ot_symbolizer_ops;

#endif

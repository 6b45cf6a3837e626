/**
 * \file symbolize.h
 * \brief Turn the return addresses that OMPT hands the tool (`codeptr_ra`)
 *        into source locations and offload kernel names.
 *
 * The converter may run long after the traced process died, so nothing here
 * reads the process: the module layout comes from `/proc/<pid>/maps`
 * snapshots taken while it ran, and the code, symbols and DWARF from the ELF
 * files on disk (or their separate debug files). A file that is gone, or was
 * replaced since the snapshot, still yields `module+offset`, which can be
 * resolved later by hand against the right build.
 *
 * Not thread-safe: one symbolizer serves one converter thread.
 */
#ifndef OT_CONVERT_SYMBOLIZE_H
#define OT_CONVERT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

typedef struct ot_symbolizer ot_symbolizer;

/** What is known about one return address; every field may be unknown. */
typedef struct ot_srcloc {
    const char *file;         /**< source file of the construct, NULL if unknown */
    unsigned line;            /**< its line, 0 if unknown */
    const char *function;     /**< source function (DWARF name, else ELF symbol), NULL if unknown */
    uint64_t function_offset; /**< return address - start of `function` (0 if unknown) */
    const char *module;       /**< path of the ELF object holding the address, NULL if none */
    uint64_t module_offset;   /**< return address - load base (offset-0 mapping) of `module` */
    const char *kernel;       /**< `__omp_offloading_..._l<line>` entry, NULL if none */
    const char *kernel_display; /**< the kernel's readable name (C++ demangled: `ns::f(double) [l12]`;
                                     else the entry name), NULL if none */
} ot_srcloc;

/**
 * \brief Load the symbolizer's library (symbolize_library.h) now, if it is
 *        not loaded yet: `offtrace record` does it while the program runs.
 *        Thread-safe; ot_symbolizer_open() does it when it was not done.
 * \return 0, or -1: it cannot be loaded (ot_symbolizer_load_error() says why).
 */
int ot_symbolizer_load(void);

/** \brief Why the symbolizer's library could not be loaded: one line. */
const char *ot_symbolizer_load_error(void);

/**
 * \brief Create an empty symbolizer; feed it with ot_symbolizer_add_maps().
 * \return the symbolizer, or NULL when out of memory or when its library
 *         cannot be loaded (ot_symbolizer_load_error()).
 */
ot_symbolizer *ot_symbolizer_open(void);

/**
 * \brief Learn the modules of a `/proc/<pid>/maps` snapshot.
 *
 * Can be called once per snapshot: a program that dlopen()s libraries late
 * only shows them in later snapshots. Only executable, file-backed mappings
 * become lookup ranges ([vdso], [heap], anonymous and data mappings cannot
 * hold a return address we can resolve). Unparsable lines are skipped, so a
 * snapshot cut short by the death of the process still counts.
 *
 * \param s the symbolizer.
 * \param maps_path the snapshot file.
 * \return 0; -EINVAL when the file holds no maps line at all (or s/maps_path
 *         is NULL); -errno when it cannot be opened or read (-ENOENT,
 *         -EACCES, -EISDIR); -ENOMEM.
 */
int ot_symbolizer_add_maps(ot_symbolizer *s, const char *maps_path);

/**
 * \brief Resolve an OMPT return address.
 *
 * The location is that of `return_address - 1`, the call instruction: the
 * return address itself often belongs to the next statement. Results are
 * cached per address, as the same construct is looked up once per
 * execution.
 *
 * Sources, best first: on x86-64 the call site itself: clang passes each
 * libomptarget entry the construct's `ident_t`, whose location string names
 * the pragma's file, line and function (with -g), more precisely than the
 * line table of optimized code. Then DWARF: line table and scopes, inlined
 * functions included (`function` is the innermost one, where the pragma
 * is). Then the ELF symbol table, then module+offset.
 *
 * `kernel` is the region id passed to __tgt_target_kernel, looked up in the
 * module's symbols and offload entry table, else the entry whose name
 * matches function and line. It is meant for `target` constructs and is
 * NULL for data constructs.
 *
 * \param s the symbolizer.
 * \param return_address `codeptr_ra` as OMPT reported it.
 * \param out filled in; the strings belong to `s` and live until
 *        ot_symbolizer_close(). Cleared on -ENOENT.
 * \return 0 when at least the module is known; -ENOENT when the address is in
 *         no executable mapping of any snapshot (0 included); -EINVAL for
 *         NULL arguments.
 */
int ot_symbolizer_lookup(ot_symbolizer *s, uint64_t return_address, ot_srcloc *out);

/**
 * \brief Find the offload entry of the target region at `function`:`line`.
 *
 * LLVM names it `__omp_offloading_<dev>_<file>_<function>_l<line>`, with
 * the function that contains the pragma in the source (its mangled name in
 * C++). Exposed so that the matching can be checked against a real binary
 * that is not mapped anywhere.
 *
 * \param s the symbolizer (owns the module index and the returned string).
 * \param module_path the ELF file to search; need not be in any snapshot.
 * \param function the linkage name (or plain C name) of the function.
 * \param line the line of the pragma; 0 accepts any line when the function
 *        holds exactly one target region.
 * \param kernel set to the entry name on success, NULL otherwise.
 * \return 0 when found; -ENOENT when there is no such entry or file; another
 *         negative errno when the file cannot be used (-ENOEXEC: not ELF);
 *         -EINVAL for NULL arguments; -ENOMEM.
 */
int ot_symbolizer_find_kernel(ot_symbolizer *s, const char *module_path,
                              const char *function, unsigned line, const char **kernel);

/**
 * \brief Short label for displays: "saxpy.c:12" (file basename), else
 *        "function+0xOFF", else "module+0xOFF" (basename), else "0xADDR".
 * \param loc a lookup result, or NULL when the lookup failed.
 * \param return_address the address looked up, for the last resort.
 * \param buf output, always NUL-terminated when size > 0.
 * \param size bytes in buf.
 * \return the length the full label has, as snprintf() returns it.
 */
int ot_srcloc_format(const ot_srcloc *loc, uint64_t return_address, char *buf, size_t size);

/**
 * \brief Release the symbolizer and every string it handed out.
 * \param s the symbolizer, or NULL.
 */
void ot_symbolizer_close(ot_symbolizer *s);

#endif

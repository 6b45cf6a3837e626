/**
 * \file symbolize_internal.h
 * \brief What the parts of the symbolizer share: its data structures and the
 *        ot_sym_ functions one part offers the others. Not installed, not
 *        part of the API (that is symbolize.h).
 *
 * - symbolize.c: the public API, the per-address cache, string storage, and
 *   the order in which the sources of a location are tried;
 * - sym_maps.c: maps snapshots -> modules and address ranges;
 * - sym_elf.c: raw ELF reading (section bytes, relocated pointers);
 * - sym_kernel_index.c: the per-module index of offload kernels;
 * - sym_callsite_x86.c: the arguments at a libomptarget call site (x86-64);
 * - sym_dwarf.c: opening modules with libdwfl, and the DWARF lookups.
 */
#ifndef OFFTRACE_SYMBOLIZE_INTERNAL_H
#define OFFTRACE_SYMBOLIZE_INTERNAL_H

#include "symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OT_MAX_CANDIDATES 32

/** A string handed out to callers; all are freed at close. */
typedef struct ot_str {
    struct ot_str *next;
    char text[];
} ot_str;

typedef struct ot_kernel {
    const char *name; /**< canonical entry name */
    const char *tail; /**< what follows `__omp_offloading_<dev>_<file>_` */
    const char *display; /**< readable name: C++ demangled, `f(int) [l12]`; else `name` */
    uint64_t region_id; /**< file address of `.<name>.region_id`, 0 if unseen */
} ot_kernel;

/** A CU's address range; see ot_sym_module_cu(). */
typedef struct ot_cu_range {
    Dwarf_Addr lo, hi; /**< file addresses (no bias) */
    Dwarf_Die die;
} ot_cu_range;

typedef struct ot_module {
    char *path;
    uint64_t base;    /**< start of the mapping at file offset 0 */
    uint64_t inode;   /**< from maps; 0 when unknown */
    unsigned dev_major, dev_minor;
    bool deleted;     /**< maps said "(deleted)" */
    int state;        /**< 0: not opened yet, 1: open, else -errno */
    Dwfl *dwfl;
    Dwfl_Module *mod;
    bool kernels_indexed;
    ot_kernel *kernels;
    size_t kernel_count, kernel_cap;
    bool cus_indexed;
    ot_cu_range *cus;
    size_t cu_count, cu_cap;
} ot_module;

typedef struct ot_range {
    uint64_t lo, hi;
    size_t module;
} ot_range;

/** Cache slot; addr 0 marks an empty one (0 is never looked up). */
typedef struct ot_cache_slot {
    uint64_t addr;
    int status;
    ot_srcloc loc;
} ot_cache_slot;

struct ot_symbolizer {
    ot_module *modules;
    size_t module_count, module_cap;
    ot_range *ranges;
    size_t range_count, range_cap;
    uint64_t max_range_len; /**< bounds the backward scan over overlaps */
    ot_cache_slot *cache;
    size_t cache_cap, cache_used;
    ot_str *strings;
};

/** One parsed line of a maps file; path points into the line buffer. */
typedef struct ot_maps_line {
    uint64_t lo, hi, offset, inode;
    unsigned dev_major, dev_minor;
    char perms[5];
    char *path;
    bool deleted;
} ot_maps_line;

/** Per snapshot: the latest offset-0 mapping of each path, i.e. its base. */
typedef struct ot_base_table {
    struct { char *path; uint64_t base; } *items;
    size_t count, cap;
} ot_base_table;

typedef struct ot_candidate {
    const char *name;
    size_t len;
    unsigned line;
} ot_candidate;

/** Function names to try against the kernel index, most likely first. */
typedef struct ot_candidates {
    ot_candidate c[OT_MAX_CANDIDATES];
    size_t n;
} ot_candidates;

/** The relocation types that can state a pointer to the object's own data. */
typedef struct ot_reloc_types {
    unsigned relative, glob_dat, abs64;
} ot_reloc_types;

typedef struct ot_psource {
    const char *file, *function; /**< not NUL-terminated: see the lengths */
    size_t file_len, function_len;
    unsigned line;
} ot_psource;

typedef struct ot_call_site {
    const ot_kernel *kernel;
    bool has_source;
    ot_psource source;
} ot_call_site;

/* ------------------------------------------------------- symbolize.c */

/** \brief Room for `need` elements: the array, maybe moved, or NULL (the old
 *  one still valid) when out of memory. */
void *ot_sym_reserve(void *array, size_t *cap, size_t need, size_t elem);

/** \brief A string of `len` characters (and a NUL) that lives until close. */
char *ot_sym_str_new(ot_symbolizer *s, size_t len);

/** \brief A copy of text[0..len), NUL-terminated, that lives until close. */
const char *ot_sym_strndup(ot_symbolizer *s, const char *text, size_t len);

/** \brief Append a kernel-name candidate; ignored when empty or full. */
void ot_sym_candidates_add(ot_candidates *c, const char *name, size_t len, unsigned line);

/* --------------------------------------------------------- sym_maps.c */

/** \brief Parse one maps line in place; false for a malformed or cut line. */
bool ot_sym_parse_maps_line(char *line, ot_maps_line *m);

/** \brief Free a snapshot's table of load bases. */
void ot_sym_bases_free(ot_base_table *t);

/** \brief The module for this file at this base: found, or added.
 *  The same file at the same base with the same inode is the same module. */
int ot_sym_module_get(ot_symbolizer *s, const ot_maps_line *m, uint64_t base, size_t *index);

/** \brief Take one parsed maps line: note load bases, add executable ranges. */
int ot_sym_maps_take(ot_symbolizer *s, ot_base_table *bases, const ot_maps_line *m);

/** \brief Sort the ranges for binary search and drop what an earlier
 *  snapshot already gave. */
void ot_sym_ranges_finish(ot_symbolizer *s);

/** \brief The mapped range holding pc, or NULL. */
const ot_range *ot_sym_range_find(const ot_symbolizer *s, uint64_t pc);

/* ---------------------------------------------------------- sym_elf.c */

/** \brief A little-endian 32-bit value at p. */
uint32_t ot_sym_le32(const unsigned char *p);

/** \brief The file contents at file address `addr`: bytes after it, and
 *  before it in its section (when `before` is not NULL). */
const unsigned char *ot_sym_elf_at(Elf *elf, GElf_Addr addr, size_t *after, size_t *before);

/** \brief The relocation types that can state a pointer to the object's own
 *  data; false unless a 64-bit little-endian x86-64/AArch64/PPC64 object. */
bool ot_sym_elf_reloc_types(Elf *elf, ot_reloc_types *t);

/** \brief A pointer stored at `addr`: the file's value, else what its
 *  dynamic relocation will store there. */
bool ot_sym_elf_pointer(Elf *elf, GElf_Addr addr, GElf_Addr *value);

/** \brief The name of the symbol a dynamic relocation at `addr` binds (a PLT
 *  or GOT slot), or NULL. */
const char *ot_sym_elf_reloc_symbol(Elf *elf, GElf_Addr addr);

/* -------------------------------------------------- sym_kernel_index.c */

/** \brief Once per module: index the kernels from the symbol table (symtab,
 *  else dynsym) and the offload entry table. */
int ot_sym_module_index_kernels(ot_symbolizer *s, ot_module *m);

/** \brief The kernel of function fn[0..len) at `line`: with a line the first
 *  match, without (0) only an unambiguous one. */
const ot_kernel *ot_sym_kernel_find(const ot_module *m, const char *fn, size_t len,
                                    unsigned line);

/** \brief Split a kernel's `<fn>_l<line>[_<count>]` into the function's
 *  length and the line. */
bool ot_sym_tail_split(const char *tail, size_t *fn_len, unsigned *line);

/** \brief The kernel whose `.region_id` is at `region_id`, or NULL. */
const ot_kernel *ot_sym_kernel_by_region(const ot_module *m, GElf_Addr region_id);

/* -------------------------------------------------- sym_callsite_x86.c */

/** \brief What a call into libomptarget at return address pc + 1 says: its
 *  ident's psource and the kernel of its region id (x86-64 only).
 *  `in_function` is pc's offset in its function. */
void ot_sym_scan_call_site(const ot_module *m, uint64_t pc, uint64_t in_function,
                           ot_call_site *site);

/* -------------------------------------------------------- sym_dwarf.c */

/** \brief Open the module with libdwfl on first use: 0, or the -errno it
 *  failed with (remembered). */
int ot_sym_module_open(ot_module *m);

/** \brief The CU holding pc, by dwfl or else by the CUs' own ranges. */
Dwarf_Die *ot_sym_module_cu(ot_module *m, uint64_t pc, Dwarf_Addr *bias, Dwarf_Die *mem);

/** \brief The function scopes holding rel: set the function, and add the
 *  kernel-name candidates from the innermost scope out. */
void ot_sym_resolve_scopes(ot_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr rel, Dwarf_Addr bias,
                           uint64_t ra, ot_srcloc *out, ot_candidates *c);

/** \brief File and line of rel from the CU's line table. */
void ot_sym_resolve_line(Dwarf_Die *cu, Dwarf_Addr rel, ot_srcloc *out);

/** \brief The psource's file, anchored at the CU's directory as the line
 *  table does. */
const char *ot_sym_psource_path(ot_symbolizer *s, Dwarf_Die *cu, const ot_psource *ps);

/** \brief Place a kernel launch by the kernel's name: the function and line
 *  it names, and where DWARF declares that function. */
void ot_sym_locate_from_kernel(Dwarf_Die *cu, const ot_kernel *k, ot_srcloc *out);

#endif

/**
 * \file sym_kernel_index.c
 * \brief The per-module index of offload kernels: `__omp_offloading_`
 *        symbols and the offload entry table, with their region ids.
 */
#define _GNU_SOURCE
#include "symbolize_internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OT_KERNEL_PREFIX "__omp_offloading_"

static bool ot_ends_with(const char *text, const char *suffix)
{
    size_t len = strlen(text), slen = strlen(suffix);
    return len >= slen && strcmp(text + len - slen, suffix) == 0;
}

/** Length of `__omp_offloading_<hex>_<hex>_` at the start of name[0..len), else 0. */
static size_t ot_kernel_head_len(const char *name, size_t len)
{
    size_t p = sizeof OT_KERNEL_PREFIX - 1;
    if (len <= p || strncmp(name, OT_KERNEL_PREFIX, p) != 0)
        return 0;
    for (int field = 0; field < 2; field++) {
        size_t start = p;
        while (p < len && isxdigit((unsigned char)name[p]))
            p++;
        if (p == start || p >= len || name[p] != '_')
            return 0;
        p++;
    }
    return p < len ? p : 0;
}

/**
 * Does `tail` stand for function `fn` at `line` (any line when 0)? LLVM
 * writes `<fn>_l<line>`, plus `_<count>` for further regions on that line.
 */
static bool ot_tail_matches(const char *tail, const char *fn, size_t len, unsigned line)
{
    if (strncmp(tail, fn, len) != 0 || tail[len] != '_' || tail[len + 1] != 'l')
        return false;
    const char *p = tail + len + 2;
    if (!isdigit((unsigned char)*p))
        return false;
    char *end;
    unsigned long got = strtoul(p, &end, 10);
    if (line != 0 && got != line)
        return false;
    if (*end == '\0')
        return true;
    if (end[0] != '_' || !isdigit((unsigned char)end[1]))
        return false;
    strtoul(end + 1, &end, 10);
    return *end == '\0';
}

/* libstdc++'s demangler (the Itanium C++ ABI's, declared there in <cxxabi.h>),
 * callable from C: a malloc'd demangled name, or NULL with *status != 0. */
typedef char *cxa_demangle_fn(const char *mangled, char *buffer, size_t *length, int *status);

/* libstdc++ is loaded the first time a C++ kernel is named, not linked: as
 * a dependency of the CLI it cost every `offtrace` command (record, convert,
 * info, ...) about 1 ms of CPU at start-up (its relocations and static
 * initialisation, issue 18), for a C program's recording as well. NULL when
 * it cannot be loaded: kernels then keep their entry names, as for a
 * symbol the demangler refuses. */
static cxa_demangle_fn *demangler(void)
{
    static cxa_demangle_fn *fn;
    static int tried;
    if (!tried) {
        tried = 1;
        void *lib = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
        if (lib)
            fn = (cxa_demangle_fn *)dlsym(lib, "__cxa_demangle");
    }
    return fn;
}

/**
 * The name a person reads. LLVM embeds the enclosing function's symbol in
 * the entry name: `__omp_offloading_<dev>_<file>_<symbol>_l<line>[_<n>]`.
 * A C++ symbol (`_Z...`) is demangled and the line kept after it:
 * `ns::f(std::vector<int>&) [l12]` (`[l12_1]` for a further region on the
 * line). C names are readable already and keep the entry name, so that
 * archives of C programs do not change; so does a symbol the demangler
 * refuses. The entry name stays in the region's canonical name.
 */
static const char *ot_kernel_display(ot_symbolizer *s, const char *name, const char *tail)
{
    size_t fn_len;
    unsigned line;
    if (strncmp(tail, "_Z", 2) != 0 || !ot_sym_tail_split(tail, &fn_len, &line))
        return name;
    cxa_demangle_fn *demangle = demangler();
    if (!demangle)
        return name;
    char *mangled = strndup(tail, fn_len);
    int status = -1;
    char *plain = mangled ? demangle(mangled, NULL, NULL, &status) : NULL;
    free(mangled);
    if (!plain || status != 0) {
        free(plain);
        return name;
    }
    char *text = NULL;
    const char *display = name;
    if (asprintf(&text, "%s [%s]", plain, tail + fn_len + 1) >= 0) /* `l12`, `l12_1` */
        display = ot_sym_strndup(s, text, strlen(text));
    free(text);
    free(plain);
    return display;
}

/**
 * One kernel hides behind several symbols: the host entry itself, its
 * `_debug__` twin and their `.omp_outlined` helpers, `.<name>.region_id`
 * and `.offloading.entry.<name>`. With optimization only the last two may
 * survive, so all are reduced to the entry name instead of being skipped.
 */
static int ot_kernel_add(ot_symbolizer *s, ot_module *m, const char *sym, uint64_t region_id)
{
    static const char entry[] = ".offloading.entry.";
    static const char debug[] = "_debug__";
    if (strncmp(sym, entry, sizeof entry - 1) == 0)
        sym += sizeof entry - 1;
    else if (sym[0] == '.')
        sym++;
    size_t len = strcspn(sym, "."); /* identifiers and mangled names have no '.' */
    size_t dlen = sizeof debug - 1;
    if (len > dlen && memcmp(sym + len - dlen, debug, dlen) == 0)
        len -= dlen;
    size_t head = ot_kernel_head_len(sym, len);
    if (head == 0)
        return 0;
    ot_kernel *kernels =
        ot_sym_reserve(m->kernels, &m->kernel_cap, m->kernel_count + 1, sizeof *kernels);
    if (!kernels)
        return -ENOMEM;
    m->kernels = kernels;
    const char *name = ot_sym_strndup(s, sym, len);
    if (!name)
        return -ENOMEM;
    const char *display = ot_kernel_display(s, name, name + head);
    if (!display)
        return -ENOMEM;
    m->kernels[m->kernel_count++] = (ot_kernel){name, name + head, display, region_id};
    return 0;
}

static int ot_kernel_cmp(const void *a, const void *b)
{
    return strcmp(((const ot_kernel *)a)->name, ((const ot_kernel *)b)->name);
}

/**
 * The table libomptarget registers kernels from survives strip, so it names
 * the kernels (with their region ids) where no symbol table does. LLVM 19
 * writes {addr, name, size, flags, data} as `omp_offloading_entries`; LLVM
 * 20 {reserved, version, kind, flags, addr, name, size, data, aux} as
 * `llvm_offload_entries`.
 */
static int ot_index_entry_table(ot_symbolizer *s, ot_module *m, Elf *elf, const GElf_Shdr *sh,
                                bool v2)
{
    size_t stride = v2 ? 56 : 32, at_addr = v2 ? 16 : 0, at_name = v2 ? 24 : 8;
    GElf_Addr end = sh->sh_addr + sh->sh_size;
    for (GElf_Addr entry = sh->sh_addr; entry + stride <= end; entry += stride) {
        GElf_Addr region = 0, name_addr;
        size_t after;
        if (!ot_sym_elf_pointer(elf, entry + at_name, &name_addr))
            continue;
        ot_sym_elf_pointer(elf, entry + at_addr, &region);
        const char *name = (const char *)ot_sym_elf_at(elf, name_addr, &after, NULL);
        if (name && strnlen(name, after) < after && ot_kernel_add(s, m, name, region) != 0)
            return -ENOMEM;
    }
    return 0;
}

static int ot_module_index_entries(ot_symbolizer *s, ot_module *m)
{
    GElf_Addr bias;
    Elf *elf = dwfl_module_getelf(m->mod, &bias);
    size_t shstrndx;
    ot_reloc_types types;
    if (!elf || !ot_sym_elf_reloc_types(elf, &types) || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        if (!name || sh.sh_type != SHT_PROGBITS)
            continue;
        bool v2 = strcmp(name, "llvm_offload_entries") == 0;
        if (!v2 && strcmp(name, "omp_offloading_entries") != 0)
            continue;
        int rc = ot_index_entry_table(s, m, elf, &sh, v2);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/** Once per module: the symbol table (symtab, else dynsym) and the entry table. */
int ot_sym_module_index_kernels(ot_symbolizer *s, ot_module *m)
{
    if (m->kernels_indexed)
        return 0;
    m->kernels_indexed = true; /* on ENOMEM keep what was found */
    int rc = 0;
    int n = dwfl_module_getsymtab(m->mod);
    for (int i = 0; i < n && rc == 0; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, NULL, NULL, NULL);
        if (name && strstr(name, OT_KERNEL_PREFIX))
            rc = ot_kernel_add(s, m, name, ot_ends_with(name, ".region_id") ? sym.st_value : 0);
    }
    if (rc == 0)
        rc = ot_module_index_entries(s, m);
    if (m->kernel_count == 0)
        return rc;
    qsort(m->kernels, m->kernel_count, sizeof *m->kernels, ot_kernel_cmp);
    size_t kept = 1; /* the symbols of one kernel are now neighbours */
    for (size_t i = 1; i < m->kernel_count; i++) {
        ot_kernel *last = &m->kernels[kept - 1];
        if (strcmp(m->kernels[i].name, last->name) != 0)
            m->kernels[kept++] = m->kernels[i];
        else if (last->region_id == 0)
            last->region_id = m->kernels[i].region_id;
    }
    m->kernel_count = kept;
    return rc;
}

/** With a line: the first match. Without: only an unambiguous one. */
const ot_kernel *ot_sym_kernel_find(const ot_module *m, const char *fn, size_t len,
                                       unsigned line)
{
    const ot_kernel *found = NULL;
    for (size_t i = 0; i < m->kernel_count; i++) {
        if (!ot_tail_matches(m->kernels[i].tail, fn, len, line))
            continue;
        if (line != 0)
            return &m->kernels[i];
        if (found)
            return NULL;
        found = &m->kernels[i];
    }
    return found;
}

/** Split a kernel's `<fn>_l<line>[_<count>]` into the function's length and
 *  the line. */
bool ot_sym_tail_split(const char *tail, size_t *fn_len, unsigned *line)
{
    size_t len = strlen(tail);
    for (int pass = 0; pass < 2; pass++) {
        size_t end = len;
        while (end > 0 && isdigit((unsigned char)tail[end - 1]))
            end--;
        if (end == len || end < 3)
            return false;
        if (tail[end - 1] == 'l' && tail[end - 2] == '_') {
            *fn_len = end - 2;
            *line = (unsigned)strtoul(tail + end, NULL, 10);
            return true;
        }
        if (tail[end - 1] != '_')
            return false;
        len = end - 1; /* drop `_<count>` and look again */
    }
    return false;
}

const ot_kernel *ot_sym_kernel_by_region(const ot_module *m, GElf_Addr region_id)
{
    for (size_t i = 0; i < m->kernel_count; i++) {
        if (region_id != 0 && m->kernels[i].region_id == region_id)
            return &m->kernels[i];
    }
    return NULL;
}

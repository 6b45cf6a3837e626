/**
 * \file symbolize.c
 * \brief Return address -> file:line, function, offload kernel, with elfutils.
 *
 * Each module (one ELF file at one load base) gets its own Dwfl, opened on
 * the first lookup that lands in it: a traced process maps dozens of
 * libraries and OMPT return addresses fall in two or three of them.
 *
 * Layers, each covering what the one before cannot: the maps snapshots give
 * module+offset; the ELF symbol table a function; DWARF file, line and the
 * (inlined) function; and, for calls into libomptarget on x86-64, the call
 * site itself: the `ident_t` and region id the compiler passes, which stay
 * right where optimized DWARF is vague and survive `strip`. Kernels are
 * indexed once per module from the symbol table and the offload entry table.
 */
#define _GNU_SOURCE
#include "symbolize.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define OT_KERNEL_PREFIX "__omp_offloading_"
#define OT_MAX_CANDIDATES 32
#define OT_MAX_SCOPES 16 /* inlining depth followed */

/** A string handed out to callers; all are freed at close. */
typedef struct ot_str {
    struct ot_str *next;
    char text[];
} ot_str;

typedef struct ot_kernel {
    const char *name; /**< canonical entry name */
    const char *tail; /**< what follows `__omp_offloading_<dev>_<file>_` */
    uint64_t region_id; /**< file address of `.<name>.region_id`, 0 if unseen */
} ot_kernel;

/** A CU's address range; see ot_module_cu(). */
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

/* ---------------------------------------------------------------- helpers */

/** Room for `need` elements: the array, maybe moved, or NULL (the old one
 *  still valid) when out of memory. */
static void *ot_reserve(void *array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return array;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(array, n * elem);
    if (p)
        *cap = n;
    return p;
}

/** A string of `len` characters (and a NUL) that lives until close. */
static char *ot_str_new(ot_symbolizer *s, size_t len)
{
    ot_str *str = malloc(sizeof *str + len + 1);
    if (!str)
        return NULL;
    str->text[len] = '\0';
    str->next = s->strings;
    s->strings = str;
    return str->text;
}

static const char *ot_strndup(ot_symbolizer *s, const char *text, size_t len)
{
    char *copy = ot_str_new(s, len);
    if (copy)
        memcpy(copy, text, len);
    return copy;
}

static bool ot_ends_with(const char *text, const char *suffix)
{
    size_t len = strlen(text), slen = strlen(suffix);
    return len >= slen && strcmp(text + len - slen, suffix) == 0;
}

static const char *ot_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ------------------------------------------------------------ maps input */

static bool ot_perms_valid(const char *p)
{
    return strlen(p) == 4 && strchr("r-", p[0]) && strchr("w-", p[1]) &&
           strchr("x-", p[2]) && strchr("ps", p[3]);
}

static bool ot_parse_maps_line(char *line, ot_maps_line *m)
{
    static const char deleted[] = " (deleted)";
    int n = 0;
    memset(m, 0, sizeof *m);
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->lo,
               &m->hi, m->perms, &m->offset, &m->dev_major, &m->dev_minor, &m->inode, &n) != 7 ||
        n == 0 || m->lo >= m->hi || !ot_perms_valid(m->perms))
        return false;
    char *path = line + n;
    size_t len = strlen(path);
    while (len > 0 && isspace((unsigned char)path[len - 1]))
        path[--len] = '\0';
    size_t dlen = sizeof deleted - 1;
    if (len > dlen && strcmp(path + len - dlen, deleted) == 0) {
        path[len - dlen] = '\0';
        m->deleted = true;
    }
    m->path = path;
    return true;
}

static bool ot_bases_get(const ot_base_table *t, const char *path, uint64_t *base)
{
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(t->items[i].path, path) == 0) {
            *base = t->items[i].base;
            return true;
        }
    }
    return false;
}

static int ot_bases_set(ot_base_table *t, const char *path, uint64_t base)
{
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(t->items[i].path, path) == 0) {
            t->items[i].base = base;
            return 0;
        }
    }
    void *items = ot_reserve(t->items, &t->cap, t->count + 1, sizeof *t->items);
    if (!items)
        return -ENOMEM;
    t->items = items;
    char *copy = strdup(path);
    if (!copy)
        return -ENOMEM;
    t->items[t->count].path = copy;
    t->items[t->count].base = base;
    t->count++;
    return 0;
}

static void ot_bases_free(ot_base_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->items[i].path);
    free(t->items);
}

/** The same file at the same base with the same inode is the same module. */
static int ot_module_get(ot_symbolizer *s, const ot_maps_line *m, uint64_t base, size_t *index)
{
    for (size_t i = 0; i < s->module_count; i++) {
        const ot_module *mod = &s->modules[i];
        if (mod->base == base && mod->inode == m->inode && mod->deleted == m->deleted &&
            strcmp(mod->path, m->path) == 0) {
            *index = i;
            return 0;
        }
    }
    ot_module *modules =
        ot_reserve(s->modules, &s->module_cap, s->module_count + 1, sizeof *modules);
    if (!modules)
        return -ENOMEM;
    s->modules = modules;
    ot_module *mod = &s->modules[s->module_count];
    memset(mod, 0, sizeof *mod);
    mod->path = strdup(m->path);
    if (!mod->path)
        return -ENOMEM;
    mod->base = base;
    mod->inode = m->inode;
    mod->dev_major = m->dev_major;
    mod->dev_minor = m->dev_minor;
    mod->deleted = m->deleted;
    *index = s->module_count++;
    return 0;
}

static int ot_maps_take(ot_symbolizer *s, ot_base_table *bases, const ot_maps_line *m)
{
    if (m->path[0] != '/')
        return 0; /* anonymous, [heap], [stack], [vdso]: no file to read */
    if (m->offset == 0 && ot_bases_set(bases, m->path, m->lo) != 0)
        return -ENOMEM;
    if (m->perms[2] != 'x')
        return 0;
    /* The loader maps the file's first page (offset 0) at the load base and
     * the text above it, so the latest offset-0 mapping below is the base.
     * Without one (a cut snapshot), assume the file was mapped linearly. */
    uint64_t base;
    if (!ot_bases_get(bases, m->path, &base) || base > m->lo)
        base = m->offset <= m->lo ? m->lo - m->offset : m->lo;
    size_t index;
    if (ot_module_get(s, m, base, &index) != 0)
        return -ENOMEM;
    ot_range *ranges = ot_reserve(s->ranges, &s->range_cap, s->range_count + 1, sizeof *ranges);
    if (!ranges)
        return -ENOMEM;
    s->ranges = ranges;
    s->ranges[s->range_count++] = (ot_range){m->lo, m->hi, index};
    if (m->hi - m->lo > s->max_range_len)
        s->max_range_len = m->hi - m->lo;
    return 0;
}

static int ot_range_cmp(const void *a, const void *b)
{
    const ot_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return (x->module > y->module) - (x->module < y->module);
}

/** Sort for binary search and drop what an earlier snapshot already gave. */
static void ot_ranges_finish(ot_symbolizer *s)
{
    if (s->range_count == 0)
        return;
    qsort(s->ranges, s->range_count, sizeof *s->ranges, ot_range_cmp);
    size_t kept = 1;
    for (size_t i = 1; i < s->range_count; i++) {
        if (ot_range_cmp(&s->ranges[i], &s->ranges[kept - 1]) != 0)
            s->ranges[kept++] = s->ranges[i];
    }
    s->range_count = kept;
}

static const ot_range *ot_range_find(const ot_symbolizer *s, uint64_t pc)
{
    size_t lo = 0, hi = s->range_count; /* first range with lo > pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ranges[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Snapshots may disagree (dlclose, then another library at the same
     * place), so walk back over every range that could still contain pc. */
    for (size_t i = lo; i-- > 0;) {
        const ot_range *r = &s->ranges[i];
        if (pc < r->hi)
            return r;
        if (pc - r->lo >= s->max_range_len)
            break;
    }
    return NULL;
}

/* ----------------------------------------------------------------- cache */

static ot_cache_slot *ot_cache_slot_for(ot_cache_slot *table, size_t cap, uint64_t addr)
{
    size_t mask = cap - 1;
    size_t i = (size_t)((addr * 0x9E3779B97F4A7C15ull) >> 17) & mask;
    while (table[i].addr != 0 && table[i].addr != addr)
        i = (i + 1) & mask;
    return &table[i];
}

static int ot_cache_grow(ot_symbolizer *s)
{
    size_t cap = s->cache_cap ? s->cache_cap * 2 : 256;
    ot_cache_slot *table = calloc(cap, sizeof *table);
    if (!table)
        return -ENOMEM;
    for (size_t i = 0; i < s->cache_cap; i++) {
        if (s->cache[i].addr != 0)
            *ot_cache_slot_for(table, cap, s->cache[i].addr) = s->cache[i];
    }
    free(s->cache);
    s->cache = table;
    s->cache_cap = cap;
    return 0;
}

/** A failed insert only costs a later recomputation, so it is not an error. */
static void ot_cache_put(ot_symbolizer *s, uint64_t addr, int status, const ot_srcloc *loc)
{
    if ((s->cache_used + 1) * 2 > s->cache_cap && ot_cache_grow(s) != 0)
        return;
    ot_cache_slot *slot = ot_cache_slot_for(s->cache, s->cache_cap, addr);
    if (slot->addr == 0)
        s->cache_used++;
    *slot = (ot_cache_slot){addr, status, *loc};
}

static void ot_cache_clear(ot_symbolizer *s)
{
    if (s->cache)
        memset(s->cache, 0, s->cache_cap * sizeof *s->cache);
    s->cache_used = 0;
}

/* ------------------------------------------------------------- elfutils */

static int ot_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       char **file_name, Elf **elfp)
{
    /* Every module is reported with its file; never go looking (the
     * build-id search may end in a debuginfod download). */
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
    return -1;
}

static int ot_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                             Dwarf_Addr base, const char *file_name, const char *debuglink,
                             GElf_Word crc, char **debuginfo_file_name)
{
    /* The standard search ends with a debuginfod download whenever
     * DEBUGINFOD_URLS is set (some distributions set it system-wide); at the exit
     * of the traced program that can block for minutes, so then only the
     * local build-id tree (where -dbgsym packages install) is searched. */
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (urls && *urls)
        return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink,
                                            crc, debuginfo_file_name);
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink, crc,
                                        debuginfo_file_name);
}

static char *ot_debuginfo_path;

static const Dwfl_Callbacks ot_callbacks = {
    .find_elf = ot_find_elf,
    .find_debuginfo = ot_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &ot_debuginfo_path,
};

/** Is the file at the path still the one that was mapped? */
static int ot_module_file_check(const ot_module *m)
{
    struct stat st;
    if (m->deleted)
        return -ESTALE; /* unlinked while mapped: the path now names another file */
    if (stat(m->path, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -ENOEXEC;
    /* Same filesystem, other inode: rebuilt since the snapshot, and its lines
     * would be wrong. Another device proves nothing (overlayfs shows the
     * lower layer's device in maps), so then the path is trusted. */
    if (m->inode != 0 && major(st.st_dev) == m->dev_major && minor(st.st_dev) == m->dev_minor &&
        st.st_ino != m->inode)
        return -ESTALE;
    return 0;
}

static int ot_module_open(ot_module *m)
{
    if (m->state != 0)
        return m->state > 0 ? 0 : m->state;
    int rc = ot_module_file_check(m);
    Dwfl *dwfl = NULL;
    if (rc == 0 && !(dwfl = dwfl_begin(&ot_callbacks)))
        rc = -ENOMEM;
    if (rc == 0) {
        dwfl_report_begin(dwfl);
        /* add_p_vaddr false: base is where the first PT_LOAD landed, and
         * dwfl derives the bias from it (ignored for ET_EXEC). */
        m->mod = dwfl_report_elf(dwfl, m->path, m->path, -1, m->base, false);
        if (dwfl_report_end(dwfl, NULL, NULL) != 0 || !m->mod) {
            dwfl_end(dwfl);
            m->mod = NULL;
            rc = -ENOEXEC;
        } else {
            m->dwfl = dwfl;
        }
    }
    m->state = rc == 0 ? 1 : rc;
    return rc;
}

/* ------------------------------------------------------- raw ELF reading */

static uint32_t ot_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ot_le64(const unsigned char *p)
{
    return (uint64_t)ot_le32(p) | (uint64_t)ot_le32(p + 4) << 32;
}

/** The file contents at file address `addr`: bytes after it, and before it in its section. */
static const unsigned char *ot_elf_at(Elf *elf, GElf_Addr addr, size_t *after, size_t *before)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
            addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
            continue;
        Elf_Data *data = elf_rawdata(scn, NULL);
        size_t off = addr - sh.sh_addr;
        if (!data || !data->d_buf || off >= data->d_size)
            return NULL;
        *after = data->d_size - off;
        if (before)
            *before = off;
        return (const unsigned char *)data->d_buf + off;
    }
    return NULL;
}

/** The relocation types that can state a pointer to the object's own data. */
typedef struct ot_reloc_types {
    unsigned relative, glob_dat, abs64;
} ot_reloc_types;

/** Only 64-bit little-endian objects are read for pointers and code. */
static bool ot_elf_reloc_types(Elf *elf, ot_reloc_types *t)
{
    GElf_Ehdr eh;
    if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return false;
    switch (eh.e_machine) {
    case EM_X86_64:
        *t = (ot_reloc_types){R_X86_64_RELATIVE, R_X86_64_GLOB_DAT, R_X86_64_64};
        return true;
    case EM_AARCH64:
        *t = (ot_reloc_types){R_AARCH64_RELATIVE, R_AARCH64_GLOB_DAT, R_AARCH64_ABS64};
        return true;
    case EM_PPC64:
        *t = (ot_reloc_types){R_PPC64_RELATIVE, R_PPC64_GLOB_DAT, R_PPC64_ADDR64};
        return true;
    default:
        return false;
    }
}

/** A defined symbol's value; undefined ones live in another module. */
static bool ot_elf_symbol_value(Elf *elf, size_t symtab, size_t index, GElf_Addr *value)
{
    Elf_Scn *scn = elf_getscn(elf, symtab);
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    GElf_Sym sym;
    if (!data || index > INT_MAX || !gelf_getsym(data, (int)index, &sym) ||
        sym.st_shndx == SHN_UNDEF)
        return false;
    *value = sym.st_value;
    return true;
}

/** What the dynamic relocation at `addr`, if any, will store there. */
static bool ot_elf_reloc_value(Elf *elf, const ot_reloc_types *t, GElf_Addr addr, GElf_Addr *value)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
            !(data = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i <= INT_MAX; i++) {
            GElf_Rela rela;
            if (!gelf_getrela(data, (int)i, &rela) || rela.r_offset != addr)
                continue;
            unsigned type = (unsigned)GELF_R_TYPE(rela.r_info);
            if (type == t->relative) {
                *value = (GElf_Addr)rela.r_addend;
                return true;
            }
            if ((type == t->glob_dat || type == t->abs64) &&
                ot_elf_symbol_value(elf, sh.sh_link, GELF_R_SYM(rela.r_info), value)) {
                *value += (GElf_Addr)rela.r_addend;
                return true;
            }
            return false;
        }
    }
    return false;
}

/**
 * A pointer stored at `addr`. A PIE or library holds it as a dynamic
 * relocation: ld.bfd also writes the value into the file, lld leaves 0 there,
 * and a GOT slot holds 0 until the symbol is bound.
 */
static bool ot_elf_pointer(Elf *elf, GElf_Addr addr, GElf_Addr *value)
{
    ot_reloc_types types;
    size_t after;
    const unsigned char *p = ot_elf_at(elf, addr, &after, NULL);
    if (!p || after < 8 || !ot_elf_reloc_types(elf, &types))
        return false;
    *value = ot_le64(p);
    return *value != 0 || ot_elf_reloc_value(elf, &types, addr, value);
}

/** The name of the symbol a dynamic relocation at `addr` binds (a PLT or
 *  GOT slot), or NULL. */
static const char *ot_elf_reloc_symbol(Elf *elf, GElf_Addr addr)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh, symsh;
        Elf_Data *data, *syms;
        Elf_Scn *symscn;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
            !(data = elf_getdata(scn, NULL)) || !(symscn = elf_getscn(elf, sh.sh_link)) ||
            !gelf_getshdr(symscn, &symsh) || !(syms = elf_getdata(symscn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && i <= INT_MAX; i++) {
            GElf_Rela rela;
            GElf_Sym sym;
            if (!gelf_getrela(data, (int)i, &rela) || rela.r_offset != addr)
                continue;
            size_t index = GELF_R_SYM(rela.r_info);
            if (index == 0 || index > INT_MAX || !gelf_getsym(syms, (int)index, &sym))
                return NULL;
            return elf_strptr(elf, symsh.sh_link, sym.st_name);
        }
    }
    return NULL;
}

/* ---------------------------------------------------------- kernel index */

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
        ot_reserve(m->kernels, &m->kernel_cap, m->kernel_count + 1, sizeof *kernels);
    if (!kernels)
        return -ENOMEM;
    m->kernels = kernels;
    const char *name = ot_strndup(s, sym, len);
    if (!name)
        return -ENOMEM;
    m->kernels[m->kernel_count++] = (ot_kernel){name, name + head, region_id};
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
        if (!ot_elf_pointer(elf, entry + at_name, &name_addr))
            continue;
        ot_elf_pointer(elf, entry + at_addr, &region);
        const char *name = (const char *)ot_elf_at(elf, name_addr, &after, NULL);
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
    if (!elf || !ot_elf_reloc_types(elf, &types) || elf_getshdrstrndx(elf, &shstrndx) != 0)
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
static int ot_module_index_kernels(ot_symbolizer *s, ot_module *m)
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
static const ot_kernel *ot_kernel_find(const ot_module *m, const char *fn, size_t len,
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
static bool ot_tail_split(const char *tail, size_t *fn_len, unsigned *line)
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

/* ------------------------------------------------------------- CU index */

static int ot_cu_range_cmp(const void *a, const void *b)
{
    const ot_cu_range *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

static int ot_index_cu_ranges(ot_module *m, Dwarf_Die *cu)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
        if (lo == 0 || lo >= hi)
            continue; /* code the linker discarded lands at 0 */
        ot_cu_range *cus = ot_reserve(m->cus, &m->cu_cap, m->cu_count + 1, sizeof *cus);
        if (!cus)
            return -ENOMEM;
        m->cus = cus;
        m->cus[m->cu_count++] = (ot_cu_range){lo, hi, *cu};
    }
    return 0;
}

/** Once per module, and only when dwfl cannot place an address in a CU. */
static void ot_module_index_cus(ot_module *m)
{
    if (m->cus_indexed)
        return;
    m->cus_indexed = true; /* on ENOMEM keep what was found */
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(m->mod, &bias);
    Dwarf_CU *cu = NULL, *next;
    Dwarf_Half version;
    uint8_t type;
    Dwarf_Die die, sub;
    while (dw && dwarf_get_units(dw, cu, &next, &version, &type, &die, &sub) == 0) {
        cu = next;
        if (type != DW_UT_type && type != DW_UT_split_type && ot_index_cu_ranges(m, &die) != 0)
            break;
    }
    if (m->cu_count > 1)
        qsort(m->cus, m->cu_count, sizeof *m->cus, ot_cu_range_cmp);
}

/**
 * The CU holding pc. dwfl finds it through .debug_aranges, which clang only
 * emits when asked (-gdwarf-aranges) and elfutils 0.188 does not
 * derive from the CUs, so the CUs' own ranges are the fallback.
 */
static Dwarf_Die *ot_module_cu(ot_module *m, uint64_t pc, Dwarf_Addr *bias, Dwarf_Die *mem)
{
    Dwarf_Die *die = dwfl_module_addrdie(m->mod, pc, bias);
    if (die)
        return die;
    ot_module_index_cus(m);
    if (m->cu_count == 0 || !dwfl_module_getdwarf(m->mod, bias))
        return NULL;
    Dwarf_Addr rel = pc - *bias;
    size_t lo = 0, hi = m->cu_count; /* first range with lo > rel */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->cus[mid].lo <= rel)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || rel >= m->cus[lo - 1].hi)
        return NULL;
    *mem = m->cus[lo - 1].die;
    return mem;
}

/* ---------------------------------------------- call-site scan (x86-64) */

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

/** clang's `;file;function;line;column;;` ("unknown" and 0 without -g). */
static bool ot_psource_parse(const char *text, ot_psource *ps)
{
    const char *file = text + 1, *function, *line;
    if (text[0] != ';' || !(function = strchr(file, ';')) || !(line = strchr(++function, ';')))
        return false;
    line++;
    char *end;
    unsigned long number = isdigit((unsigned char)*line) ? strtoul(line, &end, 10) : 0;
    if (number == 0 || number > UINT_MAX || *end != ';' || strncmp(file, "unknown;", 8) == 0)
        return false;
    *ps = (ot_psource){file, function, (size_t)(function - 1 - file),
                       (size_t)(line - 1 - function), (unsigned)number};
    return ps->file_len > 0 && ps->function_len > 0;
}

/** clang's ident_t: i32 reserved (0), flags, reserved, strlen(psource); then
 *  the psource pointer. The length check rejects look-alikes such as the
 *  arrays of map-clause names. */
static const char *ot_ident_psource(Elf *elf, GElf_Addr ident)
{
    size_t after;
    GElf_Addr str;
    const unsigned char *p = ot_elf_at(elf, ident, &after, NULL);
    if (!p || after < 24 || ot_le32(p) != 0 || !ot_elf_pointer(elf, ident + 16, &str))
        return NULL;
    uint32_t len = ot_le32(p + 12);
    const char *text = (const char *)ot_elf_at(elf, str, &after, NULL);
    if (!text || len == 0 || len >= after || text[len] != '\0' || strlen(text) != len ||
        text[0] != ';')
        return NULL;
    return text;
}

static const ot_kernel *ot_kernel_by_region(const ot_module *m, GElf_Addr region_id)
{
    for (size_t i = 0; i < m->kernel_count; i++) {
        if (region_id != 0 && m->kernels[i].region_id == region_id)
            return &m->kernels[i];
    }
    return NULL;
}

/** Length of the call instruction that ends at `end` (exclusive): a
 *  direct call, or one through the GOT (-fno-plt); 0 if neither. */
static size_t ot_call_length(const unsigned char *end, size_t before)
{
    if (before >= 5 && end[-5] == 0xe8)
        return 5;
    if (before >= 6 && end[-6] == 0xff && end[-5] == 0x15)
        return 6;
    return 0;
}

enum { OT_RDI = 7, OT_R8 = 8, OT_RIP_LOAD = 7 /* bytes */ };

/** `lea d(%rip),%reg` or `mov d(%rip),%reg` (a GOT load) at p: the register,
 *  else -1. */
static int ot_rip_load(const unsigned char *p, bool *is_lea)
{
    if ((p[0] & 0xFB) != 0x48 || (p[2] & 0xC7) != 0x05 || (p[1] != 0x8d && p[1] != 0x8b))
        return -1;
    *is_lea = p[1] == 0x8d;
    return ((p[0] & 4) << 1) | ((p[2] >> 3) & 7);
}

/** `mov %src,%dst` (64-bit) at p: src, else -1. */
static int ot_reg_move_to(const unsigned char *p, int dst)
{
    if ((p[0] & 0xF8) != 0x48 || (p[2] & 0xC0) != 0xC0)
        return -1;
    int reg = ((p[0] & 4) << 1) | ((p[2] >> 3) & 7), rm = ((p[0] & 1) << 3) | (p[2] & 7);
    if (p[1] == 0x89 && rm == dst)
        return reg;
    if (p[1] == 0x8b && reg == dst)
        return rm;
    return -1;
}

/** The code before a call, as the scan sees it. */
typedef struct ot_code {
    Elf *elf;
    const unsigned char *start; /**< first byte of the call */
    GElf_Addr start_addr;       /**< its file address */
    size_t span;                /**< readable bytes before it */
} ot_code;

/** The address the RIP-relative load `dist` bytes before the call yields. */
static bool ot_rip_value(const ot_code *code, size_t dist, bool is_lea, GElf_Addr *value)
{
    const unsigned char *p = code->start - dist;
    GElf_Addr target = code->start_addr - dist + OT_RIP_LOAD + (int64_t)(int32_t)ot_le32(p + 3);
    if (is_lea) {
        *value = target;
        return true;
    }
    return ot_elf_pointer(code->elf, target, value);
}

/** What was last loaded into `reg` before `from` (a distance from the call),
 *  when the compiler hoisted the load out of a loop into that register. */
static bool ot_chase_register(const ot_code *code, size_t from, int reg, GElf_Addr *value)
{
    for (size_t dist = from + OT_RIP_LOAD; dist <= code->span; dist++) {
        bool is_lea;
        if (ot_rip_load(code->start - dist, &is_lea) == reg)
            return ot_rip_value(code, dist, is_lea, value);
    }
    return false;
}

/** An argument register's value: the address it was loaded with, found
 *  directly (`chained` false) or through a register it was copied from. */
typedef struct ot_arg {
    GElf_Addr value;
    int from_reg; /**< copied from this register at `at`, -1 if not */
    size_t at;
    bool chained;
} ot_arg;

/** Walk back from the call to where %rdi, the ident, is set (any write to
 *  it ends the walk: what precedes was set up for an earlier call) and,
 *  close to the call, %r8. */
static void ot_scan_arguments(const ot_code *code, ot_arg *ident, ot_arg *region)
{
    enum { REGION_WINDOW = 48, IDENT_WINDOW = 192 };
    size_t limit = code->span < IDENT_WINDOW ? code->span : IDENT_WINDOW;
    for (size_t dist = 3; dist <= limit; dist++) {
        const unsigned char *p = code->start - dist;
        bool is_lea = false;
        bool near = dist <= REGION_WINDOW && !region->value && region->from_reg < 0;
        int loaded = dist >= OT_RIP_LOAD ? ot_rip_load(p, &is_lea) : -1;
        int src;
        if (loaded == OT_R8 && near) {
            ot_rip_value(code, dist, is_lea, &region->value);
        } else if (loaded == OT_RDI) {
            GElf_Addr value;
            if (ot_rip_value(code, dist, is_lea, &value) && ot_ident_psource(code->elf, value))
                ident->value = value;
            return;
        } else if (near && (src = ot_reg_move_to(p, OT_R8)) >= 0) {
            *region = (ot_arg){.from_reg = src, .at = dist};
        } else if ((src = ot_reg_move_to(p, OT_RDI)) >= 0) {
            *ident = (ot_arg){.from_reg = src, .at = dist};
            return;
        }
    }
}

/**
 * The function a call goes to: through a PLT stub (`jmp *slot(%rip)`) or
 * straight through the GOT (-fno-plt), the symbol bound to the slot; else
 * the module's own symbol at the target. NULL when not known.
 */
static const char *ot_callee(const ot_module *m, const ot_code *code, size_t call, GElf_Addr bias)
{
    const unsigned char *p = code->start;
    if (call == 6) { /* call *slot(%rip) */
        GElf_Addr slot = code->start_addr + 6 + (int64_t)(int32_t)ot_le32(p + 2);
        return ot_elf_reloc_symbol(code->elf, slot);
    }
    GElf_Addr target = code->start_addr + 5 + (int64_t)(int32_t)ot_le32(p + 1);
    size_t after;
    const unsigned char *stub = ot_elf_at(code->elf, target, &after, NULL);
    for (size_t i = 0; stub && i < 16 && i + 6 <= after; i++) {
        if (stub[i] != 0xff || stub[i + 1] != 0x25)
            continue;
        GElf_Addr slot = target + i + 6 + (int64_t)(int32_t)ot_le32(stub + i + 2);
        const char *name = ot_elf_reloc_symbol(code->elf, slot);
        if (name)
            return name;
        break;
    }
    return dwfl_module_addrname(m->mod, target + bias);
}

/**
 * What a call into libomptarget itself says. clang passes every entry the
 * construct's `ident_t` in %rdi (its psource names the pragma's file,
 * function and line) and __tgt_target_kernel the region's `.region_id`
 * address in %r8, loaded RIP-relative just before the call, or, in a loop,
 * once before the loop into registers that are copied at each call. x86
 * cannot be disassembled backwards, so the bytes are searched for these
 * encodings, and only targets that check out count: a known region id; an
 * ident whose psource length matches. The first write to %rdi ends the
 * search (what precedes it was set up for earlier calls). What was found
 * through a copied register must agree: the kernel's line is the psource's.
 */
static void ot_scan_call_site(const ot_module *m, uint64_t pc, uint64_t in_function,
                              ot_call_site *site)
{
    GElf_Addr bias;
    GElf_Ehdr eh;
    Elf *elf = dwfl_module_getelf(m->mod, &bias);
    if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)
        return;
    size_t after, before;
    const unsigned char *last = ot_elf_at(elf, pc - bias, &after, &before);
    size_t call = last ? ot_call_length(last + 1, before + 1) : 0;
    if (call == 0 || call > in_function + 1)
        return;
    size_t span = before + 1 - call; /* within the section and the function */
    if (span > in_function + 1 - call)
        span = in_function + 1 - call;
    ot_code code = {elf, last + 1 - call, pc - bias + 1 - call, span < 16384 ? span : 16384};
    const char *callee = ot_callee(m, &code, call, bias);
    if (!callee || strncmp(callee, "__tgt_", 6) != 0)
        return; /* only libomptarget's entries are passed an ident */
    ot_arg ident = {.from_reg = -1}, region = {.from_reg = -1};
    ot_scan_arguments(&code, &ident, &region);
    ident.chained = ident.from_reg >= 0 &&
                    ot_chase_register(&code, ident.at, ident.from_reg, &ident.value);
    region.chained = region.from_reg >= 0 &&
                     ot_chase_register(&code, region.at, region.from_reg, &region.value);
    const char *psource = ident.value ? ot_ident_psource(elf, ident.value) : NULL;
    site->has_source = psource && ot_psource_parse(psource, &site->source);
    site->kernel = ot_kernel_by_region(m, region.value);
    if (!ident.chained && !region.chained)
        return;
    size_t fn_len;
    unsigned line;
    if (!site->has_source || !site->kernel || !ot_tail_split(site->kernel->tail, &fn_len, &line) ||
        line != site->source.line) {
        site->has_source = site->has_source && !ident.chained;
        site->kernel = region.chained ? NULL : site->kernel;
    }
}

/* -------------------------------------------------------- address lookup */

static void ot_candidates_add(ot_candidates *c, const char *name, size_t len, unsigned line)
{
    if (name && len > 0 && c->n < OT_MAX_CANDIDATES)
        c->c[c->n++] = (ot_candidate){name, len, line};
}

static const char *ot_linkage_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (!name)
        name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    return name;
}

static bool ot_is_artificial(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    bool flag = false;
    return dwarf_formflag(dwarf_attr_integrate(die, DW_AT_artificial, &attr), &flag) == 0 && flag;
}

/**
 * Length of the user function's name inside a compiler-made one: clang
 * outlines an `omp parallel` body into an artificial `<caller>.omp_outlined`
 * (C++: the caller's mangled name) that is not nested in the caller's DIE,
 * while the kernel and the user both know the caller. 0 when not such.
 */
static size_t ot_outlined_caller_len(Dwarf_Die *die, const char *name)
{
    if (!name || !ot_is_artificial(die))
        return 0;
    size_t len = strcspn(name, ".");
    return name[len] == '.' ? len : 0;
}

/**
 * Visit the CU's function definitions, also those inside namespaces and
 * classes. dwarf_getscopes() is not used because elfutils prunes DIEs without
 * addresses, namespaces included, so C++ functions in a namespace are missed.
 */
static bool ot_walk_functions(Dwarf_Die *parent, bool (*visit)(Dwarf_Die *, void *), void *arg,
                              int depth)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(parent, &child) != 0)
        return false;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram && visit(&child, arg))
            return true;
        if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
             tag == DW_TAG_union_type || tag == DW_TAG_module) &&
            ot_walk_functions(&child, visit, arg, depth + 1))
            return true;
    } while (dwarf_siblingof(&child, &child) == 0);
    return false;
}

struct ot_func_search {
    Dwarf_Addr pc;    /**< by address, or */
    const char *want; /**< by name or linkage name, want[0..len) */
    size_t len;
    Dwarf_Die found;
};

static bool ot_name_is(const char *name, const char *want, size_t len)
{
    return name && strncmp(name, want, len) == 0 && name[len] == '\0';
}

static bool ot_visit_named(Dwarf_Die *die, void *arg)
{
    struct ot_func_search *fs = arg;
    if (!ot_name_is(dwarf_diename(die), fs->want, fs->len) &&
        !ot_name_is(ot_linkage_name(die), fs->want, fs->len))
        return false;
    fs->found = *die;
    return true;
}

static bool ot_visit_pc(Dwarf_Die *die, void *arg)
{
    struct ot_func_search *fs = arg;
    if (dwarf_haspc(die, fs->pc) <= 0)
        return false;
    fs->found = *die;
    return true;
}

/** The child of `die` whose range holds pc and that may hold inlined code. */
static bool ot_inner_scope(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *inner)
{
    if (dwarf_child(die, inner) != 0)
        return false;
    do {
        int tag = dwarf_tag(inner);
        if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block ||
             tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
            dwarf_haspc(inner, pc) > 0)
            return true;
    } while (dwarf_siblingof(inner, inner) == 0);
    return false;
}

/** Function scopes holding pc, innermost first: inlined subroutines, then
 *  the concrete function. Returns how many. */
static int ot_function_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *scopes, int max)
{
    struct ot_func_search fs = {.pc = pc};
    if (max <= 0 || !ot_walk_functions(cu, ot_visit_pc, &fs, 0))
        return 0;
    int n = 0;
    scopes[n++] = fs.found;
    Dwarf_Die cur = fs.found, inner;
    while (n < max && ot_inner_scope(&cur, pc, &inner)) {
        if (dwarf_tag(&inner) == DW_TAG_inlined_subroutine)
            scopes[n++] = inner;
        cur = inner;
    }
    for (int i = 0; i < n / 2; i++) { /* outermost first -> innermost first */
        Dwarf_Die t = scopes[i];
        scopes[i] = scopes[n - 1 - i];
        scopes[n - 1 - i] = t;
    }
    return n;
}

/** The name to show for the innermost function scope of the address. */
static const char *ot_scope_display_name(ot_symbolizer *s, Dwarf_Die *cu, Dwarf_Die *die)
{
    const char *name = dwarf_diename(die);
    size_t len = ot_outlined_caller_len(die, name);
    if (len == 0)
        return name;
    struct ot_func_search fs = {.want = name, .len = len};
    const char *source_name = NULL; /* mangled -> source name */
    if (ot_walk_functions(cu, ot_visit_named, &fs, 0) && (source_name = dwarf_diename(&fs.found)))
        return source_name;
    const char *copy = ot_strndup(s, name, len);
    return copy ? copy : name;
}

static void ot_scope_candidates(Dwarf_Die *die, unsigned line, ot_candidates *c)
{
    const char *linkage = ot_linkage_name(die);
    const char *name = dwarf_diename(die);
    if (linkage)
        ot_candidates_add(c, linkage, strlen(linkage), line);
    if (name && (!linkage || strcmp(name, linkage) != 0)) {
        size_t caller = ot_outlined_caller_len(die, name);
        ot_candidates_add(c, name, caller ? caller : strlen(name), line);
    }
}

static unsigned ot_call_line(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Word line = 0;
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &line) != 0)
        return 0;
    return (unsigned)line;
}

/**
 * `function` is the innermost function scope, inlined or not, rather than the
 * concrete function the code was inlined into: the line table gives the
 * inlined code's own file:line, so a label must name the function that line
 * is in; and that is the function whose (linkage) name LLVM put into the
 * kernel entry, since the pragma sits in its body.
 */
static void ot_set_function(ot_symbolizer *s, Dwarf_Die *cu, Dwarf_Die *scope, Dwarf_Addr bias,
                            uint64_t ra, ot_srcloc *out)
{
    const char *name = ot_scope_display_name(s, cu, scope);
    Dwarf_Addr entry;
    if (!name)
        return; /* keep the ELF symbol */
    out->function = name;
    out->function_offset = 0;
    if (dwarf_entrypc(scope, &entry) == 0 && entry + bias < ra)
        out->function_offset = ra - (entry + bias);
}

/** The function, and the kernel-name candidates: every function scope from
 *  the innermost out, each at the line in it (the call line of the scope
 *  inlined into it), in case the line table was coarser than the pragma. */
static void ot_resolve_scopes(ot_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr rel, Dwarf_Addr bias,
                              uint64_t ra, ot_srcloc *out, ot_candidates *c)
{
    Dwarf_Die scopes[OT_MAX_SCOPES];
    int n = ot_function_scopes(cu, rel, scopes, OT_MAX_SCOPES);
    if (n > 0)
        ot_set_function(s, cu, &scopes[0], bias, ra, out);
    unsigned line = out->line;
    for (int i = 0; i < n; i++) {
        ot_scope_candidates(&scopes[i], line, c);
        line = ot_call_line(&scopes[i]); /* where scopes[i + 1] calls it */
    }
}

static void ot_resolve_line(Dwarf_Die *cu, Dwarf_Addr rel, ot_srcloc *out)
{
    Dwarf_Line *dl = dwarf_getsrc_die(cu, rel);
    const char *file = dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
    int line = 0;
    if (file && dwarf_lineno(dl, &line) == 0 && line > 0) {
        out->file = file;
        out->line = (unsigned)line;
    }
}

/** psource names the file as the compiler was given it: anchor it at the
 *  CU's directory, as the line table does. */
static const char *ot_psource_path(ot_symbolizer *s, Dwarf_Die *cu, const ot_psource *ps)
{
    Dwarf_Attribute attr;
    const char *dir = NULL;
    if (cu && ps->file[0] != '/')
        dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
    if (!dir)
        return ot_strndup(s, ps->file, ps->file_len);
    size_t dir_len = strlen(dir);
    char *path = ot_str_new(s, dir_len + 1 + ps->file_len);
    if (path) {
        memcpy(path, dir, dir_len);
        path[dir_len] = '/';
        memcpy(path + dir_len + 1, ps->file, ps->file_len);
    }
    return path;
}

/**
 * The kernel launched here: the region id passed to the call names it
 * exactly. Else by name: with the call's own psource, the DWARF names (mangled
 * in C++, where psource has the qualified name) at the psource line. Without
 * it, every function scope at its own line, or the line above: the line
 * table often names the construct's loop rather than its pragma. (Not two:
 * a `target update` right after a one-line region would take its kernel.)
 * `pragma` is then set to the pragma's line if the innermost scope matched.
 */
static const ot_kernel *ot_choose_kernel(const ot_module *m, const ot_call_site *site,
                                         const ot_candidates *c, unsigned *pragma)
{
    if (site->kernel)
        return site->kernel;
    const ot_psource *ps = site->has_source ? &site->source : NULL;
    const ot_kernel *k = ps ? ot_kernel_find(m, ps->function, ps->function_len, ps->line) : NULL;
    for (size_t i = 0; i < c->n && !k; i++) {
        unsigned line = ps ? ps->line : c->c[i].line;
        for (unsigned up = 0; up <= (ps ? 0 : 1) && up < line && !k; up++) {
            k = ot_kernel_find(m, c->c[i].name, c->c[i].len, line - up);
            if (k && !ps && line == c->c[0].line)
                *pragma = line - up;
        }
    }
    return k;
}

/** The construct's own location, which beats the line table: clang hangs
 *  the offload setup code on neighbouring lines. */
static void ot_apply_psource(ot_symbolizer *s, Dwarf_Die *cu, const ot_psource *ps,
                             ot_srcloc *out)
{
    const char *file = ot_psource_path(s, cu, ps);
    const char *function = ot_strndup(s, ps->function, ps->function_len);
    if (!file || !function)
        return;
    out->file = file;
    out->line = ps->line;
    out->function = function; /* where the pragma is, even if inlined */
    out->function_offset = 0;
}

/** Where `die` is declared. dwarf_decl_file() of elfutils 0.188 takes file 0
 *  for "none", but in DWARF 5 it is the CU's primary source file. */
static const char *ot_decl_file(Dwarf_Die *cu, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Word index;
    Dwarf_Files *files;
    size_t count;
    if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &index) != 0 ||
        dwarf_getsrcfiles(cu, &files, &count) != 0 || index >= count)
        return NULL;
    return dwarf_filesrc(files, index, NULL, NULL);
}

/**
 * A kernel launch nothing else could place (no line, no psource: the ident
 * was kept in another register): the entry name says which function holds
 * the pragma, and at what line; DWARF says where that function is.
 */
static void ot_locate_from_kernel(Dwarf_Die *cu, const ot_kernel *k, ot_srcloc *out)
{
    size_t fn_len;
    unsigned line;
    if (!cu || !ot_tail_split(k->tail, &fn_len, &line))
        return;
    struct ot_func_search fs = {.want = k->tail, .len = fn_len};
    if (!ot_walk_functions(cu, ot_visit_named, &fs, 0))
        return;
    const char *file = ot_decl_file(cu, &fs.found);
    const char *function = dwarf_diename(&fs.found);
    if (!file || !function)
        return;
    out->file = file;
    out->line = line;
    out->function = function;
    out->function_offset = 0;
}

static void ot_resolve(ot_symbolizer *s, ot_module *m, uint64_t ra, ot_srcloc *out)
{
    uint64_t pc = ra - 1; /* inside the call instruction, not after it */
    out->module = m->path;
    out->module_offset = ra - m->base;
    if (ot_module_open(m) != 0)
        return; /* module+offset is all there is */

    GElf_Off off;
    GElf_Sym sym;
    const char *symbol = dwfl_module_addrinfo(m->mod, pc, &off, &sym, NULL, NULL, NULL);
    if (symbol && *symbol) {
        out->function = symbol;
        out->function_offset = off + 1;
    }
    ot_candidates c = {.n = 0};
    Dwarf_Addr bias;
    Dwarf_Die cu_mem, *cu = ot_module_cu(m, pc, &bias, &cu_mem);
    if (cu) {
        ot_resolve_line(cu, pc - bias, out);
        ot_resolve_scopes(s, cu, pc - bias, bias, ra, out, &c);
    }
    if (c.n == 0 && symbol && *symbol) {
        size_t len = strcspn(symbol, "."); /* `work.omp_outlined`, `f.cold` */
        ot_candidates_add(&c, symbol, len ? len : strlen(symbol), out->line);
    }
    if (ot_module_index_kernels(s, m) != 0)
        return;
    ot_call_site site = {0};
    ot_scan_call_site(m, pc, symbol ? off : UINT64_MAX - 1, &site);
    if (site.has_source)
        ot_apply_psource(s, cu, &site.source, out);
    unsigned pragma = 0;
    const ot_kernel *kernel = ot_choose_kernel(m, &site, &c, &pragma);
    if (kernel) {
        out->kernel = kernel->name;
        if (pragma && out->line)
            out->line = pragma;
        if (out->line == 0)
            ot_locate_from_kernel(cu, kernel, out);
    }
}

/* -------------------------------------------------------------- public API */

ot_symbolizer *ot_symbolizer_open(void)
{
    return calloc(1, sizeof(ot_symbolizer));
}

int ot_symbolizer_add_maps(ot_symbolizer *s, const char *maps_path)
{
    if (!s || !maps_path)
        return -EINVAL;
    FILE *f = fopen(maps_path, "re");
    if (!f)
        return -errno;
    ot_base_table bases = {0};
    char *line = NULL;
    size_t cap = 0, parsed = 0;
    int rc = 0;
    errno = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        ot_maps_line m;
        if (!ot_parse_maps_line(line, &m))
            continue; /* a snapshot cut short by a crash ends in half a line */
        parsed++;
        rc = ot_maps_take(s, &bases, &m);
    }
    if (rc == 0 && ferror(f))
        rc = errno ? -errno : -EIO; /* e.g. EISDIR */
    if (rc == 0 && parsed == 0)
        rc = -EINVAL;
    free(line);
    fclose(f);
    ot_bases_free(&bases);
    ot_ranges_finish(s); /* also after a failure: keep the table searchable */
    ot_cache_clear(s);   /* earlier misses may now resolve */
    return rc;
}

int ot_symbolizer_lookup(ot_symbolizer *s, uint64_t return_address, ot_srcloc *out)
{
    if (!s || !out)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    if (return_address == 0)
        return -ENOENT;
    if (s->cache_cap) {
        const ot_cache_slot *slot = ot_cache_slot_for(s->cache, s->cache_cap, return_address);
        if (slot->addr == return_address) {
            *out = slot->loc;
            return slot->status;
        }
    }
    const ot_range *r = ot_range_find(s, return_address - 1);
    int status = r ? 0 : -ENOENT;
    if (r)
        ot_resolve(s, &s->modules[r->module], return_address, out);
    ot_cache_put(s, return_address, status, out);
    return status;
}

int ot_symbolizer_find_kernel(ot_symbolizer *s, const char *module_path, const char *function,
                              unsigned line, const char **kernel)
{
    if (kernel)
        *kernel = NULL;
    if (!s || !module_path || !function || !kernel)
        return -EINVAL;
    ot_module *m = NULL;
    for (size_t i = 0; i < s->module_count && !m; i++) {
        if (strcmp(s->modules[i].path, module_path) == 0 && ot_module_open(&s->modules[i]) == 0)
            m = &s->modules[i];
    }
    if (!m) { /* not mapped in any snapshot: open it at base 0 */
        ot_maps_line ml = {.path = (char *)module_path};
        size_t index;
        if (ot_module_get(s, &ml, 0, &index) != 0)
            return -ENOMEM;
        m = &s->modules[index];
        int rc = ot_module_open(m);
        if (rc != 0)
            return rc;
    }
    if (ot_module_index_kernels(s, m) != 0)
        return -ENOMEM;
    const ot_kernel *k = ot_kernel_find(m, function, strlen(function), line);
    *kernel = k ? k->name : NULL;
    return k ? 0 : -ENOENT;
}

int ot_srcloc_format(const ot_srcloc *loc, uint64_t return_address, char *buf, size_t size)
{
    if (!buf)
        size = 0;
    if (loc && loc->file && loc->line)
        return snprintf(buf, size, "%s:%u", ot_basename(loc->file), loc->line);
    if (loc && loc->function)
        return snprintf(buf, size, "%s+0x%" PRIx64, loc->function, loc->function_offset);
    if (loc && loc->module)
        return snprintf(buf, size, "%s+0x%" PRIx64, ot_basename(loc->module), loc->module_offset);
    return snprintf(buf, size, "0x%" PRIx64, return_address);
}

void ot_symbolizer_close(ot_symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->module_count; i++) {
        if (s->modules[i].dwfl)
            dwfl_end(s->modules[i].dwfl);
        free(s->modules[i].kernels);
        free(s->modules[i].cus);
        free(s->modules[i].path);
    }
    while (s->strings) {
        ot_str *next = s->strings->next;
        free(s->strings);
        s->strings = next;
    }
    free(s->modules);
    free(s->ranges);
    free(s->cache);
    free(s);
}

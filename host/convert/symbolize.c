/**
 * \file symbolize.c
 * \brief Return address -> file:line, function, offload kernel, with elfutils.
 *
 * Each module (one ELF file at one load base) gets its own Dwfl, opened on
 * the first lookup that lands in it: a traced process maps dozens of
 * libraries and OMPT return addresses fall in two or three of them.
 */
#define _GNU_SOURCE
#include "symbolize.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define OT_KERNEL_PREFIX "__omp_offloading_"
#define OT_MAX_CANDIDATES 32

/** A string handed out to callers; all are freed at close. */
typedef struct ot_str {
    struct ot_str *next;
    char text[];
} ot_str;

typedef struct ot_kernel {
    const char *name; /**< canonical entry name */
    const char *tail; /**< what follows `__omp_offloading_<dev>_<file>_` */
} ot_kernel;

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

static int ot_grow(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*array, n * elem);
    if (!p)
        return -ENOMEM;
    *array = p;
    *cap = n;
    return 0;
}

static const char *ot_strndup(ot_symbolizer *s, const char *text, size_t len)
{
    ot_str *str = malloc(sizeof *str + len + 1);
    if (!str)
        return NULL;
    memcpy(str->text, text, len);
    str->text[len] = '\0';
    str->next = s->strings;
    s->strings = str;
    return str->text;
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
    if (ot_grow((void **)&t->items, &t->cap, t->count + 1, sizeof *t->items) != 0)
        return -ENOMEM;
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
    if (ot_grow((void **)&s->modules, &s->module_cap, s->module_count + 1, sizeof *s->modules))
        return -ENOMEM;
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
    if (ot_grow((void **)&s->ranges, &s->range_cap, s->range_count + 1, sizeof *s->ranges))
        return -ENOMEM;
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
    return -1;
}

static int ot_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                             Dwarf_Addr base, const char *file_name, const char *debuglink,
                             GElf_Word crc, char **debuginfo_file_name)
{
    /* The standard search ends with a debuginfod download whenever
     * DEBUGINFOD_URLS is set (Debian sets it for login shells); at the exit
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
static int ot_kernel_add(ot_symbolizer *s, ot_module *m, const char *sym)
{
    static const char entry[] = ".offloading.entry.";
    static const char debug[] = "_debug__";
    if (strncmp(sym, entry, sizeof entry - 1) == 0)
        sym += sizeof entry - 1;
    else if (sym[0] == '.')
        sym++;
    size_t len = strcspn(sym, "."); /* identifiers and mangled names have no '.' */
    if (len > sizeof debug - 1 && memcmp(sym + len - (sizeof debug - 1), debug, sizeof debug - 1) == 0)
        len -= sizeof debug - 1;
    size_t head = ot_kernel_head_len(sym, len);
    if (head == 0)
        return 0;
    if (ot_grow((void **)&m->kernels, &m->kernel_cap, m->kernel_count + 1, sizeof *m->kernels) != 0)
        return -ENOMEM;
    const char *name = ot_strndup(s, sym, len);
    if (!name)
        return -ENOMEM;
    m->kernels[m->kernel_count++] = (ot_kernel){name, name + head};
    return 0;
}

static int ot_kernel_cmp(const void *a, const void *b)
{
    return strcmp(((const ot_kernel *)a)->name, ((const ot_kernel *)b)->name);
}

/** Once per module: its symbol table (symtab, else dynsym) is read here. */
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
            rc = ot_kernel_add(s, m, name);
    }
    if (m->kernel_count == 0)
        return rc;
    qsort(m->kernels, m->kernel_count, sizeof *m->kernels, ot_kernel_cmp);
    size_t kept = 1; /* the symbols of one kernel are now neighbours */
    for (size_t i = 1; i < m->kernel_count; i++) {
        if (strcmp(m->kernels[i].name, m->kernels[kept - 1].name) != 0)
            m->kernels[kept++] = m->kernels[i];
    }
    m->kernel_count = kept;
    return rc;
}

/** With a line: the first match. Without: only an unambiguous one. */
static const char *ot_kernel_find(const ot_module *m, const char *fn, size_t len, unsigned line)
{
    const char *found = NULL;
    for (size_t i = 0; i < m->kernel_count; i++) {
        if (!ot_tail_matches(m->kernels[i].tail, fn, len, line))
            continue;
        if (line != 0)
            return m->kernels[i].name;
        if (found)
            return NULL;
        found = m->kernels[i].name;
    }
    return found;
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

struct ot_func_search {
    const char *want;
    size_t len;
    const char *found;
};

static bool ot_name_is(const char *name, const char *want, size_t len)
{
    return name && strncmp(name, want, len) == 0 && name[len] == '\0';
}

static int ot_func_search_cb(Dwarf_Die *die, void *arg)
{
    struct ot_func_search *fs = arg;
    const char *name = dwarf_diename(die);
    if (ot_name_is(name, fs->want, fs->len) || ot_name_is(ot_linkage_name(die), fs->want, fs->len)) {
        fs->found = name;
        return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
}

/** The name to show for the innermost function scope of the address. */
static const char *ot_scope_display_name(ot_symbolizer *s, Dwarf_Die *cu, Dwarf_Die *die)
{
    const char *name = dwarf_diename(die);
    size_t len = ot_outlined_caller_len(die, name);
    if (len == 0)
        return name;
    struct ot_func_search fs = {name, len, NULL};
    dwarf_getfuncs(cu, ot_func_search_cb, &fs, 0); /* mangled -> source name */
    if (fs.found)
        return fs.found;
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
 * Function scopes from the innermost out. `function` is the innermost one,
 * inlined or not: the line table gives the inlined code's own file:line, and
 * a label must name the function that line is in. It is also the function
 * whose name LLVM put in the kernel entry, since the pragma sits in its body.
 * The callers (each at the call line of the scope inside it) are still
 * offered to the kernel match, in case the line table was coarser.
 */
static void ot_resolve_scopes(ot_symbolizer *s, ot_module *m, uint64_t pc, uint64_t ra,
                              ot_srcloc *out, ot_candidates *c)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(m->mod, pc, &bias);
    Dwarf_Die *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : -1;
    unsigned line = out->line;
    bool first = true;
    for (int i = 0; i < n; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
            continue;
        if (first) {
            const char *name = ot_scope_display_name(s, cu, &scopes[i]);
            Dwarf_Addr entry;
            if (name) {
                out->function = name;
                out->function_offset = 0;
                if (dwarf_entrypc(&scopes[i], &entry) == 0 && entry + bias < ra)
                    out->function_offset = ra - (entry + bias);
            }
            first = false;
        }
        ot_scope_candidates(&scopes[i], line, c);
        if (tag != DW_TAG_inlined_subroutine)
            break; /* the concrete function: beyond are the CU, namespaces */
        line = ot_call_line(&scopes[i]);
    }
    free(scopes);
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
    Dwfl_Line *dl = dwfl_module_getsrc(m->mod, pc);
    int line = 0;
    const char *file = dl ? dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL) : NULL;
    if (file && line > 0) {
        out->file = file;
        out->line = (unsigned)line;
    }
    ot_candidates c = {.n = 0};
    ot_resolve_scopes(s, m, pc, ra, out, &c);
    if (c.n == 0 && symbol && *symbol) {
        size_t len = strcspn(symbol, "."); /* `work.omp_outlined`, `f.cold` */
        ot_candidates_add(&c, symbol, len ? len : strlen(symbol), out->line);
    }
    if (c.n == 0 || ot_module_index_kernels(s, m) != 0)
        return;
    for (size_t i = 0; i < c.n && !out->kernel; i++)
        out->kernel = ot_kernel_find(m, c.c[i].name, c.c[i].len, c.c[i].line);
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
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        ot_maps_line m;
        if (!ot_parse_maps_line(line, &m))
            continue; /* a snapshot cut short by a crash ends in half a line */
        parsed++;
        rc = ot_maps_take(s, &bases, &m);
    }
    if (rc == 0 && ferror(f))
        rc = -EIO;
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
    *kernel = ot_kernel_find(m, function, strlen(function), line);
    return *kernel ? 0 : -ENOENT;
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

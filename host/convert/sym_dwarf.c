/**
 * \file sym_dwarf.c
 * \brief The symbolizer's elfutils side: opening a module with libdwfl, and
 *        the DWARF lookups (CU, line, function, inlined scopes, declarations).
 */
#define _GNU_SOURCE
#include "symbolize_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define OT_MAX_SCOPES 16 /* inlining depth followed */

/* ------------------------------------------------------------ elfutils */

static int ot_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       char **file_name, Elf **elfp)
{
    /* Every module is reported with its file; never go looking (the
     * build-id search may end in a debuginfod download). */
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
    return -1;
}

/* The directories libdw searches for a separate debug file: its default
 * (DEFAULT_DEBUGINFO_PATH), named here so that the check below searches
 * the same ones. */
static char ot_debuginfo_dirs[] = ":.debug:/usr/lib/debug";

/* Whether \p path names a file that is not the module's own (\p main): 1
 * when it does, or when it cannot be told (an error other than a missing
 * file). */
static int candidate_exists(const char *path, const struct stat *main)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno != ENOENT && errno != ENOTDIR;
    return !(main && st.st_dev == main->st_dev && st.st_ino == main->st_ino);
}

/* Every file the path search would try for \p file_name: in each
 * directory of ot_debuginfo_dirs (empty: the module's own; relative: a
 * subdirectory of it; absolute: that root with the module's directory, or
 * any tail of it, below), the debug link's name, or the module's name with
 * ".debug" and without. 1 as soon as one exists. */
static int path_candidate_exists(const char *file_name, const char *debuglink, const struct stat *main)
{
    const char *slash = strrchr(file_name, '/');
    const char *base = slash ? slash + 1 : file_name;
    char dir[4096], name[1024], path[8192];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file_name) : 0, file_name);
    snprintf(name, sizeof name, "%s%s", debuglink ? debuglink : base, debuglink ? "" : ".debug");
    const char *names[2] = {name, debuglink ? NULL : base};
    const char *p = ot_debuginfo_dirs;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char element[1024];
        snprintf(element, sizeof element, "%.*s", (int)len, p);
        const char *e = element[0] == '+' || element[0] == '-' ? element + 1 : element;
        for (int n = 0; n < 2 && names[n]; n++) {
            if (!*e) {
                if (n == 0) { /* the module's own directory: its own name is itself */
                    snprintf(path, sizeof path, "%s%s%s", dir, slash ? "/" : "", names[n]);
                    if (candidate_exists(path, main))
                        return 1;
                }
            } else if (*e == '/') {
                if (dir[0] != '/')
                    continue;
                for (const char *sub = dir; sub; sub = strchr(sub + 1, '/')) {
                    snprintf(path, sizeof path, "%s%s/%s", e, sub, names[n]);
                    if (candidate_exists(path, main))
                        return 1;
                }
                snprintf(path, sizeof path, "%s/%s", e, names[n]);
                if (candidate_exists(path, main))
                    return 1;
            } else {
                snprintf(path, sizeof path, "%s%s%s/%s", dir, slash ? "/" : "", e, names[n]);
                if (candidate_exists(path, main))
                    return 1;
            }
        }
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* Whether the standard search could find a separate debug file on this
 * machine: by build id in the absolute directories' .build-id trees, or by
 * name in the directories, for the module's path and the path its links
 * lead to. 1 when it could, or when that cannot be told (a name with a
 * slash: the dwz alternate file's search, which looks elsewhere too). */
static int local_debuginfo_possible(Dwfl_Module *mod, const char *file_name, const char *debuglink)
{
    if (!file_name || (debuglink && strchr(debuglink, '/')))
        return 1;
    struct stat main_st;
    const struct stat *main = stat(file_name, &main_st) == 0 ? &main_st : NULL;
    const unsigned char *bits;
    GElf_Addr vaddr;
    int bits_len = dwfl_module_build_id(mod, &bits, &vaddr);
    if (bits_len <= 1 || bits_len > 64)
        return 1;
    char hex[130], path[4200];
    for (int i = 0; i < bits_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", bits[i]);
    for (const char *p = ot_debuginfo_dirs; p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL) {
        size_t len = strchr(p, ':') ? (size_t)(strchr(p, ':') - p) : strlen(p);
        const char *e = len && (*p == '+' || *p == '-') ? p + 1 : p;
        len -= (size_t)(e - p);
        if (!len || *e != '/')
            continue;
        snprintf(path, sizeof path, "%.*s/.build-id/%.2s/%s.debug", (int)len, e, hex, hex + 2);
        if (candidate_exists(path, NULL))
            return 1;
    }
    if (path_candidate_exists(file_name, debuglink, main))
        return 1;
    char *canon = realpath(file_name, NULL);
    int found = canon && strcmp(canon, file_name) && path_candidate_exists(canon, debuglink, main);
    free(canon);
    return found;
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
    /* Without DEBUGINFOD_URLS the standard search's last step, debuginfod,
     * finds nothing, but it still loads libdebuginfod and its network
     * libraries first: 5 ms of CPU of a conversion whose program loads one
     * library without local debug info (libomptarget, issue 18). When none
     * of the files the local steps would try exists, the answer is known. */
    if (!local_debuginfo_possible(mod, file_name, debuglink)) {
        errno = 0;
        return -1;
    }
    return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink, crc,
                                        debuginfo_file_name);
}

static char *ot_debuginfo_path = ot_debuginfo_dirs;

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

int ot_sym_module_open(ot_module *m)
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

/* ------------------------------------------------------------ CU index */

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
        ot_cu_range *cus = ot_sym_reserve(m->cus, &m->cu_cap, m->cu_count + 1, sizeof *cus);
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
Dwarf_Die *ot_sym_module_cu(ot_module *m, uint64_t pc, Dwarf_Addr *bias, Dwarf_Die *mem)
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

/* ------------------------------------------------ functions and scopes */

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
    const char *copy = ot_sym_strndup(s, name, len);
    return copy ? copy : name;
}

static void ot_scope_candidates(Dwarf_Die *die, unsigned line, ot_candidates *c)
{
    const char *linkage = ot_linkage_name(die);
    const char *name = dwarf_diename(die);
    if (linkage)
        ot_sym_candidates_add(c, linkage, strlen(linkage), line);
    if (name && (!linkage || strcmp(name, linkage) != 0)) {
        size_t caller = ot_outlined_caller_len(die, name);
        ot_sym_candidates_add(c, name, caller ? caller : strlen(name), line);
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
void ot_sym_resolve_scopes(ot_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr rel, Dwarf_Addr bias,
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

void ot_sym_resolve_line(Dwarf_Die *cu, Dwarf_Addr rel, ot_srcloc *out)
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
const char *ot_sym_psource_path(ot_symbolizer *s, Dwarf_Die *cu, const ot_psource *ps)
{
    Dwarf_Attribute attr;
    const char *dir = NULL;
    if (cu && ps->file[0] != '/')
        dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
    if (!dir)
        return ot_sym_strndup(s, ps->file, ps->file_len);
    size_t dir_len = strlen(dir);
    char *path = ot_sym_str_new(s, dir_len + 1 + ps->file_len);
    if (path) {
        memcpy(path, dir, dir_len);
        path[dir_len] = '/';
        memcpy(path + dir_len + 1, ps->file, ps->file_len);
    }
    return path;
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
void ot_sym_locate_from_kernel(Dwarf_Die *cu, const ot_kernel *k, ot_srcloc *out)
{
    size_t fn_len;
    unsigned line;
    if (!cu || !ot_sym_tail_split(k->tail, &fn_len, &line))
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

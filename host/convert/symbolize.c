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
#include "symbolize_internal.h"
#include "symbolize_library.h"
#include "regular_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

/** Room for `need` elements: the array, maybe moved, or NULL (the old one
 *  still valid) when out of memory. */
void *ot_sym_reserve(void *array, size_t *cap, size_t need, size_t elem)
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
char *ot_sym_str_new(ot_symbolizer *s, size_t len)
{
    ot_str *str = malloc(sizeof *str + len + 1);
    if (!str)
        return NULL;
    str->text[len] = '\0';
    str->next = s->strings;
    s->strings = str;
    return str->text;
}

const char *ot_sym_strndup(ot_symbolizer *s, const char *text, size_t len)
{
    char *copy = ot_sym_str_new(s, len);
    if (copy)
        memcpy(copy, text, len);
    return copy;
}

/* --------------------------------------------------------------- cache */

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

/* ------------------------------------------------------ address lookup */

void ot_sym_candidates_add(ot_candidates *c, const char *name, size_t len, unsigned line)
{
    if (name && len > 0 && c->n < OT_MAX_CANDIDATES)
        c->c[c->n++] = (ot_candidate){name, len, line};
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
    const ot_kernel *k = ps ? ot_sym_kernel_find(m, ps->function, ps->function_len, ps->line) : NULL;
    for (size_t i = 0; i < c->n && !k; i++) {
        unsigned line = ps ? ps->line : c->c[i].line;
        for (unsigned up = 0; up <= (ps ? 0 : 1) && up < line && !k; up++) {
            k = ot_sym_kernel_find(m, c->c[i].name, c->c[i].len, line - up);
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
    const char *file = ot_sym_psource_path(s, cu, ps);
    const char *function = ot_sym_strndup(s, ps->function, ps->function_len);
    if (!file || !function)
        return;
    out->file = file;
    out->line = ps->line;
    out->function = function; /* where the pragma is, even if inlined */
    out->function_offset = 0;
}

static void ot_resolve(ot_symbolizer *s, ot_module *m, uint64_t ra, ot_srcloc *out)
{
    uint64_t pc = ra - 1; /* inside the call instruction, not after it */
    out->module = m->path;
    out->module_offset = ra - m->base;
    if (ot_sym_module_open(m) != 0)
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
    Dwarf_Die cu_mem, *cu = ot_sym_module_cu(m, pc, &bias, &cu_mem);
    if (cu) {
        ot_sym_resolve_line(cu, pc - bias, out);
        ot_sym_resolve_scopes(s, cu, pc - bias, bias, ra, out, &c);
    }
    if (c.n == 0 && symbol && *symbol) {
        size_t len = strcspn(symbol, "."); /* `work.omp_outlined`, `f.cold` */
        ot_sym_candidates_add(&c, symbol, len ? len : strlen(symbol), out->line);
    }
    if (ot_sym_module_index_kernels(s, m) != 0)
        return;
    ot_call_site site = {0};
    ot_sym_scan_call_site(m, pc, symbol ? off : UINT64_MAX - 1, &site);
    if (site.has_source)
        ot_apply_psource(s, cu, &site.source, out);
    unsigned pragma = 0;
    const ot_kernel *kernel = ot_choose_kernel(m, &site, &c, &pragma);
    if (kernel) {
        out->kernel = kernel->name;
        out->kernel_display = kernel->display;
        if (pragma && out->line)
            out->line = pragma;
        if (out->line == 0)
            ot_sym_locate_from_kernel(cu, kernel, out);
    }
}

/* ---------------------------------------------------------- public API */

static ot_symbolizer *symbolizer_open(void)
{
    return calloc(1, sizeof(ot_symbolizer));
}

static int symbolizer_add_maps(ot_symbolizer *s, const char *maps_path)
{
    if (!s || !maps_path)
        return -EINVAL;
    FILE *f = ot_fopen_regular(maps_path);
    if (!f)
        return -errno;
    ot_base_table bases = {0};
    char *line = NULL;
    size_t cap = 0, parsed = 0;
    int rc = 0;
    errno = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        ot_maps_line m;
        if (!ot_sym_parse_maps_line(line, &m))
            continue; /* a snapshot cut short by a crash ends in half a line */
        parsed++;
        rc = ot_sym_maps_take(s, &bases, &m);
    }
    if (rc == 0 && ferror(f))
        rc = errno ? -errno : -EIO; /* e.g. EISDIR */
    if (rc == 0 && parsed == 0)
        rc = -EINVAL;
    free(line);
    fclose(f);
    ot_sym_bases_free(&bases);
    ot_sym_ranges_finish(s); /* also after a failure: keep the table searchable */
    ot_cache_clear(s);   /* earlier misses may now resolve */
    return rc;
}

static int symbolizer_lookup(ot_symbolizer *s, uint64_t return_address, ot_srcloc *out)
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
    const ot_range *r = ot_sym_range_find(s, return_address - 1);
    int status = r ? 0 : -ENOENT;
    if (r)
        ot_resolve(s, &s->modules[r->module], return_address, out);
    ot_cache_put(s, return_address, status, out);
    return status;
}

static int symbolizer_find_kernel(ot_symbolizer *s, const char *module_path, const char *function, unsigned line,
                                  const char **kernel)
{
    if (kernel)
        *kernel = NULL;
    if (!s || !module_path || !function || !kernel)
        return -EINVAL;
    ot_module *m = NULL;
    for (size_t i = 0; i < s->module_count && !m; i++) {
        if (strcmp(s->modules[i].path, module_path) == 0 && ot_sym_module_open(&s->modules[i]) == 0)
            m = &s->modules[i];
    }
    if (!m) { /* not mapped in any snapshot: open it at base 0 */
        ot_maps_line ml = {.path = (char *)module_path};
        size_t index;
        if (ot_sym_module_get(s, &ml, 0, &index) != 0)
            return -ENOMEM;
        m = &s->modules[index];
        int rc = ot_sym_module_open(m);
        if (rc != 0)
            return rc;
    }
    if (ot_sym_module_index_kernels(s, m) != 0)
        return -ENOMEM;
    const ot_kernel *k = ot_sym_kernel_find(m, function, strlen(function), line);
    *kernel = k ? k->name : NULL;
    return k ? 0 : -ENOENT;
}

static void symbolizer_close(ot_symbolizer *s)
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

/* What libofftrace-symbolize.so exports (symbolize_library.h): the API
 * above, called through symbolize_load.c. */
__attribute__((visibility("default"))) const ot_symbolizer_ops ot_symbolizer_library = {
    symbolizer_open, symbolizer_add_maps, symbolizer_lookup, symbolizer_find_kernel, symbolizer_close};

/**
 * \file sym_maps.c
 * \brief The symbolizer's /proc/<pid>/maps snapshots -> modules and the
 *        address ranges they are mapped at.
 */
#define _GNU_SOURCE
#include "symbolize_internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ot_perms_valid(const char *p)
{
    return strlen(p) == 4 && strchr("r-", p[0]) && strchr("w-", p[1]) &&
           strchr("x-", p[2]) && strchr("ps", p[3]);
}

/* Up to `max` digits of base 16 (or 10) at *p, then `end` (0: any
 * character that is not a digit): false when there are none, more, or
 * another character follows. */
static bool take_number(const char **p, unsigned base, unsigned max, char end, uint64_t *out)
{
    uint64_t v = 0;
    unsigned n = 0;
    for (;; n++) {
        unsigned char c = (unsigned char)(*p)[n];
        unsigned d = c >= '0' && c <= '9' ? c - '0' : base == 16 && (c | 0x20) >= 'a' && (c | 0x20) <= 'f'
                                                       ? (c | 0x20) - 'a' + 10 : 16;
        if (d >= base)
            break;
        v = v * base + d;
    }
    if (n == 0 || n > max || (end && (*p)[n] != end))
        return false;
    *p += n + (end != 0);
    *out = v;
    return true;
}

/* The kernel's own layout, exactly: "lo-hi perms offset major:minor inode"
 * with single spaces. It is what every snapshot holds, and sscanf's
 * general parse of it was a third of converting a short program's
 * recording (callgrind, issue 18). Returns the path's offset, or 0 for
 * anything else, which the general parse then takes as before. */
static int parse_kernel_layout(const char *line, ot_maps_line *m)
{
    const char *p = line;
    uint64_t major, minor;
    if (!take_number(&p, 16, 16, '-', &m->lo) || !take_number(&p, 16, 16, ' ', &m->hi))
        return 0;
    for (int i = 0; i < 4; i++)
        if (p[i] == '\0' || isspace((unsigned char)p[i]))
            return 0;
    if (p[4] != ' ')
        return 0;
    memcpy(m->perms, p, 4);
    m->perms[4] = '\0';
    p += 5;
    if (!take_number(&p, 16, 16, ' ', &m->offset) || !take_number(&p, 16, 8, ':', &major) ||
        !take_number(&p, 16, 8, ' ', &minor) || !take_number(&p, 10, 19, 0, &m->inode))
        return 0;
    m->dev_major = (unsigned)major;
    m->dev_minor = (unsigned)minor;
    if (*p != '\0' && !isspace((unsigned char)*p))
        return 0;
    while (isspace((unsigned char)*p))
        p++;
    return (int)(p - line);
}

bool ot_sym_parse_maps_line(char *line, ot_maps_line *m)
{
    static const char deleted[] = " (deleted)";
    int n = 0;
    memset(m, 0, sizeof *m);
    n = parse_kernel_layout(line, m);
    if (n == 0) {
        memset(m, 0, sizeof *m);
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->lo, &m->hi,
                   m->perms, &m->offset, &m->dev_major, &m->dev_minor, &m->inode, &n) != 7)
            return false;
    }
    if (n == 0 || m->lo >= m->hi || !ot_perms_valid(m->perms))
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
    void *items = ot_sym_reserve(t->items, &t->cap, t->count + 1, sizeof *t->items);
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

void ot_sym_bases_free(ot_base_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->items[i].path);
    free(t->items);
}

/** The same file at the same base with the same inode is the same module. */
int ot_sym_module_get(ot_symbolizer *s, const ot_maps_line *m, uint64_t base, size_t *index)
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
        ot_sym_reserve(s->modules, &s->module_cap, s->module_count + 1, sizeof *modules);
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

int ot_sym_maps_take(ot_symbolizer *s, ot_base_table *bases, const ot_maps_line *m)
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
    if (ot_sym_module_get(s, m, base, &index) != 0)
        return -ENOMEM;
    ot_range *ranges = ot_sym_reserve(s->ranges, &s->range_cap, s->range_count + 1, sizeof *ranges);
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
void ot_sym_ranges_finish(ot_symbolizer *s)
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

const ot_range *ot_sym_range_find(const ot_symbolizer *s, uint64_t pc)
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

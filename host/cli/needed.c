/**
 * \file needed.c
 * \brief The shared libraries a program loads, read from the ELF files
 *        (cli.h, ot_cli_needed_libraries): no process is started.
 *
 * Walks DT_NEEDED breadth-first from the program (and the user's
 * preloads), in the order the dynamic loader loads them, finding each name
 * the way glibc's loader does: a name with a '/' as is; else the RPATH of
 * the object that needs it and of the objects that loaded that one (unless
 * it has a RUNPATH), then the executable's RPATH, LD_LIBRARY_PATH, its
 * RUNPATH, /etc/ld.so.cache, and the system directories. `$ORIGIN` is
 * expanded; an entry with another token is skipped. A library that is not
 * found is left out (the program would not start). Each name is visited
 * once, as the loader loads it once.
 *
 * It replaced `PT_INTERP --list` for record's MPI decision: the loader
 * maps and relocates every library (about 2 ms for an OpenMP program,
 * whose libLLVM alone has thousands of relocations); reading the dynamic
 * sections takes some tens of microseconds. tests/test_needed.c checks
 * the walk against the loader's own list.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define MAX_OBJECTS 512

/* One loaded object: what the search and the walk need of it. Small, its
 * strings on the heap: an OpenMP program loads some 25 objects, and two
 * PATH_MAX arrays in each were 60 of the walk's page faults (issue 18). */
typedef struct object {
    char *path;
    char *origin; /* its directory, for $ORIGIN */
    dev_t dev; /* the file: the loader loads a file once, whatever its name */
    ino_t ino;
    char **needed; /* its DT_NEEDED names */
    unsigned needed_count;
    char *rpath, *runpath; /* NULL without */
    int loader;            /* index of the object that needed it, -1 for the program */
} object;

typedef struct walk {
    object *objects;
    unsigned count;
    char **names; /* every name loaded or looked for, to load each once */
    unsigned names_count;
    const char *cache; /* /etc/ld.so.cache mapped, NULL if unreadable */
    size_t cache_size;
} walk;

static void free_object(object *o)
{
    for (unsigned i = 0; o->needed && i < o->needed_count; i++)
        free(o->needed[i]);
    free(o->needed);
    free(o->rpath);
    free(o->runpath);
    free(o->path);
    free(o->origin);
    o->needed = NULL;
    o->rpath = o->runpath = o->path = o->origin = NULL;
}

/* The last piece of a string table read: the strings an object names
 * (DT_NEEDED, its paths) mostly lie together, so one read serves several. */
typedef struct string_window {
    char bytes[PATH_MAX];
    uint64_t offset; /* in the table */
    size_t size;     /* 0: nothing read yet */
} string_window;

/* The string at \p offset of the dynamic string table at \p table, read by
 * itself (at most PATH_MAX - 1 bytes of it) unless the last read holds it
 * whole: a big library's table holds megabytes of symbol names. */
static char *read_string(int fd, off_t table, uint64_t table_size, uint64_t offset, string_window *win)
{
    if (offset >= table_size)
        return NULL;
    if (win->size && offset >= win->offset && offset < win->offset + win->size) {
        const char *start = win->bytes + (offset - win->offset);
        size_t left = win->size - (size_t)(offset - win->offset);
        if (memchr(start, '\0', left))
            return strdup(start);
    }
    size_t want = table_size - offset < sizeof win->bytes - 1 ? (size_t)(table_size - offset) : sizeof win->bytes - 1;
    ssize_t got = pread(fd, win->bytes, want, table + (off_t)offset);
    win->size = 0;
    if (got <= 0)
        return NULL;
    win->bytes[got] = '\0';
    win->offset = offset;
    win->size = (size_t)got;
    return strdup(win->bytes);
}

/* Reads \p path's dynamic section into \p o. \return 0, or -1 when it is
 * not a 64-bit little-endian x86-64 ELF file with one (the loader skips
 * such a file and searches on). */
static int read_object(const char *path, object *o)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Elf64_Ehdr eh;
    Elf64_Phdr ph[64];
    Elf64_Dyn dyn[512];
    string_window *win = NULL;
    int rc = -1;
    unsigned phnum = 0;
    ssize_t dyn_bytes = -1;
    struct stat st;
    /* The header and, where they follow it (as linkers place them), the
     * program headers in one read. */
    union { Elf64_Ehdr eh; unsigned char bytes[sizeof(Elf64_Ehdr) + sizeof ph]; } head;
    ssize_t head_bytes = fstat(fd, &st) == 0 ? pread(fd, &head, sizeof head, 0) : -1;
    if (head_bytes < (ssize_t)sizeof eh)
        goto out;
    eh = head.eh;
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(Elf64_Phdr))
        goto out;
    phnum = eh.e_phnum < 64 ? eh.e_phnum : 64;
    if (eh.e_phoff <= (uint64_t)head_bytes && phnum * sizeof *ph <= (uint64_t)head_bytes - eh.e_phoff)
        memcpy(ph, head.bytes + eh.e_phoff, phnum * sizeof *ph);
    else if (pread(fd, ph, phnum * sizeof *ph, (off_t)eh.e_phoff) != (ssize_t)(phnum * sizeof *ph))
        goto out;
    for (unsigned i = 0; i < phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC) {
            size_t want = ph[i].p_filesz < sizeof dyn ? ph[i].p_filesz : sizeof dyn;
            dyn_bytes = pread(fd, dyn, want, (off_t)ph[i].p_offset);
        }
    if (dyn_bytes <= 0)
        goto out;
    uint64_t strtab_vaddr = 0, strtab_size = 0;
    unsigned ndyn = (unsigned)((size_t)dyn_bytes / sizeof *dyn), needed = 0;
    for (unsigned i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag == DT_STRTAB)
            strtab_vaddr = dyn[i].d_un.d_ptr;
        else if (dyn[i].d_tag == DT_STRSZ)
            strtab_size = dyn[i].d_un.d_val;
        else if (dyn[i].d_tag == DT_NEEDED)
            needed++;
    }
    /* The string table is given as an address: the file offset is found
     * through the PT_LOAD segment that holds it. */
    off_t strtab = -1;
    for (unsigned i = 0; i < phnum; i++)
        if (ph[i].p_type == PT_LOAD && strtab_vaddr >= ph[i].p_vaddr &&
            strtab_vaddr + strtab_size <= ph[i].p_vaddr + ph[i].p_filesz)
            strtab = (off_t)(ph[i].p_offset + (strtab_vaddr - ph[i].p_vaddr));
    if (strtab < 0 || !strtab_size)
        goto out;
    o->needed = calloc(needed ? needed : 1, sizeof *o->needed);
    win = malloc(sizeof *win);
    if (!o->needed || !win)
        goto out;
    win->size = 0;
    o->needed_count = 0;
    for (unsigned i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        char *text = NULL;
        if (dyn[i].d_tag == DT_NEEDED || dyn[i].d_tag == DT_RPATH || dyn[i].d_tag == DT_RUNPATH)
            text = read_string(fd, strtab, strtab_size, dyn[i].d_un.d_val, win);
        if (!text)
            continue;
        if (dyn[i].d_tag == DT_NEEDED)
            o->needed[o->needed_count++] = text;
        else if (dyn[i].d_tag == DT_RPATH && !o->rpath)
            o->rpath = text;
        else if (dyn[i].d_tag == DT_RUNPATH && !o->runpath)
            o->runpath = text;
        else
            free(text);
    }
    o->path = strdup(path);
    if (!o->path)
        goto out;
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    rc = 0;
out:
    free(win);
    close(fd);
    if (rc)
        free_object(o);
    return rc;
}

/* Whether \p c may continue a token's name ($ORIGINX is not $ORIGIN). */
static int name_char(char c)
{
    return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* \p dir/\p name, with $ORIGIN (or ${ORIGIN}) in \p dir replaced by \p origin.
 * \return -1 for a token this walk does not expand ($LIB, $PLATFORM). */
static int join(const char *dir, size_t dir_len, const char *origin, const char *name, char *out, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < dir_len;) {
        size_t skip = 0;
        if (dir[i] == '$') {
            if (dir_len - i >= 9 && !strncmp(dir + i, "${ORIGIN}", 9))
                skip = 9;
            else if (dir_len - i >= 7 && !strncmp(dir + i, "$ORIGIN", 7) && (i + 7 == dir_len || !name_char(dir[i + 7])))
                skip = 7;
            else
                return -1;
        }
        const char *piece = skip ? origin : dir + i;
        size_t n = skip ? strlen(origin) : 1;
        if (used + n >= size)
            return -1;
        memcpy(out + used, piece, n);
        used += n;
        i += skip ? skip : 1;
    }
    int wrote = snprintf(out + used, size - used, "%s%s", used && out[used - 1] == '/' ? "" : "/", name);
    return wrote >= 0 && (size_t)wrote < size - used ? 0 : -1;
}

/* The first object named \p name in the colon-separated list \p dirs. */
static int search_list(const char *dirs, const char *origin, const char *name, object *o)
{
    char path[PATH_MAX];
    for (const char *p = dirs; p && *p;) {
        size_t n = strcspn(p, ":;");
        /* an empty entry is the current directory, as for the loader */
        if (join(n ? p : ".", n ? n : 1, origin, name, path, sizeof path) == 0 && read_object(path, o) == 0)
            return 0;
        p += n;
        if (*p)
            p++;
    }
    return -1;
}

/* glibc's cache ("glibc-ld.so.cache1.1"): a header, then entries of
 * (flags, key, value, osversion, hwcap) whose key and value are offsets of
 * the library's name and path from the start of the header. */
static int search_cache(const walk *w, const char *name, object *o)
{
    static const char magic[] = "glibc-ld.so.cache1.1";
    const size_t header = 48, entry = 24;
    if (!w->cache)
        return -1;
    const char *start = memmem(w->cache, w->cache_size < 4096 ? w->cache_size : 4096, magic, sizeof magic - 1);
    if (!start)
        return -1;
    size_t base = (size_t)(start - w->cache);
    uint32_t nlibs;
    if (base + header > w->cache_size)
        return -1;
    memcpy(&nlibs, w->cache + base + 20, sizeof nlibs);
    size_t name_size = strlen(name) + 1;
    for (uint32_t i = 0; i < nlibs && base + header + (i + 1) * entry <= w->cache_size; i++) {
        const char *e = w->cache + base + header + i * entry;
        int32_t flags;
        uint32_t key, value;
        memcpy(&flags, e, 4);
        memcpy(&key, e + 4, 4);
        memcpy(&value, e + 8, 4);
        /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64: an x86-64 library. The key is
         * compared with its NUL inside the cache before the value's end is
         * looked for: checking both ends of every entry (820 here) first was
         * half of record's walk (issue 18). */
        if (flags != 0x0303 || base + key >= w->cache_size || base + value >= w->cache_size ||
            w->cache_size - base - key < name_size || memcmp(w->cache + base + key, name, name_size) ||
            !memchr(w->cache + base + value, '\0', w->cache_size - base - value))
            continue;
        if (read_object(w->cache + base + value, o) == 0)
            return 0;
    }
    return -1;
}

/* Where the loader finds \p name needed by object \p from. */
static int find(walk *w, int from, const char *name, object *o)
{
    if (strchr(name, '/'))
        return read_object(name, o);
    const object *need = from >= 0 ? &w->objects[from] : NULL;
    if (need && !need->runpath) {
        for (int l = from; l >= 0; l = w->objects[l].loader) {
            const object *lo = &w->objects[l];
            if (!lo->runpath && lo->rpath && search_list(lo->rpath, lo->origin ? lo->origin : "", name, o) == 0)
                return 0;
        }
    }
    const object *main = &w->objects[0];
    if (from != 0 && !main->runpath && main->rpath && search_list(main->rpath, main->origin ? main->origin : "", name, o) == 0)
        return 0;
    const char *library_path = getenv("LD_LIBRARY_PATH");
    if (library_path && search_list(library_path, "", name, o) == 0)
        return 0;
    if (need && need->runpath && search_list(need->runpath, need->origin ? need->origin : "", name, o) == 0)
        return 0;
    if (search_cache(w, name, o) == 0)
        return 0;
    return search_list("/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib:/usr/lib", "", name, o);
}

static int is_seen(const walk *w, const char *name)
{
    for (unsigned i = 0; i < w->names_count; i++)
        if (!strcmp(w->names[i], name))
            return 1;
    return 0;
}

static void remember(walk *w, const char *name)
{
    char *copy = w->names_count < 4 * MAX_OBJECTS ? strdup(name) : NULL;
    if (copy)
        w->names[w->names_count++] = copy;
}

/* Loads \p name (needed by \p from) as the next object, unless that file
 * is loaded already under another name. */
static void add(walk *w, int from, const char *name)
{
    if (w->count >= MAX_OBJECTS || is_seen(w, name))
        return;
    remember(w, name);
    object *o = &w->objects[w->count];
    memset(o, 0, sizeof *o);
    if (find(w, from, name, o) != 0)
        return;
    for (unsigned i = 0; i < w->count; i++)
        if (w->objects[i].dev == o->dev && w->objects[i].ino == o->ino) {
            free_object(o);
            return;
        }
    o->loader = from;
    const char *slash = strrchr(o->path, '/');
    char cwd[PATH_MAX];
    if (slash)
        o->origin = strndup(o->path, (size_t)(slash - o->path));
    else
        o->origin = strdup(getcwd(cwd, sizeof cwd) ? cwd : "");
    w->count++;
}

/* Mapped, as the loader maps it: its pages come from the page cache, not
 * copied into fresh memory (13 page faults and a copy of 52 KiB here). */
static void read_cache(walk *w)
{
    int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (64 << 20)) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            w->cache = map;
            w->cache_size = (size_t)st.st_size;
        }
    }
    close(fd);
}

/* The user's preloads (LD_PRELOAD, then /etc/ld.so.preload): loaded after
 * the program, before what it needs. */
static void add_preloads(walk *w)
{
    char file[4096] = "";
    const char *lists[2] = {getenv("LD_PRELOAD"), file};
    int fd = open("/etc/ld.so.preload", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, file, sizeof file - 1);
        file[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    for (int l = 0; l < 2; l++)
        for (const char *p = lists[l]; p && *p;) {
            size_t n = strcspn(p, l ? " \t\n:" : " :");
            if (n) {
                char name[PATH_MAX];
                snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
                add(w, 0, name); /* glibc loads preloads for the program */
            }
            p += n;
            p += *p != '\0';
        }
}

int ot_cli_needed_libraries(const char *program, int (*visit)(const char *name, void *arg), void *arg)
{
    walk w = {0};
    w.objects = calloc(MAX_OBJECTS, sizeof *w.objects);
    w.names = calloc(4 * MAX_OBJECTS, sizeof *w.names);
    int rc = -1;
    char real[PATH_MAX];
    if (!w.objects || !w.names || read_object(program, &w.objects[0]) != 0)
        goto out;
    /* The executable's $ORIGIN is its real directory (the kernel's path of it). */
    object *program_object = &w.objects[0];
    if (!realpath(program, real))
        snprintf(real, sizeof real, "%s", program);
    char *slash = strrchr(real, '/');
    if (slash)
        *slash = '\0';
    program_object->loader = -1;
    w.count = 1;
    if (!(program_object->origin = strdup(real)))
        goto out;
    read_cache(&w);
    add_preloads(&w);
    rc = 0;
    for (unsigned i = 0; i < w.count && !rc; i++) {
        const object *o = &w.objects[i];
        for (unsigned k = 0; k < o->needed_count && !rc; k++) {
            const char *name = o->needed[k];
            if (is_seen(&w, name))
                continue;
            rc = visit(name, arg);
            add(&w, (int)i, name);
        }
    }
out:
    for (unsigned i = 0; w.objects && i < w.count; i++)
        free_object(&w.objects[i]);
    for (unsigned i = 0; w.names && i < w.names_count; i++)
        free(w.names[i]);
    free(w.objects);
    free(w.names);
    if (w.cache)
        munmap((void *)w.cache, w.cache_size);
    return rc;
}

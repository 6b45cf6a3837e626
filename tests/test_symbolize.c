/**
 * \file test_symbolize.c
 * \brief The symbolizer against real binaries: this test process itself,
 *        libc, and a freshly compiled offload program that records its own
 *        OMPT return addresses and maps, then exits before they are resolved.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbolize.h"
#include "symbolize_internal.h"

static char tmpdir[64];

static void make_tmpdir(void)
{
    strcpy(tmpdir, "/tmp/ot-symbolize-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
}

TestSuite(symbolize, .init = make_tmpdir, .fini = remove_tmpdir);

/** Path of `name` in the test's temporary directory (one buffer per slot). */
static const char *tmp_path(const char *name)
{
    static char bufs[4][PATH_MAX];
    static int next;
    char *buf = bufs[next++ % 4];
    snprintf(buf, PATH_MAX, "%s/%s", tmpdir, name);
    return buf;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(text, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t size = 0, cap = 4096;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + size, 1, cap - size - 1, f)) > 0) {
        size += n;
        if (cap - size < 1024)
            text = realloc(text, cap *= 2);
    }
    fclose(f);
    cr_assert_not_null(text);
    text[size] = '\0';
    return text;
}

static void snapshot_self(const char *path)
{
    char *maps = read_file("/proc/self/maps");
    write_file(path, maps, strlen(maps));
    free(maps);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static ot_symbolizer *open_with_maps(const char *maps)
{
    ot_symbolizer *s = ot_symbolizer_open();
    cr_assert_not_null(s);
    cr_assert_eq(ot_symbolizer_add_maps(s, maps), 0);
    return s;
}

/* ------------------------------------------------ the test process itself */

static volatile uint64_t captured_ra;
static volatile unsigned after_line;

__attribute__((noinline)) static void capture_return_address(void)
{
    captured_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* The instruction the call returns to belongs to the next line, so a lookup
 * of the return address itself (not of the call) would give that line. The
 * store after the call also keeps it from becoming a tail call. */
__attribute__((noinline)) static uint64_t known_caller(unsigned *line)
{
    *line = __LINE__ + 1;
    capture_return_address();
    after_line = __LINE__;
    return captured_ra;
}

Test(symbolize, own_caller)
{
    unsigned line = 0;
    uint64_t ra = known_caller(&line);
    const char *maps = tmp_path("maps");
    snapshot_self(maps);
    ot_symbolizer *s = open_with_maps(maps);

    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), 0);
    cr_assert_not_null(loc.file);
    cr_assert_str_eq(base_name(loc.file), "test_symbolize.c");
    cr_assert_eq(loc.line, line);
    cr_assert_str_eq(loc.function, "known_caller");
    cr_assert_null(loc.kernel);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert_gt(n, 0);
    exe[n] = '\0';
    cr_assert_str_eq(loc.module, exe);

    char label[64], want[64];
    snprintf(want, sizeof want, "test_symbolize.c:%u", line);
    cr_assert_eq(ot_srcloc_format(&loc, ra, label, sizeof label), (int)strlen(want));
    cr_assert_str_eq(label, want);

    ot_srcloc again; /* from the cache: the very same strings */
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &again), 0);
    cr_assert_eq(again.file, loc.file);
    cr_assert_eq(again.function, loc.function);
    cr_assert_eq(again.line, loc.line);
    ot_symbolizer_close(s);
}

/* Inlined even at -O0. The line is the inlined function's own, so the
 * function reported must be the inlined one, not the one it landed in. */
__attribute__((always_inline)) static inline void inlined_capture(unsigned *line)
{
    *line = __LINE__ + 1;
    capture_return_address();
    after_line = __LINE__;
}

__attribute__((noinline)) static uint64_t inlining_caller(unsigned *line)
{
    inlined_capture(line);
    after_line = __LINE__;
    return captured_ra;
}

Test(symbolize, inlined_function)
{
    unsigned line = 0;
    uint64_t ra = inlining_caller(&line);
    const char *maps = tmp_path("maps");
    snapshot_self(maps);
    ot_symbolizer *s = open_with_maps(maps);
    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), 0);
    cr_assert_not_null(loc.file);
    cr_assert_str_eq(base_name(loc.file), "test_symbolize.c");
    cr_assert_eq(loc.line, line);
    cr_assert_str_eq(loc.function, "inlined_capture");
    ot_symbolizer_close(s);
}

Test(symbolize, libc_function_from_symbol_table)
{
    void *getpid_addr = dlsym(RTLD_DEFAULT, "getpid"); /* libc's, not a PLT stub */
    cr_assert_not_null(getpid_addr);
    uint64_t ra = (uint64_t)(uintptr_t)getpid_addr + 4;
    const char *maps = tmp_path("maps");
    snapshot_self(maps);
    ot_symbolizer *s = open_with_maps(maps);

    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), 0);
    cr_assert_not_null(loc.module);
    cr_assert(strncmp(base_name(loc.module), "libc.so", 7) == 0, "module %s", loc.module);
    cr_assert_not_null(loc.function);
    cr_assert(strstr(loc.function, "getpid") != NULL, "function %s", loc.function);
    cr_assert_eq(loc.function_offset, 4);
    cr_assert_null(loc.kernel);

    char label[128], want[128];
    if (loc.file && loc.line) /* libc debug info installed */
        snprintf(want, sizeof want, "%s:%u", base_name(loc.file), loc.line);
    else
        snprintf(want, sizeof want, "%s+0x4", loc.function);
    ot_srcloc_format(&loc, ra, label, sizeof label);
    cr_assert_str_eq(label, want);
    ot_symbolizer_close(s);
}

Test(symbolize, addresses_in_no_module)
{
    const char *maps = tmp_path("maps");
    snapshot_self(maps);
    ot_symbolizer *s = open_with_maps(maps);
    ot_srcloc loc;
    char label[64];

    cr_assert_eq(ot_symbolizer_lookup(s, 0, &loc), -ENOENT);
    cr_assert_null(loc.module);
    cr_assert_null(loc.function);
    ot_srcloc_format(&loc, 0, label, sizeof label);
    cr_assert_str_eq(label, "0x0");

    int local = 0;
    void *heap = malloc(64);
    uint64_t nowhere[] = {0x10, (uintptr_t)heap, (uintptr_t)&local, UINT64_MAX};
    for (size_t i = 0; i < sizeof nowhere / sizeof *nowhere; i++) {
        cr_assert_eq(ot_symbolizer_lookup(s, nowhere[i], &loc), -ENOENT, "%#" PRIx64, nowhere[i]);
        char want[32];
        snprintf(want, sizeof want, "0x%" PRIx64, nowhere[i]);
        ot_srcloc_format(&loc, nowhere[i], label, sizeof label);
        cr_assert_str_eq(label, want);
    }
    free(heap);

    /* A failed lookup, and a label that does not fit. */
    cr_assert_eq(ot_srcloc_format(NULL, 0x1234, label, sizeof label), 6);
    cr_assert_str_eq(label, "0x1234");
    cr_assert_eq(ot_srcloc_format(NULL, 0x1234, label, 4), 6);
    cr_assert_str_eq(label, "0x1");
    cr_assert_eq(ot_srcloc_format(NULL, 0x1234, NULL, 0), 6);
    ot_symbolizer_close(s);
}

/* ---------------------------------------------------------- bad snapshots */

Test(symbolize, missing_maps_file)
{
    unsigned line;
    uint64_t ra = known_caller(&line);
    ot_symbolizer *s = ot_symbolizer_open();
    cr_assert_not_null(s);
    cr_assert_eq(ot_symbolizer_add_maps(s, tmp_path("no-such-maps")), -ENOENT);
    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), -ENOENT);
    ot_symbolizer_close(s);
}

Test(symbolize, garbage_maps_file)
{
    static const char garbage[] = "hello world\n"
                                  "\x01\x02\xff\xfe\x00\x7f binary\n"
                                  "ffff-0000 r-xp 0 fe:00 1 /usr/bin/true\n"     /* lo > hi */
                                  "1000-2000 rwzq 0 fe:00 1 /usr/bin/true\n"     /* perms */
                                  "1000-2000 r-xp zz fe:00 1 /usr/bin/true\n"    /* offset */
                                  "12345678";                                  /* cut short */
    unsigned line;
    uint64_t ra = known_caller(&line);
    const char *path = tmp_path("garbage");
    write_file(path, garbage, sizeof garbage - 1);
    ot_symbolizer *s = ot_symbolizer_open();
    cr_assert_eq(ot_symbolizer_add_maps(s, path), -EINVAL);
    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), -ENOENT);
    cr_assert_eq(ot_symbolizer_lookup(s, 0x1800, &loc), -ENOENT);

    write_file(path, "", 0);
    cr_assert_eq(ot_symbolizer_add_maps(s, path), -EINVAL);
    cr_assert_eq(ot_symbolizer_add_maps(s, tmpdir), -EISDIR);
    cr_assert_eq(ot_symbolizer_add_maps(NULL, path), -EINVAL);
    cr_assert_eq(ot_symbolizer_add_maps(s, NULL), -EINVAL);
    cr_assert_eq(ot_symbolizer_lookup(NULL, ra, &loc), -EINVAL);
    cr_assert_eq(ot_symbolizer_lookup(s, ra, NULL), -EINVAL);
    ot_symbolizer_close(s);
    ot_symbolizer_close(NULL);
}

/* The parse of a maps line as it was before issue 18 (sscanf alone): the
 * kernel's layout now goes through a parser of its own, anything else
 * through this; both must give what this gave, for every line. */
static bool reference_parse(char *line, ot_maps_line *m)
{
    static const char deleted[] = " (deleted)";
    int n = 0;
    memset(m, 0, sizeof *m);
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->lo, &m->hi, m->perms,
               &m->offset, &m->dev_major, &m->dev_minor, &m->inode, &n) != 7 ||
        n == 0 || m->lo >= m->hi || strlen(m->perms) != 4 || !strchr("r-", m->perms[0]) ||
        !strchr("w-", m->perms[1]) || !strchr("x-", m->perms[2]) || !strchr("ps", m->perms[3]))
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

static void expect_same_parse(const char *text)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s", text);
    snprintf(b, sizeof b, "%s", text);
    ot_maps_line got, want;
    bool ok = ot_sym_parse_maps_line(a, &got), want_ok = reference_parse(b, &want);
    cr_assert_eq(ok, want_ok, "accepted or not: '%s'", text);
    if (!ok)
        return;
    cr_assert(got.lo == want.lo && got.hi == want.hi && got.offset == want.offset && got.inode == want.inode &&
                  got.dev_major == want.dev_major && got.dev_minor == want.dev_minor &&
                  !strcmp(got.perms, want.perms) && !strcmp(got.path, want.path) && got.deleted == want.deleted,
              "the same fields: '%s' (path '%s' / '%s')", text, got.path, want.path);
}

Test(symbolize, maps_lines_parse_as_before)
{
    static const char *const lines[] = {
        "7f1200000000-7f1200001000 r--p 00000000 fe:00 42       /nonexistent/lib/libgone.so\n",
        "7f1200001000-7f1200002000 r-xp 00001000 fe:00 42 /lib/with space/libx.so (deleted)\n",
        "55d4c0a00000-55d4c0a21000 rw-p 00000000 00:00 0                          [heap]\n",
        "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n",
        "7ffd1000-7ffd2000 rw-p 00000000 00:00 0\n",
        "7ffd1000-7ffd2000 rw-p 00000000 00:00 0",           /* no newline, no path */
        "7ffd1000-7ffd2000 rw-p 00000000 00:00 0 ",
        "7FFD1000-7FFD2000 r-xp 0000ABCD FE:0A 12 /upper/case\n",
        "0x1000-0x2000 r-xp 0x10 fe:00 1 /with/0x/prefixes\n", /* sscanf takes these */
        " 1000-2000 r-xp 0 fe:00 1 /leading/space\n",
        "1000-2000  r-xp 0 fe:00 1 /two/spaces\n",
        "1000-2000\tr-xp\t0\tfe:00\t1\t/tabs\n",
        "1000-2000 r-xp 0 fe:00 1/path/right/after/inode\n",
        "1000-2000 r-xp 0 fe:00 1abc\n",
        "1000-2000 r-xpX 0 fe:00 1 /five/perms\n",
        "1000-2000 r-x 0 fe:00 1 /three/perms\n",
        "1000-2000 r-xp 0 fe:00 18446744073709551615 /max/inode\n",
        "1000-2000 r-xp 0 fe:00 184467440737095516150 /inode/too/long\n",
        "00000000000000001000-2000 r-xp 0 fe:00 1 /seventeen/digits\n",
        "1000-2000 r-xp 0 123456789:00 1 /long/major\n",
        "1000-2000 r-xp 0 fe-00 1 /no/colon\n",
        "1000-2000 r-xp 0 fe:00\n",
        "2000-1000 r-xp 0 fe:00 1 /lo/above/hi\n",
        "1000-1000 r-xp 0 fe:00 1 /empty/range\n",
        "1000-2000 rwzq 0 fe:00 1 /bad/perms\n",
        "1000-2000 r-xp zz fe:00 1 /bad/offset\n",
        "1000-2000 r-xp 0 fe:00 1 (deleted)\n",
        "1000-2000 r-xp 0 fe:00 1  (deleted)\n",
        "1000-2000 r-xp 0 fe:00 1 /a (deleted) (deleted)\n",
        "1000-2000 r-xp 0 fe:00 1 /trailing/blanks   \t\n",
        "1000-2000 r-xp -1 fe:00 1 /negative\n",
        "1000-",
        "-2000 r-xp 0 fe:00 1 /x\n",
        "",
        "12345678",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        expect_same_parse(lines[i]);
    /* and every line of this process's own maps, as the recorder saves them */
    char *maps = read_file("/proc/self/maps");
    size_t count = 0;
    for (char *line = maps, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        char one[1024];
        size_t len = next ? (size_t)(next - line) + 1 : strlen(line);
        snprintf(one, sizeof one, "%.*s", (int)len, line);
        expect_same_parse(one);
        next = next ? next + 1 : NULL;
        count++;
    }
    cr_assert_gt(count, 10);
    free(maps);
}

/* A snapshot cut short by a crash, with noise in it, still resolves. */
Test(symbolize, truncated_snapshot_with_noise)
{
    unsigned line;
    uint64_t ra = known_caller(&line);
    char *maps = read_file("/proc/self/maps");
    size_t len = strlen(maps);
    char *text = malloc(len + 64);
    cr_assert_not_null(text);
    int head = snprintf(text, 64, "not a maps line\n\n");
    memcpy(text + head, maps, len);
    size_t cut = head + len - 20; /* half of the last line ([vsyscall] or so) */
    const char *path = tmp_path("maps");
    write_file(path, text, cut);

    ot_symbolizer *s = open_with_maps(path);
    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), 0);
    cr_assert_eq(loc.line, line);
    ot_symbolizer_close(s);
    free(text);
    free(maps);
}

/* -------------------------------------------------- address-only fallback */

Test(symbolize, vanished_files_keep_module_offset)
{
    static const char maps[] =
        "7f1200000000-7f1200001000 r--p 00000000 fe:00 42       /nonexistent/lib/libgone.so\n"
        "7f1200001000-7f1200005000 r-xp 00001000 fe:00 42       /nonexistent/lib/libgone.so\n"
        "7f1200005000-7f1200006000 rw-p 00004000 fe:00 42       /nonexistent/lib/libgone.so\n"
        "7f1300000000-7f1300002000 r-xp 00000000 00:00 0        [vdso]\n"
        "7f1400000000-7f1400001000 rwxp 00000000 00:00 0 \n"
        "7f1500000000-7f1500010000 r-xp 00000000 fe:00 43       /tmp/old program (deleted)\n";
    const char *path = tmp_path("maps");
    write_file(path, maps, sizeof maps - 1);
    ot_symbolizer *s = open_with_maps(path);
    ot_srcloc loc;
    char label[64];

    cr_assert_eq(ot_symbolizer_lookup(s, 0x7f1200001235, &loc), 0);
    cr_assert_str_eq(loc.module, "/nonexistent/lib/libgone.so");
    cr_assert_eq(loc.module_offset, 0x1235);
    cr_assert_null(loc.file);
    cr_assert_null(loc.function);
    ot_srcloc_format(&loc, 0x7f1200001235, label, sizeof label);
    cr_assert_str_eq(label, "libgone.so+0x1235");

    /* Data pages, the vdso and anonymous code are no module. */
    cr_assert_eq(ot_symbolizer_lookup(s, 0x7f1200000100, &loc), -ENOENT);
    cr_assert_eq(ot_symbolizer_lookup(s, 0x7f1200005100, &loc), -ENOENT);
    cr_assert_eq(ot_symbolizer_lookup(s, 0x7f1300000100, &loc), -ENOENT);
    cr_assert_eq(ot_symbolizer_lookup(s, 0x7f1400000100, &loc), -ENOENT);

    cr_assert_eq(ot_symbolizer_lookup(s, 0x7f1500000101, &loc), 0);
    cr_assert_str_eq(loc.module, "/tmp/old program");
    ot_srcloc_format(&loc, 0x7f1500000101, label, sizeof label);
    cr_assert_str_eq(label, "old program+0x101");
    ot_symbolizer_close(s);
}

/* The executable rebuilt since the snapshot (same path and filesystem, other
 * inode): its line table would lie, so only module+offset is given. */
Test(symbolize, rebuilt_file_is_not_trusted)
{
    unsigned line;
    uint64_t ra = known_caller(&line);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert_gt(n, 0);
    exe[n] = '\0';
    struct stat st;
    cr_assert_eq(stat(exe, &st), 0);

    char *maps = read_file("/proc/self/maps");
    char *out = malloc(strlen(maps) + 4096);
    cr_assert_not_null(out);
    size_t len = 0;
    for (char *line_text = strtok(maps, "\n"); line_text; line_text = strtok(NULL, "\n")) {
        uint64_t lo, hi, off, ino;
        char perms[5];
        int path_at = 0;
        if (sscanf(line_text, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*x:%*x %" SCNu64 " %n", &lo,
                   &hi, perms, &off, &ino, &path_at) == 5 &&
            strcmp(line_text + path_at, exe) == 0)
            len += sprintf(out + len,
                           "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64 " %x:%x %" PRIu64 " %s\n", lo,
                           hi, perms, off, major(st.st_dev), minor(st.st_dev),
                           (uint64_t)st.st_ino + 1, exe);
    }
    const char *path = tmp_path("maps");
    write_file(path, out, len);
    ot_symbolizer *s = open_with_maps(path);
    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), 0);
    cr_assert_str_eq(loc.module, exe);
    cr_assert_null(loc.file);
    cr_assert_null(loc.function);
    cr_assert_gt(loc.module_offset, 0);
    ot_symbolizer_close(s);
    free(out);
    free(maps);
}

/* A library loaded late only shows in a later snapshot; misses cached before
 * it arrived must not stick. */
Test(symbolize, later_snapshot_adds_modules)
{
    static const char early[] =
        "7f1200001000-7f1200005000 r-xp 00001000 fe:00 42 /nonexistent/lib/libgone.so\n";
    unsigned line;
    uint64_t ra = known_caller(&line);
    const char *first = tmp_path("maps.0"), *second = tmp_path("maps.1");
    write_file(first, early, sizeof early - 1);
    snapshot_self(second);

    ot_symbolizer *s = open_with_maps(first);
    ot_srcloc loc;
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), -ENOENT);
    cr_assert_eq(ot_symbolizer_add_maps(s, second), 0);
    cr_assert_eq(ot_symbolizer_add_maps(s, second), 0); /* the same again: no harm */
    cr_assert_eq(ot_symbolizer_lookup(s, ra, &loc), 0);
    cr_assert_eq(loc.line, line);
    cr_assert_eq(ot_symbolizer_lookup(s, 0x7f1200001010, &loc), 0);
    cr_assert_eq(loc.module_offset, 0x1010); /* no offset-0 line: mapped linearly */
    ot_symbolizer_close(s);
}

/* ------------------------------------------------- a real offload program */

/*
 * A tiny OpenMP offload program that is its own OMPT tool: it writes the kind
 * and codeptr_ra of each target construct, then its /proc/self/maps, and
 * exits. The markers name the lines of the pragmas: target regions in a plain
 * function, in an inlinable one, inside a parallel region (outlined by
 * clang) and in a loop (optimized, the ident and region id are loaded into
 * registers once, before it), and an update right after the first region,
 * whose call must not be given that region's kernel.
 */
static const char fixture_src[] =
    "#include <omp-tools.h>\n"
    "#include <stdio.h>\n"
    "static FILE *out;\n"
    "static void on_target(ompt_target_t kind, ompt_scope_endpoint_t ep, int dev,\n"
    "                      ompt_data_t *task, ompt_data_t *target, ompt_id_t *op,\n"
    "                      const void *codeptr_ra)\n"
    "{\n"
    "    if (out && ep == ompt_scope_begin)\n"
    "        fprintf(out, \"%d %p\\n\", (int)kind, codeptr_ra);\n"
    "}\n"
    "static int init(ompt_function_lookup_t lookup, int num, ompt_data_t *data)\n"
    "{\n"
    "    ompt_set_callback_t set = (ompt_set_callback_t)lookup(\"ompt_set_callback\");\n"
    "    set(ompt_callback_target_emi, (ompt_callback_t)on_target);\n"
    "    return 1;\n"
    "}\n"
    "static void fini(ompt_data_t *data) {}\n"
    "ompt_start_tool_result_t *ompt_start_tool(unsigned version, const char *runtime)\n"
    "{\n"
    "    static ompt_start_tool_result_t result = {init, fini, {0}};\n"
    "    return &result;\n"
    "}\n"
    "#ifdef __cplusplus\n"
    "namespace ns {\n"
    "#endif\n"
    "void work(float *x, int n)\n"
    "{\n"
    "#pragma omp target map(tofrom: x[0:n]) /* L_WORK */\n"
    "    for (int i = 0; i < n; i++) x[i] += 1;\n"
    "#pragma omp target update from(x[0:n]) /* L_UPDATE */\n"
    "}\n"
    "#ifdef __cplusplus\n"
    "}\n"
    "using ns::work;\n"
    "#endif\n"
    "static inline void helper(float *x, int n)\n"
    "{\n"
    "#pragma omp target map(tofrom: x[0:n]) /* L_HELPER */\n"
    "    for (int i = 0; i < n; i++) x[i] += 1;\n"
    "}\n"
    "void par(float *x, int n)\n"
    "{\n"
    "#pragma omp parallel num_threads(1)\n"
    "    {\n"
    "#pragma omp target map(tofrom: x[0:n]) /* L_PAR */\n"
    "        for (int i = 0; i < n; i++) x[i] += 1;\n"
    "    }\n"
    "}\n"
    "static void looped(float *x, int n)\n"
    "{\n"
    "#pragma omp target teams distribute parallel for map(tofrom: x[0:n]) /* L_LOOP */\n"
    "    for (int i = 0; i < n; i++) x[i] -= 1;\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    float x[4] = {0};\n"
    "    if (argc != 3 || !(out = fopen(argv[1], \"w\")))\n"
    "        return 2;\n"
    "    work(x, 4);\n"
    "    helper(x, 4);\n"
    "    par(x, 4);\n"
    "    for (int k = 0; k < 4; k++) { /* once before the loop: ident and region id */\n"
    "        looped(x, 4);\n"
    "        looped(x, 4);\n"
    "    }\n"
    "    FILE *in = fopen(\"/proc/self/maps\", \"r\"), *maps = fopen(argv[2], \"w\");\n"
    "    for (int c; in && maps && (c = fgetc(in)) != EOF;)\n"
    "        fputc(c, maps);\n"
    "    fclose(in);\n"
    "    fclose(maps);\n"
    "    fclose(out);\n"
    "    return 0;\n"
    "}\n";

static unsigned line_of(const char *source, const char *marker)
{
    const char *at = strstr(source, marker);
    cr_assert_not_null(at);
    unsigned line = 1;
    for (const char *p = source; p < at; p++)
        line += *p == '\n';
    return line;
}

static unsigned fixture_line(const char *marker)
{
    return line_of(fixture_src, marker);
}

/**
 * Build `source` (written as fixture.c) into `name` with clang-19, -fopenmp
 * and extra flags, then run `post` on it (e.g. strip); skips the test where
 * the toolchain cannot do it.
 */
static const char *build_program(const char *source, const char *name, const char *flags,
                                 const char *post)
{
    if (system("clang-19 --version >/dev/null 2>&1") != 0)
        cr_skip_test("clang-19 is not installed");
    write_file(tmp_path("fixture.c"), source, strlen(source));
    static char bin[PATH_MAX];
    snprintf(bin, sizeof bin, "%s/%s", tmpdir, name);
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && clang-19 %s -fopenmp"
             " -Wl,-rpath,\"$(dirname \"$(clang-19 -print-file-name=libomptarget.so)\")\""
             " fixture.c -o '%s' >build.log 2>&1 %s%s",
             tmpdir, flags, bin, post ? "&& " : "", post ? post : "");
    if (system(cmd) != 0)
        cr_skip_test("cannot build with `%s` (see build.log)", flags);
    return bin;
}

static const char *build_fixture(const char *name, const char *flags, const char *post)
{
    char all[256];
    snprintf(all, sizeof all, "-fopenmp-targets=x86_64-pc-linux-gnu %s", flags);
    return build_program(fixture_src, name, all, post);
}

static void check_kernel_name(const char *kernel, const char *function, unsigned line)
{
    char suffix[64];
    snprintf(suffix, sizeof suffix, "_%s_l%u", function, line);
    cr_assert_not_null(kernel, "no kernel for %s:%u", function, line);
    cr_assert(strncmp(kernel, "__omp_offloading_", 17) == 0, "kernel %s", kernel);
    size_t len = strlen(kernel), slen = strlen(suffix);
    cr_assert(len > slen && strcmp(kernel + len - slen, suffix) == 0, "kernel %s, want *%s", kernel,
              suffix);
}

static const char *const fixture_markers[] = {"L_WORK", "L_HELPER", "L_PAR", "L_LOOP"};
/* What LLVM puts into the kernel names: the linkage names. */
static const char *const c_kernel_names[] = {"work", "helper", "par", "looped"};
static const char *const cxx_kernel_names[] = {"_ZN2ns4workEPfi", "_ZL6helperPfi", "_Z3parPfi",
                                               "_ZL6loopedPfi"};

/** `want`, or in C++ possibly qualified: `ns::want`. */
static bool function_is(const char *got, const char *want)
{
    size_t len = strlen(got), wlen = strlen(want);
    return strcmp(got, want) == 0 ||
           (len > wlen + 2 && strcmp(got + len - wlen, want) == 0 && got[len - wlen - 1] == ':');
}

static void check_find_kernel(const char *bin, const char *const names[4])
{
    ot_symbolizer *s = ot_symbolizer_open();
    const char *kernel;
    for (int i = 0; i < 4; i++) {
        unsigned line = fixture_line(fixture_markers[i]);
        cr_assert_eq(ot_symbolizer_find_kernel(s, bin, names[i], line, &kernel), 0, "%s", names[i]);
        check_kernel_name(kernel, names[i], line);
    }
    unsigned l_work = fixture_line("L_WORK");
    cr_assert_eq(ot_symbolizer_find_kernel(s, bin, names[0], 0, &kernel), 0); /* its only one */
    check_kernel_name(kernel, names[0], l_work);

    cr_assert_eq(ot_symbolizer_find_kernel(s, bin, names[0], l_work + 1, &kernel), -ENOENT);
    cr_assert_null(kernel);
    cr_assert_eq(ot_symbolizer_find_kernel(s, bin, "wor", l_work, &kernel), -ENOENT);
    cr_assert_eq(ot_symbolizer_find_kernel(s, bin, "main", 0, &kernel), -ENOENT);
    cr_assert_eq(ot_symbolizer_find_kernel(s, tmp_path("nothing"), "work", l_work, &kernel),
                 -ENOENT);
    cr_assert_lt(ot_symbolizer_find_kernel(s, tmp_path("fixture.c"), "work", l_work, &kernel), 0);
    cr_assert_eq(ot_symbolizer_find_kernel(s, bin, NULL, l_work, &kernel), -EINVAL);
    ot_symbolizer_close(s);
}

enum { FIXTURE_RECORDS = 12 };

/** In the order the fixture runs them; the update has no kernel. */
static const struct fixture_construct {
    int kind; /**< ompt_target_t */
    const char *marker, *function;
    int kernel; /**< index into the kernel names, -1 for none */
} fixture_constructs[] = {
    {1, "L_WORK", "work", 0},     {4, "L_UPDATE", "work", -1}, {1, "L_HELPER", "helper", 1},
    {1, "L_PAR", "par", 2},       {1, "L_LOOP", "looped", 3},  {1, "L_LOOP", "looped", 3},
    {1, "L_LOOP", "looped", 3},   {1, "L_LOOP", "looped", 3},  {1, "L_LOOP", "looped", 3},
    {1, "L_LOOP", "looped", 3},   {1, "L_LOOP", "looped", 3},  {1, "L_LOOP", "looped", 3},
};

/** Run the fixture; the codeptr_ra of its constructs. */
static void run_fixture(const char *bin, uint64_t ra[FIXTURE_RECORDS])
{
    char cmd[4 * PATH_MAX];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u OMP_TOOL_LIBRARIES OMP_TOOL=enabled '%s' ras maps >run.log 2>&1",
             tmpdir, bin);
    if (system(cmd) != 0)
        cr_skip_test("the offload fixture does not run here (see run.log)");
    FILE *f = fopen(tmp_path("ras"), "r");
    cr_assert_not_null(f);
    int got = 0, kind;
    while (got < FIXTURE_RECORDS && fscanf(f, "%d %" SCNx64, &kind, &ra[got]) == 2) {
        cr_assert_eq(kind, fixture_constructs[got].kind, "record %d", got);
        got++;
    }
    fclose(f);
    if (got == 0)
        cr_skip_test("the OpenMP runtime reported no target constructs");
    cr_assert_eq(got, FIXTURE_RECORDS);
}

/**
 * Run the fixture and resolve what it recorded once it has exited: the
 * kernels (none for the update), and with `source` the pragma's file:line
 * and function too.
 */
static void check_post_mortem(const char *bin, bool source, const char *const names[4])
{
    uint64_t ra[FIXTURE_RECORDS];
    run_fixture(bin, ra);
    ot_symbolizer *s = open_with_maps(tmp_path("maps"));
    for (int i = 0; i < FIXTURE_RECORDS; i++) {
        const struct fixture_construct *fc = &fixture_constructs[i];
        unsigned line = fixture_line(fc->marker);
        ot_srcloc loc;
        cr_assert_eq(ot_symbolizer_lookup(s, ra[i], &loc), 0);
        cr_assert_str_eq(loc.module, bin);
        bool hoisted = strcmp(fc->marker, "L_LOOP") == 0;
        if (fc->kernel < 0)
            cr_assert_null(loc.kernel, "%s: kernel %s", fc->marker, loc.kernel);
        else if (source || !hoisted || loc.kernel) /* see offload_program_without_debug_info */
            check_kernel_name(loc.kernel, names[fc->kernel], line);
        if (!source)
            continue;
        cr_assert_not_null(loc.file, "%s", fc->marker);
        cr_assert_str_eq(base_name(loc.file), "fixture.c");
        cr_assert_eq(loc.line, line, "%s: line %u, want %u", fc->marker, loc.line, line);
        cr_assert_not_null(loc.function);
        cr_assert(function_is(loc.function, fc->function), "function %s, want %s", loc.function,
                  fc->function);
    }
    ot_symbolizer_close(s);
}

Test(symbolize, offload_program_O0, .timeout = 120)
{
    const char *bin = build_fixture("fixture-O0", "-g -O0", NULL);
    check_find_kernel(bin, c_kernel_names);
    check_post_mortem(bin, true, c_kernel_names);
}

/* Optimized, the host entries are gone (only `.region_id` and
 * `.offloading.entry` symbols name the kernels), helper() is inlined, and
 * the line table says line 0 at the calls: the call site has to tell. */
Test(symbolize, offload_program_O2, .timeout = 120)
{
    const char *bin = build_fixture("fixture-O2", "-g -O2", NULL);
    check_find_kernel(bin, c_kernel_names);
    check_post_mortem(bin, true, c_kernel_names);
}

/* lld leaves PIE pointers zero in the file, stated only by relocations. */
Test(symbolize, offload_program_lld, .timeout = 120)
{
    const char *bin = build_fixture("fixture-lld", "-g -O2 -fuse-ld=lld", NULL);
    check_find_kernel(bin, c_kernel_names);
    check_post_mortem(bin, true, c_kernel_names);
}

/* Without symbol table nor DWARF: the offload entry table still names the
 * kernels and the construct's ident still gives the pragma's location. */
Test(symbolize, offload_program_stripped, .timeout = 120)
{
    const char *bin = build_fixture("fixture-stripped", "-g -O2", "strip fixture-stripped");
    check_find_kernel(bin, c_kernel_names);
    check_post_mortem(bin, true, c_kernel_names);
}

/* Without -g there is no location at all, but the kernel is still known,
 * except where the compiler hoisted the region id into a register: with no
 * psource line to check it against, that is not trusted. */
Test(symbolize, offload_program_without_debug_info, .timeout = 120)
{
    const char *bin = build_fixture("fixture-nodebug", "-O2", NULL);
    check_find_kernel(bin, c_kernel_names);
    check_post_mortem(bin, false, c_kernel_names);
}

/* C++: kernels carry mangled names, work() sits in a namespace (which
 * elfutils' own scope lookup does not enter), par() outlines to
 * `_Z3parPfi.omp_outlined`. */
Test(symbolize, offload_program_cxx_O0, .timeout = 120)
{
    const char *bin = build_fixture("fixture-cxx-O0", "-x c++ -g -O0", NULL);
    check_find_kernel(bin, cxx_kernel_names);
    check_post_mortem(bin, true, cxx_kernel_names);
}

Test(symbolize, offload_program_cxx_O2, .timeout = 120)
{
    const char *bin = build_fixture("fixture-cxx-O2", "-x c++ -g -O2", NULL);
    check_find_kernel(bin, cxx_kernel_names);
    check_post_mortem(bin, true, cxx_kernel_names);
}

/* ------------------------------------- DWARF alone: no offload call to read */

/*
 * Plain calls (no libomptarget entry, so nothing at the call site to read):
 * what DWARF alone must give. A C++ function in a namespace, which
 * elfutils' own scope lookup does not enter, a parallel region, which clang
 * outlines into an artificial `_Z1gv.omp_outlined` outside g's DIE, and a
 * call right after the region, whose setup (an ident in %rdi) is near but
 * belongs to the runtime call before.
 */
static const char cxx_src[] =
    "#include <stdio.h>\n"
    "static void *volatile ras[3];\n"
    "extern \"C\" __attribute__((noinline)) void capture(int i)\n"
    "{\n"
    "    ras[i] = __builtin_return_address(0);\n"
    "}\n"
    "namespace ns {\n"
    "__attribute__((noinline)) void f()\n"
    "{\n"
    "    capture(0); /* L_NS */\n"
    "    ras[0] = ras[0];\n"
    "}\n"
    "}\n"
    "__attribute__((noinline)) void g()\n"
    "{\n"
    "#pragma omp parallel num_threads(1)\n"
    "    {\n"
    "        capture(1); /* L_OUTLINED */\n"
    "        ras[1] = ras[1];\n"
    "    }\n"
    "    capture(2); /* L_AFTER */\n"
    "    ras[2] = ras[2];\n"
    "}\n"
    "int main(int argc, char **argv)\n"
    "{\n"
    "    ns::f();\n"
    "    g();\n"
    "    FILE *out = fopen(argv[1], \"w\"), *in = fopen(\"/proc/self/maps\", \"r\");\n"
    "    fprintf(out, \"%p %p %p\\n\", ras[0], ras[1], ras[2]);\n"
    "    for (int c; (c = fgetc(in)) != EOF;)\n"
    "        fputc(c, out);\n"
    "    return fclose(out) != 0;\n"
    "}\n";

Test(symbolize, cxx_namespace_and_outlined_region, .timeout = 120)
{
    const char *bin = build_program(cxx_src, "cxx-plain", "-x c++ -g -O0", NULL);
    char cmd[2 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' out >run.log 2>&1", tmpdir, bin);
    cr_assert_eq(system(cmd), 0, "see run.log");
    uint64_t ra[3];
    FILE *f = fopen(tmp_path("out"), "r");
    cr_assert_not_null(f);
    cr_assert_eq(fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNx64, &ra[0], &ra[1], &ra[2]), 3);
    fclose(f);

    ot_symbolizer *s = open_with_maps(tmp_path("out")); /* the maps follow the first line */
    static const char *const markers[] = {"L_NS", "L_OUTLINED", "L_AFTER"};
    static const char *const functions[] = {"f", "g", "g"};
    for (int i = 0; i < 3; i++) {
        ot_srcloc loc;
        cr_assert_eq(ot_symbolizer_lookup(s, ra[i], &loc), 0);
        cr_assert_not_null(loc.file, "%s", markers[i]);
        cr_assert_str_eq(base_name(loc.file), "fixture.c");
        cr_assert_eq(loc.line, line_of(cxx_src, markers[i]), "%s", markers[i]);
        cr_assert_str_eq(loc.function, functions[i]);
        cr_assert_null(loc.kernel);
    }
    ot_symbolizer_close(s);
}

/* The machine's description with and without its per-machine cache
 * (host/convert/topology_cache.h): the cached description is hwloc's, byte
 * for byte; a cache file made for another key or damaged in any way is
 * ignored and written anew; an unusable cache directory, a HWLOC_*
 * variable or OFFTRACE_TOPOLOGY_CACHE=off leave hwloc to describe it. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topology.h"
#include "topology_cache.h"

static char dir[] = "/tmp/ot_topology_XXXXXX";
static char file[PATH_MAX];
static ot_topology by_hwloc; /* with the cache off */

static void setup(void)
{
    cr_assert_not_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    unsetenv("OFFTRACE_TOPOLOGY_CACHE");
    ot_topology_cache c;
    cr_assert_eq(ot_topology_cache_open(&c, 0), 0, "the cache is usable in a test");
    snprintf(file, sizeof file, "%s", c.path);
    cr_assert(!strncmp(file, dir, strlen(dir)), "the cache file %s is under XDG_CACHE_HOME", file);
    setenv("OFFTRACE_TOPOLOGY_CACHE", "off", 1);
    cr_assert_eq(ot_topology_describe(&by_hwloc), 0);
    cr_assert_eq(access(file, F_OK), -1, "no cache file with OFFTRACE_TOPOLOGY_CACHE=off");
    cr_assert_gt(by_hwloc.prop_count, 2, "hwloc describes this machine");
    unsetenv("OFFTRACE_TOPOLOGY_CACHE");
}

static void teardown(void)
{
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(topology, .init = setup, .fini = teardown);

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    static char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* A copy of the file's text with the first `from` replaced by `to`
 * (malloc'ed; the test's process ends soon). */
static char *edited(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "'%s' in the cache file:\n%s", from, text);
    char *out = NULL;
    cr_assert_gt(asprintf(&out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from)), 0);
    return out;
}

static void expect_hwloc(const char *what)
{
    ot_topology t;
    cr_assert_eq(ot_topology_describe(&t), 0, "%s", what);
    cr_assert(!memcmp(&t, &by_hwloc, sizeof t), "%s: the description is hwloc's (machine '%s')", what, t.machine);
}

Test(topology, cached_description_is_hwlocs)
{
    expect_hwloc("first conversion (no cache yet)");
    char *text = slurp(file);
    cr_assert(strstr(text, "offtrace-topology 1\nkey\tboot "), "written:\n%s", text);
    cr_assert(strstr(text, "\nend\n"), "written whole:\n%s", text);
    expect_hwloc("second conversion (from the cache)");
}

/* A hit really comes from the file: a description edited in a file with
 * the right key is what the converter gets. */
Test(topology, hit_comes_from_the_file)
{
    expect_hwloc("first conversion");
    char *text = slurp(file);
    char machine[160];
    snprintf(machine, sizeof machine, "machine\t%s\n", by_hwloc.machine);
    put(file, edited(text, machine, "machine\tEdited Machine 9000\n"));
    ot_topology t;
    cr_assert_eq(ot_topology_describe(&t), 0);
    cr_assert_str_eq(t.machine, "Edited Machine 9000");
    cr_assert_eq(t.prop_count, by_hwloc.prop_count);
    cr_assert_str_eq(t.hostname, by_hwloc.hostname, "the host name is never cached");
}

/* Another boot, another hwloc, CPUs or memory brought online or offline,
 * another allowed set: the file is stale. */
Test(topology, stale_key_is_ignored_and_rewritten)
{
    expect_hwloc("first conversion");
    char *good = strdup(slurp(file));
    char machine[160];
    snprintf(machine, sizeof machine, "machine\t%s\n", by_hwloc.machine);
    static const char *const keys[][2] = {{"key\tboot ", "key\tboot 0"}, {" hwloc 0x", " hwloc 0x1"},
                                          {" online ", " online 9,"}, {" memory ", " memory 1"},
                                          {" cpus ", " cpus 7,"}, {" mems ", " mems 3,"}};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        put(file, edited(edited(good, keys[i][0], keys[i][1]), machine, "machine\tStale\n"));
        expect_hwloc(keys[i][1]);
        cr_assert_str_eq(slurp(file), good, "rewritten for this key after '%s'", keys[i][1]);
    }
    free(good);
}

Test(topology, damaged_files_are_ignored_and_rewritten)
{
    expect_hwloc("first conversion");
    char *good = strdup(slurp(file));
    char machine[160], long_value[300];
    snprintf(machine, sizeof machine, "machine\t%s\n", by_hwloc.machine);
    snprintf(long_value, sizeof long_value, "machine\t%0200d\n", 0);
    char *nine = good;
    for (int i = 0; i < 9; i++) /* more properties than a description holds */
        nine = edited(nine, "\nend\n", "\nprop\tp\tv\nend\n");
    const char *damaged[] = {
        "",
        "garbage\n",
        edited(good, "\nend\n", "\n"),                      /* cut short: no end */
        strndup(good, strlen(good) - 1),                    /* cut inside the last line */
        edited(good, "\nend\n", "\nend\nmore\n"),           /* something after the end */
        edited(good, "offtrace-topology 1", "offtrace-topology 0"),
        edited(good, machine, long_value),                  /* a value too long for the archive */
        edited(good, machine, "machine\t\n"),               /* an empty value */
        edited(good, machine, "machine\tA\001B\n"),         /* a control character */
        edited(good, "\nend\n", "\nprop\tlonely\nend\n"),     /* a property without its value */
        edited(good, "prop\t", "prop\t\t"),                 /* an empty property name */
        nine,
    };
    for (size_t i = 0; i < sizeof damaged / sizeof *damaged; i++) {
        char *text = strdup(damaged[i]);
        put(file, text);
        expect_hwloc(text);
        cr_assert_str_eq(slurp(file), good, "rewritten after damage %zu", i);
        free(text);
    }
    free(good);
}

/* Not a regular file where the cache should be: never read (a FIFO would
 * block, a link to /dev/zero feed zeros), and the conversion goes on. */
Test(topology, not_a_regular_file)
{
    cr_assert_eq(ot_topology_describe(&(ot_topology){0}), 0);
    unlink(file);
    cr_assert_eq(symlink("/dev/zero", file), 0);
    expect_hwloc("a link to /dev/zero");
    unlink(file);
    cr_assert_eq(mkfifo(file, 0600), 0);
    expect_hwloc("a FIFO");
    unlink(file);
    cr_assert_eq(mkdir(file, 0700), 0);
    expect_hwloc("a directory (cannot be replaced)");
    expect_hwloc("a directory, again");
}

Test(topology, unusable_cache_directory)
{
    char blocker[PATH_MAX];
    snprintf(blocker, sizeof blocker, "%s/file", dir);
    put(blocker, "a file where a directory should be\n");
    setenv("XDG_CACHE_HOME", blocker, 1);
    expect_hwloc("cache directory under a regular file");
    setenv("XDG_CACHE_HOME", "relative/path", 1); /* XDG: ignored, ~/.cache instead */
    setenv("HOME", blocker, 1);
    expect_hwloc("relative XDG_CACHE_HOME, HOME a regular file");
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    expect_hwloc("neither XDG_CACHE_HOME nor HOME");
}

/* With a HWLOC_* variable hwloc may describe another machine (an XML file,
 * a synthetic topology): the cache is neither read nor written. */
Test(topology, hwloc_variables_bypass_the_cache)
{
    expect_hwloc("first conversion");
    char *text = slurp(file);
    char machine[160];
    snprintf(machine, sizeof machine, "machine\t%s\n", by_hwloc.machine);
    put(file, edited(text, machine, "machine\tFrom The Cache\n"));
    setenv("HWLOC_SYNTHETIC", "pack:3 core:2 pu:1", 1);
    ot_topology t;
    cr_assert_eq(ot_topology_describe(&t), 0);
    unsetenv("HWLOC_SYNTHETIC");
    cr_assert_str_neq(t.machine, "From The Cache");
    int packages = 0;
    for (int i = 0; i < t.prop_count; i++)
        if (!strcmp(t.prop_name[i], "packages"))
            packages = atoi(t.prop_value[i]);
    cr_assert_eq(packages, 3, "hwloc's synthetic machine, not this one");
    cr_assert(strstr(slurp(file), "From The Cache"), "the cache file is left alone");
}

Test(topology, switch_values)
{
    setenv("OFFTRACE_TOPOLOGY_CACHE", "no", 1);
    expect_hwloc("OFFTRACE_TOPOLOGY_CACHE=no");
    cr_assert_eq(access(file, F_OK), -1, "nothing written when off");
    setenv("OFFTRACE_TOPOLOGY_CACHE", "sometimes", 1);
    ot_topology_cache c;
    cr_assert_eq(ot_topology_cache_open(&c, 0), -EINVAL);
    expect_hwloc("OFFTRACE_TOPOLOGY_CACHE=sometimes (one line, then hwloc)");
    cr_assert_eq(access(file, F_OK), -1, "nothing written with a bad value");
    setenv("OFFTRACE_TOPOLOGY_CACHE", "ON", 1);
    expect_hwloc("OFFTRACE_TOPOLOGY_CACHE=ON");
    cr_assert_eq(access(file, F_OK), 0, "written when on");
}

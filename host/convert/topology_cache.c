#define _GNU_SOURCE
#include "topology_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "regular_file.h"

extern char **environ;

/* The first line of every cache file; a new layout gets a new number, so
 * an older offtrace's file is stale, never misread. */
#define CACHE_MAGIC "offtrace-topology 1"
/* Far more than a description takes (about 400 bytes); a bigger file is
 * not ours. */
#define CACHE_MAX_BYTES 16384

/* Read a small file of /proc or /sys whole, NUL-terminated. */
static int read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t got = 0;
    ssize_t n;
    while (got + 1 < size && (n = read(fd, buf + got, size - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    buf[got] = '\0';
    return got + 1 < size ? 0 : -EFBIG;
}

/* The value of a "Name:\tvalue" line of /proc/self/status, or "". */
static void status_field(const char *status, const char *name, char *out, size_t size)
{
    size_t len = strlen(name);
    out[0] = '\0';
    for (const char *line = status; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, name, len) || line[len] != ':')
            continue;
        const char *v = line + len + 1;
        v += strspn(v, " \t");
        size_t n = strcspn(v, "\n");
        if (n < size) {
            memcpy(out, v, n);
            out[n] = '\0';
        }
        return;
    }
}

/* hwloc reads HWLOC_XMLFILE, HWLOC_SYNTHETIC, HWLOC_FSROOT, HWLOC_ALLOW,
 * HWLOC_COMPONENTS and more: with any of them set the machine it describes
 * is not necessarily this one, so the cache stays out of the way. */
static int hwloc_environment_set(void)
{
    for (char **e = environ; e && *e; e++)
        if (!strncmp(*e, "HWLOC_", 6))
            return 1;
    return 0;
}

static int parse_switch(const char *text, int *on)
{
    static const char *yes[] = {"1", "on", "yes", "true"}, *no[] = {"0", "off", "no", "false"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(text, yes[i])) { *on = 1; return 0; }
        if (!strcasecmp(text, no[i])) { *on = 0; return 0; }
    }
    return -EINVAL;
}

/* $XDG_CACHE_HOME when it is an absolute path (the XDG rule: a relative
 * one is ignored), else ~/.cache. */
static int cache_directory(char *out, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(out, size, "%s/offtrace", xdg);
    else if (home && home[0] == '/')
        n = snprintf(out, size, "%s/.cache/offtrace", home);
    else
        return -ENOENT;
    return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int ot_topology_cache_open(ot_topology_cache *cache, unsigned hwloc_version)
{
    memset(cache, 0, sizeof *cache);
    const char *knob = getenv("OFFTRACE_TOPOLOGY_CACHE");
    int on = 1;
    if (knob && parse_switch(knob, &on) != 0) {
        fprintf(stderr, "offtrace: OFFTRACE_TOPOLOGY_CACHE='%s' is not valid (accepted: on, off); "
                        "the machine is described without the cache\n", knob);
        return -EINVAL;
    }
    if (!on || hwloc_environment_set())
        return -ENOENT;

    /* One file per host name: a home directory shared by a cluster's nodes
     * keeps each node's description, none overwriting another's. */
    char host[256] = "", dir[PATH_MAX];
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        strcpy(host, "localhost");
    for (char *c = host; *c; c++)
        if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') &&
            *c != '.' && *c != '-' && *c != '_')
            *c = '_';
    if (cache_directory(dir, sizeof dir) != 0)
        return -ENOENT;
    int n = snprintf(cache->path, sizeof cache->path, "%s/topology-%s", dir, host);
    if (n <= 0 || (size_t)n >= sizeof cache->path)
        return -ENOENT;

    /* The key: what makes a description valid. The boot id changes with
     * every boot (hardware, firmware or kernel may have changed); CPUs and
     * memory brought on- or offline without a reboot change the online
     * CPUs and the memory's total; the allowed CPUs and memory nodes
     * change with cgroups and containers, and hwloc's tree leaves out what
     * is not allowed. */
    char boot[64], online[1024], text[16384], cpus[1024], mems[512], memory[64];
    if (read_small("/proc/sys/kernel/random/boot_id", boot, sizeof boot) != 0 || !boot[0] ||
        read_small("/sys/devices/system/cpu/online", online, sizeof online) != 0 || !online[0])
        return -ENOENT;
    boot[strcspn(boot, "\n")] = '\0';
    online[strcspn(online, "\n")] = '\0';
    if (read_small("/proc/self/status", text, sizeof text) != 0)
        return -ENOENT;
    status_field(text, "Cpus_allowed_list", cpus, sizeof cpus);
    status_field(text, "Mems_allowed_list", mems, sizeof mems);
    if (read_small("/proc/meminfo", text, sizeof text) != 0)
        return -ENOENT;
    status_field(text, "MemTotal", memory, sizeof memory);
    if (!cpus[0] || !mems[0] || !memory[0])
        return -ENOENT;
    n = snprintf(cache->key, sizeof cache->key, "boot %s hwloc %#x online %s memory %s cpus %s mems %s", boot,
                 hwloc_version, online, memory, cpus, mems);
    if (n <= 0 || (size_t)n >= sizeof cache->key)
        return -ENOENT;
    return 0;
}

/* Copy a field of the file into a buffer of the description: a value that
 * does not fit, is empty or holds a control character is damage. */
static int take(char *dst, size_t size, const char *src, size_t len)
{
    if (len == 0 || len >= size)
        return -EBADMSG;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)src[i] < 0x20 || src[i] == 0x7f)
            return -EBADMSG;
    memcpy(dst, src, len);
    dst[len] = '\0';
    return 0;
}

/* One line of the file, without its newline; NULL at the end or on a last
 * line without one (a file cut short). */
static const char *next_line(const char **cursor, const char *end, size_t *len)
{
    const char *line = *cursor;
    const char *nl = line < end ? memchr(line, '\n', (size_t)(end - line)) : NULL;
    if (!nl)
        return NULL;
    *len = (size_t)(nl - line);
    *cursor = nl + 1;
    return line;
}

static int parse(const ot_topology_cache *cache, const char *text, size_t size, ot_topology *out)
{
    const char *cursor = text, *end = text + size, *line;
    size_t len, key_len = strlen(cache->key);
    if (!(line = next_line(&cursor, end, &len)) || len != strlen(CACHE_MAGIC) || memcmp(line, CACHE_MAGIC, len))
        return -EBADMSG;
    if (!(line = next_line(&cursor, end, &len)) || len < 4 || memcmp(line, "key\t", 4))
        return -EBADMSG;
    if (len - 4 != key_len || memcmp(line + 4, cache->key, key_len))
        return -ESTALE;
    if (!(line = next_line(&cursor, end, &len)) || len < 8 || memcmp(line, "machine\t", 8) ||
        take(out->machine, sizeof out->machine, line + 8, len - 8))
        return -EBADMSG;
    out->prop_count = 0;
    while ((line = next_line(&cursor, end, &len))) {
        if (len == 3 && !memcmp(line, "end", 3))
            return cursor == end ? 0 : -EBADMSG;
        const char *tab = len > 5 && !memcmp(line, "prop\t", 5) ? memchr(line + 5, '\t', len - 5) : NULL;
        if (!tab || out->prop_count >= OT_TOPOLOGY_MAX_PROPS)
            return -EBADMSG;
        int i = out->prop_count++;
        if (take(out->prop_name[i], sizeof out->prop_name[i], line + 5, (size_t)(tab - line - 5)) ||
            take(out->prop_value[i], sizeof out->prop_value[i], tab + 1, (size_t)(line + len - tab - 1)))
            return -EBADMSG;
    }
    return -EBADMSG; /* no "end": cut short */
}

int ot_topology_cache_read(const ot_topology_cache *cache, ot_topology *out)
{
    struct stat st;
    int fd = ot_open_regular(cache->path, &st);
    if (fd < 0)
        return fd == -ENOENT ? -ENOENT : -EBADMSG;
    char text[CACHE_MAX_BYTES];
    ssize_t got = st.st_size <= CACHE_MAX_BYTES ? read(fd, text, sizeof text) : -1;
    close(fd);
    if (got <= 0 || got != st.st_size)
        return -EBADMSG;
    ot_topology parsed;
    memset(&parsed, 0, sizeof parsed);
    int rc = parse(cache, text, (size_t)got, &parsed);
    if (rc != 0)
        return rc;
    memcpy(out->machine, parsed.machine, sizeof out->machine);
    out->prop_count = parsed.prop_count;
    memcpy(out->prop_name, parsed.prop_name, sizeof out->prop_name);
    memcpy(out->prop_value, parsed.prop_value, sizeof out->prop_value);
    return 0;
}

/* mkdir -p for the cache's directory and the ones above it (~/.cache may
 * not exist yet); private to the user, as XDG asks of its directories. */
static int make_directories(const char *file)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return -EINVAL;
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char was = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return -errno;
        *p = was;
        if (!was)
            return 0;
    }
}

static int printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

int ot_topology_cache_write(const ot_topology_cache *cache, const ot_topology *described)
{
    /* What parse would refuse is not written: it would be rewritten at
     * every conversion. */
    if (!described->machine[0] || !printable(described->machine))
        return -EINVAL;
    for (int i = 0; i < described->prop_count; i++)
        if (!described->prop_name[i][0] || !described->prop_value[i][0] || !printable(described->prop_name[i]) ||
            !printable(described->prop_value[i]) || strchr(described->prop_name[i], '\t'))
            return -EINVAL;
    int rc = make_directories(cache->path);
    if (rc != 0)
        return rc;
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", cache->path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        rc = -errno;
        close(fd);
        unlink(tmp);
        return rc;
    }
    fprintf(f, "%s\nkey\t%s\nmachine\t%s\n", CACHE_MAGIC, cache->key, described->machine);
    for (int i = 0; i < described->prop_count; i++)
        fprintf(f, "prop\t%s\t%s\n", described->prop_name[i], described->prop_value[i]);
    fputs("end\n", f);
    rc = ferror(f) ? -EIO : 0;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, cache->path) != 0)
        rc = -errno;
    if (rc != 0)
        unlink(tmp);
    return rc;
}

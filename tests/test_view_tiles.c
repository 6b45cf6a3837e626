/*
 * The zoomable page of `offtrace view` (docs/view.md) end to end on real
 * recorded archives, checked against sources independent of offtrace's own
 * reader: the page's data is parsed by Python's json module (a parser
 * offtrace did not write), which hands the tiles to this test as lines; the
 * region and transfer counts come from OTF2's own global event reader
 * (check/archive_check.c).
 *
 * At every zoom level the page holds, the tiles that cover the trace (the
 * level's own where present, else the nearest exact or deepest ancestor)
 * account for every region instance exactly once, as a bar or in a mark's
 * count, and for every transfer once in an arrow; exact tiles merge nothing
 * and have no children; a bar is the same in every tile that holds it; the
 * size budget is honoured; serve mode answers / and tiles over a real
 * socket, 404s what does not exist, and stops cleanly on SIGINT.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/run.h"

TestSuite(view_tiles, .timeout = 120);

/* ---- archives ---- */

/* An archive recorded once per test run, shared by the tests that read it. */
static void shared_archive(char *dir, size_t size, const char *name, const char *program, char *const args[])
{
    char full[256], *err = NULL;
    snprintf(full, sizeof full, "tiles-%s", name);
    cr_assert_eq(shared_recording(dir, size, full, program, args, &err), 0, "recording %s failed: %s", program,
                 err ? err : "");
    free(err);
}

/* CG with the device collector: device threads nest eight deep, so the
 * last level holds pieces of regions split by nested ones. */
static void cg_archive(char *dir, size_t size)
{
    shared_archive(dir, size, "cg", "example_cg", NULL);
}

/* Over 100,000 events: too many for the smallest page budget. */
static void big_archive(char *dir, size_t size)
{
    char *args[] = {"32", "600", NULL};
    shared_archive(dir, size, "cg-big", "example_cg", args);
}

/* Every region instance and transfer, as OTF2's reader counts them. */
static void archive_counts(const char *dir, uint64_t *regions, uint64_t *transfers)
{
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    *regions = 0;
    for (int c = 0; c < OFFTRACE_CLASS_COUNT; c++)
        *regions += f.enters[c];
    *transfers = f.puts + f.gets;
    cr_assert_gt(*regions, 100);
    cr_assert_gt(*transfers, 10);
}

/* ---- the page's data, through Python's json ---- */

/* Prints the data (a page's ot-data or one tile) as lines: H head, T tile,
 * B bar, M mark, A arrow, S memory sample; fails on anything that is not
 * valid JSON, and on a kernel whose site is not the line its name ends in. */
static const char to_lines[] =
    "import json, re, sys\n"
    "path = sys.argv[1]\n"
    "text = open(path, encoding='utf-8').read()\n"
    "if path.endswith('.html'):\n"
    "    start = '<script id=\"ot-data\" type=\"application/json\">'\n"
    "    a = text.index(start) + len(start)\n"
    "    text = text[a:text.index('</script>', a)]\n"
    "d = json.loads(text)\n"
    "if 'format' in d:\n"
    "    assert d['format'] == 'offtrace-view' and d['version'] == 2 and d['tile_px'] == 1024\n"
    "    print('H', d['duration'], d['max_level'], len(d['rows']), int(d['complete']), int(d['serve']), d['events'])\n"
    "    for r in d['regions']:\n"
    "        line = re.search(r'_l([0-9]+)$', r['name'])\n"
    "        if line and r['name'].startswith('__omp_offloading_'):\n"
    "            assert re.fullmatch(r'[^/]+\\.c:' + line.group(1), r['site']), (r['name'], r['site'])\n"
    "    assert d['devices'] and all(x['device'] >= 0 and x['name'] for x in d['devices']), d['devices']\n"
    "    for key, t in d['tiles'].items():\n"
    "        assert key == '%d/%d' % (t['k'], t['i']), key\n"
    "    tiles = list(d['tiles'].values())\n"
    "else:\n"
    "    tiles = [d]\n"
    "for t in tiles:\n"
    "    print('T', t['k'], t['i'], t['t0'], t['t1'], int(t['exact']))\n"
    "    for b in t['bars']: print('B', t['k'], t['i'], *b)\n"
    "    for m in t['marks']: print('M', t['k'], t['i'], *m[:9])\n"
    "    for a in t['arrows']: print('A', t['k'], t['i'], *a)\n"
    "    for m in t['memory']: print('S', t['k'], t['i'], *m)\n";

typedef struct tile {
    unsigned k;
    uint64_t i, t0, t1;
    int exact, cover;
} tile;

typedef struct bar {
    unsigned k;
    uint64_t i;
    long v[10]; /* row, level, a, b, start, dur, region, bytes, id, parent */
} bar;

typedef struct page {
    uint64_t duration, events;
    unsigned max_level;
    size_t rows;
    int complete, serve;
    tile *tiles;
    size_t ntiles;
    bar *bars;
    size_t nbars;
    struct { unsigned k; uint64_t i; uint64_t count; } *marks, *arrows;
    size_t nmarks, narrows;
    struct { unsigned k; uint64_t i, counter, t, value; } *samples;
    size_t nsamples;
} page;

static void *grow(void *p, size_t n, size_t size)
{
    if (n & (n - 1)) /* not a power of two: room left */
        return p;
    void *q = realloc(p, (n ? 2 * n : 1) * size);
    cr_assert_not_null(q);
    return q;
}

static int tile_cmp(const void *pa, const void *pb)
{
    const tile *a = pa, *b = pb;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Parse \p path (a page, or a tile's JSON) with Python into \p p. */
static void read_data(const char *path, page *p)
{
    memset(p, 0, sizeof *p);
    char *argv[] = {"python3", "-c", (char *)to_lines, (char *)path, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0, "python3 did not run");
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s is not the page's JSON: %s", path, r.err);
    for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
        unsigned k;
        uint64_t i;
        int used;
        switch (line[0]) {
        case 'H':
            cr_assert_eq(sscanf(line, "H %" SCNu64 " %u %zu %d %d %" SCNu64, &p->duration, &p->max_level, &p->rows,
                                &p->complete, &p->serve, &p->events), 6, "%s", line);
            break;
        case 'T':
            p->tiles = grow(p->tiles, p->ntiles, sizeof *p->tiles);
            tile *t = &p->tiles[p->ntiles++];
            memset(t, 0, sizeof *t);
            cr_assert_eq(sscanf(line, "T %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %d", &t->k, &t->i, &t->t0, &t->t1,
                                &t->exact), 5, "%s", line);
            break;
        case 'B': {
            p->bars = grow(p->bars, p->nbars, sizeof *p->bars);
            bar *b = &p->bars[p->nbars++];
            long *v = b->v;
            cr_assert_eq(sscanf(line, "B %u %" SCNu64 " %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld", &b->k, &b->i, &v[0],
                                &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]), 12, "%s", line);
            break;
        }
        case 'M':
        case 'A': {
            long v[9];
            cr_assert_eq(sscanf(line + 2, "%u %" SCNu64 " %ld %ld %ld %ld %ld %ld %ld %ld %ld%n", &k, &i, &v[0], &v[1],
                                &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &used), 11, "%s", line);
            if (line[0] == 'M') { /* row, level, c0, c1, cat, cover, count, ns, bytes */
                cr_assert(v[2] >= 0 && v[2] <= v[3] && v[3] < 1024 && v[5] >= 1 && v[5] <= 4, "%s", line);
                p->marks = grow(p->marks, p->nmarks, sizeof *p->marks);
                p->marks[p->nmarks].k = k;
                p->marks[p->nmarks].i = i;
                p->marks[p->nmarks++].count = (uint64_t)v[6];
            } else { /* host_row, rdma_row, to_device, count, ... */
                cr_assert_geq(v[3], 1, "%s", line);
                p->arrows = grow(p->arrows, p->narrows, sizeof *p->arrows);
                p->arrows[p->narrows].k = k;
                p->arrows[p->narrows].i = i;
                p->arrows[p->narrows++].count = (uint64_t)v[3];
            }
            break;
        }
        case 'S':
            p->samples = grow(p->samples, p->nsamples, sizeof *p->samples);
            cr_assert_eq(sscanf(line, "S %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &p->samples[p->nsamples].k,
                                &p->samples[p->nsamples].i, &p->samples[p->nsamples].counter,
                                &p->samples[p->nsamples].t, &p->samples[p->nsamples].value), 5, "%s", line);
            p->nsamples++;
            break;
        default:
            cr_assert_fail("unexpected line %s", line);
        }
    }
    run_free(&r);
    qsort(p->tiles, p->ntiles, sizeof *p->tiles, tile_cmp);
}

static void page_free(page *p)
{
    free(p->tiles);
    free(p->bars);
    free(p->marks);
    free(p->arrows);
    free(p->samples);
}

static tile *find(page *p, unsigned k, uint64_t i)
{
    tile key = {.k = k, .i = i};
    return bsearch(&key, p->tiles, p->ntiles, sizeof *p->tiles, tile_cmp);
}

/* Mark the tiles that show the trace at level \p level: each level's own
 * where the page has it, else the ancestor (exact, or deepest there is). */
static void cover(page *p, tile *t, unsigned level)
{
    tile *left = find(p, t->k + 1, 2 * t->i), *right = find(p, t->k + 1, 2 * t->i + 1);
    if (t->k == level || t->exact || (!left && !right)) {
        t->cover = 1;
        return;
    }
    if (left)
        cover(p, left, level);
    if (right)
        cover(p, right, level);
}

static int covering(const page *p, unsigned k, uint64_t i)
{
    tile key = {.k = k, .i = i};
    const tile *t = bsearch(&key, p->tiles, p->ntiles, sizeof *p->tiles, tile_cmp);
    cr_assert_not_null(t, "an element of tile %u/%" PRIu64 ", which is not there", k, i);
    return t->cover;
}

/* Device memory: per tile and counter, samples in time order inside the
 * tile, at most two per column but for the value in force at its start. */
static void expect_memory_in_order(page *p)
{
    cr_assert_gt(p->nsamples, 0, "no device-memory samples");
    for (size_t s = 0; s < p->nsamples; s++) {
        const tile *t = find(p, p->samples[s].k, p->samples[s].i);
        cr_assert_not_null(t);
        cr_assert(p->samples[s].t >= t->t0 && p->samples[s].t <= t->t1, "a sample outside tile %u/%" PRIu64, t->k,
                  t->i);
        if (s == 0 || p->samples[s - 1].k != t->k || p->samples[s - 1].i != t->i ||
            p->samples[s - 1].counter != p->samples[s].counter)
            continue;
        cr_assert_geq(p->samples[s].t, p->samples[s - 1].t, "samples out of order in tile %u/%" PRIu64, t->k, t->i);
        uint64_t column = (p->samples[s].t - t->t0) * 1024 / (t->t1 - t->t0 ? t->t1 - t->t0 : 1);
        int in_column = 1; /* those before it in its column: they are in time order */
        for (size_t b = s; b-- > 0 && p->samples[b].k == t->k && p->samples[b].i == t->i &&
                           p->samples[b].counter == p->samples[s].counter &&
                           (p->samples[b].t - t->t0) * 1024 / (t->t1 - t->t0 ? t->t1 - t->t0 : 1) == column;)
            in_column++;
        cr_assert_leq(in_column, 3, "%d samples in one column of tile %u/%" PRIu64, in_column, t->k, t->i);
    }
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* At every level the page holds: every region once, every transfer once. */
static unsigned expect_every_level_complete(page *p, uint64_t regions, uint64_t transfers)
{
    tile *root = find(p, 0, 0);
    cr_assert_not_null(root, "no tile 0/0");
    unsigned deepest = 0;
    for (size_t t = 0; t < p->ntiles; t++)
        deepest = p->tiles[t].k > deepest ? p->tiles[t].k : deepest;
    uint64_t *ids = malloc((p->nbars + 1) * sizeof *ids);
    cr_assert_not_null(ids);
    for (unsigned level = 0; level <= deepest; level++) {
        for (size_t t = 0; t < p->ntiles; t++)
            p->tiles[t].cover = 0;
        cover(p, root, level);
        size_t n = 0;
        for (size_t b = 0; b < p->nbars; b++) /* a region's first piece starts where it does */
            if (covering(p, p->bars[b].k, p->bars[b].i) && p->bars[b].v[2] == p->bars[b].v[4])
                ids[n++] = (uint64_t)p->bars[b].v[8];
        qsort(ids, n, sizeof *ids, u64_cmp);
        uint64_t as_bars = 0, merged = 0, arrowed = 0;
        for (size_t b = 0; b < n; b++)
            as_bars += b == 0 || ids[b] != ids[b - 1];
        for (size_t m = 0; m < p->nmarks; m++)
            if (covering(p, p->marks[m].k, p->marks[m].i))
                merged += p->marks[m].count;
        for (size_t a = 0; a < p->narrows; a++)
            if (covering(p, p->arrows[a].k, p->arrows[a].i))
                arrowed += p->arrows[a].count;
        cr_assert_eq(as_bars + merged, regions,
                     "level %u: %" PRIu64 " regions as bars + %" PRIu64 " in marks, the archive has %" PRIu64, level,
                     as_bars, merged, regions);
        cr_assert_eq(arrowed, transfers, "level %u: %" PRIu64 " transfers in arrows, the archive has %" PRIu64,
                     level, arrowed, transfers);
    }
    free(ids);
    return deepest;
}

/* Exact tiles merge nothing and have no children; others below the deepest level have theirs. */
static void expect_exact_tiles_exact(page *p)
{
    for (size_t t = 0; t < p->ntiles; t++) {
        tile *x = &p->tiles[t];
        cr_assert_eq(x->t0, (uint64_t)((unsigned __int128)p->duration * x->i >> x->k));
        cr_assert_eq(x->t1, (uint64_t)((unsigned __int128)p->duration * (x->i + 1) >> x->k));
        if (x->k > 0) {
            tile *parent = find(p, x->k - 1, x->i / 2);
            cr_assert(parent && !parent->exact, "tile %u/%" PRIu64 " without a parent that is not exact", x->k, x->i);
        }
        cr_assert_leq(x->k, p->max_level);
        if (!x->exact)
            continue;
        for (size_t m = 0; m < p->nmarks; m++)
            cr_assert(p->marks[m].k != x->k || p->marks[m].i != x->i, "exact tile %u/%" PRIu64 " has a mark", x->k,
                      x->i);
        for (size_t a = 0; a < p->narrows; a++)
            cr_assert(p->arrows[a].k != x->k || p->arrows[a].i != x->i || p->arrows[a].count == 1,
                      "exact tile %u/%" PRIu64 " merged transfers", x->k, x->i);
    }
}

static int bar_cmp(const void *pa, const void *pb)
{
    const bar *a = pa, *b = pb;
    if (a->v[8] != b->v[8])
        return a->v[8] < b->v[8] ? -1 : 1;
    return a->v[2] < b->v[2] ? -1 : a->v[2] > b->v[2];
}

/* A piece (id, a) is the same bar wherever it is one. */
static void expect_bars_identical(page *p)
{
    qsort(p->bars, p->nbars, sizeof *p->bars, bar_cmp);
    size_t shared = 0;
    for (size_t b = 1; b < p->nbars; b++) {
        const bar *x = &p->bars[b - 1], *y = &p->bars[b];
        if (x->v[8] != y->v[8] || x->v[2] != y->v[2])
            continue;
        shared++;
        cr_assert(!memcmp(x->v, y->v, sizeof x->v), "bar %ld at %ld differs between tiles %u/%" PRIu64 " and %u/%" PRIu64,
                  x->v[8], x->v[2], x->k, x->i, y->k, y->i);
    }
    cr_assert_gt(shared, 0, "no bar is in two tiles: nothing compared");
}

static char *view_page(const char *dir, const char *name, const char *budget, run_result *r)
{
    static char out[4300];
    snprintf(out, sizeof out, "%s.%s.html", dir, name);
    if (budget)
        cr_assert_eq(run_offtrace(r, "view", dir, "-o", out, "--max-size", budget, NULL), 0);
    else
        cr_assert_eq(run_offtrace(r, "view", dir, "-o", out, NULL), 0);
    cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "view failed: %s", r->err);
    return out;
}

/* ---- file mode ---- */

Test(view_tiles, every_level_holds_every_region_and_transfer_once)
{
    char dir[4096];
    cg_archive(dir, sizeof dir);
    uint64_t regions, transfers;
    archive_counts(dir, &regions, &transfers);
    run_result r;
    const char *out = view_page(dir, "tiles", NULL, &r);
    cr_assert(strstr(r.out, "all detail"), "%s", r.out);
    run_free(&r);
    page p;
    read_data(out, &p);
    cr_assert_eq(p.complete, 1);
    cr_assert_eq(p.serve, 0);
    cr_assert_geq(p.rows, 4);
    unsigned deepest = expect_every_level_complete(&p, regions, transfers);
    cr_assert_geq(deepest, 3, "only %u levels: the test saw no zooming", deepest + 1);
    expect_exact_tiles_exact(&p);
    expect_bars_identical(&p);
    expect_memory_in_order(&p);
    page_free(&p);
}

Test(view_tiles, the_budget_is_honoured_and_said)
{
    char dir[4096];
    big_archive(dir, sizeof dir);
    uint64_t regions, transfers;
    archive_counts(dir, &regions, &transfers);
    run_result r;
    const char *out = view_page(dir, "small", "1M", &r);
    cr_assert(strstr(r.out, "cut by the 1.00 MiB budget") && strstr(r.out, "--serve"), "%s", r.out);
    run_free(&r);
    struct stat st;
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_leq(st.st_size, 1 << 20, "%lld bytes for a budget of 1 MiB", (long long)st.st_size);
    page p;
    read_data(out, &p);
    cr_assert_eq(p.complete, 0, "cut, yet complete");
    expect_every_level_complete(&p, regions, transfers);
    expect_exact_tiles_exact(&p);
    size_t small_tiles = p.ntiles;
    page_free(&p);

    out = view_page(dir, "large", "8M", &r);
    run_free(&r);
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_leq(st.st_size, 8 << 20);
    read_data(out, &p);
    cr_assert_gt(p.ntiles, small_tiles, "a larger budget, no more detail");
    expect_every_level_complete(&p, regions, transfers);
    page_free(&p);
}

/* --from/--to with the page: it holds the whole run and opens at the range. */
Test(view_tiles, from_and_to_say_where_the_page_opens)
{
    char dir[4096], out[4200];
    cg_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s.open.html", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", out, "--from", "1ms", "--to", "1500us", NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    char *html = read_whole_file(out, NULL);
    cr_assert_not_null(html);
    cr_assert(strstr(html, "\"open\":[1000000,1500000]"), "no opening range");
    page p;
    read_data(out, &p);
    tile *root = find(&p, 0, 0);
    cr_assert(root && root->t0 == 0 && root->t1 == p.duration, "the page does not hold the whole run");
    page_free(&p);
    free(html);
}

Test(view_tiles, options_that_do_not_go_together_exit_2)
{
    char dir[4096], out[4200], svg[4200];
    cg_archive(dir, sizeof dir);
    snprintf(out, sizeof out, "%s.bad.html", dir);
    snprintf(svg, sizeof svg, "%s.bad.svg", dir);
    const char *cases[][6] = {
        {dir, "--serve", "-o", out, NULL},
        {dir, "--serve", "--max-size", "4M", NULL},
        {dir, "--serve", "--width", "1000", NULL},
        {dir, "--port", "9000", NULL},
        {dir, "-o", out, "--width", "1000", NULL},
        {dir, "-o", svg, "--max-size", "4M", NULL},
        {dir, "-o", out, "--max-size", "10", NULL},
        {dir, "--serve", "--port", "70000", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_result r;
        const char **c = cases[i];
        cr_assert_eq(run_offtrace(&r, "view", c[0], c[1], c[2], c[3], c[4], NULL), 0);
        cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "case %zu: status %d", i, r.status);
        size_t n = strlen(r.err);
        cr_assert(n > 0 && !memchr(r.err, '\n', n - 1), "case %zu, not one line: %s", i, r.err);
        struct stat st;
        cr_assert_neq(stat(out, &st), 0, "case %zu left %s", i, out);
        run_free(&r);
    }
}

/* ---- serve mode ---- */

typedef struct server {
    pid_t pid;
    FILE *out;
    unsigned port;
} server;

static void start_server(server *s, const char *dir, const char *port)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    s->pid = fork();
    cr_assert_geq(s->pid, 0);
    if (s->pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        char cli[4200];
        snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
        execl(cli, cli, "view", dir, "--serve", "--port", port, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    s->out = fdopen(fds[0], "r");
    char line[1024];
    cr_assert_not_null(fgets(line, sizeof line, s->out), "the server said nothing");
    const char *at = strstr(line, "http://127.0.0.1:");
    cr_assert_not_null(at, "no URL in: %s", line);
    s->port = (unsigned)strtoul(at + 17, NULL, 10);
    cr_assert_gt(s->port, 0);
}

/* The status of \p s after it was sent \p sig. */
static int stop_server(server *s, int sig)
{
    kill(s->pid, sig);
    int status;
    cr_assert_eq(waitpid(s->pid, &status, 0), s->pid);
    fclose(s->out);
    return status;
}

/* GET \p path over a socket of our own: the status code, the body in *body (malloc'd). */
static int http_get(unsigned port, const char *path, char **body, size_t *length)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0, "cannot connect to port %u", port);
    char request[512];
    int n = snprintf(request, sizeof request, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    cr_assert_eq(write(fd, request, (size_t)n), n);
    size_t size = 0, cap = 1 << 16;
    char *all = malloc(cap + 1);
    ssize_t got;
    while ((got = read(fd, all + size, cap - size)) > 0)
        if ((size += (size_t)got) == cap)
            all = realloc(all, (cap *= 2) + 1);
    close(fd);
    all[size] = '\0';
    int status = 0;
    cr_assert_eq(sscanf(all, "HTTP/1.%*d %d", &status), 1, "not an HTTP response: %.80s", all);
    const char *start = strstr(all, "\r\n\r\n");
    cr_assert_not_null(start);
    start += 4;
    *length = size - (size_t)(start - all);
    *body = malloc(*length + 1);
    memcpy(*body, start, *length + 1);
    free(all);
    return status;
}

Test(view_tiles, serve_answers_the_page_and_tiles_and_stops_on_sigint)
{
    char dir[4096], path[4300];
    cg_archive(dir, sizeof dir);
    server s;
    start_server(&s, dir, "0");
    char *body, *tile;
    size_t length, tile_length;
    cr_assert_eq(http_get(s.port, "/", &body, &length), 200);
    snprintf(path, sizeof path, "%s.served.html", dir);
    FILE *f = fopen(path, "w");
    fwrite(body, 1, length, f);
    fclose(f);
    page p;
    read_data(path, &p);
    cr_assert_eq(p.serve, 1);
    cr_assert_not_null(find(&p, 0, 0));

    /* a tile the page holds is served as it is there */
    cr_assert_eq(http_get(s.port, "/tile/0/0.json", &tile, &tile_length), 200);
    const char *embedded = strstr(body, "\"0/0\":");
    cr_assert_not_null(embedded);
    embedded += 6;
    cr_assert(!strncmp(embedded, tile, tile_length) && strchr(",}", embedded[tile_length]),
              "tile 0/0 served differs from the page's");
    free(tile);

    /* the deepest tiles, fetched down a path of tiles that are not exact */
    uint64_t i = 0;
    unsigned k = 0;
    for (int exact = 0; !exact && k <= p.max_level; k++, i *= 2) {
        char url[64];
        snprintf(url, sizeof url, "/tile/%u/%" PRIu64 ".json", k, i);
        int status = http_get(s.port, url, &tile, &tile_length);
        cr_assert_eq(status, 200, "%s: %d", url, status);
        snprintf(path, sizeof path, "%s.tile.json", dir);
        f = fopen(path, "w");
        fwrite(tile, 1, tile_length, f);
        fclose(f);
        page one;
        read_data(path, &one);
        cr_assert_eq(one.ntiles, 1);
        exact = one.tiles[0].exact;
        page_free(&one);
        free(tile);
    }
    cr_assert_gt(k, 3, "only %u levels served", k);
    char url[64];
    snprintf(url, sizeof url, "/tile/%u/0.json", p.max_level + 1);
    const char *missing[] = {url, "/tile/0/1.json", "/tile/1/2.json", "/tile/x/0.json", "/tile/0/0.js", "/nothing",
                             "/tile/1/0.json/"};
    for (size_t m = 0; m < sizeof missing / sizeof missing[0]; m++) {
        cr_assert_eq(http_get(s.port, missing[m], &tile, &tile_length), 404, "%s", missing[m]);
        free(tile);
    }
    page_free(&p);
    free(body);
    int status = stop_server(&s, SIGINT);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d after SIGINT", status);
}

Test(view_tiles, serve_on_a_port_in_use_or_a_bad_archive_fails_in_one_line)
{
    char dir[4096], port[16];
    cg_archive(dir, sizeof dir);
    server s;
    start_server(&s, dir, "0");
    snprintf(port, sizeof port, "%u", s.port);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", dir, "--serve", "--port", port, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1, "status %d", r.status);
    cr_assert(strstr(r.err, "in use") && !memchr(r.err, '\n', strlen(r.err) - 1), "%s", r.err);
    run_free(&r);
    int status = stop_server(&s, SIGTERM);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d after SIGTERM", status);

    char bad[4096], anchor[4200];
    scratch_path(bad, sizeof bad, "tiles-damaged");
    cr_assert_eq(mkdir(bad, 0777), 0);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", bad);
    FILE *f = fopen(anchor, "w");
    fputs("this is not OTF2\n", f);
    fclose(f);
    cr_assert_eq(run_offtrace(&r, "view", bad, "--serve", "--port", "0", NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "status %d: %s", r.status, r.err);
    cr_assert(r.err[0] && !memchr(r.err, '\n', strlen(r.err) - 1), "%s", r.err);
    cr_assert_str_empty(r.out);
    run_free(&r);
}

/**
 * \file test_view_mpi.c
 * \brief What `view` and `export` show of an MPI job (issue 16): a real
 *        `mpirun -np 2 offtrace record` job of example_mpi_halo, its
 *        messages checked against two counts offtrace has no part in: the
 *        MPICOUNT line each rank of the traced run prints, and otf2-print's
 *        MpiSend / MpiIsend events (by sender and receiver rank).
 *
 *  - export --format chrome: valid JSON, one flow per message (an "s" on the
 *    sender's process = rank, one "f" with its id on the receiver's), ids
 *    used once, every flow end inside a slice of its thread; MPI calls with
 *    their class's "cat"; each rank's collectives with their bytes as args,
 *    summed equal to what the rank says it sent and received.
 *  - view (SVG): an arrow per message or a few close together, their counts
 *    adding up to every message, per direction; the legend names them.
 *  - view (page): the data parsed by Python's json: at full detail (the
 *    deepest tile in the file where each arrow starts) one arrow per
 *    message, per direction as otf2-print says; MPI regions in their
 *    classes.
 *  - the same job with rank 1's part missing (rank 0's recording converted
 *    and merged alone): no arrow and no flow, every message rank 0 sent or
 *    received counted as left out in view's line, the page and the export.
 *
 * mpirun runs under `timeout 60` (and mpirun's --timeout); no duration is
 * asserted.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/chrome_scan.h"
#include "check/json_check.h"
#include "check/mpi_run.h"
#include "check/run.h"
#include "offtrace/mpi_calls.h"

#define RANKS 2
#define STEPS "10"

TestSuite(view_mpi, .timeout = 120);

/* ---- the job, recorded once per test run ---- */

typedef struct halo_job {
    char dir[512];
    /* the ranks' own MPICOUNT lines */
    uint64_t sends[RANKS], colls[RANKS], coll_sent[RANKS], coll_recv[RANKS];
    uint64_t messages;                      /* sum of sends */
    /* otf2-print: MpiSend / MpiIsend events by sender's and receiver's world rank */
    uint64_t by_pair[RANKS][RANKS];
} halo_job;

static void parse_mpicount(const char *out, halo_job *j)
{
    int lines = 0;
    for (const char *p = strstr(out, "MPICOUNT "); p; p = strstr(p + 1, "MPICOUNT ")) {
        int rank;
        unsigned long long sends, bytes_sent, recvs, bytes_recv, coll, coll_sent, coll_recv;
        cr_assert_eq(sscanf(p, "MPICOUNT rank=%d sends=%llu bytes_sent=%llu recvs=%llu bytes_recv=%llu coll=%llu "
                               "coll_sent=%llu coll_recv=%llu",
                            &rank, &sends, &bytes_sent, &recvs, &bytes_recv, &coll, &coll_sent, &coll_recv),
                     8, "an MPICOUNT line we cannot read: %.120s", p);
        cr_assert(rank >= 0 && rank < RANKS);
        j->sends[rank] = sends;
        j->colls[rank] = coll;
        j->coll_sent[rank] = coll_sent;
        j->coll_recv[rank] = coll_recv;
        j->messages += sends;
        lines++;
    }
    cr_assert_eq(lines, RANKS, "%d MPICOUNT lines in: %s", lines, out);
}

/* Sends as OTF2's own reader sees them: "MPI_ISEND <location> <time> Receiver: 1 ("..." <location>), ..." */
static void count_with_otf2_print(halo_job *j)
{
    char anchor[600];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", j->dir);
    char *argv[] = {"otf2-print", anchor, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "otf2-print: %s", r.err);
    uint64_t total = 0;
    for (const char *line = r.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
        if (strncmp(line, "MPI_SEND ", 9) && strncmp(line, "MPI_ISEND ", 10))
            continue;
        unsigned long long sender = strtoull(line + strcspn(line, " "), NULL, 10);
        const char *receiver = strstr(line, "Receiver: ");
        const char *lt = receiver ? strchr(receiver, '<') : NULL;
        const char *eol = strchr(line, '\n');
        cr_assert(lt && (!eol || lt < eol), "a send without its receiver's location: %.160s", line);
        unsigned long long to = strtoull(lt + 1, NULL, 10);
        cr_assert((sender >> 40) < RANKS && (to >> 40) < RANKS, "%.160s", line);
        j->by_pair[sender >> 40][to >> 40]++;
        total++;
    }
    run_free(&r);
    cr_assert_eq(total, j->messages, "otf2-print shows %" PRIu64 " sends, the ranks say they sent %" PRIu64, total,
                 j->messages);
}

/* `mpirun -np 2 offtrace record -o DIR -- example_mpi_halo 10`, once per runner (tests run one by one in
 * children of it), recorded aside and renamed into place as check/run.c's shared recordings are; the ranks'
 * stdout kept in the job directory for the tests after the first. */
static void halo(halo_job *j)
{
    memset(j, 0, sizeof *j);
    char name[64];
    snprintf(name, sizeof name, "view-mpi-halo-%d", (int)getppid());
    scratch_path(j->dir, (unsigned)sizeof j->dir, name);
    char out_path[600];
    snprintf(out_path, sizeof out_path, "%s/ranks.stdout", j->dir);
    char *out = read_whole_file(out_path, NULL);
    if (!out) {
        char fresh[600], cmd[1400];
        snprintf(fresh, sizeof fresh, "%s.fresh-%d", j->dir, (int)getpid());
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fresh);
        cr_assert_eq(system(cmd), 0);
        /* the raw recordings kept: a_rank_without_its_part makes a job of rank 0's alone */
        char *args[] = {"-x", "OFFTRACE_KEEP_RAW", OFFTRACE_BIN_DIR "/offtrace", "record", "-o", fresh, "--",
                        OFFTRACE_BIN_DIR "/example_mpi_halo", STEPS, NULL};
        char *env[] = {"OFFTRACE_KEEP_RAW=1", NULL};
        run_result r;
        cr_assert_eq(run_mpirun(2, args, env, &r), 0);
        cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun of example_mpi_halo: %s", r.err);
        char fresh_out[700];
        snprintf(fresh_out, sizeof fresh_out, "%s/ranks.stdout", fresh);
        FILE *f = fopen(fresh_out, "w");
        cr_assert_not_null(f);
        fputs(r.out, f);
        cr_assert_eq(fclose(f), 0);
        run_free(&r);
        if (rename(fresh, j->dir) != 0) { /* another runner's child put it there first */
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", fresh);
            cr_assert_eq(system(cmd), 0);
        }
        out = read_whole_file(out_path, NULL);
        cr_assert_not_null(out, "no %s", out_path);
    }
    parse_mpicount(out, j);
    free(out);
    cr_assert_gt(j->messages, 0);
    count_with_otf2_print(j);
}

/* The family of an MPI function's region ("MPI_Waitall" -> "P2P"), from offtrace/mpi_calls.h; NULL if none. */
static const char *family_of(const char *region)
{
#define FAMILY(name, family, role, op, body, params, args) \
    if (!strcmp(region, "MPI_" #name))                      \
        return #family;
    OFFTRACE_MPI_CALLS(FAMILY)
#undef FAMILY
    return NULL;
}

/* ---- export --format chrome ---- */

static int starts_with(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* The number after "key": in the event line at \p line (up to its end), or -1. */
static long long line_number(const char *line, const char *key)
{
    char want[64];
    snprintf(want, sizeof want, "\"%s\":", key);
    const char *eol = strchr(line, '\n'), *at = strstr(line, want);
    if (!at || (eol && at > eol))
        return -1;
    return strtoll(at + strlen(want), NULL, 10);
}

/* The "id" string of the event line at \p line, into \p id. */
static void line_id(const char *line, char *id, size_t size)
{
    const char *at = strstr(line, "\"id\":\"");
    cr_assert_not_null(at, "a flow without an id: %.120s", line);
    at += 6;
    snprintf(id, size, "%.*s", (int)strcspn(at, "\""), at);
}

typedef struct flow_end {
    char id[40];
    long long pid;
} flow_end;

static int by_id(const void *a, const void *b)
{
    return strcmp(((const flow_end *)a)->id, ((const flow_end *)b)->id);
}

Test(view_mpi, export_has_a_flow_per_message_and_collectives_with_their_bytes)
{
    halo_job j;
    halo(&j);
    char json[600];
    snprintf(json, sizeof json, "%s.json", j.dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "export", "--format", "chrome", "-o", json, j.dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "export: %s", r.err);
    char said[64];
    snprintf(said, sizeof said, ", %" PRIu64 " MPI message arrows, ", j.messages);
    cr_assert_not_null(strstr(r.err, said), "export's line does not say %s: %s", said, r.err);
    run_free(&r);
    size_t at = 0;
    cr_assert_eq(json_check_file(json, &at), 0, "%s is not JSON (byte %zu)", json, at);
    char *text = read_whole_file(json, NULL);
    cr_assert_not_null(text);

    /* every flow inside a slice of its thread, as importers bind them */
    chrome_scan scan;
    cr_assert_eq(chrome_scan_text(text, &scan), 0);
    char why[512] = "";
    size_t faults = chrome_scan_order_faults(&scan, why, sizeof why);
    cr_assert_eq(faults, 0, "%zu events out of the order importers need; first: %s", faults, why);
    chrome_scan_free(&scan);

    /* the message flows: starts and ends by id */
    size_t cap = 2 * j.messages + 16, nstarts = 0, nends = 0;
    flow_end *starts = calloc(cap, sizeof *starts), *ends = calloc(cap, sizeof *ends);
    cr_assert(starts && ends);
    uint64_t coll_sent[RANKS] = {0}, coll_recv[RANKS] = {0}, colls[RANKS] = {0};
    for (const char *line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
        size_t n = strcspn(line, "\n");
        const char *cat = strstr(line, "\"cat\":\"");
        if (!cat || cat > line + n)
            continue;
        cat += 7;
        if (starts_with(line, "{\"ph\":\"s\"") && !strncmp(cat, "mpi.message\"", 12)) {
            cr_assert_lt(nstarts, cap, "more message flows than messages");
            line_id(line, starts[nstarts].id, sizeof starts[nstarts].id);
            starts[nstarts++].pid = line_number(line, "pid");
        } else if (starts_with(line, "{\"ph\":\"f\",\"bp\":\"e\"") && !strncmp(cat, "mpi.message\"", 12)) {
            cr_assert_lt(nends, cap, "more message flow ends than messages");
            line_id(line, ends[nends].id, sizeof ends[nends].id);
            ends[nends++].pid = line_number(line, "pid");
        } else if (starts_with(line, "{\"ph\":\"X\",\"name\":\"MPI_")) {
            /* an MPI call: its class's cat; a collective's part with its bytes */
            char function[64];
            const char *name = line + strlen("{\"ph\":\"X\",\"name\":\"");
            snprintf(function, sizeof function, "%.*s", (int)strcspn(name, "\""), name);
            const char *family = family_of(function);
            cr_assert_not_null(family, "a slice %s that is no MPI function offtrace wraps", function);
            const char *want = !strcmp(family, "P2P")          ? "mpi.p2p\""
                               : !strcmp(family, "COLLECTIVE") ? "mpi.collective\""
                                                               : "mpi.other\"";
            cr_assert(!strncmp(cat, want, strlen(want)), "%s has cat %.20s, not %s", function, cat, want);
            long long pid = line_number(line, "pid");
            cr_assert(pid >= 0 && pid < RANKS, "%s on pid %lld, which is no rank", function, pid);
            if (strcmp(family, "COLLECTIVE"))
                continue;
            char op[96];
            snprintf(op, sizeof op, "\"op\":\"%s\"", function);
            cr_assert(strstr(line, op) && strstr(line, op) < line + n, "%s without its op: %.*s", function, (int)n,
                      line);
            long long sent = line_number(line, "bytes sent"), received = line_number(line, "bytes received");
            cr_assert(sent >= 0 && received >= 0, "%s without its bytes: %.*s", function, (int)n, line);
            cr_assert(line_number(line, "communicator") >= 0);
            coll_sent[pid] += (uint64_t)sent;
            coll_recv[pid] += (uint64_t)received;
            colls[pid]++;
        }
    }
    cr_assert_eq(nstarts, j.messages, "%zu message flows, the ranks sent %" PRIu64 " messages", nstarts, j.messages);
    cr_assert_eq(nends, nstarts, "%zu flow ends for %zu starts", nends, nstarts);
    qsort(starts, nstarts, sizeof *starts, by_id);
    qsort(ends, nends, sizeof *ends, by_id);
    uint64_t by_pair[RANKS][RANKS] = {{0}};
    for (size_t i = 0; i < nstarts; i++) {
        cr_assert_str_eq(starts[i].id, ends[i].id, "flow %s has no end", starts[i].id);
        cr_assert(i == 0 || strcmp(starts[i - 1].id, starts[i].id), "flow id %s used twice", starts[i].id);
        cr_assert(starts[i].pid >= 0 && starts[i].pid < RANKS && ends[i].pid >= 0 && ends[i].pid < RANKS);
        by_pair[starts[i].pid][ends[i].pid]++;
    }
    for (int s = 0; s < RANKS; s++)
        for (int t = 0; t < RANKS; t++)
            cr_assert_eq(by_pair[s][t], j.by_pair[s][t],
                         "rank %d -> rank %d: %" PRIu64 " flows, otf2-print shows %" PRIu64 " sends", s, t,
                         by_pair[s][t], j.by_pair[s][t]);
    for (int k = 0; k < RANKS; k++) {
        cr_assert_eq(colls[k], j.colls[k], "rank %d: %" PRIu64 " collectives with args, it made %" PRIu64, k,
                     colls[k], j.colls[k]);
        cr_assert_eq(coll_sent[k], j.coll_sent[k], "rank %d: collectives sent %" PRIu64 " bytes, it says %" PRIu64,
                     k, coll_sent[k], j.coll_sent[k]);
        cr_assert_eq(coll_recv[k], j.coll_recv[k], "rank %d: collectives received %" PRIu64 ", it says %" PRIu64, k,
                     coll_recv[k], j.coll_recv[k]);
    }
    cr_assert_eq(line_number(strstr(text, "\"otherData\""), "mpi_message_flows"), (long long)j.messages);
    cr_assert_eq(line_number(strstr(text, "\"otherData\""), "mpi_messages_left_out"), 0);
    free(starts);
    free(ends);
    free(text);
}

/* ---- view: the SVG ---- */

Test(view_mpi, the_picture_draws_every_message)
{
    halo_job j;
    halo(&j);
    char svg[600];
    snprintf(svg, sizeof svg, "%s.svg", j.dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", j.dir, "-o", svg, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "view: %s", r.err);
    char said[64];
    snprintf(said, sizeof said, ", %" PRIu64 " MPI messages as ", j.messages);
    cr_assert_not_null(strstr(r.out, said), "view's line does not say %s: %s", said, r.out);
    cr_assert_null(strstr(r.out, "left out"), "%s", r.out);
    run_free(&r);
    char *text = read_whole_file(svg, NULL);
    cr_assert_not_null(text);
    /* message arrows: <path data-k="m" data-count="N" d=... data-tip="MPI message rank A → rank B..." */
    uint64_t by_pair[RANKS][RANKS] = {{0}}, arrows = 0;
    for (const char *p = strstr(text, "<path data-k=\"m\""); p; p = strstr(p + 1, "<path data-k=\"m\"")) {
        const char *count = strstr(p, "data-count=\""), *tip = strstr(p, "data-tip=\"");
        const char *end = strstr(p, "/>");
        cr_assert(count && tip && end && count < end && tip < end, "a message arrow without count or tip");
        unsigned long long n = strtoull(count + 12, NULL, 10);
        const char *ranks = strstr(tip, "rank ");
        unsigned from, to;
        cr_assert(ranks && ranks < end && sscanf(ranks, "rank %u \xe2\x86\x92 rank %u", &from, &to) == 2,
                  "a message arrow's tip without its ranks: %.200s", tip);
        cr_assert(from < RANKS && to < RANKS);
        by_pair[from][to] += n;
        arrows++;
    }
    cr_assert_gt(arrows, 0);
    for (int s = 0; s < RANKS; s++)
        for (int t = 0; t < RANKS; t++)
            cr_assert_eq(by_pair[s][t], j.by_pair[s][t], "rank %d -> rank %d: %" PRIu64 " in arrows, %" PRIu64 " sent",
                         s, t, by_pair[s][t], j.by_pair[s][t]);
    cr_assert_not_null(strstr(text, ">MPI message, send"), "the legend has no message arrow");
    cr_assert_not_null(strstr(text, ">MPI point-to-point<"), "the legend has no MPI point-to-point class");
    cr_assert_not_null(strstr(text, ">MPI collective<"), "the legend has no MPI collective class");
    free(text);
}

/* ---- view: the page ---- */

/* The page's data as lines: H messages left-out; C class name; R region-name class; L row-a row-b count for
 * each message arrow at full detail (in the deepest tile of the file where it starts), with the rows' ranks
 * and kinds. */
static const char page_lines[] =
    "import json, sys\n"
    "text = open(sys.argv[1], encoding='utf-8').read()\n"
    "start = '<script id=\"ot-data\" type=\"application/json\">'\n"
    "a = text.index(start) + len(start)\n"
    "d = json.loads(text[a:text.index('</script>', a)])\n"
    "assert d['format'] == 'offtrace-view' and d['version'] == 2 and d['complete'], (d['version'], d['complete'])\n"
    "print('H', d.get('messages', 0), d.get('messages_left_out', 0))\n"
    "for c in d['classes']: print('C', c['name'])\n"
    "for r in d['regions']: print('R', '_'.join(r['name'].split()) or '-', r['cat'])\n"
    "tiles = d['tiles']\n"
    "rows = d['rows']\n"
    "for t in tiles.values():\n"
    "    mid = None\n"
    "    for x in t['arrows']:\n"
    "        if x[2] != 2: continue\n"
    "        deeper = False\n"
    "        for half in (0, 1):\n"
    "            c = tiles.get('%d/%d' % (t['k'] + 1, 2 * t['i'] + half))\n"
    "            if c and c['t0'] <= x[5] and (x[5] < c['t1'] or (half == 1 and x[5] == c['t1'])): deeper = True\n"
    "        if deeper: continue\n"
    "        ra, rb = rows[x[0]], rows[x[1]]\n"
    "        print('L', ra['rank'], rb['rank'], ra['kind'].replace(' ', '_'), rb['kind'].replace(' ', '_'), x[3])\n";

Test(view_mpi, the_page_has_an_arrow_per_message_at_full_detail)
{
    halo_job j;
    halo(&j);
    char html[600], script[600];
    snprintf(html, sizeof html, "%s.html", j.dir);
    snprintf(script, sizeof script, "%s.page.py", j.dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", j.dir, "-o", html, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "view: %s", r.err);
    run_free(&r);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fputs(page_lines, f);
    cr_assert_eq(fclose(f), 0);
    char *argv[] = {"python3", script, html, NULL};
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "the page's data: %s", r.err);

    char classes[64][64];
    size_t nclasses = 0;
    uint64_t by_pair[RANKS][RANKS] = {{0}}, arrows = 0, mpi_regions = 0;
    unsigned long long messages = 0, left_out = 1;
    for (const char *line = r.out; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
        if (line[0] == 'H') {
            cr_assert_eq(sscanf(line, "H %llu %llu", &messages, &left_out), 2);
        } else if (line[0] == 'C') {
            cr_assert_lt(nclasses, 64);
            snprintf(classes[nclasses++], sizeof classes[0], "%.*s", (int)strcspn(line + 2, "\n"), line + 2);
        } else if (line[0] == 'R') {
            char name[128];
            unsigned cat;
            cr_assert_eq(sscanf(line, "R %127s %u", name, &cat), 2);
            const char *family = family_of(name);
            if (!family)
                continue;
            const char *want = !strcmp(family, "P2P")          ? "MPI point-to-point"
                               : !strcmp(family, "COLLECTIVE") ? "MPI collective"
                                                               : "MPI (init, finalize, communicators)";
            cr_assert(cat < nclasses && !strcmp(classes[cat], want), "%s is in class %s, not %s", name,
                      cat < nclasses ? classes[cat] : "?", want);
            mpi_regions++;
        } else if (line[0] == 'L') {
            unsigned from, to;
            char kind_a[32], kind_b[32];
            unsigned long long count;
            cr_assert_eq(sscanf(line, "L %u %u %31s %31s %llu", &from, &to, kind_a, kind_b, &count), 5);
            cr_assert_eq(count, 1, "a message arrow at full detail stands for %llu messages", count);
            cr_assert(from < RANKS && to < RANKS);
            cr_assert_str_eq(kind_a, "host_thread");
            cr_assert_str_eq(kind_b, "host_thread");
            by_pair[from][to]++;
            arrows++;
        }
    }
    run_free(&r);
    cr_assert_eq(messages, j.messages, "the page says %llu messages, the ranks sent %" PRIu64, messages, j.messages);
    cr_assert_eq(left_out, 0);
    cr_assert_gt(mpi_regions, 3, "MPI_Init, Isend, Irecv, Waitall, Allreduce ... expected");
    cr_assert_eq(arrows, j.messages, "%" PRIu64 " message arrows at full detail for %" PRIu64 " messages", arrows,
                 j.messages);
    for (int s = 0; s < RANKS; s++)
        for (int t = 0; t < RANKS; t++)
            cr_assert_eq(by_pair[s][t], j.by_pair[s][t], "rank %d -> rank %d: %" PRIu64 " arrows, %" PRIu64 " sent",
                         s, t, by_pair[s][t], j.by_pair[s][t]);
}

/* ---- a message without its other side ---- */

/* The job again, of rank 0's recording alone (`offtrace convert` of its kept raw/, then of the job: rank 1
 * "missing"): each of rank 0's sends and receives lacks its other side. */
Test(view_mpi, a_message_without_its_other_side_is_left_out_and_counted)
{
    halo_job j;
    halo(&j);
    char dir[600], cmd[2000];
    snprintf(dir, sizeof dir, "%s-rank0", j.dir);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && mkdir -p '%s/rank.0' && cp '%s/job' '%s/' && cp -r '%s/rank.0/raw' '%s/rank.0/'", dir,
             dir, j.dir, dir, j.dir, dir);
    cr_assert_eq(system(cmd), 0);
    char rank0[700];
    snprintf(rank0, sizeof rank0, "%s/rank.0", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "convert", rank0, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "convert rank 0: %s", r.err);
    run_free(&r);
    cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "convert the job: %s", r.err);
    run_free(&r);
    /* rank 0's sends and receives, each without its other side (halo: as many of each) */
    uint64_t sides = 2 * j.sends[0];
    char want[128];

    char svg[700];
    snprintf(svg, sizeof svg, "%s.svg", dir);
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", svg, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "view: %s", r.err);
    snprintf(want, sizeof want, ", 0 MPI messages as 0 arrows (%" PRIu64 " left out: ", sides);
    cr_assert_not_null(strstr(r.out, want), "view's line does not say %s: %s", want, r.out);
    run_free(&r);
    char *text = read_whole_file(svg, NULL);
    cr_assert_not_null(text);
    cr_assert_null(strstr(text, "<path data-k=\"m\""), "a message arrow without its other side");
    free(text);

    char html[700];
    snprintf(html, sizeof html, "%s.html", dir);
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", html, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "view: %s", r.err);
    run_free(&r);
    text = read_whole_file(html, NULL);
    cr_assert_not_null(text);
    snprintf(want, sizeof want, "\"messages\":0,\"messages_left_out\":%" PRIu64 ",", sides);
    cr_assert_not_null(strstr(text, want), "the page's data does not say %s", want);
    for (const char *a = strstr(text, "\"arrows\":["); a; a = strstr(a + 1, "\"arrows\":[")) {
        /* [[row a, row b, kind, count, ...], ...]: no kind 2 */
        const char *p = a + strlen("\"arrows\":[");
        unsigned row_a, row_b, kind;
        int used = 0;
        while (sscanf(p, "[%u,%u,%u,%n", &row_a, &row_b, &kind, &used) == 3 && used > 0) {
            cr_assert_neq(kind, 2, "the page has a message arrow");
            p = strchr(p, ']') + 1;
            p += *p == ',';
            used = 0;
        }
    }
    free(text);

    char json[700];
    snprintf(json, sizeof json, "%s.json", dir);
    cr_assert_eq(run_offtrace(&r, "export", "--format", "chrome", "-o", json, dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "export: %s", r.err);
    snprintf(want, sizeof want, "0 MPI message arrows (%" PRIu64 " left out: ", sides);
    cr_assert_not_null(strstr(r.err, want), "export's line does not say %s: %s", want, r.err);
    run_free(&r);
    size_t at = 0;
    cr_assert_eq(json_check_file(json, &at), 0, "%s is not JSON (byte %zu)", json, at);
    text = read_whole_file(json, NULL);
    cr_assert_not_null(text);
    cr_assert_null(strstr(text, "\"cat\":\"mpi.message\""), "a message flow without its other side");
    cr_assert_eq(line_number(strstr(text, "\"otherData\""), "mpi_messages_left_out"), (long long)sides);
    free(text);
}

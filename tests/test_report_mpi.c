/**
 * \file test_report_mpi.c
 * \brief Readers of an MPI job's archive (issue 16): real `mpirun -np 2
 *        offtrace record` jobs of example_cg and example_saxpy, read back
 *        through trace_read (every location's rank, one device per rank,
 *        every put/get on its own rank's device) and through `offtrace
 *        report --json` (the ranks array: per rank, the kernels, transfers
 *        and bytes that one untraced process of the same deterministic
 *        program reports to the independent OMPT counter), and the view's
 *        and Chrome export's grouping by rank; and the MPI calls table of
 *        a job of example_mpi_halo.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/json_check.h"
#include "check/json_walk.h"
#include "check/mpi_run.h"
#include "check/run.h"
#include "check/runtime_counts.h"
#include "trace_read.h"

TestSuite(report_mpi, .timeout = 180);

/* ---- the job ---- */

/* `mpirun -np 2 offtrace record -o DIR -- EXAMPLE` under `timeout 60`, as every MPI test runs it. */
static void record_job(const char *example, char *dir, size_t size)
{
    char name[128];
    snprintf(name, sizeof name, "job-%s", example);
    scratch_path(dir, (unsigned)size, name);
    char program[512];
    snprintf(program, sizeof program, "%s/%s", OFFTRACE_BIN_DIR, example);
    char *args[] = {OFFTRACE_BIN_DIR "/offtrace", "record", "-o", dir, "--", program, NULL};
    run_result r;
    cr_assert_eq(run_mpirun(2, args, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun of %s: %s", example, r.err);
    run_free(&r);
}

/* ---- trace_read on the job's archive ---- */

typedef struct job_read {
    uint32_t ranks, stride;
    int devices;
    uint64_t kernels[2], puts[2], put_bytes[2], gets[2], get_bytes[2];
    uint64_t foreign_transfers;     /* a put/get whose device is not its issuer's rank's, or unknown */
    uint64_t wrong_rank_locations;  /* a location whose rank is not its id's rank bits */
    uint64_t kernel_streams[2];
} job_read;

static int on_begin(void *user, const ot_tr_archive *a)
{
    job_read *j = user;
    j->ranks = ot_tr_rank_count(a);
    j->stride = (uint32_t)ot_tr_device_stride(a);
    j->devices = ot_tr_device_count(a);
    for (size_t i = 0; i < ot_tr_location_count(a); i++) {
        const ot_tr_location *l = ot_tr_location_at(a, i);
        j->wrong_rank_locations += l->rank != (uint32_t)(l->id >> 40);
        if (l->klass == OT_TR_KERNEL_STREAM && l->rank < 2)
            j->kernel_streams[l->rank]++;
        if (l->device >= 0 && (l->device_number != l->device % (int)j->stride ||
                               (uint32_t)(l->device / (int)j->stride) != l->rank))
            j->wrong_rank_locations++;
    }
    return 0;
}

static int on_leave(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    job_read *j = user;
    if (loc->klass == OT_TR_KERNEL_STREAM && span->region->klass == OT_TR_KERNEL && loc->rank < 2)
        j->kernels[loc->rank]++;
    return 0;
}

static int on_transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    job_read *j = user;
    if (x->device < 0 || (uint32_t)x->device / j->stride != loc->rank || loc->rank >= 2) {
        j->foreign_transfers++;
        return 0;
    }
    if (x->to_device) {
        j->puts[loc->rank]++;
        j->put_bytes[loc->rank] += x->bytes;
    } else {
        j->gets[loc->rank]++;
        j->get_bytes[loc->rank] += x->bytes;
    }
    return 0;
}

static void check_trace_read(const char *dir, const runtime_counts *rt)
{
    job_read j = {0};
    ot_tr_visitor v = {.begin = on_begin, .leave = on_leave, .transfer = on_transfer};
    char err[512] = "";
    cr_assert_eq(ot_trace_read(dir, &v, &j, err, sizeof err), 0, "%s", err);
    cr_assert_eq(j.ranks, 2);
    cr_assert_eq(j.devices, 2, "one device per rank, not one for both: %d", j.devices);
    cr_assert_eq(j.wrong_rank_locations, 0);
    cr_assert_eq(j.foreign_transfers, 0, "%llu transfers not on their own rank's device",
                 (unsigned long long)j.foreign_transfers);
    for (int r = 0; r < 2; r++) {
        cr_assert(j.kernel_streams[r] > 0, "rank %d has no kernel stream", r);
        cr_assert_eq(j.kernels[r], rt->kernels, "rank %d kernels %llu, runtime %llu", r,
                     (unsigned long long)j.kernels[r], rt->kernels);
        cr_assert_eq(j.puts[r], rt->h2d, "rank %d puts %llu, runtime %llu", r, (unsigned long long)j.puts[r], rt->h2d);
        cr_assert_eq(j.put_bytes[r], rt->h2d_bytes);
        cr_assert_eq(j.gets[r], rt->d2h, "rank %d gets %llu, runtime %llu", r, (unsigned long long)j.gets[r], rt->d2h);
        cr_assert_eq(j.get_bytes[r], rt->d2h_bytes);
    }
}

/* ---- reading the report's JSON (check/json_walk.h; these assert what a test needs to be there) ---- */

static const char *member(const char *obj, const char *key)
{
    cr_assert(obj && *obj == '{', "not an object");
    return json_member(obj, key);
}

static long long number(const char *obj, const char *key)
{
    const char *v = member(obj, key);
    cr_assert_not_null(v, "no member %s", key);
    return strtoll(v, NULL, 10);
}

/* The \p i-th element of the array \p key of the object at \p obj, or NULL past its end. */
static const char *element(const char *obj, const char *key, size_t i)
{
    const char *p = member(obj, key);
    cr_assert(p && *p == '[', "no array %s", key);
    return json_element(obj, key, i);
}

static size_t length(const char *obj, const char *key)
{
    return json_length(obj, key);
}

static void check_report(const char *dir, const runtime_counts *rt)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", "--json", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report --json: %s", r.err);
    size_t at = 0;
    cr_assert_eq(json_check(r.out, strlen(r.out), &at), 0, "invalid JSON at byte %zu: %.80s", at, r.out + at);
    const char *top = r.out;
    cr_assert_eq(number(member(top, "summary"), "devices"), 2);
    cr_assert_eq(length(top, "ranks"), 2);
    cr_assert_not_null(member(top, "rank_imbalance"));
    for (size_t i = 0; i < 2; i++) {
        const char *x = element(top, "ranks", i);
        const char *state = member(x, "state");
        cr_assert_eq(number(x, "rank"), (long long)i);
        cr_assert(state && !strncmp(state, "\"complete\"", 10), "rank %zu: %.40s", i, state ? state : "none");
        cr_assert_eq(number(x, "devices"), 1);
        cr_assert_eq(number(x, "kernels"), (long long)rt->kernels, "rank %zu kernels", i);
        cr_assert_eq(number(member(x, "host_to_device"), "count"), (long long)rt->h2d, "rank %zu h2d", i);
        cr_assert_eq(number(member(x, "host_to_device"), "bytes"), (long long)rt->h2d_bytes);
        cr_assert_eq(number(member(x, "device_to_host"), "count"), (long long)rt->d2h, "rank %zu d2h", i);
        cr_assert_eq(number(member(x, "device_to_host"), "bytes"), (long long)rt->d2h_bytes);
        cr_assert(number(x, "host_time_ns") > 0 && number(x, "inside_constructs_ns") > 0);
    }
    /* the devices, named by rank: each one's numbers are its rank's alone */
    cr_assert_eq(length(top, "devices"), 2);
    for (size_t i = 0; i < 2; i++) {
        const char *d = element(top, "devices", i);
        cr_assert_eq(number(d, "rank"), (long long)i);
        cr_assert_eq(number(d, "device"), 0);
        cr_assert_eq(number(d, "kernels"), (long long)rt->kernels);
        cr_assert_eq(number(member(d, "host_to_device"), "count"), (long long)rt->h2d);
        cr_assert_eq(number(member(d, "device_to_host"), "bytes"), (long long)rt->d2h_bytes);
    }
    run_free(&r);
    /* the text: a Ranks table and the devices named by rank */
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report: %s", r.err);
    cr_assert_not_null(strstr(r.out, "\nRanks ("), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "rank 1 device 0"), "%s", r.out);
    cr_assert_not_null(strstr(r.out, ", 2 devices\n"), "%s", r.out);
    run_free(&r);
}

static char *file_text(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "no %s", path);
    char *text = NULL;
    size_t size = 0;
    cr_assert(getdelim(&text, &size, '\0', f) > 0, "%s is empty", path);
    fclose(f);
    return text;
}

/* view: a group of rows per rank (its host threads, then its devices); export: one process per rank. */
static void check_view_and_export(const char *dir)
{
    char svg[600], chrome[600];
    snprintf(svg, sizeof svg, "%s.svg", dir);
    snprintf(chrome, sizeof chrome, "%s.json", dir);
    run_result r;
    cr_assert_eq(run_offtrace(&r, "view", dir, "-o", svg, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "view: %s", r.err);
    run_free(&r);
    char *text = file_text(svg);
    const char *headings[] = {">MPI Rank 0<", ">rank 0 device 0<", ">MPI Rank 1<", ">rank 1 device 0<"};
    const char *at = text;
    for (size_t i = 0; i < 4; i++) {
        const char *h = strstr(at, headings[i]);
        cr_assert_not_null(h, "view: no group heading %s after the one before", headings[i]);
        at = h;
    }
    cr_assert_not_null(strstr(text, " (rank 1 device 0)"), "view: no transfer arrow to rank 1's device");
    free(text);
    cr_assert_eq(run_offtrace(&r, "export", "--format", "chrome", "-o", chrome, dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "export: %s", r.err);
    run_free(&r);
    text = file_text(chrome);
    size_t at_error = 0;
    cr_assert_eq(json_check(text, strlen(text), &at_error), 0, "export: invalid JSON at byte %zu", at_error);
    for (int rank = 0; rank < 2; rank++) {
        char want[128];
        snprintf(want, sizeof want, "\"process_name\",\"pid\":%d,\"args\":{\"name\":\"MPI Rank %d\"}", rank, rank);
        cr_assert_not_null(strstr(text, want), "export: no %s", want);
        snprintf(want, sizeof want, "\"thread_name\",\"pid\":%d,", rank);
        cr_assert_not_null(strstr(text, want), "export: rank %d has no threads", rank);
    }
    cr_assert_null(strstr(text, "\"pid\":2,"), "export: a pid that is no rank");
    /* every transfer arrow's id once: the ranks' transfers number alike, Chrome's flow ids are global */
    size_t starts = 0, repeated = 0;
    for (const char *s = strstr(text, "{\"ph\":\"s\""); s; s = strstr(s + 1, "{\"ph\":\"s\"")) {
        const char *id = strstr(s, "\"id\":\"");
        cr_assert_not_null(id);
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(id, ","), id);
        for (const char *t = strstr(text, "{\"ph\":\"s\""); t && t < s; t = strstr(t + 1, "{\"ph\":\"s\""))
            repeated += strncmp(strstr(t, "\"id\":\""), key, strlen(key)) == 0 &&
                        strstr(t, "\"id\":\"")[strlen(key)] == ',';
        starts++;
    }
    cr_assert(starts > 0, "export: no transfer arrows");
    cr_assert_eq(repeated, 0, "export: %zu transfer arrows share an id with another", repeated);
    free(text);
}

static void job_of(const char *example)
{
    runtime_counts rt;
    cr_assert_eq(runtime_counts_of(example, &rt), 0, "%s", rt.problem);
    cr_assert(rt.kernels > 0 && rt.h2d > 0, "%s offloads nothing", example);
    char dir[512];
    record_job(example, dir, sizeof dir);
    check_trace_read(dir, &rt);
    check_report(dir, &rt);
    check_view_and_export(dir);
}

Test(report_mpi, two_ranks_of_cg)
{
    job_of("example_cg");
}

Test(report_mpi, two_ranks_of_saxpy)
{
    job_of("example_saxpy");
}

/* ---- the MPI calls table: a job of example_mpi_halo, 10 steps ---- */

/* The mpi_calls row of \p function, or NULL. */
static const char *mpi_call_row(const char *top, const char *function)
{
    char want[64];
    snprintf(want, sizeof want, "\"%s\"", function);
    for (size_t i = 0; element(top, "mpi_calls", i); i++) {
        const char *row = element(top, "mpi_calls", i);
        const char *name = member(row, "function");
        if (name && !strncmp(name, want, strlen(want)))
            return row;
    }
    return NULL;
}

Test(report_mpi, mpi_calls_of_halo)
{
    char dir[512];
    scratch_path(dir, (unsigned)sizeof dir, "job-halo-calls");
    char *args[] = {OFFTRACE_BIN_DIR "/offtrace", "record", "-o", dir, "--", OFFTRACE_BIN_DIR "/example_mpi_halo",
                    "10", NULL};
    run_result r;
    cr_assert_eq(run_mpirun(2, args, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun of example_mpi_halo: %s", r.err);
    run_free(&r);

    cr_assert_eq(run_offtrace(&r, "report", "--json", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report --json: %s", r.err);
    size_t at = 0;
    cr_assert_eq(json_check(r.out, strlen(r.out), &at), 0, "invalid JSON at byte %zu: %.80s", at, r.out + at);
    const char *top = r.out;
    /* mpi_halo.c: one MPI_Allreduce and one MPI_Waitall per step on each rank */
    const char *allreduce = mpi_call_row(top, "MPI_Allreduce"), *waitall = mpi_call_row(top, "MPI_Waitall");
    cr_assert_not_null(allreduce, "no MPI_Allreduce row");
    cr_assert_not_null(waitall, "no MPI_Waitall row");
    cr_assert_eq(number(allreduce, "count"), 20);
    cr_assert_eq(number(waitall, "count"), 20);
    size_t rows = length(top, "mpi_calls");
    cr_assert(rows >= 4, "%zu MPI functions (Init, Isend, Irecv, Waitall, Allreduce, Finalize expected)", rows);
    long long previous = -1;
    for (size_t i = 0; i < rows; i++) {
        const char *x = element(top, "mpi_calls", i);
        long long mean = number(x, "mean_ns"), max = number(x, "max_ns"), total = number(x, "total_ns");
        cr_assert(number(x, "count") > 0 && mean <= max && max <= total, "row %zu: mean %lld max %lld total %lld",
                  i, mean, max, total);
        cr_assert(previous < 0 || total <= previous, "row %zu is not by total time", i);
        previous = total;
    }
    for (size_t i = 0; i < 2; i++) {
        const char *x = element(top, "ranks", i);
        long long mpi = number(x, "mpi_ns"), host = number(x, "host_time_ns");
        cr_assert(mpi > 0 && mpi <= host, "rank %zu: %lld ns in MPI, %lld host", i, mpi, host);
    }
    run_free(&r);

    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report: %s", r.err);
    cr_assert_not_null(strstr(r.out, "\nMPI calls ("), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "  MPI_Allreduce "), "%s", r.out);
    cr_assert_not_null(strstr(r.out, "  in MPI, per rank"), "%s", r.out);
    run_free(&r);
}

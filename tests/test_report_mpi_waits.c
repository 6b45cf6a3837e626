/**
 * \file test_report_mpi_waits.c
 * \brief The report's waiting in MPI (issue 16, docs/mpi.md "Waiting in
 *        MPI"): real jobs of example_mpi_halo (rank 0 computes three times
 *        over, so rank 1 waits for its sends), example_mpi_reduce (an
 *        Allreduce on each half of four ranks) and mpi_late_receiver (rank
 *        1 sleeps before each receive of 1 MiB), through `offtrace report
 *        --json` and the text. Facts only, never durations: which rank a
 *        finding names, that its total is the sum of the per-rank numbers
 *        of the same report and within the ranks' time in MPI, the bytes
 *        per MPI function against the MPICOUNT lines the program prints.
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

TestSuite(report_mpi_waits, .timeout = 180);

/* `mpirun -np N offtrace record -o DIR -- EXAMPLE ARG`; the program's output in \p out (malloc'd). */
static void record_job(int np, const char *example, const char *arg, char *dir, size_t size, char **out)
{
    char name[128], program[512];
    snprintf(name, sizeof name, "waits-%s-np%d", example, np);
    scratch_path(dir, (unsigned)size, name);
    snprintf(program, sizeof program, "%s/%s", OFFTRACE_BIN_DIR, example);
    char *args[] = {OFFTRACE_BIN_DIR "/offtrace", "record", "-o", dir, "--", program, (char *)arg, NULL};
    run_result r;
    cr_assert_eq(run_mpirun(np, args, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun of %s: %s", example, r.err);
    *out = strdup(r.out);
    run_free(&r);
}

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

static const char *element(const char *obj, const char *key, size_t i)
{
    const char *p = member(obj, key);
    cr_assert(p && *p == '[', "no array %s", key);
    return json_element(obj, key, i);
}

/* The finding of kind \p kind, or NULL. */
static const char *finding(const char *top, const char *kind)
{
    for (size_t i = 0; element(top, "findings", i); i++)
        if (json_string_is(element(top, "findings", i), "kind", kind))
            return element(top, "findings", i);
    return NULL;
}

/* The mpi_calls row of \p function, or NULL. */
static const char *call_row(const char *top, const char *function)
{
    for (size_t i = 0; element(top, "mpi_calls", i); i++)
        if (json_string_is(element(top, "mpi_calls", i), "function", function))
            return element(top, "mpi_calls", i);
    return NULL;
}

static long long bytes_of(const char *top, const char *function, const char *key)
{
    const char *row = call_row(top, function);
    return row ? number(row, key) : 0;
}

/* Sum over the ranks of `mpi_waiting` of \p key. */
static long long ranks_sum(const char *top, const char *key)
{
    long long sum = 0;
    for (size_t i = 0; element(top, "mpi_waiting", i); i++)
        sum += number(element(top, "mpi_waiting", i), key);
    return sum;
}

/* The rank of `mpi_waiting` with the most \p key. */
static long long ranks_worst(const char *top, const char *key)
{
    long long most = -1, worst = -1;
    for (size_t i = 0; element(top, "mpi_waiting", i); i++)
        if (number(element(top, "mpi_waiting", i), key) > most) {
            most = number(element(top, "mpi_waiting", i), key);
            worst = number(element(top, "mpi_waiting", i), "rank");
        }
    return worst;
}

/* A wait finding: fired, its total the ranks' sum, its count theirs, its worst rank the one waiting most. */
static void check_wait_finding(const char *top, const char *kind, const char *ns_key, const char *count_key)
{
    const char *f = finding(top, kind);
    cr_assert_not_null(f, "no %s finding", kind);
    cr_expect(number(f, "time_at_stake_ns") > 0);
    cr_expect_eq(number(f, "time_at_stake_ns"), ranks_sum(top, ns_key), "%s: at stake against the ranks' sum",
                 kind);
    if (count_key)
        cr_expect_eq(number(f, "count"), ranks_sum(top, count_key), "%s: count against the ranks' sum", kind);
    cr_expect_eq(number(f, "worst_rank"), ranks_worst(top, ns_key), "%s: worst rank", kind);
    cr_expect(json_string_is(f, "construct", "mpi"));
}

/* Per rank: each kind of waiting, and the idle devices, within its time in MPI; the largest waits in order. */
static void check_waits_within_mpi(const char *top)
{
    for (size_t i = 0; element(top, "mpi_waiting", i); i++) {
        const char *w = element(top, "mpi_waiting", i);
        long long rank = number(w, "rank"), in_mpi = number(element(top, "ranks", (size_t)rank), "mpi_ns");
        long long waiting = number(w, "waiting_ns");
        cr_expect_eq(waiting, number(w, "late_sender_ns") + number(w, "late_receiver_ns") + number(w, "collective_ns"));
        cr_expect(waiting <= in_mpi, "rank %lld waited %lld ns, in MPI %lld ns", rank, waiting, in_mpi);
        cr_expect(number(w, "devices_idle_ns") <= waiting, "rank %lld: devices idle beyond its waiting", rank);
    }
    long long previous = -1;
    size_t n = json_length(top, "mpi_waits");
    cr_expect(n <= 10, "%zu largest waits", n);
    for (size_t i = 0; i < n; i++) {
        const char *x = element(top, "mpi_waits", i);
        long long ns = number(x, "wait_ns"), rank = number(x, "rank");
        cr_expect(ns > 0 && (previous < 0 || ns <= previous), "wait %zu is not in order", i);
        previous = ns;
        char key[64];
        const char *kind = member(x, "kind");
        snprintf(key, sizeof key, "%.*s_ns", (int)(strchr(kind + 1, '"') - kind - 1), kind + 1);
        cr_expect(ns <= number(element(top, "mpi_waiting", (size_t)rank), key), "wait %zu beyond its rank's %s", i, key);
        cr_expect(number(x, "partner_rank") != rank || json_string_is(x, "kind", "collective"),
                  "wait %zu: a rank waiting for itself", i);
    }
}

/* The sum over the ranks' "<tag> rank=R ..." lines of field \p field. */
static long long count_sum(const char *out, const char *field)
{
    long long sum = 0;
    char want[64];
    snprintf(want, sizeof want, " %s=", field);
    for (const char *line = strstr(out, "MPICOUNT rank="); line; line = strstr(line + 1, "MPICOUNT rank=")) {
        const char *at = strstr(line, want), *end = strchr(line, '\n');
        if (at && (!end || at < end))
            sum += strtoll(at + strlen(want), NULL, 10);
    }
    return sum;
}

static char *report_json(const char *dir)
{
    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", "--json", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report --json: %s", r.err);
    size_t at = 0;
    cr_assert_eq(json_check(r.out, strlen(r.out), &at), 0, "invalid JSON at byte %zu: %.80s", at, r.out + at);
    char *out = strdup(r.out);
    run_free(&r);
    return out;
}

Test(report_mpi_waits, halo_rank_1_waits_for_rank_0)
{
    char dir[512], *program;
    record_job(2, "example_mpi_halo", "20", dir, sizeof dir, &program);
    char *top = report_json(dir);
    /* the messages: every one paired, none received before it was sent (one machine, one clock) */
    const char *messages = member(top, "mpi_messages");
    cr_assert_not_null(messages);
    cr_expect_eq(number(messages, "paired"), count_sum(program, "sends"));
    cr_expect_eq(number(messages, "unmatched"), 0);
    cr_expect_eq(number(messages, "clock_violations"), 0);
    /* bytes per MPI function: what the program says it sent and received */
    cr_expect_eq(bytes_of(top, "MPI_Isend", "bytes_sent"), count_sum(program, "bytes_sent"));
    cr_expect_eq(bytes_of(top, "MPI_Waitall", "bytes_received"), count_sum(program, "bytes_recv"),
                 "the Irecvs' bytes in the MPI_Waitall that completed them");
    cr_expect_eq(bytes_of(top, "MPI_Irecv", "bytes_received"), 0);
    cr_expect_eq(bytes_of(top, "MPI_Allreduce", "bytes_sent") + bytes_of(top, "MPI_Reduce", "bytes_sent") +
                     bytes_of(top, "MPI_Barrier", "bytes_sent"),
                 count_sum(program, "coll_sent"));
    cr_expect_eq(bytes_of(top, "MPI_Allreduce", "bytes_received") + bytes_of(top, "MPI_Reduce", "bytes_received") +
                     bytes_of(top, "MPI_Barrier", "bytes_received"),
                 count_sum(program, "coll_recv"));
    /* rank 0 computes three times over: rank 1's receives wait for its sends, its device idle meanwhile */
    check_waits_within_mpi(top);
    check_wait_finding(top, "late_sender", "late_sender_ns", "late_sender_count");
    cr_expect_eq(number(finding(top, "late_sender"), "worst_rank"), 1);
    check_wait_finding(top, "mpi_devices_idle", "devices_idle_ns", NULL);
    /* Rank 1 offloads nothing asynchronously, so its devices are idle for all of its late-sender wait (less
     * the clock correction's microseconds). Which rank idles most over all waits is not the program's to say:
     * a rank that starts late makes the other wait at the first barrier for as long as its start-up took. */
    const char *rank1 = element(top, "mpi_waiting", 1);
    cr_assert_not_null(rank1);
    cr_expect(number(rank1, "devices_idle_ns") + 100000 >= number(rank1, "late_sender_ns"),
              "rank 1: devices idle %lld ns of its %lld ns late-sender wait", number(rank1, "devices_idle_ns"),
              number(rank1, "late_sender_ns"));
    cr_expect_null(finding(top, "late_receiver"), "no blocking send of 64 KiB in the halo");
    free(top);

    run_result r;
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "report: %s", r.err);
    cr_expect_not_null(strstr(r.out, "\nLargest waits in MPI ("), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "  messages: "), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "[late sender]"), "%s", r.out);
    cr_expect_not_null(strstr(r.out, "[devices idle while MPI waits]"), "%s", r.out);
    run_free(&r);
    free(program);
}

Test(report_mpi_waits, reduce_waits_at_its_allreduce)
{
    char dir[512], *program;
    record_job(4, "example_mpi_reduce", "100000", dir, sizeof dir, &program);
    char *top = report_json(dir);
    const char *messages = member(top, "mpi_messages");
    cr_assert_not_null(messages);
    cr_expect_eq(number(messages, "paired"), count_sum(program, "sends"));
    cr_expect_eq(number(messages, "unmatched"), 0);
    /* blocking sends and receives: their bytes in their own calls */
    cr_expect_eq(bytes_of(top, "MPI_Send", "bytes_sent") + bytes_of(top, "MPI_Sendrecv", "bytes_sent"),
                 count_sum(program, "bytes_sent"));
    cr_expect_eq(bytes_of(top, "MPI_Recv", "bytes_received") + bytes_of(top, "MPI_Sendrecv", "bytes_received"),
                 count_sum(program, "bytes_recv"));
    check_waits_within_mpi(top);
    /* the halves' Allreduce: two ranks each, never arriving at the same nanosecond */
    check_wait_finding(top, "collective_wait", "collective_ns", "collective_count");
    free(top);
    free(program);
}

Test(report_mpi_waits, late_receiver_waits_for_the_sleeping_rank)
{
    char dir[512], *program;
    record_job(2, "mpi_late_receiver", "", dir, sizeof dir, &program);
    char *top = report_json(dir);
    cr_expect_eq(number(member(top, "mpi_messages"), "paired"), 3);
    cr_expect_eq(bytes_of(top, "MPI_Send", "bytes_sent"), 3 << 20);
    cr_expect_eq(bytes_of(top, "MPI_Recv", "bytes_received"), 3 << 20);
    check_waits_within_mpi(top);
    /* rank 1 sleeps before every receive: each of rank 0's three sends waits for it */
    check_wait_finding(top, "late_receiver", "late_receiver_ns", "late_receiver_count");
    cr_expect_eq(number(finding(top, "late_receiver"), "worst_rank"), 0);
    cr_expect_eq(number(finding(top, "late_receiver"), "count"), 3);
    cr_expect_null(finding(top, "late_sender"), "the sends began before their receives");
    free(top);
    free(program);
}

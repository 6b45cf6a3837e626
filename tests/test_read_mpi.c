/**
 * \file test_read_mpi.c
 * \brief trace_read's MPI events (issue 16, docs/mpi.md): the messages of
 *        real `mpirun -np 2` and `-np 4` jobs of example_mpi_halo, paired
 *        by the reader, against two counts offtrace has no part in: the
 *        MPICOUNT line each rank of the traced run prints and the
 *        MPICOUNTER line of libmpi_counter.so (a PMPI layer) preloaded into
 *        an untraced run of the same deterministic program. And the pairing
 *        itself on hand-made sides: FIFO per channel, the bound.
 *
 * Every mpirun runs under `timeout 60` (and mpirun's --timeout); no
 * duration is asserted.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/mpi_run.h"
#include "check/run.h"
#include "trace_read.h"
#include "trace_read_mpi.h"

#define MAX_RANKS 4
#define COUNTER_LIB OFFTRACE_LIB_DIR "/libmpi_counter.so"

TestSuite(read_mpi, .timeout = 120);

/* ---- the pairing on hand-made sides ---- */

static ot_tr_message side(uint32_t from, uint32_t to, uint32_t tag, uint64_t t, int is_send)
{
    ot_tr_message m = {.send_rank = from, .recv_rank = to, .tag = tag, .comm = 0};
    if (is_send) {
        m.send_time = t;
        m.bytes = t * 10;
    } else {
        m.recv_time = t;
        m.recv_bytes = t * 10;
    }
    return m;
}

Test(read_mpi, pairs_first_in_first_out_per_channel)
{
    ot_trm *m = ot_trm_new(8);
    cr_assert_not_null(m);
    /* two sends 0->1 tag 5, one 0->1 tag 6; receives in another order */
    ot_tr_message x = side(0, 1, 5, 1, 1);
    cr_assert_eq(ot_trm_arrive(m, 1, &x), 0);
    x = side(0, 1, 5, 2, 1);
    cr_assert_eq(ot_trm_arrive(m, 1, &x), 0);
    x = side(0, 1, 6, 3, 1);
    cr_assert_eq(ot_trm_arrive(m, 1, &x), 0);
    x = side(0, 1, 6, 10, 0); /* tag 6's receive: its one send */
    cr_assert_eq(ot_trm_arrive(m, 0, &x), 1);
    cr_assert_eq(x.send_time, 3);
    cr_assert_eq(x.recv_time, 10);
    x = side(0, 1, 5, 11, 0); /* tag 5: the first send first */
    cr_assert_eq(ot_trm_arrive(m, 0, &x), 1);
    cr_assert_eq(x.send_time, 1);
    cr_assert_eq(x.bytes, 10);
    /* a receive whose send comes later waits for it */
    x = side(1, 0, 5, 12, 0);
    cr_assert_eq(ot_trm_arrive(m, 0, &x), 0);
    x = side(1, 0, 5, 13, 1);
    cr_assert_eq(ot_trm_arrive(m, 1, &x), 1);
    cr_assert_eq(x.recv_time, 12);
    cr_assert_eq(x.send_time, 13);
    /* tag 5's second send is left */
    cr_assert_eq(ot_trm_oldest(m, &x), 1);
    cr_assert_eq(x.send_time, 2);
    cr_assert_eq(x.recv_time, 0);
    cr_assert_eq(ot_trm_oldest(m, &x), 0);
    ot_trm_free(m);
}

Test(read_mpi, the_bound_gives_up_the_oldest)
{
    ot_trm *m = ot_trm_new(3);
    cr_assert_not_null(m);
    for (uint64_t t = 1; t <= 3; t++) {
        ot_tr_message x = side(0, (uint32_t)t, 1, t, 1);
        cr_assert_eq(ot_trm_full(m), 0);
        cr_assert_eq(ot_trm_arrive(m, 1, &x), 0);
    }
    cr_assert_eq(ot_trm_full(m), 1);
    ot_tr_message x;
    cr_assert_eq(ot_trm_oldest(m, &x), 1);
    cr_assert_eq(x.send_time, 1);
    cr_assert_eq(ot_trm_full(m), 0);
    /* postings: the oldest is forgotten past the bound */
    for (uint64_t r = 1; r <= 4; r++)
        cr_assert_eq(ot_trm_post(m, 0, r, 100 + r), 0);
    cr_assert_eq(ot_trm_take_post(m, 0, 1), 0);
    cr_assert_eq(ot_trm_take_post(m, 0, 3), 103);
    cr_assert_eq(ot_trm_take_post(m, 0, 3), 0);
    cr_assert_eq(ot_trm_take_post(m, 1, 4), 0, "another rank's request of the same id");
    ot_trm_free(m);
}

/* ---- real jobs ---- */

/* `mpirun -np N sh -c SCRIPT` with \p env (check/mpi_run.h), which must succeed. */
static void mpirun(int np, const char *script, char *const env[], run_result *r)
{
    char *args[] = {"sh", "-c", (char *)script, NULL};
    cr_assert_eq(run_mpirun(np, args, env, r), 0, "mpirun could not be run");
    cr_assert(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0, "mpirun -np %d: %s", np, r->err);
}

typedef struct job_messages {
    mpi_rank_count n[MAX_RANKS];
    uint64_t messages, unmatched, wrong_side, bytes_differ, outside_call, posted_after_completion;
    uint64_t nonblocking_recvs, without_posting;
    uint64_t collectives_without_size, collectives_backwards;
} job_messages;

static int on_message(void *user, const ot_tr_message *m)
{
    job_messages *j = user;
    j->messages++;
    if (!m->sender || !m->receiver) {
        j->unmatched++;
        return 0;
    }
    if (m->sender->rank != m->send_rank || m->receiver->rank != m->recv_rank || m->send_rank >= MAX_RANKS ||
        m->recv_rank >= MAX_RANKS || m->send_rank == m->recv_rank)
        j->wrong_side++;
    j->bytes_differ += m->bytes != m->recv_bytes;
    j->outside_call += !m->send_call || !m->recv_call || strncmp(m->send_call->name, "MPI_", 4) ||
                       strncmp(m->recv_call->name, "MPI_", 4);
    if (!m->recv_blocking) {
        j->nonblocking_recvs++;
        j->without_posting += m->recv_posted == 0;
        j->posted_after_completion += m->recv_posted > m->recv_time;
    }
    if (m->send_rank < MAX_RANKS) {
        j->n[m->send_rank].sends++;
        j->n[m->send_rank].bytes_sent += (long)m->bytes;
    }
    if (m->recv_rank < MAX_RANKS) {
        j->n[m->recv_rank].recvs++;
        j->n[m->recv_rank].bytes_recv += (long)m->recv_bytes;
    }
    return 0;
}

static int on_collective(void *user, const ot_tr_location *loc, const ot_tr_collective *c)
{
    job_messages *j = user;
    j->collectives_without_size += c->size == 0 || !c->op_name || strncmp(c->op_name, "MPI_", 4);
    j->collectives_backwards += c->begin > c->end;
    if (loc->rank < MAX_RANKS) {
        j->n[loc->rank].coll++;
        j->n[loc->rank].coll_sent += (long)c->sent;
        j->n[loc->rank].coll_recv += (long)c->received;
    }
    return 0;
}

static uint64_t unknown_events, unmatched_messages, clock_violations;

static int on_end(void *user, const ot_tr_archive *a)
{
    unknown_events = ot_tr_unknown_events(a);
    unmatched_messages = ot_tr_unmatched_messages(a);
    clock_violations = ot_tr_clock_violations(a);
    return 0;
}

static void same(const mpi_rank_count *want, const mpi_rank_count *got, const char *source, int rank,
                 int with_coll_bytes)
{
    cr_expect_eq(got->sends, want->sends, "rank %d: %s says %ld sends, the reader %ld", rank, source, want->sends,
                 got->sends);
    cr_expect_eq(got->bytes_sent, want->bytes_sent, "rank %d: bytes sent %ld (%s), %ld", rank, want->bytes_sent,
                 source, got->bytes_sent);
    cr_expect_eq(got->recvs, want->recvs, "rank %d: receives %ld (%s), %ld", rank, want->recvs, source, got->recvs);
    cr_expect_eq(got->bytes_recv, want->bytes_recv, "rank %d: bytes received %ld (%s), %ld", rank, want->bytes_recv,
                 source, got->bytes_recv);
    cr_expect_eq(got->coll, want->coll, "rank %d: collectives %ld (%s), %ld", rank, want->coll, source, got->coll);
    if (with_coll_bytes) {
        cr_expect_eq(got->coll_sent, want->coll_sent, "rank %d: collective bytes sent %ld (%s), %ld", rank,
                     want->coll_sent, source, got->coll_sent);
        cr_expect_eq(got->coll_recv, want->coll_recv, "rank %d: collective bytes received %ld (%s), %ld", rank,
                     want->coll_recv, source, got->coll_recv);
    }
}

static void halo_job(int np)
{
    char dir[512], name[64], script[2048];
    snprintf(name, sizeof name, "read-mpi-halo-np%d", np);
    scratch_path(dir, (unsigned)sizeof dir, name);
    run_result traced, counted;
    snprintf(script, sizeof script, "exec %s/offtrace record -o %s -- %s/example_mpi_halo 8", OFFTRACE_BIN_DIR, dir,
             OFFTRACE_BIN_DIR);
    mpirun(np, script, NULL, &traced);
    snprintf(script, sizeof script, "exec %s/example_mpi_halo 8", OFFTRACE_BIN_DIR);
    char *env[] = {"LD_PRELOAD=" COUNTER_LIB, NULL};
    mpirun(np, script, env, &counted);

    job_messages j = {0};
    for (int r = 0; r < MAX_RANKS; r++)
        j.n[r] = (mpi_rank_count){0};
    ot_tr_visitor v = {.message = on_message, .collective = on_collective, .end = on_end};
    char err[512] = "";
    cr_assert_eq(ot_trace_read(dir, &v, &j, err, sizeof err), 0, "%s", err);
    cr_expect_eq(unknown_events, 0, "%llu events the reader did not interpret", (unsigned long long)unknown_events);
    cr_expect_eq(j.unmatched, 0, "%llu of %llu messages without a partner", (unsigned long long)j.unmatched,
                 (unsigned long long)j.messages);
    cr_expect_eq(unmatched_messages, j.unmatched, "ot_tr_unmatched_messages counts them");
    /* one machine, one clock: no receive completes before its send's call began */
    cr_expect_eq(clock_violations, 0, "%llu messages received before they were sent",
                 (unsigned long long)clock_violations);
    cr_expect_eq(j.wrong_side, 0, "%llu messages whose ranks are not their locations'",
                 (unsigned long long)j.wrong_side);
    cr_expect_eq(j.bytes_differ, 0, "%llu messages received other bytes than sent", (unsigned long long)j.bytes_differ);
    cr_expect_eq(j.outside_call, 0, "%llu messages outside their MPI call", (unsigned long long)j.outside_call);
    cr_expect_gt(j.nonblocking_recvs, 0, "the halo receives with MPI_Irecv");
    cr_expect_eq(j.without_posting, 0, "%llu Irecvs without their posting time", (unsigned long long)j.without_posting);
    cr_expect_eq(j.posted_after_completion, 0);
    cr_expect_eq(j.collectives_without_size, 0);
    cr_expect_eq(j.collectives_backwards, 0);
    for (int rank = 0; rank < np; rank++) {
        mpi_rank_count program, counter;
        cr_assert_eq(mpi_count_line(traced.out, "MPICOUNT", rank, &program), 0, "no MPICOUNT of rank %d", rank);
        cr_assert_eq(mpi_count_line(counted.err, "MPICOUNTER", rank, &counter), 0, "no MPICOUNTER of rank %d:\n%s",
                     rank, counted.err);
        cr_expect_gt(program.sends, 0, "rank %d sends nothing", rank);
        same(&program, &j.n[rank], "its MPICOUNT line", rank, 1);
        same(&counter, &j.n[rank], "libmpi_counter", rank, 0);
    }
    run_free(&traced);
    run_free(&counted);
}

Test(read_mpi, every_message_of_two_ranks_paired)
{
    halo_job(2);
}

Test(read_mpi, every_message_of_four_ranks_paired)
{
    halo_job(4);
}

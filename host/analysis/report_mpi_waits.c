/**
 * \file report_mpi_waits.c
 * \brief Waiting in MPI (report_mpi_waits.h): each paired message judged
 *        for a late sender or a late receiver, the members of each N-to-N
 *        collective matched for the wait before the last one came, the
 *        per-rank sums and the largest waits, and per rank the part of its
 *        waits in which its devices ran nothing (from a short history of
 *        their activity: a wait is known only once it has ended).
 */
#define _GNU_SOURCE
#include "report_mpi_waits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_ranks.h"

/* Collectives some members ended and others not yet. No member of an N-to-N collective ends before the last
 * one began, so a communicator has one or two open at a time; more mean a member that never comes (a rank that
 * died): past this the oldest is given up. */
#define OPEN_COLLECTIVES 256
/* The changes of a rank's device activity remembered: a wait reaches back to the begin of its call. More
 * changes within one wait than this, and its older part counts as busy (the idle time is then a lower bound). */
#define DEVICE_HISTORY 128

/* A change of a rank's device activity: at t, its devices' idle time so far, and how many run after it. */
typedef struct activity_change {
    uint64_t t, idle;
    uint32_t busy;
} activity_change;

typedef struct rank_waits {
    uint64_t ns[OT_RP_WAIT_KINDS], count[OT_RP_WAIT_KINDS];
    uint64_t idle_ns;            /* the part of its waits with its devices idle */
    uint32_t busy;               /* its devices' kernels and transfers running now */
    uint64_t since, idle;        /* the last change, and its devices' idle time up to it */
    activity_change history[DEVICE_HISTORY];
    uint32_t changes;            /* made so far (the history holds the last DEVICE_HISTORY) */
} rank_waits;

/* The receive call of one location judged for a late sender: the latest send its messages waited for. */
typedef struct receive_call {
    uint64_t serial;             /* its span's serial, 0: none */
    ot_rp_mpi_wait wait;
} receive_call;

typedef struct member {
    uint32_t rank;
    uint64_t begin, end;
    char call[40];
} member;

/* The k-th N-to-N collective of a communicator: its members as they end. */
typedef struct collective {
    struct collective *next;     /* newer ones first */
    uint32_t comm, size, arrived;
    uint64_t seq, last_begin;
    uint32_t last_rank;
    char comm_name[40];
    member *members;
} collective;

/* Per communicator: how many N-to-N collectives each world rank has ended on it. */
typedef struct comm_sequence {
    uint32_t comm;
    uint64_t *ended;             /* by world rank */
} comm_sequence;

struct ot_rp_mpi_waits {
    const ot_tr_archive *archive; /* during the read */
    uint64_t first_time;
    uint32_t ranks;
    rank_waits *rank;
    receive_call *receiving;     /* by location index */
    size_t locations;
    ot_rp_mpi_wait top[OT_RP_MPI_WAITS];
    size_t top_count;
    comm_sequence *comms;
    size_t comm_count;
    collective *open;
    size_t open_count;
    uint64_t messages, unmatched, violations;
};

int rp_mpi_waits_begin(ot_report *r, const ot_tr_archive *a)
{
    struct ot_rp_mpi_waits *w = calloc(1, sizeof *w);
    if (!w)
        return -ENOMEM;
    r->mpi_waits = w;
    w->archive = a;
    w->first_time = ot_tr_first_time(a);
    w->ranks = ot_tr_rank_count(a);
    w->locations = ot_tr_location_count(a);
    w->rank = calloc(w->ranks, sizeof *w->rank);
    w->receiving = calloc(w->locations ? w->locations : 1, sizeof *w->receiving);
    for (uint32_t k = 0; w->rank && k < w->ranks; k++)
        w->rank[k].since = w->first_time;
    return w->rank && w->receiving ? 0 : -ENOMEM;
}

/* Rank \p k's devices' idle time from the first event up to \p t (t no later than the last event read). */
static uint64_t idle_at(const struct ot_rp_mpi_waits *w, const rank_waits *k, uint64_t t)
{
    uint32_t held = k->changes < DEVICE_HISTORY ? k->changes : DEVICE_HISTORY;
    for (uint32_t i = 0; i < held; i++) {
        const activity_change *c = &k->history[(k->changes - 1 - i) % DEVICE_HISTORY];
        if (c->t <= t)
            return c->idle + (c->busy ? 0 : t - c->t);
    }
    if (held == k->changes) /* before its first change: idle since the first event */
        return t > w->first_time ? t - w->first_time : 0;
    return k->history[k->changes % DEVICE_HISTORY].idle; /* forgotten: counted busy */
}

static int by_wait(const ot_rp_mpi_wait *a, const ot_rp_mpi_wait *b)
{
    return a->wait_ns > b->wait_ns || (a->wait_ns == b->wait_ns && a->at_ns < b->at_ns);
}

/* One instance of waiting, from \p begin on: its rank's sums, its devices' idle part, and the largest ones. */
static void record(struct ot_rp_mpi_waits *w, const ot_rp_mpi_wait *x, uint64_t begin)
{
    if (!x->wait_ns || x->rank >= w->ranks)
        return;
    rank_waits *k = &w->rank[x->rank];
    k->ns[x->kind] += x->wait_ns;
    k->count[x->kind]++;
    uint64_t from = idle_at(w, k, begin), to = idle_at(w, k, begin + x->wait_ns);
    k->idle_ns += to > from ? to - from : 0;
    size_t at = w->top_count;
    while (at > 0 && by_wait(x, &w->top[at - 1]))
        at--;
    if (at >= OT_RP_MPI_WAITS)
        return;
    size_t keep = w->top_count < OT_RP_MPI_WAITS ? w->top_count : OT_RP_MPI_WAITS - 1;
    memmove(&w->top[at + 1], &w->top[at], (keep - at) * sizeof *w->top);
    w->top[at] = *x;
    if (w->top_count < OT_RP_MPI_WAITS)
        w->top_count++;
}

static void copy_name(char *to, size_t size, const char *name)
{
    snprintf(to, size, "%s", name ? name : "");
}

static uint64_t since_start(const struct ot_rp_mpi_waits *w, uint64_t t)
{
    return t > w->first_time ? t - w->first_time : 0;
}

static void settle_receive(struct ot_rp_mpi_waits *w, receive_call *x)
{
    if (x->serial)
        record(w, &x->wait, x->wait.at_ns + w->first_time);
    x->serial = 0;
}

/* Late sender: the call in which the receive completed began before its send did; it waited from its begin until
 * the send's call began (or until the completion, if that came first: a clock violation's wait is none). A call
 * completing several receives waited until the latest of their sends. */
static void late_sender(struct ot_rp_mpi_waits *w, const ot_tr_message *m)
{
    if (!m->recv_call || !m->recv_call_serial || m->receiver->index >= w->locations)
        return;
    uint64_t sent = m->send_call ? m->send_call_begin : m->send_time;
    uint64_t until = sent < m->recv_time ? sent : m->recv_time;
    uint64_t ns = until > m->recv_call_begin ? until - m->recv_call_begin : 0;
    receive_call *x = &w->receiving[m->receiver->index];
    if (x->serial != m->recv_call_serial) {
        settle_receive(w, x);
        x->serial = m->recv_call_serial;
        x->wait = (ot_rp_mpi_wait){.kind = OT_RP_WAIT_LATE_SENDER, .rank = m->recv_rank,
                                   .at_ns = since_start(w, m->recv_call_begin)};
        copy_name(x->wait.call, sizeof x->wait.call, m->recv_call->name);
    }
    if (ns > x->wait.wait_ns) {
        x->wait.wait_ns = ns;
        x->wait.partner = m->send_rank;
    }
}

/* Late receiver: a blocking send of OT_RP_LATE_RECEIVER_BYTES or more cannot end before its receive is posted;
 * it waited from its begin until then (at most until its end). */
static void late_receiver(struct ot_rp_mpi_waits *w, const ot_tr_message *m)
{
    if (!m->send_blocking || m->bytes < OT_RP_LATE_RECEIVER_BYTES || !m->send_call || !m->recv_posted)
        return;
    uint64_t until = m->recv_posted;
    if (m->send_call_end && m->send_call_end < until)
        until = m->send_call_end;
    if (until <= m->send_call_begin)
        return;
    ot_rp_mpi_wait x = {.kind = OT_RP_WAIT_LATE_RECEIVER, .rank = m->send_rank, .partner = m->recv_rank,
                        .at_ns = since_start(w, m->send_call_begin), .wait_ns = until - m->send_call_begin};
    copy_name(x.call, sizeof x.call, m->send_call->name);
    record(w, &x, m->send_call_begin);
}

void rp_mpi_call_end(ot_report *r, const ot_tr_location *loc, uint64_t serial)
{
    struct ot_rp_mpi_waits *w = r->mpi_waits;
    if (w && loc->index < w->locations && w->receiving[loc->index].serial == serial)
        settle_receive(w, &w->receiving[loc->index]);
}

int rp_mpi_message(ot_report *r, const ot_tr_message *m)
{
    struct ot_rp_mpi_waits *w = r->mpi_waits;
    if (!m->sender || !m->receiver)
        return 0;
    w->messages++;
    late_sender(w, m);
    late_receiver(w, m);
    return 0;
}

/* N-to-N: every member hands data to every other, so none can end before the last one came. */
static int all_to_all(OTF2_CollectiveOp op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW:
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return 1;
    default: return 0;
    }
}

static comm_sequence *sequence_of(struct ot_rp_mpi_waits *w, uint32_t comm)
{
    for (size_t i = 0; i < w->comm_count; i++)
        if (w->comms[i].comm == comm)
            return &w->comms[i];
    comm_sequence *p = realloc(w->comms, (w->comm_count + 1) * sizeof *p);
    if (!p)
        return NULL;
    w->comms = p;
    p = &p[w->comm_count];
    *p = (comm_sequence){.comm = comm, .ended = calloc(w->ranks, sizeof *p->ended)};
    if (!p->ended)
        return NULL;
    w->comm_count++;
    return p;
}

static void free_collective(collective *c)
{
    free(c->members);
    free(c);
}

/* Every member came: each waited from its begin until the last one's (at most until its own end). */
static void settle_collective(struct ot_rp_mpi_waits *w, const collective *c)
{
    for (uint32_t i = 0; i < c->arrived; i++) {
        const member *x = &c->members[i];
        uint64_t until = c->last_begin < x->end ? c->last_begin : x->end;
        if (until <= x->begin)
            continue;
        ot_rp_mpi_wait y = {.kind = OT_RP_WAIT_COLLECTIVE, .rank = x->rank, .partner = c->last_rank,
                            .at_ns = since_start(w, x->begin), .wait_ns = until - x->begin};
        copy_name(y.call, sizeof y.call, x->call);
        copy_name(y.comm, sizeof y.comm, c->comm_name);
        record(w, &y, x->begin);
    }
}

static collective *open_collective(struct ot_rp_mpi_waits *w, const ot_tr_collective *x, uint64_t seq)
{
    collective **at = &w->open;
    while (*at && !((*at)->comm == x->comm && (*at)->seq == seq))
        at = &(*at)->next;
    if (*at)
        return *at;
    if (w->open_count >= OPEN_COLLECTIVES) { /* give up the oldest: the list's last */
        collective **last = &w->open;
        while ((*last)->next)
            last = &(*last)->next;
        free_collective(*last);
        *last = NULL;
        w->open_count--;
    }
    collective *c = calloc(1, sizeof *c);
    if (!c || !(c->members = calloc(x->size, sizeof *c->members))) {
        free(c);
        return NULL;
    }
    c->comm = x->comm;
    c->size = x->size;
    c->seq = seq;
    copy_name(c->comm_name, sizeof c->comm_name, ot_tr_comm_name(w->archive, x->comm));
    c->next = w->open;
    w->open = c;
    w->open_count++;
    return c;
}

int rp_mpi_collective(ot_report *r, const ot_tr_location *loc, const ot_tr_collective *x)
{
    struct ot_rp_mpi_waits *w = r->mpi_waits;
    if (!all_to_all(x->op) || x->size < 2 || loc->rank >= w->ranks)
        return 0;
    comm_sequence *s = sequence_of(w, x->comm);
    if (!s)
        return -ENOMEM;
    collective *c = open_collective(w, x, s->ended[loc->rank]++);
    if (!c)
        return -ENOMEM;
    if (c->arrived >= c->size)
        return 0;
    member *m = &c->members[c->arrived++];
    m->rank = loc->rank;
    m->begin = x->begin;
    m->end = x->end;
    copy_name(m->call, sizeof m->call, x->call ? x->call->name : x->op_name);
    if (c->arrived == 1 || x->begin > c->last_begin) {
        c->last_begin = x->begin;
        c->last_rank = loc->rank;
    }
    if (c->arrived < c->size)
        return 0;
    settle_collective(w, c);
    collective **at = &w->open;
    while (*at != c)
        at = &(*at)->next;
    *at = c->next;
    free_collective(c);
    w->open_count--;
    return 0;
}

void rp_mpi_device_activity(ot_report *r, int device, uint64_t t, int starts)
{
    struct ot_rp_mpi_waits *w = r->mpi_waits;
    uint32_t rank = r->device_stride > 0 && device >= 0 ? (uint32_t)(device / r->device_stride) : 0;
    if (!w || device < 0 || rank >= w->ranks)
        return;
    rank_waits *k = &w->rank[rank];
    if (t > k->since) {
        k->idle += k->busy ? 0 : t - k->since;
        k->since = t;
    }
    if (starts)
        k->busy++;
    else if (k->busy)
        k->busy--;
    k->history[k->changes++ % DEVICE_HISTORY] = (activity_change){k->since, k->idle, k->busy};
}

void rp_mpi_waits_end(ot_report *r, const ot_tr_archive *a)
{
    struct ot_rp_mpi_waits *w = r->mpi_waits;
    if (!w)
        return;
    for (size_t i = 0; i < w->locations; i++)
        settle_receive(w, &w->receiving[i]);
    w->unmatched = ot_tr_unmatched_messages(a);
    w->violations = ot_tr_clock_violations(a);
    w->archive = NULL;
}

/* ---- what it tells ---- */

const ot_rp_mpi_wait *ot_report_mpi_waits(const ot_report *r, size_t *n)
{
    *n = r->mpi_waits ? r->mpi_waits->top_count : 0;
    return *n ? r->mpi_waits->top : NULL;
}

uint32_t ot_report_mpi_wait_ranks(const ot_report *r)
{
    return r->mpi_waits && r->mpi ? r->mpi_waits->ranks : 0;
}

static const rank_waits *rank_of(const ot_report *r, uint32_t rank)
{
    return r->mpi_waits && rank < r->mpi_waits->ranks ? &r->mpi_waits->rank[rank] : NULL;
}

uint64_t ot_report_mpi_wait_ns(const ot_report *r, uint32_t rank, ot_rp_wait_kind kind)
{
    const rank_waits *k = rank_of(r, rank);
    return k && kind < OT_RP_WAIT_KINDS ? k->ns[kind] : 0;
}

uint64_t ot_report_mpi_wait_count(const ot_report *r, uint32_t rank, ot_rp_wait_kind kind)
{
    const rank_waits *k = rank_of(r, rank);
    return k && kind < OT_RP_WAIT_KINDS ? k->count[kind] : 0;
}

uint64_t ot_report_mpi_waiting_ns(const ot_report *r, uint32_t rank)
{
    uint64_t sum = 0;
    for (int kind = 0; kind < OT_RP_WAIT_KINDS; kind++)
        sum += ot_report_mpi_wait_ns(r, rank, (ot_rp_wait_kind)kind);
    return sum;
}

uint64_t ot_report_mpi_idle_ns(const ot_report *r, uint32_t rank)
{
    const rank_waits *k = rank_of(r, rank);
    return k ? k->idle_ns : 0;
}

uint64_t ot_report_mpi_messages(const ot_report *r) { return r->mpi_waits ? r->mpi_waits->messages : 0; }
uint64_t ot_report_mpi_unmatched(const ot_report *r) { return r->mpi_waits ? r->mpi_waits->unmatched : 0; }
uint64_t ot_report_mpi_clock_violations(const ot_report *r) { return r->mpi_waits ? r->mpi_waits->violations : 0; }

const char *ot_report_wait_kind_id(ot_rp_wait_kind k)
{
    static const char *const ids[OT_RP_WAIT_KINDS] = {"late_sender", "late_receiver", "collective"};
    return k < OT_RP_WAIT_KINDS ? ids[k] : "?";
}

const char *ot_report_wait_kind_name(ot_rp_wait_kind k)
{
    static const char *const names[OT_RP_WAIT_KINDS] = {"late sender", "late receiver", "collective"};
    return k < OT_RP_WAIT_KINDS ? names[k] : "?";
}

/* Whom an instance waited for, in words. */
static const char *waited_for(const ot_rp_mpi_wait *x, char *buf, size_t size)
{
    if (x->kind == OT_RP_WAIT_COLLECTIVE)
        snprintf(buf, size, "%s, rank %u last", x->comm[0] ? x->comm : "its communicator", x->partner);
    else
        snprintf(buf, size, "rank %u", x->partner);
    return buf;
}

void ot_report_print_mpi_waits_text(const ot_report *r, FILE *to)
{
    uint32_t ranks = ot_report_mpi_wait_ranks(r);
    if (!ranks)
        return;
    size_t n;
    const ot_rp_mpi_wait *top = ot_report_mpi_waits(r, &n);
    fprintf(to, "\nLargest waits in MPI (an MPI call waiting for another rank; docs/mpi.md, \"Waiting in MPI\")\n");
    if (n)
        fprintf(to, "  %4s %-22s %-13s %9s %-32s %9s\n", "rank", "call", "kind", "waited", "for", "at");
    else
        fprintf(to, "  (none)\n");
    for (size_t i = 0; i < n; i++) {
        char t[2][32], who[96];
        fprintf(to, "  %4u %-22.22s %-13s %9s %-32.32s %9s\n", top[i].rank, top[i].call,
                ot_report_wait_kind_name(top[i].kind), ot_report_time(top[i].wait_ns, t[0], 32),
                waited_for(&top[i], who, sizeof who), ot_report_time(top[i].at_ns, t[1], 32));
    }
    fprintf(to, "  waiting per rank:\n  %4s %13s %13s %13s %13s %13s\n", "rank", "late sender", "late receiver",
            "collective", "all", "devices idle");
    for (uint32_t k = 0; k < ranks; k++) {
        char t[5][32];
        fprintf(to, "  %4u %13s %13s %13s %13s %13s\n", k,
                ot_report_time(ot_report_mpi_wait_ns(r, k, OT_RP_WAIT_LATE_SENDER), t[0], 32),
                ot_report_time(ot_report_mpi_wait_ns(r, k, OT_RP_WAIT_LATE_RECEIVER), t[1], 32),
                ot_report_time(ot_report_mpi_wait_ns(r, k, OT_RP_WAIT_COLLECTIVE), t[2], 32),
                ot_report_time(ot_report_mpi_waiting_ns(r, k), t[3], 32),
                ot_report_time(ot_report_mpi_idle_ns(r, k), t[4], 32));
    }
}

void ot_report_print_mpi_waits_json(const ot_report *r, FILE *to)
{
    uint32_t ranks = ot_report_mpi_wait_ranks(r);
    if (!ranks)
        return;
    size_t n;
    const ot_rp_mpi_wait *top = ot_report_mpi_waits(r, &n);
    fputs("  \"mpi_waits\": [", to);
    for (size_t i = 0; i < n; i++) {
        fprintf(to, "%s\n    {\"rank\": %u, \"call\": ", i ? "," : "", top[i].rank);
        ot_report_json_string(to, top[i].call);
        fprintf(to, ", \"kind\": \"%s\", \"wait_ns\": %llu, \"partner_rank\": %u, \"communicator\": ",
                ot_report_wait_kind_id(top[i].kind), (unsigned long long)top[i].wait_ns, top[i].partner);
        ot_report_json_string(to, top[i].comm);
        fprintf(to, ", \"at_ns\": %llu}", (unsigned long long)top[i].at_ns);
    }
    fputs("\n  ],\n  \"mpi_waiting\": [", to);
    for (uint32_t k = 0; k < ranks; k++) {
        fprintf(to, "%s\n    {\"rank\": %u", k ? "," : "", k);
        for (int kind = 0; kind < OT_RP_WAIT_KINDS; kind++)
            fprintf(to, ", \"%s_ns\": %llu, \"%s_count\": %llu", ot_report_wait_kind_id(kind),
                    (unsigned long long)ot_report_mpi_wait_ns(r, k, kind), ot_report_wait_kind_id(kind),
                    (unsigned long long)ot_report_mpi_wait_count(r, k, kind));
        fprintf(to, ", \"waiting_ns\": %llu, \"devices_idle_ns\": %llu}",
                (unsigned long long)ot_report_mpi_waiting_ns(r, k), (unsigned long long)ot_report_mpi_idle_ns(r, k));
    }
    fputs("\n  ],\n", to);
}

void ot_report_print_mpi_messages_text(const ot_report *r, FILE *to)
{
    if (!ot_report_mpi_wait_ranks(r) || !(ot_report_mpi_messages(r) + ot_report_mpi_unmatched(r)))
        return;
    fprintf(to, "  messages: %llu paired, %llu without a partner, %llu received before their send began (clocks "
            "across machines: docs/mpi.md)\n", (unsigned long long)ot_report_mpi_messages(r),
            (unsigned long long)ot_report_mpi_unmatched(r), (unsigned long long)ot_report_mpi_clock_violations(r));
}

void ot_report_print_mpi_messages_json(const ot_report *r, FILE *to)
{
    if (!ot_report_mpi_wait_ranks(r))
        return;
    fprintf(to, "  \"mpi_messages\": {\"paired\": %llu, \"unmatched\": %llu, \"clock_violations\": %llu},\n",
            (unsigned long long)ot_report_mpi_messages(r), (unsigned long long)ot_report_mpi_unmatched(r),
            (unsigned long long)ot_report_mpi_clock_violations(r));
}

void ot_report_mpi_waits_free(ot_report *r)
{
    struct ot_rp_mpi_waits *w = r->mpi_waits;
    if (!w)
        return;
    while (w->open) {
        collective *c = w->open;
        w->open = c->next;
        free_collective(c);
    }
    for (size_t i = 0; i < w->comm_count; i++)
        free(w->comms[i].ended);
    free(w->comms);
    free(w->rank);
    free(w->receiving);
    free(w);
    r->mpi_waits = NULL;
}

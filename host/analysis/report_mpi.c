/**
 * \file report_mpi.c
 * \brief The MPI calls of an archive (report_mpi.h): per MPI function its
 *        calls and times, per rank the time some thread of it was in MPI,
 *        and the printers.
 */
#define _GNU_SOURCE
#include "report_mpi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "offtrace/event_catalogue.h"
#include "report_mpi_waits.h"
#include "report_ranks.h"

/* Time in MPI of one rank: the union over its threads (a call nested in another, or calls of two threads at
 * once, count once), so that it never exceeds the rank's host time. */
typedef struct rp_mpi_rank {
    uint64_t ns, since;
    uint32_t inside;
} rp_mpi_rank;

struct ot_rp_mpi {
    ot_rp_mpi_call **order;     /* by total time, kept so on every leave: a total only grows */
    size_t count, cap;
    ot_rp_mpi_call **of_region; /* region id -> its function's row (several regions may share a name) */
    size_t region_cap;
    rp_mpi_rank *ranks;
    size_t rank_cap;
};

int rp_mpi_call(const ot_tr_region *region)
{
    return region->cls == OFFTRACE_CLASS_MPI_P2P || region->cls == OFFTRACE_CLASS_MPI_COLLECTIVE ||
           region->cls == OFFTRACE_CLASS_MPI_OTHER;
}

/* \p array (\p *cap elements of \p size) grown to hold index \p i, the new elements zero; NULL when out of
 * memory (\p array stays). */
static void *grow(void *array, size_t *cap, size_t size, size_t i)
{
    if (i < *cap)
        return array;
    size_t n = *cap ? *cap : 16;
    while (n <= i)
        n *= 2;
    char *p = realloc(array, n * size);
    if (!p)
        return NULL;
    memset(p + *cap * size, 0, (n - *cap) * size);
    *cap = n;
    return p;
}

static ot_rp_mpi_call *row_of(struct ot_rp_mpi *m, const ot_tr_region *region)
{
    ot_rp_mpi_call **of_region = grow(m->of_region, &m->region_cap, sizeof *of_region, region->id);
    if (!of_region)
        return NULL;
    m->of_region = of_region;
    if (m->of_region[region->id])
        return m->of_region[region->id];
    for (size_t i = 0; i < m->count; i++)
        if (!strcmp(m->order[i]->name, region->name))
            return m->of_region[region->id] = m->order[i];
    ot_rp_mpi_call **order = grow(m->order, &m->cap, sizeof *order, m->count);
    if (!order)
        return NULL;
    m->order = order;
    ot_rp_mpi_call *x = calloc(1, sizeof *x);
    if (!x || !(x->name = strdup(region->name))) {
        free(x);
        return NULL;
    }
    x->at = m->count;
    m->order[m->count++] = x;
    return m->of_region[region->id] = x;
}

static int before(const ot_rp_mpi_call *a, const ot_rp_mpi_call *b)
{
    return a->total_ns > b->total_ns || (a->total_ns == b->total_ns && strcmp(a->name, b->name) < 0);
}

/* \p x's total grew: it moves up past the rows it now comes before. */
static void move_up(struct ot_rp_mpi *m, ot_rp_mpi_call *x)
{
    while (x->at > 0 && before(x, m->order[x->at - 1])) {
        ot_rp_mpi_call *y = m->order[x->at - 1];
        m->order[x->at] = y;
        y->at = x->at;
        m->order[--x->at] = x;
    }
}

int rp_mpi_bytes(ot_report *r, const ot_tr_region *region, uint64_t sent, uint64_t received)
{
    if (!r->mpi && !(r->mpi = calloc(1, sizeof *r->mpi)))
        return -ENOMEM;
    ot_rp_mpi_call *x = row_of(r->mpi, region);
    if (!x)
        return -ENOMEM;
    x->bytes_sent += sent;
    x->bytes_received += received;
    return 0;
}

int rp_mpi_span(ot_report *r, const ot_tr_location *loc, const ot_tr_span *span, int begins)
{
    if (!r->mpi && !(r->mpi = calloc(1, sizeof *r->mpi)))
        return -ENOMEM;
    struct ot_rp_mpi *m = r->mpi;
    rp_mpi_rank *ranks = grow(m->ranks, &m->rank_cap, sizeof *ranks, loc->rank);
    if (!ranks)
        return -ENOMEM;
    m->ranks = ranks;
    rp_mpi_rank *k = &m->ranks[loc->rank];
    ot_rp_mpi_call *x = row_of(m, span->region);
    if (!x)
        return -ENOMEM;
    if (begins) {
        if (k->inside++ == 0)
            k->since = span->begin;
        return 0;
    }
    if (k->inside && --k->inside == 0 && span->end > k->since)
        k->ns += span->end - k->since;
    if (span->unfinished || span->end < span->begin)
        return 0;
    uint64_t ns = span->end - span->begin;
    x->count++;
    x->total_ns += ns;
    if (ns > x->max_ns)
        x->max_ns = ns;
    move_up(m, x);
    return 0;
}

const ot_rp_mpi_call *const *ot_report_mpi_calls(const ot_report *r, size_t *n)
{
    *n = r->mpi ? r->mpi->count : 0;
    return *n ? (const ot_rp_mpi_call *const *)r->mpi->order : NULL;
}

uint64_t ot_report_mpi_rank_ns(const ot_report *r, uint32_t rank)
{
    return r->mpi && rank < r->mpi->rank_cap ? r->mpi->ranks[rank].ns : 0;
}

/* The traced host time the shares are of: a job's ranks' host times together, one process's clock range. */
static uint64_t host_time(const ot_report *r)
{
    if (!r->rank_count)
        return r->summary.duration_ns;
    uint64_t sum = 0;
    for (size_t i = 0; i < r->rank_count; i++)
        sum += r->ranks[i].host_ns;
    return sum;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t mean(const ot_rp_mpi_call *x)
{
    return x->count ? x->total_ns / x->count : 0;
}

void ot_report_print_mpi_text(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n;
    const ot_rp_mpi_call *const *rows = ot_report_mpi_calls(r, &n);
    if (!n)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    uint64_t host = host_time(r);
    fprintf(to, "\nMPI calls (host: share of the traced host time%s)\n", r->rank_count ? ", all ranks" : "");
    fprintf(to, "  %-22s %8s %9s %9s %9s %6s %9s %9s\n", "function", "count", "total", "mean", "max", "host",
            "sent", "received");
    for (size_t i = 0; i < shown; i++) {
        const ot_rp_mpi_call *x = rows[i];
        char t[3][32], b[2][32];
        fprintf(to, "  %-22.22s %8llu %9s %9s %9s %5.1f%% %9s %9s\n", x->name, (unsigned long long)x->count,
                ot_report_time(x->total_ns, t[0], 32), ot_report_time(mean(x), t[1], 32),
                ot_report_time(x->max_ns, t[2], 32), share(x->total_ns, host),
                ot_report_bytes(x->bytes_sent, b[0], 32), ot_report_bytes(x->bytes_received, b[1], 32));
    }
    if (shown < n)
        fprintf(to, "  ... %zu more\n", n - shown);
    if (!r->rank_count) {
        char t[32];
        fprintf(to, "  in MPI: %s (%.1f%% of the host time)\n", ot_report_time(ot_report_mpi_rank_ns(r, 0), t, 32),
                share(ot_report_mpi_rank_ns(r, 0), host));
        ot_report_print_mpi_waits_text(r, to);
        return;
    }
    fputs("  in MPI, per rank (share of its host time):", to);
    for (size_t i = 0; i < r->rank_count; i++) {
        char t[32];
        uint64_t ns = ot_report_mpi_rank_ns(r, r->ranks[i].rank);
        fprintf(to, "%s %u: %s (%.1f%%)", i ? "," : "", r->ranks[i].rank, ot_report_time(ns, t, 32),
                share(ns, r->ranks[i].host_ns));
    }
    fputc('\n', to);
    ot_report_print_mpi_waits_text(r, to);
}

void ot_report_print_mpi_json(const ot_report *r, const ot_rp_options *o, FILE *to)
{
    size_t n;
    const ot_rp_mpi_call *const *rows = ot_report_mpi_calls(r, &n);
    if (!n)
        return;
    size_t shown = o->limit && o->limit < n ? o->limit : n;
    uint64_t host = host_time(r);
    fputs("  \"mpi_calls\": [", to);
    for (size_t i = 0; i < shown; i++) {
        const ot_rp_mpi_call *x = rows[i];
        fputs(i ? ",\n    {\"function\": " : "\n    {\"function\": ", to);
        ot_report_json_string(to, x->name);
        fprintf(to, ", \"count\": %llu, \"total_ns\": %llu, \"mean_ns\": %llu, \"max_ns\": %llu, "
                "\"host_share\": %.4f, \"bytes_sent\": %llu, \"bytes_received\": %llu}", (unsigned long long)x->count,
                (unsigned long long)x->total_ns, (unsigned long long)mean(x), (unsigned long long)x->max_ns,
                share(x->total_ns, host) / 100.0, (unsigned long long)x->bytes_sent,
                (unsigned long long)x->bytes_received);
    }
    fputs("\n  ],\n", to);
    if (!r->rank_count)
        fprintf(to, "  \"mpi_ns\": %llu,\n", (unsigned long long)ot_report_mpi_rank_ns(r, 0));
    ot_report_print_mpi_messages_json(r, to);
    ot_report_print_mpi_waits_json(r, to);
}

void ot_report_mpi_free(ot_report *r)
{
    if (!r->mpi)
        return;
    for (size_t i = 0; i < r->mpi->count; i++) {
        free(r->mpi->order[i]->name);
        free(r->mpi->order[i]);
    }
    free(r->mpi->order);
    free(r->mpi->of_region);
    free(r->mpi->ranks);
    free(r->mpi);
    r->mpi = NULL;
}

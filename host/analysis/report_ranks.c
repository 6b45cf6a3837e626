/**
 * \file report_ranks.c
 * \brief The report of an MPI job's archive (report_ranks.h): each rank's
 *        host and offload time while the report reads, its devices' kernels
 *        and transfers after, its state from the merge, and the printers.
 */
#define _GNU_SOURCE
#include "report_ranks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "offtrace/event_catalogue.h"
#include "report_mpi.h"
#include "report_mpi_waits.h"
#include "report_state.h"

static const char *const state_names[] = {"complete", "partial", "missing"};

/* OFFTRACE::PARTIAL_RANKS: one "rank state reason" line per rank that is not complete (the merge's `ranks`). */
static void read_states(ot_report *r, const char *lines)
{
    for (const char *p = lines; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
        char *rest;
        unsigned long rank = strtoul(line, &rest, 10);
        if (rest != line && *rest == ' ' && rank < r->rank_count) {
            ot_rp_rank *x = &r->ranks[rank];
            rest++;
            size_t word = strcspn(rest, " ");
            if (word == strlen("missing") && !strncmp(rest, "missing", word))
                x->state = OT_RP_RANK_MISSING;
            else if (word == strlen("partial") && !strncmp(rest, "partial", word))
                x->state = OT_RP_RANK_PARTIAL;
            if (x->state != OT_RP_RANK_COMPLETE && rest[word] == ' ')
                snprintf(x->reason, sizeof x->reason, "%s", rest + word + 1);
        }
        p = end ? end + 1 : NULL;
    }
}

int rp_ranks_begin(rp_state *s, const ot_tr_archive *a)
{
    ot_report *r = s->r;
    r->device_stride = ot_tr_device_stride(a);
    for (size_t i = 0; i < r->device_count; i++) {
        r->devices[i].rank = (uint32_t)(i / (size_t)r->device_stride);
        r->devices[i].number = (int)(i % (size_t)r->device_stride);
    }
    uint32_t n = ot_tr_rank_count(a);
    if (n < 2)
        return 0; /* one process: no Ranks table, nothing changes */
    r->ranks = calloc(n, sizeof *r->ranks);
    if (!r->ranks)
        return -ENOMEM;
    r->rank_count = n;
    for (uint32_t i = 0; i < n; i++)
        r->ranks[i] = (ot_rp_rank){.rank = i, .first = UINT64_MAX};
    read_states(r, ot_tr_property(a, OFFTRACE_PARTIAL_RANKS_PROPERTY));
    return 0;
}

void rp_rank_time(rp_state *s, const ot_tr_location *loc, uint64_t t)
{
    if (!s->r->rank_count || loc->klass != OT_TR_HOST_THREAD || loc->rank >= s->r->rank_count)
        return;
    ot_rp_rank *x = &s->r->ranks[loc->rank];
    if (t < x->first)
        x->first = t;
    if (t > x->last)
        x->last = t;
}

void rp_rank_construct(rp_state *s, const ot_tr_location *loc, uint64_t t, int begins)
{
    if (!s->r->rank_count || loc->rank >= s->r->rank_count)
        return;
    ot_rp_rank *x = &s->r->ranks[loc->rank];
    if (begins && x->threads_inside++ == 0)
        x->inside_since = t;
    else if (!begins && x->threads_inside && --x->threads_inside == 0)
        x->inside_ns += t - x->inside_since;
}

void rp_ranks_wrap_up(rp_state *s)
{
    ot_report *r = s->r;
    for (size_t i = 0; i < r->rank_count; i++) {
        ot_rp_rank *x = &r->ranks[i];
        x->host_ns = x->first <= x->last ? x->last - x->first : 0;
    }
    for (size_t i = 0; r->rank_count && i < r->device_count; i++) {
        const ot_rp_device *d = &r->devices[i];
        if (d->rank >= r->rank_count)
            continue;
        ot_rp_rank *x = &r->ranks[d->rank];
        x->devices++;
        x->kernels += d->kernels;
        x->kernel_ns += d->kernel_ns;
        for (int k = 0; k < 2; k++) {
            x->transfers[k] += d->transfers[k];
            x->bytes[k] += d->bytes[k];
            x->transfer_ns[k] += d->transfer_ns[k];
        }
    }
}

/* max / mean over the ranks that are not missing; the rank with the maximum. */
static double imbalance_of(const ot_report *r, uint64_t (*value)(const ot_rp_rank *), uint32_t *at)
{
    uint64_t max = 0, sum = 0, n = 0;
    *at = 0;
    for (size_t i = 0; i < r->rank_count; i++) {
        if (r->ranks[i].state == OT_RP_RANK_MISSING)
            continue;
        uint64_t v = value(&r->ranks[i]);
        sum += v;
        n++;
        if (v > max) {
            max = v;
            *at = r->ranks[i].rank;
        }
    }
    return sum ? (double)max * (double)n / (double)sum : 0.0;
}

static uint64_t offload_of(const ot_rp_rank *x) { return x->inside_ns; }
static uint64_t transfer_of(const ot_rp_rank *x) { return x->transfer_ns[0] + x->transfer_ns[1]; }

ot_rp_imbalance ot_report_imbalance(const ot_report *r)
{
    ot_rp_imbalance m;
    m.offload = imbalance_of(r, offload_of, &m.offload_rank);
    m.transfer = imbalance_of(r, transfer_of, &m.transfer_rank);
    return m;
}

/* A device's name in one of two forms: \p alone for a one-process archive
 * (or a device of no rank), \p ranked with the rank and its device number. */
static const char *device_text(const ot_report *r, int device, const char *alone, const char *ranked, char *buf,
                               size_t size)
{
    if (!r->rank_count || device < 0 || r->device_stride <= 0)
        snprintf(buf, size, alone, device);
    else
        snprintf(buf, size, ranked, device / r->device_stride, device % r->device_stride);
    return buf;
}

const char *ot_report_device_label(const ot_report *r, int device, char *buf, size_t size)
{
    return device_text(r, device, "%d", "rank %d device %d", buf, size);
}

const char *ot_report_device_name(const ot_report *r, int device, char *buf, size_t size)
{
    return device_text(r, device, "device %d", "rank %d device %d", buf, size);
}

const char *ot_report_device_short(const ot_report *r, int device, char *buf, size_t size)
{
    return device_text(r, device, "%d", "%d:%d", buf, size);
}

int ot_report_device_short_width(const ot_report *r) { return r->rank_count ? 6 : 3; }

void ot_report_device_json(const ot_report *r, int device, FILE *to)
{
    if (!r->rank_count || device < 0 || r->device_stride <= 0)
        fprintf(to, "\"device\": %d, ", device);
    else
        fprintf(to, "\"rank\": %d, \"device\": %d, ", device / r->device_stride, device % r->device_stride);
}

void ot_report_print_ranks_text(const ot_report *r, FILE *to)
{
    if (!r->rank_count)
        return;
    char host[32], inside[32], kt[32], b0[32], b1[32], xt[32];
    fprintf(to, "\nRanks (host: first to last event of its threads; offload: inside constructs; kernels and "
            "transfers\nof its devices)\n  %4s %-8s %9s %9s %7s %9s %7s %9s %7s %9s %9s\n", "rank", "state", "host",
            "offload", "kernels", "kern time", "h->d", "bytes", "d->h", "bytes", "xfer time");
    for (size_t i = 0; i < r->rank_count; i++) {
        const ot_rp_rank *x = &r->ranks[i];
        fprintf(to, "  %4u %-8s %9s %9s %7llu %9s %7llu %9s %7llu %9s %9s\n", x->rank, state_names[x->state],
                ot_report_time(x->host_ns, host, sizeof host), ot_report_time(x->inside_ns, inside, sizeof inside),
                (unsigned long long)x->kernels, ot_report_time(x->kernel_ns, kt, sizeof kt),
                (unsigned long long)x->transfers[OT_RP_H2D], ot_report_bytes(x->bytes[OT_RP_H2D], b0, sizeof b0),
                (unsigned long long)x->transfers[OT_RP_D2H], ot_report_bytes(x->bytes[OT_RP_D2H], b1, sizeof b1),
                ot_report_time(x->transfer_ns[0] + x->transfer_ns[1], xt, sizeof xt));
    }
    ot_rp_imbalance m = ot_report_imbalance(r);
    fprintf(to, "  imbalance (max/mean over ranks with a part): offload %.2f (rank %u), transfers %.2f (rank %u)\n",
            m.offload, m.offload_rank, m.transfer, m.transfer_rank);
    ot_report_print_mpi_messages_text(r, to);
    for (size_t i = 0; i < r->rank_count; i++)
        if (r->ranks[i].state != OT_RP_RANK_COMPLETE)
            fprintf(to, "  rank %u %s%s%s\n", r->ranks[i].rank, state_names[r->ranks[i].state],
                    r->ranks[i].reason[0] ? ": " : "", r->ranks[i].reason);
}

static void json_transfers(FILE *to, const char *name, uint64_t count, uint64_t bytes, uint64_t ns, const char *sep)
{
    fprintf(to, "\"%s\": {\"count\": %llu, \"bytes\": %llu, \"time_ns\": %llu, \"gbps\": %.3f}%s", name,
            (unsigned long long)count, (unsigned long long)bytes, (unsigned long long)ns, ot_report_gbps(bytes, ns),
            sep);
}

void ot_report_print_ranks_json(const ot_report *r, FILE *to)
{
    if (!r->rank_count)
        return;
    fputs("  \"ranks\": [", to);
    for (size_t i = 0; i < r->rank_count; i++) {
        const ot_rp_rank *x = &r->ranks[i];
        fprintf(to, "%s\n    {\"rank\": %u, \"state\": \"%s\", \"reason\": ", i ? "," : "", x->rank,
                state_names[x->state]);
        ot_report_json_string(to, x->reason);
        fprintf(to, ", \"host_time_ns\": %llu, \"inside_constructs_ns\": %llu, \"devices\": %llu, \"kernels\": %llu, "
                "\"kernel_time_ns\": %llu, ", (unsigned long long)x->host_ns, (unsigned long long)x->inside_ns,
                (unsigned long long)x->devices, (unsigned long long)x->kernels, (unsigned long long)x->kernel_ns);
        json_transfers(to, "host_to_device", x->transfers[OT_RP_H2D], x->bytes[OT_RP_H2D], x->transfer_ns[OT_RP_H2D],
                       ", ");
        json_transfers(to, "device_to_host", x->transfers[OT_RP_D2H], x->bytes[OT_RP_D2H], x->transfer_ns[OT_RP_D2H],
                       r->mpi ? "" : "}");
        if (r->mpi)
            fprintf(to, ", \"mpi_ns\": %llu}", (unsigned long long)ot_report_mpi_rank_ns(r, x->rank));
    }
    ot_rp_imbalance m = ot_report_imbalance(r);
    fprintf(to, "\n  ],\n  \"rank_imbalance\": {\"offload\": %.3f, \"offload_rank\": %u, \"transfer\": %.3f, "
            "\"transfer_rank\": %u},\n", m.offload, m.offload_rank, m.transfer, m.transfer_rank);
}

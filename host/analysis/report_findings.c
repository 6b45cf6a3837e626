/**
 * \file report_findings.c
 * \brief Turns the evidence gathered per site into findings, each with its
 *        source line and what is at stake. The rules and thresholds, and why
 *        they are what they are, are in docs/report.md ("Findings").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_mpi.h"
#include "report_mpi_waits.h"
#include "report_ranks.h"

/* Thresholds (docs/report.md, "Findings"). */
#define TRIP_MIN 2                  /* round trips of one site before it is a pattern */
#define TINY_MIN_BATCHABLE 16       /* tiny transfers that batching would remove */
#define TINY_MIN_SHARE 0.10         /* of the site's host time at stake */
#define SHORT_MIN_LAUNCHES 10       /* kernels of one site before "short" is a pattern */
#define IDLE_MIN_SHARE 0.50         /* of the host's time in the site */
#define IDLE_MIN_NS 1000000ull      /* 1 ms */
#define IDLE_MIN_INSTANCES 3        /* a one-off (the final free) is not a pattern */
/* host OpenMP (issue 13) */
#define IMBALANCE_MIN_RATIO 1.6     /* busiest thread over the mean: over 3/8 of the team's loop time lost */
#define IMBALANCE_MIN_NS 1000000ull /* 1 ms beyond the mean, over all instances */
#define BARRIER_MIN_SHARE 0.40      /* of the team's thread time spent waiting (one of 2 threads working: 0.5) */
#define BARRIER_MIN_NS 1000000ull   /* 1 ms of waiting over all threads */
#define SERIAL_MIN_GAPS 3           /* gaps between the same two targets before it is a pattern */
#define SERIAL_MIN_NS 1000000ull    /* 1 ms of device idle time */
#define SERIAL_MIN_SHARE 0.50       /* of the gap: the device idle, and the host serial or waiting */
#define FINE_TASK_MAX_NS 1000ull    /* mean run time per task: about 3x the runtime's own cost per task */
#define FINE_TASK_COST_NS 300ull    /* the runtime's cost per task, create + run (docs/performance.md) */
#define FINE_TASK_MIN 100           /* tasks of one site before it is a pattern */
#define FINE_TASK_GOAL_NS 10000ull  /* the run time per task a coarser cutoff should reach */
#define LOCK_MIN_SHARE 0.50         /* of wait + hold: the threads wait more than they hold */
#define LOCK_MIN_NS 1000000ull      /* 1 ms of waiting over all threads */
#define LOCK_MIN_ACQUISITIONS 10    /* a handful of acquisitions is not a pattern */
/* variables (issue 15) */
#define IMPLICIT_MIN_TRANSFERS 10   /* implicit copies of one variable before it is a pattern (5 kernels, tofrom) */
#define IMPLICIT_SCALAR_BYTES 16    /* up to this, one transfer is a scalar (or a pair): firstprivate fits */
/* MPI (issue 16) */
#define MPI_WAIT_MIN_NS 10000ull    /* 10 us of one kind of waiting over all ranks: a wait is time really lost, not a guess */
#define MPI_IDLE_MIN_SHARE 0.50     /* of the worst rank's waiting, its devices idle */

typedef struct finding_list {
    ot_rp_finding *items;
    size_t count, cap;
} finding_list;

static ot_rp_finding *add(finding_list *l, ot_rp_finding_kind kind, int32_t site, int device)
{
    if (l->count == l->cap) {
        size_t n = l->cap ? l->cap * 2 : 8;
        ot_rp_finding *p = realloc(l->items, n * sizeof *p);
        if (!p)
            return NULL;
        l->items = p;
        l->cap = n;
    }
    ot_rp_finding *f = &l->items[l->count++];
    *f = (ot_rp_finding){.kind = kind, .site = site, .other_site = -1, .omp_site = -1, .rank = -1, .device = device};
    return f;
}

static const char *device_text(const ot_report *r, int device, char *buf, size_t size)
{
    if (device >= 0)
        ot_report_device_name(r, device, buf, size);
    else
        snprintf(buf, size, "%s", device == -2 ? "its devices" : "the device");
    return buf;
}

static uint64_t rest_ns(const ot_rp_site *s)
{
    uint64_t used = s->kernel_ns + s->transfer_ns[0] + s->transfer_ns[1];
    return s->host_ns > used ? s->host_ns - used : 0;
}

/* 1. The same range sent to the device again while it had not come back. */
static int repeated_upload(finding_list *l, const ot_report *r, int32_t i)
{
    const ot_rp_site *s = &r->sites[i];
    const ot_rp_evidence *e = &s->ev;
    if (!e->repeat_runs)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_REPEATED_UPLOAD, i, e->repeat_device);
    if (!f)
        return -ENOMEM;
    char dev[32], b[32], t[32], rb[32], what[400];
    f->variables = e->repeat_named;
    f->count = e->repeat_copies;
    f->bytes_at_stake = e->repeat_bytes;
    f->ns_at_stake = e->repeat_ns;
    device_text(r, f->device, dev, sizeof dev);
    snprintf(f->message, sizeof f->message,
             "%s sends %s to %s that is already there: the same %s in %llu consecutive regions%s; "
             "%llu copies (%s, %s) repeat what the device holds. If the host did not change it in between, "
             "keep it on the device with `target data` or `target enter data` around the loop "
             "(`target update to` where the host did change it).",
             s->site, ot_report_named_text(r, &f->variables, "data", what, sizeof what), dev,
             ot_report_bytes(e->repeat_range_bytes, rb, sizeof rb),
             (unsigned long long)e->repeat_longest, e->repeat_runs > 1 ? " (longest run)" : "",
             (unsigned long long)e->repeat_copies, ot_report_bytes(e->repeat_bytes, b, sizeof b),
             ot_report_time(e->repeat_ns, t, sizeof t));
    return 0;
}

/* 2. Copied back, then sent again: avoidable if the host did not change it. */
static int round_trip(finding_list *l, const ot_report *r, int32_t i)
{
    const ot_rp_site *s = &r->sites[i];
    const ot_rp_evidence *e = &s->ev;
    if (e->trip_count < TRIP_MIN)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_ROUND_TRIP, i, s->device);
    if (!f)
        return -ENOMEM;
    f->other_site = e->trip_partners == 1 ? e->trip_partner : -1;
    f->count = e->trip_count;
    f->bytes_at_stake = e->trip_bytes;
    f->ns_at_stake = e->trip_ns;
    char dev[32], b[32], t[32], g[32], partner[96], what[400];
    f->variables = e->trip_named;
    if (f->other_site == i)
        snprintf(partner, sizeof partner, "its next instance");
    else if (f->other_site >= 0)
        snprintf(partner, sizeof partner, "%s", r->sites[f->other_site].site);
    else
        snprintf(partner, sizeof partner, "later constructs");
    snprintf(f->message, sizeof f->message,
             "%s copies %s back to the host that %s sends to %s again: %llu round trips (%s both ways, %s; "
             "%s between copy back and copy in, on average). offtrace cannot see host accesses: "
             "if the host did not change the data in between, both copies are avoidable; keep it on the "
             "device with `target data`, and `target update from` only what the host reads.",
             s->site, ot_report_named_text(r, &f->variables, "data", what, sizeof what), partner,
             device_text(r, f->device, dev, sizeof dev), (unsigned long long)e->trip_count,
             ot_report_bytes(e->trip_bytes, b, sizeof b), ot_report_time(e->trip_ns, t, sizeof t),
             ot_report_time(e->trip_gap_ns / e->trip_count, g, sizeof g));
    return 0;
}

/* 3. Many tiny transfers in a row that one transfer could carry. */
static int tiny_transfers(finding_list *l, const ot_report *r, int32_t i)
{
    const ot_rp_site *s = &r->sites[i];
    const ot_rp_evidence *e = &s->ev;
    if (e->tiny_batchable < TINY_MIN_BATCHABLE || (double)e->tiny_stake_ns < TINY_MIN_SHARE * (double)s->host_ns)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_TINY_TRANSFERS, i, s->device);
    if (!f)
        return -ENOMEM;
    f->count = e->tiny_batchable;
    f->bytes_at_stake = e->tiny_bytes;
    f->ns_at_stake = e->tiny_stake_ns;
    char b[32], t[32], what[400], of[420];
    f->variables = e->tiny_named;
    if (f->variables.row[0])
        snprintf(of, sizeof of, " of %s", ot_report_named_text(r, &f->variables, "", what, sizeof what));
    else
        of[0] = '\0';
    snprintf(f->message, sizeof f->message,
             "%s makes %llu transfers%s smaller than %u B (%s in all); %llu of them follow one like it with "
             "nothing in between and could travel with it: %s at stake (%.0f%% of the time in %s). Batch them: "
             "one contiguous array, one map clause or one `target update` for the whole set.",
             s->site, (unsigned long long)e->tiny, of, OT_RP_TINY_BYTES, ot_report_bytes(e->tiny_bytes, b, sizeof b),
             (unsigned long long)e->tiny_batchable, ot_report_time(e->tiny_stake_ns, t, sizeof t),
             s->host_ns ? 100.0 * (double)e->tiny_stake_ns / (double)s->host_ns : 0.0, s->site);
    return 0;
}

/* 4. Kernels that take less time than what launching them costs. */
static int short_kernels(finding_list *l, const ot_report *r, int32_t i, int *fired)
{
    const ot_rp_site *s = &r->sites[i];
    uint64_t rest = rest_ns(s);
    *fired = 0;
    if (s->kind != OT_RP_TARGET || s->kernels < SHORT_MIN_LAUNCHES || s->kernel_ns / s->kernels >= rest / s->count)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_SHORT_KERNELS, i, s->device);
    if (!f)
        return -ENOMEM;
    *fired = 1;
    f->count = s->kernels;
    f->ns_at_stake = rest;
    char k[32], o[32], t[32];
    snprintf(f->message, sizeof f->message,
             "%s launches %llu kernels of %s on average, each with %s of launch and runtime overhead around it "
             "(%s in all, %.0f%% of the time in %s). Give each kernel more work: fuse neighbouring kernels, or "
             "move the loop that launches them into one target region.",
             s->site, (unsigned long long)s->kernels, ot_report_time(s->kernel_ns / s->kernels, k, sizeof k),
             ot_report_time(rest / s->count, o, sizeof o), ot_report_time(rest, t, sizeof t),
             s->host_ns ? 100.0 * (double)rest / (double)s->host_ns : 0.0, s->site);
    return 0;
}

/* 5. The host waits in a construct while its device does nothing. */
static int device_idle(finding_list *l, const ot_report *r, int32_t i, int short_fired)
{
    const ot_rp_site *s = &r->sites[i];
    uint64_t idle = s->host_ns > s->busy_ns ? s->host_ns - s->busy_ns : 0;
    if (s->kind == OT_RP_OUTSIDE || s->count < IDLE_MIN_INSTANCES || idle <= IDLE_MIN_NS ||
        (double)idle <= IDLE_MIN_SHARE * (double)s->host_ns)
        return 0;
    int allocation = 2 * s->alloc_ns >= idle;
    if (short_fired && !allocation) /* finding 4 already says why */
        return 0;
    ot_rp_finding *f = add(l, OT_RP_DEVICE_IDLE, i, s->device);
    if (!f)
        return -ENOMEM;
    f->count = s->count;
    f->ns_at_stake = idle;
    char dev[32], h[32], t[32], a[32], why[256];
    if (allocation)
        snprintf(why, sizeof why, "%s of it allocating and freeing device memory (%llu allocations and "
                 "frees): allocate once before the loop (`target enter data map(alloc: ...)`) and reuse",
                 ot_report_time(s->alloc_ns, a, sizeof a), (unsigned long long)s->allocs);
    else
        snprintf(why, sizeof why, "runtime overhead: use fewer, larger constructs, or `nowait` so that the "
                 "host works meanwhile");
    snprintf(f->message, sizeof f->message,
             "the host waited %s in %s (%llu instances) while %s ran no kernel and no transfer for %.0f%% of it "
             "(%s); %s.",
             ot_report_time(s->host_ns, h, sizeof h), s->site, (unsigned long long)s->count,
             device_text(r, f->device, dev, sizeof dev), 100.0 * (double)idle / (double)s->host_ns,
             ot_report_time(idle, t, sizeof t), why);
    return 0;
}

/* ---- host OpenMP (issue 13) ---- */

static const char *range_text(const ot_rp_range *g, char *buf, size_t size)
{
    if (g->count == 1)
        snprintf(buf, size, "iteration %llu", (unsigned long long)g->first);
    else
        snprintf(buf, size, "iterations %llu-%llu", (unsigned long long)g->first,
                 (unsigned long long)(g->first + g->count - 1));
    return buf;
}

/* 6. The threads of a loop are busy for very different times. */
static int loop_imbalance(finding_list *l, const ot_report *r, int32_t i)
{
    const ot_rp_omp_site *x = &r->omp_sites[i];
    double ratio = ot_report_loop_imbalance(x);
    uint64_t stake = x->busy_max_ns > x->busy_mean_ns ? x->busy_max_ns - x->busy_mean_ns : 0;
    if (x->kind != OT_RP_OMP_LOOP || x->threads < 2 || ratio < IMBALANCE_MIN_RATIO || stake < IMBALANCE_MIN_NS)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_LOOP_IMBALANCE, -1, -1);
    if (!f)
        return -ENOMEM;
    f->omp_site = i;
    f->count = x->instances;
    f->ns_at_stake = stake;
    char mx[32], mn[32], slow[256] = "", rg[64], per[32], avg[32];
    if (x->slow_count) {
        const ot_rp_range *g = &x->slow[0];
        uint64_t all_ns = 0, all_it = 0;
        for (int b = 0; b < OT_RP_LOOP_BINS; b++)
            all_ns += x->bin_ns[b], all_it += x->bin_iterations[b];
        snprintf(slow, sizeof slow, "; the slowest range is %s (%llu of %llu), %s per iteration against %s on "
                 "average",
                 range_text(g, rg, sizeof rg), (unsigned long long)g->count, (unsigned long long)x->bin_trip,
                 ot_report_time(g->ns / g->executed, per, sizeof per),
                 ot_report_time(all_it ? all_ns / all_it : 0, avg, sizeof avg));
    }
    snprintf(f->message, sizeof f->message,
             "the loop at %s (%s%sschedule, %llu instances, %u threads) keeps its threads unequally busy: the "
             "busiest thread works %.1fx the mean (%s against %s over all instances)%s. Give the slow iterations "
             "to more threads: a dynamic or guided schedule with small chunks, the costly iterations first, or "
             "split their work.",
             x->site, x->schedule, x->schedule[0] ? " " : "", (unsigned long long)x->instances, x->threads, ratio,
             ot_report_time(x->busy_max_ns, mx, sizeof mx), ot_report_time(x->busy_mean_ns, mn, sizeof mn), slow);
    return 0;
}

/* The sync site of parallel site \p p where its threads waited longest, -1. */
static int32_t main_barrier(const ot_report *r, int32_t p)
{
    int32_t best = -1;
    for (size_t i = 0; i < r->omp_site_count; i++)
        if (r->omp_sites[i].kind == OT_RP_OMP_SYNC && r->omp_sites[i].parallel_site == p &&
            (best < 0 || r->omp_sites[i].wait_ns > r->omp_sites[best].wait_ns))
            best = (int32_t)i;
    return best;
}

/* Whether a loop has the barrier's line: the barrier is that loop's own implicit one. */
static int loop_at(const ot_report *r, uint32_t line, const char *file)
{
    for (size_t i = 0; i < r->omp_site_count; i++)
        if (r->omp_sites[i].kind == OT_RP_OMP_LOOP && r->omp_sites[i].line == line &&
            !strcmp(r->omp_sites[i].file, file))
            return 1;
    return 0;
}

/* Whether a host OpenMP site is the runtime's own code, not the program's:
 * libomp's hidden helper team (started by the first `target nowait`, its
 * threads idle in their barrier between target tasks) has its parallel
 * region there. A user's region the runtime reports with a return address
 * inside itself (a nested parallel at -O1) would have no line to name
 * either: the tables show both, findings neither. */
static int in_openmp_runtime(const ot_rp_omp_site *x)
{
    static const char *const runtimes[] = {"libomp.so", "libiomp5.so", "libgomp.so"};
    if (x->line)
        return 0;
    for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++)
        if (!strncmp(x->site, runtimes[i], strlen(runtimes[i])))
            return 1;
    return 0;
}

/* 7. The threads of a parallel region mostly wait in its barriers. */
static int barrier_wait(finding_list *l, const ot_report *r, int32_t i)
{
    const ot_rp_omp_site *x = &r->omp_sites[i];
    if (x->kind != OT_RP_OMP_PARALLEL || x->threads < 2 || x->wait_ns < BARRIER_MIN_NS ||
        (double)x->wait_ns < BARRIER_MIN_SHARE * (double)x->thread_ns)
        return 0;
    int32_t b = main_barrier(r, i);
    if (b >= 0 && r->omp_sites[b].line && loop_at(r, r->omp_sites[b].line, r->omp_sites[b].file))
        return 0; /* a loop's imbalance: finding 6 judges it, with the iteration ranges that say why */
    ot_rp_finding *f = add(l, OT_RP_BARRIER_WAIT, -1, -1);
    if (!f)
        return -ENOMEM;
    f->omp_site = i;
    f->count = x->instances;
    f->ns_at_stake = x->wait_ns;
    char w[32], tt[32], most[320] = "", bw[32];
    if (b >= 0)
        snprintf(most, sizeof most, "; most of it in %s (%s)", r->omp_sites[b].name,
                 ot_report_time(r->omp_sites[b].wait_ns, bw, sizeof bw));
    /* A task wait that dominates is not work done by too few threads: the
     * threads found no task ready to run there (too few tasks, or their
     * creation and scheduling costs more than the tasks themselves). */
    int in_task_wait = b >= 0 && (!strncmp(r->omp_sites[b].name, "taskwait", 8) ||
                                  !strncmp(r->omp_sites[b].name, "taskgroup", 9));
    const char *advice =
        in_task_wait ? "The waiting threads found no task ready to run there (the tasks they ran are not "
                       "counted): what they waited for ran elsewhere (a long task, a `target nowait` on the "
                       "runtime's helper threads) or was held back by dependences, or creating and scheduling the "
                       "tasks took longer than running them; start that work earlier, or give the waiting threads "
                       "other tasks, with more work per task."
                     : "The work before the barrier is done by fewer threads than wait for it: share it (a "
                       "worksharing loop, tasks), or let the others go on (`nowait`) where the barrier is not "
                       "needed.";
    snprintf(f->message, sizeof f->message,
             "the threads of the parallel region at %s (%llu instances, %u threads) spend %.0f%% of their time "
             "waiting in barriers: %s of %s%s. %s",
             x->site, (unsigned long long)x->instances, x->threads, 100.0 * (double)x->wait_ns / (double)x->thread_ns,
             ot_report_time(x->wait_ns, w, sizeof w), ot_report_time(x->thread_ns, tt, sizeof tt), most, advice);
    return 0;
}

/* 8. The device idles between two target regions while their host thread runs serially or waits. */
static int host_serial(finding_list *l, const ot_report *r, const ot_rp_gap *g)
{
    uint64_t host = g->serial_ns + g->wait_ns;
    /* Without host OpenMP in the archive (not recorded, or a program without any) a parallel host phase
     * cannot be told from a serial one, nor host work from the offload runtime's own time between targets. */
    if (!r->summary.host_openmp_regions || g->count < SERIAL_MIN_GAPS || g->idle_ns < SERIAL_MIN_NS ||
        (double)g->idle_ns < SERIAL_MIN_SHARE * (double)g->gap_ns ||
        (double)host < SERIAL_MIN_SHARE * (double)g->gap_ns)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_HOST_SERIAL, g->from_site, g->device);
    if (!f)
        return -ENOMEM;
    f->other_site = g->to_site;
    f->omp_site = g->wait_site;
    f->count = g->count;
    f->ns_at_stake = g->idle_ns < host ? g->idle_ns : host;
    char dev[32], idle[32], gap[32], ser[32], wt[32], what[400];
    int waits = g->wait_ns > g->serial_ns;
    if (waits && g->wait_site >= 0 && r->omp_sites[g->wait_site].kind == OT_RP_OMP_MUTEX)
        snprintf(what, sizeof what, "waited %s, most of it for %s: shorten what the lock's holders do under it, "
                 "or let the device work meanwhile (`target nowait` before taking the lock)",
                 ot_report_time(g->wait_ns, wt, sizeof wt), r->omp_sites[g->wait_site].name);
    else if (waits && g->wait_site >= 0)
        snprintf(what, sizeof what, "waited %s, most of it in %s: let the device work meanwhile (`target "
                 "nowait` before the barrier) or shorten the work the barrier waits for",
                 ot_report_time(g->wait_ns, wt, sizeof wt), r->omp_sites[g->wait_site].name);
    else
        snprintf(what, sizeof what, "ran serially, outside every parallel region, for %s%s: parallelise that "
                 "phase, or overlap it with the device (`target nowait` and `taskwait`, or move it into a target "
                 "region)",
                 ot_report_time(g->serial_ns, ser, sizeof ser), g->wait_ns ? " (and waited in barriers)" : "");
    snprintf(f->message, sizeof f->message,
             "between the target at %s and the next target at %s, %s sat idle %s of %s in %llu gaps while the host thread %s.",
             r->sites[g->from_site].site, r->sites[g->to_site].site, device_text(r, g->device, dev, sizeof dev),
             ot_report_time(g->idle_ns, idle, sizeof idle), ot_report_time(g->gap_ns, gap, sizeof gap),
             (unsigned long long)g->count, what);
    return 0;
}

/* 9. The tasks of a creation site run for less time than the runtime spends on each. */
static int fine_tasks(finding_list *l, const ot_report *r, int32_t i)
{
    const ot_rp_omp_site *x = &r->omp_sites[i];
    if (x->kind != OT_RP_OMP_TASK || x->instances < FINE_TASK_MIN || x->target == x->instances)
        return 0;
    uint64_t mean = x->run_ns / x->instances;
    if (mean >= FINE_TASK_MAX_NS)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_FINE_TASKS, -1, -1);
    if (!f)
        return -ENOMEM;
    f->omp_site = i;
    f->count = x->instances;
    f->ns_at_stake = x->instances * FINE_TASK_COST_NS;
    uint64_t factor = mean ? (FINE_TASK_GOAL_NS + mean - 1) / mean : FINE_TASK_GOAL_NS;
    char m[32], st[32], goal[32], dl[80] = "";
    if (x->started) {
        char d[32];
        snprintf(dl, sizeof dl, " Each waited %s from its creation to its start on average.",
                 ot_report_time(x->delay_ns / x->started, d, sizeof d));
    }
    snprintf(f->message, sizeof f->message,
             "the %llu tasks created at %s run %s each on average, within a few times the about %s the runtime "
             "spends creating and scheduling one (more when traced): a large share of their time is overhead.%s "
             "Make each task about "
             "%llux coarser (a recursion cutoff or taskloop grainsize %llux larger, or `if`/`final` below a size) "
             "so that it runs about %s.",
             (unsigned long long)x->instances, x->site, ot_report_time(mean, m, sizeof m),
             ot_report_time(FINE_TASK_COST_NS, st, sizeof st), dl, (unsigned long long)factor,
             (unsigned long long)factor, ot_report_time(FINE_TASK_GOAL_NS, goal, sizeof goal));
    return 0;
}

/* 10. The threads of a lock or critical site wait for it more than they hold it. */
static int lock_contention(finding_list *l, const ot_report *r, int32_t i)
{
    const ot_rp_omp_site *x = &r->omp_sites[i];
    if (x->kind != OT_RP_OMP_MUTEX || x->instances < LOCK_MIN_ACQUISITIONS || x->wait_ns < LOCK_MIN_NS ||
        (double)x->wait_ns <= LOCK_MIN_SHARE * (double)(x->wait_ns + x->hold_ns))
        return 0;
    ot_rp_finding *f = add(l, OT_RP_LOCK_CONTENTION, -1, -1);
    if (!f)
        return -ENOMEM;
    f->omp_site = i;
    f->count = x->instances;
    f->ns_at_stake = x->wait_ns;
    char w[32], h[32], mw[32], mh[32], most[64] = "";
    if (x->max_waiters > 1)
        snprintf(most, sizeof most, ", up to %u threads waiting at once", x->max_waiters);
    snprintf(f->message, sizeof f->message,
             "the threads wait for the %s at %s more than they hold it: %s waiting against %s held over %llu "
             "acquisitions (%.0f%% of their time there waiting; %s against %s per acquisition%s). Hold it for "
             "less (compute outside, update inside), split it (one lock per bin or per thread, combined at the "
             "end), or use a reduction or atomics instead.",
             x->mutex, x->site, ot_report_time(x->wait_ns, w, sizeof w), ot_report_time(x->hold_ns, h, sizeof h),
             (unsigned long long)x->instances, 100.0 * (double)x->wait_ns / (double)(x->wait_ns + x->hold_ns),
             ot_report_time(x->wait_ns / x->instances, mw, sizeof mw),
             ot_report_time(x->hold_ns / x->instances, mh, sizeof mh), most);
    return 0;
}

/* 11. A variable the program never named in a map clause, copied around many constructs (issue 15). */
static int implicit_maps(finding_list *l, const ot_report *r, size_t v)
{
    const ot_rp_variable *x = &r->variables[v];
    if (x->unknown || x->explicit_maps || x->implicit_transfers < IMPLICIT_MIN_TRANSFERS || !x->implicit_site)
        return 0;
    int32_t site = x->implicit_site - 1;
    ot_rp_finding *f = add(l, OT_RP_IMPLICIT_MAPS, site, r->sites[site].device);
    if (!f)
        return -ENOMEM;
    /* what one explicit map would keep: one copy in and, if it comes back, one copy out */
    uint64_t kept = (x->to_device ? 1 : 0) + (x->from_device ? 1 : 0);
    uint64_t avoidable = x->implicit_transfers > kept ? x->implicit_transfers - kept : 0;
    f->count = x->implicit_transfers;
    f->bytes_at_stake = x->implicit_transfers ? x->implicit_bytes / x->implicit_transfers * avoidable : 0;
    f->ns_at_stake = x->implicit_transfers ? x->implicit_ns / x->implicit_transfers * avoidable : 0;
    ot_report_named_add(&f->variables, (int32_t)v, x->largest_transfer);
    char b[32], t[32], one[32], fix[300];
    const char *name = x->name;
    if (x->largest_transfer <= IMPLICIT_SCALAR_BYTES)
        snprintf(fix, sizeof fix, "Pass it by value with `firstprivate(%.100s)` if the device only reads it, or "
                 "`map(to: %.100s)`", name, name);
    else if (x->from_device)
        snprintf(fix, sizeof fix, "Keep it on the device: `target data map(%s: %.100s)` around the loop (`map(to: "
                 "...)` if the kernels only read it), or `target enter data` once", x->to_device ? "tofrom" : "from",
                 name);
    else
        snprintf(fix, sizeof fix, "Map it once: `target data map(to: %.100s)` around the loop, or `target enter "
                 "data map(to: %.100s)`", name, name);
    snprintf(f->message, sizeof f->message,
             "%.120s is named in no map clause: it was mapped implicitly (tofrom for an array) by %llu copies "
             "(%llu to the device, %llu back; %s, %s), first at %s; the program never maps it explicitly. %s: "
             "%llu of the copies (%s) go.",
             name, (unsigned long long)x->implicit_transfers, (unsigned long long)x->to_device,
             (unsigned long long)x->from_device, ot_report_bytes(x->implicit_bytes, b, sizeof b),
             ot_report_time(x->implicit_ns, t, sizeof t), r->sites[site].site, fix, (unsigned long long)avoidable,
             ot_report_bytes(f->bytes_at_stake, one, sizeof one));
    return 0;
}

/* ---- MPI (issue 16): waiting, per kind over all ranks (docs/mpi.md, "Waiting in MPI") ---- */

/* The host time the shares are of: a job's ranks' host times together, one process's clock range. */
static uint64_t job_host_ns(const ot_report *r)
{
    if (!r->rank_count)
        return r->summary.duration_ns;
    uint64_t sum = 0;
    for (size_t i = 0; i < r->rank_count; i++)
        sum += r->ranks[i].host_ns;
    return sum;
}

static uint64_t rank_host_ns(const ot_report *r, uint32_t rank)
{
    return r->rank_count ? (rank < r->rank_count ? r->ranks[rank].host_ns : 0) : r->summary.duration_ns;
}

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The largest single wait of \p kind, or NULL. */
static const ot_rp_mpi_wait *largest_wait(const ot_report *r, ot_rp_wait_kind kind)
{
    size_t n;
    const ot_rp_mpi_wait *top = ot_report_mpi_waits(r, &n);
    for (size_t i = 0; i < n; i++)
        if (top[i].kind == kind)
            return &top[i];
    return NULL;
}

/* 12-14. Waiting of one kind: its total over all ranks, the rank that waited most. */
static int mpi_wait(finding_list *l, const ot_report *r, ot_rp_wait_kind kind)
{
    static const ot_rp_finding_kind finding_of[OT_RP_WAIT_KINDS] = {OT_RP_LATE_SENDER, OT_RP_LATE_RECEIVER,
                                                                     OT_RP_COLLECTIVE_WAIT};
    uint32_t ranks = ot_report_mpi_wait_ranks(r), worst = 0;
    uint64_t total = 0, count = 0, most = 0;
    for (uint32_t k = 0; k < ranks; k++) {
        uint64_t ns = ot_report_mpi_wait_ns(r, k, kind);
        total += ns;
        count += ot_report_mpi_wait_count(r, k, kind);
        if (ns > most) {
            most = ns;
            worst = k;
        }
    }
    if (total < MPI_WAIT_MIN_NS)
        return 0;
    ot_rp_finding *f = add(l, finding_of[kind], -1, -1);
    if (!f)
        return -ENOMEM;
    f->rank = (int32_t)worst;
    f->count = count;
    f->ns_at_stake = total;
    const ot_rp_mpi_wait *big = largest_wait(r, kind);
    char t[4][32], largest[200] = "";
    if (big)
        snprintf(largest, sizeof largest, "; the longest, %s in %s of rank %u, waited for %s%u",
                 ot_report_time(big->wait_ns, t[3], sizeof t[3]), big->call, big->rank,
                 kind == OT_RP_WAIT_COLLECTIVE ? "the last member, rank " : "rank ", big->partner);
    static const char *const what[OT_RP_WAIT_KINDS] = {
        "receives wait for sends that begin later (late sender): the call in which a message is received began "
        "before its send did",
        "blocking sends of 64 KiB or more wait for their receives to be posted (late receiver)",
        "the members of N-to-N collectives (barrier, allreduce, allgather, alltoall) come at different times: each "
        "waits for the last to come"};
    static const char *const advice[OT_RP_WAIT_KINDS] = {
        "The sending rank reaches its send late: give it less work before the send (balance the ranks), send "
        "earlier, or let the receiving rank work meanwhile (MPI_Irecv early, device work with `target nowait`, and "
        "MPI_Wait when the data is needed).",
        "Post the receive earlier (MPI_Irecv before the work that precedes MPI_Recv), or send with MPI_Isend and "
        "wait for it later.",
        "The ranks arrive unbalanced: even out the work before the collective, or overlap it with a non-blocking "
        "collective (MPI_Iallreduce) and device work."};
    snprintf(f->message, sizeof f->message,
             "%s: %s over %llu calls of all ranks (%.1f%% of the ranks' host time); rank %u waited most, %s "
             "(%.1f%% of its host time)%s. %s",
             what[kind], ot_report_time(total, t[0], sizeof t[0]), (unsigned long long)count,
             percent(total, job_host_ns(r)), worst, ot_report_time(most, t[1], sizeof t[1]),
             percent(most, rank_host_ns(r, worst)), largest, advice[kind]);
    return 0;
}

static uint64_t rank_devices(const ot_report *r, uint32_t rank)
{
    return r->rank_count ? (rank < r->rank_count ? r->ranks[rank].devices : 0) : r->summary.devices;
}

/* 15. A rank's devices run nothing while it waits in MPI: its device work could overlap the wait. */
static int mpi_devices_idle(finding_list *l, const ot_report *r)
{
    uint32_t ranks = ot_report_mpi_wait_ranks(r), worst = 0;
    uint64_t total = 0, most = 0, waiting = 0;
    for (uint32_t k = 0; k < ranks; k++) {
        if (!rank_devices(r, k))
            continue;
        uint64_t idle = ot_report_mpi_idle_ns(r, k);
        total += idle;
        waiting += ot_report_mpi_waiting_ns(r, k);
        if (idle > most) {
            most = idle;
            worst = k;
        }
    }
    uint64_t worst_waiting = ot_report_mpi_waiting_ns(r, worst);
    if (total < MPI_WAIT_MIN_NS || (double)most < MPI_IDLE_MIN_SHARE * (double)worst_waiting)
        return 0;
    ot_rp_finding *f = add(l, OT_RP_MPI_DEVICES_IDLE, -1, -1);
    if (!f)
        return -ENOMEM;
    f->rank = (int32_t)worst;
    f->count = rank_devices(r, worst);
    f->ns_at_stake = total;
    char t[4][32];
    snprintf(f->message, sizeof f->message,
             "rank %u waited %s in MPI for other ranks, and its devices (%llu) ran no kernel and no transfer for "
             "%s of it (%.0f%%; %.1f%% of its host time); over all ranks with devices %s of %s waiting (%.1f%% of "
             "the ranks' host time). Overlap the two: start the device work before the MPI call that waits "
             "(`target nowait`, or a non-blocking MPI call and its wait after the kernels), or give the waiting "
             "rank more of the device work.",
             worst, ot_report_time(worst_waiting, t[1], sizeof t[1]), (unsigned long long)f->count,
             ot_report_time(most, t[0], sizeof t[0]), percent(most, worst_waiting),
             percent(most, rank_host_ns(r, worst)), ot_report_time(total, t[2], sizeof t[2]),
             ot_report_time(waiting, t[3], sizeof t[3]), percent(total, job_host_ns(r)));
    return 0;
}

static int by_stake(const void *pa, const void *pb)
{
    const ot_rp_finding *a = pa, *b = pb;
    if (a->ns_at_stake != b->ns_at_stake)
        return a->ns_at_stake > b->ns_at_stake ? -1 : 1;
    if (a->bytes_at_stake != b->bytes_at_stake)
        return a->bytes_at_stake > b->bytes_at_stake ? -1 : 1;
    return (a->site > b->site) - (a->site < b->site);
}

int ot_report_find(ot_report *r)
{
    finding_list l = {0};
    int rc = 0;
    for (size_t i = 0; i < r->site_count && rc == 0; i++) {
        int32_t site = (int32_t)i;
        int fired = 0;
        rc = repeated_upload(&l, r, site);
        if (!rc)
            rc = round_trip(&l, r, site);
        if (!rc)
            rc = tiny_transfers(&l, r, site);
        if (!rc)
            rc = short_kernels(&l, r, site, &fired);
        if (!rc)
            rc = device_idle(&l, r, site, fired);
    }
    for (size_t i = 0; i < r->omp_site_count && rc == 0; i++)
        if (!in_openmp_runtime(&r->omp_sites[i]))
            rc = loop_imbalance(&l, r, (int32_t)i);
    for (size_t i = 0; i < r->omp_site_count && rc == 0; i++)
        if (!in_openmp_runtime(&r->omp_sites[i]))
            rc = barrier_wait(&l, r, (int32_t)i);
    for (size_t i = 0; i < r->gap_count && rc == 0; i++)
        rc = host_serial(&l, r, &r->gaps[i]);
    for (size_t i = 0; i < r->omp_site_count && rc == 0; i++)
        rc = fine_tasks(&l, r, (int32_t)i);
    for (size_t i = 0; i < r->omp_site_count && rc == 0; i++)
        rc = lock_contention(&l, r, (int32_t)i);
    for (size_t i = 0; i < r->variable_count && rc == 0; i++)
        rc = implicit_maps(&l, r, i);
    for (int k = 0; k < OT_RP_WAIT_KINDS && rc == 0; k++)
        rc = mpi_wait(&l, r, (ot_rp_wait_kind)k);
    if (rc == 0)
        rc = mpi_devices_idle(&l, r);
    if (rc) {
        free(l.items);
        return rc;
    }
    if (l.count)
        qsort(l.items, l.count, sizeof *l.items, by_stake);
    free(r->findings);
    r->findings = l.items;
    r->finding_count = l.count;
    return 0;
}

/**
 * \file rank_clock.c
 * \brief OFFTRACE_TEST_RANK_CLOCK (rank_clock.h): one rank's recorder clock
 *        skewed, for the tests of clock offsets between ranks (issue 16).
 */
#define _GNU_SOURCE
#include "rank_clock.h"

#include <stdio.h>
#include <stdlib.h>

#include "clock.h"


typedef struct rank_skew {
    int parsed, applies;
    int64_t offset_ns;
    double drift; /* per ns */
    uint64_t since_ns;
} rank_skew;

static rank_skew skew;

/* This process's rank as its launcher says (Open MPI, PMIx, MPICH's PMI,
 * Slurm), -1 when none does. */
static long launcher_rank(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        char *end;
        if (v && *v) {
            long rank = strtol(v, &end, 10);
            if (!*end && rank >= 0)
                return rank;
        }
    }
    return -1;
}

/* Parsed once, on the first clock reading (before the session's first
 * clock pair): a malformed value is ignored, as if unset. */
static const rank_skew *the_skew(uint64_t now_ns)
{
    if (__atomic_load_n(&skew.parsed, __ATOMIC_ACQUIRE))
        return &skew;
    rank_skew s = {.parsed = 1, .since_ns = now_ns};
    const char *v = getenv("OFFTRACE_TEST_RANK_CLOCK");
    long rank, ppm;
    long long offset;
    int used = 0;
    if (v && sscanf(v, "%ld:%lld:%ld%n", &rank, &offset, &ppm, &used) == 3 && !v[used] && rank >= 0 &&
        rank == launcher_rank()) {
        s.applies = 1;
        s.offset_ns = offset;
        s.drift = (double)ppm * 1e-6;
    }
    /* Two first readings at once agree but for since_ns: the first stored wins. */
    int expected = 0;
    if (__atomic_compare_exchange_n(&skew.applies, &expected, s.applies, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        skew.offset_ns = s.offset_ns;
        skew.drift = s.drift;
        skew.since_ns = s.since_ns;
    }
    __atomic_store_n(&skew.parsed, 1, __ATOMIC_RELEASE);
    return &skew;
}

uint64_t ot_rank_clock(uint64_t monotonic_ns)
{
    const rank_skew *s = the_skew(monotonic_ns);
    if (!s->applies)
        return monotonic_ns;
    double since = monotonic_ns > s->since_ns ? (double)(monotonic_ns - s->since_ns) : 0.0;
    return (uint64_t)((int64_t)monotonic_ns + s->offset_ns + (int64_t)(since * s->drift));
}

int ot_rank_clock_skewed(void) { return the_skew(ot_clock_monotonic_ns())->applies; }

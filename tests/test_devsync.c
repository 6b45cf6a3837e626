/* Device time -> host time for one device, from (host, device) clock pairs
 * taken at every target begin and end, arriving from several threads. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>

#include "devsync.h"

/* Deterministic PRNG (splitmix64): the same run every time. */
static uint64_t rng_state;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t rng_between(uint64_t lo, uint64_t hi)
{
    return lo + rng() % (hi - lo + 1);
}

/* Uniform in [-j, j]. */
static int64_t rng_jitter(uint64_t j)
{
    return j ? (int64_t)(rng() % (2 * j + 1)) - (int64_t)j : 0;
}

/* The device clock: host + offset + host * drift_ppm / 1e6 (rounded) + jitter. */
static uint64_t device_of(uint64_t host, int64_t offset, int64_t drift_ppm, int64_t jitter)
{
    int64_t drift = (int64_t)host * drift_ppm;
    drift = drift >= 0 ? (drift + 500000) / 1000000 : -((-drift + 500000) / 1000000);
    return (uint64_t)((int64_t)host + offset + drift + jitter);
}

typedef struct { uint64_t host, device; } pair;
typedef struct { uint64_t begin, end; } region;

#define HOST_START 50000000000ull /* 50 s: CLOCK_MONOTONIC of a machine up for a while */
#define RUN_NS 10000000000ull     /* 10 s of host time */
#define EVENTS_PER_REGION 4

static void check_synthetic_run(int64_t offset, int64_t drift_ppm, uint64_t jitter, uint64_t seed)
{
    rng_state = seed;

    /* Target regions every ~2 ms, lasting 20-500 us. */
    size_t nregions = 0, cap = RUN_NS / 1000000;
    region *regions = malloc(cap * sizeof *regions);
    cr_assert_not_null(regions);
    for (uint64_t t = HOST_START + rng_between(0, 1000000); t < HOST_START + RUN_NS && nregions < cap;
         t += rng_between(1800000, 2200000)) {
        regions[nregions].begin = t;
        regions[nregions].end = t + rng_between(20000, 500000);
        nregions++;
    }
    cr_assert_gt(nregions, 4000);

    /* A pair at begin and at end of each, added in shuffled order. */
    size_t npairs = 2 * nregions;
    pair *pairs = malloc(npairs * sizeof *pairs);
    cr_assert_not_null(pairs);
    for (size_t i = 0; i < nregions; i++) {
        uint64_t b = regions[i].begin, e = regions[i].end;
        pairs[2 * i] = (pair){b, device_of(b, offset, drift_ppm, rng_jitter(jitter))};
        pairs[2 * i + 1] = (pair){e, device_of(e, offset, drift_ppm, rng_jitter(jitter))};
    }
    for (size_t i = npairs - 1; i > 0; i--) {
        size_t k = (size_t)(rng() % (i + 1));
        pair tmp = pairs[i];
        pairs[i] = pairs[k];
        pairs[k] = tmp;
    }

    ot_devsync *s = ot_devsync_new();
    cr_assert_not_null(s);
    for (size_t i = 0; i < npairs; i++)
        cr_assert_eq(ot_devsync_add(s, pairs[i].host, pairs[i].device), 0);
    cr_assert_eq(ot_devsync_build(s), 0);
    /* Regions last at least 20 us, far more than twice the jitter: no pair is
     * out of order once sorted, so none is dropped. */
    cr_assert_eq(ot_devsync_points(s), npairs);

    /* Device events at random times inside each region, with their own jitter. */
    ot_timemap_hint hint = {0};
    const int64_t bound = (int64_t)(2 * jitter + 50);
    int64_t worst = 0;
    for (size_t i = 0; i < nregions; i++) {
        for (int k = 0; k < EVENTS_PER_REGION; k++) {
            uint64_t truth = rng_between(regions[i].begin, regions[i].end);
            uint64_t dev = device_of(truth, offset, drift_ppm, rng_jitter(jitter));
            int64_t err = (int64_t)(ot_devsync_to_host(s, dev) - truth);
            /* the device pass's way (one hint along a location's records): the same value */
            cr_assert_eq(ot_devsync_to_host_hinted(s, dev, &hint), ot_devsync_to_host(s, dev), "device %llu",
                         (unsigned long long)dev);
            if (llabs(err) > llabs(worst))
                worst = err;
            cr_assert(err >= -bound && err <= bound,
                      "offset %lld drift %lld ppm jitter %llu: event at host %llu (region %zu, %llu..%llu) "
                      "mapped %lld ns off (bound %lld)",
                      (long long)offset, (long long)drift_ppm, (unsigned long long)jitter,
                      (unsigned long long)truth, i, (unsigned long long)regions[i].begin,
                      (unsigned long long)regions[i].end, (long long)err, (long long)bound);
        }
    }
    cr_assert_lt(llabs(worst), 1000, "mapping error must stay well under 1 us");

    /* Increasing device times map to non-decreasing host times: across the
     * whole run in random steps, and one ns at a time around every sync pair
     * (where the map changes segment). */
    uint64_t first = device_of(regions[0].begin, offset, drift_ppm, 0) - 100000;
    uint64_t last = device_of(regions[nregions - 1].end, offset, drift_ppm, 0) + 100000;
    uint64_t prev = ot_devsync_to_host(s, first);
    for (uint64_t d = first + 1; d < last; d += rng_between(1, 20000)) {
        uint64_t h = ot_devsync_to_host(s, d);
        cr_assert_eq(ot_devsync_to_host_hinted(s, d, &hint), h, "device %llu", (unsigned long long)d);
        cr_assert_geq(h, prev, "device %llu maps to %llu, before %llu", (unsigned long long)d,
                      (unsigned long long)h, (unsigned long long)prev);
        prev = h;
    }
    for (size_t i = 0; i < npairs; i++) {
        uint64_t d0 = pairs[i].device - 3;
        prev = ot_devsync_to_host(s, d0);
        for (uint64_t d = d0 + 1; d <= pairs[i].device + 3; d++) {
            uint64_t h = ot_devsync_to_host(s, d);
            cr_assert_eq(ot_devsync_to_host_hinted(s, d, &hint), h, "device %llu (near a pair)", (unsigned long long)d);
            cr_assert_geq(h, prev, "device %llu maps to %llu, before %llu (near a pair)",
                          (unsigned long long)d, (unsigned long long)h, (unsigned long long)prev);
            prev = h;
        }
    }

    ot_devsync_free(s);
    free(pairs);
    free(regions);
}

Test(devsync, ahead_and_fast_exact_reads)
{
    check_synthetic_run(5000000000ll, 200, 0, 1);
}

Test(devsync, ahead_and_slow_exact_reads)
{
    check_synthetic_run(5000000000ll, -200, 0, 2);
}

Test(devsync, behind_and_fast_exact_reads)
{
    check_synthetic_run(-3000000000ll, 200, 0, 3);
}

Test(devsync, behind_and_slow_exact_reads)
{
    check_synthetic_run(-3000000000ll, -200, 0, 4);
}

Test(devsync, ahead_and_fast_jittery_reads)
{
    check_synthetic_run(5000000000ll, 200, 200, 5);
}

Test(devsync, ahead_and_slow_jittery_reads)
{
    check_synthetic_run(5000000000ll, -200, 200, 6);
}

Test(devsync, behind_and_fast_jittery_reads)
{
    check_synthetic_run(-3000000000ll, 200, 200, 7);
}

Test(devsync, behind_and_slow_jittery_reads)
{
    check_synthetic_run(-3000000000ll, -200, 200, 8);
}

Test(devsync, one_pair_is_an_offset_with_rate_one)
{
    ot_devsync *s = ot_devsync_new();
    cr_assert_eq(ot_devsync_add(s, 70000000000ull, 75000000000ull), 0);
    cr_assert_eq(ot_devsync_build(s), 0);
    cr_assert_eq(ot_devsync_points(s), 1);
    cr_assert_eq(ot_devsync_to_host(s, 75000000000ull), 70000000000ull);
    cr_assert_eq(ot_devsync_to_host(s, 75000001234ull), 70000001234ull);
    cr_assert_eq(ot_devsync_to_host(s, 74999998766ull), 69999998766ull);
    cr_assert_eq(ot_devsync_to_host(s, 76000000000ull), 71000000000ull);
    ot_timemap_hint hint = {0};
    cr_assert_eq(ot_devsync_to_host_hinted(s, 75000001234ull, &hint), 70000001234ull);
    cr_assert_eq(ot_devsync_to_host_hinted(s, 74999998766ull, &hint), 69999998766ull);
    ot_devsync_free(s);
}

Test(devsync, no_pair_is_no_data_and_identity)
{
    ot_devsync *s = ot_devsync_new();
    cr_assert_eq(ot_devsync_to_host(s, 123456789), 123456789, "identity before build");
    cr_assert_eq(ot_devsync_build(s), -ENODATA);
    cr_assert_eq(ot_devsync_points(s), 0);
    cr_assert_eq(ot_devsync_to_host(s, 0), 0);
    cr_assert_eq(ot_devsync_to_host(s, 987654321012ull), 987654321012ull);
    ot_timemap_hint hint = {0};
    cr_assert_eq(ot_devsync_to_host_hinted(s, 987654321012ull, &hint), 987654321012ull);
    ot_devsync_free(s);
    ot_devsync_free(NULL);
}

Test(devsync, pairs_whose_device_time_goes_back_are_dropped)
{
    ot_devsync *s = ot_devsync_new();
    /* Added out of order; by host time the device reads 1000, 900 (back),
     * 1000 (not forward), 1200, 1150 (back), 1400. */
    cr_assert_eq(ot_devsync_add(s, 400, 1200), 0);
    cr_assert_eq(ot_devsync_add(s, 100, 1000), 0);
    cr_assert_eq(ot_devsync_add(s, 600, 1400), 0);
    cr_assert_eq(ot_devsync_add(s, 200, 900), 0);
    cr_assert_eq(ot_devsync_add(s, 500, 1150), 0);
    cr_assert_eq(ot_devsync_add(s, 300, 1000), 0);
    cr_assert_eq(ot_devsync_build(s), 0);
    cr_assert_eq(ot_devsync_points(s), 3, "kept (100,1000) (400,1200) (600,1400)");
    cr_assert_eq(ot_devsync_to_host(s, 1000), 100);
    cr_assert_eq(ot_devsync_to_host(s, 1100), 250);
    cr_assert_eq(ot_devsync_to_host(s, 1200), 400);
    cr_assert_eq(ot_devsync_to_host(s, 1300), 500);
    cr_assert_eq(ot_devsync_to_host(s, 1400), 600);
    uint64_t prev = 0;
    for (uint64_t d = 800; d < 1600; d++) {
        uint64_t h = ot_devsync_to_host(s, d);
        cr_assert_geq(h, prev, "device %llu", (unsigned long long)d);
        prev = h;
    }
    ot_devsync_free(s);
}

/* A long run: pairs every 0.5 ms for 10 minutes, two host threads' worth
 * arriving one after the other. The map keeps a bounded number of them and
 * still maps within the pairs' own error. */
Test(devsync, a_long_run_keeps_a_bounded_number_of_pairs)
{
    enum { PAIRS = 1200000 };
    const int64_t offset = 123456789, drift_ppm = -80;
    const uint64_t jitter = 150, step = 500000;
    rng_state = 42;
    ot_devsync *s = ot_devsync_new();
    cr_assert_not_null(s);
    for (int thread = 0; thread < 2; thread++)
        for (uint64_t i = thread; i < PAIRS; i += 2) {
            uint64_t host = HOST_START + i * step;
            cr_assert_eq(ot_devsync_add(s, host, device_of(host, offset, drift_ppm, rng_jitter(jitter))), 0);
        }
    cr_assert_eq(ot_devsync_build(s), 0);
    cr_assert_leq(ot_devsync_points(s), OT_DEVSYNC_MAX_PAIRS);
    cr_assert_geq(ot_devsync_points(s), OT_DEVSYNC_MAX_PAIRS / 4, "thinned more than needed: %zu pairs",
                  ot_devsync_points(s));
    for (int k = 0; k < 20000; k++) {
        uint64_t host = HOST_START + rng_between(0, (PAIRS - 1) * step);
        uint64_t got = ot_devsync_to_host(s, device_of(host, offset, drift_ppm, 0));
        int64_t error = (int64_t)(got - host);
        cr_assert(error <= (int64_t)(2 * jitter + 2) && error >= -(int64_t)(2 * jitter + 2),
                  "host %llu mapped %lld ns off", (unsigned long long)host, (long long)error);
    }
    ot_devsync_free(s);
}

/* Pairs added in host-time order (the rule: one host thread's) are used as
 * they came, ties included: the first of two pairs with one host time is
 * kept, as the stable sort kept it (eleventh round: no sort when sorted). */
Test(devsync, pairs_in_order_with_a_tie_keep_the_first)
{
    ot_devsync *s = ot_devsync_new();
    cr_assert_eq(ot_devsync_add(s, 1000, 5000), 0);
    cr_assert_eq(ot_devsync_add(s, 2000, 6000), 0);
    cr_assert_eq(ot_devsync_add(s, 2000, 6500), 0); /* same host time: dropped by the map */
    cr_assert_eq(ot_devsync_add(s, 3000, 7000), 0);
    cr_assert_eq(ot_devsync_build(s), 0);
    cr_assert_eq(ot_devsync_points(s), 3);
    cr_assert_eq(ot_devsync_to_host(s, 6000), 2000);
    cr_assert_eq(ot_devsync_to_host(s, 6500), 2500, "between the kept pairs (6000, 2000) and (7000, 3000)");
    /* one out of order among them: sorted, the same map */
    ot_devsync *t = ot_devsync_new();
    cr_assert_eq(ot_devsync_add(t, 2000, 6000), 0);
    cr_assert_eq(ot_devsync_add(t, 1000, 5000), 0);
    cr_assert_eq(ot_devsync_add(t, 2000, 6500), 0);
    cr_assert_eq(ot_devsync_add(t, 3000, 7000), 0);
    cr_assert_eq(ot_devsync_build(t), 0);
    cr_assert_eq(ot_devsync_points(t), 3);
    for (uint64_t d = 4000; d <= 8000; d += 250)
        cr_assert_eq(ot_devsync_to_host(t, d), ot_devsync_to_host(s, d), "device %llu", (unsigned long long)d);
    ot_devsync_free(s);
    ot_devsync_free(t);
}

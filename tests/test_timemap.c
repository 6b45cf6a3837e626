/* The clock map: offset and drift from sync points, interpolated. */
#include <criterion/criterion.h>

#include "timemap.h"

Test(timemap, identity_without_points)
{
    ot_timemap *m = ot_timemap_new(1.0);
    cr_assert_eq(ot_timemap_apply(m, 12345), 12345);
    ot_timemap_free(m);
}

Test(timemap, one_point_is_offset_with_default_rate)
{
    ot_timemap *m = ot_timemap_new(0.5);
    ot_timemap_add(m, 1000, 5000);
    cr_assert_eq(ot_timemap_apply(m, 3000), 6000);
    cr_assert_eq(ot_timemap_apply(m, 1000), 5000);
    ot_timemap_free(m);
}

Test(timemap, interpolates_offset_and_drift_between_points)
{
    /* Device clock 5 s ahead, running 200 ppm fast. */
    ot_timemap *m = ot_timemap_new(1.0);
    const uint64_t off = 5000000000ull;
    for (uint64_t host = 0; host <= 10000000000ull; host += 1000000000ull)
        cr_assert_eq(ot_timemap_add(m, off + host + host / 5000, host), 0);
    for (uint64_t host = 123456789; host < 10000000000ull; host += 777777777) {
        uint64_t dev = off + host + host / 5000;
        int64_t err = (int64_t)ot_timemap_apply(m, dev) - (int64_t)host;
        cr_assert(err >= -1 && err <= 1, "error %lld ns at %llu", (long long)err, (unsigned long long)host);
    }
    ot_timemap_free(m);
}

Test(timemap, extrapolates_with_nearest_segment)
{
    ot_timemap *m = ot_timemap_new(1.0);
    ot_timemap_add(m, 100, 1000);
    ot_timemap_add(m, 200, 1200);
    cr_assert_eq(ot_timemap_apply(m, 300), 1400);
    cr_assert_eq(ot_timemap_apply(m, 50), 900);
    ot_timemap_free(m);
}

Test(timemap, drops_points_that_would_run_time_backwards)
{
    ot_timemap *m = ot_timemap_new(1.0);
    cr_assert_eq(ot_timemap_add(m, 100, 1000), 0);
    cr_assert_eq(ot_timemap_add(m, 150, 990), 1);
    cr_assert_eq(ot_timemap_add(m, 90, 1100), 1);
    cr_assert_eq(ot_timemap_add(m, 200, 1100), 0);
    cr_assert_eq(ot_timemap_points(m), 2);
    uint64_t last = 0;
    for (uint64_t x = 0; x < 400; x += 7) {
        uint64_t y = ot_timemap_apply(m, x);
        cr_assert_geq(y, last);
        last = y;
    }
    ot_timemap_free(m);
}

/* The hinted form (issue 18) gives what the search gives, for x that move
 * forward, jump back, and fall before the first and after the last point. */
Test(timemap, hinted_apply_equals_search)
{
    ot_timemap *m = ot_timemap_new(1.0);
    for (uint64_t i = 1; i <= 50; i++)
        ot_timemap_add(m, i * 1000, i * 1000 * 3 + i * i);
    ot_timemap_hint hint = {0};
    uint64_t seed = 88172645463325252ull;
    for (int k = 0; k < 20000; k++) {
        uint64_t x;
        if (k % 3) { /* mostly forward, as a thread's records go */
            x = (uint64_t)k * 3;
        } else {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            x = seed % 60000;
        }
        cr_assert_eq(ot_timemap_apply_hinted(m, x, &hint), ot_timemap_apply(m, x), "x = %llu", (unsigned long long)x);
    }
    cr_assert_eq(ot_timemap_apply_hinted(m, 0, &hint), ot_timemap_apply(m, 0));
    cr_assert_eq(ot_timemap_apply_hinted(m, UINT64_MAX / 4, &hint), ot_timemap_apply(m, UINT64_MAX / 4));
    ot_timemap_free(m);
}

/* The hinted form converts through signed integers where the value fits
 * (issue 18, third round): the same result as the unsigned conversions for
 * a TSC's magnitudes (ticks near 2^50, a rate below 1), and at the edges
 * where the cheap path must give way: differences and results around 2^63,
 * times past the end of uint64. */
Test(timemap, hinted_apply_equals_search_at_the_conversion_edges)
{
    ot_timemap *m = ot_timemap_new(1.0);
    const uint64_t t0 = 1ull << 50, ns0 = 1ull << 48;
    for (uint64_t i = 0; i < 40; i++) /* 2.9 GHz, drifting a little */
        ot_timemap_add(m, t0 + i * 29000000ull + i * i * 7, ns0 + i * 10000000ull);
    ot_timemap_hint hint = {0};
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < 100000; k++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        uint64_t x = k % 2 ? t0 - 1000000 + seed % 1400000000ull : seed;
        cr_assert_eq(ot_timemap_apply_hinted(m, x, &hint), ot_timemap_apply(m, x), "x = %llu", (unsigned long long)x);
    }
    const uint64_t edges[] = {0, 1, t0, (1ull << 63) - 1, 1ull << 63, (1ull << 63) + 1, UINT64_MAX - 1, UINT64_MAX,
                              t0 + (1ull << 63), (1ull << 63) + t0 / 2};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        cr_assert_eq(ot_timemap_apply_hinted(m, edges[i], &hint), ot_timemap_apply(m, edges[i]), "x = %llu",
                     (unsigned long long)edges[i]);
    ot_timemap_free(m);
    m = ot_timemap_new(1.0); /* a steep map: results near and past 2^63 and 2^64 */
    ot_timemap_add(m, 1000, 1000);
    ot_timemap_add(m, 2000, 4000);
    hint = (ot_timemap_hint){0}; /* a hint serves one map */
    for (uint64_t x = (1ull << 61) / 3 * 2 - 4096; x < (1ull << 61) / 3 * 2 + 4096; x += 7)
        cr_assert_eq(ot_timemap_apply_hinted(m, x, &hint), ot_timemap_apply(m, x), "x = %llu", (unsigned long long)x);
    for (uint64_t x = UINT64_MAX / 3 - 4096; x < UINT64_MAX / 3 + 4096; x += 7)
        cr_assert_eq(ot_timemap_apply_hinted(m, x, &hint), ot_timemap_apply(m, x), "x = %llu", (unsigned long long)x);
    ot_timemap_free(m);
}

/* The fixed-point path (issue 18, seventh round) gives what the search's
 * floating point gives, bit for bit: a TSC's magnitudes with drift, every
 * point and its neighbours, rates whose products land exactly on a half
 * (where only the floating point can decide), a steep map whose values
 * pass 2^52 (no fixed point there), and a map that grows while a hint is
 * in use (the segments it knew keep their values). */
static void expect_quick_equals_search(ot_timemap *m, ot_timemap_hint *hint, uint64_t x)
{
    cr_assert_eq(ot_timemap_apply_quickly(m, x, hint), ot_timemap_apply(m, x), "x = %llu", (unsigned long long)x);
}

Test(timemap, quick_apply_equals_search)
{
    ot_timemap *m = ot_timemap_new(1.0);
    const uint64_t t0 = 23949503778161ull, ns0 = 9224954374669ull; /* a recording's first clock pair */
    uint64_t points_x[40];
    for (uint64_t i = 0; i < 40; i++) { /* 2.6 GHz, drifting a little, pairs 1 to 40 ms apart */
        points_x[i] = t0 + i * 26000000ull + i * i * 131 + (i % 7) * 77777777ull;
        ot_timemap_add(m, points_x[i], ns0 + i * 10000000ull + (i % 7) * 29914529ull + i * 3);
    }
    ot_timemap_hint hint = {0};
    uint64_t seed = 0x2545F4914F6CDD1Dull, quick = 0;
    for (int k = 0; k < 2000000; k++) {
        uint64_t x;
        if (k % 4) { /* mostly forward, as a thread's records go */
            x = t0 - 5000 + (uint64_t)k * 700;
        } else {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            x = t0 - 1000000 + seed % (points_x[39] - t0 + 2000000);
        }
        expect_quick_equals_search(m, &hint, x);
        quick += x - hint.first_x < hint.span;
    }
    cr_assert_gt(quick, 1900000, "the fixed point was used for %llu of 2000000", (unsigned long long)quick);
    for (int i = 0; i < 40; i++)
        for (uint64_t d = 0; d < 5; d++) {
            expect_quick_equals_search(m, &hint, points_x[i] + d);
            expect_quick_equals_search(m, &hint, points_x[i] - d);
        }
    expect_quick_equals_search(m, &hint, 0);
    expect_quick_equals_search(m, &hint, UINT64_MAX);

    /* it grows: the segments before keep their values, the hint keeps serving */
    ot_timemap_add(m, points_x[39] + 26000000ull, ns0 + 40 * 10000000ull + 7);
    for (uint64_t x = points_x[38]; x < points_x[39] + 30000000ull; x += 9973)
        expect_quick_equals_search(m, &hint, x);
    ot_timemap_free(m);

    /* rates of 1/2, 1/4, 3/4 and 3: exact halves, the integer the floating point rounds toward decided by it */
    const uint64_t dys[] = {500, 250, 750, 3000};
    for (size_t i = 0; i < sizeof dys / sizeof *dys; i++) {
        m = ot_timemap_new(1.0);
        ot_timemap_add(m, 1000000, 7000000);
        ot_timemap_add(m, 1001000, 7000000 + dys[i]);
        ot_timemap_add(m, 5001000, 7000000 + dys[i] * 4001);
        hint = (ot_timemap_hint){0};
        for (uint64_t x = 999000; x < 5003000; x++)
            expect_quick_equals_search(m, &hint, x);
        ot_timemap_free(m);
    }

    /* values near 2^52 and past it: the floating point alone */
    m = ot_timemap_new(1.0);
    ot_timemap_add(m, 1000, (1ull << 52) - 3000000);
    ot_timemap_add(m, 2000000, (1ull << 52) + 3000000);
    hint = (ot_timemap_hint){0};
    for (uint64_t x = 0; x < 3000000; x += 37)
        expect_quick_equals_search(m, &hint, x);
    ot_timemap_free(m);
}

/* Times going forward one segment at a time, as a device's records past
 * each sync pair (eleventh round: the next segment taken without the
 * search), through segments of every width and past the last point. */
Test(timemap, hinted_apply_walking_forward_equals_search)
{
    ot_timemap *m = ot_timemap_new(1.0);
    uint64_t x = 1000;
    for (uint64_t i = 1; i <= 200; i++, x += 1 + (i * 37) % 500) /* widths 1 to 500 */
        cr_assert_eq(ot_timemap_add(m, x, x * 2 + i), 0);
    ot_timemap_hint hint = {0};
    size_t moves = 0, last_segment = 0;
    for (uint64_t t = 900; t < x + 2000; t += 3) {
        cr_assert_eq(ot_timemap_apply_hinted(m, t, &hint), ot_timemap_apply(m, t), "t = %llu", (unsigned long long)t);
        moves += hint.segment == last_segment + 1;
        last_segment = hint.segment;
    }
    cr_assert_gt(moves, 100, "the walk must move segment by segment");
    ot_timemap_free(m);
}

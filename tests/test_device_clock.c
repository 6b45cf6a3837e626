/* The host-offload device's clock and its test skew
 * (OFFTRACE_TEST_DEVICE_CLOCK="offset_ns:drift_ppm:jitter_ns"). */
#include <criterion/criterion.h>
#include <errno.h>
#include <time.h>

#include "clock.h"
#include "device_clock.h"

Test(device_clock, parse_accepts_valid_skews)
{
    ot_clock_skew s;
    cr_assert_eq(ot_clock_skew_parse("5000000000:200:200", &s), 0);
    cr_assert_eq(s.offset_ns, 5000000000ll);
    cr_assert_eq(s.drift_ppm, 200.0);
    cr_assert_eq(s.jitter_ns, 200);

    cr_assert_eq(ot_clock_skew_parse("-3000000000:-200:0", &s), 0);
    cr_assert_eq(s.offset_ns, -3000000000ll);
    cr_assert_eq(s.drift_ppm, -200.0);
    cr_assert_eq(s.jitter_ns, 0);

    cr_assert_eq(ot_clock_skew_parse("0:0.5:10", &s), 0);
    cr_assert_eq(s.offset_ns, 0);
    cr_assert_eq(s.drift_ppm, 0.5);
    cr_assert_eq(s.jitter_ns, 10);
}

Test(device_clock, parse_rejects_malformed_and_out_of_range)
{
    static const char *bad[] = {
        "",               /* empty */
        "1:2",            /* two fields */
        "1:2:3:4",        /* four fields */
        "x:1:1",          /* offset not a number */
        "1:20000:1",      /* drift beyond 10000 ppm */
        "1:1:-5",         /* negative jitter */
        "1:1:2000000000", /* jitter over 1 s */
        "1:1:1x",         /* trailing junk */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ot_clock_skew s = {111, 2.0, 333};
        cr_assert_eq(ot_clock_skew_parse(bad[i], &s), -EINVAL, "'%s' accepted", bad[i]);
        cr_assert(s.offset_ns == 111 && s.drift_ppm == 2.0 && s.jitter_ns == 333,
                  "'%s' rejected but the output was changed", bad[i]);
    }
}

Test(device_clock, parse_rejects_non_finite_drift)
{
    /* A NaN drift compares false to both range limits; applied, it would make
     * (int64_t)NaN out of every reading. */
    static const char *bad[] = {"1:nan:1", "1:-nan:1", "1:inf:1", "1:-inf:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ot_clock_skew s;
        cr_assert_eq(ot_clock_skew_parse(bad[i], &s), -EINVAL, "'%s' accepted", bad[i]);
    }
}

/* true + offset + true * drift / 1e6, exactly, for values where that is an integer. */
Test(device_clock, skew_without_jitter_is_exact)
{
    static const struct {
        int64_t offset;
        double drift;
        uint64_t truth;
        uint64_t want;
    } cases[] = {
        {0, 200, 1000000000000ull, 1000200000000ull},
        {5000000000ll, 200, 1000000000000ull, 1005200000000ull},
        {-3000000000ll, -200, 1000000000000ull, 996800000000ull},
        {-3000000000ll, 200, 5000000000ull, 2001000000ull},
        {5000000000ll, 0.5, 2000000000000ull, 2005001000000ull},
        {7, 0, 123456789012ull, 123456789019ull},
        {0, 10000, 1000000000000ull, 1010000000000ull},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ot_clock_skew s = {cases[i].offset, cases[i].drift, 0};
        ot_device_clock_set_skew(&s);
        uint64_t got = ot_device_clock_skewed(cases[i].truth);
        cr_expect_eq(got, cases[i].want, "offset %lld drift %g true %llu: %llu, want %llu (%+lld ns)",
                     (long long)cases[i].offset, cases[i].drift, (unsigned long long)cases[i].truth,
                     (unsigned long long)got, (unsigned long long)cases[i].want,
                     (long long)(got - cases[i].want));
    }
    ot_device_clock_set_skew(NULL);
}

Test(device_clock, jitter_stays_within_bounds_on_both_sides)
{
    const uint64_t j = 200, truth = 1000000000000ull;
    ot_clock_skew s = {5000000000ll, 200, 0};
    ot_device_clock_set_skew(&s);
    /* The reading without jitter; the exact formula is checked above. */
    const uint64_t base = ot_device_clock_skewed(truth);
    cr_assert(base + 1 >= 1005200000000ull && base <= 1005200000000ull + 1, "base %llu",
              (unsigned long long)base);

    s.jitter_ns = j;
    ot_device_clock_set_skew(&s);
    int below = 0, above = 0;
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < 10000; i++) {
        int64_t d = (int64_t)(ot_device_clock_skewed(truth) - base);
        cr_assert(d >= -(int64_t)j && d <= (int64_t)j, "sample %d is %lld ns off", i, (long long)d);
        below += d < 0;
        above += d > 0;
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    cr_assert_gt(below, 0, "no negative jitter in 10000 samples");
    cr_assert_gt(above, 0, "no positive jitter in 10000 samples");
    /* Uniform in [-200, 200]: 10000 samples reach close to both ends. */
    cr_assert(lo <= -150 && hi >= 150, "jitter only spans [%lld, %lld]", (long long)lo, (long long)hi);
    ot_device_clock_set_skew(NULL);
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t clock_minus_monotonic(void)
{
    uint64_t before = monotonic_ns();
    uint64_t now = ot_device_clock_now();
    uint64_t after = monotonic_ns();
    return (int64_t)(now - (before / 2 + after / 2));
}

Test(device_clock, no_skew_is_the_monotonic_clock)
{
    ot_clock_skew s = {5000000000ll, 0, 0};
    ot_device_clock_set_skew(&s);
    int64_t skewed = clock_minus_monotonic();
    cr_assert(skewed > 4999000000ll && skewed < 5001000000ll, "skewed clock is %lld ns ahead",
              (long long)skewed);

    ot_device_clock_set_skew(NULL);
    for (int i = 0; i < 3; i++) {
        int64_t d = clock_minus_monotonic();
        cr_assert(d > -1000000 && d < 1000000, "unskewed clock is %lld ns off CLOCK_MONOTONIC", (long long)d);
    }
}

/* ---- the TSC source (no skew set) ---- */

#include "tsc_clock.h"

static void sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* clock_minus_monotonic from the tightest of 20 bracketed reads, so that a
 * preemption between the reads (a loaded machine) does not fail the test. */
static int64_t tight_clock_minus_monotonic(void)
{
    int64_t best = 0;
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 20; i++) {
        uint64_t before = monotonic_ns();
        uint64_t now = ot_device_clock_now();
        uint64_t after = monotonic_ns();
        if (after - before < best_width) {
            best_width = after - before;
            best = (int64_t)(now - (before / 2 + after / 2));
        }
    }
    return best;
}

Test(device_clock, tsc_source_follows_the_monotonic_clock)
{
    ot_device_clock_set_skew(NULL);
    if (!ot_device_clock_use_tsc())
        cr_skip_test("no invariant TSC here: the clock stays on CLOCK_MONOTONIC");
    cr_assert_str_eq(ot_device_clock_source(), "tsc");

    /* Anchored at calibration: close to CLOCK_MONOTONIC right away. */
    int64_t start = tight_clock_minus_monotonic();
    cr_assert(start > -20000 && start < 20000, "TSC clock starts %lld ns off CLOCK_MONOTONIC", (long long)start);

    /* Its rate: within 0.1 % of CLOCK_MONOTONIC's over 50 ms (the
     * calibration's error is some tens of ppm). */
    uint64_t m0 = monotonic_ns();
    int64_t d0 = tight_clock_minus_monotonic();
    sleep_ns(50000000);
    int64_t d1 = tight_clock_minus_monotonic();
    uint64_t span = monotonic_ns() - m0;
    double ppm = (double)(d1 - d0) / (double)span * 1e6;
    cr_assert(ppm > -1000 && ppm < 1000, "TSC clock rate is %+.0f ppm off CLOCK_MONOTONIC's", ppm);
    cr_log_info("TSC clock: %+.1f ppm, start offset %lld ns", ppm, (long long)start);
    ot_device_clock_use_monotonic();
}

Test(device_clock, tsc_source_is_monotonic_across_many_reads)
{
    ot_device_clock_set_skew(NULL);
    if (!ot_device_clock_use_tsc())
        cr_skip_test("no invariant TSC here");
    uint64_t last = ot_device_clock_now();
    for (int i = 0; i < 1000000; i++) {
        uint64_t now = ot_device_clock_now();
        cr_assert_geq(now, last, "read %d went back by %llu ns", i, (unsigned long long)(last - now));
        last = now;
    }
    ot_device_clock_use_monotonic();
}

Test(device_clock, skew_wins_over_the_tsc)
{
    /* The skew is defined against CLOCK_MONOTONIC; the truth test of
     * test_device.c relies on that. */
    ot_device_clock_use_tsc();
    ot_clock_skew s = {5000000000ll, 0, 0};
    ot_device_clock_set_skew(&s);
    cr_assert_str_eq(ot_device_clock_source(), "skewed monotonic");
    int64_t d = clock_minus_monotonic();
    cr_assert(d > 4999000000ll && d < 5001000000ll, "skewed clock is %lld ns ahead", (long long)d);
    ot_device_clock_set_skew(NULL);
    cr_assert_str_neq(ot_device_clock_source(), "skewed monotonic");
    ot_device_clock_use_monotonic();
}

Test(device_clock, monotonic_fallback)
{
    /* What a machine without an invariant TSC gets. */
    ot_device_clock_set_skew(NULL);
    ot_device_clock_use_tsc();
    ot_device_clock_use_monotonic();
    cr_assert_str_eq(ot_device_clock_source(), "monotonic");
    for (int i = 0; i < 3; i++) {
        int64_t d = clock_minus_monotonic();
        cr_assert(d > -1000000 && d < 1000000, "fallback clock is %lld ns off CLOCK_MONOTONIC", (long long)d);
    }
}

Test(device_clock, tsc_conversion_is_linear_and_signed)
{
    /* 2 GHz: 0.5 ns per tick. */
    ot_tsc_clock c = {.base_ticks = 1000000, .base_ns = 5000000000ull, .mult = 1ull << 31};
    cr_assert_eq(ot_tsc_clock_ns(&c, 1000000), 5000000000ull);
    cr_assert_eq(ot_tsc_clock_ns(&c, 3000000), 5001000000ull);
    cr_assert_eq(ot_tsc_clock_ns(&c, 999000), 4999999500ull, "a read just before the base must not wrap");
    /* A day of ticks later: no overflow in the product. */
    uint64_t day = 2000000000ull * 86400;
    cr_assert_eq(ot_tsc_clock_ns(&c, 1000000 + day), 5000000000ull + 86400000000000ull);
}

Test(device_clock, tsc_calibration_measures_a_plausible_rate)
{
    if (!ot_clock_tsc_is_invariant())
        cr_skip_test("no invariant TSC here");
    ot_tsc_clock c;
    cr_assert_eq(ot_tsc_clock_calibrate(&c, 1000000), 0);
    double ghz = 4294967296.0 / (double)c.mult;
    cr_assert(ghz > 0.01 && ghz < 100, "TSC at %.3f GHz", ghz);
    cr_log_info("TSC at %.4f GHz", ghz);
}

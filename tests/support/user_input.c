/*
 * user_input: values at the ends of their types and every kind of bad input
 * to the user API, twice each (tests/test_user_input.c). Prints what each
 * call answered, the same traced or not.
 *   values "i64" (int64), "u64" (uint64), "dbl" (double): the VALUES below, in order
 *   mistakes: a NULL region handle (begin and end), an end without its begin,
 *   an unknown event id, a name of 256 bytes, a name that is not UTF-8: 12 refused calls
 */
#include <float.h>
#include <offtrace/offtrace_user.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int team = 0;
#pragma omp parallel reduction(+ : team)
    team += 1; /* the runtime initialised, and with it the tool */
    offtrace_user_id i64, u64, dbl;
    if (offtrace_user_value_create("i64", OFFTRACE_USER_INT64, &i64) ||
        offtrace_user_value_create("u64", OFFTRACE_USER_UINT64, &u64) ||
        offtrace_user_value_create("dbl", OFFTRACE_USER_DOUBLE, &dbl))
        return 1;
    OFFTRACE_USER_REGION_BEGIN(all, "all");
    const int64_t ints[] = {INT64_MIN, INT64_MAX, -1, 0};
    const uint64_t uints[] = {0, (1ull << 63) + 5, UINT64_MAX};
    const double doubles[] = {-1.5, 4.9406564584124654e-324, -0.0, DBL_MAX, -1.1125369292536007e-308};
    int rc = 0;
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        rc |= offtrace_user_value_int64(i64, ints[i]);
    for (size_t i = 0; i < sizeof uints / sizeof *uints; i++)
        rc |= offtrace_user_value_uint64(u64, uints[i]);
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++)
        rc |= offtrace_user_value_double(dbl, doubles[i]);
    printf("team %d values %d\n", team > 0, rc);

    static offtrace_user_region never_begun;
    char long_name[257];
    memset(long_name, 'n', 256);
    long_name[256] = 0;
    offtrace_user_id ev = 0;
    for (int twice = 0; twice < 2; twice++) {
        int a = offtrace_user_region_begin(NULL, "x", __FILE__, __LINE__);
        int b = offtrace_user_region_end_named("x-closes-the-refused-begin");
        int c = offtrace_user_region_end(NULL);
        int d = offtrace_user_region_end(&never_begun);
        int e = offtrace_user_event_begin(9999);
        int f = offtrace_user_event_create(long_name, &ev);
        int g = offtrace_user_region_begin_named("bad\xff name");
        int h = offtrace_user_region_end_named("bad\xff name");
        printf("%d %d %d %d %d %d %d %d\n", a, b, c, d, e, f, g, h);
    }
    OFFTRACE_USER_REGION_END(all);
    printf("dropped %llu\n", (unsigned long long)offtrace_user_dropped());
    return 0;
}

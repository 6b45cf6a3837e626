/*
 * user_no_openmp: a plain C program (no OpenMP at all) that uses offtrace's
 * user API. It shows that libofftrace-user.so needs neither libomp nor
 * offtrace: every call records nothing and the program runs as it would
 * without them. It also checks the untraced answers the header promises and
 * prints them, so a test can compare its output exactly.
 */
#include <stdio.h>

#include "offtrace/offtrace_user.h"

int main(void)
{
    offtrace_user_id ev, counter;
    int rc = offtrace_user_init();
    printf("init: %s\n", offtrace_user_status_text(rc));
    printf("traced: %d\n", offtrace_user_is_traced());
    long sum = 0;
    for (int i = 0; i < 1000; i++) {
        OFFTRACE_USER_REGION_BEGIN(outer, "outer");
        OFFTRACE_USER_REGION_BEGIN(inner, "inner");
        sum += i;
        OFFTRACE_USER_REGION_END(inner);
        OFFTRACE_USER_REGION_END(outer);
    }
    offtrace_user_region_begin_named("dynamic");
    offtrace_user_region_end_named("dynamic");
    printf("event: %d\n", offtrace_user_event_create("request", &ev));
    printf("value: %d\n", offtrace_user_value_create("items", OFFTRACE_USER_UINT64, &counter));
    offtrace_user_event_begin(ev);
    offtrace_user_value_uint64(counter, 42);
    offtrace_user_event_end(ev);
    printf("measurement_on: %s\n", offtrace_user_status_text(offtrace_user_measurement_on()));
    printf("is_on: %d\n", offtrace_user_measurement_is_on());
    printf("dropped: %llu\n", (unsigned long long)offtrace_user_dropped());
    uint64_t t0 = offtrace_user_clock_now();
    uint64_t t1 = offtrace_user_clock_now();
    printf("clock monotonic: %d\n", t1 >= t0 && offtrace_user_clock_to_ns(t1) >= offtrace_user_clock_to_ns(t0));
    printf("sum %ld\n", sum);
    return 0;
}

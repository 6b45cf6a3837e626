/*
 * live_user N: N target regions, each inside the user region "step", the
 * step's number as a user value, and past the half new ids defined while
 * the program runs (a region "late", an event "checkpoint" every 100th
 * step): for the live conversion of `offtrace record -b 64K`
 * (tests/test_live_conversion.c), which reads user.defs again when a record
 * names an id defined after its start.
 */
#include <offtrace/offtrace_user.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000, s = 0;
    offtrace_user_id step_value, checkpoint;
    offtrace_user_value_create("step", OFFTRACE_USER_INT64, &step_value);
    for (long i = 0; i < n; i++) {
        OFFTRACE_USER_REGION_BEGIN(step, "step");
        offtrace_user_value_int64(step_value, i);
#pragma omp target map(tofrom: s)
        s++;
        if (i >= n / 2) {
            OFFTRACE_USER_REGION_BEGIN(late, "late");
            if (i == n / 2)
                offtrace_user_event_create("checkpoint", &checkpoint);
            if (i % 100 == 0) {
                offtrace_user_event_begin(checkpoint);
                offtrace_user_event_end(checkpoint);
            }
            OFFTRACE_USER_REGION_END(late);
        }
        OFFTRACE_USER_REGION_END(step);
    }
    printf("s=%ld\n", s);
    return 0;
}

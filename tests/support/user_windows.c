/*
 * user_windows: user regions around measurement switches made through the
 * user API (tests/test_user_recording.c). Prints what each call answered.
 *   "kept"    begun and ended while on: recorded
 *   "dropped" begun while off, ended after recording is back on: left out
 *   "across"  begun while on, ended while off: recorded whole
 *   "late"    begun and ended while on again: recorded
 */
#include <offtrace/offtrace_user.h>
#include <stdio.h>

int main(void)
{
    int team = 0;
#pragma omp parallel reduction(+ : team)
    team += 1; /* the runtime initialised, and with it the tool */
    printf("team %d, on %d\n", team > 0, offtrace_user_measurement_is_on());
    OFFTRACE_USER_REGION_BEGIN(kept, "kept");
    OFFTRACE_USER_REGION_END(kept);
    int off = offtrace_user_measurement_off();
    OFFTRACE_USER_REGION_BEGIN(dropped, "dropped");
    int on = offtrace_user_measurement_on();
    OFFTRACE_USER_REGION_END(dropped);
    OFFTRACE_USER_REGION_BEGIN(across, "across");
    int off2 = offtrace_user_measurement_off();
    OFFTRACE_USER_REGION_END(across);
    int on2 = offtrace_user_measurement_on();
    OFFTRACE_USER_REGION_BEGIN(late, "late");
    OFFTRACE_USER_REGION_END(late);
    printf("off %d on %d off %d on %d\n", off, on, off2, on2);
    return 0;
}

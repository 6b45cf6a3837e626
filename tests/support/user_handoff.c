/*
 * user_handoff: user events begun on one thread and ended on another
 * (tests/test_user_input.c).
 *   "handoff"  3 times: the main thread begins it, a new thread ends it after
 *              HANDOFF_MS; the main thread then waits AFTER_MS before its next record
 *   "io"       2 times: a new thread begins it and exits, the main thread ends it
 *   "local"    2 times begun and ended on the main thread
 * Prints what the calls answered.
 */
#include <offtrace/offtrace_user.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#define HANDOFF_MS 20
#define AFTER_MS 200

static offtrace_user_id handoff, io;

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void *end_handoff(void *arg)
{
    sleep_ms(HANDOFF_MS);
    *(int *)arg = offtrace_user_event_end(handoff);
    return NULL;
}

static void *begin_io(void *arg)
{
    *(int *)arg = offtrace_user_event_begin(io);
    return NULL;
}

int main(void)
{
    int team = 0;
#pragma omp parallel reduction(+ : team)
    team += 1; /* the runtime initialised, and with it the tool */
    offtrace_user_id local;
    if (offtrace_user_event_create("handoff", &handoff) || offtrace_user_event_create("io", &io) ||
        offtrace_user_event_create("local", &local))
        return 1;
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        int ended = -1;
        pthread_t t;
        rc |= offtrace_user_event_begin(handoff);
        if (pthread_create(&t, NULL, end_handoff, &ended) != 0)
            return 1;
        pthread_join(t, NULL);
        rc |= ended;
        sleep_ms(AFTER_MS);
        OFFTRACE_USER_REGION_BEGIN(after, "after");
        OFFTRACE_USER_REGION_END(after);
    }
    for (int i = 0; i < 2; i++) {
        int begun = -1;
        pthread_t t;
        if (pthread_create(&t, NULL, begin_io, &begun) != 0)
            return 1;
        pthread_join(t, NULL);
        rc |= begun;
        rc |= offtrace_user_event_end(io);
        rc |= offtrace_user_event_begin(local);
        rc |= offtrace_user_event_end(local);
    }
    printf("team %d calls %d dropped %llu\n", team > 0, rc, (unsigned long long)offtrace_user_dropped());
    return 0;
}

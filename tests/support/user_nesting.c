/*
 * user_nesting: user regions that nest and recur, on two threads
 * (tests/test_user_report.c checks the report's user table against the
 * archive read with OTF2's reader).
 *   "recurse"  a region inside itself, 3 deep, called ROUNDS times on the main thread
 *   "outer"    ROUNDS times, each with "inner" twice inside it, and a target region inside each "inner"
 *   "worker"   twice on the main thread and twice on a second thread
 * Prints the counts it made.
 */
#include <offtrace/offtrace_user.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 4

static volatile double sink;

static void spin(int n)
{
    for (int i = 0; i < n; i++)
        sink += i * 0.5;
}

static void recurse(int depth)
{
    OFFTRACE_USER_REGION_BEGIN(r, "recurse");
    spin(2000);
    if (depth > 1)
        recurse(depth - 1);
    OFFTRACE_USER_REGION_END(r);
}

static void worker(void)
{
    for (int i = 0; i < 2; i++) {
        OFFTRACE_USER_REGION_BEGIN(w, "worker");
        spin(5000);
        OFFTRACE_USER_REGION_END(w);
    }
}

static void *second_thread(void *arg)
{
    (void)arg;
    worker();
    return NULL;
}

int main(void)
{
    int team = 0;
#pragma omp parallel reduction(+ : team)
    team += 1; /* the runtime initialised, and with it the tool */
    for (int i = 0; i < ROUNDS; i++)
        recurse(3);
    double x = 1;
    for (int i = 0; i < ROUNDS; i++) {
        OFFTRACE_USER_REGION_BEGIN(o, "outer");
        for (int j = 0; j < 2; j++) {
            OFFTRACE_USER_REGION_BEGIN(in, "inner");
#pragma omp target map(tofrom : x)
            x = x * 1.5 + 1;
            OFFTRACE_USER_REGION_END(in);
        }
        spin(3000);
        OFFTRACE_USER_REGION_END(o);
    }
    worker();
    pthread_t t;
    if (pthread_create(&t, NULL, second_thread, NULL) != 0)
        return 1;
    pthread_join(t, NULL);
    printf("team %d recurse %d outer %d inner %d worker %d x %.1f\n", team > 0, 3 * ROUNDS, ROUNDS, 2 * ROUNDS, 4,
           x);
    return 0;
}

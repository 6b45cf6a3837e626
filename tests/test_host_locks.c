/*
 * Mutual exclusion on the host (issue 13, level all): locks, test locks,
 * nest locks, critical, ordered, lock init/destroy, cancellation and flush,
 * compared with what the runtime reports to an independent counting tool
 * (tests/support/ompt_host_counter.c) in a separate run of the same
 * program, read back with OTF2's reader (tests/check/host_mutex_check.c):
 * counts per kind and per thread, acquire/acquired/released balance, OTF2's
 * ThreadAcquireLock/ReleaseLock paired per location and lock with
 * increasing acquisition orders, waiting parts inside their constructs,
 * a cancelled loop closed; and nothing of it below level all.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check/archive_check.h"
#include "check/host_mutex_check.h"
#include "check/host_openmp_check.h"
#include "check/run.h"

enum { LOCK = 1, TEST_LOCK, NEST_LOCK, TEST_NEST_LOCK, CRITICAL, ATOMIC, ORDERED, KINDS = 8 };

typedef struct runtime_mutex {
    unsigned long long acquire[KINDS], acquired[KINDS], released[KINDS];
    unsigned long long nest_begin, nest_end, lock_init, lock_destroy, cancel, cancel_loop, flush;
    unsigned long long thread_acquire[MUTEX_CHECK_MAX_THREADS][KINDS];
    unsigned threads;
    unsigned long long loops;
} runtime_mutex;

static const char *environment[] = {"OMP_NUM_THREADS=3", "OMP_CANCELLATION=true", NULL};

static void read_kinds(const char *line, const char *name, unsigned long long *k)
{
    char key[32];
    snprintf(key, sizeof key, " %s=", name);
    const char *at = strstr(line, key);
    cr_assert_not_null(at, "no %s in %s", name, line);
    cr_assert_eq(sscanf(at + strlen(key), "%llu,%llu,%llu,%llu,%llu,%llu,%llu", &k[1], &k[2], &k[3], &k[4], &k[5],
                        &k[6], &k[7]),
                 7, "%s", line);
}

/* What the runtime reports: the program under the counting tool. */
static void runtime_counts(const char *program, char *const args[], runtime_mutex *c)
{
    char prog[4096], tool[4200];
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/libofftrace-test-host-counter.so", OFFTRACE_LIB_DIR);
    char *argv[8] = {prog};
    for (int i = 0; args && args[i] && i < 6; i++)
        argv[i + 1] = args[i];
    char *env[] = {tool, (char *)environment[0], (char *)environment[1], NULL};
    run_result r;
    cr_assert_eq(run_command(argv, env, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", program, r.err);
    memset(c, 0, sizeof *c);
    const char *line = strstr(r.err, "HOST_MUTEX ");
    cr_assert_not_null(line, "the counting tool wrote no mutex counts: %s", r.err);
    read_kinds(line, "acquire", c->acquire);
    read_kinds(line, "acquired", c->acquired);
    read_kinds(line, "released", c->released);
    cr_assert_eq(sscanf(strstr(line, " nest_begin="),
                        " nest_begin=%llu nest_end=%llu lock_init=%llu lock_destroy=%llu cancel=%llu cancel_loop=%llu "
                        "flush=%llu",
                        &c->nest_begin, &c->nest_end, &c->lock_init, &c->lock_destroy, &c->cancel, &c->cancel_loop,
                        &c->flush),
                 7, "%s", line);
    for (const char *t = r.err; (t = strstr(t, "HOST_MUTEX_THREAD ")) && c->threads < MUTEX_CHECK_MAX_THREADS; t++)
        read_kinds(t, "acquire", c->thread_acquire[c->threads++]);
    const char *counts = strstr(r.err, "HOST_COUNTS ");
    cr_assert_not_null(counts);
    cr_assert_eq(sscanf(strstr(counts, " loops="), " loops=%llu", &c->loops), 1);
    run_free(&r);
}

/* `offtrace record --host-openmp LEVEL [OPTION] -o DIR PROGRAM args`. */
static void record_with(const char *dir, const char *level, const char *option, const char *program,
                        char *const args[])
{
    char cli[4096], prog[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    snprintf(prog, sizeof prog, "%s/%s", OFFTRACE_BIN_DIR, program);
    char *argv[16] = {cli, "record", "--host-openmp", (char *)level, "-o", (char *)dir};
    int n = 6;
    if (option)
        argv[n++] = (char *)option;
    argv[n++] = prog;
    for (int i = 0; args && args[i] && i < 6; i++)
        argv[n++] = args[i];
    run_result r;
    cr_assert_eq(run_command(argv, (char *const *)environment, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s failed: %s", program, r.err);
    run_free(&r);
}

static void record(const char *dir, const char *level, const char *program, char *const args[])
{
    record_with(dir, level, NULL, program, args);
}

static void read_archive(const char *dir, host_mutex_facts *m, host_openmp_facts *h)
{
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0, "cannot read %s", dir);
    cr_assert_eq(archive_violations(&f), 0, "%s: %s", dir, f.first_problem);
    cr_assert_eq(host_openmp_check(dir, h), 0);
    cr_assert_eq(h->unmatched + h->time_reversals + h->chunks_outside_loop + h->chunks_without_iterations +
                     h->waits_outside_sync,
                 0, "%s: %s", dir, h->first_problem);
    cr_assert_eq(host_mutex_check(dir, m), 0);
}

/* The structure every archive with mutual exclusion has. */
static void structure_holds(const char *program, const host_mutex_facts *m)
{
    cr_expect_eq(m->unmatched, 0, "%s: %s", program, m->first_problem);
    cr_expect_eq(m->waits_outside_construct, 0, "%s: %s", program, m->first_problem);
    cr_expect_eq(m->lock_events_outside, 0, "%s: %s", program, m->first_problem);
    cr_expect_eq(m->unpaired_lock_events, 0, "%s: %s", program, m->first_problem);
    cr_expect_eq(m->held_at_end, 0, "%s: %s", program, m->first_problem);
    cr_expect_eq(m->order_not_increasing, 0, "%s: %s", program, m->first_problem);
    cr_expect_eq(m->barriers_inside_loops, 0, "%s: %s", program, m->first_problem);
    cr_expect_eq(m->zero_length_violations, 0, "%s: %s", program, m->first_problem);
}

#define SAME(got, want, what)                                                                                     \
    cr_expect_eq((got), (want), "%s: %s: %llu in the archive, %llu reported by the runtime", program, what,      \
                 (unsigned long long)(got), (unsigned long long)(want))

static int descending(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x < y) - (x > y);
}

static void mutex_equals_the_runtimes(const char *program, const char *option, char *const args[], int per_thread,
                                      host_mutex_facts *out)
{
    runtime_mutex want;
    runtime_counts(program, args, &want);
    cr_assert_gt(want.acquire[LOCK] + want.acquire[CRITICAL], 0, "%s: the runtime reported no lock", program);
    char dir[4096];
    scratch_path(dir, sizeof dir, "host-locks");
    record_with(dir, "all", option, program, args);
    host_mutex_facts m;
    host_openmp_facts h;
    read_archive(dir, &m, &h);
    structure_holds(program, &m);
    /* acquires: one region each (a nest lock's inner sets have their own class) */
    static const char *names[KINDS] = {"?", "lock", "test lock", "nest lock", "test nest lock", "critical", "atomic",
                                       "ordered"};
    for (int k = LOCK; k < KINDS; k++)
        if (k != NEST_LOCK && k != TEST_NEST_LOCK)
            SAME(m.regions[k], want.acquire[k], names[k]);
    SAME(m.regions[NEST_LOCK] + m.regions[TEST_NEST_LOCK] + m.nested,
         want.acquire[NEST_LOCK] + want.acquire[TEST_NEST_LOCK], "nest lock acquires");
    SAME(m.nested, want.nest_begin, "nest lock inner sets");
    SAME(want.nest_begin, want.nest_end, "(runtime) nest lock inner sets and unsets");
    /* acquired and released: ThreadAcquireLock/ReleaseLock of that kind's regions; balanced */
    unsigned long long got_released = 0, want_released = 0, got_acquired = 0, want_acquired = 0;
    for (int k = LOCK; k < KINDS; k++) {
        SAME(m.acquired[k], want.acquired[k], names[k]);
        cr_expect_eq(m.acquired[k], m.released[k], "%s: %s acquired %llu times, released %llu", program, names[k],
                     (unsigned long long)m.acquired[k], (unsigned long long)m.released[k]);
        got_released += m.released[k], want_released += want.released[k];
        got_acquired += m.acquired[k], want_acquired += want.acquired[k];
    }
    cr_expect_eq(m.acquired[0] + m.released[0], 0, "%s: lock events of an unknown kind", program);
    SAME(got_released, want_released, "releases");
    SAME(got_acquired, want_released, "(runtime) releases, as acquired in the archive");
    for (int k = LOCK; k < KINDS; k++) /* a failed omp_test_lock is the only acquire without its acquired */
        if (k != TEST_LOCK && k != NEST_LOCK && k != TEST_NEST_LOCK)
            SAME(m.regions[k], m.acquired[k], names[k]);
    cr_expect_gt(m.locks, 0);
    SAME(m.lock_inits, want.lock_init, "lock init");
    SAME(m.lock_destroys, want.lock_destroy, "lock destroy");
    SAME(m.flushes, want.flush, "flush");
    SAME(m.waits, want.acquire[LOCK] + want.acquire[TEST_LOCK] + want.acquire[NEST_LOCK] +
                      want.acquire[TEST_NEST_LOCK] + want.acquire[CRITICAL] + want.acquire[ATOMIC] +
                      want.acquire[ORDERED],
         "waiting parts");
    SAME(h.loops, want.loops, "loops");
    if (per_thread) {
        cr_assert_eq(m.threads, want.threads, "%s: %u threads acquired, the runtime says %u", program, m.threads,
                     want.threads);
        for (int k = LOCK; k < KINDS; k++) {
            unsigned long long got[MUTEX_CHECK_MAX_THREADS], exp[MUTEX_CHECK_MAX_THREADS];
            for (unsigned i = 0; i < m.threads; i++) {
                got[i] = m.thread_regions[i][k] + (k == NEST_LOCK ? m.thread_nested[i] : 0);
                exp[i] = want.thread_acquire[i][k] + (k == NEST_LOCK ? want.thread_acquire[i][TEST_NEST_LOCK] : 0);
            }
            if (k == TEST_NEST_LOCK)
                continue;
            qsort(got, m.threads, sizeof got[0], descending);
            qsort(exp, m.threads, sizeof exp[0], descending);
            for (unsigned i = 0; i < m.threads; i++)
                cr_expect_eq(got[i], exp[i], "%s: %s: the thread with the %u-th most has %llu in the archive, %llu "
                                             "in the runtime's",
                             program, names[k], i + 1, got[i], exp[i]);
        }
    }
    if (out)
        *out = m;
}

/* Every kind, each thread a number of each that depends on its thread
 * number only: totals and per-thread counts, a failing omp_test_lock; the
 * kernel's critical and lock at the end are not the program's (the counter
 * leaves them out, so must the archive), with the device collector deciding
 * and, with --host-only, offtrace's own library. */
Test(host_locks, every_kind_equals_the_runtimes_per_thread, .timeout = 120)
{
    const char *options[] = {NULL, "--host-only"};
    for (int i = 0; i < 2; i++) {
        host_mutex_facts m;
        mutex_equals_the_runtimes("mutex_kinds", options[i], (char *[]){"3", NULL}, 1, &m);
        cr_expect_gt(m.regions[TEST_LOCK], m.acquired[TEST_LOCK], "no omp_test_lock failed");
        cr_expect_gt(m.nested, 0);
    }
}

/* The lock-heavy example: one contended lock, critical, ordered, nest lock,
 * test lock, flush, and a cancelled dynamic loop (its end is not reported
 * by libomp: the loop region must still close before the barrier after
 * it, which structure_holds checks). */
Test(host_locks, lock_histogram_equals_the_runtimes, .timeout = 120)
{
    host_mutex_facts m;
    mutex_equals_the_runtimes("example_lock_histogram", NULL, (char *[]){"20000", "2", NULL}, 0, &m);
    cr_expect_gt(m.cancel_loops, 0, "no loop was cancelled");
    cr_expect_gt(m.cancels, 0);
}

/* Locks released in the order they were taken (set a, set b, unset a,
 * unset b) cannot nest as regions: at a's release b's region is left and
 * entered again, so the archive nests, every lock event still pairs, and
 * b shows as two pieces (one more lock region per thread than acquires). */
Test(host_locks, locks_released_out_of_order_still_nest, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "host-locks-interleaved");
    record(dir, "all", "mutex_kinds", (char *[]){"1", "interleaved", NULL});
    host_mutex_facts m;
    host_openmp_facts h;
    read_archive(dir, &m, &h);
    structure_holds("mutex_kinds interleaved", &m);
    cr_expect_eq(m.acquired[LOCK], m.released[LOCK]);
    cr_expect_eq(m.regions[LOCK], m.acquired[LOCK] + 3, "3 threads, each b split once: %llu regions, %llu acquired",
                 (unsigned long long)m.regions[LOCK], (unsigned long long)m.acquired[LOCK]);
}

/* Below level all nothing of this is recorded: at loops the archive holds
 * no mutex region and no lock event, and the host OpenMP of level loops
 * (the cancelled loop's chunks do not cover it, and without the cancel
 * record its region ends with its implicit task, as before level all). */
Test(host_locks, loops_records_no_mutual_exclusion, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "host-locks-loops");
    record(dir, "loops", "example_lock_histogram", (char *[]){"20000", "1", NULL});
    host_mutex_facts m;
    host_openmp_facts h;
    read_archive(dir, &m, &h);
    uint64_t any = m.nested + m.waits + m.lock_inits + m.lock_destroys + m.cancels + m.flushes + m.locks;
    for (int k = 0; k < KINDS; k++)
        any += m.regions[k] + m.acquired[k] + m.released[k];
    cr_expect_eq(any, 0, "mutual exclusion recorded at level loops");
    cr_expect_gt(h.chunks, 0);
}

#include "progress.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_AFTER_NS 1000000000ll
#define PROGRESS_EVERY_NS 250000000ll
#define TEST_AFTER_MS_MAX 3600000ll

struct ot_progress {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop, shown;
    atomic_uint_least64_t done;
    uint64_t total;
    int64_t after_ns;
    struct timespec begin;
    char doing[64], of_what[64];
};

static int64_t ns_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)(t.tv_sec - t0->tv_sec) * 1000000000ll + (t.tv_nsec - t0->tv_nsec);
}

/* The threshold when the pass gives none: a second, or the tests' knob. */
static int64_t default_after_ns(void)
{
    const char *v = getenv("OFFTRACE_TEST_PROGRESS_AFTER_MS");
    if (!v || !*v)
        return PROGRESS_AFTER_NS;
    char *end;
    long long ms = strtoll(v, &end, 10);
    if (*end || ms < 0 || ms > TEST_AFTER_MS_MAX)
        return PROGRESS_AFTER_NS;
    return ms * 1000000ll;
}

static void draw(ot_progress *p, int64_t elapsed)
{
    uint64_t done = atomic_load_explicit(&p->done, memory_order_relaxed);
    if (done > p->total)
        done = p->total;
    char line[200];
    int n = snprintf(line, sizeof line, "\rofftrace: %s: %3u %% of %s, %.0f s ", p->doing,
                     p->total ? (unsigned)(done * 100 / p->total) : 0u, p->of_what, (double)elapsed / 1e9);
    if (n > 0 && (size_t)n < sizeof line && write(STDERR_FILENO, line, (size_t)n) == n)
        p->shown = 1;
}

static void *progress_main(void *arg)
{
    ot_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        int64_t to_first = p->after_ns - ns_since(&p->begin);
        until.tv_nsec += p->shown || to_first >= PROGRESS_EVERY_NS ? PROGRESS_EVERY_NS : to_first > 0 ? to_first : 0;
        until.tv_sec += until.tv_nsec / 1000000000l;
        until.tv_nsec %= 1000000000l;
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        int64_t elapsed = ns_since(&p->begin);
        if (!p->stop && elapsed >= p->after_ns)
            draw(p, elapsed);
    }
    if (!p->shown && ns_since(&p->begin) >= p->after_ns) /* ended before the first drawing: once, as it ended */
        draw(p, ns_since(&p->begin));
    if (p->shown) { /* erase the line: what follows starts at column 0 */
        static const char erase[] = "\r\033[K";
        if (write(STDERR_FILENO, erase, sizeof erase - 1) < 0)
            p->shown = 0;
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

ot_progress *ot_progress_start(const char *doing, const char *of_what, uint64_t total,
                               const struct timespec *begin, int64_t after_ns)
{
    if (!isatty(STDERR_FILENO))
        return NULL;
    ot_progress *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->doing, sizeof p->doing, "%s", doing);
    snprintf(p->of_what, sizeof p->of_what, "%s", of_what);
    p->total = total;
    p->after_ns = after_ns > 0 ? after_ns : default_after_ns();
    atomic_init(&p->done, 0);
    p->begin = *begin;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&p->thread, NULL, progress_main, p) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        free(p);
        return NULL;
    }
    return p;
}

void ot_progress_add(ot_progress *p, uint64_t n)
{
    if (p)
        atomic_fetch_add_explicit(&p->done, n, memory_order_relaxed);
}

void ot_progress_set(ot_progress *p, uint64_t done)
{
    if (p)
        atomic_store_explicit(&p->done, done, memory_order_relaxed);
}

void ot_progress_stop(ot_progress *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/*
 * lock_histogram: a histogram built under one contended lock, and every
 * other kind of OpenMP mutual exclusion on the host.
 *
 *   lock_histogram [ITEMS] [ROUNDS]      (defaults 200000 and 3)
 *
 * Each round, one parallel region:
 *   1. histogram: a `schedule(dynamic, 64)` loop over ITEMS; each item's bin
 *      is cheap to compute, but its update (the bin, and a running digest of
 *      the whole histogram) happens under one `omp_lock_t` that every thread
 *      needs for every item. The threads spend most of their time waiting
 *      for that lock: the contention a trace of the lock's waiting parts
 *      shows (`offtrace record --host-openmp all`);
 *   2. each thread adds its item count to the total in a `critical`
 *      section, and flushes;
 *   3. an `ordered` loop writes the prefix sums of the bins in order;
 *   4. the primary thread walks a small tree recursively under a nest lock
 *      (each level sets it again) and tries a second lock with
 *      omp_test_lock;
 *   5. in the last round, a `dynamic` loop looks for a bin over the mean and
 *      cancels itself when it finds one (`cancel for`; active with
 *      OMP_CANCELLATION=true). Only in the last round: Debian's libomp 19
 *      (a debug build) fails an assertion (kmp_dispatch.cpp:564, steal_flag)
 *      in the next dynamic loop after a cancelled one, without any tool.
 * The locks are initialised and destroyed each round (one with a hint).
 * It prints one line per round (the same for every run and thread count).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define BINS 32

static unsigned bin_of(unsigned long i, unsigned round)
{
    unsigned long x = (i + 1) * 0x9E3779B97F4A7C15ul ^ (round + 1) * 0xBF58476D1CE4E5B9ul;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBul;
    x ^= x >> 29;
    return (unsigned)(x % BINS);
}

/* The digest depends on the bins only, not on the order of the updates. */
static unsigned long digest_of(const unsigned long *bins)
{
    unsigned long d = 0;
    for (int b = 0; b < BINS; b++)
        d = d * 31 + bins[b];
    return d;
}

static omp_nest_lock_t tree_lock;

static unsigned long walk(int depth)
{
    omp_set_nest_lock(&tree_lock);
    unsigned long n = 1;
    if (depth > 0)
        n += walk(depth - 1) + walk(depth - 1);
    omp_unset_nest_lock(&tree_lock);
    return n;
}

int main(int argc, char **argv)
{
    unsigned long items = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 3;
    if (items == 0 || rounds == 0) {
        fprintf(stderr, "usage: lock_histogram [ITEMS > 0] [ROUNDS > 0]\n");
        return 2;
    }
    for (unsigned round = 0; round < rounds; round++) {
        unsigned long bins[BINS] = {0}, prefix[BINS], total = 0, digest = 0, tree = 0;
        int found = round < rounds - 1; /* searched in the last round only */
        omp_lock_t bins_lock, spare_lock;
        omp_init_lock(&bins_lock);
        omp_init_lock_with_hint(&spare_lock, omp_sync_hint_contended);
        omp_init_nest_lock(&tree_lock);
#pragma omp parallel
        {
            unsigned long mine = 0;
#pragma omp for schedule(dynamic, 64)
            for (unsigned long i = 0; i < items; i++) {
                unsigned b = bin_of(i, round);
                omp_set_lock(&bins_lock);
                bins[b]++;
                digest = digest_of(bins); /* the hold: far longer than the work outside the lock */
                omp_unset_lock(&bins_lock);
                mine++;
            }
#pragma omp critical(total)
            total += mine;
#pragma omp flush
#pragma omp for ordered schedule(static, 1)
            for (int b = 0; b < BINS; b++) {
#pragma omp ordered
                prefix[b] = bins[b] + (b ? prefix[b - 1] : 0);
            }
#pragma omp masked
            {
                tree = walk(3);
                if (omp_test_lock(&spare_lock))
                    omp_unset_lock(&spare_lock);
            }
            if (round == rounds - 1) {
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < BINS; b++) {
                if (bins[b] > items / BINS) {
#pragma omp atomic write
                    found = 1;
#pragma omp cancel for
                }
#pragma omp cancellation point for
            }
            }
        }
        omp_destroy_nest_lock(&tree_lock);
        omp_destroy_lock(&spare_lock);
        omp_destroy_lock(&bins_lock);
        printf("round %u: %lu items, total %lu, last prefix %lu, digest %lx, tree %lu, a bin over the mean: %s\n",
               round, items, total, prefix[BINS - 1], digest == digest_of(bins) ? digest : 0ul, tree,
               found ? "yes" : "no");
    }
    return 0;
}

/*
 * bucket_sort: the host side of an OpenMP program, with one offloaded step
 * inside its parallel region.
 *
 *   bucket_sort [KEYS] [ROUNDS]      (defaults 200000 and 3)
 *
 * Each round, one parallel region:
 *   1. makes KEYS keys with a skewed distribution (a static loop): half of
 *      them fall into bucket 0, a quarter into bucket 1, and so on, so that
 *      the buckets are very unequal;
 *   2. counts the keys per bucket (a static loop, atomic adds) and places
 *      them (a `single` thread);
 *   3. sorts each bucket (a `schedule(dynamic, 1)` loop over the buckets):
 *      the thread that draws bucket 0 works far longer than the others, the
 *      load imbalance a trace of the loop's chunks shows;
 *   4. while the other threads go on, the primary thread (`masked`) checks
 *      the sorted keys on the device (a `target` region inside the parallel
 *      region), then everyone meets at an explicit barrier;
 *   5. `sections`: one thread checks the order, another sums the keys;
 *      a `guided` loop scales a copy of the keys.
 * It prints one line per round (the same for every run and thread count).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 64

/* A key in [0, BUCKETS << 16): bucket b = key >> 16 gets about KEYS / 2^(b+1) keys. */
static unsigned key_of(unsigned long i, unsigned round)
{
    unsigned long x = (i + 1) * 0x9E3779B97F4A7C15ul ^ (round + 1) * 0xBF58476D1CE4E5B9ul;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBul;
    x ^= x >> 29;
    unsigned bucket = (unsigned)__builtin_ctzl(x | 1ul << (BUCKETS - 1));
    return bucket << 16 | (unsigned)(x >> 40 & 0xFFFF);
}

static int by_value(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
    unsigned rounds = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 3;
    if (n == 0 || n > 100000000 || rounds == 0 || rounds > 1000) {
        fprintf(stderr, "usage: bucket_sort [KEYS 1..100000000] [ROUNDS 1..1000]\n");
        return 2;
    }
    unsigned *keys = malloc(n * sizeof *keys), *sorted = malloc(n * sizeof *sorted);
    double *scaled = malloc(n * sizeof *scaled);
    if (!keys || !sorted || !scaled)
        return 1;
    for (unsigned round = 0; round < rounds; round++) {
        unsigned long count[BUCKETS] = {0}, first[BUCKETS + 1];
        unsigned long device_unsorted = 0, host_unsorted = 0;
        unsigned long long sum = 0;
        double scaled_sum = 0;
#pragma omp parallel
        {
#pragma omp for schedule(static)
            for (unsigned long i = 0; i < n; i++)
                keys[i] = key_of(i, round);
#pragma omp for schedule(static)
            for (unsigned long i = 0; i < n; i++) {
#pragma omp atomic
                count[keys[i] >> 16]++;
            }
#pragma omp single
            {
                first[0] = 0;
                for (int b = 0; b < BUCKETS; b++)
                    first[b + 1] = first[b] + count[b];
                unsigned long next[BUCKETS];
                memcpy(next, first, sizeof next);
                for (unsigned long i = 0; i < n; i++)
                    sorted[next[keys[i] >> 16]++] = keys[i];
            }
#pragma omp for schedule(dynamic, 1)
            for (int b = 0; b < BUCKETS; b++)
                qsort(sorted + first[b], first[b + 1] - first[b], sizeof *sorted, by_value);
#pragma omp masked
            {
                unsigned long bad = 0;
#pragma omp target map(to : sorted[0:n]) map(tofrom : bad)
                {
#pragma omp parallel for reduction(+ : bad)
                    for (unsigned long i = 1; i < n; i++)
                        bad += sorted[i - 1] > sorted[i];
                }
                device_unsorted = bad;
            }
#pragma omp barrier
#pragma omp sections
            {
#pragma omp section
                for (unsigned long i = 1; i < n; i++)
                    host_unsorted += sorted[i - 1] > sorted[i];
#pragma omp section
                for (unsigned long i = 0; i < n; i++)
                    sum += sorted[i];
            }
#pragma omp for schedule(guided) reduction(+ : scaled_sum)
            for (unsigned long i = 0; i < n; i++) {
                scaled[i] = sorted[i] * 0.5;
                scaled_sum += scaled[i];
            }
        }
        printf("round %u: %lu keys, bucket 0 holds %lu, unsorted pairs %lu (device %lu), sum %llu, scaled %.1f\n",
               round, n, count[0], host_unsorted, device_unsorted, sum, scaled_sum);
    }
    free(keys);
    free(sorted);
    free(scaled);
    return 0;
}

/*
 * bench_page_supply: what the kernel charges for the fresh pages a record
 * stream writes into, apart from offtrace (docs/performance.md, "Where a
 * host record's cost goes").
 *
 * The recorder's streams are file-backed shared mappings: every chunk is
 * allocated (posix_fallocate), mapped, and its pages made present before or
 * while records go into them; a full chunk is unmapped. This does the same
 * with a plain file in DIR, chunk after chunk, and reports each step's time
 * per 64-byte record (a record's share of its page), for three ways of
 * making the pages present:
 *   fault     the writer's first store into each page faults it in
 *             (what a callback pays when the preparer has not been there);
 *   populate  MADV_POPULATE_WRITE on the mapping first (what the preparer
 *             thread does, host/stream.c ot_pages_populate);
 *   pwrite    the chunk written with zeros through write(2) instead of
 *             fallocate, then populated;
 *   random    MADV_RANDOM on the mapping, then faulted in by the stores:
 *             the first fault does not read the chunk around it into the
 *             page cache (the disk's read-ahead: 8 MiB on the reference VM,
 *             the whole chunk), what a chunk its owner maps itself gets
 *             (host/stream.c map_next_chunk, eighth round of issue 18).
 * USED_BYTES (default: the whole chunk): the stores fill only that much of
 * each chunk, like a program whose records end early in its first chunk;
 * the times are then per record written.
 *   usage: bench_page_supply DIR [CHUNK_BYTES [CHUNKS [ROUNDS [USED_BYTES]]]]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define RECORD 64

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

enum { FAULT, POPULATE, PWRITE, RANDOM, MODES };
static const char *const mode_names[MODES] = {"fault", "populate", "pwrite", "random"};

/* One pass over CHUNKS chunks of a new file; adds each step's ns to steps[]. */
static int one_pass(const char *dir, int mode, size_t chunk, size_t used, int chunks, const char *zeros,
                    double steps[4])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/page_supply.tmp", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    unlink(path);
    for (int i = 0; i < chunks; i++) {
        off_t offset = (off_t)i * (off_t)chunk;
        double t0 = now_ns();
        if (mode == PWRITE ? pwrite(fd, zeros, chunk, offset) != (ssize_t)chunk
                           : posix_fallocate(fd, offset, (off_t)chunk) != 0) {
            close(fd);
            return -1;
        }
        char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
        if (p == MAP_FAILED) {
            close(fd);
            return -1;
        }
        if (mode == RANDOM)
            madvise(p, chunk, MADV_RANDOM);
        double t1 = now_ns();
        if (mode == POPULATE || mode == PWRITE)
            madvise(p, used, MADV_POPULATE_WRITE);
        double t2 = now_ns();
        for (size_t at = 0; at < used; at += RECORD)
            ((volatile char *)p)[at] = 1;
        double t3 = now_ns();
        munmap(p, chunk);
        double t4 = now_ns();
        steps[0] += t1 - t0;
        steps[1] += t2 - t1;
        steps[2] += t3 - t2;
        steps[3] += t4 - t3;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_page_supply DIR [CHUNK_BYTES [CHUNKS [ROUNDS [USED_BYTES]]]]\n");
        return 2;
    }
    size_t chunk = argc > 2 ? strtoul(argv[2], NULL, 0) : 1u << 20;
    int chunks = argc > 3 ? atoi(argv[3]) : 64;
    int rounds = argc > 4 ? atoi(argv[4]) : 5;
    size_t used = argc > 5 ? strtoul(argv[5], NULL, 0) : chunk;
    if (chunk < 4096 || chunk % 4096 || chunks < 1 || rounds < 1 || used < 4096 || used % 4096 || used > chunk) {
        fprintf(stderr, "bench_page_supply: CHUNK_BYTES a multiple of 4096, CHUNKS and ROUNDS >= 1, USED_BYTES a "
                        "multiple of 4096 up to CHUNK_BYTES\n");
        return 2;
    }
    char *zeros = calloc(1, chunk);
    if (!zeros)
        return 1;
    double steps[MODES][4] = {{0}};
    for (int r = 0; r < rounds; r++) /* modes interleaved, round by round */
        for (int m = 0; m < MODES; m++)
            if (one_pass(argv[1], m, chunk, used, chunks, zeros, steps[m]) != 0) {
                perror("bench_page_supply");
                return 1;
            }
    double records = (double)rounds * chunks * (used / RECORD);
    printf("| pages made present by (%zu-byte chunks, %zu bytes written, %d x %d) | allocate + map | populate | "
           "stores | unmap | total |\n",
           chunk, used, chunks, rounds);
    printf("|---|---|---|---|---|---|\n");
    for (int m = 0; m < MODES; m++) {
        double total = steps[m][0] + steps[m][1] + steps[m][2] + steps[m][3];
        printf("| %s | %.1f ns | %.1f ns | %.1f ns | %.1f ns | %.1f ns |\n", mode_names[m], steps[m][0] / records,
               steps[m][1] / records, steps[m][2] / records, steps[m][3] / records, total / records);
    }
    printf("\nns per %d-byte record written\n", RECORD);
    free(zeros);
    return 0;
}

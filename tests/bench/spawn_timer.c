/*
 * bench_spawn_timer OUT -- PROGRAM [ARG...]: run PROGRAM with its output on
 * /dev/null and append "WALL_MS CPU_MS" to OUT: the wall time from before
 * the fork to after its wait, and the CPU time (user + system) of the
 * program and every child it waited for (wait4's rusage), both in ms with
 * microsecond resolution.
 *
 * Why not `perf stat` around the command (what bench_lib.sh's timed did
 * first): perf's own start and exit, about 10 ms of wall here, landed in
 * every wall time, the untraced program's too, which shrank every ratio.
 * This adds one fork and exec of a small program to both sides alike.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double ms_of(struct timeval tv) { return tv.tv_sec * 1e3 + tv.tv_usec / 1e3; }

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[2], "--")) {
        fprintf(stderr, "usage: bench_spawn_timer OUT -- PROGRAM [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_spawn_timer: fork");
        return 1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
            close(null);
        }
        execvp(argv[3], argv + 3);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("bench_spawn_timer: wait4");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    FILE *out = fopen(argv[1], "a");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    double wall = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
    fprintf(out, "%.3f %.3f\n", wall, ms_of(ru.ru_utime) + ms_of(ru.ru_stime));
    return fclose(out) != 0;
}

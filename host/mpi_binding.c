/**
 * \file mpi_binding.c
 * \brief The recorder's table for libofftrace-mpi.so (host/mpi/mpi_recorder.h).
 *
 * Why a lookup with dlsym(RTLD_DEFAULT) and no link: libofftrace.so stays
 * libc-only and MPI-free (a program without MPI must not load libmpi); a
 * traced MPI program has libofftrace-mpi.so preloaded (or linked before
 * libmpi), loaded before libomp starts its tool, so its attach function is
 * in the global scope here.
 *
 * Hot path (one record per MPI call, a few inside it): one record on the
 * thread's own stream, as every OMPT callback: no lock, no allocation. The
 * `raw/mpi.*` files are the slow path: one O_APPEND write of one buffer,
 * through session.c's rules (opened for that write, never on 0-2).
 */
#define _GNU_SOURCE
#include "mpi_binding.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "measurement.h"
#include "mpi/mpi_recorder.h"
#include "rank_clock.h"
#include "offtrace/raw_format.h"
#include "session.h"
#include "stream.h"

static int put(const offtrace_raw_record *r)
{
    if (!__atomic_load_n(&ot_recording, __ATOMIC_RELAXED) ||
        (r->endpoint != OFFTRACE_RAW_END && !ot_measurement_recording()))
        return 0;
    offtrace_raw_record *slot = ot_stream_reserve();
    ot_stream_store(slot, r);
    return 1;
}

static uint64_t ticks(void) { return ot_clock_ticks(); }

static uint64_t clock_ns(void) { return ot_rank_clock(ot_clock_monotonic_ns()); }

static void boot_id(char *buf, size_t size)
{
    if (!size)
        return;
    buf[0] = 0;
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, size - 1);
        buf[n > 0 ? n : 0] = 0;
        buf[strcspn(buf, "\n")] = 0;
        close(fd);
    }
    if (ot_rank_clock_skewed()) /* another machine, as far as the clocks go */
        strncat(buf, "-skewed", size - strlen(buf) - 1);
}

static int append(const char *file, const char *text, size_t len)
{
    int fd = ot_session_open_file(file, O_WRONLY | O_CREAT | O_APPEND, NULL);
    if (fd < 0)
        return -1;
    int rc = write(fd, text, len) == (ssize_t)len ? 0 : -1;
    close(fd);
    if (rc && ot_the_session.verbose > 1)
        fprintf(stderr, "offtrace: raw/%s not written\n", file);
    return rc;
}

static const ot_mpi_recorder table = {
    .abi = OT_MPI_RECORDER_ABI,
    .size = sizeof(ot_mpi_recorder),
    .ticks = ticks,
    .put = put,
    .clock_ns = clock_ns,
    .boot_id = boot_id,
    .append = append,
};

static ot_mpi_attach_fn attach_fn;

void ot_mpi_binding_attach(void)
{
    attach_fn = (ot_mpi_attach_fn)dlsym(RTLD_DEFAULT, OT_MPI_ATTACH_SYMBOL);
    if (attach_fn && attach_fn(&table) != OT_MPI_RECORDER_ABI && ot_the_session.verbose > 0)
        fprintf(stderr, "offtrace: libofftrace-mpi.so refused this recorder (another version); "
                        "MPI calls are not recorded\n");
}

void ot_mpi_binding_detach(void)
{
    if (attach_fn)
        attach_fn(NULL);
}

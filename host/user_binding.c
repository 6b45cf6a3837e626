/**
 * \file user_binding.c
 * \brief The recorder's table for libofftrace-user.so (user_recorder.h).
 *
 * Why a lookup with dlsym(RTLD_DEFAULT) and no link: the program links only
 * libofftrace-user.so, and an untraced run must not need libofftrace.so; a
 * traced one finds the API library's attach function already in the
 * process (it is a dependency of the program, loaded before libomp starts
 * its tool).
 *
 * Hot path (region/event begin/end, values): one record on the thread's own
 * stream, like every OMPT callback: no lock, no allocation. Definitions are
 * the slow path: the API library calls define() once per id under its own
 * registration lock, and each is one O_APPEND write of one buffer, through
 * session.c's rules (opened for that write, never on 0-2).
 */
#define _GNU_SOURCE
#include "user_binding.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../user/user_recorder.h"
#include "clock.h"
#include "filter_record.h"
#include "measurement.h"
#include "offtrace/raw_format.h"
#include "session.h"
#include "stream.h"

/* 1 when recorded. A filter (docs/filters.md) removes an id whole. While
 * measurement is off (host/measurement.h) no begin and no value is recorded, but every end is: a region begun while on is
 * recorded whole, and one begun while off not at all, since the API library
 * calls no end for a begin that was not recorded. (An event, which may end
 * on any thread, has no such stack: its end after a begin left out while
 * off is counted by the converter as an unmatched end.) */
static int put_user(uint8_t event, uint8_t endpoint, uint32_t id, uint64_t bytes)
{
    if (!__atomic_load_n(&ot_recording, __ATOMIC_RELAXED) ||
        (endpoint != OFFTRACE_RAW_END && !ot_measurement_recording()))
        return 0;
    if (__builtin_expect(ot_filter_user_removed[id], 0)) {
        /* Removed by the filter (filter_record.h), decided at the id's
         * definition. A region's begin returns 0, so its end never comes;
         * an event's end is removed with its begin, which alone is counted
         * (as is each value); only what would have been recorded counts. */
        if (endpoint != OFFTRACE_RAW_END)
            ot_filter_count_removed(event == OFFTRACE_RAW_USER_REGION  ? OFFTRACE_RAW_FILTERED_USER_REGION
                                    : event == OFFTRACE_RAW_USER_EVENT ? OFFTRACE_RAW_FILTERED_USER_EVENT
                                                                       : OFFTRACE_RAW_FILTERED_USER_VALUE);
        return 0;
    }
    uint64_t now = ot_clock_ticks();
    offtrace_raw_record *slot = ot_stream_reserve();
    offtrace_raw_record r = {
        .time = now,
        .id = id,
        .bytes = bytes,
        .endpoint = endpoint,
        .event = event,
    };
    ot_stream_store(slot, &r);
    return 1;
}

static int region_begin(uint32_t id) { return put_user(OFFTRACE_RAW_USER_REGION, OFFTRACE_RAW_BEGIN, id, 0); }
static void region_end(uint32_t id) { put_user(OFFTRACE_RAW_USER_REGION, OFFTRACE_RAW_END, id, 0); }
static void event_begin(uint32_t id) { put_user(OFFTRACE_RAW_USER_EVENT, OFFTRACE_RAW_BEGIN, id, 0); }
static void event_end(uint32_t id) { put_user(OFFTRACE_RAW_USER_EVENT, OFFTRACE_RAW_END, id, 0); }
static void value(uint32_t id, uint64_t bits) { put_user(OFFTRACE_RAW_USER_VALUE, OFFTRACE_RAW_BEGIN, id, bits); }

/* "<id> <kind> <line> <name bytes> <file bytes> <name><file>\n", one write. */
static void define(uint32_t id, uint32_t kind, const char *name, const char *file, uint32_t line)
{
    ot_filter_record_define_user(id, name, file, line);
    size_t name_len = name ? strnlen(name, OFFTRACE_RAW_USER_NAME_MAX) : 0;
    size_t file_len = file ? strnlen(file, OFFTRACE_RAW_USER_NAME_MAX) : 0;
    char buf[64 + 2 * OFFTRACE_RAW_USER_NAME_MAX + 1];
    int n = snprintf(buf, 64, "%u %u %u %zu %zu ", id, kind, line, name_len, file_len);
    if (n <= 0 || n >= 64)
        return;
    if (name_len)
        memcpy(buf + n, name, name_len);
    if (file_len)
        memcpy(buf + n + name_len, file, file_len);
    size_t len = (size_t)n + name_len + file_len;
    buf[len++] = '\n';
    int fd = ot_session_open_file(OFFTRACE_RAW_USER_DEFS, O_WRONLY | O_CREAT | O_APPEND, NULL);
    if (fd < 0)
        return;
    if (write(fd, buf, len) != (ssize_t)len && ot_the_session.verbose > 1)
        fprintf(stderr, "offtrace: user definition %u not written\n", id);
    close(fd);
}

static const ot_user_recorder table = {
    .abi = OT_USER_RECORDER_ABI,
    .size = sizeof(ot_user_recorder),
    .define = define,
    .region_begin = region_begin,
    .region_end = region_end,
    .event_begin = event_begin,
    .event_end = event_end,
    .value = value,
    .measurement_set = ot_measurement_set,
    .measurement_is_on = ot_measurement_is_on,
    .measurement_flush = ot_measurement_flush,
};

static ot_user_attach_fn attach_fn;

void ot_user_binding_attach(void)
{
    attach_fn = (ot_user_attach_fn)dlsym(RTLD_DEFAULT, OT_USER_ATTACH_SYMBOL);
    if (attach_fn && attach_fn(&table) != OT_USER_RECORDER_ABI && ot_the_session.verbose > 0)
        fprintf(stderr, "offtrace: libofftrace-user.so refused this recorder (another version); "
                        "user regions are not recorded\n");
}

/* The API library's count of refused calls, so that the archive says what the
 * program's mistakes dropped (the API library told each kind once on stderr). */
static void leave_dropped_count(void)
{
    uint64_t (*dropped_fn)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, OT_USER_DROPPED_SYMBOL);
    uint64_t dropped = dropped_fn ? dropped_fn() : 0;
    if (!dropped)
        return;
    char line[32];
    int n = snprintf(line, sizeof line, "%llu\n", (unsigned long long)dropped);
    int fd = ot_session_open_file(OT_USER_DROPPED_FILE, O_WRONLY | O_CREAT | O_TRUNC, NULL);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n && ot_the_session.verbose > 1)
        fprintf(stderr, "offtrace: the user API's dropped count not written\n");
    close(fd);
}

void ot_user_binding_detach(void)
{
    if (attach_fn) {
        attach_fn(NULL);
        leave_dropped_count();
    }
}

/*
 * The host recorder's way of writing operations, driven through its real
 * OMPT callbacks (libofftrace.so loaded as the runtime loads it, callbacks
 * called in orders the runtime may use), then read back from the archive:
 *  - an operation is one COMPLETE record, its begin pending in the stream
 *    header meanwhile; an operation begun inside another pushes the outer
 *    one's begin into the stream; both show, nested, with their bytes;
 *  - a thread that dies inside an operation leaves its begin pending: the
 *    converter shows the operation, unfinished;
 *  - a pending begin whose COMPLETE record was written (death between the
 *    two stores) is not shown twice;
 *  - a full disk loses records, counted and marked, and never crashes;
 *  - the initial thread's begin gives it the first stream with the first
 *    quarter of its first chunk in memory (the kernel's mincore says so)
 *    and nothing read around it; its records then go into that stream;
 *  - the chunks a thread filled do not stay mapped (the kernel's
 *    /proc/self/maps says so), although the preparer unmaps them later.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <omp-tools.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/run.h"
#include "offtrace/raw_format.h"

typedef ompt_start_tool_result_t *(*start_tool_fn)(unsigned int omp_version, const char *runtime_version);

static ompt_callback_target_emi_t target_cb;
static ompt_callback_target_data_op_emi_t data_op_cb;
static ompt_callback_target_submit_emi_t submit_cb;
static ompt_callback_device_initialize_t device_init_cb;
static ompt_callback_thread_begin_t thread_begin_cb;
static ompt_start_tool_result_t *tool;

static ompt_set_result_t keep_callback(ompt_callbacks_t event, ompt_callback_t fn)
{
    if (event == ompt_callback_target_emi)
        target_cb = (ompt_callback_target_emi_t)fn;
    else if (event == ompt_callback_target_data_op_emi)
        data_op_cb = (ompt_callback_target_data_op_emi_t)fn;
    else if (event == ompt_callback_target_submit_emi)
        submit_cb = (ompt_callback_target_submit_emi_t)fn;
    else if (event == ompt_callback_device_initialize)
        device_init_cb = (ompt_callback_device_initialize_t)fn;
    else if (event == ompt_callback_thread_begin)
        thread_begin_cb = (ompt_callback_thread_begin_t)fn;
    return ompt_set_always;
}

static ompt_interface_fn_t lookup(const char *name)
{
    return strcmp(name, "ompt_set_callback") == 0 ? (ompt_interface_fn_t)keep_callback : NULL;
}

#define HOST 1   /* the initial device's number, as LLVM gives it with one device */
#define DEVICE 0

/* Load the library into this process as a tool recording into \p dir,
 * with one generic-64bit device; \p settle_us between the tool's start and
 * its initialisation (the runtime's own start-up in a real program). */
static void start_recorder_after(const char *dir, unsigned settle_us)
{
    setenv("OFFTRACE_OUTPUT", dir, 1);
    setenv("OFFTRACE_VERBOSE", "0", 1);
    setenv("OFFTRACE_KEEP_RAW", "1", 1);
    char lib[4096];
    snprintf(lib, sizeof lib, "%s/libofftrace.so", OFFTRACE_LIB_DIR);
    void *h = dlopen(lib, RTLD_NOW);
    cr_assert_not_null(h, "%s", dlerror());
    start_tool_fn start = (start_tool_fn)dlsym(h, "ompt_start_tool");
    cr_assert_not_null(start);
    tool = start(201811, "test_recorder");
    cr_assert_not_null(tool);
    if (settle_us)
        usleep(settle_us);
    static ompt_data_t tool_data;
    cr_assert(tool->initialize(lookup, HOST, &tool_data));
    cr_assert(target_cb && data_op_cb && submit_cb && device_init_cb);
    device_init_cb(DEVICE, "generic-64bit", NULL, lookup, NULL);
}

static void start_recorder(const char *dir)
{
    start_recorder_after(dir, 0);
}

static char host_buffer[4096], device_buffer[4096];

static void data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target, ompt_id_t *op,
                    ompt_target_data_op_t kind, size_t bytes)
{
    static ompt_data_t task;
    int to_device = kind != ompt_target_data_transfer_from_device;
    data_op_cb(endpoint, &task, target, op, kind, to_device ? host_buffer : device_buffer,
               to_device ? HOST : DEVICE, to_device ? device_buffer : host_buffer, to_device ? DEVICE : HOST, bytes,
               (void *)start_recorder);
}

static void target(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data)
{
    static ompt_data_t task, target_task;
    target_cb(ompt_target, endpoint, DEVICE, &task, &target_task, target_data, (void *)start_recorder);
}

static void check_archive(const char *dir, archive_facts *f)
{
    cr_assert_eq(archive_check(dir, f), 0, "cannot read %s", dir);
    cr_assert_eq(archive_violations(f), 0, "%s", f->first_problem);
}

Test(recorder, operations_nested_in_operations_keep_their_order_and_bytes)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "recorder-nested");
    start_recorder(dir);
    ompt_data_t t = {0};
    ompt_id_t outer = 0, inner = 0, back = 0, kernel = 0;
    target(ompt_scope_begin, &t);
    data_op(ompt_scope_begin, &t, &outer, ompt_target_data_transfer_to_device, 100);
    data_op(ompt_scope_begin, &t, &inner, ompt_target_data_transfer_to_device, 7); /* pushes outer out */
    data_op(ompt_scope_end, &t, &inner, ompt_target_data_transfer_to_device, 7);
    data_op(ompt_scope_end, &t, &outer, ompt_target_data_transfer_to_device, 100);
    submit_cb(ompt_scope_begin, &t, &kernel, 1);
    submit_cb(ompt_scope_end, &t, &kernel, 1);
    data_op(ompt_scope_begin, &t, &back, ompt_target_data_transfer_from_device, 64);
    data_op(ompt_scope_end, &t, &back, ompt_target_data_transfer_from_device, 64);
    target(ompt_scope_end, &t);
    cr_assert_neq(outer, inner);
    tool->finalize(NULL);

    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.target, 1);
    cr_assert_eq(f.kernels, 1);
    cr_assert_eq(f.puts, 2);
    cr_assert_eq(f.put_bytes, 107);
    cr_assert_eq(f.gets, 1);
    cr_assert_eq(f.get_bytes, 64);
    uint64_t unfinished = 1, unmatched = 1;
    cr_assert_eq(archive_property(dir, "OFFTRACE::UNFINISHED_OPERATIONS", &unfinished), 0);
    cr_assert_eq(archive_property(dir, "OFFTRACE::UNMATCHED_END_RECORDS", &unmatched), 0);
    cr_assert_eq(unfinished, 0);
    cr_assert_eq(unmatched, 0);
}

/* The raw stream of the only thread: its header (for `pending`) and how
 * many records of each endpoint it holds. */
static void read_raw_stream(const char *dir, offtrace_raw_stream_header *h, unsigned counts[4])
{
    char path[4400];
    snprintf(path, sizeof path, "%s/raw/thread-0.rec", dir);
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    cr_assert_eq(pread(fd, h, sizeof *h, 0), (ssize_t)sizeof *h);
    offtrace_raw_record r;
    memset(counts, 0, 4 * sizeof *counts);
    for (off_t at = OFFTRACE_RAW_HEADER_SIZE; pread(fd, &r, sizeof r, at) == (ssize_t)sizeof r && r.event;
         at += sizeof r)
        counts[r.endpoint & 3]++;
    close(fd);
}

Test(recorder, one_record_per_operation_and_two_per_construct)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "recorder-records");
    start_recorder(dir);
    ompt_data_t t = {0};
    ompt_id_t op = 0, kernel = 0;
    target(ompt_scope_begin, &t);
    data_op(ompt_scope_begin, &t, &op, ompt_target_data_alloc, 64);
    data_op(ompt_scope_end, &t, &op, ompt_target_data_alloc, 64);
    data_op(ompt_scope_begin, &t, &op, ompt_target_data_transfer_to_device, 64);
    data_op(ompt_scope_end, &t, &op, ompt_target_data_transfer_to_device, 64);
    submit_cb(ompt_scope_begin, &t, &kernel, 1);
    submit_cb(ompt_scope_end, &t, &kernel, 1);
    target(ompt_scope_end, &t);
    offtrace_raw_stream_header h;
    unsigned counts[4];
    read_raw_stream(dir, &h, counts);
    cr_assert_eq(counts[OFFTRACE_RAW_BEGIN], 1, "target begin only"); /* SYNC records have endpoint 0 */
    cr_assert_eq(counts[OFFTRACE_RAW_END], 1);
    cr_assert_eq(counts[OFFTRACE_RAW_COMPLETE], 3);
    cr_assert_eq(h.pending.event, OFFTRACE_RAW_NONE);
}

/* A child records, then dies with _exit where the test says; the parent
 * converts what it left, as `offtrace record` does after a crash. */
enum death { DIE_INSIDE_OPERATION, DIE_BEFORE_EMPTYING_PENDING };

static void record_and_die(const char *dir, enum death when)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        start_recorder(dir);
        ompt_data_t t = {0};
        ompt_id_t op = 0;
        target(ompt_scope_begin, &t);
        data_op(ompt_scope_begin, &t, &op, ompt_target_data_transfer_to_device, 512);
        if (when == DIE_BEFORE_EMPTYING_PENDING) {
            data_op(ompt_scope_end, &t, &op, ompt_target_data_transfer_to_device, 512);
            /* Put the begin back, as if death came between the two stores. */
            char path[4400];
            snprintf(path, sizeof path, "%s/raw/thread-0.rec", dir);
            int fd = open(path, O_RDWR);
            offtrace_raw_record pending = {.time = 1, .id = op, .bytes = 512, .endpoint = OFFTRACE_RAW_BEGIN,
                                           .event = OFFTRACE_RAW_DATA_OP};
            if (fd < 0 || pwrite(fd, &pending, sizeof pending, offsetof(offtrace_raw_stream_header, pending)) !=
                              (ssize_t)sizeof pending)
                _exit(3);
        }
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    char cli[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    char *argv[] = {cli, "convert", "--reason", "test: died", (char *)dir, NULL};
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 2);
        execv(cli, argv);
        _exit(127);
    }
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "offtrace convert: status %d", status);
}

Test(recorder, a_thread_that_dies_inside_an_operation_leaves_it_unfinished)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "recorder-dies-inside");
    record_and_die(dir, DIE_INSIDE_OPERATION);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(f.puts, 1);
    cr_assert_eq(f.put_bytes, 512);
    cr_assert_eq(f.target, 1);
    uint64_t unfinished = 0;
    cr_assert_eq(archive_property(dir, "OFFTRACE::UNFINISHED_OPERATIONS", &unfinished), 0);
    cr_assert_eq(unfinished, 2, "the transfer and its target construct");
}

/* The tick rate comes from two clock pairs a millisecond or more apart,
 * taken before the first record (no longer by waiting at start-up): a
 * program that dies right after its first record still has them. */
Test(recorder, a_program_that_dies_after_its_first_record_leaves_the_tick_rate)
{
    char dir[4096], path[4200];
    scratch_path(dir, sizeof dir, "recorder-rate-pair");
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        start_recorder(dir); /* initialize at once, unlike the runtime's own start-up */
        ompt_data_t t = {0};
        target(ompt_scope_begin, &t);
        _exit(0);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    snprintf(path, sizeof path, "%s/raw/clock.pairs", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    unsigned long long ticks, ns, realtime, first_ticks = 0, first_ns = 0, last_ticks = 0, last_ns = 0;
    unsigned pairs = 0;
    while (fscanf(f, "%llu %llu %llu", &ticks, &ns, &realtime) == 3) {
        if (!pairs++) {
            first_ticks = ticks;
            first_ns = ns;
        }
        last_ticks = ticks;
        last_ns = ns;
    }
    fclose(f);
    cr_assert_geq(pairs, 2, "one clock pair: no tick rate");
    cr_expect_geq(last_ns - first_ns, 1000000, "pairs %llu ns apart", last_ns - first_ns);
    cr_expect_gt(last_ticks, first_ticks);
}

Test(recorder, a_pending_begin_already_written_out_is_not_shown_twice)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "recorder-dies-between");
    record_and_die(dir, DIE_BEFORE_EMPTYING_PENDING);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(f.puts, 1);
    cr_assert_eq(f.put_bytes, 512);
    uint64_t unfinished = 0;
    cr_assert_eq(archive_property(dir, "OFFTRACE::UNFINISHED_OPERATIONS", &unfinished), 0);
    cr_assert_eq(unfinished, 1, "only the target construct");
}

/* Records written into a directory on a 2 MiB tmpfs that a ballast file
 * mostly fills: chunks cannot be had, so records are lost (no SIGBUS, no
 * crash); once the ballast is gone recording resumes. Every operation is
 * either in the archive or counted lost, and the gap is marked. Needs root
 * for the private tmpfs (the CI machine runs the suite as root). */
static int private_small_tmpfs(const char *dir)
{
    if (unshare(CLONE_NEWNS) != 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -1;
    mkdir(dir, 0777);
    return mount("tmpfs", dir, "tmpfs", 0, "size=2m");
}

static unsigned count_in_print(const char *dir, const char *text)
{
    char cmd[4400], line[1024];
    snprintf(cmd, sizeof cmd, "otf2-print '%s/traces.otf2' 2>/dev/null", dir);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    unsigned n = 0;
    while (fgets(line, sizeof line, f))
        n += strncmp(line, "ENTER", 5) == 0 && strstr(line, text) != NULL;
    pclose(f);
    return n;
}

/* Start recording into <private 2 MiB tmpfs>/trace, 1.5 MiB of it taken
 * by \p ballast (removing it makes room again), with 64 KiB chunks. */
static void record_on_a_nearly_full_disk(const char *name, char dir[4200], char ballast[4200])
{
    char mnt[4096];
    scratch_path(mnt, sizeof mnt, name);
    if (private_small_tmpfs(mnt) != 0)
        cr_skip_test("cannot mount a private tmpfs here (not root?)");
    snprintf(ballast, 4200, "%s/ballast", mnt);
    int fd = open(ballast, O_WRONLY | O_CREAT, 0644);
    cr_assert_eq(posix_fallocate(fd, 0, 1536 << 10), 0);
    close(fd);
    snprintf(dir, 4200, "%s/trace", mnt);
    setenv("OFFTRACE_BUFFER_SIZE", "64K", 1);
    start_recorder(dir);
    unsetenv("OFFTRACE_KEEP_RAW");
}

Test(recorder, a_full_disk_loses_records_counted_and_marked_without_a_crash)
{
    char dir[4200], ballast[4200];
    record_on_a_nearly_full_disk("recorder-full-disk", dir, ballast);
    enum { BEFORE = 20000, AFTER = 100 }; /* 1.3 MB of records against about 0.4 MB free */
    ompt_id_t op = 0;
    for (int i = 0; i < BEFORE; i++) {
        data_op(ompt_scope_begin, NULL, &op, ompt_target_data_transfer_to_device, 8);
        data_op(ompt_scope_end, NULL, &op, ompt_target_data_transfer_to_device, 8);
    }
    cr_assert_eq(unlink(ballast), 0);
    for (int i = 0; i < AFTER; i++) {
        data_op(ompt_scope_begin, NULL, &op, ompt_target_data_transfer_to_device, 8);
        data_op(ompt_scope_end, NULL, &op, ompt_target_data_transfer_to_device, 8);
    }
    tool->finalize(NULL);

    archive_facts f;
    check_archive(dir, &f);
    uint64_t lost = 0;
    cr_assert_eq(archive_property(dir, "OFFTRACE::LOST_RECORDS", &lost), 0);
    cr_assert_gt(lost, 0, "the disk was not full enough to test anything");
    cr_assert_gt(f.puts, AFTER, "recording did not resume");
    cr_assert_eq(f.puts + lost, BEFORE + AFTER, "%llu in the archive, %llu lost",
                 (unsigned long long)f.puts, (unsigned long long)lost);
    cr_assert_eq(f.put_bytes, 8 * f.puts);
    cr_assert_eq(count_in_print(dir, "offtrace: records lost"), 1);
}

/* The disk is still full when the archive is written at exit: no broken
 * archive is left, the raw recording is kept, and `offtrace convert`
 * writes the archive once there is room, with nothing uncounted. */
Test(recorder, an_archive_that_cannot_be_written_leaves_the_recording_for_later)
{
    char dir[4200], ballast[4200], anchor[4300], raw[4300];
    record_on_a_nearly_full_disk("recorder-full-at-exit", dir, ballast);
    enum { OPS = 20000 };
    ompt_id_t op = 0;
    for (int i = 0; i < OPS; i++) {
        data_op(ompt_scope_begin, NULL, &op, ompt_target_data_transfer_from_device, 4);
        data_op(ompt_scope_end, NULL, &op, ompt_target_data_transfer_from_device, 4);
    }
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2); /* the failure is said on stderr; the test checks what it leaves */
    tool->finalize(NULL);
    dup2(saved, 2);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    snprintf(raw, sizeof raw, "%s/raw/thread-0.rec", dir);
    cr_assert_neq(access(anchor, F_OK), 0, "a broken archive was left behind");
    cr_assert_eq(access(raw, F_OK), 0, "the recording was not kept");

    cr_assert_eq(unlink(ballast), 0);
    char cli[4096];
    snprintf(cli, sizeof cli, "%s/offtrace", OFFTRACE_BIN_DIR);
    char *argv[] = {cli, "convert", (char *)dir, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        dup2(null, 2);
        execv(cli, argv);
        _exit(127);
    }
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "offtrace convert: status %d", status);
    archive_facts f;
    check_archive(dir, &f);
    uint64_t lost = 0;
    cr_assert_eq(archive_property(dir, "OFFTRACE::LOST_RECORDS", &lost), 0);
    cr_assert_eq(f.gets + lost, OPS, "%llu in the archive, %llu lost", (unsigned long long)f.gets,
                 (unsigned long long)lost);
}

/* Pages of the file's [offset, offset + bytes) in the page cache, by the
 * kernel's account (mincore on a mapping of our own, which faults nothing in). */
static unsigned resident_pages(const char *path, off_t offset, size_t bytes)
{
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    void *p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, offset);
    cr_assert_neq(p, MAP_FAILED);
    close(fd);
    unsigned char pages[4096];
    size_t n = bytes / 4096;
    cr_assert_leq(n, sizeof pages);
    cr_assert_eq(mincore(p, bytes, pages), 0);
    unsigned resident = 0;
    for (size_t i = 0; i < n; i++)
        resident += pages[i] & 1;
    munmap(p, bytes);
    return resident;
}

/* \p n target regions, each one 8-byte copy to the device. */
static void upload_regions(unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        ompt_data_t t = {0};
        ompt_id_t op = 0;
        target(ompt_scope_begin, &t);
        data_op(ompt_scope_begin, &t, &op, ompt_target_data_transfer_to_device, 8);
        data_op(ompt_scope_end, &t, &op, ompt_target_data_transfer_to_device, 8);
        target(ompt_scope_end, &t);
    }
}

/* The tool finalized and its archive in \p dir checked: \p n regions
 * of upload_regions, each with its put and bytes. */
static archive_facts finalize_with_uploads(const char *dir, unsigned n)
{
    tool->finalize(NULL);
    archive_facts f;
    check_archive(dir, &f);
    cr_assert_eq(f.target, n);
    cr_assert_eq(f.puts, n);
    cr_assert_eq(f.put_bytes, 8ull * n);
    return f;
}

/* The initial thread's begin, once the tick rate's pair is taken (the
 * runtime's start-up took over a millisecond), makes the first stream and
 * its first chunk, the chunk's first quarter populated and the rest not read
 * in; the thread's records then go into that stream, all of them in the
 * archive, on one location. */
Test(recorder, the_initial_thread_begins_with_a_quarter_of_its_first_chunk_in_memory)
{
    char dir[4096], path[4400];
    scratch_path(dir, sizeof dir, "recorder-first-chunk");
    setenv("OFFTRACE_BUFFER_SIZE", "1048576", 1);
    start_recorder_after(dir, 2000);
    unsetenv("OFFTRACE_BUFFER_SIZE");
    cr_assert_not_null(thread_begin_cb, "the tool registers no thread_begin");
    static ompt_data_t thread_data;
    thread_begin_cb(ompt_thread_initial, &thread_data);
    snprintf(path, sizeof path, "%s/raw/thread-0.rec", dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "no stream before the first record: %s", path);
    cr_assert_eq(st.st_size, OFFTRACE_RAW_HEADER_SIZE + (1 << 20), "%lld bytes", (long long)st.st_size);
    unsigned quarter = (1 << 20) / 4 / 4096;
    cr_assert_eq(resident_pages(path, OFFTRACE_RAW_HEADER_SIZE, (1 << 20) / 4), quarter);
    cr_assert_eq(resident_pages(path, OFFTRACE_RAW_HEADER_SIZE + (1 << 20) / 4, 3 * (1 << 20) / 4), 0,
                 "the rest of the chunk was read around the populated quarter");
    enum { REGIONS = 100 };
    upload_regions(REGIONS);
    archive_facts f = finalize_with_uploads(dir, REGIONS);
    cr_assert_eq(f.host_threads, 1);
}

/* Mappings in this process of the stream files under \p dir/raw. */
static unsigned stream_mappings(const char *dir)
{
    char raw[4200], line[8192];
    snprintf(raw, sizeof raw, "%s/raw/thread-", dir);
    FILE *maps = fopen("/proc/self/maps", "r");
    cr_assert_not_null(maps);
    unsigned n = 0;
    while (fgets(line, sizeof line, maps))
        n += strstr(line, raw) != NULL;
    fclose(maps);
    return n;
}

/* A thread that fills chunk after chunk hands each filled one to the
 * preparer thread to unmap (the kernel's 0.2 ms per chunk off the
 * program's path: issue 18, tenth round). They must not pile up: once the
 * preparer has caught up, only the stream's header, its chunk and the one
 * prepared next stay mapped, and every record is in the archive. */
Test(recorder, filled_chunks_do_not_stay_mapped)
{
    char dir[4096], path[4400];
    scratch_path(dir, sizeof dir, "recorder-filled-chunks");
    setenv("OFFTRACE_BUFFER_SIZE", "65536", 1);
    start_recorder(dir);
    unsetenv("OFFTRACE_BUFFER_SIZE");
    enum { REGIONS = 30000 }; /* 3 records each: 90,000 records, 1,024 to a chunk */
    upload_regions(REGIONS);
    snprintf(path, sizeof path, "%s/raw/thread-0.rec", dir);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s", path);
    cr_assert_gt(st.st_size, 80 * 65536, "only %lld bytes of stream: too few chunks filled", (long long)st.st_size);
    unsigned mapped = stream_mappings(dir);
    for (int i = 0; i < 500 && mapped > 3; i++) { /* the preparer catches up within 5 s even on a loaded machine */
        usleep(10000);
        mapped = stream_mappings(dir);
    }
    cr_assert_leq(mapped, 3, "%u mappings of the stream files remain", mapped);
    finalize_with_uploads(dir, REGIONS);
}

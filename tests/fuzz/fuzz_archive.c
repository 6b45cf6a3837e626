/*
 * libFuzzer target: a real offtrace archive with one of its files damaged,
 * read by the analysis verbs' reader (ot_trace_read, with a visitor that
 * looks at everything it is handed) and by the summary of `offtrace info`
 * and `record` (ot_summary_read). Besides crashes, it fails when OTF2
 * reports an error that a reader let through to OTF2's printing.
 *
 * The template is the archive in OT_FUZZ_ARCHIVE_DIR (a recording of
 * example_two_devices), copied once into a private directory. The input is
 * files of it (fuzz_parts.h: "traces.otf2", "traces.def", "traces/<id>.evt",
 * ...) that replace the template's; parts naming no file of the template
 * are skipped. The replaced files are put back after each input.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_parts.h"
#include "summary.h"
#include "trace_read.h"

#ifndef OT_FUZZ_ARCHIVE_DIR
#error "OT_FUZZ_ARCHIVE_DIR: the template archive"
#endif

#define MAX_FILES 64

typedef struct archive_file {
    char path[64];     /* relative to the archive directory */
    uint8_t *original;
    size_t size;
    int replaced;      /* by the input in progress */
} archive_file;

static archive_file files[MAX_FILES];
static size_t file_count;
static char work_dir[256];
static FILE *nowhere; /* ot_summary_print's output */

static void die(const char *what)
{
    perror(what);
    abort(); /* the harness's own failure: stop rather than fuzz nothing */
}

static uint8_t *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    if (!data || (n > 0 && fread(data, (size_t)n, 1, f) != 1))
        die(path);
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void write_whole(const char *relative, const uint8_t *data, size_t size)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", work_dir, relative);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        die(path);
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n <= 0)
            die(path);
        data += n;
        size -= (size_t)n;
    }
    close(fd);
}

static void add_file(const char *relative)
{
    if (file_count == MAX_FILES)
        return;
    char path[400];
    snprintf(path, sizeof path, "%s/%s", OT_FUZZ_ARCHIVE_DIR, relative);
    archive_file *f = &files[file_count++];
    snprintf(f->path, sizeof f->path, "%s", relative);
    f->original = read_whole(path, &f->size);
}

static void load_template(void)
{
    add_file("traces.otf2");
    add_file("traces.def");
    DIR *d = opendir(OT_FUZZ_ARCHIVE_DIR "/traces");
    if (!d)
        die(OT_FUZZ_ARCHIVE_DIR "/traces");
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            char relative[300];
            snprintf(relative, sizeof relative, "traces/%s", e->d_name);
            add_file(relative);
        }
    closedir(d);
}

static archive_file *file_named(const char *path)
{
    for (size_t i = 0; i < file_count; i++)
        if (!strcmp(files[i].path, path))
            return &files[i];
    return NULL;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void remove_work_dir(void)
{
    nftw(work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* The readers silence OTF2's error printing while they call it (the CLI
 * says one line of its own): an error that reaches this handler would
 * have been printed on the user's terminal. */
static OTF2_ErrorCode error_outside_reader(void *user, const char *file, uint64_t line, const char *function,
                                           OTF2_ErrorCode code, const char *format, va_list va)
{
    fprintf(stderr, "fuzz_archive: OTF2 reported an error that no reader silenced (%s:%llu): ", file,
            (unsigned long long)line);
    vfprintf(stderr, format, va);
    fputc('\n', stderr);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(work_dir, sizeof work_dir, "%s/offtrace-fuzz-archive-%d", tmp && *tmp ? tmp : "/tmp",
             (int)getpid());
    load_template();
    remove_work_dir();
    char traces[300];
    snprintf(traces, sizeof traces, "%s/traces", work_dir);
    if (mkdir(work_dir, 0700) != 0 || mkdir(traces, 0700) != 0)
        die(work_dir);
    for (size_t i = 0; i < file_count; i++)
        write_whole(files[i].path, files[i].original, files[i].size);
    nowhere = fopen("/dev/null", "we");
    if (!nowhere)
        die("/dev/null");
    OTF2_Error_RegisterCallback(error_outside_reader, NULL);
    atexit(remove_work_dir);
    return 0;
}

/* ---- a visitor that looks at everything the reader hands out ---- */

static volatile size_t sink; /* keeps the reads from being optimised away */

static void look_at_location(const ot_tr_location *l)
{
    sink += strlen(l->name) + strlen(l->group) + (size_t)l->klass + (size_t)l->device + l->index + l->events;
}

static void look_at_region(const ot_tr_region *r)
{
    sink += strlen(r->name) + strlen(r->site) + strlen(r->file) + r->line + (size_t)r->klass + (size_t)r->construct +
            (size_t)r->op + (size_t)r->nowait;
}

static const ot_tr_archive *reading; /* the archive of the read in progress */

static int begin(void *user, const ot_tr_archive *a)
{
    reading = a;
    for (size_t i = 0; i < ot_tr_location_count(a); i++)
        look_at_location(ot_tr_location_at(a, i));
    for (size_t i = 0; i < ot_tr_region_count(a); i++) {
        const ot_tr_region *r = ot_tr_region_at(a, i);
        if (r)
            look_at_region(r);
    }
    static const char *properties[] = {"OFFTRACE::LOST_RECORDS", "OFFTRACE::PARTIAL", "OFFTRACE::DEVICE_RECORDS",
                                       "OFFTRACE::NO_SUCH_PROPERTY"};
    for (size_t i = 0; i < sizeof properties / sizeof *properties; i++) {
        const char *value = ot_tr_property(a, properties[i]);
        sink += value ? strlen(value) : 0;
    }
    sink += strlen(ot_tr_creator(a)) + (size_t)ot_tr_device_count(a) + (size_t)ot_tr_max_device(a) +
            ot_tr_first_time(a) + ot_tr_duration(a) + ot_tr_realtime(a);
    return 0;
}

static void look_at_transfer(const ot_tr_transfer *x)
{
    sink += (size_t)x->device + x->bytes + x->id + x->host_address + x->device_address + x->issued + x->completed;
}

/* The span, and every instance open around it on its location. */
static int span_event(void *user, const ot_tr_location *loc, const ot_tr_span *span)
{
    const ot_tr_archive *a = reading;
    look_at_location(loc);
    look_at_region(span->region);
    sink += span->begin + span->end + span->depth + span->serial + span->bytes + (size_t)span->unfinished;
    if (span->transfers)
        look_at_transfer(&span->last);
    for (uint32_t d = 0; d < ot_tr_open_count(a, loc); d++)
        look_at_region(ot_tr_open_span(a, loc, d)->region);
    return 0;
}

static int transfer(void *user, const ot_tr_location *loc, const ot_tr_transfer *x)
{
    look_at_location(loc);
    look_at_transfer(x);
    return 0;
}

static int memory(void *user, const ot_tr_location *loc, uint64_t time, uint64_t bytes)
{
    look_at_location(loc);
    return 0;
}

/* An MPI message (issue 16): both sides' locations and calls, whichever are there. */
static int message(void *user, const ot_tr_message *m)
{
    if (m->sender)
        look_at_location(m->sender);
    if (m->receiver)
        look_at_location(m->receiver);
    if (m->send_call)
        look_at_region(m->send_call);
    if (m->recv_call)
        look_at_region(m->recv_call);
    sink += m->send_rank + m->recv_rank + m->bytes + m->recv_bytes + m->send_time + m->recv_time + m->recv_posted +
            m->send_call_end + m->recv_call_end + strlen(ot_tr_comm_name(reading, m->comm));
    return 0;
}

static int collective(void *user, const ot_tr_location *loc, const ot_tr_collective *c)
{
    look_at_location(loc);
    if (c->call)
        look_at_region(c->call);
    sink += strlen(c->op_name) + c->size + c->root_rank + c->sent + c->received + c->begin + c->end;
    return 0;
}

static int end(void *user, const ot_tr_archive *a)
{
    sink += ot_tr_events(a) + ot_tr_last_time(a) + ot_tr_unmatched_completions(a) + ot_tr_regions_too_deep(a) +
            ot_tr_unknown_events(a) + ot_tr_accelerator_groups(a) + ot_tr_clock_resolution(a) +
            ot_tr_unmatched_messages(a) + ot_tr_clock_violations(a);
    return 0;
}

static const ot_tr_visitor visitor = {.begin = begin, .enter = span_event, .leave = span_event, .issue = transfer,
                                      .transfer = transfer, .memory = memory, .message = message,
                                      .collective = collective, .end = end};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ot_fuzz_part part;
    while (ot_fuzz_next_part(&data, &size, &part)) {
        archive_file *f = file_named(part.name);
        if (f) {
            write_whole(f->path, part.data, part.size);
            f->replaced = 1;
        }
    }

    char err[512];
    ot_trace_read(work_dir, &visitor, NULL, err, sizeof err);
    ot_summary summary;
    if (ot_summary_read(work_dir, &summary, err, sizeof err) == 0)
        ot_summary_print(&summary, work_dir, nowhere);

    for (size_t i = 0; i < file_count; i++)
        if (files[i].replaced) {
            write_whole(files[i].path, files[i].original, files[i].size);
            files[i].replaced = 0;
        }
    return 0;
}

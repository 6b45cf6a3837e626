/*
 * MPI recording (issue 16 part 3a, docs/mpi.md): the MPI examples run under
 * mpirun with one `offtrace record` per rank, which preloads
 * libofftrace-mpi.so because the program loads libmpi. Each rank's raw records are read back with the converter's
 * raw reader and compared with two counts offtrace has no part in: the
 * MPICOUNT line the program prints (what it asked MPI to do) and the
 * MPICOUNTER line of libmpi_counter.so, a PMPI layer preloaded into an
 * untraced run of the same program. Each rank's archive must be valid
 * (otf2-print -Werror) with one region per MPI function, and the program's
 * output and exit status must be the untraced run's.
 *
 * Every mpirun is bounded (timeout 60, mpirun --timeout 50); durations are
 * never asserted (two cores, up to four ranks).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/archive_check.h"
#include "check/otf2_rules.h"
#include "check/mpi_run.h"
#include "check/run.h"
#include "offtrace/mpi_calls.h"
#include "offtrace/raw_format.h"
#include "raw_reader.h"

#define MAX_RANKS 4
#define MPI_LIB OFFTRACE_LIB_DIR "/libofftrace-mpi.so"
#define COUNTER_LIB OFFTRACE_LIB_DIR "/libmpi_counter.so"

/* What the raw records of one rank hold beyond the counts. */
typedef struct raw_rank {
    mpi_rank_count n;
    unsigned calls[OFFTRACE_MPI_CALL_COUNT]; /* MPI_CALL regions by call number */
    unsigned call_begins, call_ends;
    unsigned requests_started, requests_done, requests_tested, requests_done_twice;
    unsigned comms_made, comms_freed, world;
    uint64_t split_id;
    unsigned clocks;
    unsigned unknown_comm; /* messages and collectives on an id never made */
    unsigned regions, other_records; /* MPI calls (BEGIN or COMPLETE); MPI records of the other kinds */
    unsigned done_elsewhere; /* requests completed on another thread than the one that started them */
} raw_rank;

/* `mpirun -np N sh -c SCRIPT` with \p env added (check/mpi_run.h). */
static void mpirun(int np, const char *script, char *const env[], run_result *r)
{
    char *args[] = {"sh", "-c", (char *)script, NULL};
    cr_assert_eq(run_mpirun(np, args, env, r), 0, "mpirun could not be run");
}

static void traced_run(int np, const char *example, const char *args, const char *dir, char *const extra_env[],
                       run_result *r)
{
    char script[2048];
    snprintf(script, sizeof script,
             "exec %s/offtrace record -o %s -- %s/%s %s", OFFTRACE_BIN_DIR, dir,
             OFFTRACE_BIN_DIR, example, args);
    char *env[8] = {"OFFTRACE_KEEP_RAW=1"}; /* record preloads the wrappers: the program loads libmpi */
    for (int i = 0; extra_env && extra_env[i] && i < 6; i++)
        env[1 + i] = extra_env[i];
    mpirun(np, script, env, r);
}

static void untraced_run(int np, const char *example, const char *args, const char *preload, run_result *r)
{
    char script[2048];
    snprintf(script, sizeof script, "exec %s/%s %s", OFFTRACE_BIN_DIR, example, args);
    char pre[1024];
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", preload ? preload : "");
    char *env[] = {pre, NULL};
    mpirun(np, script, preload ? env : NULL, r);
}

static void read_raw(const char *rank_dir, raw_rank *out)
{
    memset(out, 0, sizeof *out);
    char raw[1024], err[256] = "";
    snprintf(raw, sizeof raw, "%s/raw", rank_dir);
    ot_raw_recording rec;
    cr_assert_eq(ot_raw_load(raw, &rec, err, sizeof err), 0, "%s: %s", raw, err);
    /* request ids seen started and done, per process (ids are small counters) */
    unsigned char started[4096] = {0}, done[4096] = {0};
    unsigned short started_on[4096] = {0}, done_on[4096] = {0}; /* stream index + 1 */
    for (size_t s = 0; s < rec.stream_count; s++) {
        ot_raw_cursor cur = {.fd = -1};
        cr_assert_eq(ot_raw_cursor_open(&cur, &rec.streams[s]), 0);
        for (const offtrace_raw_record *r; (r = ot_raw_cursor_next(&cur));) {
            if (r->event == OFFTRACE_RAW_MPI_CALL)
                out->regions += r->endpoint != OFFTRACE_RAW_END;
            else if (r->event >= OFFTRACE_RAW_MPI_SEND && r->event <= OFFTRACE_RAW_MPI_CLOCK)
                out->other_records++;
            switch (r->event) {
            case OFFTRACE_RAW_MPI_CALL:
                if (r->endpoint != OFFTRACE_RAW_END && r->subkind < OFFTRACE_MPI_CALL_COUNT)
                    out->calls[r->subkind]++;
                out->call_begins += r->endpoint == OFFTRACE_RAW_BEGIN;
                out->call_ends += r->endpoint == OFFTRACE_RAW_END;
                break;
            case OFFTRACE_RAW_MPI_SEND:
            case OFFTRACE_RAW_MPI_ISEND:
                out->n.sends++;
                out->n.bytes_sent += (long)r->bytes;
                out->unknown_comm += r->id == OFFTRACE_RAW_MPI_COMM_UNKNOWN;
                if (r->event == OFFTRACE_RAW_MPI_ISEND && r->target_id < sizeof started)
                    started[r->target_id]++, started_on[r->target_id] = (unsigned short)(s + 1),
                        out->requests_started++;
                break;
            case OFFTRACE_RAW_MPI_RECV:
                out->n.recvs++;
                out->n.bytes_recv += (long)r->bytes;
                out->unknown_comm += r->id == OFFTRACE_RAW_MPI_COMM_UNKNOWN;
                break;
            case OFFTRACE_RAW_MPI_IRECV_REQUEST:
                if (r->target_id < sizeof started)
                    started[r->target_id]++, started_on[r->target_id] = (unsigned short)(s + 1),
                        out->requests_started++;
                break;
            case OFFTRACE_RAW_MPI_REQUEST_DONE:
                if (r->target_id < sizeof done) {
                    out->requests_done_twice += done[r->target_id]++ > 0;
                    done_on[r->target_id] = (unsigned short)(s + 1);
                }
                if (r->subkind == OFFTRACE_RAW_MPI_DONE_IRECV) {
                    out->n.recvs++;
                    out->n.bytes_recv += (long)r->bytes;
                }
                break;
            case OFFTRACE_RAW_MPI_REQUEST_TEST:
                out->requests_tested++;
                break;
            case OFFTRACE_RAW_MPI_COLLECTIVE:
                if (r->endpoint == OFFTRACE_RAW_END) {
                    out->n.coll++;
                    out->n.coll_sent += (long)r->bytes;
                    out->n.coll_recv += (long)r->dst_addr;
                    out->unknown_comm += r->id == OFFTRACE_RAW_MPI_COMM_UNKNOWN;
                }
                break;
            case OFFTRACE_RAW_MPI_COMM:
                if (r->subkind == OFFTRACE_RAW_MPI_COMM_OP_WORLD)
                    out->world++;
                else if (r->subkind == OFFTRACE_RAW_MPI_COMM_OP_FREE)
                    out->comms_freed++;
                else
                    out->comms_made++;
                if (r->subkind == OFFTRACE_RAW_MPI_COMM_OP_SPLIT)
                    out->split_id = r->id;
                break;
            case OFFTRACE_RAW_MPI_CLOCK:
                out->clocks++;
                break;
            default:
                break;
            }
        }
        ot_raw_cursor_close(&cur);
    }
    for (size_t id = 0; id < sizeof done; id++) /* after every stream: a request may end on another thread */
        out->requests_done += done[id] && started[id],
            out->done_elsewhere += done[id] && started[id] && done_on[id] != started_on[id];
    ot_raw_free(&rec);
}

static void same_count(const mpi_rank_count *want, const mpi_rank_count *got, const char *what, int rank,
                       int with_coll_bytes)
{
    cr_expect_eq(got->sends, want->sends, "rank %d: %s sends %ld, the program %ld", rank, what, got->sends,
                 want->sends);
    cr_expect_eq(got->bytes_sent, want->bytes_sent, "rank %d: %s bytes sent %ld, the program %ld", rank, what,
                 got->bytes_sent, want->bytes_sent);
    cr_expect_eq(got->recvs, want->recvs, "rank %d: %s receives %ld, the program %ld", rank, what, got->recvs,
                 want->recvs);
    cr_expect_eq(got->bytes_recv, want->bytes_recv, "rank %d: %s bytes received %ld, the program %ld", rank, what,
                 got->bytes_recv, want->bytes_recv);
    cr_expect_eq(got->coll, want->coll, "rank %d: %s collectives %ld, the program %ld", rank, what, got->coll,
                 want->coll);
    if (with_coll_bytes) {
        cr_expect_eq(got->coll_sent, want->coll_sent, "rank %d: %s collective bytes sent %ld, the program %ld", rank,
                     what, got->coll_sent, want->coll_sent);
        cr_expect_eq(got->coll_recv, want->coll_recv, "rank %d: %s collective bytes received %ld, the program %ld",
                     rank, what, got->coll_recv, want->coll_recv);
    }
}

static int qsort_strcmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The lines of \p text sorted, as one string (ranks print in any order). */
static char *sorted_lines(const char *text)
{
    char *copy = strdup(text ? text : ""), *save = NULL;
    char *lines[512];
    size_t n = 0;
    for (char *l = strtok_r(copy, "\n", &save); l && n < 512; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    qsort(lines, n, sizeof *lines, qsort_strcmp);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = calloc(1, len);
    for (size_t i = 0; i < n; i++)
        strcat(strcat(out, lines[i]), "\n");
    free(copy);
    return out;
}

/* How many Enter events of region \p name the job's archive in \p dir has on
 * rank \p rank's locations (ids rank << 40 | ..., docs/mpi.md). */
static unsigned region_enters(const char *dir, int rank, const char *name)
{
    char anchor[1024], needle[256];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    snprintf(needle, sizeof needle, "Region: \"%s\"", name);
    char *argv[] = {"otf2-print", anchor, NULL};
    run_result r;
    if (run_command(argv, NULL, NULL, &r) != 0)
        return 0;
    unsigned n = 0;
    for (char *line = r.out; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = 0;
        n += !strncmp(line, "ENTER ", 6) && strstr(line, needle) != NULL &&
             (int)(strtoull(line + 6, NULL, 10) >> 40) == rank;
        line = end ? end + 1 : NULL;
    }
    run_free(&r);
    return n;
}

/* One MPI message event of the job's archive as OTF2's reader prints it:
 * the location it is on, its peer's location (OTF2 resolves the peer's
 * rank in the communicator through the communicator's group), the
 * communicator, tag and length. */
typedef struct archive_message {
    uint64_t self, peer, comm, tag, length, time;
    int used;
} archive_message;

typedef struct archive_mpi {
    mpi_rank_count n[MAX_RANKS];
    archive_message *sends, *recvs;
    size_t send_count, recv_count;
} archive_mpi;

/* The number in the "<...>" after \p field in \p line. */
static uint64_t ref_after(const char *line, const char *field)
{
    const char *at = strstr(line, field);
    at = at ? strchr(at, '<') : NULL;
    return at ? strtoull(at + 1, NULL, 10) : UINT64_MAX;
}

static uint64_t number_after(const char *line, const char *field)
{
    const char *at = strstr(line, field);
    return at ? strtoull(at + strlen(field), NULL, 10) : UINT64_MAX;
}

static void add_message(archive_message **list, size_t *count, uint64_t self, uint64_t time, const char *line,
                        const char *peer)
{
    *list = realloc(*list, (*count + 1) * sizeof **list);
    cr_assert_not_null(*list);
    (*list)[(*count)++] = (archive_message){self, ref_after(line, peer), ref_after(line, "Communicator: "),
                                            number_after(line, "Tag: "), number_after(line, "Length: "), time, 0};
}

/* The MPI events of the job's archive in \p dir, read by otf2-print. */
static void read_archive_mpi(const char *dir, archive_mpi *a)
{
    memset(a, 0, sizeof *a);
    char anchor[1024];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    char *argv[] = {"otf2-print", anchor, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    for (char *line = r.out, *end; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = 0;
        if (strncmp(line, "MPI_", 4))
            continue;
        char event[64];
        unsigned long long location, time;
        if (sscanf(line, "%63s %llu %llu", event, &location, &time) != 3)
            continue;
        unsigned rank = (unsigned)(location >> 40);
        cr_assert_lt(rank, MAX_RANKS, "%s", line);
        mpi_rank_count *n = &a->n[rank];
        if (!strcmp(event, "MPI_SEND") || !strcmp(event, "MPI_ISEND")) {
            add_message(&a->sends, &a->send_count, location, time, line, "Receiver: ");
            n->sends++;
            n->bytes_sent += (long)a->sends[a->send_count - 1].length;
        } else if (!strcmp(event, "MPI_RECV") || !strcmp(event, "MPI_IRECV")) {
            add_message(&a->recvs, &a->recv_count, location, time, line, "Sender: ");
            n->recvs++;
            n->bytes_recv += (long)a->recvs[a->recv_count - 1].length;
        } else if (!strcmp(event, "MPI_COLLECTIVE_END")) {
            n->coll++;
            n->coll_sent += (long)number_after(line, "Sent: ");
            n->coll_recv += (long)number_after(line, "Received: ");
        }
    }
    run_free(&r);
}

/* OTF2's matching: a send's receive is the next unmatched one on the
 * receiver with the same sender, communicator and tag (FIFO); lengths equal.
 * \return messages left without a partner. */
static size_t unmatched_messages(archive_mpi *a)
{
    size_t unmatched = 0;
    for (size_t i = 0; i < a->send_count; i++) {
        const archive_message *s = &a->sends[i];
        archive_message *match = NULL;
        for (size_t j = 0; j < a->recv_count && !match; j++) {
            archive_message *r = &a->recvs[j];
            /* by rank: the peer is the rank's master thread, the event may be on any of its threads */
            if (!r->used && r->self >> 40 == s->peer >> 40 && r->peer >> 40 == s->self >> 40 && r->comm == s->comm &&
                r->tag == s->tag)
                match = r;
        }
        if (!match) {
            unmatched++;
            continue;
        }
        match->used = 1;
        /* Causality across ranks, on rank 0's clock: a message is received
         * after it was sent. A send's event may be written a little after
         * the data left (MpiIsend follows PMPI_Isend; two cores, four
         * ranks): 0.5 s of slack, far below the 5 s the clock test skews a
         * rank by, which the conversion must undo. */
        cr_expect_geq(match->time + 500000000u, s->time, "message from %" PRIu64 " to %" PRIu64 " tag %" PRIu64
                      " received at %" PRIu64 ", sent at %" PRIu64 ": a clock not corrected", s->self, s->peer,
                      s->tag, match->time, s->time);
        cr_expect_eq(match->length, s->length, "message from %" PRIu64 " to %" PRIu64 " tag %" PRIu64
                     ": sent %" PRIu64 " bytes, received %" PRIu64, s->self, s->peer, s->tag, s->length,
                     match->length);
    }
    for (size_t j = 0; j < a->recv_count; j++)
        unmatched += !a->recvs[j].used;
    return unmatched;
}

/* The whole comparison for one example at \p np ranks; the raw ranks in \p raw. */
static void check_example(int np, const char *example, const char *args, int with_coll_bytes, char *const env[],
                          char *dir, size_t dir_size, raw_rank raw[MAX_RANKS])
{
    scratch_path(dir, (unsigned)dir_size, example);
    run_result traced, plain, counted;
    traced_run(np, example, args, dir, env, &traced);
    untraced_run(np, example, args, NULL, &plain);
    untraced_run(np, example, args, COUNTER_LIB, &counted);
    cr_assert(WIFEXITED(plain.status) && WEXITSTATUS(plain.status) == 0, "untraced run failed: %s", plain.err);
    cr_assert_eq(traced.status, plain.status, "traced exit status %d, untraced %d; stderr:\n%s", traced.status,
                 plain.status, traced.err);
    char *a = sorted_lines(traced.out), *b = sorted_lines(plain.out);
    cr_expect_str_eq(a, b, "the program's output changed under offtrace");
    free(a);
    free(b);
    for (int rank = 0; rank < np; rank++) {
        mpi_rank_count program, counter;
        cr_assert_eq(mpi_count_line(traced.out, "MPICOUNT", rank, &program), 0, "no MPICOUNT of rank %d", rank);
        cr_assert_eq(mpi_count_line(counted.err, "MPICOUNTER", rank, &counter), 0, "no MPICOUNTER of rank %d:\n%s",
                     rank, counted.err);
        char rank_dir[1200];
        snprintf(rank_dir, sizeof rank_dir, "%s/rank.%d", dir, rank);
        read_raw(rank_dir, &raw[rank]);
        same_count(&program, &raw[rank].n, "offtrace's raw records", rank, with_coll_bytes);
        same_count(&program, &counter, "libmpi_counter", rank, 0);
        cr_expect_eq(raw[rank].call_begins, raw[rank].call_ends, "rank %d: MPI calls begun %u, ended %u", rank,
                     raw[rank].call_begins, raw[rank].call_ends);
        cr_expect_eq(raw[rank].calls[OFFTRACE_MPI_CALL_Init] + raw[rank].calls[OFFTRACE_MPI_CALL_Init_thread], 1,
                     "rank %d: MPI_Init or MPI_Init_thread", rank);
        cr_expect_eq(raw[rank].calls[OFFTRACE_MPI_CALL_Finalize], 1, "rank %d: MPI_Finalize", rank);
        cr_expect_eq(raw[rank].world, 1, "rank %d: one MPI_COMM_WORLD record", rank);
        cr_expect_eq(raw[rank].clocks, 2, "rank %d: clock compared at Init and Finalize", rank);
        cr_expect_eq(raw[rank].requests_done, raw[rank].requests_started, "rank %d: requests started %u, done %u",
                     rank, raw[rank].requests_started, raw[rank].requests_done);
        cr_expect_eq(raw[rank].requests_done_twice, 0, "rank %d: a request completed twice", rank);
        cr_expect_eq(raw[rank].unknown_comm, 0, "rank %d: communication on an unknown communicator", rank);
        if (strcmp(example, "mpi_threads") != 0)
            cr_expect_eq(raw[rank].done_elsewhere, 0, "rank %d: a request ended on another thread", rank);
        char *message = NULL, part_dir[1300];
        cr_expect_eq(otf2_print_check(dir, &message), 0, "the job's archive: %s", message);
        free(message);
        cr_expect_eq(region_enters(dir, rank, "MPI_Init") + region_enters(dir, rank, "MPI_Init_thread"), 1,
                     "rank %d: the archive's MPI_Init region", rank);
        /* the rank's own numbers: its part's properties (the merge moved its events into the job's archive) */
        snprintf(part_dir, sizeof part_dir, "%s/part", rank_dir);
        uint64_t calls = 0, not_converted = 0;
        cr_expect_eq(archive_property(part_dir, "OFFTRACE::MPI_CALLS", &calls), 0);
        cr_expect_eq(calls, raw[rank].regions, "rank %d: MPI calls in the archive %" PRIu64 ", recorded %u", rank,
                     calls, raw[rank].regions);
        cr_expect_eq(archive_property(part_dir, "OFFTRACE::MPI_RECORDS_NOT_CONVERTED", &not_converted), 0);
        cr_expect_eq(not_converted, 0, "rank %d: MPI records not converted %" PRIu64, rank, not_converted);
        /* every record but the definitions (communicators, clocks) is one OTF2 MPI event */
        uint64_t events = 0, definitions = raw[rank].world + raw[rank].comms_made + raw[rank].comms_freed +
                                                raw[rank].clocks;
        cr_expect_eq(archive_property(part_dir, "OFFTRACE::MPI_EVENTS", &events), 0);
        cr_expect_eq(events, raw[rank].other_records - definitions, "rank %d: MPI events %" PRIu64
                     ", recorded %" PRIu64, rank, events, raw[rank].other_records - definitions);
    }
    /* the job's archive, read by OTF2's reader: per rank what the program
     * says it did, and every message's send matched with its receive */
    archive_mpi in_archive;
    read_archive_mpi(dir, &in_archive);
    for (int rank = 0; rank < np; rank++) {
        mpi_rank_count program;
        cr_assert_eq(mpi_count_line(traced.out, "MPICOUNT", rank, &program), 0);
        same_count(&program, &in_archive.n[rank], "the job's archive", rank, with_coll_bytes);
    }
    cr_expect_gt(in_archive.send_count, 0, "the archive has messages");
    /* and the structure rules, MPI matching included, on OTF2's reader (check/otf2_rules.h) */
    char anchor[1100], summary[4096];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    otf2_rules_report rules;
    cr_expect_eq(otf2_rules_check(anchor, &rules), 0, "OTF2 cannot read %s", anchor);
    otf2_rules_summary(&rules, summary, sizeof summary);
    cr_expect_eq(otf2_rules_total(&rules), 0, "%s", summary);
    cr_expect_eq(unmatched_messages(&in_archive), 0, "%zu sends, %zu receives: messages without a partner",
                 in_archive.send_count, in_archive.recv_count);
    free(in_archive.sends);
    free(in_archive.recvs);
    run_free(&traced);
    run_free(&plain);
    run_free(&counted);
}

Test(mpi_recording, every_call_of_the_table_is_wrapped)
{
    void *lib = dlopen(MPI_LIB, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(lib, "%s", dlerror());
    for (unsigned call = 0; call < OFFTRACE_MPI_CALL_COUNT; call++) {
        const char *name = offtrace_mpi_call_name(call);
        void *fn = dlsym(lib, name);
        Dl_info info;
        cr_expect(fn && dladdr(fn, &info) && strstr(info.dli_fname, "libofftrace-mpi"),
                  "%s is not libofftrace-mpi.so's", name);
    }
    cr_expect_null(offtrace_mpi_call_name(OFFTRACE_MPI_CALL_COUNT));
}

Test(mpi_recording, halo_at_two_and_four_ranks)
{
    raw_rank raw[MAX_RANKS];
    char dir[1024];
    for (int np = 2; np <= 4; np += 2) {
        check_example(np, "example_mpi_halo", "10", 1, NULL, dir, sizeof dir, raw);
        for (int rank = 0; rank < np; rank++) {
            char rank_dir[1200];
            snprintf(rank_dir, sizeof rank_dir, "%s/rank.%d", dir, rank);
            cr_expect_eq(raw[rank].calls[OFFTRACE_MPI_CALL_Allreduce], 10, "rank %d", rank);
            cr_expect_eq(raw[rank].calls[OFFTRACE_MPI_CALL_Waitall], 10, "rank %d", rank);
            cr_expect_eq(region_enters(dir, rank, "MPI_Allreduce"), 10, "rank %d: MPI_Allreduce regions", rank);
            cr_expect_eq(region_enters(dir, rank, "MPI_Irecv"), 20, "rank %d: MPI_Irecv regions (MPI_PROC_NULL too)",
                         rank);
        }
    }
}

/* The members of the communicator whose mpi.comms line starts with \p id, in \p dir's ranks: "a b". */
static int comm_members(const char *dir, int np, uint64_t id, char *members, size_t size)
{
    int found = 0;
    for (int rank = 0; rank < np; rank++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/rank.%d/raw/" OFFTRACE_RAW_MPI_COMMS_FILE, dir, rank);
        char *text = read_whole_file(path, NULL);
        for (char *line = text, *end; line && *line; line = end ? end + 1 : NULL) {
            end = strchr(line, '\n');
            if (end)
                *end = 0;
            unsigned long long got, parent;
            int n, used;
            if (sscanf(line, "%llu %llu %d %n", &got, &parent, &n, &used) == 3 && got == id) {
                found++;
                snprintf(members, size, "%s", line + used);
                cr_expect_eq(parent, OFFTRACE_RAW_MPI_COMM_WORLD, "split from the world");
                cr_expect_eq(n, 2, "two members");
            }
        }
        free(text);
    }
    return found;
}

Test(mpi_recording, reduce_collectives_and_a_split)
{
    raw_rank raw[MAX_RANKS];
    char dir[1024];
    check_example(4, "example_mpi_reduce", "", 1, NULL, dir, sizeof dir, raw);
    for (int rank = 0; rank < 4; rank++) {
        cr_expect_eq(raw[rank].comms_made, 1, "rank %d: one communicator made", rank);
        cr_expect_eq(raw[rank].comms_freed, 1, "rank %d: and freed", rank);
        cr_expect_eq(raw[rank].calls[OFFTRACE_MPI_CALL_Sendrecv], 1, "rank %d", rank);
    }
    cr_expect_eq(raw[0].split_id, raw[2].split_id, "the even ranks' communicator has one id");
    cr_expect_eq(raw[1].split_id, raw[3].split_id, "the odd ranks' communicator has one id");
    cr_expect_neq(raw[0].split_id, raw[1].split_id, "even and odd communicators have different ids");
    char members[64] = "";
    cr_expect_eq(comm_members(dir, 4, raw[0].split_id, members, sizeof members), 2, "written by each member");
    cr_expect_str_eq(members, "0 2");
    cr_expect_eq(comm_members(dir, 4, raw[1].split_id, members, sizeof members), 2, "written by each member");
    cr_expect_str_eq(members, "1 3");
    /* the job's archive: each communicator once, a split half with its two members' master threads */
    char anchor[1100];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    char *argv[] = {"otf2-print", "-G", anchor, NULL};
    run_result r;
    cr_assert_eq(run_command(argv, NULL, NULL, &r), 0);
    unsigned world = 0, self = 0, halves[2] = {0, 0};
    char *half_group[2] = {NULL, NULL};
    for (char *line = r.out, *end; line && *line; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (end)
            *end = 0;
        int is_comm = !strncmp(line, "COMM ", 5), is_group = !strncmp(line, "GROUP ", 6);
        world += is_comm && strstr(line, "Name: \"MPI_COMM_WORLD\"") != NULL;
        self += is_comm && strstr(line, "Name: \"MPI_COMM_SELF\"") != NULL;
        for (int h = 0; h < 2; h++) {
            char name[64];
            snprintf(name, sizeof name, "Name: \"MPI comm %" PRIu64 "\"", raw[h].split_id);
            halves[h] += is_comm && strstr(line, name) != NULL;
            if (is_group && strstr(line, name))
                half_group[h] = line;
        }
    }
    cr_expect_eq(world, 1, "one MPI_COMM_WORLD in the job's archive");
    cr_expect_eq(self, 1, "one MPI_COMM_SELF in the job's archive");
    for (int h = 0; h < 2; h++) {
        cr_expect_eq(halves[h], 1, "the %s ranks' communicator once", h ? "odd" : "even");
        char want[160];
        snprintf(want, sizeof want, "2 Members: %d (\"Master thread\" <%" PRIu64 ">), %d (\"Master thread\" <%" PRIu64
                 ">)", h, (uint64_t)h << 40, h + 2, (uint64_t)(h + 2) << 40);
        cr_expect(half_group[h] && strstr(half_group[h], want), "its group: %s, want %s", half_group[h], want);
    }
    run_free(&r);
}

/* Whether rank \p rank's raw/ has device-<N>.rec files (it offloaded). */
static int device_files(const char *dir, int rank)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/rank.%d/raw", dir, rank);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += !strncmp(e->d_name, "device-", 7);
    if (d)
        closedir(d);
    return n;
}

Test(mpi_recording, devices_tests_and_waits)
{
    raw_rank raw[MAX_RANKS];
    char dir[1024];
    check_example(4, "example_mpi_devices", "", 1, NULL, dir, sizeof dir, raw);
    cr_expect_gt(raw[0].calls[OFFTRACE_MPI_CALL_Test], 2, "rank 0 polls with MPI_Test");
    cr_expect_leq(raw[0].requests_tested, 3, "a request's failed tests are recorded once");
    for (int rank = 1; rank < 4; rank++)
        cr_expect_eq(raw[rank].calls[OFFTRACE_MPI_CALL_Wait], 1, "rank %d", rank);
    for (int rank = 0; rank < 4; rank++)
        cr_expect_eq(device_files(dir, rank) > 0, rank % 2 == 0, "rank %d: device records only on even ranks",
                     rank);
}

/* One "<phase> <local> <offset> <rtt> <same>" line of mpi.clock. */
typedef struct clock_line {
    char phase[16];
    unsigned long long local;
    long long offset;
    unsigned long long rtt;
    int same;
} clock_line;

static int clock_lines(const char *dir, int rank, clock_line lines[2])
{
    char path[1200];
    snprintf(path, sizeof path, "%s/rank.%d/raw/" OFFTRACE_RAW_MPI_CLOCK_FILE, dir, rank);
    char *text = read_whole_file(path, NULL);
    int n = 0;
    for (char *line = text, *end; line && *line && n < 2; line = end ? end + 1 : NULL) {
        end = strchr(line, '\n');
        if (sscanf(line, "%15s %llu %lld %llu %d", lines[n].phase, &lines[n].local, &lines[n].offset, &lines[n].rtt,
                   &lines[n].same) == 5)
            n++;
    }
    free(text);
    return n;
}

Test(mpi_recording, clock_of_a_rank_on_another_machine)
{
    raw_rank raw[MAX_RANKS];
    char dir[1024];
    const long long skew = 5000000000LL, ppm = 100;
    char *env[] = {"OFFTRACE_TEST_RANK_CLOCK=1:5000000000:100", NULL};
    check_example(2, "example_mpi_reduce", "", 1, env, dir, sizeof dir, raw);
    clock_line c[2];
    cr_assert_eq(clock_lines(dir, 0, c), 2);
    for (int i = 0; i < 2; i++)
        cr_expect(c[i].same == 1 && c[i].offset == 0 && c[i].rtt == 0, "rank 0 is the reference");
    cr_expect_str_eq(c[0].phase, "init");
    cr_expect_str_eq(c[1].phase, "finalize");
    cr_assert_eq(clock_lines(dir, 1, c), 2);
    for (int i = 0; i < 2; i++) {
        /* The truth: rank 1's clock runs skew ahead plus ppm of the time since its first reading (under a
         * minute here); the fastest round trip bounds the measurement's error by half of it. */
        long long bound = (long long)c[i].rtt / 2 + 60LL * 1000000000LL / 1000000 * ppm;
        cr_expect_eq(c[i].same, 0, "rank 1 is measured (another boot id)");
        cr_expect_gt(c[i].rtt, 0);
        cr_expect(c[i].offset <= -skew + (long long)c[i].rtt / 2 + 1 && c[i].offset >= -skew - bound,
                  "%s offset %lld, the truth -%lld (drift up to %lld more), round trip %llu", c[i].phase,
                  c[i].offset, skew, bound, c[i].rtt);
    }
    cr_expect_leq(c[1].offset, c[0].offset + (long long)(c[0].rtt + c[1].rtt) / 2, "the drift goes one way");
    char path[1200];
    snprintf(path, sizeof path, "%s/rank.1/raw/" OFFTRACE_RAW_MPI_RANK_FILE, dir);
    char *rank_line = read_whole_file(path, NULL);
    cr_expect(rank_line && !strncmp(rank_line, "1 2 ", 4), "mpi.rank: %s", rank_line);
    cr_expect(rank_line && strstr(rank_line, "-skewed"), "the skewed rank looks like another machine");
    free(rank_line);
}

/* Also: the user preloads the wrappers already (record adds no second copy). */
Test(mpi_recording, ranks_of_one_machine_share_the_clock)
{
    raw_rank raw[MAX_RANKS];
    char dir[1024];
    char *env[] = {"LD_PRELOAD=" MPI_LIB, NULL};
    check_example(2, "example_mpi_devices", "1000", 1, env, dir, sizeof dir, raw);
    for (int rank = 0; rank < 2; rank++) {
        clock_line c[2];
        cr_assert_eq(clock_lines(dir, rank, c), 2);
        for (int i = 0; i < 2; i++)
            cr_expect(c[i].same == 1 && c[i].offset == 0, "rank %d: one machine, offset 0 by rule", rank);
    }
}

Test(mpi_recording, threads_and_a_request_completed_by_another_thread)
{
    raw_rank raw[MAX_RANKS];
    char dir[1024];
    check_example(2, "mpi_threads", "", 1, NULL, dir, sizeof dir, raw);
    for (int rank = 0; rank < 2; rank++) {
        cr_expect_eq(raw[rank].requests_started, 201, "rank %d: 100 sends and 101 receives started", rank);
        cr_expect_eq(raw[rank].done_elsewhere, 1, "rank %d: only the handed-over receive ends on another thread",
                     rank);
    }
}

/* MPI_Abort: mpirun kills every rank within about a second, so a rank's
 * record may or may not convert before it dies; the raw records survive
 * and `offtrace convert` makes each rank's archive afterwards. */
Test(mpi_recording, abort_leaves_every_rank_convertible)
{
    char dir[1024];
    scratch_path(dir, sizeof dir, "mpi_abort");
    run_result r;
    traced_run(2, "mpi_abort", "", dir, NULL, &r);
    cr_expect(!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0, "the job failed");
    cr_expect(strstr(r.err, "offtrace: rank 1 called MPI_Abort(3)") != NULL, "one line says why:\n%s", r.err);
    run_free(&r);
    for (int rank = 0; rank < 2; rank++) {
        char rank_dir[1200];
        snprintf(rank_dir, sizeof rank_dir, "%s/rank.%d", dir, rank);
        raw_rank raw;
        read_raw(rank_dir, &raw);
        cr_expect_eq(raw.calls[OFFTRACE_MPI_CALL_Abort], rank == 1, "rank %d: MPI_Abort recorded", rank);
        cr_expect_eq(raw.n.sends + raw.n.recvs, 1, "rank %d: the message before the abort", rank);
    }
    char anchor[1300];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (access(anchor, F_OK) != 0) { /* nobody lived to merge: the user's `offtrace convert` after the job */
        run_result c;
        cr_assert_eq(run_offtrace(&c, "convert", dir, NULL), 0);
        cr_expect(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0, "convert %s: %s", dir, c.err);
        run_free(&c);
    }
    char *message = NULL;
    cr_expect_eq(otf2_print_check(dir, &message), 0, "the job's archive: %s", message);
    free(message);
    cr_expect_eq(region_enters(dir, 1, "MPI_Abort"), 1, "rank 1's MPI_Abort in the job's archive");
}

/* A rank on "another machine" whose clock runs 5 s behind, then MPI_Abort:
 * it never reaches MPI_Finalize, so its part is moved by MPI_Init's offset
 * alone, and the message before the abort is still received after it was
 * sent (5 s before, uncorrected). */
Test(mpi_recording, abort_corrects_a_rank_by_its_init_offset)
{
    char dir[1024];
    scratch_path(dir, sizeof dir, "mpi_abort_skewed");
    run_result r;
    char *env[] = {"OFFTRACE_TEST_RANK_CLOCK=1:-5000000000:0", NULL};
    traced_run(2, "mpi_abort", "", dir, env, &r);
    cr_expect(!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0, "the job failed");
    run_free(&r);
    char anchor[1300];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (access(anchor, F_OK) != 0) {
        run_result c;
        cr_assert_eq(run_offtrace(&c, "convert", dir, NULL), 0);
        cr_expect(WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0, "convert %s: %s", dir, c.err);
        run_free(&c);
    }
    archive_mpi in_archive;
    read_archive_mpi(dir, &in_archive);
    cr_expect_eq(in_archive.send_count, 1, "rank 0's one message");
    cr_expect_eq(unmatched_messages(&in_archive), 0, "the message has its receive");
    free(in_archive.sends);
    free(in_archive.recvs);
    char part[1300];
    snprintf(part, sizeof part, "%s/rank.1/part", dir);
    uint64_t offset = 0, unused;
    cr_expect_eq(archive_property(part, "OFFTRACE::MPI_CLOCK_OFFSET_INIT_NS", &offset), 0);
    cr_expect(offset > 4900000000u && offset < 5100000000u, "rank 1's offset at MPI_Init %" PRIu64 ", the truth 5 s",
              offset);
    cr_expect_neq(archive_property(part, "OFFTRACE::MPI_CLOCK_OFFSET_FINALIZE_NS", &unused), 0,
                  "rank 1 never reached MPI_Finalize");
}

/* Measurement off from the start: no MPI event is recorded, but the rank's
 * definitions are (the merge and the clock correction need them). */
Test(mpi_recording, paused_records_no_call_but_the_definitions)
{
    char dir[1024];
    scratch_path(dir, sizeof dir, "mpi_paused");
    run_result r;
    char *env[] = {"OFFTRACE_START_PAUSED=1", NULL};
    traced_run(2, "example_mpi_reduce", "", dir, env, &r);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    for (int rank = 0; rank < 2; rank++) {
        char rank_dir[1200], path[1300];
        snprintf(rank_dir, sizeof rank_dir, "%s/rank.%d", dir, rank);
        raw_rank raw;
        read_raw(rank_dir, &raw);
        cr_expect_eq(raw.regions + raw.other_records, 0, "rank %d: nothing recorded while off", rank);
        snprintf(path, sizeof path, "%s/raw/" OFFTRACE_RAW_MPI_RANK_FILE, rank_dir);
        char *text = read_whole_file(path, NULL);
        char want[16];
        snprintf(want, sizeof want, "%d 2 ", rank);
        cr_expect(text && !strncmp(text, want, strlen(want)), "rank %d: mpi.rank %s", rank, text);
        free(text);
        clock_line c[2];
        cr_expect_eq(clock_lines(dir, rank, c), 2, "rank %d: both clock lines", rank);
    }
    char *message = NULL;
    cr_expect_eq(otf2_print_check(dir, &message), 0, "the job's archive: %s", message);
    free(message);
    /* each half of two ranks has one member: rank 0 and rank 1 each write their communicator */
    for (int rank = 0; rank < 2; rank++) {
        char path[1300];
        snprintf(path, sizeof path, "%s/rank.%d/raw/" OFFTRACE_RAW_MPI_COMMS_FILE, dir, rank);
        char *text = read_whole_file(path, NULL);
        cr_expect(text && count_occurrences(text, "\n") == 1, "rank %d: its split communicator's line: %s", rank,
                  text);
        free(text);
    }
}

/* libofftrace-mpi.so preloaded without offtrace: PMPI alone, nothing changes. */
Test(mpi_recording, untraced_with_the_wrappers_preloaded)
{
    run_result with, without;
    untraced_run(2, "example_mpi_reduce", "", MPI_LIB, &with);
    untraced_run(2, "example_mpi_reduce", "", NULL, &without);
    cr_assert_eq(with.status, without.status);
    char *a = sorted_lines(with.out), *b = sorted_lines(without.out);
    cr_expect_str_eq(a, b);
    cr_expect_eq(strstr(with.err, "offtrace"), NULL, "%s", with.err);
    free(a);
    free(b);
    run_free(&with);
    run_free(&without);
}

/* The preload decision: --no-mpi keeps the wrappers out of an MPI program;
 * a script that starts the MPI program does not load libmpi itself, so it
 * gets them only with --mpi. */
static void record_with(const char *option, const char *program, const char *dir, raw_rank raw[2])
{
    char script[2048];
    snprintf(script, sizeof script, "exec %s/offtrace record %s -o %s -- %s", OFFTRACE_BIN_DIR, option, dir,
             program);
    char *env[] = {"OFFTRACE_KEEP_RAW=1", NULL};
    run_result r;
    mpirun(2, script, env, &r);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s: %s", script, r.err);
    cr_expect(strstr(r.out, "MPICOUNT rank=1 ") != NULL, "the program ran: %s", r.out);
    run_free(&r);
    for (int rank = 0; rank < 2; rank++) {
        char rank_dir[1200];
        snprintf(rank_dir, sizeof rank_dir, "%s/rank.%d", dir, rank);
        read_raw(rank_dir, &raw[rank]);
    }
}

Test(mpi_recording, mpi_and_no_mpi_decide_the_preload)
{
    char dir[1024], program[1024];
    raw_rank raw[2];
    snprintf(program, sizeof program, "%s/example_mpi_reduce", OFFTRACE_BIN_DIR);
    scratch_path(dir, sizeof dir, "mpi_no_mpi");
    record_with("--no-mpi", program, dir, raw);
    for (int rank = 0; rank < 2; rank++)
        cr_expect_eq(raw[rank].regions + raw[rank].other_records, 0, "rank %d: --no-mpi recorded MPI", rank);
    snprintf(program, sizeof program, "sh -c 'exec %s/example_mpi_reduce'", OFFTRACE_BIN_DIR);
    scratch_path(dir, sizeof dir, "mpi_script");
    record_with("", program, dir, raw);
    for (int rank = 0; rank < 2; rank++)
        cr_expect_eq(raw[rank].regions, 0, "rank %d: a script is not an MPI program", rank);
    scratch_path(dir, sizeof dir, "mpi_forced");
    record_with("--mpi", program, dir, raw);
    for (int rank = 0; rank < 2; rank++)
        cr_expect_gt(raw[rank].regions, 0, "rank %d: --mpi preloads the wrappers into the script's program", rank);
    char *message = NULL;
    cr_expect_eq(otf2_print_check(dir, &message), 0, "the job's archive: %s", message);
    free(message);
}

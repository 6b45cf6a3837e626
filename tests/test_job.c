/*
 * MPI jobs, issue 16 part 1 (docs/mpi.md "Job directory"): the rank from the
 * launcher's environment (ot_job_detect), the job directory's rules, and
 * real `mpirun -np 2 offtrace record` runs: each rank's part is a valid
 * archive whose locations carry the rank (ids rank << 40, group "MPI Rank N",
 * OFFTRACE::MPI_RANK), the last one out is reached, a second job into the
 * same directory is refused, and `offtrace convert` finishes a job whose
 * rank was killed. The program (example_cg) does not use MPI: each rank is
 * one process, which is all this part needs. Read back with OTF2's own
 * reader and otf2-print.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "check/mpi_run.h"
#include "check/run.h"
#include "job.h"
#include "offtrace/event_catalogue.h"

/* ---- ot_job_detect ---- */

static const char *const launcher_variables[] = {
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "PMIX_NAMESPACE",
    "PMI_KVSNAME", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_ID", "SLURM_JOB_ID"};

/* Each test runs in a process of its own: the environment is the test's. */
static void clear_launcher(void)
{
    for (size_t i = 0; i < sizeof launcher_variables / sizeof launcher_variables[0]; i++)
        unsetenv(launcher_variables[i]);
}

static int detect(ot_job *job)
{
    char why[256] = "";
    return ot_job_detect(job, why, sizeof why);
}

Test(job_detect, no_launcher_is_not_a_job)
{
    clear_launcher();
    ot_job job;
    cr_assert_eq(detect(&job), 0);
    cr_assert_eq(job.rank, 0);
    cr_assert_eq(job.size, 1);
}

Test(job_detect, open_mpi)
{
    clear_launcher();
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("PMIX_RANK", "3", 1);
    setenv("PMIX_NAMESPACE", "1719402497", 1);
    setenv("PMI_KVSNAME", "not-this", 1);
    ot_job job;
    cr_assert_eq(detect(&job), 1);
    cr_assert_eq(job.rank, 3);
    cr_assert_eq(job.size, 4);
    cr_assert_str_eq(job.id, "1719402497");
}

Test(job_detect, one_rank_is_not_a_job)
{
    clear_launcher();
    setenv("OMPI_COMM_WORLD_RANK", "0", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    setenv("PMIX_NAMESPACE", "42", 1);
    ot_job job;
    cr_assert_eq(detect(&job), 0);
    cr_assert_eq(job.size, 1);
}

Test(job_detect, mpich_hydra)
{
    clear_launcher();
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "2", 1);
    setenv("PMI_KVSNAME", "kvs_4242_0", 1);
    ot_job job;
    cr_assert_eq(detect(&job), 1);
    cr_assert_eq(job.rank, 1);
    cr_assert_eq(job.size, 2);
    cr_assert_str_eq(job.id, "kvs_4242_0");
}

Test(job_detect, pmix_rank_with_the_launchers_size)
{
    clear_launcher();
    setenv("PMIX_RANK", "2", 1);
    setenv("PMI_SIZE", "3", 1);
    setenv("PMIX_NAMESPACE", "ns", 1);
    ot_job job;
    cr_assert_eq(detect(&job), 1);
    cr_assert_eq(job.rank, 2);
    cr_assert_eq(job.size, 3);
    cr_assert_str_eq(job.id, "ns");
}

Test(job_detect, slurm_only_inside_a_step)
{
    clear_launcher();
    setenv("SLURM_PROCID", "1", 1);
    setenv("SLURM_NTASKS", "8", 1);
    setenv("SLURM_JOB_ID", "123", 1);
    ot_job job;
    cr_assert_eq(detect(&job), 0, "sbatch's own shell is no rank");
    setenv("SLURM_STEP_ID", "0", 1);
    cr_assert_eq(detect(&job), 1);
    cr_assert_eq(job.rank, 1);
    cr_assert_eq(job.size, 8);
    cr_assert_str_eq(job.id, "123.0");
}

Test(job_detect, malformed_variables_are_said)
{
    static const char *const bad[][2] = {{"4", "4"}, {"x", "4"}, {"1", "0"}, {"-1", "4"}, {"1", ""}, {"1", "99999999999"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        clear_launcher();
        setenv("OMPI_COMM_WORLD_RANK", bad[i][0], 1);
        setenv("OMPI_COMM_WORLD_SIZE", bad[i][1], 1);
        ot_job job;
        char why[256] = "";
        cr_assert_eq(ot_job_detect(&job, why, sizeof why), -1, "rank %s size %s", bad[i][0], bad[i][1]);
        cr_assert(strstr(why, "OMPI_COMM_WORLD_RANK"), "%s", why);
    }
}

Test(job_layout, default_name_all_ranks_agree_on)
{
    ot_job job = {.rank = 5, .size = 8};
    snprintf(job.id, sizeof job.id, "kvs 1/2");
    char name[256];
    ot_job_default_dir("/some/where/app", &job, name, sizeof name);
    cr_assert_str_eq(name, "offtrace-app.jobkvs_1_2");
}

Test(job_layout, join_locate_and_last_one_out)
{
    char dir[4096], rank_dir[4200], part[4300], why[4400];
    scratch_path(dir, sizeof dir, "job-layout");
    ot_job a0 = {.rank = 0, .size = 2, .id = "77"}, a1 = {.rank = 1, .size = 2, .id = "77"};
    ot_job other = {.rank = 1, .size = 2, .id = "78"};
    cr_assert_eq(ot_job_join(dir, &a1, why, sizeof why), 0, "%s", why);
    cr_assert_eq(ot_job_join(dir, &a0, why, sizeof why), 0, "%s", why);
    cr_assert_neq(ot_job_join(dir, &a0, why, sizeof why), 0, "rank 0 twice");
    cr_assert_eq(ot_job_join(dir, &other, why, sizeof why), -EEXIST, "another job's directory");
    cr_assert(strstr(why, "never overwrites"), "%s", why);

    ot_job_place place;
    cr_assert_eq(ot_job_locate(dir, &place), OT_JOB_PLACE_JOB);
    cr_assert_eq(place.job.size, 2);
    cr_assert_str_eq(place.job.id, "77");
    ot_job_rank_dir(dir, 1, rank_dir, sizeof rank_dir);
    cr_assert_eq(ot_job_locate(rank_dir, &place), OT_JOB_PLACE_RANK);
    cr_assert_eq(place.job.rank, 1);
    cr_assert_str_eq(place.job_dir, dir);
    ot_job_part_dir(dir, 1, part, sizeof part);
    mkdir(part, 0777);
    strcat(part, "/");
    cr_assert_eq(ot_job_locate(part, &place), OT_JOB_PLACE_PART);
    cr_assert_eq(place.job.rank, 1);
    snprintf(rank_dir, sizeof rank_dir, "%s/rank.2", dir); /* past the job's size */
    mkdir(rank_dir, 0777);
    cr_assert_eq(ot_job_locate(rank_dir, &place), OT_JOB_PLACE_NONE);
    cr_assert_eq(ot_job_locate(OFFTRACE_TEST_SCRATCH, &place), OT_JOB_PLACE_NONE);

    cr_assert_eq(ot_job_count_done(dir, 2), 0);
    cr_assert_eq(ot_job_mark_done(dir, 1), 0);
    cr_assert_eq(ot_job_mark_done(dir, 1), -EEXIST);
    cr_assert_eq(ot_job_count_done(dir, 2), 1);
    cr_assert_eq(ot_job_mark_done(dir, 0), 0);
    cr_assert_eq(ot_job_count_done(dir, 2), 2);
    cr_assert_eq(ot_job_claim_merge(dir), 0);
    cr_assert_eq(ot_job_claim_merge(dir), -EEXIST, "exactly one last one out");
}

Test(job_layout, a_directory_holding_an_archive_is_refused)
{
    char dir[4096], path[4200], why[4400];
    scratch_path(dir, sizeof dir, "job-archive");
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fclose(f);
    ot_job job = {.rank = 0, .size = 2, .id = "5"};
    cr_assert_eq(ot_job_join(dir, &job, why, sizeof why), -EEXIST);
    cr_assert(strstr(why, "never overwrites"), "%s", why);
}

/* ---- under mpirun ---- */

/* `mpirun -np 2 ARGS...`, as every MPI test runs it (check/mpi_run.h). */
static int mpirun2(run_result *r, char *const env[], char *const args[])
{
    return run_mpirun(2, args, env, r);
}

static int exists(const char *dir, const char *name)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* What a rank's part says of itself, read with OTF2's global definition reader. */
typedef struct part_defs {
    char strings[512][64];
    char group_name[8][64];
    OTF2_LocationGroupRef group_of[64];
    uint64_t location[64];
    size_t locations;
    size_t with_rank_property, rank_property_wrong;
    unsigned want_rank;
    OTF2_StringRef rank_key;
} part_defs;

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef ref, const char *text)
{
    part_defs *d = u;
    if (ref < 512)
        snprintf(d->strings[ref], sizeof d->strings[ref], "%s", text);
    if (!strcmp(text, OFFTRACE_LOCATION_MPI_RANK_PROPERTY))
        d->rank_key = ref;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_LocationGroupRef ref, OTF2_StringRef name, OTF2_LocationGroupType type,
                                  OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef creator)
{
    part_defs *d = u;
    if (ref < 8 && name < 512)
        snprintf(d->group_name[ref], sizeof d->group_name[ref], "%s", d->strings[name]);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef ref, OTF2_StringRef name, OTF2_LocationType type,
                                     uint64_t events, OTF2_LocationGroupRef group)
{
    part_defs *d = u;
    if (d->locations < 64) {
        d->group_of[d->locations] = group;
        d->location[d->locations++] = ref;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location_property(void *u, OTF2_LocationRef location, OTF2_StringRef name,
                                              OTF2_Type type, OTF2_AttributeValue value)
{
    part_defs *d = u;
    if (name == d->rank_key) {
        d->with_rank_property++;
        d->rank_property_wrong += type != OTF2_TYPE_UINT32 || value.uint32 != location >> 40;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The job's one archive (the ranks' parts merged, docs/mpi.md): valid for
 * otf2-print -Werror, of 2 ranks; every location's id carries its rank's
 * bits and says its rank in OFFTRACE::MPI_RANK; each rank has its master
 * thread and its device's locations, in a process group "MPI Rank N". */
static void check_job(const char *job_dir)
{
    char anchor[4300], *message = NULL;
    cr_assert_eq(otf2_print_check(job_dir, &message), 0, "the job's archive: %s", message);
    free(message);
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", job_dir);
    OTF2_Reader *reader = OTF2_Reader_Open(anchor);
    cr_assert_not_null(reader);
    OTF2_Reader_SetSerialCollectiveCallbacks(reader);
    char *value = NULL;
    cr_assert_eq(OTF2_Reader_GetProperty(reader, OFFTRACE_JOB_SIZE_PROPERTY, &value), OTF2_SUCCESS);
    cr_assert_str_eq(value, "2");
    free(value);
    part_defs *d = calloc(1, sizeof *d);
    d->rank_key = OTF2_UNDEFINED_STRING;
    OTF2_GlobalDefReader *g = OTF2_Reader_GetGlobalDefReader(reader);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, on_location_property);
    OTF2_Reader_RegisterGlobalDefCallbacks(reader, g, cb, d);
    uint64_t read = 0;
    OTF2_Reader_ReadAllGlobalDefinitions(reader, g, &read);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    OTF2_Reader_Close(reader);

    for (unsigned rank = 0; rank < 2; rank++) {
        char group[32];
        snprintf(group, sizeof group, "MPI Rank %u", rank);
        size_t of_rank = 0, in_group = 0;
        for (size_t i = 0; i < d->locations; i++) {
            cr_assert_lt(d->location[i] >> 40, 2, "location %#llx of no rank", (unsigned long long)d->location[i]);
            if (d->location[i] >> 40 != rank)
                continue;
            of_rank++;
            in_group += d->group_of[i] < 8 && !strcmp(d->group_name[d->group_of[i]], group);
        }
        cr_assert_gt(of_rank, 1, "rank %u: a master thread and the device's locations", rank);
        cr_assert_geq(in_group, 1, "rank %u's host thread in group '%s'", rank, group);
    }
    cr_assert_eq(d->with_rank_property, d->locations, "OFFTRACE::MPI_RANK on every location");
    cr_assert_eq(d->rank_property_wrong, 0);
    free(d);
}

Test(job_mpirun, two_ranks_record_their_parts, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "job-np2");
    run_result r;
    cr_assert_eq(mpirun2(&r, NULL, (char *const[]){OFFTRACE_BIN_DIR "/offtrace", "record", "-o", dir, "--",
                                                 OFFTRACE_BIN_DIR "/example_cg", NULL}), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun: %s", r.err);
    cr_assert_eq(count_occurrences(r.err, "offtrace: recording "), 1, "rank 0 alone says it: %s", r.err);
    cr_assert_eq(count_occurrences(r.err, "rank 1:"), 0, "rank 1 is silent: %s", r.err);
    cr_assert_eq(count_occurrences(r.out, "cg: residual"), 2, "both ranks ran the program: %s", r.out);
    run_free(&r);

    char job_file[4200], *text;
    snprintf(job_file, sizeof job_file, "%s/job", dir);
    cr_assert_not_null(text = read_whole_file(job_file, NULL));
    cr_assert(!strncmp(text, OT_JOB_FILE_MAGIC "\nid ", strlen(OT_JOB_FILE_MAGIC) + 4), "%s", text);
    cr_assert(strstr(text, "\nsize 2\n"), "%s", text);
    free(text);
    check_job(dir);
    cr_assert(exists(dir, "done.0") && exists(dir, "done.1"), "both ranks finished");
    cr_assert(!exists(dir, "rank.0/raw") && !exists(dir, "rank.1/raw"), "raw/ removed after conversion");

    /* readers are sent to the job, not to a part */
    char part[4300];
    snprintf(part, sizeof part, "%s/rank.1", dir);
    cr_assert_eq(run_offtrace(&r, "info", part, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0);
    cr_assert(strstr(r.err, "rank 1's part of the MPI job"), "%s", r.err);
    cr_assert_eq(count_occurrences(r.err, "\n"), 1, "one line: %s", r.err);
    run_free(&r);
    snprintf(part, sizeof part, "%s/rank.0/part/traces.otf2", dir);
    cr_assert_eq(run_offtrace(&r, "report", part, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0);
    cr_assert(strstr(r.err, "rank 0's part of the MPI job"), "%s", r.err);
    run_free(&r);

    /* a second job into the same directory: refused on every rank, nothing touched */
    cr_assert_eq(mpirun2(&r, NULL, (char *const[]){OFFTRACE_BIN_DIR "/offtrace", "record", "-o", dir, "--",
                                                 OFFTRACE_BIN_DIR "/example_cg", NULL}), 0);
    cr_assert(!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0), "a second job must fail: %s", r.err);
    cr_assert(strstr(r.err, "already exists; offtrace never overwrites a trace"), "%s", r.err);
    cr_assert_eq(count_occurrences(r.out, "cg: residual"), 0, "the program never ran: %s", r.out);
    run_free(&r);
    check_job(dir);
}

/* A rank's record killed (SIGKILL) after its program recorded: nobody
 * converts it, the job cannot finish; `offtrace convert DIR` does. */
Test(job_mpirun, convert_finishes_a_job_whose_rank_was_killed, .timeout = 120)
{
    char dir[4096], script[4400];
    scratch_path(dir, sizeof dir, "job-killed");
    snprintf(script, sizeof script, "%s/example_cg; if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then kill -KILL $PPID; fi",
             OFFTRACE_BIN_DIR);
    run_result r;
    cr_assert_eq(mpirun2(&r, NULL, (char *const[]){OFFTRACE_BIN_DIR "/offtrace", "record", "-o", dir, "--", "sh",
                                                 "-c", script, NULL}), 0);
    cr_assert(!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0), "mpirun reports the killed rank: %s", r.err);
    run_free(&r);
    cr_assert(exists(dir, "rank.1/raw"), "rank 1's recording stays");
    cr_assert(!exists(dir, "rank.1/part/traces.otf2") && !exists(dir, "done.1"));

    /* the readers say the job is not one archive yet */
    cr_assert_eq(run_offtrace(&r, "report", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 0);
    cr_assert(strstr(r.err, "not merged into one archive yet; run: offtrace convert"), "%s", r.err);
    run_free(&r);

    cr_assert_eq(run_offtrace(&r, "convert", dir, NULL), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "%s", r.err);
    run_free(&r);
    check_job(dir);
    cr_assert(exists(dir, "done.0") && exists(dir, "done.1"));
    cr_assert(!exists(dir, "rank.1/raw"));
}

/* Without the CLI (OFFTRACE_OUTPUT and the tool variable only), the library
 * finds the job itself and records into rank.N of the one directory. */
Test(job_mpirun, the_library_alone_appends_the_rank, .timeout = 120)
{
    char dir[4096], output[4200];
    scratch_path(dir, sizeof dir, "job-env");
    snprintf(output, sizeof output, "OFFTRACE_OUTPUT=%s", dir);
    run_result r;
    cr_assert_eq(mpirun2(&r, NULL, (char *const[]){"-x", "OMP_TOOL_LIBRARIES=" OFFTRACE_LIB_DIR "/libofftrace.so",
                                                 "-x", output, OFFTRACE_BIN_DIR "/example_cg", NULL}), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun: %s", r.err);
    run_free(&r);
    check_job(dir);
    cr_assert(exists(dir, "done.0") && exists(dir, "done.1"));
}

/* A job of one rank is no job: today's layout, as without mpirun. */
Test(job_mpirun, one_rank_records_as_today, .timeout = 120)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "job-np1");
    run_result r;
    char *args[] = {OFFTRACE_BIN_DIR "/offtrace", "record", "-o", dir, "--", OFFTRACE_BIN_DIR "/example_cg", NULL};
    cr_assert_eq(run_mpirun(1, args, NULL, &r), 0);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "mpirun: %s", r.err);
    run_free(&r);
    cr_assert(exists(dir, "traces.otf2"));
    cr_assert(!exists(dir, "job") && !exists(dir, "rank.0"));
    char *message = NULL;
    cr_assert_eq(otf2_print_check(dir, &message), 0, "%s", message);
    free(message);
}

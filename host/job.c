#define _GNU_SOURCE
#include "job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the environment ---- */

/* A launcher's number: decimal digits only, below \p limit. -1 absent, -2 malformed. */
static long long env_number(const char *name, unsigned long long limit)
{
    const char *text = getenv(name);
    if (!text)
        return -1;
    if (!*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 12)
        return -2;
    unsigned long long v = strtoull(text, NULL, 10);
    return v < limit ? (long long)v : -2;
}

/* The rank's and size's variables of one launcher, in the order asked. */
static const struct {
    const char *rank, *size, *needs;
} launchers[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL},
    {"PMI_RANK", "PMI_SIZE", NULL},
    {"PMIX_RANK", "OMPI_COMM_WORLD_SIZE", NULL},
    {"PMIX_RANK", "PMI_SIZE", NULL},
    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_ID"}, /* outside a step (sbatch's shell) it is no rank */
};

static void job_id(ot_job *job)
{
    const char *ns = getenv("PMIX_NAMESPACE"), *kvs = getenv("PMI_KVSNAME");
    const char *slurm_job = getenv("SLURM_JOB_ID"), *slurm_step = getenv("SLURM_STEP_ID");
    if (ns && *ns)
        snprintf(job->id, sizeof job->id, "%s", ns);
    else if (kvs && *kvs)
        snprintf(job->id, sizeof job->id, "%s", kvs);
    else if (slurm_job && *slurm_job && slurm_step && *slurm_step)
        snprintf(job->id, sizeof job->id, "%s.%s", slurm_job, slurm_step);
}

int ot_job_detect(ot_job *job, char *why, size_t why_size)
{
    *job = (ot_job){.rank = 0, .size = 1};
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        if (launchers[i].needs && !getenv(launchers[i].needs))
            continue;
        long long size = env_number(launchers[i].size, (unsigned long long)OT_JOB_MAX_SIZE + 1);
        long long rank = env_number(launchers[i].rank, OT_JOB_MAX_SIZE);
        if (rank == -1 || size == -1)
            continue;
        if (rank < 0 || size < 1 || rank >= size) {
            snprintf(why, why_size, "%s=%s and %s=%s do not name a rank of a job of at most %u ranks",
                     launchers[i].rank, getenv(launchers[i].rank), launchers[i].size, getenv(launchers[i].size),
                     OT_JOB_MAX_SIZE);
            return -1;
        }
        if (size == 1)
            return 0;
        job->rank = (unsigned)rank;
        job->size = (unsigned)size;
        job_id(job);
        return 1;
    }
    return 0;
}

/* ---- the job file ---- */

int ot_job_read(const char *job_dir, ot_job *job)
{
    char path[4200], text[512];
    snprintf(path, sizeof path, "%s/job", job_dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, text, sizeof text - 1) : -1;
    close(fd);
    if (n <= 0)
        return -EPROTO;
    text[n] = '\0';
    *job = (ot_job){0};
    char id[OT_JOB_ID_MAX + 1] = "";
    unsigned size;
    int used = 0;
    /* "id " may be followed by nothing: a launcher that gives no id */
    if (strncmp(text, OT_JOB_FILE_MAGIC "\nid ", sizeof OT_JOB_FILE_MAGIC + 3) != 0)
        return -EPROTO;
    const char *p = text + sizeof OT_JOB_FILE_MAGIC + 3;
    size_t len = strcspn(p, "\n");
    if (len >= sizeof job->id || p[len] != '\n')
        return -EPROTO;
    memcpy(id, p, len);
    id[len] = '\0';
    p += len + 1;
    if (sscanf(p, "size %u\n%n", &size, &used) != 1 || !used || p[used] || size < 2 || size > OT_JOB_MAX_SIZE)
        return -EPROTO;
    snprintf(job->id, sizeof job->id, "%s", id);
    job->size = size;
    return 0;
}

/* Written under a private name and linked into place: a sibling never reads
 * half a file, and link() fails if another rank's is there already. */
static int write_job_file(const char *job_dir, const ot_job *job)
{
    char path[4200], tmp[4300], text[512];
    snprintf(path, sizeof path, "%s/job", job_dir);
    snprintf(tmp, sizeof tmp, "%s/.job.%u.%d", job_dir, job->rank, (int)getpid());
    int n = snprintf(text, sizeof text, OT_JOB_FILE_MAGIC "\nid %s\nsize %u\n", job->id, job->size);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -errno;
    int rc = write(fd, text, (size_t)n) == n ? 0 : -EIO;
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && link(tmp, path) != 0)
        rc = -errno;
    unlink(tmp);
    return rc;
}

static int exists(const char *dir, const char *name)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

/* The job file of a directory another rank just made: it writes it right
 * after its mkdir, so a little patience, then a verdict. */
static int wait_for_job_file(const char *job_dir, ot_job *found)
{
    int rc = -ENOENT;
    for (int waited_ms = 0; waited_ms <= 2000; waited_ms += 10) {
        if ((rc = ot_job_read(job_dir, found)) != -ENOENT)
            return rc;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return rc;
}

static void never_overwrites(const char *dir, char *why, size_t why_size)
{
    snprintf(why, why_size, "'%s' already exists; offtrace never overwrites a trace: choose another -o or remove it",
             dir);
}

int ot_job_join(const char *job_dir, const ot_job *job, char *why, size_t why_size)
{
    int rc = 0;
    if (mkdir(job_dir, 0777) == 0) {
        rc = write_job_file(job_dir, job);
        if (rc) {
            snprintf(why, why_size, "cannot write '%s/job': %s", job_dir, strerror(-rc));
            return rc;
        }
    } else if (errno != EEXIST) {
        rc = -errno;
        snprintf(why, why_size, "cannot create '%s': %s", job_dir, strerror(errno));
        return rc;
    } else {
        ot_job found;
        if (exists(job_dir, "traces.otf2") || wait_for_job_file(job_dir, &found) != 0 ||
            strcmp(found.id, job->id) != 0 || found.size != job->size) {
            never_overwrites(job_dir, why, why_size);
            return -EEXIST;
        }
    }
    char rank_dir[4200];
    ot_job_rank_dir(job_dir, job->rank, rank_dir, sizeof rank_dir);
    if (mkdir(rank_dir, 0777) != 0) {
        rc = -errno;
        if (rc == -EEXIST)
            never_overwrites(rank_dir, why, why_size);
        else
            snprintf(why, why_size, "cannot create '%s': %s", rank_dir, strerror(-rc));
        return rc;
    }
    return 0;
}

/* ---- the layout ---- */

void ot_job_rank_dir(const char *job_dir, unsigned rank, char *buf, size_t size)
{
    snprintf(buf, size, "%s/rank.%u", job_dir, rank);
}

void ot_job_part_dir(const char *job_dir, unsigned rank, char *buf, size_t size)
{
    snprintf(buf, size, "%s/rank.%u/part", job_dir, rank);
}

void ot_job_default_dir(const char *program, const ot_job *job, char *buf, size_t size)
{
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    char id[OT_JOB_ID_MAX];
    size_t n = 0;
    for (const char *p = job->id; *p && n + 1 < sizeof id; p++)
        id[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p) ? *p : '_';
    id[n] = '\0';
    snprintf(buf, size, "offtrace-%s.job%s", base, id);
}

/* Split \p path into its parent and last component as the user spelled it;
 * a path ending in "." or ".." is resolved first. 0, or -1 (no parent). */
static int split_path(const char *path, char *parent, size_t parent_size, char *base, size_t base_size)
{
    char spelled[4096], real[PATH_MAX];
    snprintf(spelled, sizeof spelled, "%s", path);
    size_t n = strlen(spelled);
    while (n > 1 && spelled[n - 1] == '/')
        spelled[--n] = '\0';
    char *slash = strrchr(spelled, '/');
    const char *last = slash ? slash + 1 : spelled;
    if (!strcmp(last, ".") || !strcmp(last, "..") || !*last) {
        if (!realpath(path, real) || !strcmp(real, "/"))
            return -1;
        snprintf(spelled, sizeof spelled, "%s", real);
        slash = strrchr(spelled, '/');
        last = slash + 1;
    }
    snprintf(base, base_size, "%s", last);
    if (!slash)
        snprintf(parent, parent_size, ".");
    else if (slash == spelled)
        snprintf(parent, parent_size, "/");
    else
        snprintf(parent, parent_size, "%.*s", (int)(slash - spelled), spelled);
    return 0;
}

/* "rank.N" with N a plain decimal below the job's size. */
static int rank_of_name(const char *name, const ot_job *job, unsigned *rank)
{
    if (strncmp(name, "rank.", 5) != 0 || !name[5] || strspn(name + 5, "0123456789") != strlen(name + 5) ||
        strlen(name + 5) > 8 || (name[5] == '0' && name[6]))
        return -1;
    unsigned long v = strtoul(name + 5, NULL, 10);
    if (v >= job->size)
        return -1;
    *rank = (unsigned)v;
    return 0;
}

ot_job_place_kind ot_job_locate(const char *dir, ot_job_place *place)
{
    char parent[4096], base[256], grandparent[4096], parent_base[256];
    memset(place, 0, sizeof *place);
    if (ot_job_read(dir, &place->job) == 0) {
        snprintf(place->job_dir, sizeof place->job_dir, "%s", dir);
        return place->kind = OT_JOB_PLACE_JOB;
    }
    if (split_path(dir, parent, sizeof parent, base, sizeof base) != 0)
        return place->kind = OT_JOB_PLACE_NONE;
    unsigned rank;
    if (ot_job_read(parent, &place->job) == 0 && rank_of_name(base, &place->job, &rank) == 0) {
        place->job.rank = rank;
        snprintf(place->job_dir, sizeof place->job_dir, "%s", parent);
        return place->kind = OT_JOB_PLACE_RANK;
    }
    if (strcmp(base, "part") != 0 ||
        split_path(parent, grandparent, sizeof grandparent, parent_base, sizeof parent_base) != 0 ||
        ot_job_read(grandparent, &place->job) != 0 || rank_of_name(parent_base, &place->job, &rank) != 0) {
        memset(place, 0, sizeof *place);
        return place->kind = OT_JOB_PLACE_NONE;
    }
    place->job.rank = rank;
    snprintf(place->job_dir, sizeof place->job_dir, "%s", grandparent);
    return place->kind = OT_JOB_PLACE_PART;
}

/* ---- the job's finish: last one out ---- */

int ot_job_mark_done(const char *job_dir, unsigned rank)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/done.%u", job_dir, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

unsigned ot_job_count_done(const char *job_dir, unsigned size)
{
    DIR *d = opendir(job_dir);
    if (!d)
        return 0;
    unsigned count = 0;
    ot_job bound = {.size = size};
    for (struct dirent *e; (e = readdir(d));) {
        unsigned rank;
        char as_rank[300];
        if (strncmp(e->d_name, "done.", 5) != 0)
            continue;
        snprintf(as_rank, sizeof as_rank, "rank.%s", e->d_name + 5); /* the same rule for N */
        if (rank_of_name(as_rank, &bound, &rank) == 0)
            count++;
    }
    closedir(d);
    return count;
}

int ot_job_claim_merge(const char *job_dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/merging", job_dir);
    return mkdir(path, 0777) == 0 ? 0 : -errno;
}

/**
 * \file lineage.c
 * \brief A traced program's descendants: found by their traced ancestor's
 *        mapped recording, and said once by that ancestor (lineage.h).
 */
#define _GNU_SOURCE
#include "lineage.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "liveness.h"

/* Field 4 of /proc/<pid>/stat. \return 0 when unknown. */
static pid_t parent_of(pid_t pid)
{
    char buf[1024];
    const char *p = ot_proc_stat_fields(pid, buf, sizeof buf);
    int ppid;
    char state;
    if (!p || sscanf(p, " %c %d", &state, &ppid) != 2 || ppid < 0)
        return 0;
    return (pid_t)ppid;
}

/* The raw/ directory of a live recording that `pid` has mapped, if any. Its
 * maps may list a recording it merely inherited (a forked child of the
 * traced process): that recording's owner is an ancestor too, and liveness
 * tells it from a recording whose writer has ended. */
static int mapped_recording(pid_t pid, char *raw_dir, size_t size)
{
    static const char suffix[] = "/raw/counters";
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *maps = fopen(path, "re"); /* another user's process: EACCES, not traced by us anyway */
    if (!maps)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int found = 0;
    while (!found && (len = getline(&line, &cap, maps)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        /* address perms offset dev inode, then the path (which may hold spaces) */
        char *file = line;
        for (int field = 0; field < 5 && file; field++) {
            file = strchr(file, ' ');
            if (file)
                while (*file == ' ')
                    file++;
        }
        if (!file || *file != '/')
            continue;
        size_t flen = strlen(file);
        if (flen <= sizeof suffix - 1 || strcmp(file + flen - (sizeof suffix - 1), suffix) != 0)
            continue; /* also skips "... (deleted)": a recording already converted and removed */
        size_t raw_len = flen - (sizeof "/counters" - 1);
        if (raw_len >= size)
            continue;
        memcpy(raw_dir, file, raw_len);
        raw_dir[raw_len] = '\0';
        found = ot_recording_alive(raw_dir, NULL);
    }
    free(line);
    fclose(maps);
    return found;
}

int ot_lineage_traced_ancestor(char *raw_dir, size_t size)
{
    pid_t pid = getppid();
    for (int depth = 0; depth < OT_LINEAGE_MAX_DEPTH && pid > 1; depth++) {
        if (mapped_recording(pid, raw_dir, size))
            return 1;
        pid = parent_of(pid);
    }
    return 0;
}

unsigned ot_lineage_report_untraced(const char *dir, pid_t program, char *program_exe, size_t exe_size, FILE *out)
{
    if (program_exe && exe_size)
        program_exe[0] = '\0';
    char path[PATH_MAX + 64], line[PATH_MAX + 32], names[400] = "";
    snprintf(path, sizeof path, "%s/" OT_UNTRACED_PROCESSES_FILE, dir);
    /* Only a plain file: a FIFO put there would hold the program's exit. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    struct stat st;
    if (fd < 0)
        return 0;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f) {
        close(fd);
        return 0;
    }
    unlink(path);
    unsigned others = 0;
    while (fgets(line, sizeof line, f)) {
        int pid;
        char exe[PATH_MAX];
        if (sscanf(line, "%d %4095[^\n]", &pid, exe) != 2)
            continue;
        if (pid == (int)program) {
            if (program_exe && exe_size)
                snprintf(program_exe, exe_size, "%s", exe);
            continue;
        }
        if (others++ < 3) {
            const char *base = strrchr(exe, '/');
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%d (%s)", used ? ", " : "", pid, base ? base + 1 : exe);
        }
    }
    fclose(f);
    if (others)
        fprintf(out, "offtrace: %u other process%s of the program used OpenMP and %s not traced (one process "
                     "per recording): %s%s\n", others, others > 1 ? "es" : "", others > 1 ? "were" : "was",
                names, others > 3 ? ", ..." : "");
    return others;
}

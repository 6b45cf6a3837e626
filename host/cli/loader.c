/**
 * \file loader.c
 * \brief Why the dynamic loader could not start the program `record` ran
 *        (cli.h): a library it needs is not found, or the loader itself is
 *        missing.
 *
 * The program's stderr is the program's: record never reads it, so it
 * cannot see the loader's "error while loading shared libraries" line
 * that went there. It asks the same loader again instead, after the run
 * and only when the program exited 127 without starting OpenMP: the
 * program's own interpreter (PT_INTERP) with `--list`, in the environment
 * the program had. That loads the libraries exactly as the failed start
 * did (DT_NEEDED through RPATH/RUNPATH, LD_LIBRARY_PATH, the cache, the
 * preloads) but runs none of their code, and fails with the same message.
 * A program that exited 127 on its own loads fine here, and is not
 * blamed on the loader.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#ifndef OFFTRACE_LLVM_LIBDIR
#define OFFTRACE_LLVM_LIBDIR "/usr/lib/llvm-19/lib"
#endif

/* The file execvp ran for \p name: itself when it has a '/', else the
 * first executable regular file of that name on PATH. */
static int program_file(const char *name, char *path, size_t size)
{
    if (strchr(name, '/')) {
        snprintf(path, size, "%s", name);
        return 0;
    }
    const char *list = getenv("PATH");
    if (!list)
        list = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = list;; p += strcspn(p, ":") + 1) {
        size_t n = strcspn(p, ":");
        struct stat st;
        if (n)
            snprintf(path, size, "%.*s/%s", (int)n, p, name);
        else /* an empty entry is the current directory */
            snprintf(path, size, "./%s", name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
            return 0;
        if (!p[n])
            return -1;
    }
}

/* The interpreter \p path asks for: the ELF's dynamic loader (PT_INTERP),
 * or a script's "#!" program; "" if none (static, not ELF). 64-bit ELF
 * only: offtrace records x86-64 programs. \return 1 for a script's. */
static int interpreter_of(const char *path, char *interp, size_t size)
{
    interp[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char line[256];
    ssize_t got = pread(fd, line, sizeof line - 1, 0);
    if (got > 2 && line[0] == '#' && line[1] == '!') {
        line[got] = '\0';
        const char *start = line + 2 + strspn(line + 2, " \t");
        snprintf(interp, size, "%.*s", (int)strcspn(start, " \t\n"), start);
        close(fd);
        return 1;
    }
    Elf64_Ehdr eh;
    if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr))
        for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
            Elf64_Phdr ph;
            if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph)
                break;
            if (ph.p_type != PT_INTERP || ph.p_filesz < 2 || ph.p_filesz >= size)
                continue;
            got = pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset);
            interp[got == (ssize_t)ph.p_filesz ? ph.p_filesz - 1 : 0] = '\0';
            break;
        }
    close(fd);
    return 0;
}

/* `INTERP --list PATH`, its stdout and stderr together in \p out.
 * \return its exit status, -1 if it could not be run. */
static int loader_list(const char *interp, const char *path, char *out, size_t size)
{
    int fds[2];
    out[0] = '\0';
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        execl(interp, interp, "--list", path, (char *)NULL);
        _exit(126);
    }
    close(fds[1]);
    size_t used = 0;
    for (;;) {
        char chunk[4096];
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t keep = used + 1 < size ? size - 1 - used : 0; /* the start holds the first error */
        memcpy(out + used, chunk, (size_t)n < keep ? (size_t)n : keep);
        used += (size_t)n < keep ? (size_t)n : keep;
    }
    out[used] = '\0';
    close(fds[0]);
    int status;
    if (pid < 0)
        return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The loader's words about \p path in its --list output: the text after
 * "error while loading shared libraries: ", or "LIB: not found" from a
 * "LIB => not found" line; \p missing gets the library's name when one
 * was not found. \return 0 when there were such words. */
static int loader_words(const char *output, char *words, size_t size, char *missing, size_t missing_size)
{
    static const char marker[] = "error while loading shared libraries: ";
    missing[0] = '\0';
    const char *at = strstr(output, marker);
    if (at) {
        at += strlen(marker);
        snprintf(words, size, "%.*s", (int)strcspn(at, "\n"), at);
        const char *colon = strstr(words, ": cannot open shared object file");
        if (colon)
            snprintf(missing, missing_size, "%.*s", (int)(colon - words), words);
        return 0;
    }
    at = strstr(output, " => not found");
    if (!at)
        return -1;
    const char *line = at;
    while (line > output && line[-1] != '\n')
        line--;
    line += strspn(line, " \t");
    snprintf(missing, missing_size, "%.*s", (int)(at - line), line);
    snprintf(words, size, "%s => not found", missing);
    return 0;
}

/* The fix for a library that is not found: where LLVM's runtime lives when
 * it is there (Debian's clang-19 links no rpath to it), else the words. */
static void fix_for(const char *missing, char *fix, size_t size)
{
    char candidate[PATH_MAX];
    const char *dir = "DIR";
    snprintf(candidate, sizeof candidate, "%s/%s", OFFTRACE_LLVM_LIBDIR, missing);
    if (missing[0] && access(candidate, R_OK) == 0)
        dir = OFFTRACE_LLVM_LIBDIR;
    snprintf(fix, size, "; link it with -Wl,-rpath,%s or run it with LD_LIBRARY_PATH=%s%s%s", dir, dir,
             strcmp(dir, "DIR") ? "" : ", DIR being the directory that holds ", strcmp(dir, "DIR") ? "" : missing);
}

int ot_cli_explain_unloadable(const char *program)
{
    char path[PATH_MAX], interp[PATH_MAX], output[8192], words[1024], missing[256], fix[PATH_MAX * 2 + 320];
    if (program_file(program, path, sizeof path) != 0)
        return -1;
    if (interpreter_of(path, interp, sizeof interp) || !interp[0] || access(interp, X_OK) != 0)
        return -1; /* a script's interpreter ran, and its own loading was not record's to check */
    int status = loader_list(interp, path, output, sizeof output);
    if (status <= 0 || loader_words(output, words, sizeof words, missing, sizeof missing) != 0)
        return -1;
    fix[0] = '\0';
    if (missing[0])
        fix_for(missing, fix, sizeof fix);
    fprintf(stderr, "offtrace: no trace: the dynamic loader could not start '%s' (%s)%s\n", program, words, fix);
    return 0;
}

int ot_cli_explain_missing_interpreter(const char *program)
{
    char path[PATH_MAX], interp[PATH_MAX];
    struct stat st;
    if (program_file(program, path, sizeof path) != 0 || stat(path, &st) != 0)
        return -1;
    int script = interpreter_of(path, interp, sizeof interp);
    if (!interp[0] || access(interp, F_OK) == 0)
        return -1;
    if (script)
        fprintf(stderr, "offtrace: %s: its interpreter %s (its #! line) does not exist\n", program, interp);
    else
        fprintf(stderr, "offtrace: %s: its dynamic loader %s does not exist (a program built for another "
                        "system?)\n", program, interp);
    return 0;
}

typedef struct mpi_found {
    char *soname;
    size_t size;
} mpi_found;

static int is_libmpi(const char *name, void *arg)
{
    mpi_found *f = arg;
    if (strncmp(name, "libmpi.so.", 10))
        return 0;
    snprintf(f->soname, f->size, "%s", name);
    return 1;
}

int ot_cli_program_mpi(const char *program, char *soname, size_t size)
{
    char path[PATH_MAX], interp[PATH_MAX];
    soname[0] = '\0';
    if (program_file(program, path, sizeof path) != 0)
        return -1;
    if (interpreter_of(path, interp, sizeof interp) || !interp[0])
        return -1; /* a script or a static program: what it starts is not known here */
    mpi_found found = {soname, size};
    int rc = ot_cli_needed_libraries(path, is_libmpi, &found);
    return rc < 0 ? -1 : rc;
}

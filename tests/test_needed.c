/*
 * record's MPI decision (host/cli/needed.c, loader.c): the libraries a
 * program loads, read from its ELF files without running anything, must be
 * the ones its dynamic loader loads, in the same order (`ld.so --list` is
 * the reference: the loader's own list, in this environment), and a
 * program is an MPI program when libmpi.so.N is among them, directly or
 * through another library.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define LOADER "/lib64/ld-linux-x86-64.so.2"

typedef struct names {
    char text[16384];
    unsigned count;
} names;

static void append(names *n, const char *name)
{
    size_t used = strlen(n->text);
    snprintf(n->text + used, sizeof n->text - used, "%s\n", name);
    n->count++;
}

static int collect(const char *name, void *arg)
{
    if (strncmp(name, "ld-linux", 8)) /* the loader itself: ld.so lists it by path */
        append(arg, name);
    return 0;
}

/* The names the loader lists as "NAME => PATH": what it loaded for a DT_NEEDED entry. */
static void loader_list(const char *program, names *n)
{
    char command[4200], line[4096];
    snprintf(command, sizeof command, "%s --list '%s' 2>&1", LOADER, program);
    FILE *p = popen(command, "r");
    cr_assert(p, "popen %s", command);
    while (fgets(line, sizeof line, p)) {
        char name[1024];
        if (strstr(line, " => ") && sscanf(line, " %1023s", name) == 1)
            append(n, name);
    }
    cr_assert_eq(pclose(p), 0, "%s failed", command);
}

static void same_as_the_loader(const char *program)
{
    names walked = {{0}, 0}, listed = {{0}, 0};
    cr_assert_eq(ot_cli_needed_libraries(program, collect, &walked), 0, "%s", program);
    loader_list(program, &listed);
    cr_expect_gt(listed.count, 0, "%s: the loader lists nothing", program);
    cr_expect_str_eq(walked.text, listed.text, "%s: walked (left) and the loader's list differ", program);
}

Test(needed, the_walk_finds_what_the_loader_loads)
{
    same_as_the_loader(OFFTRACE_BIN_DIR "/offtrace");  /* RUNPATH $ORIGIN/../lib, then the cache */
    same_as_the_loader(OFFTRACE_BIN_DIR "/example_cg"); /* LLVM's runtime through RUNPATH */
    same_as_the_loader("/bin/sh");
#ifdef OFFTRACE_TEST_MPI
    same_as_the_loader(OFFTRACE_BIN_DIR "/example_mpi_reduce");
    same_as_the_loader(OFFTRACE_BIN_DIR "/mpi_indirect"); /* libmpi through a library found by $ORIGIN */
#endif
}

Test(needed, the_walk_follows_the_environment)
{
    /* A directory without the libraries first, then one with: the search
     * goes on; the user's preloads and what they need are loaded too. */
    setenv("LD_LIBRARY_PATH", "/nonexistent:" OFFTRACE_LIB_DIR, 1);
    same_as_the_loader(OFFTRACE_BIN_DIR "/example_cg");
#ifdef OFFTRACE_TEST_MPI
    setenv("LD_PRELOAD", OFFTRACE_LIB_DIR "/libmpi_counter.so", 1);
    same_as_the_loader(OFFTRACE_BIN_DIR "/example_cg");
    char soname[128];
    cr_expect_eq(ot_cli_program_mpi(OFFTRACE_BIN_DIR "/example_cg", soname, sizeof soname), 1,
                 "a preload that loads libmpi makes the program an MPI program, as the loader's list said");
    unsetenv("LD_PRELOAD");
#endif
    unsetenv("LD_LIBRARY_PATH");
}

Test(needed, a_program_that_loads_libmpi_is_an_mpi_program)
{
    char soname[128];
    cr_expect_eq(ot_cli_program_mpi(OFFTRACE_BIN_DIR "/example_cg", soname, sizeof soname), 0);
    cr_expect_str_eq(soname, "");
#ifdef OFFTRACE_TEST_MPI
    cr_expect_eq(ot_cli_program_mpi(OFFTRACE_BIN_DIR "/example_mpi_reduce", soname, sizeof soname), 1);
    cr_expect(!strncmp(soname, "libmpi.so.", 10), "soname %s", soname);
    soname[0] = 'x';
    cr_expect_eq(ot_cli_program_mpi(OFFTRACE_BIN_DIR "/mpi_indirect", soname, sizeof soname), 1,
                 "libmpi through another library counts");
    cr_expect(!strncmp(soname, "libmpi.so.", 10), "soname %s", soname);
#endif
}

Test(needed, what_it_cannot_know)
{
    char soname[128], script[] = "/tmp/offtrace-needed-XXXXXX";
    int fd = mkstemp(script);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "#!/bin/sh\nexit 0\n", 17), 17);
    close(fd);
    chmod(script, 0755);
    cr_expect_eq(ot_cli_program_mpi(script, soname, sizeof soname), -1, "a script: its interpreter is no answer");
    unlink(script);
    cr_expect_eq(ot_cli_program_mpi("/nonexistent/program", soname, sizeof soname), -1);
    cr_expect_eq(ot_cli_needed_libraries("/etc/passwd", collect, &(names){{0}, 0}), -1, "not ELF");
}

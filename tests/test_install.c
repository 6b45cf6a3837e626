/**
 * \file test_install.c
 * \brief `cmake --install`: an installed offtrace works on its own, wherever
 *        it lies (issue 12).
 *
 * The build tree cannot be deleted from inside ctest (ctest and this test
 * run from it), so each test makes it unreachable in the ways that count:
 * it installs into a staging prefix, copies that prefix to another place
 * outside the build tree and deletes the staging prefix (so neither the
 * build tree nor the path the install was made for is where the tree
 * lies), runs only what is in the copy, and checks with the dynamic
 * loader's own log (LD_DEBUG=files) that every offtrace library any process
 * of the run loads comes from the copy. The traced program is copied out of
 * the build tree too, as a user's own program would be elsewhere.
 */
#include <criterion/criterion.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/run.h"

static const char *const verbs[] = {"record", "report", "view", "export", "info", "convert"};

/* An installed tree: `root` holds `prefix` (the moved copy) and scratch. */
typedef struct installed {
    char root[PATH_MAX];
    char prefix[PATH_MAX];
} installed;

/* `/bin/sh -c` on \p fmt's command, output captured in \p r. */
__attribute__((format(printf, 3, 4))) static void sh(run_result *r, char *const env[], const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    cr_assert_eq(run_command(argv, env, NULL, r), 0, "cannot run: %s", cmd);
}

/* \p fmt's command must exit 0; its stdout is returned (malloc'd). */
__attribute__((format(printf, 2, 3))) static char *must(char *const env[], const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    run_result r;
    sh(&r, env, "%s", cmd);
    cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0, "failed (status %d): %s\nstdout: %s\nstderr: %s",
              r.status, cmd, r.out, r.err);
    free(r.err);
    return r.out;
}

/* The tree of the running test, removed after it even when it fails. */
static char tree_to_remove[PATH_MAX];

static void remove_tree(void)
{
    if (tree_to_remove[0]) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree_to_remove);
        if (system(cmd) != 0)
            fprintf(stderr, "test_install: could not remove %s\n", tree_to_remove);
        tree_to_remove[0] = '\0';
    }
}

TestSuite(install, .fini = remove_tree);

static void install_moved(installed *t)
{
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(t->root, sizeof t->root, "%s/offtrace-install-XXXXXX", tmp);
    cr_assert_not_null(mkdtemp(t->root));
    snprintf(tree_to_remove, sizeof tree_to_remove, "%s", t->root);
    cr_assert(strncmp(t->root, OFFTRACE_BUILD_DIR "/", strlen(OFFTRACE_BUILD_DIR) + 1) != 0,
              "the temporary directory %s lies in the build tree", t->root);
    snprintf(t->prefix, sizeof t->prefix, "%s/moved", t->root);
    free(must(NULL, "'%s' --install '%s' --prefix '%s/staged' >/dev/null", OFFTRACE_CMAKE_COMMAND,
              OFFTRACE_BUILD_DIR, t->root));
    free(must(NULL, "cp -a '%s/staged' '%s' && rm -rf '%s/staged'", t->root, t->prefix, t->root));
}

/* The offtrace libraries named in the loader's logs (\p dir/ld/ld.PID): each must
 * lie under \p prefix; returns a bit per library seen (1 host, 2 device). */
static unsigned offtrace_libraries_loaded(const char *dir, const char *prefix)
{
    char *log = must(NULL, "cat '%s'/ld/ld.* | grep -o 'file=[^ ]*offtrace[^ ]*\\.so' | sed 's/^file=//' | sort -u", dir);
    unsigned seen = 0;
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        char real[PATH_MAX];
        cr_assert_not_null(realpath(line, real), "the loader loaded %s, which is gone", line);
        cr_assert(strncmp(real, prefix, strlen(prefix)) == 0 && real[strlen(prefix)] == '/',
                  "%s was loaded from outside the installed tree %s", real, prefix);
        const char *base = strrchr(real, '/') + 1;
        seen |= !strcmp(base, "libofftrace.so") ? 1u : !strcmp(base, "libofftrace-device.so") ? 2u : 0u;
    }
    free(log);
    return seen;
}

Test(install, record_report_view_export_from_a_moved_prefix)
{
    installed t;
    install_moved(&t);
    free(must(NULL, "mkdir '%s/ld' && cp '%s/bin/example_saxpy' '%s/saxpy'", t.root, OFFTRACE_BUILD_DIR, t.root));

    char ld_output[PATH_MAX + 16];
    snprintf(ld_output, sizeof ld_output, "LD_DEBUG_OUTPUT=%s/ld/ld", t.root);
    char *env[] = {"LD_DEBUG=files", ld_output, "LD_LIBRARY_PATH=", "OMP_TOOL_LIBRARIES=", "LD_PRELOAD=", NULL};
    char *out = must(env, "cd '%s' && '%s/bin/offtrace' record -o run -- ./saxpy 2>record.err", t.root, t.prefix);
    cr_expect(strstr(out, "saxpy: n=4096") != NULL, "the program's own output is gone: %s", out);
    free(out);
    cr_assert_eq(offtrace_libraries_loaded(t.root, t.prefix), 3u,
                 "the traced program did not load both libofftrace.so and libofftrace-device.so from %s", t.prefix);
    /* record converts in the CLI; a program traced by hand converts through
     * the CLI the host library finds at ../bin/offtrace: that one too. */
    free(must(NULL, "rm -f '%s'/ld/*", t.root));
    char tool[PATH_MAX + 64], collector[PATH_MAX + 64];
    snprintf(tool, sizeof tool, "OMP_TOOL_LIBRARIES=%s/lib/libofftrace.so", t.prefix);
    snprintf(collector, sizeof collector, "LD_PRELOAD=%s/lib/libofftrace-device.so", t.prefix);
    char *by_hand[] = {"LD_DEBUG=files", ld_output, "LD_LIBRARY_PATH=", tool, collector, "OFFTRACE_OUTPUT=by-hand", NULL};
    free(must(by_hand, "cd '%s' && ./saxpy", t.root));
    cr_assert_eq(offtrace_libraries_loaded(t.root, t.prefix), 3u);
    /* the host library found the CLI at ../bin/offtrace of the tree and converted */
    free(must(NULL, "test -f '%s/by-hand/traces.otf2' && test ! -e '%s/by-hand/raw'", t.root, t.root));

    char *report = must(NULL, "cd '%s' && '%s/bin/offtrace' report run | tee report.txt && "
                        "'%s/bin/offtrace' report by-hand", t.root, t.prefix, t.prefix);
    cr_expect(strstr(report, "saxpy") != NULL, "the report does not name the program's kernels:\n%s", report);
    free(report);
    free(must(NULL,
              "cd '%s' && '%s/bin/offtrace' view run -o run.html && test -s run.html && grep -q 'id=\"ot-data\"' run.html",
              t.root, t.prefix));
    free(must(NULL, "cd '%s' && '%s/bin/offtrace' export run -o run.json && test -s run.json", t.root, t.prefix));

    /* what offtrace says (record's summary, a report, every --help) names
     * only documents the installed tree has */
    char *said = must(NULL, "cd '%s' && cat record.err report.txt && for v in '' %s %s %s %s %s %s; do "
                      "'%s/bin/offtrace' $v --help; done", t.root, verbs[0], verbs[1], verbs[2], verbs[3], verbs[4],
                      verbs[5], t.prefix);
    cr_expect(strstr(said, "docs/") == NULL, "a message points at the source tree's docs/:\n%s", said);
    int named = 0;
    for (const char *at = said; (at = strstr(at, "share/doc/offtrace/")) != NULL; named++) {
        size_t n = strspn(at, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-");
        while (n && at[n - 1] == '.') /* a sentence's full stop */
            n--;
        char doc[PATH_MAX * 2];
        snprintf(doc, sizeof doc, "%s/%.*s", t.prefix, (int)n, at);
        cr_expect(access(doc, R_OK) == 0, "a message names %.*s, which the installed tree lacks", (int)n, at);
        at += n;
    }
    cr_expect(named >= 3, "record, report and the help name %d installed documents; expected at least 3", named);
    free(said);
}

Test(install, man_pages_are_valid_roff_with_every_option_of_the_help)
{
    installed t;
    install_moved(&t);
    char page[PATH_MAX + 64];
    snprintf(page, sizeof page, "%s/share/man/man1/offtrace.1", t.prefix);
    run_result r;
    sh(&r, NULL, "groff -man -Tutf8 -ww -z '%s' 2>&1", page);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && !*r.out, "%s: %s", page, r.out);
    run_free(&r);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
        snprintf(page, sizeof page, "%s/share/man/man1/offtrace-%s.1", t.prefix, verbs[i]);
        sh(&r, NULL, "groff -man -Tutf8 -ww -z '%s' 2>&1", page);
        cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && !*r.out, "%s is not valid roff: %s", page,
                  r.out);
        run_free(&r);
        /* every option line of `offtrace VERB --help` is in the page */
        char *page_text = must(NULL, "groff -man -Tascii -P-cbou '%s' | tr -s ' \\n' '  '", page);
        char *options = must(NULL, "'%s/bin/offtrace' %s --help | sed -n '/^options:/,$p' | grep '^  -' | "
                             "cut -c3-24 | sed 's/ *$//'", t.prefix, verbs[i]);
        int count = 0;
        for (char *o = strtok(options, "\n"); o; o = strtok(NULL, "\n"), count++)
            cr_expect(strstr(page_text, o) != NULL, "%s lacks the option \"%s\" of its --help", page, o);
        cr_expect(count >= 1, "offtrace %s --help lists no option", verbs[i]);
        char synopsis[64];
        snprintf(synopsis, sizeof synopsis, "offtrace %s [options]", verbs[i]);
        cr_expect(strstr(page_text, synopsis) != NULL, "%s has no synopsis", page);
        free(options);
        free(page_text);
    }
}

static const char program[] =
    "#include <stdio.h>\n"
    "#include <offtrace/offtrace.h>\n"
    "#include <offtrace/event_catalogue.h>\n"
    "int main(void)\n"
    "{\n"
    "    printf(\"offtrace %s, archive %s, tool %s\\n\", OFFTRACE_VERSION_STRING, OFFTRACE_ARCHIVE_NAME,\n"
    "           OFFTRACE_TOOL);\n"
    "    return 0;\n"
    "}\n";

static void write_program(const char *dir)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/p.c", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(program, f);
    cr_assert_eq(fclose(f), 0);
}

Test(install, a_program_builds_against_the_package_with_pkg_config)
{
    installed t;
    install_moved(&t);
    free(must(NULL, "mkdir '%s/pc'", t.root));
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s/pc", t.root);
    write_program(dir);
    char pkg_path[PATH_MAX + 64];
    snprintf(pkg_path, sizeof pkg_path, "PKG_CONFIG_PATH=%s/lib/pkgconfig", t.prefix);
    char *env[] = {pkg_path, NULL};
    char *out = must(env,
                     "cd '%s' && '%s' p.c -o p $(pkg-config --cflags --libs offtrace) "
                     "-DOFFTRACE_TOOL=\\\"$(pkg-config --variable=tool offtrace)\\\" && ./p && "
                     "pkg-config --modversion offtrace && test -f \"$(pkg-config --variable=tool offtrace)\" && "
                     "test -f \"$(pkg-config --variable=collector offtrace)\" && "
                     "test -x \"$(pkg-config --variable=cli offtrace)\"",
                     dir, OFFTRACE_C_COMPILER);
    char expected[PATH_MAX + 128];
    snprintf(expected, sizeof expected, "offtrace %s, archive traces, tool ", OFFTRACE_VERSION_STRING_EXPECTED);
    cr_expect(strstr(out, expected) != NULL, "%s", out);
    cr_expect(strstr(out, "/lib/libofftrace.so\n" OFFTRACE_VERSION_STRING_EXPECTED "\n") != NULL, "%s", out);
    free(out);
}

Test(install, a_program_builds_against_the_package_with_find_package)
{
    installed t;
    install_moved(&t);
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s/cm", t.root);
    free(must(NULL, "mkdir '%s'", dir));
    write_program(dir);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/CMakeLists.txt", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "cmake_minimum_required(VERSION 3.20)\n"
               "project(uses_offtrace C)\n"
               "find_package(offtrace 0.1 REQUIRED)\n"
               "add_executable(p p.c)\n"
               "target_link_libraries(p PRIVATE offtrace::offtrace)\n"
               "target_compile_definitions(p PRIVATE OFFTRACE_TOOL=\"$<TARGET_FILE:offtrace::tool>\")\n"
               "file(WRITE ${CMAKE_BINARY_DIR}/found.txt \"${OFFTRACE_VERSION} ${OFFTRACE_EXECUTABLE} "
               "${OFFTRACE_DEVICE_COLLECTOR_LIBRARY}\")\n");
    cr_assert_eq(fclose(f), 0);
    char *out = must(NULL,
                     "cd '%s' && '%s' -S . -B b -DCMAKE_C_COMPILER='%s' -DCMAKE_PREFIX_PATH='%s' >/dev/null && "
                     "'%s' --build b >/dev/null && ./b/p && cat b/found.txt",
                     dir, OFFTRACE_CMAKE_COMMAND, OFFTRACE_C_COMPILER, t.prefix, OFFTRACE_CMAKE_COMMAND);
    char expected[PATH_MAX + 128];
    snprintf(expected, sizeof expected, "offtrace %s, archive traces, tool %s/lib/libofftrace.so\n",
             OFFTRACE_VERSION_STRING_EXPECTED, t.prefix);
    cr_expect(strstr(out, expected) != NULL, "expected \"%s\" in:\n%s", expected, out);
    snprintf(expected, sizeof expected, "%s %s/bin/offtrace %s/lib/libofftrace-device.so",
             OFFTRACE_VERSION_STRING_EXPECTED, t.prefix, t.prefix);
    cr_expect(strstr(out, expected) != NULL, "expected \"%s\" in:\n%s", expected, out);
    free(out);

    /* the version file refuses a version this one does not promise */
    free(must(NULL, "sed -i 's/find_package(offtrace 0.1 REQUIRED)/find_package(offtrace 0.2 REQUIRED)/' "
                    "'%s/CMakeLists.txt'", dir));
    run_result r;
    sh(&r, NULL, "cd '%s' && '%s' -S . -B b2 -DCMAKE_C_COMPILER='%s' -DCMAKE_PREFIX_PATH='%s'", dir,
       OFFTRACE_CMAKE_COMMAND, OFFTRACE_C_COMPILER, t.prefix);
    cr_expect(!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0), "find_package(offtrace 0.2) accepted 0.1");
    run_free(&r);
}

/* The user API (issue 14): a program links libofftrace-user.so from the
 * installed, moved tree, by pkg-config and by find_package, and runs
 * untraced without OpenMP. */
static const char user_program[] =
    "#include <stdio.h>\n"
    "#include <offtrace/offtrace_user.h>\n"
    "int main(void)\n"
    "{\n"
    "    OFFTRACE_USER_REGION_BEGIN(r, \"r\");\n"
    "    OFFTRACE_USER_REGION_END(r);\n"
    "    printf(\"user api %d, traced %d\\n\", offtrace_user_version(), offtrace_user_is_traced());\n"
    "    return 0;\n"
    "}\n";

Test(install, a_program_links_the_user_api_with_pkg_config_and_find_package)
{
    installed t;
    install_moved(&t);
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s/user", t.root);
    free(must(NULL, "mkdir '%s'", dir));
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/u.c", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(user_program, f);
    cr_assert_eq(fclose(f), 0);
    snprintf(path, sizeof path, "%s/CMakeLists.txt", dir);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "cmake_minimum_required(VERSION 3.20)\n"
               "project(uses_offtrace_user C)\n"
               "find_package(offtrace 0.1 REQUIRED)\n"
               "add_executable(u u.c)\n"
               "target_link_libraries(u PRIVATE offtrace::user)\n");
    cr_assert_eq(fclose(f), 0);
    char pkg_path[PATH_MAX + 64];
    snprintf(pkg_path, sizeof pkg_path, "PKG_CONFIG_PATH=%s/lib/pkgconfig", t.prefix);
    char *env[] = {pkg_path, NULL};
    char *out = must(env,
                     "cd '%s' && '%s' u.c -o u $(pkg-config --cflags --libs offtrace-user) && ./u && "
                     "'%s' -S . -B b -DCMAKE_C_COMPILER='%s' -DCMAKE_PREFIX_PATH='%s' >/dev/null && "
                     "'%s' --build b >/dev/null && ./b/u",
                     dir, OFFTRACE_C_COMPILER, OFFTRACE_CMAKE_COMMAND, OFFTRACE_C_COMPILER, t.prefix,
                     OFFTRACE_CMAKE_COMMAND);
    cr_expect_str_eq(out, "user api 100, traced 0\nuser api 100, traced 0\n");
    free(out);
}

Test(install, installed_text_files_name_neither_the_build_nor_the_source_tree)
{
    installed t;
    install_moved(&t);
    run_result r;
    sh(&r, NULL, "grep -rl -e '%s' -e '%s' '%s/lib/pkgconfig' '%s/lib/cmake' '%s/share/man' '%s/include'",
       OFFTRACE_BUILD_DIR, OFFTRACE_SOURCE_DIR, t.prefix, t.prefix, t.prefix, t.prefix);
    cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1, "files naming the build or source tree:\n%s%s",
              r.out, r.err);
    run_free(&r);
}

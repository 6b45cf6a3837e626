/**
 * \file run.h
 * \brief Run a command for a test: extra environment, optional stdin text,
 *        stdout and stderr captured into strings.
 */
#ifndef OT_TEST_RUN_H
#define OT_TEST_RUN_H

#include <stdarg.h>
#include <stddef.h>

typedef struct run_result {
    int status;   /**< raw waitpid status */
    char *out;    /**< captured stdout (malloc'd, NUL-terminated) */
    char *err;    /**< captured stderr */
} run_result;

/**
 * \brief Run argv[0] (PATH lookup) with `env` ("NAME=value" strings, NULL
 *        terminated, may be NULL) added to the environment.
 * \return 0 when the command ran, -1 when it could not be run at all.
 */
int run_command(char *const argv[], char *const env[], const char *stdin_text, run_result *r);

void run_free(run_result *r);

/**
 * \brief `offtrace VERB args...` (the build's offtrace), nothing on stdin.
 * \param verb the first argument ("report", "--help", ...); the arguments
 *        after it are `const char *`, terminated by NULL.
 * \return 0 when the command ran (its status and output in \p r, which the
 *         caller frees with run_free), -1 when it could not be run at all or
 *         there are too many arguments.
 */
int run_offtrace(run_result *r, const char *verb, ...);

/** \brief run_offtrace with the arguments after \p verb in a va_list. */
int run_offtrace_va(run_result *r, const char *verb, va_list args);

/**
 * \brief The whole of the file at \p path, NUL-terminated (malloc'd; the
 *        caller frees it), its length in *length when \p length is not NULL.
 * \return NULL when the file cannot be opened or read in full.
 */
char *read_whole_file(const char *path, size_t *length);

/** \brief How many times \p needle stands in \p text, not overlapping. */
unsigned count_occurrences(const char *text, const char *needle);

/**
 * \brief Run `otf2-print --silent -Werror` on `<dir>/traces.otf2`.
 * \return its exit status (0 = accepted); its stderr in *message (malloc'd).
 */
int otf2_print_check(const char *dir, char **message);

/**
 * \brief `offtrace record -o DIR [option] PROGRAM args...`, PROGRAM from the
 *        build's bin directory, with `env` added.
 * \param args NULL-terminated (may be NULL); \param err if not NULL, receives
 *        record's stderr (the summary), malloc'd.
 * \return 0 when record ran and exited 0, -1 otherwise.
 */
int record_program(const char *dir, const char *option, char *const env[], const char *program,
                   char *const args[], char **err);

/** \brief A fresh scratch directory path (not created) under the build's test dir. */
void scratch_path(char *buf, unsigned size, const char *name);

/**
 * \brief An archive of PROGRAM recorded once per test run and shared by the
 *        tests that read it: tests run one by one in children of one runner,
 *        whose pid names it (`<scratch>/<name>-<runner pid>`, in \p dir).
 *        Recorded aside and renamed into place, so no reader sees half of it.
 * \return 0 (recorded now or before), or -1 with record's stderr or a reason
 *         in *err (malloc'd; may be NULL).
 */
int shared_recording(char *dir, size_t size, const char *name, const char *program, char *const args[],
                     char **err);

/**
 * \brief Convert DIR's raw records again (a test that damaged them): the
 *        archive (traces/, traces.otf2, traces.def) removed, then
 *        `offtrace convert DIR`.
 * \return 0 when convert exited 0, -1 otherwise; \p err, if not NULL,
 *         receives its stderr or a reason (malloc'd; may be NULL).
 */
int reconvert_raw(const char *dir, char **err);

/**
 * \brief `offtrace export --format chrome DIR -o PATH`, then PATH's text.
 * \return the JSON (malloc'd), or NULL when export did not exit 0 or PATH
 *         cannot be read; \p err, if not NULL, receives export's stderr
 *         (malloc'd; may be NULL).
 */
char *export_chrome(const char *dir, const char *path, char **err);

#endif

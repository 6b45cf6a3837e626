/**
 * \file compare.h
 * \brief The reference for "the program is unchanged": run a program once
 *        untraced and once under `offtrace record`, and compare what a user
 *        of the program sees (stdout, stderr without offtrace's own lines,
 *        exit status or signal).
 */
#ifndef OT_TEST_COMPARE_H
#define OT_TEST_COMPARE_H

#include "run.h"

typedef struct compared_runs {
    run_result plain;  /**< the program alone */
    run_result traced; /**< `offtrace record -o DIR [options] -- program args` */
} compared_runs;

/**
 * \brief Run bin/\p program with \p args (NULL-terminated, may be NULL)
 *        untraced, then under `offtrace record -o DIR`, with \p record_options
 *        (NULL-terminated, may be NULL) before `--`. \p env is added to both
 *        runs. Both run in the current directory.
 * \return 0 when both ran, -1 otherwise.
 */
int compare_runs(const char *dir, char *const record_options[], char *const env[], const char *program,
                 char *const args[], compared_runs *c);

/**
 * \brief NULL when the two runs look the same to the program's user: same
 *        stdout, same stderr once lines starting with "offtrace" are removed
 *        from the traced one, same exit status or terminating signal.
 *        Otherwise a description of the first difference (static buffer).
 */
const char *compare_difference(const compared_runs *c);

/** \brief Free both runs' output. */
void compare_free(compared_runs *c);

/** \brief \p text without its lines that start with "offtrace" (malloc'd). */
char *without_offtrace_lines(const char *text);

#endif

/**
 * \file json_check.h
 * \brief Test-side JSON syntax check (RFC 8259 grammar, no semantics), so
 *        that tests of `--json` and Chrome-trace export need no tool.
 */
#ifndef OT_TEST_JSON_CHECK_H
#define OT_TEST_JSON_CHECK_H

#include <stddef.h>

/**
 * \brief Check that \p text (of \p length bytes) is one JSON value with
 *        only whitespace around it.
 * \return 0 if it is; else -1 with the byte offset of the first error in
 *         \p error_at (if not NULL).
 */
int json_check(const char *text, size_t length, size_t *error_at);

/** \brief json_check on a whole file. \return 0, -1 (bad JSON), -2 (unreadable). */
int json_check_file(const char *path, size_t *error_at);

#endif

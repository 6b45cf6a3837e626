/**
 * \file string_table.h
 * \brief OTF2 string definitions by reference, for the test checkers that
 *        read archives with OTF2's own reader (one table instead of one per
 *        checker).
 */
#ifndef OT_TEST_CHECK_STRING_TABLE_H
#define OT_TEST_CHECK_STRING_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct check_string_table {
    char **text;   /**< by OTF2_StringRef, NULL where undefined */
    size_t count;
} check_string_table;

/** \brief Keep a copy of \p text as string \p ref (a String definition). \return 0, or -1 out of memory. */
int check_string_put(check_string_table *t, uint64_t ref, const char *text);
/** \brief String \p ref, or "" where undefined. */
const char *check_string_at(const check_string_table *t, uint64_t ref);
/** \brief Free every copy; the table is empty afterwards. */
void check_string_free(check_string_table *t);

#endif

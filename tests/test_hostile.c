/*
 * The traced program is unchanged (issue 10): programs that treat a tracer as
 * a hostile user would, run untraced and under `offtrace record`, must look
 * the same to their user, and the archive must be valid and complete.
 * This file holds the reference case; the cases of each part of offtrace
 * are in test_hostile_*.c.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdlib.h>

#include "check/archive_check.h"
#include "check/compare.h"

TestSuite(hostile, .timeout = 120);

Test(hostile, a_plain_program_is_unchanged_and_fully_traced)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, "hostile-basic");
    compared_runs c;
    cr_assert_eq(compare_runs(dir, NULL, NULL, "hostile_basic", (char *[]){"7", "5", NULL}, &c), 0);
    const char *why = compare_difference(&c);
    cr_assert(!why, "%s", why);
    compare_free(&c);
    archive_facts f;
    cr_assert_eq(archive_check(dir, &f), 0);
    cr_assert_eq(archive_violations(&f), 0, "%s", f.first_problem);
    cr_assert_eq(f.target, 7);
}

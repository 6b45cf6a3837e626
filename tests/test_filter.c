/*
 * Filter files (issue 14, docs/filters.md): the parser and the matcher of
 * host/filter.c. Each malformed file names the right line; wildcards; the
 * last matching rule decides across region and file rules; line ranges.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "filter.h"

static ot_filter *parse_ok(const char *text)
{
    ot_filter *f = NULL;
    char err[512] = "";
    cr_assert_eq(ot_filter_parse(text, strlen(text), "f.flt", &f, err, sizeof err), 0, "%s", err);
    cr_assert_not_null(f);
    return f;
}

static void expect_fault(const char *text, const char *message)
{
    ot_filter *f = (ot_filter *)1;
    char err[512] = "";
    cr_expect_eq(ot_filter_parse(text, strlen(text), "f.flt", &f, err, sizeof err), -1, "accepted: %s", text);
    cr_expect_null(f);
    cr_expect_str_eq(err, message);
}

Test(filter, blank_lines_and_comments_make_an_empty_filter_that_keeps_everything)
{
    ot_filter *f = parse_ok("\n# only comments\n   \t\n  # indented comment\n");
    cr_expect_eq(ot_filter_rule_count(f), 0);
    cr_expect_eq(ot_filter_keeps(f, "solve", "a.c", 3), 1);
    ot_filter_free(f);
    f = parse_ok("");
    cr_expect_eq(ot_filter_rule_count(f), 0);
    ot_filter_free(f);
}

Test(filter, region_wildcards_match_whole_names)
{
    ot_filter *f = parse_ok("exclude region solve*\nexclude region ?alo\nexclude region loop (static)\n");
    cr_expect_eq(ot_filter_rule_count(f), 3);
    cr_expect_eq(ot_filter_keeps(f, "solve", NULL, 0), 0);
    cr_expect_eq(ot_filter_keeps(f, "solver step", NULL, 0), 0);
    cr_expect_eq(ot_filter_keeps(f, "presolve", NULL, 0), 1);
    cr_expect_eq(ot_filter_keeps(f, "halo", NULL, 0), 0);
    cr_expect_eq(ot_filter_keeps(f, "hhalo", NULL, 0), 1);
    cr_expect_eq(ot_filter_keeps(f, "loop (static)", NULL, 0), 0, "a pattern may hold blanks");
    cr_expect_eq(ot_filter_keeps(f, "loop (dynamic)", NULL, 0), 1);
    ot_filter_free(f);
}

Test(filter, the_last_matching_rule_decides)
{
    ot_filter *f = parse_ok("exclude region *\ninclude region solve\n");
    cr_expect_eq(ot_filter_keeps(f, "solve", NULL, 0), 1);
    cr_expect_eq(ot_filter_keeps(f, "assemble", NULL, 0), 0);
    ot_filter_free(f);
    f = parse_ok("include region solve\nexclude region *\n");
    cr_expect_eq(ot_filter_keeps(f, "solve", NULL, 0), 0, "a later exclude overrides an earlier include");
    ot_filter_free(f);
}

Test(filter, region_and_file_rules_are_one_list_where_the_last_match_wins)
{
    ot_filter *f = parse_ok("exclude file *.c\ninclude region solve\n");
    cr_expect_eq(ot_filter_keeps(f, "solve", "src/a.c", 10), 1);
    cr_expect_eq(ot_filter_keeps(f, "assemble", "src/a.c", 10), 0);
    cr_expect_eq(ot_filter_keeps(f, "assemble", "src/a.f90", 10), 1);
    ot_filter_free(f);
    f = parse_ok("include region solve\nexclude file a.c\n");
    cr_expect_eq(ot_filter_keeps(f, "solve", "src/a.c", 10), 0);
    cr_expect_eq(ot_filter_keeps(f, "solve", NULL, 0), 1, "a region without a file matches no file rule");
    cr_expect_eq(ot_filter_keeps(f, "solve", "", 0), 1);
    ot_filter_free(f);
}

Test(filter, file_patterns_without_a_slash_match_the_base_name_with_one_the_whole_path)
{
    ot_filter *f = parse_ok("exclude file solver.c\nexclude file */lib/*.c\n");
    cr_expect_eq(ot_filter_keeps(f, "x", "/home/u/src/solver.c", 1), 0);
    cr_expect_eq(ot_filter_keeps(f, "x", "solver.c", 1), 0);
    cr_expect_eq(ot_filter_keeps(f, "x", "/home/u/src/mysolver.c", 1), 1);
    cr_expect_eq(ot_filter_keeps(f, "x", "/home/u/lib/blas.c", 1), 0);
    cr_expect_eq(ot_filter_keeps(f, "x", "/home/u/src/blas.c", 1), 1);
    ot_filter_free(f);
}

Test(filter, line_ranges_bound_file_rules)
{
    ot_filter *f = parse_ok("exclude file a.c:10-20\nexclude file b.c:7\n");
    cr_expect_eq(ot_filter_keeps(f, "x", "a.c", 9), 1);
    cr_expect_eq(ot_filter_keeps(f, "x", "a.c", 10), 0);
    cr_expect_eq(ot_filter_keeps(f, "x", "a.c", 20), 0);
    cr_expect_eq(ot_filter_keeps(f, "x", "a.c", 21), 1);
    cr_expect_eq(ot_filter_keeps(f, "x", "a.c", 0), 1, "an unknown line is in no range");
    cr_expect_eq(ot_filter_keeps(f, "x", "b.c", 7), 0);
    cr_expect_eq(ot_filter_keeps(f, "x", "b.c", 8), 1);
    ot_filter_free(f);
}

Test(filter, comments_after_a_blank_end_the_pattern_and_blanks_around_it_are_trimmed)
{
    ot_filter *f = parse_ok("  exclude\tregion   solve   # the solver\r\nexclude region a#b\n");
    cr_expect_eq(ot_filter_keeps(f, "solve", NULL, 0), 0);
    cr_expect_eq(ot_filter_keeps(f, "a#b", NULL, 0), 0, "a '#' inside a word is part of the pattern");
    ot_filter_free(f);
}

Test(filter, a_colon_not_followed_by_a_digit_belongs_to_the_pattern)
{
    ot_filter *f = parse_ok("exclude file c:x.c\n");
    cr_expect_eq(ot_filter_keeps(f, "r", "c:x.c", 5), 0);
    ot_filter_free(f);
}

Test(filter, each_malformed_line_is_named_with_its_number)
{
    expect_fault("exclude region a\n\nremove region b\n",
                 "f.flt:3: unknown keyword 'remove' (a rule starts with include or exclude)");
    expect_fault("# c\nexclude regoin x\n", "f.flt:2: unknown keyword 'regoin' (region or file)");
    expect_fault("include\n", "f.flt:1: 'include' without region or file after it");
    expect_fault("\n\n\nexclude region   # nothing\n", "f.flt:4: a rule without a pattern (exclude region PATTERN)");
    expect_fault("exclude file\n", "f.flt:1: a rule without a pattern (exclude file PATTERN)");
    expect_fault("exclude file a.c:20-10\n", "f.flt:1: bad line range '20-10' (the first line is past the last)");
    expect_fault("x\n", "f.flt:1: unknown keyword 'x' (a rule starts with include or exclude)");
    expect_fault("exclude region a\nexclude file a.c:0\n",
                 "f.flt:2: bad line range '0' (LINE or FIRST-LAST, lines from 1)");
    expect_fault("exclude file a.c:1-\n", "f.flt:1: bad line range '1-' (LINE or FIRST-LAST, lines from 1)");
    expect_fault("exclude file a.c:3x\n", "f.flt:1: bad line range '3x' (LINE or FIRST-LAST, lines from 1)");
    expect_fault("exclude file a.c:99999999999\n",
                 "f.flt:1: bad line range '99999999999' (LINE or FIRST-LAST, lines from 1)");
    expect_fault("exclude file a.c:\n", "f.flt:1: a ':' without a line after it (FILE:LINE or FILE:FIRST-LAST)");
    expect_fault("exclude file :5\n", "f.flt:1: a line range without a file pattern before it");
}

Test(filter, a_line_too_long_and_a_nul_byte_are_faults_with_their_line)
{
    char text[3000];
    int n = snprintf(text, sizeof text, "exclude region a\nexclude region ");
    memset(text + n, 'x', 1100);
    text[n + 1100] = '\n';
    text[n + 1101] = '\0';
    expect_fault(text, "f.flt:2: a line longer than 1024 bytes");
    const char nul[] = "exclude region a\n\nexclude region b\0c\n";
    ot_filter *f = (ot_filter *)1;
    char err[256];
    cr_expect_eq(ot_filter_parse(nul, sizeof nul - 1, "f.flt", &f, err, sizeof err), -1);
    cr_expect_str_eq(err, "f.flt:3: a NUL byte (not a text file)");
}

Test(filter, load_reads_the_file_and_says_when_it_cannot)
{
    char path[] = "/tmp/offtrace-filter-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char text[] = "exclude region s*\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    ot_filter *f = NULL;
    char *copy = NULL;
    size_t len = 0;
    char err[512] = "";
    cr_assert_eq(ot_filter_load(path, &f, &copy, &len, err, sizeof err), 0, "%s", err);
    cr_expect_eq(len, sizeof text - 1);
    cr_expect_str_eq(copy, text);
    cr_expect_eq(ot_filter_keeps(f, "solve", NULL, 0), 0);
    ot_filter_free(f);
    free(copy);
    unlink(path);
    cr_expect_eq(ot_filter_load(path, &f, &copy, &len, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: cannot be read (No such file or directory)", path);
    cr_expect_str_eq(err, want);
    cr_expect_null(copy);
    cr_expect_eq(ot_filter_load("/tmp", &f, NULL, NULL, err, sizeof err), -1);
    cr_expect_str_eq(err, "/tmp: cannot be read (not a regular file)");
}

Test(filter, a_file_larger_than_64_KiB_is_refused)
{
    char path[] = "/tmp/offtrace-filter-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    char line[64];
    int n = snprintf(line, sizeof line, "# %58s\n", "padding");
    for (int i = 0; i < 70000 / n + 1; i++)
        cr_assert_eq(write(fd, line, (size_t)n), n);
    close(fd);
    ot_filter *f = NULL;
    char err[512] = "";
    cr_expect_eq(ot_filter_load(path, &f, NULL, NULL, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: larger than 64 KiB", path);
    cr_expect_str_eq(err, want);
    unlink(path);
}

/*
 * Issue 18, seventh round: a definitions file read again as it grows
 * (host/convert/defs_reread.h), what the live conversion relies on to keep
 * programs that define user ids, NVTX texts or map sites while they run.
 * Checked against the file this test writes: a reading hands the parser
 * only what follows the bytes it took before; a definition the program is
 * still writing is handed again once whole; a file that no longer begins
 * with what was read is refused; a definition asked for and not there is
 * remembered, and the file is read again only when it changed.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check/run.h"
#include "defs_reread.h"

/* A parser of "word\n" lines: each whole line it meets is added to seen (a
 * line without its newline is left for next time, or counted as damage in
 * a whole reading). */
typedef struct lines {
    char seen[4096];
    int readings, damaged;
} lines;

static int parse_lines(void *context, int whole, const char *text, size_t at, size_t used, size_t *read_to)
{
    lines *l = context;
    l->readings++;
    while (at < used) {
        const char *nl = memchr(text + at, '\n', used - at);
        if (!nl) {
            l->damaged += whole;
            break;
        }
        strncat(l->seen, text + at, (size_t)(nl - text - at) + 1);
        at = (size_t)(nl - text) + 1;
    }
    *read_to = at;
    return 0;
}

static void write_file(const char *path, const char *mode, const char *text)
{
    FILE *f = fopen(path, mode);
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

/* A fresh scratch directory \p name, the reading of its file "defs" set up;
 * \p path receives the file's path. */
static void setup(char path[4200], const char *name, ot_defs_read *s, lines *l)
{
    char dir[4096];
    scratch_path(dir, sizeof dir, name);
    mkdir(dir, 0777);
    memset(l, 0, sizeof *l);
    ot_defs_reread_setup(s, dir, "defs", parse_lines, l);
    snprintf(path, 4200, "%s/defs", dir);
}

Test(defs_reread, each_reading_hands_on_only_what_follows_what_was_taken)
{
    char path[4200];
    ot_defs_read s;
    lines l;
    setup(path, "defs-grow", &s, &l);
    cr_assert_eq(ot_defs_reread(&s, 0), 0, "no file yet: nothing to read, no error");
    cr_assert_eq(l.readings, 0);
    write_file(path, "w", "alpha\nbet");
    cr_assert_eq(ot_defs_reread(&s, 0), 0);
    cr_assert_str_eq(l.seen, "alpha\n", "the line still being written is left");
    cr_assert_eq(s.bytes, 6);
    write_file(path, "a", "a\ngamma\n");
    cr_assert_eq(ot_defs_reread(&s, 0), 0);
    cr_assert_str_eq(l.seen, "alpha\nbeta\ngamma\n", "each line once, the cut one whole");
    write_file(path, "a", "delta");
    cr_assert_eq(ot_defs_reread(&s, 1), 0);
    cr_assert_eq(l.damaged, 1, "a whole reading counts a cut line as damage");
    cr_assert_eq(l.readings, 3);
}

Test(defs_reread, a_file_that_no_longer_begins_with_what_was_read_is_refused)
{
    char path[4200];
    ot_defs_read s;
    lines l;
    setup(path, "defs-rewritten", &s, &l);
    write_file(path, "w", "alpha\n");
    cr_assert_eq(ot_defs_reread(&s, 0), 0);
    write_file(path, "w", "alphX\nbeta\n"); /* longer, but its beginning changed */
    cr_assert_eq(ot_defs_reread(&s, 0), -EPROTO);
    cr_assert_str_eq(l.seen, "alpha\n", "nothing of the changed file is handed on");
    write_file(path, "w", "alp");
    cr_assert_eq(ot_defs_reread(&s, 0), -EPROTO, "shorter than what was read");
}

Test(defs_reread, a_definition_asked_for_in_vain_is_remembered)
{
    char path[4200];
    ot_defs_read s;
    lines l;
    setup(path, "defs-missing", &s, &l);
    ot_defs_reread_for_missing(&s);
    cr_assert(s.missed, "no file: missed");
    s.missed = 0;
    write_file(path, "w", "alpha\n");
    ot_defs_reread_for_missing(&s);
    cr_assert_not(s.missed, "the file grew: read again");
    cr_assert_str_eq(l.seen, "alpha\n");
    ot_defs_reread_for_missing(&s);
    cr_assert(s.missed, "the same size: not read again, the definition is not there");
    cr_assert_eq(l.readings, 1);
}

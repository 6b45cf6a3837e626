/**
 * \file filter.c
 * \brief Parsing filter files and matching their rules (filter.h,
 *        docs/filters.md for the format).
 *
 * Why the last matching rule decides: it lets a file say "leave out
 * everything, then keep these" (or the reverse) in the order one reads it,
 * as the ignore files users know do; no match keeps the region, so an empty
 * filter changes nothing.
 */
#define _GNU_SOURCE
#include "filter.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum rule_target { RULE_REGION, RULE_FILE };

typedef struct rule {
    int include;           /* 1 include (keep), 0 exclude (remove) */
    enum rule_target target;
    uint32_t first_line;   /* file rules: 0 = any line */
    uint32_t last_line;
    int whole_path;        /* file rules: the pattern has a '/', so it matches the whole path */
    char *pattern;
} rule;

struct ot_filter {
    size_t count;
    rule *rules;
};

static int fault(char *err, size_t err_size, const char *path, unsigned line, const char *fmt, ...)
{
    int n = snprintf(err, err_size, "%s:%u: ", path, line);
    if (n >= 0 && (size_t)n < err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, err_size - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next word of [*p, end): its start and length; *p moves past it. */
static size_t next_word(const char **p, const char *end, const char **word)
{
    while (*p < end && is_space(**p))
        (*p)++;
    *word = *p;
    while (*p < end && !is_space(**p))
        (*p)++;
    return (size_t)(*p - *word);
}

static int word_is(const char *w, size_t n, const char *s) { return n == strlen(s) && !memcmp(w, s, n); }

/* A decimal line number 1..UINT32_MAX from [s, s+n); 0 when not one. */
static uint32_t line_number(const char *s, size_t n)
{
    if (n == 0 || n > 10)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* A file pattern's ":LINE" or ":FIRST-LAST" suffix, when the text after its
 * last ':' starts with a digit (a ':' followed by anything else is part of
 * the pattern). Returns 0, or -1 with err set. */
static int split_lines(rule *r, size_t *len, const char *path, unsigned line, char *err, size_t err_size)
{
    char *colon = memrchr(r->pattern, ':', *len);
    if (!colon)
        return 0;
    const char *spec = colon + 1;
    size_t spec_len = *len - (size_t)(spec - r->pattern);
    if (spec_len == 0)
        return fault(err, err_size, path, line, "a ':' without a line after it (FILE:LINE or FILE:FIRST-LAST)");
    if (spec[0] < '0' || spec[0] > '9')
        return 0;
    const char *dash = memchr(spec, '-', spec_len);
    uint32_t first = line_number(spec, dash ? (size_t)(dash - spec) : spec_len);
    uint32_t last = dash ? line_number(dash + 1, spec_len - (size_t)(dash + 1 - spec)) : first;
    if (!first || !last)
        return fault(err, err_size, path, line, "bad line range '%.*s' (LINE or FIRST-LAST, lines from 1)",
                     (int)spec_len, spec);
    if (first > last)
        return fault(err, err_size, path, line, "bad line range '%.*s' (the first line is past the last)",
                     (int)spec_len, spec);
    if (colon == r->pattern)
        return fault(err, err_size, path, line, "a line range without a file pattern before it");
    r->first_line = first;
    r->last_line = last;
    *colon = '\0';
    *len = (size_t)(colon - r->pattern);
    return 0;
}

/* One non-blank, non-comment line -> one rule. */
static int parse_rule(const char *p, const char *end, rule *r, const char *path, unsigned line, char *err,
                      size_t err_size)
{
    const char *w;
    size_t n = next_word(&p, end, &w);
    if (word_is(w, n, "include"))
        r->include = 1;
    else if (word_is(w, n, "exclude"))
        r->include = 0;
    else
        return fault(err, err_size, path, line, "unknown keyword '%.*s' (a rule starts with include or exclude)",
                     (int)(n > 64 ? 64 : n), w);
    n = next_word(&p, end, &w);
    if (word_is(w, n, "region"))
        r->target = RULE_REGION;
    else if (word_is(w, n, "file"))
        r->target = RULE_FILE;
    else if (n == 0)
        return fault(err, err_size, path, line, "'%s' without region or file after it", r->include ? "include" : "exclude");
    else
        return fault(err, err_size, path, line, "unknown keyword '%.*s' (region or file)", (int)(n > 64 ? 64 : n), w);
    /* The pattern is the rest of the line, trimmed, up to a comment that
     * starts after a blank: region names may hold blanks ("loop (static)"). */
    while (p < end && is_space(*p))
        p++;
    const char *stop = p;
    for (const char *q = p; q < end; q++) {
        if (*q == '#' && (q == p || is_space(q[-1])))
            break;
        if (!is_space(*q))
            stop = q + 1;
    }
    size_t len = (size_t)(stop - p);
    if (len == 0)
        return fault(err, err_size, path, line, "a rule without a pattern (%s %s PATTERN)",
                     r->include ? "include" : "exclude", r->target == RULE_REGION ? "region" : "file");
    r->pattern = strndup(p, len);
    if (!r->pattern)
        return fault(err, err_size, path, line, "out of memory");
    if (r->target == RULE_FILE) {
        if (split_lines(r, &len, path, line, err, err_size))
            return -1;
        r->whole_path = memchr(r->pattern, '/', len) != NULL;
    }
    return 0;
}

int ot_filter_parse(const char *text, size_t len, const char *path, ot_filter **out, char *err, size_t err_size)
{
    *out = NULL;
    ot_filter *f = calloc(1, sizeof *f);
    if (!f)
        return fault(err, err_size, path, 0, "out of memory");
    size_t capacity = 0;
    unsigned line = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if ((size_t)(eol - p) > OT_FILTER_LINE_MAX) {
            ot_filter_free(f);
            return fault(err, err_size, path, line, "a line longer than %u bytes", OT_FILTER_LINE_MAX);
        }
        if (memchr(p, '\0', (size_t)(eol - p))) {
            ot_filter_free(f);
            return fault(err, err_size, path, line, "a NUL byte (not a text file)");
        }
        const char *q = p;
        while (q < eol && is_space(*q))
            q++;
        if (q < eol && *q != '#') {
            if (f->count == capacity) {
                size_t grown = capacity ? 2 * capacity : 16;
                rule *more = realloc(f->rules, grown * sizeof *more);
                if (!more) {
                    ot_filter_free(f);
                    return fault(err, err_size, path, line, "out of memory");
                }
                f->rules = more;
                capacity = grown;
            }
            rule *r = &f->rules[f->count];
            memset(r, 0, sizeof *r);
            int rc = parse_rule(q, eol, r, path, line, err, err_size);
            f->count++; /* owned now, freed with the filter even on a fault */
            if (rc) {
                ot_filter_free(f);
                return -1;
            }
        }
        p = nl ? nl + 1 : end;
    }
    *out = f;
    return 0;
}

int ot_filter_load(const char *path, ot_filter **out, char **text, size_t *text_len, char *err, size_t err_size)
{
    *out = NULL;
    if (text)
        *text = NULL;
    if (text_len)
        *text_len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = fd < 0 ? errno : 0;
        if (fd >= 0)
            close(fd);
        snprintf(err, err_size, "%s: cannot be read (%s)", path, e ? strerror(e) : "not a regular file");
        return -1;
    }
    if ((uint64_t)st.st_size > OT_FILTER_FILE_MAX) {
        close(fd);
        snprintf(err, err_size, "%s: larger than %u KiB", path, OT_FILTER_FILE_MAX / 1024);
        return -1;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!buf || got != (size_t)st.st_size) {
        free(buf);
        snprintf(err, err_size, "%s: cannot be read (%s)", path, buf ? "short read" : "out of memory");
        return -1;
    }
    buf[got] = '\0';
    int rc = ot_filter_parse(buf, got, path, out, err, err_size);
    if (text) {
        *text = buf;
        if (text_len)
            *text_len = got;
    } else {
        free(buf);
    }
    return rc;
}

static int rule_matches(const rule *r, const char *name, const char *file, uint32_t line)
{
    if (r->target == RULE_REGION)
        return name && fnmatch(r->pattern, name, 0) == 0;
    if (!file || !*file)
        return 0;
    if (r->first_line && (line < r->first_line || line > r->last_line))
        return 0;
    const char *subject = file;
    if (!r->whole_path) {
        const char *slash = strrchr(file, '/');
        subject = slash ? slash + 1 : file;
    }
    return fnmatch(r->pattern, subject, 0) == 0;
}

int ot_filter_keeps(const ot_filter *f, const char *name, const char *file, uint32_t line)
{
    if (!f)
        return 1;
    for (size_t i = f->count; i-- > 0;)
        if (rule_matches(&f->rules[i], name, file, line))
            return f->rules[i].include;
    return 1;
}

int ot_filter_has_file_rules(const ot_filter *f)
{
    for (size_t i = 0; f && i < f->count; i++)
        if (f->rules[i].target == RULE_FILE)
            return 1;
    return 0;
}

size_t ot_filter_rule_count(const ot_filter *f) { return f ? f->count : 0; }

void ot_filter_free(ot_filter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->count; i++)
        free(f->rules[i].pattern);
    free(f->rules);
    free(f);
}

#include "json_check.h"

#include <stdlib.h>
#include <string.h>

#include "run.h" /* read_whole_file */

typedef struct cursor {
    const char *p, *end;
    int depth;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int literal(cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
        return -1;
    c->p += n;
    return 0;
}

static int digits(cursor *c)
{
    const char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > start ? 0 : -1;
}

static int number(cursor *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (digits(c))
        return -1;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (digits(c))
            return -1;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (digits(c))
            return -1;
    }
    return 0;
}

static int string(cursor *c)
{
    if (c->p >= c->end || *c->p != '"')
        return -1;
    for (c->p++; c->p < c->end; c->p++) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '"') {
            c->p++;
            return 0;
        }
        if (ch < 0x20)
            return -1;
        if (ch == '\\') {
            if (++c->p >= c->end)
                return -1;
            if (*c->p == 'u') {
                for (int i = 0; i < 4; i++)
                    if (++c->p >= c->end || !strchr("0123456789abcdefABCDEF", *c->p))
                        return -1;
            } else if (!strchr("\"\\/bfnrt", *c->p))
                return -1;
        }
    }
    return -1;
}

static int value(cursor *c);

static int members(cursor *c, char close, int keyed)
{
    if (++c->depth > 512)
        return -1;
    c->p++;
    skip_space(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        c->depth--;
        return 0;
    }
    for (;;) {
        skip_space(c);
        if (keyed) {
            if (string(c))
                return -1;
            skip_space(c);
            if (c->p >= c->end || *c->p++ != ':')
                return -1;
        }
        if (value(c))
            return -1;
        skip_space(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == close) {
            c->p++;
            c->depth--;
            return 0;
        }
        return -1;
    }
}

static int value(cursor *c)
{
    skip_space(c);
    if (c->p >= c->end)
        return -1;
    switch (*c->p) {
    case '{': return members(c, '}', 1);
    case '[': return members(c, ']', 0);
    case '"': return string(c);
    case 't': return literal(c, "true");
    case 'f': return literal(c, "false");
    case 'n': return literal(c, "null");
    default: return number(c);
    }
}

int json_check(const char *text, size_t length, size_t *error_at)
{
    cursor c = {text, text + length, 0};
    int rc = value(&c);
    skip_space(&c);
    if (rc == 0 && c.p == c.end)
        return 0;
    if (error_at)
        *error_at = (size_t)(c.p - text);
    return -1;
}

int json_check_file(const char *path, size_t *error_at)
{
    size_t n;
    char *text = read_whole_file(path, &n);
    if (!text)
        return -2;
    int rc = json_check(text, n, error_at);
    free(text);
    return rc;
}

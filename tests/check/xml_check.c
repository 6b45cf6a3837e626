#include "xml_check.h"

#include <string.h>

#define MAX_DEPTH 256
#define MAX_ATTRIBUTES 64

typedef struct cursor {
    const char *p, *start, *end;
    const char *why;
    const char *open[MAX_DEPTH]; /* names of the open elements */
    size_t open_len[MAX_DEPTH];
    int depth, roots;
} cursor;

static int fail(cursor *c, const char *why)
{
    if (!c->why)
        c->why = why;
    return -1;
}

static int name_start(char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_' || ch == ':' || (unsigned char)ch >= 0x80;
}

static int name_char(char ch)
{
    return name_start(ch) || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
}

static int space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static void skip_space(cursor *c)
{
    while (c->p < c->end && space(*c->p))
        c->p++;
}

static size_t name(cursor *c)
{
    const char *s = c->p;
    if (c->p >= c->end || !name_start(*c->p))
        return 0;
    while (c->p < c->end && name_char(*c->p))
        c->p++;
    return (size_t)(c->p - s);
}

/* &name; &#123; &#x1F; at c->p (on the '&'). */
static int reference(cursor *c)
{
    c->p++;
    if (c->p < c->end && *c->p == '#') {
        c->p++;
        int hex = c->p < c->end && *c->p == 'x';
        c->p += hex;
        const char *digits = c->p;
        while (c->p < c->end && ((*c->p >= '0' && *c->p <= '9') ||
                                 (hex && ((*c->p >= 'a' && *c->p <= 'f') || (*c->p >= 'A' && *c->p <= 'F')))))
            c->p++;
        if (c->p == digits)
            return fail(c, "character reference without digits");
    } else if (!name(c))
        return fail(c, "'&' that starts no reference");
    if (c->p >= c->end || *c->p != ';')
        return fail(c, "reference without ';'");
    c->p++;
    return 0;
}

static int attribute_value(cursor *c)
{
    if (c->p >= c->end || (*c->p != '"' && *c->p != '\''))
        return fail(c, "attribute value not quoted");
    char quote = *c->p++;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '<')
            return fail(c, "'<' in an attribute value");
        if (*c->p == '&') {
            if (reference(c))
                return -1;
        } else
            c->p++;
    }
    if (c->p >= c->end)
        return fail(c, "attribute value not closed");
    c->p++;
    return 0;
}

/* Attributes up to '>' or '/>'; sets *empty for '/>'. */
static int attributes(cursor *c, int *empty)
{
    const char *seen[MAX_ATTRIBUTES];
    size_t seen_len[MAX_ATTRIBUTES], n = 0;
    for (;;) {
        int had_space = c->p < c->end && space(*c->p);
        skip_space(c);
        if (c->p >= c->end)
            return fail(c, "tag not closed");
        if (*c->p == '>' || (*c->p == '/' && c->p + 1 < c->end && c->p[1] == '>')) {
            *empty = *c->p == '/';
            c->p += *empty ? 2 : 1;
            return 0;
        }
        if (!had_space)
            return fail(c, "attributes not separated by space");
        const char *at = c->p;
        size_t len = name(c);
        if (!len)
            return fail(c, "bad attribute name");
        for (size_t i = 0; i < n; i++)
            if (seen_len[i] == len && !memcmp(seen[i], at, len))
                return fail(c, "duplicate attribute");
        if (n < MAX_ATTRIBUTES) {
            seen[n] = at;
            seen_len[n++] = len;
        }
        skip_space(c);
        if (c->p >= c->end || *c->p != '=')
            return fail(c, "attribute without '='");
        c->p++;
        skip_space(c);
        if (attribute_value(c))
            return -1;
    }
}

static int open_tag(cursor *c)
{
    c->p++;
    const char *at = c->p;
    size_t len = name(c);
    if (!len)
        return fail(c, "bad element name");
    int empty = 0;
    if (attributes(c, &empty))
        return -1;
    if (c->depth == 0 && ++c->roots > 1)
        return fail(c, "a second root element");
    if (empty)
        return 0;
    if (c->depth == MAX_DEPTH)
        return fail(c, "nested too deeply");
    c->open[c->depth] = at;
    c->open_len[c->depth++] = len;
    return 0;
}

static int close_tag(cursor *c)
{
    c->p += 2;
    const char *at = c->p;
    size_t len = name(c);
    skip_space(c);
    if (!len || c->p >= c->end || *c->p != '>')
        return fail(c, "bad end tag");
    c->p++;
    if (c->depth == 0)
        return fail(c, "end tag without start tag");
    c->depth--;
    if (c->open_len[c->depth] != len || memcmp(c->open[c->depth], at, len))
        return fail(c, "end tag does not match start tag");
    return 0;
}

/* <?...?>, <!--...-->, <!DOCTYPE ...> */
static int skip_special(cursor *c, const char *open, const char *close)
{
    const char *stop = NULL;
    size_t n = strlen(close);
    for (const char *q = c->p + strlen(open); q + n <= c->end; q++)
        if (!memcmp(q, close, n)) {
            stop = q;
            break;
        }
    if (!stop)
        return fail(c, "unclosed declaration or comment");
    c->p = stop + n;
    return 0;
}

static int starts(const cursor *c, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(c->end - c->p) >= n && !memcmp(c->p, s, n);
}

static int markup(cursor *c)
{
    if (starts(c, "<?"))
        return skip_special(c, "<?", "?>");
    if (starts(c, "<!--"))
        return skip_special(c, "<!--", "-->");
    if (starts(c, "<!DOCTYPE"))
        return c->roots ? fail(c, "DOCTYPE after the root") : skip_special(c, "<!DOCTYPE", ">");
    if (starts(c, "</"))
        return close_tag(c);
    return open_tag(c);
}

int xml_check(const char *text, size_t length, size_t *error_at, const char **why)
{
    cursor c = {.p = text, .start = text, .end = text + length};
    int rc = 0;
    while (!rc && c.p < c.end) {
        if (*c.p == '<')
            rc = markup(&c);
        else if (*c.p == '&')
            rc = reference(&c);
        else if (c.depth == 0 && !space(*c.p))
            rc = fail(&c, "text outside the root element");
        else
            c.p++;
    }
    if (!rc && c.depth)
        rc = fail(&c, "element not closed at the end");
    if (!rc && !c.roots)
        rc = fail(&c, "no root element");
    if (rc) {
        if (error_at)
            *error_at = (size_t)(c.p - c.start);
        if (why)
            *why = c.why;
    }
    return rc;
}

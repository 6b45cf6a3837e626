#include "json_walk.h"

#include <string.h>

const char *json_skip_value(const char *p)
{
    if (*p == '"') {
        for (p++; *p && *p != '"'; p++)
            if (*p == '\\' && p[1])
                p++;
        return *p ? p + 1 : p;
    }
    if (*p != '{' && *p != '[') {
        while (*p && !strchr(",}] \n", *p))
            p++;
        return p;
    }
    int depth = 0;
    do {
        if (*p == '"') {
            p = json_skip_value(p);
            continue;
        }
        depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
        p++;
    } while (*p && depth > 0);
    return p;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == ',' || *p == ':')
        p++;
    return p;
}

const char *json_member(const char *obj, const char *key)
{
    if (!obj || *obj != '{')
        return NULL;
    const char *p = skip_space(obj + 1);
    size_t n = strlen(key);
    while (*p == '"') {
        int match = !strncmp(p + 1, key, n) && p[1 + n] == '"';
        p = skip_space(json_skip_value(p));
        if (match)
            return p;
        p = skip_space(json_skip_value(p));
    }
    return NULL;
}

const char *json_element(const char *obj, const char *key, size_t i)
{
    const char *p = json_member(obj, key);
    if (!p || *p != '[')
        return NULL;
    p = skip_space(p + 1);
    for (size_t k = 0; k < i && *p && *p != ']'; k++)
        p = skip_space(json_skip_value(p));
    return *p && *p != ']' ? p : NULL;
}

size_t json_length(const char *obj, const char *key)
{
    size_t n = 0;
    while (json_element(obj, key, n))
        n++;
    return n;
}

int json_string_is(const char *obj, const char *key, const char *want)
{
    const char *v = json_member(obj, key);
    size_t n = strlen(want);
    return v && *v == '"' && !strncmp(v + 1, want, n) && v[1 + n] == '"';
}

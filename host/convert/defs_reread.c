/**
 * \file defs_reread.c
 * \brief A growing definitions file's bookkeeping (defs_reread.h).
 */
#include "defs_reread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "regular_file.h"

#define FNV_BASIS 0xcbf29ce484222325ull

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

void ot_defs_reread_setup(ot_defs_read *s, const char *raw_dir, const char *name, ot_defs_parser parse,
                          void *context)
{
    *s = (ot_defs_read){.parse = parse, .context = context};
    snprintf(s->path, sizeof s->path, "%s/%s", raw_dir, name);
}

int ot_defs_reread(ot_defs_read *s, int whole)
{
    char *text;
    size_t used;
    int rc = ot_read_regular_file(s->path, &text, &used);
    if (rc != 0 || !text)
        return rc;
    s->size = used;
    if (!s->hash)
        s->hash = FNV_BASIS;
    if (used < s->bytes || fnv1a(FNV_BASIS, text, s->bytes) != s->hash) {
        free(text);
        return -EPROTO;
    }
    size_t read_to = s->bytes;
    rc = s->parse(s->context, whole, text, s->bytes, used, &read_to);
    if (read_to > s->bytes) {
        s->hash = fnv1a(s->hash, text + s->bytes, read_to - s->bytes);
        s->bytes = read_to;
    }
    free(text);
    return rc;
}

void ot_defs_reread_for_missing(ot_defs_read *s)
{
    struct stat st;
    if (stat(s->path, &st) != 0 || (uint64_t)st.st_size == s->size || ot_defs_reread(s, 0) != 0)
        s->missed = 1;
}

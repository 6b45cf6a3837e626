/**
 * \file defs_reread.c
 * \brief A growing definitions file's bookkeeping (defs_reread.h).
 */
#include "defs_reread.h"

#include <errno.h>
#include <sys/stat.h>

#define FNV_BASIS 0xcbf29ce484222325ull

static uint64_t fnv1a(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

int ot_defs_reread_check(ot_defs_read *s, const char *text, size_t used)
{
    s->size = used;
    if (!s->hash)
        s->hash = FNV_BASIS;
    return used >= s->bytes && fnv1a(FNV_BASIS, text, s->bytes) == s->hash ? 0 : -EPROTO;
}

void ot_defs_reread_parsed(ot_defs_read *s, const char *text, size_t read_to)
{
    if (read_to <= s->bytes)
        return;
    s->hash = fnv1a(s->hash ? s->hash : FNV_BASIS, text + s->bytes, read_to - s->bytes);
    s->bytes = read_to;
}

int ot_defs_reread_grew(const ot_defs_read *s, const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && (uint64_t)st.st_size != s->size;
}

#include "string_table.h"

#include <stdlib.h>
#include <string.h>

int check_string_put(check_string_table *t, uint64_t ref, const char *text)
{
    if (ref >= t->count) {
        size_t n = (size_t)ref + 256; /* definitions come in ref order: grow in steps */
        char **grown = realloc(t->text, n * sizeof *grown);
        if (!grown)
            return -1;
        memset(grown + t->count, 0, (n - t->count) * sizeof *grown);
        t->text = grown;
        t->count = n;
    }
    free(t->text[ref]);
    return (t->text[ref] = strdup(text)) ? 0 : -1;
}

const char *check_string_at(const check_string_table *t, uint64_t ref)
{
    return ref < t->count && t->text[ref] ? t->text[ref] : "";
}

void check_string_free(check_string_table *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->text[i]);
    free(t->text);
    t->text = NULL;
    t->count = 0;
}

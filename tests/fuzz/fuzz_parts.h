/*
 * The fuzzers' input format: files, each as "<name>\n<contents>", separated
 * by OT_FUZZ_PART_SEPARATOR (make_corpus.sh writes the seeds so, the
 * dictionaries know the separator). Naming the files lets the mutations
 * rename, drop, duplicate and reorder them, not only change their bytes.
 */
#ifndef OT_FUZZ_PARTS_H
#define OT_FUZZ_PARTS_H

#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>

#define OT_FUZZ_PART_SEPARATOR "\n=offtrace-fuzz-part=\n"
#define OT_FUZZ_SEPARATOR_LENGTH (sizeof OT_FUZZ_PART_SEPARATOR - 1)

typedef struct ot_fuzz_part {
    char name[128];         /* "" when the part has no usable name */
    const uint8_t *data;
    size_t size;
} ot_fuzz_part;

/* The next part of the input; advances *input and *size. \return 0 when
 * the input is used up (an input of n separators has n + 1 parts). */
static inline int ot_fuzz_next_part(const uint8_t **input, size_t *size, ot_fuzz_part *part)
{
    if (!*input)
        return 0;
    const uint8_t *sep = memmem(*input, *size, OT_FUZZ_PART_SEPARATOR, OT_FUZZ_SEPARATOR_LENGTH);
    const uint8_t *begin = *input;
    size_t length = sep ? (size_t)(sep - begin) : *size;
    if (sep) {
        *size -= length + OT_FUZZ_SEPARATOR_LENGTH;
        *input = sep + OT_FUZZ_SEPARATOR_LENGTH;
    } else {
        *input = NULL; /* that was the last part, possibly empty */
    }
    const uint8_t *newline = memchr(begin, '\n', length);
    size_t name_length = newline ? (size_t)(newline - begin) : 0;
    part->name[0] = '\0';
    part->data = begin;
    part->size = 0;
    if (newline && name_length < sizeof part->name) {
        memcpy(part->name, begin, name_length);
        part->name[name_length] = '\0';
        part->data = newline + 1;
        part->size = length - name_length - 1;
    }
    return 1;
}

#endif /* OT_FUZZ_PARTS_H */

/**
 * \file filter.h
 * \brief Filter files (docs/filters.md): which regions the recorder leaves
 *        out. The parser and the rule matcher only; no session, no I/O
 *        except ot_filter_load's one read of the file.
 *
 * A filter is a list of rules, read in order; the last rule that matches a
 * region decides, and a region no rule matches is kept. Matching costs
 * fnmatch calls per rule: the recorder asks once per call site (a user
 * region's id) and keeps the answer (filter_record.h), never per event.
 */
#ifndef OT_HOST_FILTER_H
#define OT_HOST_FILTER_H

#include <stddef.h>
#include <stdint.h>

/** Longest line of a filter file, in bytes, without its newline. */
#define OT_FILTER_LINE_MAX 1024u
/** Largest filter file, in bytes: the archive keeps the whole text. */
#define OT_FILTER_FILE_MAX 65536u

typedef struct ot_filter ot_filter;

/**
 * \brief Parse the text of a filter file.
 * \param text the file's bytes (need not end in a newline or a NUL).
 * \param path the file's name, for messages.
 * \param out the filter, to free with ot_filter_free (NULL on failure).
 * \param err on failure, "PATH:LINE: what is wrong" (one line, no newline).
 * \return 0, or -1 with \p err set (the first fault of the file).
 */
int ot_filter_parse(const char *text, size_t len, const char *path, ot_filter **out, char *err, size_t err_size);

/**
 * \brief Read and parse the filter file \p path.
 * \param text if not NULL, set to a malloc'd copy of the file's bytes (also
 *        on a parse failure, when the file could be read; NULL otherwise).
 * \return 0, or -1 with \p err set ("PATH: cannot be read (...)", "PATH:
 *         larger than 64 KiB", or a parse fault as ot_filter_parse).
 */
int ot_filter_load(const char *path, ot_filter **out, char **text, size_t *text_len, char *err, size_t err_size);

/**
 * \brief Whether the filter keeps a region.
 * \param name the region's name (user region or event name, or an OpenMP
 *        construct's shown name).
 * \param file its call site's source file, NULL or "" when it has none
 *        (then no file rule matches it).
 * \param line its call site's line, 0 when unknown (then no rule with a
 *        line range matches it).
 * \return 1 kept, 0 removed.
 */
int ot_filter_keeps(const ot_filter *f, const char *name, const char *file, uint32_t line);

/** \brief 1 when the filter has a file rule (call sites need their file:line). */
int ot_filter_has_file_rules(const ot_filter *f);

/** \brief The number of rules (0 for a file of only comments). */
size_t ot_filter_rule_count(const ot_filter *f);

void ot_filter_free(ot_filter *f);

#endif

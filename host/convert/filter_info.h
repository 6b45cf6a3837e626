/**
 * \file filter_info.h
 * \brief What the converter says about a recording's filter
 *        (docs/filters.md): raw/filter read back into archive properties.
 */
#ifndef OT_CONVERT_FILTER_INFO_H
#define OT_CONVERT_FILTER_INFO_H

#include <stdint.h>

#include "offtrace/raw_format.h"
#include "trace_writer.h"

/** The filter of a recording, as raw/filter holds it. */
typedef struct ot_cv_filter_info {
    int present;         /**< 0: the run had no filter (no raw/filter, or an unreadable one) */
    int rejected;        /**< 1: the file was wrong and nothing was filtered */
    char path[1024];
    char problem[1536];
    uint64_t removed[OFFTRACE_RAW_FILTERED_KINDS]; /**< summed over threads */
    char *text;          /**< the filter file's text (malloc'd, NUL-ended), NULL if none */
} ot_cv_filter_info;

/** \brief Read \p raw_dir/filter; info->present 0 when there is none. */
void ot_cv_filter_read(const char *raw_dir, ot_cv_filter_info *info);

void ot_cv_filter_info_free(ot_cv_filter_info *info);

/**
 * \brief Write the archive properties OFFTRACE::FILTER (the path),
 *        FILTER_STATUS ("applied" or "rejected: FILE:LINE: ..."),
 *        FILTER_TEXT (the file's text), FILTER_REMOVED_USER_REGIONS,
 *        _USER_EVENTS, _USER_VALUES, _OPENMP_CONSTRUCTS; nothing without a
 *        filter.
 */
void ot_cv_filter_properties(ot_trace_writer *tw, const char *raw_dir);

#endif

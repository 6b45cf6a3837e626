/**
 * \file filter_info.c
 * \brief raw/filter (raw_format.h) read back into archive properties
 *        (filter_info.h).
 *
 * A damaged or cut file says what it can: a bad header means no filter
 * information (the events still convert); a text cut short is kept as far
 * as it goes. Counts are summed over every taken slot and the shared one.
 */
#define _GNU_SOURCE
#include "filter_info.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ot_cv_filter_read(const char *raw_dir, ot_cv_filter_info *info)
{
    memset(info, 0, sizeof *info);
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", raw_dir, OFFTRACE_RAW_FILTER);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return;
    offtrace_raw_filter *h = malloc(sizeof *h);
    struct stat st;
    if (!h || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, h, sizeof *h, 0) != (ssize_t)sizeof *h ||
        memcmp(h->magic, OFFTRACE_RAW_FILTER_MAGIC, sizeof h->magic) || h->version != OFFTRACE_RAW_VERSION ||
        h->size != sizeof *h) {
        free(h);
        close(fd);
        return;
    }
    info->present = 1;
    info->rejected = h->rejected != 0;
    snprintf(info->path, sizeof info->path, "%.*s", (int)sizeof h->path, h->path);
    snprintf(info->problem, sizeof info->problem, "%.*s", (int)sizeof h->problem, h->problem);
    uint32_t slots = h->next_slot < OFFTRACE_RAW_FILTER_SLOTS ? h->next_slot : OFFTRACE_RAW_FILTER_SLOTS;
    for (unsigned k = 0; k < OFFTRACE_RAW_FILTERED_KINDS; k++) {
        info->removed[k] = h->shared.removed[k];
        for (uint32_t i = 0; i < slots; i++)
            info->removed[k] += h->slot[i].removed[k];
    }
    size_t want = h->text_bytes;
    free(h);
    if (want && (info->text = malloc(want + 1))) {
        ssize_t got = pread(fd, info->text, want, OFFTRACE_RAW_FILTER_HEADER_SIZE);
        info->text[got > 0 ? (size_t)got : 0] = '\0';
    }
    close(fd);
}

void ot_cv_filter_info_free(ot_cv_filter_info *info)
{
    free(info->text);
    info->text = NULL;
}

static void set_count(ot_trace_writer *tw, const char *key, uint64_t value)
{
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)value);
    ot_tw_property(tw, key, text);
}

void ot_cv_filter_properties(ot_trace_writer *tw, const char *raw_dir)
{
    ot_cv_filter_info info;
    ot_cv_filter_read(raw_dir, &info);
    if (!info.present)
        return;
    ot_tw_property(tw, "FILTER", info.path);
    if (info.rejected) {
        char status[1600];
        snprintf(status, sizeof status, "rejected: %s", info.problem);
        ot_tw_property(tw, "FILTER_STATUS", status);
    } else {
        ot_tw_property(tw, "FILTER_STATUS", "applied");
    }
    ot_tw_property(tw, "FILTER_TEXT", info.text ? info.text : "");
    set_count(tw, "FILTER_REMOVED_USER_REGIONS", info.removed[OFFTRACE_RAW_FILTERED_USER_REGION]);
    set_count(tw, "FILTER_REMOVED_USER_EVENTS", info.removed[OFFTRACE_RAW_FILTERED_USER_EVENT]);
    set_count(tw, "FILTER_REMOVED_USER_VALUES", info.removed[OFFTRACE_RAW_FILTERED_USER_VALUE]);
    set_count(tw, "FILTER_REMOVED_OPENMP_CONSTRUCTS", info.removed[OFFTRACE_RAW_FILTERED_OPENMP]);
    set_count(tw, "FILTER_REMOVED_NVTX", info.removed[OFFTRACE_RAW_FILTERED_NVTX]);
    ot_cv_filter_info_free(&info);
}

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "byte_size.h"
#include "offtrace/offtrace.h"

int ot_config_parse_max_size(const char *text, uint64_t *out)
{
    if (!strcasecmp(text, "unlimited")) {
        *out = UINT64_MAX;
        return 0;
    }
    return ot_byte_size_parse_range(text, OFFTRACE_MIN_RECORDING_SIZE, UINT64_MAX, out) ? -EINVAL : 0;
}

static const char *const host_openmp_level_names[] = {"off", "regions", "loops", "all"}; /* = ot_host_openmp_level */

int ot_config_parse_host_openmp(const char *text, int *level)
{
    for (int i = 0; i < (int)(sizeof host_openmp_level_names / sizeof *host_openmp_level_names); i++)
        if (!strcasecmp(text, host_openmp_level_names[i])) {
            *level = i;
            return 0;
        }
    return -EINVAL;
}

static int parse_switch(const char *text, int *out)
{
    static const char *on[] = {"1", "on", "yes", "true"};
    static const char *off[] = {"0", "off", "no", "false"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(text, on[i])) { *out = 1; return 0; }
        if (!strcasecmp(text, off[i])) { *out = 0; return 0; }
    }
    return -EINVAL;
}

static int reject(char *err, size_t size, const char *name, const char *value, const char *accepted)
{
    snprintf(err, size, "offtrace: %s='%s' is not valid (accepted: %s); this run is not traced",
             name, value, accepted);
    return -EINVAL;
}

int ot_config_from_env(ot_config *cfg, char *err, size_t err_size)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->enabled = 1;
    cfg->chunk_bytes = OFFTRACE_DEFAULT_BUFFER_SIZE;
    cfg->memory_budget = OFFTRACE_DEFAULT_MEMORY_BUDGET;
    cfg->verbose = 1;
    cfg->background_writeback = 1;
    const char *v;

    if ((v = getenv("OFFTRACE_ENABLE")) && parse_switch(v, &cfg->enabled))
        return reject(err, err_size, "OFFTRACE_ENABLE", v, "1, 0, on, off, yes, no, true, false");
    if ((v = getenv("OFFTRACE_VERBOSE"))) {
        if (strlen(v) != 1 || v[0] < '0' || v[0] > '2')
            return reject(err, err_size, "OFFTRACE_VERBOSE", v, "0, 1, 2");
        cfg->verbose = v[0] - '0';
    }
    if ((v = getenv("OFFTRACE_BUFFER_SIZE"))) {
        uint64_t size;
        if (ot_byte_size_parse_range(v, OFFTRACE_MIN_BUFFER_SIZE, OFFTRACE_MAX_BUFFER_SIZE, &size))
            return reject(err, err_size, "OFFTRACE_BUFFER_SIZE", v,
                          "a size from 64K to 1G, such as 512K, 4M or 1GiB");
        /* Chunks hold whole records and start on page boundaries. */
        cfg->chunk_bytes = (size + 4095) & ~(size_t)4095;
    }
    if ((v = getenv("OFFTRACE_MEMORY_BUDGET"))) {
        uint64_t size;
        if (ot_byte_size_parse_range(v, OFFTRACE_MIN_MEMORY_BUDGET, OFFTRACE_MAX_MEMORY_BUDGET, &size))
            return reject(err, err_size, "OFFTRACE_MEMORY_BUDGET", v,
                          "a size from 256K to 64G, such as 16M, 64M or 1G");
        cfg->memory_budget = size;
    }
    if ((v = getenv("OFFTRACE_OUTPUT"))) {
        if (!*v || strlen(v) >= sizeof cfg->output)
            return reject(err, err_size, "OFFTRACE_OUTPUT", v,
                          "a directory path that does not exist yet");
        strcpy(cfg->output, v);
    }
    if ((v = getenv("OFFTRACE_KEEP_RAW")) && parse_switch(v, &cfg->keep_raw))
        return reject(err, err_size, "OFFTRACE_KEEP_RAW", v, "1, 0, on, off, yes, no, true, false");
    if ((v = getenv("OFFTRACE_BACKGROUND_WRITEBACK")) && parse_switch(v, &cfg->background_writeback))
        return reject(err, err_size, "OFFTRACE_BACKGROUND_WRITEBACK", v,
                      "1, 0, on, off, yes, no, true, false");
    if ((v = getenv("OFFTRACE_MAX_RECORDING_SIZE")) && ot_config_parse_max_size(v, &cfg->max_size))
        return reject(err, err_size, "OFFTRACE_MAX_RECORDING_SIZE", v, OT_CONFIG_MAX_SIZE_ACCEPTED);
    if ((v = getenv("OFFTRACE_START_PAUSED")) && parse_switch(v, &cfg->start_paused))
        return reject(err, err_size, "OFFTRACE_START_PAUSED", v, "1, 0, on, off, yes, no, true, false");
    /* A volume knob, not a correctness one: a wrong value is said and the
     * run is traced at the default level rather than not at all. */
    cfg->host_openmp = OT_HOST_OPENMP_DEFAULT;
    if ((v = getenv("OFFTRACE_HOST_OPENMP")) && ot_config_parse_host_openmp(v, &cfg->host_openmp)) {
        cfg->host_openmp = OT_HOST_OPENMP_DEFAULT;
        snprintf(cfg->warning, sizeof cfg->warning,
                 "offtrace: OFFTRACE_HOST_OPENMP='%.200s' is not valid (accepted: %s); recording at the default, "
                 "%s", v, OT_HOST_OPENMP_ACCEPTED, host_openmp_level_names[OT_HOST_OPENMP_DEFAULT]);
    }
    /* The file itself is read by the recorder (filter_record.c), which
     * traces without a filter when it is wrong: only the name is checked. */
    if ((v = getenv("OFFTRACE_FILTER")) && *v) {
        if (strlen(v) >= sizeof cfg->filter)
            return reject(err, err_size, "OFFTRACE_FILTER", v, "the path of a filter file (docs/filters.md)");
        strcpy(cfg->filter, v);
    }
    if ((v = getenv("OFFTRACE_OUTPUT_CLAIMED")))
        cfg->output_preclaimed = !strcmp(v, "1");
    return 0;
}

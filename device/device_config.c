#define _GNU_SOURCE
#include "device_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_size.h"

int ot_clock_skew_parse(const char *text, ot_clock_skew *out)
{
    char *end;
    errno = 0;
    long long offset = strtoll(text, &end, 10);
    if (errno || end == text || *end != ':')
        return -EINVAL;
    const char *p = end + 1;
    double drift = strtod(p, &end);
    if (end == p || *end != ':' || !(drift >= -10000.0 && drift <= 10000.0)) /* NaN fails too */
        return -EINVAL;
    p = end + 1;
    if (*p == '-')
        return -EINVAL;
    unsigned long long jitter = strtoull(p, &end, 10);
    if (errno || end == p || *end != '\0' || jitter > 1000000000ull)
        return -EINVAL;
    *out = (ot_clock_skew){offset, drift, jitter};
    return 0;
}

int ot_device_detail_parse(const char *text, int *out)
{
    static const char *const names[] = {"kernels", "teams", "threads"}; /* = enum ot_device_detail */
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (!strcmp(text, names[i])) {
            *out = i;
            return 0;
        }
    return -EINVAL;
}

int ot_device_config_from_env(ot_device_config *cfg, char *err, size_t err_size)
{
    *cfg = (ot_device_config){.thread_budget = OT_DEVICE_DEFAULT_THREAD_BUDGET, .detail = OT_DEVICE_DETAIL_DEFAULT};
    const char *detail = getenv("OFFTRACE_DEVICE_DETAIL");
    if (detail && *detail && ot_device_detail_parse(detail, &cfg->detail) != 0) {
        snprintf(err, err_size, "offtrace: OFFTRACE_DEVICE_DETAIL='%.200s' is not a level (accepted: %s)", detail,
                 OT_DEVICE_DETAIL_ACCEPTED);
        return -EINVAL;
    }
    const char *budget = getenv("OFFTRACE_DEVICE_BUFFER_SIZE");
    uint64_t bytes;
    if (budget) {
        if (ot_byte_size_parse_range(budget, OT_DEVICE_MIN_THREAD_BUDGET, OT_DEVICE_MAX_THREAD_BUDGET, &bytes)) {
            snprintf(err, err_size, "offtrace: OFFTRACE_DEVICE_BUFFER_SIZE='%s' is not a size from 128K to 1G "
                                    "(" OT_BYTE_SIZE_FORMS ")", budget);
            return -EINVAL;
        }
        cfg->thread_budget = (size_t)bytes;
    }
    const char *skew = getenv("OFFTRACE_TEST_DEVICE_CLOCK");
    if (skew && *skew) {
        if (ot_clock_skew_parse(skew, &cfg->skew) != 0) {
            snprintf(err, err_size, "offtrace: OFFTRACE_TEST_DEVICE_CLOCK='%s' is not offset_ns:drift_ppm:jitter_ns "
                                    "(e.g. 5000000000:200:200)", skew);
            return -EINVAL;
        }
        cfg->has_skew = 1;
    }
    return 0;
}

/**
 * \file view_time.c
 * \brief Times (and sizes) as people write them: parsing --from/--to,
 *        durations and byte counts in tooltips, and tick values of the time
 *        axis. Parsing and ticks use integers, so that "0.1ms" is exactly
 *        100000 ns and labels do not depend on the locale.
 */
#include <stdio.h>
#include <string.h>

#include "view_model.h"

static const struct {
    const char *suffix;
    uint64_t ns;
} units[] = {
    {"ns", 1}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ms", 1000000}, {"s", 1000000000},
};

static int unit_of(const char *s, uint64_t *unit)
{
    if (*s == ' ')
        s++;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(s, units[i].suffix)) {
            *unit = units[i].ns;
            return 0;
        }
    return -1;
}

int ot_view_parse_time(const char *text, uint64_t *ns)
{
    const char *p = text;
    uint64_t mantissa = 0, scale = 1;
    int digits = 0, point = 0;
    for (; (*p >= '0' && *p <= '9') || (*p == '.' && !point); p++) {
        if (*p == '.') {
            point = 1;
            continue;
        }
        if (mantissa > UINT64_MAX / 100 || (point && scale >= 1000000000u))
            return -1; /* more digits than a nanosecond clock can mean */
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        if (point)
            scale *= 10;
        digits++;
    }
    uint64_t unit;
    if (!digits || unit_of(p, &unit) != 0)
        return -1;
    /* unit and scale are both powers of ten */
    if (unit >= scale) {
        if (mantissa > UINT64_MAX / (unit / scale))
            return -1;
        *ns = mantissa * (unit / scale);
    } else {
        if (mantissa % (scale / unit))
            return -1; /* a fraction of a nanosecond */
        *ns = mantissa / (scale / unit);
    }
    return 0;
}

void ot_view_format_duration(uint64_t ns, char *buf, size_t size)
{
    if (ns < 1000) {
        snprintf(buf, size, "%llu ns", (unsigned long long)ns);
        return;
    }
    static const char *names[] = {"\xc2\xb5s", "ms", "s"};
    double v = (double)ns / 1000.0;
    int u = 0;
    while (u < 2 && v >= 999.5) { /* 999.7 us reads better as 1.00 ms than as 1000 us */
        v /= 1000.0;
        u++;
    }
    int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
    snprintf(buf, size, "%.*f %s", decimals, v, names[u]);
}

uint64_t ot_view_tick_step(uint64_t span, unsigned max_ticks)
{
    static const uint64_t mult[] = {1, 2, 5};
    if (max_ticks == 0)
        max_ticks = 1;
    for (uint64_t decade = 1; decade <= UINT64_MAX / 10; decade *= 10)
        for (int i = 0; i < 3; i++)
            if (span / (mult[i] * decade) <= max_ticks)
                return mult[i] * decade;
    return UINT64_MAX / 10;
}

void ot_view_format_tick(uint64_t t, uint64_t step, uint64_t max, char *buf, size_t size)
{
    if (t == 0) {
        snprintf(buf, size, "0");
        return;
    }
    /* One unit along the axis, that of its largest value, with as many
     * decimals as the step has in it. */
    uint64_t unit = max >= 1000000000 ? 1000000000 : max >= 1000000 ? 1000000 : max >= 1000 ? 1000 : 1;
    const char *name = unit == 1000000000 ? "s" : unit == 1000000 ? "ms" : unit == 1000 ? "\xc2\xb5s" : "ns";
    int decimals = 0;
    uint64_t part = unit;
    while (part > 1 && step % part) {
        part /= 10;
        decimals++;
    }
    if (!decimals)
        snprintf(buf, size, "%llu %s", (unsigned long long)(t / unit), name);
    else
        snprintf(buf, size, "%llu.%0*llu %s", (unsigned long long)(t / unit), decimals,
                 (unsigned long long)(t % unit / part), name);
}

void ot_view_format_bytes(uint64_t n, char *buf, size_t size)
{
    if (n < 1024) {
        snprintf(buf, size, "%llu bytes", (unsigned long long)n);
        return;
    }
    static const char *names[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = (double)n / 1024.0;
    int u = 0;
    while (u < 3 && v >= 1023.5) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.*f %s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, names[u]);
}

void ot_view_format_window(const ot_view *v, char *buf, size_t size)
{
    uint64_t from = v->w0 - v->trace_start, to = v->w1 - v->trace_start;
    uint64_t step = ot_view_tick_step(to - from, 10000); /* a ten-thousandth of the window */
    char a[48], b[48];
    ot_view_format_tick(from, step, to, a, sizeof a);
    ot_view_format_tick(to, step, to, b, sizeof b);
    snprintf(buf, size, "%s \xe2\x80\x93 %s", a, b);
}

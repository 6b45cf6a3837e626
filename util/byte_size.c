#include "byte_size.h"

#include <errno.h>
#include <stdio.h>

/* Written out rather than strtoull: strtoull takes leading spaces, a sign
 * ("-1" wraps to 2^64-1) and "0x"; a size is digits and a unit only. */
int ot_byte_size_parse(const char *text, uint64_t *bytes)
{
    static const char units[] = "KMGT";
    const char *p = text;
    uint64_t value = 0;
    if (!text || *p < '0' || *p > '9')
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            return -EINVAL;
        value = value * 10 + digit;
    }
    unsigned shift = 0;
    for (unsigned i = 0; units[i]; i++)
        if ((*p | 0x20) == (units[i] | 0x20)) {
            shift = 10 * (i + 1);
            p++;
            break;
        }
    if (shift && (*p | 0x20) == 'i' && (p[1] | 0x20) == 'b')
        p += 2;
    else if ((*p | 0x20) == 'b')
        p++;
    if (*p != '\0' || (shift && value > (UINT64_MAX >> shift)))
        return -EINVAL;
    *bytes = value << shift;
    return 0;
}

int ot_byte_size_parse_range(const char *text, uint64_t min, uint64_t max, uint64_t *bytes)
{
    uint64_t value;
    if (ot_byte_size_parse(text, &value) != 0)
        return -EINVAL;
    if (value < min || value > max)
        return -ERANGE;
    *bytes = value;
    return 0;
}

char *ot_byte_size_format(uint64_t bytes, char *buf, size_t size)
{
    static const char units[] = "KMGT";
    int unit = -1;
    while (bytes && unit < 3 && (bytes & 1023) == 0) {
        bytes >>= 10;
        unit++;
    }
    if (unit < 0)
        snprintf(buf, size, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, size, "%llu%c", (unsigned long long)bytes, units[unit]);
    return buf;
}

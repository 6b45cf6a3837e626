/**
 * \file otf2_open.c
 * \brief The bounded OTF2_Reader_Open of otf2_open.h.
 */
#include "otf2_open.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* The process's address-space size in bytes (0 if unknown). */
static unsigned long long address_space(void)
{
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "re");
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return pages * (unsigned long long)sysconf(_SC_PAGESIZE);
}

OTF2_Reader *ot_otf2_open_reader(const char *anchor)
{
    struct rlimit old, bounded;
    unsigned long long size = address_space();
    int limited = 0;
    if (size && getrlimit(RLIMIT_AS, &old) == 0) {
        bounded = old;
        bounded.rlim_cur = (rlim_t)(size + OT_OTF2_OPEN_HEADROOM);
        if (old.rlim_cur == RLIM_INFINITY || bounded.rlim_cur < old.rlim_cur)
            limited = setrlimit(RLIMIT_AS, &bounded) == 0;
    }
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (limited)
        setrlimit(RLIMIT_AS, &old);
    return r;
}

static OTF2_ErrorCode quiet(void *user, const char *file, uint64_t line, const char *function,
                            OTF2_ErrorCode code, const char *format, va_list va)
{
    return code;
}

OTF2_ErrorCallback ot_otf2_quiet_errors(void)
{
    return OTF2_Error_RegisterCallback(quiet, NULL);
}

void ot_otf2_restore_errors(OTF2_ErrorCallback previous)
{
    OTF2_Error_RegisterCallback(previous, NULL);
}

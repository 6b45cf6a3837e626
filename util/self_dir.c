#define _GNU_SOURCE
#include "self_dir.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int ot_self_dir(char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    snprintf(buf, size, "%s", exe);
    return 0;
}

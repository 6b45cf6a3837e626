/**
 * \file hostid.c
 * \brief gethostid() for OTF2 inside the offtrace command, without the
 *        host name resolver.
 *
 * OTF2 asks for the host id whenever it saves an archive's anchor file
 * (OTF2_AnchorFile_Save, for the trace id). glibc's gethostid() reads
 * /etc/hostid and, where there is none (most machines), resolves the host
 * name through nsswitch: /etc/hosts, then DNS. On a node whose resolver is
 * slow or unreachable every conversion waited for it, and OTF2 asks up to
 * ten times while the answer is 0. This definition, in the executable and
 * exported from it (host/CMakeLists.txt), comes first in the dynamic
 * loader's search, so OTF2's call lands here: /etc/hostid as glibc reads
 * it, else a number made from the host name alone.
 *
 * What the archive records is unchanged: OTF2 3.0 mixes the host id into
 * the trace id only when it is 0 (otf2_anchor_file_hostid), so any other
 * value gives a trace id made the same way as with glibc's (the system's
 * data and the time). tests/test_cli.c checks that OTF2's call binds here.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/utsname.h>
#include <unistd.h>

__attribute__((visibility("default"))) long gethostid(void)
{
    int fd = open("/etc/hostid", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        int32_t id;
        ssize_t got = read(fd, &id, sizeof id);
        close(fd);
        if (got == (ssize_t)sizeof id)
            return id;
    }
    /* FNV-1a of the node name: the same host gives the same number, and
     * never 0, which OTF2 would ask for again. */
    struct utsname u;
    uint32_t h = 2166136261u;
    if (uname(&u) == 0)
        for (const char *p = u.nodename; *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
    return h ? (long)(int32_t)h : 1;
}

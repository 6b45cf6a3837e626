/*
 * libFuzzer targets: a damaged recording directory, loaded by the raw
 * reader (fuzz_raw), or loaded and converted into an OTF2 archive as
 * `offtrace convert` does (fuzz_convert: this file built with
 * OT_FUZZ_CONVERT; ten times slower, as it writes an archive per input).
 *
 * The input is the recording's files (fuzz_parts.h); a part whose name is
 * not a plain file name in raw/ is skipped. clock.pairs and
 * devices.txt default to lines of a real recording when the input has
 * none: without them nothing gets past the loader. maps.<n> are not fuzzed:
 * they name binaries on this machine, which the symbolizer then reads (its
 * own reader, tested by test_symbolize).
 *
 * Everything happens in one private directory, emptied before each input;
 * the conversion keeps raw/ (keep_raw) so that the directory is rebuilt the
 * same way each time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_parts.h"
#include "raw_reader.h"
#ifdef OT_FUZZ_CONVERT
#include "convert.h"
#endif

/* Three clock pairs and the device list of a recording of example_saxpy. */
static const char default_clock[] = "1294476866591 498541608918 1795502425549340811\n"
                                    "1294485184173 498544812821 1795502425552544695\n"
                                    "1294491211220 498547134384 1795502425554866247\n";
static const char default_devices[] = "0 host\n0 generic-64bit\n";

static char work_dir[256], raw_dir[300];

/* A file of raw/ other than maps.<n>: letters, digits, '.', '-', '_'. */
static int usable_name(const char *name)
{
    if (!name[0] || name[0] == '.' || !strncmp(name, "maps.", 5))
        return 0;
    for (const char *c = name; *c; c++)
        if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') && *c != '.' &&
            *c != '-' && *c != '_')
            return 0;
    return 1;
}

static void write_file(const char *name, const uint8_t *data, size_t size)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", raw_dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort(); /* the harness's own failure: stop rather than fuzz nothing */
    }
    while (size) {
        ssize_t n = write(fd, data, size);
        if (n <= 0) {
            perror(path);
            abort();
        }
        data += n;
        size -= (size_t)n;
    }
    close(fd);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void remove_work_dir(void)
{
    nftw(work_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(work_dir, sizeof work_dir, "%s/offtrace-fuzz-raw-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    snprintf(raw_dir, sizeof raw_dir, "%s/raw", work_dir);
    atexit(remove_work_dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    remove_work_dir();
    if (mkdir(work_dir, 0700) != 0 || mkdir(raw_dir, 0700) != 0) {
        perror(work_dir);
        abort();
    }
    ot_fuzz_part part;
    int have_clock = 0, have_devices = 0;
    while (ot_fuzz_next_part(&data, &size, &part)) {
        if (!usable_name(part.name))
            continue;
        write_file(part.name, part.data, part.size);
        have_clock |= !strcmp(part.name, "clock.pairs");
        have_devices |= !strcmp(part.name, "devices.txt");
    }
    if (!have_clock)
        write_file("clock.pairs", (const uint8_t *)default_clock, sizeof default_clock - 1);
    if (!have_devices)
        write_file("devices.txt", (const uint8_t *)default_devices, sizeof default_devices - 1);

    char err[512];
    ot_raw_recording rec;
    int loaded = ot_raw_load(raw_dir, &rec, err, sizeof err) == 0;
    ot_raw_free(&rec);
#ifdef OT_FUZZ_CONVERT
    if (loaded) {
        ot_convert_options opts = {.keep_raw = 1, .reason = "fuzzed"};
        char msg[8192];
        ot_convert_directory(work_dir, &opts, msg, sizeof msg);
    }
#else
    (void)loaded;
#endif
    return 0;
}

/* offtrace: record an OpenMP offload program and look at the result. The
 * verbs and their options are tables (options.c); this only dispatches. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "offtrace/offtrace.h"

static int is_help(const char *arg)
{
    return !strcmp(arg, "--help") || !strcmp(arg, "-h") || !strcmp(arg, "help");
}

/* glibc maps every allocation of 128 KiB or more by itself and unmaps it
 * when freed (until a free raises that limit on its own), so each one's
 * pages fault in anew, about 2.6 us a page here. offtrace's big allocations
 * come and go all the time: OTF2 takes a 4 MiB buffer for every file it
 * writes and frees it at the file's close, a 256 KiB chunk for every
 * location's event and definition writers and for every reader, and the raw
 * reader has its windows. From the heap, a freed block's pages serve the
 * next one. Below 8 MiB they come from the heap, and up to 16 MiB of freed
 * heap stay for the next (record had this by chance while its MPI decision
 * freed a 4 MiB table: issue 18, sixth round). */
static void keep_big_allocations_in_the_heap(void)
{
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    mallopt(M_TRIM_THRESHOLD, 16 << 20);
}

int main(int argc, char **argv)
{
    keep_big_allocations_in_the_heap();
    if (argc < 2) {
        ot_cli_print_overview(stderr);
        return 2;
    }
    if (is_help(argv[1])) { /* offtrace --help, offtrace help VERB */
        const ot_cli_verb_info *verb = argc > 2 ? ot_cli_verb_find(argv[2]) : NULL;
        if (argc > 2 && !verb) {
            fprintf(stderr, "offtrace: unknown verb '%s' (offtrace --help lists them)\n", argv[2]);
            return 2;
        }
        if (verb)
            ot_cli_print_help(verb, stdout);
        else
            ot_cli_print_overview(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("offtrace %s\n", OFFTRACE_VERSION_STRING);
        return 0;
    }
    const ot_cli_verb_info *verb = ot_cli_verb_find(argv[1]);
    if (!verb) {
        fprintf(stderr, "offtrace: unknown verb '%s' (offtrace --help lists them)\n", argv[1]);
        return 2;
    }
    ot_cli_args args;
    int rc = ot_cli_parse(verb, argc - 1, argv + 1, &args);
    if (rc)
        return rc > 0 ? 0 : 2;
    char dir[4096];
    if (args.dir) /* DIR/traces.otf2 is DIR, for every verb */
        args.dir = ot_cli_archive_dir(args.dir, dir, sizeof dir);
    /* Verbs that read an archive run in a child process: a damaged archive
     * must end in a message, never in a crash of offtrace. */
    return verb->reads_archive ? ot_cli_isolated(&args) : verb->run(&args);
}

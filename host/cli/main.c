/* offtrace: record an OpenMP offload program and look at the result. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "offtrace/offtrace.h"

typedef struct verb {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    int reads_archive;
} verb;

/* Verbs that read an archive run in a child process (ot_cli_isolated): a
 * damaged archive must end in a message, never in a crash of offtrace. */
static const verb verbs[] = {
    {"record", ot_cmd_record, "run a program and record its offload activity into an OTF2 archive", 0},
#ifdef OFFTRACE_HAVE_REPORT
    {"report", ot_cmd_report, "where the time went and which transfers were avoidable", 1},
#endif
#ifdef OFFTRACE_HAVE_VIEW
    {"view", ot_cmd_view, "draw the timeline as SVG or interactive HTML", 1},
#endif
#ifdef OFFTRACE_HAVE_EXPORT
    {"export", ot_cmd_export, "write the trace for other viewers (Chrome trace JSON for Perfetto)", 1},
#endif
    {"info", ot_cmd_info, "say what is in an archive", 1},
    {"convert", ot_cmd_convert, "turn a recording left by a program that died into an archive", 0},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: offtrace <verb> [options] ...\n\n");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        fprintf(to, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(to, "\n  offtrace record -o run1 -- ./app args   then   offtrace report run1\n");
    fprintf(to, "  offtrace <verb> --help for the verb's options\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("offtrace %s\n", OFFTRACE_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name))
            return verbs[i].reads_archive ? ot_cli_isolated(verbs[i].run, argc - 1, argv + 1)
                                          : verbs[i].run(argc - 1, argv + 1);
    fprintf(stderr, "offtrace: unknown verb '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

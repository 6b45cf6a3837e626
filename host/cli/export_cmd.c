/**
 * \file export_cmd.c
 * \brief `offtrace export --format chrome DIR -o FILE|-`: the archive for
 *        other viewers (docs/export.md). Runs isolated (main.c); the output
 *        file appears only when complete.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "export_chrome.h"

#define USAGE "usage: offtrace export [--format chrome] DIR -o FILE|-"
#define FORMATS "chrome (Chrome trace-event JSON for Perfetto and chrome://tracing)"

typedef struct export_args {
    const char *format, *output, *dir;
} export_args;

/* \return 0, 1 for --help, or -1 after a one-line message (usage error). */
static int parse_args(int argc, char **argv, export_args *a)
{
    *a = (export_args){.format = "chrome"};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char **value = NULL;
        if (!strcmp(s, "--help") || !strcmp(s, "-h"))
            return 1;
        if (!strcmp(s, "--format") || !strcmp(s, "-o") || !strcmp(s, "--output")) {
            value = !strcmp(s, "--format") ? &a->format : &a->output;
            if (i + 1 == argc) {
                fprintf(stderr, "offtrace export: %s needs a value; " USAGE "\n", s);
                return -1;
            }
            *value = argv[++i];
        } else if (!strncmp(s, "--format=", 9)) {
            a->format = s + 9;
        } else if (!strncmp(s, "--output=", 9)) {
            a->output = s + 9;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "offtrace export: unknown option '%s'; " USAGE "\n", s);
            return -1;
        } else if (a->dir) {
            fprintf(stderr, "offtrace export: one archive at a time ('%s' and '%s'); " USAGE "\n", a->dir, s);
            return -1;
        } else {
            a->dir = s;
        }
    }
    if (!a->dir || !a->output) {
        fprintf(stderr, "offtrace export: %s; " USAGE "\n",
                !a->dir ? "no archive given" : "no output given (-o FILE, or -o - for stdout)");
        return -1;
    }
    return 0;
}

/* ---- no half file when the reader crashes ----
 * A damaged archive can crash OTF2; ot_cli_isolated then reports it from
 * the parent, which does not know the output file. So the child removes its
 * `.partial` itself before dying of the signal (also of timeout's SIGTERM). */

static char partial_path[4200];

static void remove_partial(int sig)
{
    if (partial_path[0])
        unlink(partial_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void guard_partial(const char *path)
{
    static char alt_stack[64 * 1024]; /* a stack overflow must still reach the handler */
    static const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGXFSZ};
    snprintf(partial_path, sizeof partial_path, "%s", path);
    stack_t st = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack};
    sigaltstack(&st, NULL);
    struct sigaction sa = {.sa_handler = remove_partial, .sa_flags = SA_ONSTACK | SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
        sigaction(signals[i], &sa, NULL);
}

/* ---- the verb ---- */

static int exit_code(int rc)
{
    return rc == -ENOENT || rc == -EINVAL || rc == -EPROTO ? 2 : 1; /* bad input, else a failure while working */
}

static int export_to(const export_args *a, FILE *out)
{
    char err[1024];
    ot_export_chrome_stats st;
    int rc = ot_export_chrome(a->dir, out, &st, err, sizeof err);
    if (rc) {
        for (char *p = err; *p; p++) /* OTF2's messages may span lines; ours is one */
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        fprintf(stderr, "%s\n", err);
        return exit_code(rc);
    }
    fprintf(stderr, "offtrace export: %llu slices, %llu transfer arrows, %llu memory samples from %llu events -> %s\n",
            (unsigned long long)st.slices, (unsigned long long)st.flows, (unsigned long long)st.counters,
            (unsigned long long)st.events, strcmp(a->output, "-") ? a->output : "stdout");
    return 0;
}

/* Devices and FIFOs (-o /dev/null, a named pipe) are written in place:
 * ot_cli_output's rename of FILE.partial would replace the device node. */
static int special_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int export_in_place(const export_args *a)
{
    FILE *f = fopen(a->output, "we");
    if (!f) {
        fprintf(stderr, "offtrace: cannot write '%s': %s\n", a->output, strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    int rc = export_to(a, f);
    if (fclose(f) != 0 && rc == 0) {
        fprintf(stderr, "offtrace: writing '%s' failed: %s\n", a->output, strerror(errno));
        rc = 1;
    }
    return rc;
}

int ot_cmd_export(int argc, char **argv)
{
    export_args a;
    int p = parse_args(argc, argv, &a);
    if (p) {
        if (p > 0)
            printf(USAGE "\n  --format chrome   the only format now: " FORMATS "\n"
                         "  -o FILE           the output (- for stdout); it appears only when complete\n");
        return p > 0 ? 0 : 2;
    }
    if (strcmp(a.format, "chrome")) {
        fprintf(stderr, "offtrace export: unknown format '%s'; formats: " FORMATS "\n", a.format);
        return 2;
    }
    if (!ot_cli_output_allowed("export", a.output, a.dir))
        return 2;
    if (ot_cli_refuse_recording(a.dir))
        return 1;
    if (!strcmp(a.output, "-")) {
        /* A reader that quits early (| head) is a failed write, not a crash
         * that ot_cli_isolated would blame on the archive. */
        signal(SIGPIPE, SIG_IGN);
        return export_to(&a, stdout);
    }
    if (special_file(a.output))
        return export_in_place(&a);
    ot_cli_output o;
    if (ot_cli_output_open(&o, a.output) != 0)
        return 1;
    guard_partial(o.partial);
    int rc = export_to(&a, (FILE *)o.file);
    if (rc)
        ot_cli_output_abandon(&o);
    else if (ot_cli_output_commit(&o) != 0)
        rc = 1;
    partial_path[0] = '\0';
    return rc;
}

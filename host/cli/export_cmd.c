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

typedef struct export_args {
    const char *output, *dir;
} export_args;

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
    /* an MPI job (issue 16): its messages, and those without an arrow (a side not in the archive) */
    char messages[160] = "", left_out[96] = "";
    if (st.messages_left_out)
        snprintf(left_out, sizeof left_out, " (%llu left out: their send or receive is not in the archive)",
                 (unsigned long long)st.messages_left_out);
    if (st.message_flows || st.messages_left_out)
        snprintf(messages, sizeof messages, "%llu MPI message arrows%s, ", (unsigned long long)st.message_flows,
                 left_out);
    fprintf(stderr, "offtrace export: %llu slices, %llu transfer arrows, %s%llu counter samples (device memory, "
                    "user values) from %llu events -> %s\n",
            (unsigned long long)st.slices, (unsigned long long)st.flows, messages, (unsigned long long)st.counters,
            (unsigned long long)st.events, strcmp(a->output, "-") ? a->output : "stdout");
    return 0;
}

int ot_cmd_export(const ot_cli_args *args)
{
    /* --format has one choice today (options.c checked it): chrome. */
    export_args a = {.output = args->text[OT_OPT_OUTPUT], .dir = args->dir};
    if (!a.output)
        return ot_cli_usage_error(args->verb, "no output given (-o FILE, or -o - for stdout)");
    if (!ot_cli_output_allowed("export", a.output, a.dir))
        return 2;
    int rc = ot_cli_archive_ready("export", a.dir);
    if (rc)
        return rc;
    /* A reader that quits early (`| head`, a FIFO's reader) ends export by
     * SIGPIPE, as it ends cat: no message, and ot_cli_isolated passes the
     * signal on instead of blaming the archive. */
    if (!strcmp(a.output, "-"))
        return export_to(&a, stdout);
    ot_cli_output o;
    if (ot_cli_output_open(&o, a.output) != 0)
        return 1;
    if (o.partial[0])
        guard_partial(o.partial);
    rc = export_to(&a, (FILE *)o.file);
    if (rc)
        ot_cli_output_abandon(&o);
    else if (ot_cli_output_commit(&o) != 0)
        rc = 1;
    partial_path[0] = '\0';
    return rc;
}

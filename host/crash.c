#define _GNU_SOURCE
#include "crash.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "convert_process.h"
#include "offtrace/offtrace.h"
#include "session.h"
#include "stream.h"

#define FATAL_SIGNALS 5
static const int fatal_signals[FATAL_SIGNALS] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static char reasons[FATAL_SIGNALS][32]; /* "killed by SIGSEGV", built at install */
static char dir_text[4096];
static pid_t recording_pid;
static int installed;

/* Enough for the handler's frames and a lazy symbol binding's register save;
 * the converter's child has a stack of its own. A guard page below it. */
#define ALTSTACK_BYTES (64u * 1024u)
static OT_TLS char *own_altstack;
static char *first_altstack; /* the installing thread's, kept for the whole run */

static size_t page_bytes(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096u;
}

void ot_crash_thread_begin(void)
{
    if (!installed || own_altstack)
        return;
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE))
        return; /* the program's own: the handler runs there */
    size_t guard = page_bytes();
    char *mem = mmap(NULL, guard + ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return;
    mprotect(mem, guard, PROT_NONE);
    stack_t ss = {.ss_sp = mem + guard, .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        munmap(mem, guard + ALTSTACK_BYTES);
        return;
    }
    own_altstack = mem;
}

void ot_crash_thread_end(void)
{
    if (!own_altstack || own_altstack == first_altstack)
        return;
    stack_t off = {.ss_flags = SS_DISABLE};
    if (sigaltstack(&off, NULL) == 0)
        munmap(own_altstack, page_bytes() + ALTSTACK_BYTES);
    own_altstack = NULL;
}

/* A line built without stdio (async-signal-safe). */
typedef struct line {
    char text[8800];
    size_t used;
} line;

static void add(line *l, const char *s)
{
    while (*s && l->used < sizeof l->text - 1)
        l->text[l->used++] = *s++;
}

static void say_outcome(ot_convert_outcome outcome, const char *reason)
{
    static line l; /* not on the (alternate) stack */
    l.used = 0;
    add(&l, "offtrace: the program was ");
    add(&l, reason);
    if (outcome == OT_CONVERTED) {
        add(&l, "; its trace up to then is in ");
        add(&l, dir_text);
        if (ot_the_session.job_rank >= 0) /* a rank of an MPI job: its part (issue 16) */
            add(&l, "/part");
        add(&l, "/" OFFTRACE_ARCHIVE_NAME ".otf2\n");
    } else {
        if (outcome == OT_CONVERT_NOT_STARTED) {
            add(&l, "; no converter could be started (");
            add(&l, ot_convert_process_cli());
            add(&l, ")");
        } else if (outcome == OT_CONVERT_TIMED_OUT) {
            add(&l, "; its conversion was stopped after the time limit");
        } else {
            add(&l, "; its conversion failed");
        }
        add(&l, "; the recording is kept: run `offtrace convert ");
        add(&l, dir_text);
        add(&l, "`\n");
    }
    ssize_t ignored = write(STDERR_FILENO, l.text, l.used);
    (void)ignored;
}

/* Only async-signal-safe calls from here on. SA_RESETHAND has restored the
 * default action; SA_NODEFER lets the re-raise act at once. */
static void on_fatal_signal(int sig)
{
    int saved_errno = errno;
    if (getpid() == recording_pid) { /* never in a forked child: the recording is its parent's */
        const char *reason = "killed by a fatal signal";
        for (int i = 0; i < FATAL_SIGNALS; i++)
            if (fatal_signals[i] == sig)
                reason = reasons[i];
        __atomic_store_n(&ot_recording, 0, __ATOMIC_RELEASE); /* other threads stop adding */
        ot_convert_outcome outcome = ot_convert_process_run(reason, 1);
        if (outcome != OT_CONVERT_ALREADY_RUN) /* the exit path's converter, or another thread's */
            say_outcome(outcome, reason);
    }
    errno = saved_errno;
    raise(sig);
}

void ot_crash_install(const char *output_dir)
{
    snprintf(dir_text, sizeof dir_text, "%s", output_dir);
    recording_pid = getpid();
    for (int i = 0; i < FATAL_SIGNALS; i++) {
        const char *name = sigabbrev_np(fatal_signals[i]);
        snprintf(reasons[i], sizeof reasons[i], "killed by SIG%s", name ? name : "?");
    }
    installed = 1;
    ot_crash_thread_begin();
    first_altstack = own_altstack;
    for (int i = 0; i < FATAL_SIGNALS; i++) {
        struct sigaction old, sa;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL)
            continue; /* the program's own handler, or ignored: left alone */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

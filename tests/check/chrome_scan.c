/**
 * \file chrome_scan.c
 * \brief The export scanner of chrome_scan.h: one event per line, fields
 *        found by their keys.
 */
#define _GNU_SOURCE
#include "chrome_scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The unsigned value after `"key":` in [line, end), or -1. */
static long long number_field(const char *line, const char *end, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = memmem(line, (size_t)(end - line), pattern, strlen(pattern));
    return p ? strtoll(p + strlen(pattern), NULL, 10) : -1;
}

/* The string after `"key":"` (no escapes expected), copied into buf; 0 or -1. */
static int string_field(const char *line, const char *end, const char *key, char *buf, size_t size)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *p = memmem(line, (size_t)(end - line), pattern, strlen(pattern));
    if (!p)
        return -1;
    p += strlen(pattern);
    const char *q = memchr(p, '"', (size_t)(end - p));
    if (!q || (size_t)(q - p) >= size)
        return -1;
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = '\0';
    return 0;
}

/* The microseconds after `"key":` (as the export writes them: digits, and up
 * to three decimals) in nanoseconds, or -1. */
static int64_t time_field(const char *line, const char *end, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = memmem(line, (size_t)(end - line), pattern, strlen(pattern));
    if (!p)
        return -1;
    p += strlen(pattern);
    int negative = *p == '-';
    p += negative;
    int64_t us = 0, ns = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        us = us * 10 + (*p - '0');
    int places = 0;
    if (p < end && *p == '.')
        for (p++; p < end && *p >= '0' && *p <= '9' && places < 3; p++, places++)
            ns = ns * 10 + (*p - '0');
    for (; places < 3; places++)
        ns *= 10;
    return (negative ? -1 : 1) * (us * 1000 + ns);
}

static void push_event(chrome_scan *s, char ph, const chrome_thread *t, const char *line, const char *end)
{
    s->events = realloc(s->events, (s->event_count + 1) * sizeof *s->events);
    chrome_event *ev = &s->events[s->event_count++];
    ev->ph = ph;
    ev->thread = (size_t)(t - s->threads);
    ev->ts = time_field(line, end, "ts");
    ev->dur = ph == 'X' ? time_field(line, end, "dur") : 0;
}

static chrome_thread *thread_of(chrome_scan *s, unsigned pid, unsigned tid)
{
    for (size_t i = 0; i < s->thread_count; i++)
        if (s->threads[i].tid == tid && s->threads[i].pid == pid)
            return &s->threads[i];
    if (s->thread_count == CHROME_SCAN_MAX)
        return NULL;
    chrome_thread *t = &s->threads[s->thread_count++];
    t->pid = pid;
    t->tid = tid;
    return t;
}

static void push_id(char ***ids, uint64_t n, const char *line, const char *end)
{
    char id[64] = "";
    string_field(line, end, "id", id, sizeof id);
    *ids = realloc(*ids, (n + 1) * sizeof **ids);
    (*ids)[n] = strdup(id);
}

static int metadata(chrome_scan *s, const char *line, const char *end, unsigned pid, chrome_thread *t)
{
    char what[64], name[256];
    s->metadata++;
    if (string_field(line, end, "name", what, sizeof what) ||
        string_field(line, end, "args\":{\"name", name, sizeof name))
        return 0; /* a sort index */
    if (!strcmp(what, "thread_name") && t) {
        snprintf(t->name, sizeof t->name, "%s", name);
        t->named++;
    } else if (!strcmp(what, "process_name")) {
        if (s->process_count == CHROME_SCAN_MAX)
            return -1;
        s->processes[s->process_count].pid = pid;
        snprintf(s->processes[s->process_count++].name, sizeof s->processes[0].name, "%s", name);
    }
    return 0;
}

static int scan_line(chrome_scan *s, const char *line, const char *end)
{
    if (end - line < 10 || strncmp(line, "{\"ph\":\"", 7)) {
        s->other_lines++;
        return 0;
    }
    char ph = line[7];
    unsigned pid = (unsigned)number_field(line, end, "pid");
    long long tid = number_field(line, end, "tid");
    chrome_thread *t = tid >= 0 ? thread_of(s, pid, (unsigned)tid) : NULL;
    if (tid >= 0 && !t)
        return -1;
    if (!t && ph != 'M') { /* every event but metadata names its thread */
        s->other_lines++;
        return 0;
    }
    switch (ph) {
    case 'M': return metadata(s, line, end, pid, t);
    case 'X':
        s->slices++;
        t->slices++;
        s->kernels += memmem(line, (size_t)(end - line), "\"cat\":\"kernel\"", 14) != NULL;
        s->unfinished += memmem(line, (size_t)(end - line), "\"unfinished\":true", 17) != NULL;
        push_event(s, ph, t, line, end);
        return 0;
    case 's':
        push_id(&s->start_ids, s->flow_starts++, line, end);
        t->flow_starts++;
        push_event(s, ph, t, line, end);
        return 0;
    case 'f':
        push_id(&s->end_ids, s->flow_ends++, line, end);
        t->flow_ends++;
        push_event(s, ph, t, line, end);
        return 0;
    case 'C': s->counters++; t->counters++; return 0;
    default: s->other_lines++; return 0;
    }
}

int chrome_scan_text(const char *text, chrome_scan *s)
{
    memset(s, 0, sizeof *s);
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        if (scan_line(s, line, end))
            return -1;
        line = *end ? end + 1 : end;
    }
    return 0;
}

void chrome_scan_free(chrome_scan *s)
{
    for (uint64_t i = 0; i < s->flow_starts; i++)
        free(s->start_ids[i]);
    for (uint64_t i = 0; i < s->flow_ends; i++)
        free(s->end_ids[i]);
    free(s->start_ids);
    free(s->end_ids);
    free(s->events);
    s->start_ids = s->end_ids = NULL;
    s->events = NULL;
}

/* Events sorted by thread, then ts, then file position (a stable view). */
typedef struct placed {
    const chrome_event *ev;
    size_t at;
} placed;

static int by_thread_time(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    if (x->ev->thread != y->ev->thread)
        return x->ev->thread < y->ev->thread ? -1 : 1;
    if (x->ev->ts != y->ev->ts)
        return x->ev->ts < y->ev->ts ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

size_t chrome_scan_order_faults(const chrome_scan *s, char *why, size_t why_size)
{
    size_t faults = 0, n = s->event_count;
    placed *v = malloc((n ? n : 1) * sizeof *v);
    if (why_size)
        why[0] = '\0';
#define FAULT(...)                                     \
    do {                                               \
        if (!faults++ && why_size)                     \
            snprintf(why, why_size, __VA_ARGS__);      \
    } while (0)
    for (size_t i = 0; i < n; i++)
        v[i] = (placed){&s->events[i], i};
    qsort(v, n, sizeof *v, by_thread_time);
    for (size_t i = 0; i < n; i++) {
        const chrome_event *e = v[i].ev;
        const char *thread = s->threads[e->thread].name;
        if (e->ph == 'X') {
            /* the slice before it in file order at the same ts on the thread */
            for (size_t j = i; j-- > 0 && v[j].ev->thread == e->thread && v[j].ev->ts == e->ts;)
                if (v[j].ev->ph == 'X') {
                    if (v[j].ev->dur < e->dur)
                        FAULT("'%s' at %lld ns: a slice of %lld ns comes after a shorter one it encloses", thread,
                              (long long)e->ts, (long long)e->dur);
                    break;
                }
            continue;
        }
        /* a flow: the slices of its thread that hold its ts (all begin at or before it) */
        int inside = 0, bound_after = 0;
        for (size_t j = i + 1; j < n && v[j].ev->thread == e->thread && v[j].ev->ts == e->ts; j++)
            if (v[j].ev->ph == 'X') /* a slice at its ts that comes after it in the file */
                bound_after = 1;
        for (size_t j = i; j-- > 0 && v[j].ev->thread == e->thread;)
            if (v[j].ev->ph == 'X' && v[j].ev->ts + v[j].ev->dur >= e->ts)
                inside = 1;
        if (bound_after)
            FAULT("'%s' at %lld ns: a flow event ('%c') comes before the slice that begins at its time", thread,
                  (long long)e->ts, e->ph);
        else if (!inside)
            FAULT("'%s' at %lld ns: a flow event ('%c') lies in no slice", thread, (long long)e->ts, e->ph);
    }
#undef FAULT
    free(v);
    return faults;
}

const chrome_thread *chrome_thread_named(const chrome_scan *s, const char *name)
{
    for (size_t i = 0; i < s->thread_count; i++)
        if (s->threads[i].named && !strcmp(s->threads[i].name, name))
            return &s->threads[i];
    return NULL;
}

const char *chrome_process_name(const chrome_scan *s, unsigned pid)
{
    for (size_t i = 0; i < s->process_count; i++)
        if (s->processes[i].pid == pid)
            return s->processes[i].name;
    return NULL;
}

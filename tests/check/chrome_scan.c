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
        return 0;
    case 's': push_id(&s->start_ids, s->flow_starts++, line, end); t->flow_starts++; return 0;
    case 'f': push_id(&s->end_ids, s->flow_ends++, line, end); t->flow_ends++; return 0;
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
    s->start_ids = s->end_ids = NULL;
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

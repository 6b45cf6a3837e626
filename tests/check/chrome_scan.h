/**
 * \file chrome_scan.h
 * \brief Test-side reading of `offtrace export --format chrome` output: what
 *        each thread holds, the flow ids, the names in the metadata.
 *
 * It relies on the export's layout (one event per line, docs/export.md);
 * json_check checks the syntax separately.
 */
#ifndef OT_TEST_CHROME_SCAN_H
#define OT_TEST_CHROME_SCAN_H

#include <stddef.h>
#include <stdint.h>

#define CHROME_SCAN_MAX 256

typedef struct chrome_thread {
    unsigned pid, tid;
    char name[256];           /**< from its thread_name event ("" if none) */
    int named;                /**< thread_name events seen for it */
    uint64_t slices, flow_starts, flow_ends, counters;
} chrome_thread;

typedef struct chrome_process {
    unsigned pid;
    char name[256];
} chrome_process;

/** One slice or flow event, in file order (for the ordering rules). */
typedef struct chrome_event {
    char ph;                  /**< 'X', 's' or 'f' */
    size_t thread;            /**< index in chrome_scan.threads */
    int64_t ts, dur;          /**< nanoseconds (dur 0 for flows) */
} chrome_event;

typedef struct chrome_scan {
    chrome_thread threads[CHROME_SCAN_MAX];
    size_t thread_count;
    chrome_process processes[CHROME_SCAN_MAX];
    size_t process_count;
    uint64_t slices, kernels, flow_starts, flow_ends, counters, metadata, unfinished;
    char **start_ids, **end_ids;  /**< "id" of each "s" and "f" event, in file order */
    uint64_t other_lines;         /**< lines that are not an event (the document's frame) */
    chrome_event *events;         /**< slices and flow events, in file order */
    size_t event_count;
} chrome_scan;

/** \brief Scan an export's text. \return 0, or -1 when a table overflows. */
int chrome_scan_text(const char *text, chrome_scan *s);

void chrome_scan_free(chrome_scan *s);

/**
 * \brief Check the order an importer that takes equal timestamps in file order
 *        (older Perfetto, Catapult) needs: on a thread, of two slices with the
 *        same `ts` the longer (the parent) comes first; a flow event lies inside
 *        a slice of its thread, and a slice it binds to that begins at the
 *        flow's own `ts` comes before it.
 * \return the number of faults; the first is described in \p why.
 */
size_t chrome_scan_order_faults(const chrome_scan *s, char *why, size_t why_size);

/** \brief The thread with thread_name \p name, or NULL. */
const chrome_thread *chrome_thread_named(const chrome_scan *s, const char *name);

/** \brief The process_name of \p pid, or NULL. */
const char *chrome_process_name(const chrome_scan *s, unsigned pid);

#endif

/**
 * \file archive_check.h
 * \brief Test-side reader of an offtrace archive: reads it with OTF2's
 *        global event reader (not the code offtrace itself uses), counts what
 *        the tests compare against the runtime, and checks the rules every
 *        archive must keep: OTF2's own structural rules (otf2_rules.h)
 *        and what offtrace's archives mean (classes, device rows, kernels and
 *        device work inside their host target regions, where a data op's map
 *        attributes are).
 */
#ifndef OT_TEST_ARCHIVE_CHECK_H
#define OT_TEST_ARCHIVE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/event_catalogue.h"

typedef struct archive_facts {
    uint64_t target, enter_data, exit_data, update, data_regions;
    uint64_t kernels;
    uint64_t puts, put_bytes, gets, get_bytes;
    uint64_t completions, metrics;
    uint64_t host_threads, devices, rdma_locations;
    uint64_t events;
    /* device detail: device-thread locations (CPU threads in an accelerator group) */
    uint64_t device_threads, device_enters;
    uint64_t device_parallel, device_loops, device_barriers, device_tasks, device_implicit_tasks;
    uint64_t device_lost_markers; /* "offtrace: device records lost" regions */
    uint64_t targets_without_device_parallel; /* host target regions with no device parallel inside */
    uint64_t enters[OFFTRACE_CLASS_COUNT];    /* Enter events by catalogue class (the archive's class table) */
    /* rule violations; each must be 0 */
    uint64_t otf2_rules;          /* violations of the OTF2 3.0 header rules (check/otf2_rules.h): nesting,
                                     time order, clock range, event counts, RMA matching, group contents... */
    uint64_t bad_remote;          /* RMA remote that is not an RDMA location */
    uint64_t kernel_outside;      /* kernels not inside a host target region of the same line */
    uint64_t bad_groups;          /* device location outside an accelerator group, no class table, a region
                                     in no class or of another role/paradigm than its class, no location role */
    uint64_t device_outside;      /* device-thread events outside every host target region */
    uint64_t bad_map_placement;   /* map attributes (issue 15) not where docs/variables.md puts them: a
                                     named data op's Enter without its map type, implicit, site or entry,
                                     or a map attribute on another Enter; a put/get with more than the
                                     variable, or not inside a data op's Enter of that variable; a chunk
                                     Enter carrying its location's previous chunk's iterations, or a
                                     location's first one without them; a host implicit task's Enter
                                     carrying its location's previous one's team size or thread number,
                                     or a location's first one without them (docs/host-openmp.md) */
    uint64_t named_transfers;     /* puts/gets carrying the variable (inside their data op, checked) */
    char first_problem[512];
} archive_facts;

/**
 * \brief Read `<dir>/traces.otf2` and fill \p f.
 * \return 0 when the archive could be read (rule violations are in \p f), -1 otherwise.
 */
int archive_check(const char *dir, archive_facts *f);

/**
 * \brief Timestamps of every Enter/Leave on one location, in file order.
 * \param times  malloc'd array (caller frees), \p n its length.
 * \return 0, or -1 when the archive cannot be read.
 */
int archive_location_times(const char *dir, uint64_t location, uint64_t **times, size_t *n);

/**
 * \brief A numeric archive property (e.g. "OFFTRACE::DEVICE_RECORDS").
 * \return 0 and the value, or -1 when the archive or the property is missing.
 */
int archive_property(const char *dir, const char *name, uint64_t *value);

/** \brief Sum of all rule violations. */
uint64_t archive_violations(const archive_facts *f);

#endif

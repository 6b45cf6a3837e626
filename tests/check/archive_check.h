/**
 * \file archive_check.h
 * \brief Test-side reader of an offtrace archive: reads it with OTF2's
 *        global event reader (not the code offtrace itself uses), counts what
 *        the tests compare against the runtime, and checks the rules every
 *        archive must keep.
 */
#ifndef OT_TEST_ARCHIVE_CHECK_H
#define OT_TEST_ARCHIVE_CHECK_H

#include <stdint.h>

typedef struct archive_facts {
    uint64_t target, enter_data, exit_data, update, data_regions;
    uint64_t kernels;
    uint64_t puts, put_bytes, gets, get_bytes;
    uint64_t completions, metrics;
    uint64_t host_threads, devices, rdma_locations;
    uint64_t events;
    /* rule violations; each must be 0 */
    uint64_t unbalanced;          /* Leave without matching Enter, or regions left open */
    uint64_t backwards;           /* a timestamp smaller than the previous on its location */
    uint64_t outside_clock;       /* events outside ClockProperties */
    uint64_t count_mismatch;      /* locations whose numberOfEvents differs from what was read */
    uint64_t unpaired_rma;        /* put/get without completion or completion without op */
    uint64_t bad_remote;          /* RMA remote that is not an RDMA location */
    uint64_t kernel_outside;      /* kernels not inside a host target region of the same line */
    uint64_t bad_groups;          /* stream outside an accelerator group, group without creator ... */
    char first_problem[512];
} archive_facts;

/**
 * \brief Read `<dir>/traces.otf2` and fill \p f.
 * \return 0 when the archive could be read (rule violations are in \p f), -1 otherwise.
 */
int archive_check(const char *dir, archive_facts *f);

/** \brief Sum of all rule violations. */
uint64_t archive_violations(const archive_facts *f);

#endif

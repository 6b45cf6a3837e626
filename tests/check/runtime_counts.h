/**
 * \file runtime_counts.h
 * \brief What the OpenMP runtime itself reports about a program: the
 *        program run on its own under the independent OMPT counting tool
 *        (tests/support/ompt_counter.c), its OMPT_COUNTS line read back.
 */
#ifndef OT_TEST_RUNTIME_COUNTS_H
#define OT_TEST_RUNTIME_COUNTS_H

typedef struct runtime_counts {
    unsigned long long target, enter_data, exit_data, update, kernels, alloc, alloc_bytes;
    unsigned long long h2d, h2d_bytes, d2h, d2h_bytes, del, outside;
    char problem[512];   /**< why it failed, when runtime_counts_of returns -1 */
} runtime_counts;

/**
 * \brief Run \p example (from the build's bin directory) with
 *        libofftrace-test-counter.so as its OMPT tool and fill \p c with
 *        the counts the tool wrote.
 * \return 0 when the program exited 0 and the tool's line was read in full;
 *         -1 otherwise, with the reason in c->problem.
 */
int runtime_counts_of(const char *example, runtime_counts *c);

/** \brief The same with arguments (NULL-terminated, at most 14; NULL for none). */
int runtime_counts_of_run(const char *example, char *const args[], runtime_counts *c);

/** \brief Read the counting tool's line from \p file (what it wrote, elsewhere).
 *  \return 0, or -1 with the reason in c->problem. */
int runtime_counts_read(const char *file, runtime_counts *c);

#endif

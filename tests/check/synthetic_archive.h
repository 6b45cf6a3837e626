/**
 * \file synthetic_archive.h
 * \brief Test-side writer of a small archive with what real recordings never
 *        hold, for the analysis verbs' robustness: a region name that needs
 *        JSON escaping, a Leave without its Enter, regions never left, and
 *        nesting deeper than a reader's limit.
 */
#ifndef OT_TEST_SYNTHETIC_ARCHIVE_H
#define OT_TEST_SYNTHETIC_ARCHIVE_H

/** The odd region's name: quotes, backslash, newline, tab, DEL, a byte that is not UTF-8, "é". */
#define ODD_REGION_NAME "say \"hi\"\\ \n\t\x7f\xff \xc3\xa9"

/**
 * \brief Write `<dir>/traces.otf2` (creator "offtrace", so offtrace's
 *        classification applies) with two host threads:
 *  - "Master thread": Enter ODD @1000, Enter "target @odd.c:7" @2000,
 *    Leave ODD @3000 (the target region is left open inside it), Leave
 *    "target @odd.c:7" @4000 (matches no Enter), Enter ODD @5000 (never left);
 *  - "OpenMP thread 1": \p depth nested Enters of "nest" from 10000 on (1 ns
 *    apart), then as many Leaves, ending at 10000 + 2 * depth - 1.
 * \return 0, or -1 if OTF2 failed.
 */
int write_odd_archive(const char *dir, unsigned depth);

#endif

/**
 * \file foreign_archive.h
 * \brief Test-side writer of an archive another producer made: creator
 *        "other-tool 1.0", one MPI rank with a function region and an MPI
 *        send, events offtrace never writes.
 */
#ifndef OT_TEST_FOREIGN_ARCHIVE_H
#define OT_TEST_FOREIGN_ARCHIVE_H

/** \brief Write `<dir>/traces.otf2`. \return 0, or -1 if OTF2 failed. */
int write_foreign_archive(const char *dir);

#endif

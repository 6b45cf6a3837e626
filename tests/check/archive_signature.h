/**
 * \file archive_signature.h
 * \brief What an archive holds, as sorted human-readable lines that do not
 *        change from run to run of the same program: events by location
 *        role, event type and region, RMA counts and bytes by direction,
 *        metric events. Read with OTF2's reader only (not offtrace's), so
 *        that a change of offtrace's reader cannot hide a change of the
 *        archive.
 *
 * Location roles come from the location's type, its group's type and its
 * name ("device 0 thread 3" is a device thread of device 0); locations of
 * one role are summed, since how many there are (device threads, kernel
 * streams, host threads) and which of them did what differs between runs.
 * Region names are normalised where they hold run- or build-specific parts
 * (the file id in `__omp_offloading_<dev>_<file>_...`, hexadecimal
 * addresses). Left out: timestamps, location ids and names beyond their
 * role, the number of locations of a role (but for RDMA locations), and
 * event attributes (addresses).
 */
#ifndef OT_TEST_ARCHIVE_SIGNATURE_H
#define OT_TEST_ARCHIVE_SIGNATURE_H

/**
 * \brief The signature of the archive whose anchor file is \p anchor.
 * \param text receives the lines, sorted, each ending in '\n' (malloc'd; the
 *        caller frees it).
 * \return 0, or -1 when OTF2 cannot read the archive.
 */
int archive_signature(const char *anchor, char **text);

#endif

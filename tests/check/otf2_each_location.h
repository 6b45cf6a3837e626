/**
 * \file otf2_each_location.h
 * \brief Test-side: read an archive's events location by location with
 *        OTF2's own per-location readers (no merge by time), for checkers
 *        that judge each location on its own (otf2_rules.c,
 *        archive_signature.c).
 */
#ifndef OT_TEST_OTF2_EACH_LOCATION_H
#define OT_TEST_OTF2_EACH_LOCATION_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

/** What the caller does around each location's events. */
typedef struct otf2_each_location {
    size_t count;                                /**< locations */
    uint64_t (*id)(void *user, size_t i);        /**< the i-th location's id */
    void (*begin)(void *user, size_t i);         /**< before its events (may be NULL) */
    void (*end)(void *user, size_t i, uint64_t events_read); /**< after them (may be NULL) */
    void *user;
} otf2_each_location;

/**
 * \brief Select every location, read the local definitions (mapping tables,
 *        if any), then each location's events through \p callbacks.
 * \return 0, or -1 when an event file cannot be opened or read.
 */
int otf2_read_each_location(OTF2_Reader *reader, const otf2_each_location *each,
                            const OTF2_EvtReaderCallbacks *callbacks);

#endif

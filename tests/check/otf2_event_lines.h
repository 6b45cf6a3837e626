/**
 * \file otf2_event_lines.h
 * \brief Test-side: every event of an archive as one line with its
 *        references resolved to names, read with OTF2's reader (local
 *        definitions, hence mapping tables, applied), so that two archives
 *        that number their definitions differently compare equal when they
 *        say the same thing (the job merge's tests).
 *
 * Lines are "<location id> <event> <time> <details>", locations in
 * ascending id order, each location's events in file order, then
 * "<location id> events <n>" (every event counts, also the kinds not
 * detailed). Details: regions by name; attributes as name=value (strings
 * resolved); RMA operations by window name and, for puts and gets, the
 * remote rank resolved to its location id through the window's
 * communicator, its COMM_GROUP and the paradigm's COMM_LOCATIONS group;
 * metrics by their members' names; thread team events by the team's name.
 */
#ifndef OT_TEST_OTF2_EVENT_LINES_H
#define OT_TEST_OTF2_EVENT_LINES_H

#include <stdint.h>

/**
 * \brief The event lines of the archive whose anchor is \p anchor, only of
 *        locations whose id >> 40 is \p rank (-1: every location).
 * \return malloc'd text, or NULL when OTF2 cannot read the archive.
 */
char *otf2_event_lines(const char *anchor, int rank);

#endif

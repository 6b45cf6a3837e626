/**
 * \file otf2_time_order.h
 * \brief Test-side: read an archive's global definitions, then every
 *        location's events merged in time order, with OTF2's own global
 *        reader, for checkers that follow the whole run at once
 *        (host_openmp_check.c, host_tasks_check.c, host_mutex_check.c, through
 *        host_check_base.c).
 */
#ifndef OT_TEST_OTF2_TIME_ORDER_H
#define OT_TEST_OTF2_TIME_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

/** What the caller reads: it sets the callbacks it wants and learns the locations from its own. */
typedef struct otf2_time_ordered_read {
    void (*definitions)(OTF2_GlobalDefReaderCallbacks *callbacks); /**< set the definition callbacks */
    void (*events)(OTF2_GlobalEvtReaderCallbacks *callbacks);       /**< set the event callbacks */
    size_t (*location_count)(void *user);            /**< locations the definitions named */
    uint64_t (*location_id)(void *user, size_t i);   /**< the i-th of them */
    void *user;                                      /**< passed to every callback */
} otf2_time_ordered_read;

/**
 * \brief Open DIR/traces.otf2, read its global definitions, select every
 *        location the caller learned, read their local definitions, then
 *        all events in time order.
 * \return 0, or -1 when the archive cannot be opened or read.
 */
int otf2_read_in_time_order(const char *dir, const otf2_time_ordered_read *how);

#endif

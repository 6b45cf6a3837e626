/**
 * \file host_check_base.h
 * \brief Test-side: what the host OpenMP archive checkers
 *        (host_openmp_check.c, host_tasks_check.c, host_mutex_check.c)
 *        share in their own reading of an archive: the string table, the
 *        regions with their role, name and the checker's kind (from the
 *        archive's class table), the locations with their host flag and
 *        time-order check, the per-location facts each checker keeps, and
 *        the first-problem recorder. Independent of offtrace's reader
 *        (host/analysis) and converter (host/convert), like the checkers.
 *
 * A checker embeds a host_check_base as the first member of its own state
 * and passes that state as the user pointer of every OTF2 callback, so the
 * base's definition callbacks and the checker's own callbacks read the
 * same pointer.
 */
#ifndef OT_TEST_HOST_CHECK_BASE_H
#define OT_TEST_HOST_CHECK_BASE_H

#include <stddef.h>
#include <stdint.h>

#include <otf2/otf2.h>

#include "string_table.h"

/** Locations read at the most; later ones are not followed. */
#define HOST_CHECK_MAX_LOCATIONS 512

/** One class of the archive's class table ("OFFTRACE::REGION_CLASS::<class>"), as the checker's own kind. */
typedef struct host_check_class {
    const char *group; /**< the group's name in the archive */
    uint8_t kind;      /**< the checker's kind for its member regions (never 0: 0 is "none of them") */
} host_check_class;

/** A location as the definitions name it. */
typedef struct host_check_location {
    uint64_t id;
    int host;           /**< a CPU thread: the only locations the checkers follow */
    uint64_t last_time; /**< its latest event, for the time-order check */
} host_check_location;

/** What a checker reads: its classes, what it keeps per location, its callbacks. */
typedef struct host_check_reading {
    const host_check_class *classes;
    size_t class_count;
    size_t location_facts_size; /**< the checker's own facts per location */
    void (*definitions)(OTF2_GlobalDefReaderCallbacks *callbacks); /**< host_check_definitions, then its own */
    void (*events)(OTF2_GlobalEvtReaderCallbacks *callbacks);
} host_check_reading;

/** What every checker reads the same way; the checker's state begins with it. */
typedef struct host_check_base {
    /* given by the checker (host_check_read) */
    const host_check_reading *reading;
    char *first_problem;         /**< the checker's facts' first_problem, kept once set */
    size_t first_problem_size;
    /* learned from the definitions */
    check_string_table strings;
    uint8_t *region_kind;        /**< by region ref: the checker's kind, 0 where no class names it */
    OTF2_RegionRole *region_role;
    OTF2_StringRef *region_name;
    size_t region_count;
    host_check_location *locations;
    size_t location_count;
    void *location_facts;        /**< HOST_CHECK_MAX_LOCATIONS facts of location_facts_size, zeroed */
    /* learned from the events */
    uint64_t time_reversals;     /**< events earlier than the one before them on their host location */
} host_check_base;

/**
 * \brief Set the base's definition callbacks: strings, regions, groups,
 *        locations. A checker's own definitions function calls this first,
 *        then sets what it reads besides (or replaces one, see
 *        host_check_define_region).
 */
void host_check_definitions(OTF2_GlobalDefReaderCallbacks *callbacks);

/**
 * \brief Read DIR/traces.otf2 in time order (otf2_time_order.h) as \p how
 *        says (kept, not copied): the definitions, then the events of the
 *        locations the definitions named, every callback with \p b as user
 *        data; the first problem goes to \p first_problem.
 * \return 0 (host_check_end frees what was kept), or -1 when the archive
 *         cannot be opened or read or memory runs out (nothing is left to
 *         free; time_reversals still counts what was read).
 */
int host_check_read(host_check_base *b, const char *dir, const host_check_reading *how, char *first_problem,
                    size_t first_problem_size);

/** \brief Free what the reading kept (the checker's facts are not touched). */
void host_check_end(host_check_base *b);

/** \brief Record the first problem (later ones are dropped: the first explains best). */
void host_check_problem(host_check_base *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** \brief String \p ref, or "" where undefined. */
const char *host_check_string(const host_check_base *b, OTF2_StringRef ref);

/**
 * \brief The base's Region definition callback, for a checker that keeps
 *        more of a region: its own callback calls this first. \p user is the base.
 */
OTF2_CallbackCode host_check_define_region(void *user, OTF2_RegionRef self, OTF2_StringRef name,
                                           OTF2_StringRef canonical, OTF2_StringRef description,
                                           OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
                                           OTF2_StringRef file, uint32_t begin, uint32_t end);

/** \brief Region \p r's kind among the checker's classes; 0 when none or undefined. */
uint8_t host_check_kind(const host_check_base *b, OTF2_RegionRef r);
/** \brief Region \p r's OTF2 role; OTF2_REGION_ROLE_UNKNOWN when undefined. */
OTF2_RegionRole host_check_role(const host_check_base *b, OTF2_RegionRef r);
/** \brief Region \p r's name; "" when undefined. */
const char *host_check_region_name(const host_check_base *b, OTF2_RegionRef r);

/**
 * \brief The checker's facts of location \p id when it is a host thread,
 *        after counting \p t as a time reversal if it is earlier than the
 *        location's event before; NULL for any other location.
 */
void *host_check_find(host_check_base *b, OTF2_LocationRef id, OTF2_TimeStamp t);

/** \brief The checker's facts of the \p i-th location (i < location_count). */
void *host_check_facts_at(const host_check_base *b, size_t i);

/**
 * \brief Whether an Enter finds room for one more open region (\p depth
 *        open of at most \p max_depth); when not, record the problem: the
 *        checker stops reading.
 */
int host_check_has_room(host_check_base *b, size_t depth, size_t max_depth);

/**
 * \brief Whether a Leave of region \p r closes the innermost open region
 *        (\p innermost, of \p depth open ones); when not, record the problem.
 */
int host_check_leaves_innermost(host_check_base *b, size_t depth, OTF2_RegionRef innermost, OTF2_RegionRef r);

/**
 * \brief At the end of the reading: \p depth regions are still open on the
 *        \p i-th location; record that as a problem when there are any.
 * \return \p depth, for the checker's count of unmatched regions.
 */
uint64_t host_check_left_open(host_check_base *b, size_t i, size_t depth);

#endif

/**
 * \file offtrace_user.h
 * \brief The program's own voice in a trace: user regions, user events,
 *        point values, measurement control and the trace's clock.
 *
 * A program includes this header and links only `libofftrace-user.so`
 * (pkg-config `offtrace-user`, CMake `offtrace::user`). That library depends
 * on nothing but the C library: not on libomp, not on libofftrace.so. The
 * recorder (libofftrace.so, which the OpenMP runtime loads when
 * OMP_TOOL_LIBRARIES names it, e.g. under `offtrace record`) attaches itself
 * to the library when the OpenMP runtime initialises it. Until then, and for
 * the whole run when the program is not traced, every call here records
 * nothing and costs a load and a compare (docs/performance.md, "User API").
 *
 * \section offtrace_user_timing Calls before the recorder attaches
 * The recorder attaches when the OpenMP runtime initialises its tool. LLVM's
 * libomp (19) does that when it is loaded, before main(), in offload and
 * host-only programs alike, so every call from main() on is recorded. Code
 * that runs earlier (a static constructor), or a runtime that initialises at
 * its first construct, calls before the attach: such a region is not
 * recorded, and its end is not an error (the library knows, per thread,
 * which open regions it recorded). offtrace_user_init() makes a lazy
 * runtime initialise at once, when, and only when, OMP_TOOL_LIBRARIES is set
 * and the runtime is already in the process.
 *
 * \section offtrace_user_errors The error rule
 * Every function that returns `int` returns OFFTRACE_USER_OK (0) on success
 * and a negative ::offtrace_user_status on error; it never aborts, never
 * sets errno and never changes the program's state. A call that is refused
 * for bad input (a NULL handle, an end without its begin, an
 * unknown id, a name longer than OFFTRACE_USER_NAME_MAX bytes or not valid
 * UTF-8) records nothing, is counted (offtrace_user_dropped()) and prints
 * one line on stderr, once per kind of mistake per process, starting with
 * "offtrace-user:". Recording nothing because the program is not traced is
 * not an error: region, event and value calls then return 0.
 *
 * \section offtrace_user_threads Threads
 * Every function may be called from any thread at any time. Regions nest per
 * thread (an end closes the thread's innermost open region and must name
 * it); user events may begin on one thread and end on another.
 */
#ifndef OFFTRACE_USER_H
#define OFFTRACE_USER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** \name Version of this interface
 *  OFFTRACE_USER_VERSION is major * 10000 + minor * 100 + patch; a program
 *  checks it at compile time and offtrace_user_version() at run time. A
 *  minor version adds functions; only a major version changes them. */
/**@{*/
#define OFFTRACE_USER_VERSION_MAJOR 0
#define OFFTRACE_USER_VERSION_MINOR 1
#define OFFTRACE_USER_VERSION_PATCH 0
#define OFFTRACE_USER_VERSION \
    (OFFTRACE_USER_VERSION_MAJOR * 10000 + OFFTRACE_USER_VERSION_MINOR * 100 + OFFTRACE_USER_VERSION_PATCH)
/**@}*/

/** Longest region, event or value name, in bytes without the NUL. */
#define OFFTRACE_USER_NAME_MAX 255

/** Results (see the error rule above). */
typedef enum offtrace_user_status {
    OFFTRACE_USER_OK = 0,
    OFFTRACE_USER_ERR_INVALID = -1,     /**< a NULL handle or pointer argument, an unknown value type */
    OFFTRACE_USER_ERR_NAME = -2,        /**< a name too long or not UTF-8 */
    OFFTRACE_USER_ERR_NESTING = -3,     /**< an end without its begin, or not of the innermost open region */
    OFFTRACE_USER_ERR_UNKNOWN_ID = -4,  /**< an event or value id this process never created */
    OFFTRACE_USER_ERR_TYPE = -5,        /**< a value written with another type than it was created with */
    OFFTRACE_USER_ERR_FULL = -6,        /**< no more ids (OFFTRACE_USER_MAX_IDS events or values) */
    OFFTRACE_USER_ERR_NOT_TRACED = -7,  /**< measurement control: no recorder is attached, or it has no measurement control */
    OFFTRACE_USER_ERR_BUSY = -8,        /**< measurement control: the recorder refused or deferred the switch */
    OFFTRACE_USER_ERR_RECORDER = -9,    /**< measurement control: the recorder failed (e.g. a flush could not write) */
} offtrace_user_status;

/** \brief A short English text for a status ("invalid handle", ...); never NULL. */
const char *offtrace_user_status_text(int status);

/** \brief The library's OFFTRACE_USER_VERSION (it may be newer than the header's). */
int offtrace_user_version(void);

/**
 * \brief Have the recorder attach now rather than at the first OpenMP
 *        construct.
 *
 * When OMP_TOOL_LIBRARIES is set and the OpenMP runtime is in the process,
 * asks the runtime a harmless question (omp_get_max_threads), which makes it
 * initialise and load its tools; otherwise does nothing, so an untraced
 * program's runtime starts when it would have. Optional.
 * \return OFFTRACE_USER_OK when a recorder is attached afterwards,
 *         OFFTRACE_USER_ERR_NOT_TRACED otherwise.
 */
int offtrace_user_init(void);

/** \brief 1 when a recorder is attached (the program is traced), else 0. */
int offtrace_user_is_traced(void);

/** \brief How many calls were refused for bad input (see the error rule). */
uint64_t offtrace_user_dropped(void);

/* ------------------------------------------------------------------ */
/** \name User regions
 *  A region is a named, nested span of a thread's time (a phase, a solver
 *  step), as an OTF2 region of paradigm USER with its source file and line.
 *  Each call site owns a static handle, registered on its first use while
 *  traced; after that a begin or end costs a pointer check and one record. */
/**@{*/

/** A region's handle: one static, zero-initialised object per call site. Opaque. */
typedef struct offtrace_user_region {
    const void *internal_; /**< the registration; NULL until the first traced begin */
} offtrace_user_region;

/** Initialiser of a handle: `static offtrace_user_region h = OFFTRACE_USER_REGION_INIT;`
 *  (a static object without initialiser is zero too). */
#define OFFTRACE_USER_REGION_INIT { 0 }

/**
 * \brief Begin a region on the calling thread.
 * \param handle the call site's handle (static storage, zero at start)
 * \param name   the region's name (UTF-8, at most OFFTRACE_USER_NAME_MAX
 *               bytes); read at the handle's first traced use only
 * \param file   source file (may be NULL), read at registration only
 * \param line   source line (0: unknown)
 * \return 0, or OFFTRACE_USER_ERR_INVALID / _NAME (the region is not
 *         recorded; its end is then accepted silently).
 */
int offtrace_user_region_begin(offtrace_user_region *handle, const char *name, const char *file, int line);

/**
 * \brief End the calling thread's innermost open region, which must be
 *        \p handle's.
 * \return 0, or OFFTRACE_USER_ERR_INVALID, OFFTRACE_USER_ERR_NESTING (no
 *         open region, or another one is innermost: nothing is closed).
 */
int offtrace_user_region_end(offtrace_user_region *handle);

/** Begin a region named \p name at this line: one static handle per use of
 *  the macro, e.g. `OFFTRACE_USER_REGION_BEGIN(solve, "solve");`. */
#define OFFTRACE_USER_REGION_BEGIN(handle, name)                                    \
    static offtrace_user_region offtrace_user_region_##handle = OFFTRACE_USER_REGION_INIT; \
    offtrace_user_region_begin(&offtrace_user_region_##handle, (name), __FILE__, __LINE__)

/** End the region begun by OFFTRACE_USER_REGION_BEGIN(handle, ...) in the
 *  same scope. */
#define OFFTRACE_USER_REGION_END(handle) offtrace_user_region_end(&offtrace_user_region_##handle)

/**
 * \brief Begin a region whose name is known only at run time. The name is
 *        looked up (registered once per distinct name, under a lock), so this
 *        costs more than a static handle; prefer the handle where the name
 *        is fixed.
 * \return as offtrace_user_region_begin().
 */
int offtrace_user_region_begin_named(const char *name);

/** \brief End the innermost region, begun by offtrace_user_region_begin_named(\p name).
 *  \return as offtrace_user_region_end(). */
int offtrace_user_region_end_named(const char *name);
/**@}*/

/* ------------------------------------------------------------------ */
/** \name User events
 *  An event (in the sense of UPC's PUPC interface) is created once by name
 *  and then begun and ended by id, from any thread: a span that need not
 *  nest with regions (a request in flight, a buffer being filled). */
/**@{*/

/** An event's or value's id; 0 is never a valid one. */
typedef uint32_t offtrace_user_id;

/** Most events plus values a process may create. */
#define OFFTRACE_USER_MAX_IDS 4096

/**
 * \brief The id of the event named \p name, created on its first request
 *        (the same name always gives the same id). Slow path: takes a lock.
 * \param[out] id the event's id
 * \return 0, or OFFTRACE_USER_ERR_INVALID, _NAME, _FULL.
 */
int offtrace_user_event_create(const char *name, offtrace_user_id *id);

/** \brief Begin an occurrence of event \p id on the calling thread.
 *  \return 0, or OFFTRACE_USER_ERR_UNKNOWN_ID (an id not from
 *          offtrace_user_event_create, or a value's id). */
int offtrace_user_event_begin(offtrace_user_id id);

/** \brief End the oldest open occurrence of event \p id, from any thread.
 *  \return 0, or OFFTRACE_USER_ERR_UNKNOWN_ID. */
int offtrace_user_event_end(offtrace_user_id id);
/**@}*/

/* ------------------------------------------------------------------ */
/** \name Point values
 *  A named counter or metric (items in a queue, residual norm), written at
 *  points of a thread's time and recorded as an OTF2 metric on the thread. */
/**@{*/

/** A value's type, fixed at its creation. */
typedef enum offtrace_user_value_type {
    OFFTRACE_USER_INT64 = 1,
    OFFTRACE_USER_UINT64 = 2,
    OFFTRACE_USER_DOUBLE = 3,
} offtrace_user_value_type;

/**
 * \brief The id of the value named \p name, created with \p type on its
 *        first request. Slow path: takes a lock.
 * \return 0, or OFFTRACE_USER_ERR_INVALID (bad type), _NAME, _FULL,
 *         _TYPE (the name exists with another type).
 */
int offtrace_user_value_create(const char *name, offtrace_user_value_type type, offtrace_user_id *id);

/** \brief Write value \p id now, on the calling thread.
 *  \return 0, or OFFTRACE_USER_ERR_UNKNOWN_ID, _TYPE. */
int offtrace_user_value_int64(offtrace_user_id id, int64_t value);
/** \copydoc offtrace_user_value_int64 */
int offtrace_user_value_uint64(offtrace_user_id id, uint64_t value);
/** \copydoc offtrace_user_value_int64 */
int offtrace_user_value_double(offtrace_user_id id, double value);
/**@}*/

/* ------------------------------------------------------------------ */
/** \name The trace's clock
 *  The clock every record of the trace is stamped with: the CPU's invariant
 *  time-stamp counter, or CLOCK_MONOTONIC where there is none. Available
 *  traced or not. */
/**@{*/

/** \brief Now, in ticks of the trace's clock (a few ns; no system call with a TSC). */
uint64_t offtrace_user_clock_now(void);

/** \brief \p ticks as nanoseconds on the trace's timeline: CLOCK_MONOTONIC
 *         nanoseconds, the time base of the archive's timestamps. Exact to a
 *         few tens of ns over runs of a second or more (the tick rate is
 *         measured from the library's load to the call). */
uint64_t offtrace_user_clock_to_ns(uint64_t ticks);

/** \brief The clock's resolution: nanoseconds per tick, rounded up, at least 1. */
uint64_t offtrace_user_clock_resolution_ns(void);
/**@}*/

/* ------------------------------------------------------------------ */
/** \name Measurement control
 *  Switch recording off and on around the parts of the run that matter
 *  (the recorder's rule applies: docs/user-api.md). */
/**@{*/

/** \brief Resume recording.
 *  \return 0, OFFTRACE_USER_ERR_NOT_TRACED, _BUSY (refused or deferred by
 *          the recorder, e.g. inside a target region). */
int offtrace_user_measurement_on(void);

/** \brief Pause recording; as offtrace_user_measurement_on(). */
int offtrace_user_measurement_off(void);

/** \brief 1 when recording, 0 when paused or not traced. */
int offtrace_user_measurement_is_on(void);

/** \brief Write the records so far to disk.
 *  \return 0, OFFTRACE_USER_ERR_NOT_TRACED, _RECORDER. */
int offtrace_user_measurement_flush(void);
/**@}*/

#ifdef __cplusplus
}
#endif

#endif /* OFFTRACE_USER_H */

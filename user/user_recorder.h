/**
 * \file user_recorder.h
 * \brief The binding between libofftrace-user.so (the program's API
 *        library) and the recorder, libofftrace.so. Internal: not installed.
 *
 * Why a table the recorder hands over, and not calls from the API library
 * into libofftrace.so: the program links only the API library, and
 * libofftrace.so is in the process only when the OpenMP runtime loaded it as
 * a tool. So the API library holds one pointer, NULL until the recorder, at
 * its OMPT initialize, finds `offtrace_user_attach_recorder_` with
 * dlsym(RTLD_DEFAULT) and calls it with its table. Untraced, every API call
 * stops at that NULL: no lookup, no libomp, no libofftrace.so.
 *
 * The table lives in libofftrace.so's static storage and stays valid until
 * the process ends (the tool is never unloaded while the program runs); the
 * recorder detaches (passes NULL) when it stops recording at exit.
 */
#ifndef OT_USER_RECORDER_H
#define OT_USER_RECORDER_H

#include <stdint.h>

#define OT_USER_RECORDER_ABI 2

/** What a definition defines (the `kind` of define()). */
enum ot_user_def_kind {
    OT_USER_DEF_REGION = 1,
    OT_USER_DEF_EVENT = 2,
    OT_USER_DEF_VALUE_INT64 = 3,
    OT_USER_DEF_VALUE_UINT64 = 4,
    OT_USER_DEF_VALUE_DOUBLE = 5,
};

typedef struct ot_user_recorder {
    uint32_t abi;   /**< OT_USER_RECORDER_ABI */
    uint32_t size;  /**< sizeof(ot_user_recorder) of the recorder's build */
    /** A definition: id (regions, events and values share one id space,
     *  dense from 1) -> kind, name, file, line. Called once per id, before
     *  its first use, under the API library's registration lock. */
    void (*define)(uint32_t id, uint32_t kind, const char *name, const char *file, uint32_t line);
    /** Region begin/end on the calling thread (ends are checked by the API
     *  library: they always close the thread's innermost recorded region).
     *  region_begin returns 1 when it recorded the begin, 0 when not
     *  (recording switched off): the API library then calls no region_end
     *  for it, so a region is recorded whole or not at all. */
    int (*region_begin)(uint32_t id);
    void (*region_end)(uint32_t id);
    /** Event begin/end on the calling thread. */
    void (*event_begin)(uint32_t id);
    void (*event_end)(uint32_t id);
    /** A value's bits (int64, uint64 or the double's bits, as defined). */
    void (*value)(uint32_t id, uint64_t bits);
    /** Measurement control (h-control's host/measurement.h contract):
     *  set: 0 or -EBUSY; is_on: 1/0; flush: 0 or -errno. */
    int (*measurement_set)(int on);
    int (*measurement_is_on)(void);
    int (*measurement_flush)(void);
} ot_user_recorder;

/** Exported by libofftrace-user.so: attach (or, with NULL, detach) the
 *  recorder. Returns OT_USER_RECORDER_ABI, or -1 if the table is refused. */
typedef int (*ot_user_attach_fn)(const ot_user_recorder *recorder);
#define OT_USER_ATTACH_SYMBOL "offtrace_user_attach_recorder_"

/** The raw file (next to user.defs) where the recorder leaves, at detach, the
 *  number of calls the API library refused (offtrace_user_dropped(): bad
 *  handles, ends without begins, unknown ids, bad names), as one decimal
 *  line; the converter makes it OFFTRACE::USER_CALLS_DROPPED. No file: none. */
#define OT_USER_DROPPED_FILE "user.dropped"
#define OT_USER_DROPPED_SYMBOL "offtrace_user_dropped"
int offtrace_user_attach_recorder_(const ot_user_recorder *recorder);

#endif

/**
 * \file capture.h
 * \brief The interface between the map capture (libofftrace-capture.so,
 *        host/capture/) and the recorder (libofftrace.so): the map entries
 *        of the offload construct a thread is in (issue 15,
 *        docs/variables.md).
 *
 * Why a preloaded library of its own: the names of mapped variables, their
 * map types and the construct's real call site reach libomptarget only as
 * arguments of its entry points (__tgt_target_kernel, the _mapper entry
 * points); OMPT never passes them on. The capture defines those entry
 * points, keeps their arguments in a thread-local stack for the duration of
 * the call, and forwards to libomptarget. The recorder, whose OMPT
 * callbacks run on the same thread inside that call, asks the capture for
 * the innermost construct with the function named
 * OFFTRACE_CAPTURE_QUERY_SYMBOL (found with dlsym(RTLD_DEFAULT) at the
 * tool's initialisation). The capture depends on the C library only and
 * stores pointers only: no allocation, no lock, no string work.
 *
 * Versioning: the symbol carries the ABI number; a recorder that finds no
 * symbol of its own version records without names.
 */
#ifndef OFFTRACE_CAPTURE_H
#define OFFTRACE_CAPTURE_H

#include <stdint.h>

#define OFFTRACE_CAPTURE_ABI 1u
/** const offtrace_capture_construct *offtrace_capture_current_v1(void) */
#define OFFTRACE_CAPTURE_QUERY_SYMBOL "offtrace_capture_current_v1"
/** Constructs kept per thread (deeper ones are not described). */
#define OFFTRACE_CAPTURE_MAX_DEPTH 8
/** Mapper components kept per construct (the rest are counted, not kept). */
#define OFFTRACE_CAPTURE_MAX_COMPONENTS 32

/** Which entry point the program called. */
enum offtrace_capture_entry_point {
    OFFTRACE_CAPTURE_DATA_BEGIN = 1,  /**< target enter data, target data begin */
    OFFTRACE_CAPTURE_DATA_END = 2,    /**< target exit data, target data end */
    OFFTRACE_CAPTURE_DATA_UPDATE = 3, /**< target update */
    OFFTRACE_CAPTURE_KERNEL = 4,      /**< target (KernelArgsTy version 3 and later) */
};

/** One component a user-defined mapper (`declare mapper`) pushed. */
typedef struct offtrace_capture_component {
    const void *base, *begin;
    int64_t size, type;
    const char *name; /**< ";expr;file;line;col;;" or NULL */
} offtrace_capture_component;

/** A construct's map entries, as the program passed them (pointers into the
 *  program's own arrays: valid while the call lasts). */
typedef struct offtrace_capture_construct {
    const void *loc;         /**< the construct's ident_t (psource at offset 16) or NULL */
    const void *call_site;   /**< the return address in the program */
    int64_t device;          /**< as passed (-1: the default device) */
    int32_t count;           /**< map entries */
    uint32_t entry_point;    /**< enum offtrace_capture_entry_point */
    void *const *bases;
    void *const *begins;
    const int64_t *sizes;
    const int64_t *types;    /**< map-type bits (OMPConstants.h OpenMPOffloadMappingFlags) */
    void *const *names;      /**< per entry ";expr;file;line;col;;", NULL without debug info */
    void *const *mappers;    /**< per entry a mapper function or NULL; the array may be NULL */
    uint32_t components;     /**< mapper components pushed (may pass OFFTRACE_CAPTURE_MAX_COMPONENTS) */
    uint32_t reserved;
    /** The recorder's scratch, zeroed by the capture when the construct
     *  begins: the recorder caches what it worked out once per construct. */
    uint64_t recorder[2];
    offtrace_capture_component component[OFFTRACE_CAPTURE_MAX_COMPONENTS];
} offtrace_capture_construct;

/** The query's type: the calling thread's innermost construct, NULL when it
 *  is in none (or deeper than OFFTRACE_CAPTURE_MAX_DEPTH). */
typedef offtrace_capture_construct *(*offtrace_capture_query_fn)(void);

#endif /* OFFTRACE_CAPTURE_H */

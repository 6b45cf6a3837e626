/**
 * \file raw_reader.h
 * \brief Read a recording directory (`<dir>/raw/`, see raw_format.h) back:
 *        the thread streams, the clock pairs, the device list.
 */
#ifndef OT_CONVERT_RAW_READER_H
#define OT_CONVERT_RAW_READER_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/collector.h"
#include "offtrace/raw_format.h"
#include "timemap.h"

/** One thread's committed records, in the order the thread wrote them. */
typedef struct ot_raw_stream {
    offtrace_raw_stream_header header;
    offtrace_raw_record *records; /**< compacted copy, empty chunk tails removed */
    size_t count;
} ot_raw_stream;

typedef struct ot_raw_device {
    int num;
    char kind[64];
} ot_raw_device;

/** What the device collector delivered for one device (device-<N>.rec). */
typedef struct ot_raw_device_stream {
    offtrace_raw_device_header header;
    offtrace_device_record *records;
    size_t count;
    uint64_t torn_records; /**< a record cut short at the end of the file (death mid-write) */
} ot_raw_device_stream;

/** Why a stream or device file was not used. */
enum ot_raw_ignored {
    OT_RAW_IGNORED_OTHER_VERSION,    /**< written by another format version */
    OT_RAW_IGNORED_DAMAGED,          /**< header or size that no writer produces */
    OT_RAW_IGNORED_NOT_REGULAR_FILE, /**< a FIFO, directory, device or symbolic link: never read */
    OT_RAW_IGNORED_DUPLICATE_THREAD, /**< a second stream with one thread index */
    OT_RAW_IGNORED_UNREADABLE,       /**< could not be opened or read */
    OT_RAW_IGNORED_CAUSES
};

typedef struct ot_raw_recording {
    ot_raw_stream *streams;
    size_t stream_count;
    ot_raw_device *devices;
    size_t device_count;
    int host_device;          /**< omp_get_initial_device(), -1 if unknown */
    ot_timemap *ticks_to_ns;  /**< host ticks -> CLOCK_MONOTONIC ns */
    int64_t realtime_offset_ns; /**< realtime - monotonic at the first pair */
    char **maps_files;        /**< paths of maps.<n>, oldest first */
    size_t maps_count;
    uint64_t lost_records;    /**< sum over stream headers */
    uint64_t ignored_streams; /**< stream and device files not used, all causes */
    uint64_t ignored[OT_RAW_IGNORED_CAUSES]; /**< the same by cause */
    size_t stream_files;      /**< thread-*.rec names found, used or not */
    ot_raw_device_stream *device_streams;
    size_t device_stream_count;
    offtrace_raw_counters counters; /**< raw/counters (all zero when missing or of another format) */
} ot_raw_recording;

/**
 * \brief Load `<raw_dir>`.
 * \param err one-line message on failure.
 * \return 0, -ENOENT when the directory is not a recording, -EINVAL when it is
 *         unusable (e.g. no clock pairs), -ENOMEM.
 */
int ot_raw_load(const char *raw_dir, ot_raw_recording *rec, char *err, size_t err_size);

/** \brief Release everything ot_raw_load allocated. */
void ot_raw_free(ot_raw_recording *rec);

#endif

/**
 * \file device_sink.h
 * \brief Where delivered device records go: raw/device-<N>.rec, one file per
 *        device, appended through shared mappings.
 *
 * A flush hands over a few hundred bytes at the end of every target region;
 * a write(2) per flush cost more than the records themselves, so records are
 * copied into a mapped chunk of the file instead (like the host streams)
 * and the file is cut to its used length when recording ends. A process
 * that dies first leaves a zero tail, which readers skip (kind 0 is no
 * record). Appends to one device are serialised by a mutex: flushes of a
 * device are serial already, but CUPTI may deliver from its own thread.
 */
#ifndef OT_HOST_DEVICE_SINK_H
#define OT_HOST_DEVICE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/collector.h"

/** Most devices with a sink; device numbers must be below it. */
#define OT_SINK_MAX_DEVICES 64

/** \brief Name the backend that serves device \p num (goes into the file header). */
void ot_device_sink_set_backend(int num, const char *backend);

/**
 * \brief Append records of device \p num (thread-safe).
 * \return 0, or a negative errno when they could not be stored (then they
 *         are counted in the file header's lost_records).
 */
int ot_device_sink_append(int num, const offtrace_device_record *records, size_t count);

/** \brief Records of device \p num that could not be stored. */
uint64_t ot_device_sink_lost(int num);

/** \brief Cut every file to its used length, record losses, unmap (at exit). */
void ot_device_sink_close_all(void);

#endif /* OT_HOST_DEVICE_SINK_H */

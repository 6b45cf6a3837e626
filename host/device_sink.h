/**
 * \file device_sink.h
 * \brief Where delivered device records go: raw/device-<N>.rec, one file per
 *        device, written with pwrite(2) from a staging buffer.
 *
 * A flush hands over a few hundred bytes to some tens of KiB (flushes are
 * paced, device_link.c). They are gathered in a 64 KiB buffer and written
 * with one pwrite when it is full or when the last write is 1 ms old (at
 * the next delivery, and at exit), the file opened by name for the write
 * and closed at once. Why not shared mappings, like the host streams (until
 * issue 18's third round): a device file's pages are written once, at a
 * flush, never in a callback, and a mapping's pages cost about twice the
 * kernel time of a write's (populating and dirtying each page of a shared
 * file mapping, its faults and its munmap: about 0.3-0.5 µs of CPU per
 * host-offload kernel at the default detail, most of device detail's cost);
 * without a mapping nothing is allocated ahead either (a full disk is an
 * error of the write, not a signal). What a process that dies by a signal
 * loses: what it delivered since the last write (at most 1 ms of it), as it
 * loses what the collector holds between flushes. Appends to one device are
 * serialised by a mutex: flushes of a device are serial already, but CUPTI
 * may deliver from its own thread.
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

/** \brief Write what is staged, record losses in each file's header (at exit). */
void ot_device_sink_close_all(void);

#endif /* OT_HOST_DEVICE_SINK_H */

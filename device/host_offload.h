/**
 * \file host_offload.h
 * \brief Backend for host-offload devices (LLVM's generic-64bit plugin):
 *        the device's OpenMP code runs on the host's own OpenMP runtime, so
 *        the backend records it through that runtime's OMPT callbacks.
 */
#ifndef OT_DEVICE_HOST_OFFLOAD_H
#define OT_DEVICE_HOST_OFFLOAD_H

#include "backend.h"

/** The backend ("host-offload"). */
extern const ot_dev_backend ot_host_offload_backend;

/** Device threads per device that get a buffer (and a location in the trace). */
#define OT_HO_MAX_THREADS 256

#endif /* OT_DEVICE_HOST_OFFLOAD_H */

/**
 * \file exported.c
 * \brief The one symbol libofftrace-device.so exports (see collector.h).
 */
#include "backend.h"

__attribute__((visibility("default"))) const offtrace_collector *
offtrace_collector_interface(uint32_t host_interface_version)
{
    return ot_dev_collector_table();
}

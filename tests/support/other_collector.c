/*
 * A device collector that speaks an interface version offtrace does not
 * know, built twice: libofftrace-test-other-collector.so (version 999, one
 * from the future) and libofftrace-test-v1-collector.so (version 1, the
 * interface before the host library registered the host OpenMP callbacks).
 * Preloaded instead of the real one, it must be reported once and tracing
 * must go on without device detail. Only the fields every version keeps in
 * place (interface_version, record_size, name) are meant to be read; its
 * functions are never meant to be called, they fail loudly.
 */
#include <stdio.h>
#include <stdlib.h>

#include "offtrace/collector.h"

static int refuse(const offtrace_collector_host *host)
{
    fprintf(stderr, "other-collector: open must not be called\n");
    abort();
}

#ifndef OTHER_COLLECTOR_VERSION
#define OTHER_COLLECTOR_VERSION 999u
#endif
_Static_assert(OTHER_COLLECTOR_VERSION != OFFTRACE_COLLECTOR_INTERFACE_VERSION, "must be another version");

static const offtrace_collector table = {
    .interface_version = OTHER_COLLECTOR_VERSION,
    .record_size = sizeof(offtrace_device_record),
    .name = "test collector of another interface version",
    .open = refuse,
};

__attribute__((visibility("default"))) const offtrace_collector *
offtrace_collector_interface(uint32_t host_interface_version)
{
    return &table;
}

/*
 * libofftrace-test-other-collector.so: a device collector that speaks an
 * interface version offtrace does not know. Preloaded instead of the real
 * one, it must be reported once and tracing must go on without device
 * detail. Its functions are never meant to be called; they fail loudly.
 */
#include <stdio.h>
#include <stdlib.h>

#include "offtrace/collector.h"

static int refuse(const offtrace_collector_host *host)
{
    fprintf(stderr, "other-collector: open must not be called\n");
    abort();
}

static const offtrace_collector table = {
    .interface_version = OFFTRACE_COLLECTOR_INTERFACE_VERSION + 998,
    .record_size = sizeof(offtrace_device_record),
    .name = "test collector of another interface version",
    .open = refuse,
};

__attribute__((visibility("default"))) const offtrace_collector *
offtrace_collector_interface(uint32_t host_interface_version)
{
    return &table;
}

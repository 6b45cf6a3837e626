/**
 * \file collector.c
 * \brief The collector core: the public table of offtrace/collector.h, the
 *        attached devices, and the choice of a backend per device.
 *
 * Backends are asked in order of how much they know about a device: the
 * runtime's own OMPT device tracing first, then CUPTI for NVIDIA GPUs, then
 * the host-offload backend. The first that accepts a device serves it.
 *
 * The host OpenMP runtime's events (the table's `openmp`) go straight to the
 * host-offload backend's handlers: it is the only backend whose devices run
 * OpenMP on the host's runtime, and the events name no device to dispatch
 * on, so one indirect call from the host's callback is all they cost.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "offtrace/offtrace.h"
#include "device_clock.h"
#include "device_config.h"
#include "host_offload.h"
#include "ompt_trace/ompt_trace.h"


static offtrace_collector_host host;
static size_t thread_budget = OT_DEVICE_DEFAULT_THREAD_BUDGET;
static int detail = OT_DEVICE_DETAIL_DEFAULT;
static ot_dev_device devices[OT_DEV_MAX_DEVICES];
static const ot_dev_backend *cupti_backend; /* loaded on the first NVIDIA device */

void ot_dev_deliver(ot_dev_device *d, const offtrace_device_record *records, size_t count)
{
    if (count && host.deliver)
        host.deliver(host.context, d->num, records, count);
}

int ot_dev_verbose(void) { return host.verbose; }
size_t ot_dev_thread_budget(void) { return thread_budget; }
int ot_dev_detail(void) { return detail; }

/* Reads the collector's own variables; a bad value is said once and the
 * collector refuses to open, so that nothing half-configured runs. */
static int read_environment(void)
{
    ot_device_config cfg;
    char err[512];
    if (ot_device_config_from_env(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "%s; no device detail\n", err);
        return -EINVAL;
    }
    thread_budget = cfg.thread_budget;
    detail = cfg.detail;
    if (cfg.has_skew)
        ot_device_clock_set_skew(&cfg.skew);
    else
        ot_device_clock_use_tsc(); /* falls back to CLOCK_MONOTONIC by itself */
    return 0;
}

static int collector_open(const offtrace_collector_host *h)
{
    if (!h || h->interface_version != OFFTRACE_COLLECTOR_INTERFACE_VERSION) {
        fprintf(stderr, "offtrace: the device collector speaks interface version %u, the host library %u; "
                        "no device detail\n", OFFTRACE_COLLECTOR_INTERFACE_VERSION, h ? h->interface_version : 0u);
        return -EINVAL;
    }
    int rc = read_environment();
    if (rc)
        return rc;
    host = *h;
    return 0;
}

static int looks_nvidia(const char *type)
{
    return type && (strcasestr(type, "cuda") || strcasestr(type, "nvptx") || strcasestr(type, "nvidia") ||
                    strncasecmp(type, "sm_", 3) == 0);
}

/* The CUPTI backend is a module of its own, next to this library, so that
 * the collector loads on machines without CUDA. */
static const ot_dev_backend *load_cupti(void)
{
    static int tried;
    if (tried)
        return cupti_backend;
    tried = 1;
    Dl_info self;
    if (!dladdr((void *)&collector_open, &self) || !self.dli_fname)
        return NULL;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s", self.dli_fname);
    snprintf(path, sizeof path, "%s/%s", dirname(dir), OT_CUPTI_MODULE_NAME);
    void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ot_cupti_entry_fn entry = module ? (ot_cupti_entry_fn)dlsym(module, OT_CUPTI_ENTRY_NAME) : NULL;
    if (!entry) {
        if (host.verbose)
            fprintf(stderr, "offtrace: no CUPTI backend (%s); NVIDIA devices get no device detail\n", dlerror());
        return NULL;
    }
    const ot_cupti_module *m = entry();
    if (!ot_cupti_module_fits(m)) {
        fprintf(stderr, "offtrace: the CUPTI module %s has layout version %u (sizes %u/%u/%u), this collector %u "
                        "(sizes %zu/%zu/%zu); NVIDIA devices get no device detail\n",
                path, m ? m->version : 0u, m ? m->size : 0u, m ? m->backend_size : 0u, m ? m->record_size : 0u,
                OT_CUPTI_MODULE_VERSION, sizeof(ot_cupti_module), sizeof(ot_dev_backend),
                sizeof(offtrace_device_record));
        return NULL;
    }
    cupti_backend = m->open(ot_dev_deliver, host.verbose);
    return cupti_backend;
}

static int collector_attach(int num, const char *type, ompt_device_t *device, ompt_function_lookup_t lookup,
                            offtrace_collector_device_info *info)
{
    if (num < 0 || num >= OT_DEV_MAX_DEVICES || devices[num].backend)
        return -EINVAL;
    const ot_dev_backend *candidates[] = {
        &ot_ompt_trace_backend,
        looks_nvidia(type) ? load_cupti() : NULL,
        &ot_host_offload_backend,
    };
    ot_dev_device *d = &devices[num];
    d->num = num;
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        if (!candidates[i])
            continue;
        int rc = candidates[i]->attach(d, type, device, lookup);
        if (rc == -ENOTSUP)
            continue;
        if (rc)
            return rc;
        d->backend = candidates[i];
        info->backend = d->backend->name;
        info->wants_operations = d->backend->wants_operations;
        info->wants_host_openmp = d->backend->wants_host_openmp;
        return 0;
    }
    return -ENOTSUP;
}

static ot_dev_device *attached(int num)
{
    return (num >= 0 && num < OT_DEV_MAX_DEVICES && devices[num].backend) ? &devices[num] : NULL;
}

static void collector_target_begin(int num, uint64_t target_id, int kind)
{
    ot_dev_device *d = attached(num);
    if (d)
        d->backend->target_begin(d, target_id, kind);
}

static void collector_target_end(int num, uint64_t target_id, int kind)
{
    ot_dev_device *d = attached(num);
    if (d)
        d->backend->target_end(d, target_id, kind);
}

static void collector_operation_begin(int num, uint64_t target_id, uint64_t op_id)
{
    ot_dev_device *d = attached(num);
    if (d && d->backend->operation_begin)
        d->backend->operation_begin(d, target_id, op_id);
}

static void collector_operation_end(int num, uint64_t op_id)
{
    ot_dev_device *d = attached(num);
    if (d && d->backend->operation_end)
        d->backend->operation_end(d, op_id);
}

static uint64_t collector_device_time(int num)
{
    ot_dev_device *d = attached(num);
    return d ? d->backend->device_time(d) : 0;
}

static long collector_flush(int num)
{
    ot_dev_device *d = attached(num);
    return d ? d->backend->flush(d) : -ENODEV;
}

static void collector_detach(int num)
{
    ot_dev_device *d = attached(num);
    if (d) {
        d->backend->detach(d);
        d->backend = NULL;
    }
}

static void collector_close(void)
{
    for (int i = 0; i < OT_DEV_MAX_DEVICES; i++)
        collector_detach(i);
    host.deliver = NULL;
}

static const offtrace_collector table = {
    .interface_version = OFFTRACE_COLLECTOR_INTERFACE_VERSION,
    .record_size = sizeof(offtrace_device_record),
    .name = "libofftrace-device " OFFTRACE_VERSION_STRING,
    .open = collector_open,
    .attach = collector_attach,
    .target_begin = collector_target_begin,
    .target_end = collector_target_end,
    .operation_begin = collector_operation_begin,
    .operation_end = collector_operation_end,
    .device_time = collector_device_time,
    .flush = collector_flush,
    .detach = collector_detach,
    .close = collector_close,
    .openmp =
        {
            .parallel_begin = ot_ho_parallel_begin,
            .parallel_end = ot_ho_parallel_end,
            .implicit_task = ot_ho_implicit_task,
            .work = ot_ho_work,
            .sync_region = ot_ho_sync_region,
            .task_create = ot_ho_task_create,
            .task_schedule = ot_ho_task_schedule,
            .in_device_work = ot_ho_in_device_work,
        },
};

const offtrace_collector *ot_dev_collector_table(void)
{
    return &table;
}

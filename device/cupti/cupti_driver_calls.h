/**
 * \file cupti_driver_calls.h
 * Which CUDA driver API calls the CUPTI backend traces.
 *
 * CUPTI writes an external-correlation record (the host operation id the
 * backend pushed) only in front of the record of a traced API call, and a
 * kernel, copy or memset activity is joined to its host operation through
 * that call's correlation id. So the calls that start device work must be
 * traced; every other call (libomptarget's CUDA plugin makes several per
 * target region: context switches, stream and event queries, syncs) only
 * costs a record. Tracing the whole CUPTI_ACTIVITY_KIND_DRIVER is kept as a
 * choice for measuring (OFFTRACE_CUPTI_DRIVER_API=all, device/cupti/README.md).
 */
#ifndef OT_CUPTI_DRIVER_CALLS_H
#define OT_CUPTI_DRIVER_CALLS_H

#include <cupti.h>

/**
 * \brief 1 if the driver call named \p name (CUPTI's name of a
 * CUPTI_CB_DOMAIN_DRIVER_API callback id: "cuLaunchKernel",
 * "cuMemcpyHtoDAsync_v2") starts device work the backend pairs with its
 * host operation: a kernel launch (graphs included), a copy or a memset,
 * in every variant (_v2, _ptsz, _ptds, Async, Peer, Batch). 0 for any other
 * call and for NULL.
 */
int ot_cupti_driver_call_starts_device_work(const char *name);

/**
 * \brief With CUPTI_ACTIVITY_KIND_DRIVER enabled, stop tracing every driver
 * call CUPTI knows by name that does not start device work.
 *
 * Subtractive on purpose: enabling only the wanted calls
 * (cuptiActivityEnableDriverApi without the kind) traced them, but on an
 * H100 (CUDA 13.0, driver 580) CUPTI then wrote no external-correlation
 * record at all, so no kernel or copy found its host operation
 * (docs/gpu.md, 2026-11-27).
 * \return the number of calls no longer traced; a negative CUptiResult when
 * CUPTI refused one (the kind stays enabled, those before it untraced).
 */
long ot_cupti_untrace_other_calls(void);

#endif

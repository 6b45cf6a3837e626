/**
 * \file device_regions.h
 * \brief Names and OTF2 regions for device records: "parallel @cg.c:23",
 *        "loop (static) @cg.c:23", "implicit barrier (parallel end)", ...
 *        A code address is symbolised once per (kind, subkind, address).
 */
#ifndef OT_CONVERT_DEVICE_REGIONS_H
#define OT_CONVERT_DEVICE_REGIONS_H

#include "offtrace/collector.h"
#include "symbolize.h"
#include "trace_writer.h"

typedef struct ot_device_regions ot_device_regions;

/** \brief A cache over \p tw and \p sym (both outlive it), or NULL. */
ot_device_regions *ot_device_regions_new(ot_trace_writer *tw, ot_symbolizer *sym);

/** \brief The region of a BEGIN/END/POINT record. */
OTF2_RegionRef ot_device_region(ot_device_regions *r, const offtrace_device_record *rec);

/** \brief Free (NULL is fine). */
void ot_device_regions_free(ot_device_regions *r);

#endif

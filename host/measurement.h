/**
 * \file measurement.h
 * \brief Measurement control: process-wide recording on/off, a flush, and
 *        the query (issue 14). The callbacks of tool.c ask
 *        ot_measurement_recording() (one relaxed load) before they record.
 *
 * The rule for what is kept (docs/measurement-control.md):
 *  - a switch is refused (-EBUSY, one line on stderr) while the calling
 *    thread is inside a parallel region or a target region: the program's
 *    host OpenMP regions are paired last in, first out per thread, and a
 *    switch between a begin and its end would leave one of them alone;
 *  - a target construct, data operation or submit is recorded whole when it
 *    began while recording was on (its end is recorded even after a switch
 *    off on another thread) and not at all when it began while off;
 *  - device records of a kernel launched while off are dropped by the
 *    converter (the collector still runs: its clock pairs and buffers stay
 *    right), counted as "not recorded", not as damage;
 *  - every switch is a raw MEASUREMENT record on the switching thread (the
 *    archive's MeasurementOnOff events and "offtrace: measurement off"
 *    region).
 *
 * libofftrace.so exports the three ot_measurement_* functions (the user
 * API library reaches them by dlsym).
 */
#ifndef OT_HOST_MEASUREMENT_H
#define OT_HOST_MEASUREMENT_H

#include <stdint.h>

/** Target id handed to the device collector for a target construct begun
 *  while recording was off: the converter drops its device records. */
#define OT_MEASUREMENT_OFF_TARGET_ID UINT64_MAX

extern int ot_measurement_state; /**< 1 on, 0 off; written by ot_measurement_set only */

/** \brief 1 while recording is on: the hot path's one relaxed load. */
static inline int ot_measurement_recording(void)
{
    return __atomic_load_n(&ot_measurement_state, __ATOMIC_RELAXED);
}

/**
 * \brief How the caller stands towards switching, set by tool.c: return
 *        nonzero (and a short name of the region) when the calling thread
 *        is inside a parallel or target region.
 */
typedef int (*ot_measurement_region_probe)(const char **region);

/** \brief Set once at tool initialisation: the probe, and whether the
 *         recording starts on (OFFTRACE_START_PAUSED). */
void ot_measurement_init(ot_measurement_region_probe probe, int start_on);

/**
 * \brief Switch recording on (1) or off (0), process-wide.
 * \return 0 (also when it already was so: nothing is recorded then), or
 *         -EBUSY when refused: inside a parallel or target region (a line
 *         on stderr says so), or after ot_measurement_end.
 */
int ot_measurement_set(int on);

/** \brief 1 when recording is on, else 0. */
int ot_measurement_is_on(void);

/**
 * \brief Make what the calling thread recorded so far durable: its stream's
 *        mapped chunk is written to the file (msync). Device records are
 *        flushed at every target end already.
 * \return 0 or -errno.
 */
int ot_measurement_flush(void);

/** \brief omp_control_tool_end: flush, switch off for good. \return 0 or -EBUSY. */
int ot_measurement_end(void);

#endif /* OT_HOST_MEASUREMENT_H */

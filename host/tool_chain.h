/**
 * \file tool_chain.h
 * \brief The user's own OMPT tool next to offtrace.
 *
 * libomp starts only the first library of OMP_TOOL_LIBRARIES whose
 * ompt_start_tool returns non-NULL, and `offtrace record` puts libofftrace
 * first: without this, a tool the user listed there would silently never
 * start. So offtrace starts the next tool of the list itself, the way libomp
 * would, and forwards initialize and finalize to it.
 *
 * Callbacks: one event has one callback in libomp. The tool gets every
 * event offtrace does not use. Thread begin/end, device initialize,
 * device load and control_tool are shared (offtrace's callback, then the
 * tool's; omp_control_tool returns offtrace's answer to the standard
 * commands, the tool's to commands from 64 on). The target,
 * data-op and submit events (EMI and not) and, with the device collector
 * loaded, the host-offload events it uses (parallel begin/end, implicit
 * task, work, sync region, task create/schedule) are refused to the tool
 * (ompt_set_never): offtrace keeps its own ids in their ompt_data_t, which a
 * second tool would overwrite. Which ones the tool asked for and did not get
 * is said in one line on stderr.
 */
#ifndef OT_HOST_TOOL_CHAIN_H
#define OT_HOST_TOOL_CHAIN_H

#include <omp-tools.h>

/** \brief In offtrace's ompt_start_tool, once offtrace traces: start the
 *         first library after libofftrace in OMP_TOOL_LIBRARIES whose
 *         ompt_start_tool returns non-NULL (libomp's rule). */
void ot_chain_start(unsigned int omp_version, const char *runtime_version);

/** \brief Offtrace registered \p fn for \p event (shared with the chained
 *         tool when it asks for the same event). */
void ot_chain_note_own(ompt_callbacks_t event, ompt_callback_t fn);

/** \brief In offtrace's initialize, after its own callbacks: initialize the
 *         chained tool with a lookup whose ompt_set_callback shares or
 *         refuses offtrace's events. */
void ot_chain_initialize(ompt_function_lookup_t lookup, int initial_device_num);

/** \brief In offtrace's finalize: finalize the chained tool (if its
 *         initialize accepted). */
void ot_chain_finalize(void);

/** \brief The host OpenMP level offtrace records (config.h's
 *  ot_host_openmp_level): from 1 on, the chained tool is refused the events
 *  offtrace registers for it. Called before ot_chain_initialize. */
void ot_chain_keep_host_openmp(int level);

#endif

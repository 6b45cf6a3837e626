/**
 * \file host_tasks.h
 * \brief The program's explicit tasks (level all) in the archive: each
 *        period of a task as a region on the thread that ran it, its
 *        creation, its depend items and its dependence edges.
 *
 * A task runs on any thread of its team, so the creation site, flags and
 * parent of a task are gathered first, over every thread's stream
 * (ot_host_tasks_note, from the converter's first pass) into a scratch file
 * by task id, in bounded memory (an external sort), and looked up there
 * when a thread's pass meets a task switch.
 */
#ifndef OT_CONVERT_HOST_TASKS_H
#define OT_CONVERT_HOST_TASKS_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "offtrace/raw_format.h"

struct converter;
struct thread_pass;

/** \brief Remember a task's creation (any other record is ignored).
 *  \return 0, or a negative errno. */
int ot_host_tasks_note(struct converter *c, const offtrace_raw_record *r);

/** \brief Write one OMP_TASK_* record of a host thread's pass at time \p t. */
void ot_host_tasks_convert(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t);

/** \brief A host thread's pass is over at \p t: its thread team ends there
 *  if a task event began it. */
void ot_host_tasks_end_thread(struct thread_pass *p, uint64_t t);

/** \brief Forget every task (the conversion is over). */
void ot_host_tasks_free(struct converter *c);

/* What host_tasks.c needs of a host thread's pass (host_pass.c). */
struct converter *ot_hp_converter(struct thread_pass *p);
OTF2_AttributeList *ot_hp_attributes(struct thread_pass *p);
OTF2_EvtWriter *ot_hp_writer(struct thread_pass *p);
/** The thread's index (its host location's id). */
uint32_t ot_hp_thread_index(const struct thread_pass *p);
/** Push an item (event, id) and Enter \p region at \p t with the pass's attributes. */
void ot_hp_open(struct thread_pass *p, uint8_t event, uint64_t id, OTF2_RegionRef region, uint64_t t);
/** 1 when the innermost open item is (event, id), 2 when it is open deeper, 0 when not open. */
int ot_hp_where(const struct thread_pass *p, uint8_t event, uint64_t id);
/** Leave the innermost open item at \p t with the pass's attributes. */
void ot_hp_close_innermost(struct thread_pass *p, uint64_t t);
/** Enter and leave \p region at \p t (a point in time) with the pass's attributes on the Enter. */
void ot_hp_mark(struct thread_pass *p, OTF2_RegionRef region, uint64_t t);

#endif

/**
 * \file nvtx_pass.h
 * \brief Conversion of NVTX v3 calls (issue 14): the definitions of
 *        `raw/nvtx.defs`, and NVTX_* records of a host thread as OTF2
 *        regions (paradigm USER) with category, colour and payload as
 *        attributes.
 */
#ifndef OT_CONVERT_NVTX_PASS_H
#define OT_CONVERT_NVTX_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/raw_format.h"

struct converter;
struct thread_pass;

/** \brief Read `<raw_dir>/nvtx.defs` into \p c (none: no NVTX). A damaged
 *  tail is skipped and counted (c->nvtx_defs_damaged). \return 0, or -ENOMEM. */
int ot_nvtx_defs_load(struct converter *c, const char *raw_dir);

/** \brief A live conversion's end (convert_live.c; c->live: it read
 *  nvtx.defs again whenever a record named a text or domain not defined
 *  yet): the rest of the finished file read as a whole reading reads it.
 *  \p first_os_tid: the first stream's thread, whose NVTX name its pass
 *  took (c->nvtx_thread_name_used). \return 0: the archive is the one the
 *  conversion after the end writes; -EPROTO: it could differ (the file no
 *  longer begins with what was read, a text or domain asked for in vain was
 *  defined since, a range ended on another thread than its own, whose end
 *  is read before the first stream is written, or the first thread was
 *  named after its pass began); -ENOMEM. */
int ot_nvtx_defs_live_end(struct converter *c, const char *raw_dir, int32_t first_os_tid);

/** \brief One NVTX_* record of the thread of \p p at \p t (ns). */
void ot_nvtx_convert(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t);

/** \brief Close the start/end ranges of the thread being converted whose
 *  end (on another thread) is due by \p until (ns), at their ends' times,
 *  never before \p not_before. \return the last time written (or \p
 *  not_before). Called by the host pass while c->nvtx_pending. */
uint64_t ot_nvtx_settle(struct thread_pass *p, uint64_t until, uint64_t not_before);

/** \brief \p name (a host thread's location name) as "NVTX NAME: name" when
 *  the program named the thread \p os_tid with nvtxNameOsThreadA. */
void ot_nvtx_thread_name(const struct converter *c, int32_t os_tid, char *name, size_t size);

/** \brief The archive's NVTX properties: problem counts, category names. */
void ot_nvtx_properties(struct converter *c);

void ot_nvtx_defs_free(struct converter *c);

#endif

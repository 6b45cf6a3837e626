/**
 * \file user_pass.h
 * \brief Conversion of the program's own words (user API, issue 14): the
 *        definitions of `raw/user.defs`, and USER_* records of a host thread
 *        as OTF2 regions (paradigm USER) and metrics.
 */
#ifndef OT_CONVERT_USER_PASS_H
#define OT_CONVERT_USER_PASS_H

#include <stddef.h>
#include <stdint.h>

#include "offtrace/raw_format.h"

struct converter;
struct thread_pass;

/** \brief Read `<raw_dir>/user.defs` into \p c (none: no user ids). A
 *  damaged tail is skipped and counted (c->user_defs_damaged).
 *  \return 0, or -ENOMEM. */
int ot_user_defs_load(struct converter *c, const char *raw_dir);

/** \brief A live conversion's end (convert_live.c; c->live: it read
 *  user.defs again whenever a record named an id not defined yet): the
 *  rest of the finished file and raw/user.dropped read as a whole reading
 *  reads them. \p streams: the finished recording's host streams.
 *  \return 0: the archive is the one the conversion after the end writes;
 *  -EPROTO: it could differ (the file no longer begins with what was read,
 *  an id asked for in vain was defined since, or user events of a program
 *  of several threads, which are paired across threads before the first
 *  stream is written); -ENOMEM. */
int ot_user_defs_live_end(struct converter *c, const char *raw_dir, size_t streams);

/** \brief One USER_* record of the thread of \p p at \p t (ns). */
void ot_user_convert(struct thread_pass *p, const offtrace_raw_record *r, uint64_t t);

/** \brief Before the host threads' passes: pair the user events ended on another thread than the one
 *  that began them (one read of every host stream's USER_EVENT records, only when user.defs defines an
 *  event). \return 0, or -ENOMEM. */
int ot_user_pair_events(struct converter *c);

/** \brief In a host thread's pass, before its record at \p t (UINT64_MAX: at its end): close the user
 *  events it began that another thread ended by \p t. */
void ot_user_close_due(struct thread_pass *p, uint64_t t);

void ot_user_defs_free(struct converter *c);

#endif

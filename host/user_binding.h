/**
 * \file user_binding.h
 * \brief libofftrace.so's side of the user API (issue 14): the table of
 *        user_recorder.h, attached to libofftrace-user.so when the program
 *        has it, whose slots write USER_* records to the calling thread's
 *        stream and definitions to `raw/user.defs` (raw_format.h).
 */
#ifndef OT_USER_BINDING_H
#define OT_USER_BINDING_H

/** \brief At tool initialize, once recording is on: find
 *  offtrace_user_attach_recorder_ in the process (no library: nothing to
 *  do) and attach the recorder's table. */
void ot_user_binding_attach(void);

/** \brief At finalize: detach, so later calls of the program record nothing. */
void ot_user_binding_detach(void);

#endif

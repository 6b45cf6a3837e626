/**
 * \file otf2_open.h
 * \brief OTF2_Reader_Open with the memory it may reserve bounded.
 *
 * Why: OTF2 3.0 sizes the anchor file's property tables from the count the
 * file states. A damaged count (one flipped byte) makes it reserve tens of
 * GiB (overcommit grants it), fail on the next string, and then free each of
 * a billion entries: 12 s for a 700-byte file, on every verb that opens it.
 * With the address space bounded for the open, that allocation fails at
 * once and the open returns NULL. Healthy anchors need a few KiB.
 */
#ifndef OT_OTF2UTIL_OTF2_OPEN_H
#define OT_OTF2UTIL_OTF2_OPEN_H

#include <otf2/otf2.h>

/** Room above the process's current address space during the open. */
#define OT_OTF2_OPEN_HEADROOM (256ull << 20)

/**
 * \brief OTF2_Reader_Open(anchor) with RLIMIT_AS lowered to the current
 *        size + OT_OTF2_OPEN_HEADROOM for the call, then restored. Changes
 *        a process-wide limit: for single-threaded callers (the CLI verbs).
 * \return the reader, or NULL (missing, damaged, or not OTF2).
 */
OTF2_Reader *ot_otf2_open_reader(const char *anchor);

/**
 * \brief Silence OTF2's own error printing (it writes several lines per
 *        failure on stderr); the callers say one line of their own.
 * \return the previous handler, for ot_otf2_restore_errors.
 */
OTF2_ErrorCallback ot_otf2_quiet_errors(void);

/** \brief Put back the handler ot_otf2_quiet_errors replaced. */
void ot_otf2_restore_errors(OTF2_ErrorCallback previous);

#endif /* OT_OTF2UTIL_OTF2_OPEN_H */

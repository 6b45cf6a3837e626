/**
 * \file self_dir.h
 * \brief The directory of the running executable: where the CLI finds the
 *        libraries installed beside it (`<dir>/../lib/`), in the build tree
 *        and as installed.
 */
#ifndef OT_UTIL_SELF_DIR_H
#define OT_UTIL_SELF_DIR_H

#include <stddef.h>

/** \brief The directory of /proc/self/exe into \p buf (no trailing slash).
 *  \return 0, or -1 when the link cannot be read or names no directory. */
int ot_self_dir(char *buf, size_t size);

#endif

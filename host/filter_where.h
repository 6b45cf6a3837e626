/**
 * \file filter_where.h
 * \brief A code address's source file and line, in the traced process
 *        (filter_where.c). Slow path: once per call site, under a lock.
 */
#ifndef OT_HOST_FILTER_WHERE_H
#define OT_HOST_FILTER_WHERE_H

#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/**
 * \brief The source file (as the debug information names it) and line of
 *        the call whose return address is \p code.
 * \return 1 found; 0 not (no -g, no libdw): file "" and line 0.
 */
int ot_filter_where(const void *code, char *file, size_t size, uint32_t *line);

#endif

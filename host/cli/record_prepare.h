/**
 * \file record_prepare.h
 * \brief What `offtrace record` readies for the conversion while the
 *        program runs (issue 18, seventh round): record_prepare.c.
 */
#ifndef OT_CLI_RECORD_PREPARE_H
#define OT_CLI_RECORD_PREPARE_H

/** \brief Load the symbolizer and fault in the heap the conversion after
 *         the program's end will take: on record's thread, once the program
 *         runs, before the live conversion's thread starts (which then finds
 *         the symbolizer loaded, never loading it at idle priority while
 *         record's thread waits for it). */
void ot_record_prepare_conversion(void);

#endif

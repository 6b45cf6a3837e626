/**
 * \file crash.h
 * \brief Leave an archive behind when a program traced without
 *        `offtrace record` dies of a fatal signal.
 *
 * The handler cannot safely run the converter in the dying process (its heap
 * may be the reason it dies), so it forks and execs `offtrace convert`,
 * waits for it, and then lets the signal take its normal course. Under
 * `offtrace record` no handler is installed: the CLI converts after the
 * program has gone, whatever killed it.
 */
#ifndef OT_HOST_CRASH_H
#define OT_HOST_CRASH_H

/** \brief Install handlers for fatal signals whose disposition is the default. */
void ot_crash_install(const char *output_dir);

#endif

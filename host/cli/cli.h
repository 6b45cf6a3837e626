/**
 * \file cli.h
 * \brief The `offtrace` command: one function per verb, shared helpers.
 *
 * Exit codes of offtrace's own errors: 2 for a usage error or bad input,
 * 1 for a failure while working. `record` otherwise exits as the program did.
 */
#ifndef OT_CLI_H
#define OT_CLI_H

#include <stddef.h>

int ot_cmd_record(int argc, char **argv);
int ot_cmd_info(int argc, char **argv);
int ot_cmd_convert(int argc, char **argv);

/** \brief Directory of the running offtrace binary (for ../lib). */
int ot_cli_self_dir(char *buf, size_t size);

#endif

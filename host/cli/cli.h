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
int ot_cmd_report(int argc, char **argv);
int ot_cmd_view(int argc, char **argv);
int ot_cmd_export(int argc, char **argv);

/**
 * \brief Run a verb in a child process and pass on its exit status. If the
 *        child dies by a signal (a damaged archive can crash the OTF2
 *        reader), say so in one line and return 1.
 */
int ot_cli_isolated(int (*run)(int argc, char **argv), int argc, char **argv);

/**
 * \brief Write an output file safely: `fopen` of `<path>.partial`; commit
 *        renames it to \p path, abandon removes it. A failed run leaves no
 *        half-written file behind. Devices and pipes are written in place.
 */
typedef struct ot_cli_output {
    char path[4096], partial[4200]; /**< partial is "" when writing in place */
    void *file; /**< FILE * */
} ot_cli_output;
int ot_cli_output_open(ot_cli_output *o, const char *path);
int ot_cli_output_commit(ot_cli_output *o);
void ot_cli_output_abandon(ot_cli_output *o);

/** \brief 1 when `<dir>/raw` was kept after a successful conversion
 *         (OFFTRACE_KEEP_RAW), 0 when it is a recording still to convert. */
int ot_cli_raw_converted(const char *raw_dir);

/** \brief 1 when the process that wrote `<dir>/raw` ended its recording
 *         cleanly (status "recorded"): convert it as complete. */
int ot_cli_raw_recorded(const char *raw_dir);

/** \brief Set `<raw_dir>/status` to "converted": raw/ was kept after a
 *         successful conversion, the archive next to it is the one to read. */
void ot_cli_raw_mark_converted(const char *raw_dir);

/** \brief `<raw_dir>/status` without its newline ("recording", "recorded",
 *         "converted", ...), "" when there is none. */
void ot_cli_raw_status(const char *raw_dir, char *status, size_t size);

/**
 * \brief For the archive readers: 0 when \p dir holds no recording still to
 *        convert; else one line on stderr and 1: "still being recorded by
 *        process N" while its writer runs (liveness.h), "being converted"
 *        while a converter runs, otherwise the advice to run `offtrace
 *        convert`.
 */
int ot_cli_refuse_recording(const char *dir);

/**
 * \brief 0 (after one line on stderr) when the output file \p output of
 *        \p verb would land on the archive in \p archive_dir: the directory
 *        itself, its anchor file, traces.def, traces/ or raw/; else 1.
 *        "-" (stdout) is always allowed.
 */
int ot_cli_output_allowed(const char *verb, const char *output, const char *archive_dir);

/** \brief Directory of the running offtrace binary (for ../lib). */
int ot_cli_self_dir(char *buf, size_t size);

#endif

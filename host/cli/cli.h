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
#include <sys/types.h>

#include "options.h"

/** The verbs: each gets its command line parsed and checked (options.h)
 *  and returns the exit status. */
int ot_cmd_record(const ot_cli_args *args);
int ot_cmd_info(const ot_cli_args *args);
int ot_cmd_convert(const ot_cli_args *args);
int ot_cmd_report(const ot_cli_args *args);
int ot_cmd_view(const ot_cli_args *args);
int ot_cmd_export(const ot_cli_args *args);

/**
 * \brief Run the verb of \p args in a child process and pass on its exit
 *        status. If the child dies by a signal (a damaged archive can crash
 *        the OTF2 reader), say so in one line, remove its `-o` file's
 *        `.partial`, and return 1.
 */
int ot_cli_isolated(const ot_cli_args *args);

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

/* ---- shared preconditions (preconditions.c) ----
 * What state a recording directory is in, told once for every verb: the
 * readers (info, report, view, export) refuse what is not a finished
 * archive, convert refuses what is live or being converted, and record
 * converts what is still unconverted. */

/** What `<dir>/raw` says about the recording in \p dir. */
typedef enum ot_cli_recording_state {
    OT_RECORDING_NONE,            /**< no raw/: nothing to convert (an archive or nothing) */
    OT_RECORDING_CONVERTED,       /**< raw/ kept after a successful conversion (OFFTRACE_KEEP_RAW, --keep-raw) */
    OT_RECORDING_BEING_CONVERTED, /**< a converter holds the claim (liveness.h) */
    OT_RECORDING_LIVE,            /**< its writer still runs */
    OT_RECORDING_FINISHED,        /**< its writer ended it cleanly (status "recorded"), not converted */
    OT_RECORDING_UNFINISHED,      /**< its writer ended before finishing it */
} ot_cli_recording_state;

typedef struct ot_cli_recording {
    ot_cli_recording_state state;
    pid_t pid;          /**< the converter (BEING_CONVERTED) or the writer (LIVE) */
    char raw_dir[4200]; /**< <dir>/raw */
    /** CONVERTED: why the kept raw/'s conversion was partial (its archive's
     *  PARTIAL), "" when it was complete; a converting again says the same */
    char converted_reason[256];
} ot_cli_recording;

/** \brief The state of the recording in \p dir (never fails: what cannot
 *         be read counts as absent). \return r->state. */
ot_cli_recording_state ot_cli_recording_inspect(const char *dir, ot_cli_recording *r);

/** \brief The one test of "is this recording still unconverted": raw/ is
 *         there and is not the kept copy of a converted recording. */
int ot_cli_recording_unconverted(const ot_cli_recording *r);

/** \brief One line on stderr, "offtrace VERB: '<dir>' ...", saying why a
 *         recording in state BEING_CONVERTED or later cannot be read, and
 *         what to do. */
void ot_cli_recording_explain(const char *verb, const char *dir, const ot_cli_recording *r);

/**
 * \brief The precondition of every archive reader: \p dir is a directory,
 *        holds no recording still to convert (ot_cli_recording_explain
 *        otherwise) and has an anchor file.
 * \return 0 to read it; else the exit status after one line on stderr:
 *         1 while it is being recorded or converted or still to convert,
 *         2 when \p dir is no archive.
 */
int ot_cli_archive_ready(const char *verb, const char *dir);

/**
 * \brief The directory a verb's operand names: `DIR` and `DIR/traces.otf2`
 *        (the anchor file `record` prints) alike. An operand whose last
 *        component is the anchor's name and is not a directory names its
 *        directory (copied into \p buf); any other is returned as it is.
 */
const char *ot_cli_archive_dir(const char *operand, char *buf, size_t size);

/**
 * \brief The output file \p args names, or its verb's default when -o is
 *        not given: for `view`, `DIR.html` next to the archive directory
 *        (never inside it). \return NULL when there is none (no -o, no
 *        default, or a directory such as "/" that has no name to give it).
 */
const char *ot_cli_output_of(const ot_cli_args *args, char *buf, size_t size);

/** \brief Set `<raw_dir>/status` to "converted": raw/ was kept after a
 *         successful conversion, the archive next to it is the one to read.
 *         A second line keeps how that conversion ended, "complete" or the
 *         \p reason it was partial (NULL: complete), so that converting the
 *         kept raw/ again writes the same PARTIAL property. */
void ot_cli_raw_mark_converted(const char *raw_dir, const char *reason);

/** \brief Why a conversion of \p r now would be partial: NULL when its
 *         writer finished it (FINISHED, or CONVERTED complete), else the
 *         reason to give the archive. */
const char *ot_cli_recording_partial_reason(const ot_cli_recording *r);

/**
 * \brief 0 (after one line on stderr) when the output file \p output of
 *        \p verb would land on the archive in \p archive_dir: the directory
 *        itself, its anchor file, traces.def, traces/ or raw/; else 1.
 *        "-" (stdout) is always allowed.
 */
int ot_cli_output_allowed(const char *verb, const char *output, const char *archive_dir);

/* ---- a program that could not be started (loader.c) ---- */

/**
 * \brief After \p program (record's argv[0] for it) exited 127 without
 *        starting OpenMP: if its dynamic loader fails to load it in this
 *        environment, one line on stderr with the loader's own message and,
 *        for a library not found, the fix (an rpath or LD_LIBRARY_PATH).
 *        Runs the program's loader with `--list`, never the program.
 * \return 0 after the line; -1 (nothing said) when the loader loads it.
 */
int ot_cli_explain_unloadable(const char *program);

/**
 * \brief After exec of \p program failed with ENOENT: if the file is there
 *        but its interpreter (dynamic loader, or a script's #! program) is
 *        not, one line on stderr saying so. \return 0 after the line, else -1.
 */
int ot_cli_explain_missing_interpreter(const char *program);

/**
 * \brief Whether \p program is an MPI program: it loads a libmpi.so.N,
 *        directly or through another library, as its DT_NEEDED entries
 *        say, found through the loader's search rules in the present
 *        environment (needed.c; nothing is run). \p soname gets that
 *        library's soname.
 * \return 1 when it does, 0 when it does not, -1 when that cannot be
 *         known (a script, a static program, an unreadable file).
 */
int ot_cli_program_mpi(const char *program, char *soname, size_t size);

/**
 * \brief The shared libraries \p program (a path) loads, as the dynamic
 *        loader would find them (needed.c): \p visit gets each DT_NEEDED
 *        name once, breadth-first from the program and the user's preloads,
 *        in load order, until it returns non-zero. Reads ELF files only.
 * \return 0 after the walk, \p visit's non-zero answer when it stopped it,
 *         -1 when \p program is not a dynamically linked x86-64 ELF file.
 */
int ot_cli_needed_libraries(const char *program, int (*visit)(const char *name, void *arg), void *arg);

#endif

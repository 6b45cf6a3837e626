/**
 * \file options.h
 * \brief The `offtrace` command line: one table of verbs and one table of
 *        options (each option once, with the verbs it applies to, as
 *        uftrace does). Every verb's parsing, its usage errors and its
 *        `--help` come from these tables (options.c); a verb receives its
 *        options already parsed and checked.
 *
 * Syntax, the same for every verb: `-x VALUE`, `--long VALUE`,
 * `--long=VALUE`; `--` ends the options; `-h`/`--help` prints the verb's
 * help on stdout (exit 0). A usage error is one line on stderr and exit 2.
 */
#ifndef OT_CLI_OPTIONS_H
#define OT_CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

/** The verbs, as bits: an option names the verbs it applies to. */
typedef enum ot_cli_verb {
    OT_VERB_RECORD = 1u << 0,
    OT_VERB_REPORT = 1u << 1,
    OT_VERB_VIEW = 1u << 2,
    OT_VERB_EXPORT = 1u << 3,
    OT_VERB_INFO = 1u << 4,
    OT_VERB_CONVERT = 1u << 5,
} ot_cli_verb;

/** Every option of every verb; an index into ot_cli_args's arrays. */
typedef enum ot_cli_opt {
    OT_OPT_OUTPUT,      /**< -o, --output: record's directory; the analysis verbs' file */
    OT_OPT_BUFFER_SIZE, /**< record -b */
    OT_OPT_MAX_SIZE,    /**< record --max-size; view --max-size (the page's size) */
    OT_OPT_HOST_ONLY,   /**< record --host-only */
    OT_OPT_HOST_OPENMP, /**< record --host-openmp */
    OT_OPT_START_PAUSED, /**< record --start-paused */
    OT_OPT_VERBOSE,     /**< record -v */
    OT_OPT_SORT,        /**< report --sort */
    OT_OPT_LIMIT,       /**< report --limit */
    OT_OPT_JSON,        /**< report --json */
    OT_OPT_FROM,        /**< view --from */
    OT_OPT_TO,          /**< view --to */
    OT_OPT_WIDTH,       /**< view --width */
    OT_OPT_DEPTH,       /**< view --depth */
    OT_OPT_SERVE,       /**< view --serve */
    OT_OPT_PORT,        /**< view --port */
    OT_OPT_FORMAT,      /**< export --format */
    OT_OPT_REASON,      /**< convert --reason */
    OT_OPT_KEEP_RAW,    /**< convert --keep-raw */
    OT_OPT_FORCE,       /**< convert --force */
    OT_OPT_QUIET,       /**< convert --quiet (the library's helper process; not in --help) */
    OT_OPT_FILTER,      /**< record --filter (issue 14, docs/filters.md) */
    OT_OPT_NO_CAPTURE,  /**< record --no-capture (issue 15, docs/variables.md) */
    OT_OPT_MPI,         /**< record --mpi (issue 16, docs/mpi.md) */
    OT_OPT_NO_MPI,      /**< record --no-mpi */
    OT_OPT_DEVICE_DETAIL, /**< record --device-detail (issue 18, OFFTRACE_DEVICE_DETAIL) */
    OT_OPT_HELP,        /**< -h, --help: every verb */
    OT_OPT_COUNT
} ot_cli_opt;

struct ot_cli_args;

/** One verb of `offtrace`. */
typedef struct ot_cli_verb_info {
    ot_cli_verb verb;
    const char *name;
    const char *summary;  /**< one line, for `offtrace --help` */
    const char *operands; /**< after the options in its usage line */
    const char *about;    /**< what it does, under its usage line */
    /** \return the exit status. */
    int (*run)(const struct ot_cli_args *args);
    /** Reads an archive: runs in a child process (ot_cli_isolated) and
     *  takes exactly one operand, the archive directory. Otherwise record
     *  takes the program and its arguments, convert one directory. */
    int reads_archive;
} ot_cli_verb_info;

/** A verb's command line, parsed and checked against the option table. */
typedef struct ot_cli_args {
    const ot_cli_verb_info *verb;
    /** The option as given (a switch: its spelling), NULL when not given. */
    const char *text[OT_OPT_COUNT];
    /** A number, size or time option: its value; a choice: the index of the
     *  choice; the table's default when not given. */
    uint64_t value[OT_OPT_COUNT];
    const char *dir;  /**< the directory operand (every verb but record) */
    char **program;   /**< record: the program and its arguments, NULL-terminated */
} ot_cli_args;

/** \brief The verb named \p name, NULL if there is none. */
const ot_cli_verb_info *ot_cli_verb_find(const char *name);

/**
 * \brief Parse \p argv (argv[0] is the verb's name) for \p verb.
 * \return 0 to run; 1 after printing the verb's help on stdout (exit 0);
 *         -1 after one line on stderr (a usage error: exit 2).
 */
int ot_cli_parse(const ot_cli_verb_info *verb, int argc, char **argv, ot_cli_args *out);

/** \brief A usage error of \p verb found after parsing: "offtrace VERB:
 *         <message> (see offtrace VERB --help)" on stderr. \return 2. */
__attribute__((format(printf, 2, 3))) int ot_cli_usage_error(const ot_cli_verb_info *verb, const char *fmt, ...);

/** \brief `offtrace --help`: the verbs with their summaries. */
void ot_cli_print_overview(FILE *to);

/** \brief `offtrace VERB --help`: usage line, about, the verb's options. */
void ot_cli_print_help(const ot_cli_verb_info *verb, FILE *to);

#endif

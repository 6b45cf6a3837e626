/**
 * \file options.c
 * \brief The verb table, the option table, the one parser of `offtrace`'s
 *        command lines and the help made from the tables (options.h).
 *
 * Adding an option is one row of `options[]` (and its id in options.h); its
 * parsing, its check, its usage errors and its line in `--help` follow from
 * the row. The verb then reads `args->text[id]` / `args->value[id]`.
 */
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "byte_size.h"
#include "cli.h"
#include "config.h"
#include "device_config.h"
#include "offtrace/offtrace.h"
#ifdef OFFTRACE_HAVE_VIEW
#include "view.h"
#endif

/* ---- the verbs ---- */

static const ot_cli_verb_info verbs[] = {
    {OT_VERB_RECORD, "record", "run a program and record its offload activity into an OTF2 archive",
     "[--] PROGRAM [ARGS...]",
     "Runs PROGRAM with the host library (and, unless --host-only, the device collector) and leaves an OTF2\n"
     "archive in the output directory, whatever way the program ends. The program's arguments, standard\n"
     "streams and exit status pass through unchanged; offtrace's own words go to stderr.",
     ot_cmd_record, 0},
#ifdef OFFTRACE_HAVE_REPORT
    {OT_VERB_REPORT, "report", "where the time went and which transfers were avoidable", "DIR",
     "The report starts with the three things to know about the run; share/doc/offtrace/report.md\n"
     "explains every column and finding. It goes to stdout unless -o FILE names a file.",
     ot_cmd_report, 1},
#endif
#ifdef OFFTRACE_HAVE_VIEW
    {OT_VERB_VIEW, "view", "draw the timeline as a zoomable HTML page or an SVG picture",
     "DIR [-o FILE.html|FILE.svg] | DIR --serve",
     "Draws the timeline of the archive in DIR: host threads, device streams, device threads and RDMA\n"
     "rows, regions as coloured bars, transfers as arrows, a time axis and a legend. The name of -o\n"
     "chooses the format: .html is a self-contained page that zooms from the whole run down to single\n"
     "regions (as deep as --max-size allows); .svg is a static picture. Without -o it writes DIR.html\n"
     "next to DIR. --serve serves the page with all detail on 127.0.0.1 until Ctrl-C.",
     ot_cmd_view, 1},
#endif
#ifdef OFFTRACE_HAVE_EXPORT
    {OT_VERB_EXPORT, "export", "write the trace for other viewers (Chrome trace JSON for Perfetto)",
     "DIR -o FILE|-",
     "Writes the archive in DIR for other viewers (share/doc/offtrace/export.md); -o - writes to stdout.",
     ot_cmd_export, 1},
#endif
    {OT_VERB_INFO, "info", "say what is in an archive", "DIR",
     "Says what the archive in DIR holds: the run, its events, threads, devices and what was lost.", ot_cmd_info,
     1},
    {OT_VERB_CONVERT, "convert", "turn a recording left by a program that died into an archive", "DIR",
     "Turns the recording DIR/raw into the archive DIR/traces.otf2 (`offtrace record` does it itself;\n"
     "this is for a recording left unconverted). A recording whose process still runs is refused\n"
     "unless --force.",
     ot_cmd_convert, 0},
};

const ot_cli_verb_info *ot_cli_verb_find(const char *name)
{
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(name, verbs[i].name))
            return &verbs[i];
    return NULL;
}

void ot_cli_print_overview(FILE *to)
{
    fprintf(to, "usage: offtrace <verb> [options] ...\n"
                "       offtrace --help | --version\n\n");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        fprintf(to, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(to, "\n  offtrace record -o run1 -- ./app args   then   offtrace report run1\n");
    fprintf(to, "  offtrace <verb> --help (or offtrace help <verb>) for the verb's options\n");
    fprintf(to, "  offtrace --version prints offtrace's version\n");
}

/* ---- the options ---- */

typedef enum value_kind {
    SWITCH, /* no value */
    TEXT,   /* any text */
    COUNT,  /* a whole number in [min, max] */
    SIZE,   /* a byte size (byte_size.h) in [min, max] */
    CHOICE, /* one of choices[]; the value is its index */
    PARSED, /* what parse() accepts; `accepted` says it in words */
} value_kind;

typedef struct option {
    ot_cli_opt id;
    unsigned verbs;          /* ot_cli_verb bits */
    char short_name;         /* 0: none */
    const char *long_name;   /* without "--"; NULL: none */
    value_kind kind;
    const char *arg;         /* the value's name in --help */
    const char *help;        /* NULL: not listed (an option for offtrace's own use) */
    uint64_t min, max;       /* COUNT, SIZE */
    uint64_t fallback;       /* the value when not given (COUNT, SIZE, CHOICE) */
    const char *fallback_text; /* the default in words, where the value does not say it */
    const char *const *choices; /* CHOICE, NULL-terminated */
    const char *choices_name;   /* CHOICE: what they are, for messages */
    int (*parse)(const char *text, uint64_t *value); /* PARSED */
    const char *accepted;                            /* PARSED */
} option;

static const char *const sort_keys[] = {"total", "count", "mean", "bytes", "name", NULL}; /* = ot_rp_sort */
static const char *const export_formats[] = {"chrome", NULL};
static const char *const host_openmp_levels[] = {"off", "regions", "loops", "all", NULL}; /* = ot_host_openmp_level */
static const char *const device_detail_levels[] = {"kernels", "teams", "threads", NULL}; /* = ot_device_detail */

#define ANALYSIS (OT_VERB_REPORT | OT_VERB_VIEW | OT_VERB_EXPORT)
#define EVERY_VERB (OT_VERB_RECORD | ANALYSIS | OT_VERB_INFO | OT_VERB_CONVERT)

static const option options[] = {
    {.id = OT_OPT_OUTPUT, .verbs = OT_VERB_RECORD, .short_name = 'o', .long_name = "output", .kind = TEXT,
     .arg = "DIR", .help = "output directory; must not exist",
     .fallback_text = "$OFFTRACE_OUTPUT, else offtrace-PROGRAM, made unique"},
    {.id = OT_OPT_OUTPUT, .verbs = OT_VERB_REPORT | OT_VERB_EXPORT, .short_name = 'o', .long_name = "output",
     .kind = TEXT, .arg = "FILE", .help = "the file to write; it appears only when complete"},
    {.id = OT_OPT_OUTPUT, .verbs = OT_VERB_VIEW, .short_name = 'o', .long_name = "output", .kind = TEXT,
     .arg = "FILE", .help = "the file to write (.html or .svg); it appears only when complete",
     .fallback_text = "DIR.html next to DIR"},
    {.id = OT_OPT_BUFFER_SIZE, .verbs = OT_VERB_RECORD, .short_name = 'b', .long_name = "buffer-size", .kind = SIZE,
     .arg = "SIZE", .help = "per-thread buffer chunk (OFFTRACE_BUFFER_SIZE)", .min = OFFTRACE_MIN_BUFFER_SIZE,
     .max = OFFTRACE_MAX_BUFFER_SIZE, .fallback = OFFTRACE_DEFAULT_BUFFER_SIZE},
    {.id = OT_OPT_MAX_SIZE, .verbs = OT_VERB_RECORD, .long_name = "max-size", .kind = PARSED, .arg = "SIZE",
     .help = "disk space of the recording (OFFTRACE_MAX_RECORDING_SIZE)",
     .fallback_text = "10% of the output's free space, at least 64M", .parse = ot_config_parse_max_size,
     .accepted = OT_CONFIG_MAX_SIZE_ACCEPTED},
    {.id = OT_OPT_HOST_ONLY, .verbs = OT_VERB_RECORD, .long_name = "host-only", .kind = SWITCH,
     .help = "no device detail (do not preload the device collector)"},
    {.id = OT_OPT_HOST_OPENMP, .verbs = OT_VERB_RECORD, .long_name = "host-openmp", .kind = CHOICE, .arg = "LEVEL",
     .help = "the program's own host OpenMP recorded: regions; + loop chunks; all: + tasks and locks (OFFTRACE_HOST_OPENMP)",
     .choices = host_openmp_levels, .choices_name = "levels", .fallback = OT_HOST_OPENMP_DEFAULT},
    {.id = OT_OPT_DEVICE_DETAIL, .verbs = OT_VERB_RECORD, .long_name = "device-detail", .kind = CHOICE,
     .arg = "LEVEL",
     .help = "inside a host-offload kernel: kernels; + each team, with a summary of its threads; threads: every "
             "thread's tasks, loops and barriers (OFFTRACE_DEVICE_DETAIL)",
     .choices = device_detail_levels, .choices_name = "levels", .fallback = OT_DEVICE_DETAIL_DEFAULT},
    {.id = OT_OPT_START_PAUSED, .verbs = OT_VERB_RECORD, .long_name = "start-paused", .kind = SWITCH,
     .help = "record nothing until the program calls omp_control_tool(omp_control_tool_start, ...) or offtrace_user_measurement_on() (OFFTRACE_START_PAUSED)"},
    {.id = OT_OPT_VERBOSE, .verbs = OT_VERB_RECORD, .short_name = 'v', .long_name = "verbose", .kind = SWITCH,
     .help = "let the library report what it does"},
    {.id = OT_OPT_SORT, .verbs = OT_VERB_REPORT, .long_name = "sort", .kind = CHOICE, .arg = "KEY",
     .help = "order of the tables", .choices = sort_keys, .choices_name = "keys"},
    {.id = OT_OPT_LIMIT, .verbs = OT_VERB_REPORT, .long_name = "limit", .kind = COUNT, .arg = "N",
     .help = "rows per table, 0 = all (--json shows all unless given)", .min = 0, .max = 1000000000, .fallback = 10},
    {.id = OT_OPT_JSON, .verbs = OT_VERB_REPORT, .long_name = "json", .kind = SWITCH,
     .help = "one JSON object instead of the tables"},
#ifdef OFFTRACE_HAVE_VIEW
    {.id = OT_OPT_FROM, .verbs = OT_VERB_VIEW, .long_name = "from", .kind = PARSED, .arg = "T",
     .help = "start of the range drawn (the page: where it opens), from the trace start",
     .fallback_text = "the trace start", .parse = ot_view_parse_time,
     .accepted = "a time with its unit, such as 250000ns, 300us, 12.5ms or 1.2s"},
    {.id = OT_OPT_TO, .verbs = OT_VERB_VIEW, .long_name = "to", .kind = PARSED, .arg = "T",
     .help = "end of the range drawn (past the end of the trace: the end)", .fallback_text = "the trace end",
     .parse = ot_view_parse_time, .accepted = "a time with its unit, such as 250000ns, 300us, 12.5ms or 1.2s"},
    {.id = OT_OPT_WIDTH, .verbs = OT_VERB_VIEW, .long_name = "width", .kind = COUNT, .arg = "PX",
     .help = "the SVG picture's width in pixels, labels included (the page fits its window)", .min = OT_VIEW_MIN_WIDTH, .max = OT_VIEW_MAX_WIDTH,
     .fallback = OT_VIEW_DEFAULT_WIDTH},
    {.id = OT_OPT_DEPTH, .verbs = OT_VERB_VIEW, .long_name = "depth", .kind = COUNT, .arg = "N",
     .help = "nesting levels per row; the last shows the innermost region", .min = 1, .max = OT_VIEW_MAX_DEPTH,
     .fallback = OT_VIEW_DEFAULT_DEPTH},
    {.id = OT_OPT_MAX_SIZE, .verbs = OT_VERB_VIEW, .long_name = "max-size", .kind = SIZE, .arg = "SIZE",
     .help = "the HTML page's size at most; detail past it needs --serve", .min = 1u << 20, .max = 1ull << 32,
     .fallback = OT_VIEW_DEFAULT_PAGE_BUDGET},
    {.id = OT_OPT_SERVE, .verbs = OT_VERB_VIEW, .long_name = "serve", .kind = SWITCH,
     .help = "serve the page with all detail on 127.0.0.1 (no file) until Ctrl-C"},
    {.id = OT_OPT_PORT, .verbs = OT_VERB_VIEW, .long_name = "port", .kind = COUNT, .arg = "N",
     .help = "--serve's port; 0: any free one", .min = 0, .max = 65535, .fallback = OT_VIEW_DEFAULT_PORT},
#endif
    {.id = OT_OPT_FORMAT, .verbs = OT_VERB_EXPORT, .long_name = "format", .kind = CHOICE, .arg = "FORMAT",
     .help = "chrome: Chrome trace-event JSON, for Perfetto (ui.perfetto.dev)", .choices = export_formats,
     .choices_name = "formats"},
    {.id = OT_OPT_REASON, .verbs = OT_VERB_CONVERT, .long_name = "reason", .kind = TEXT, .arg = "TEXT",
     .help = "why the recording is partial (shown as PARTIAL)"},
    {.id = OT_OPT_KEEP_RAW, .verbs = OT_VERB_CONVERT, .long_name = "keep-raw", .kind = SWITCH,
     .help = "keep DIR/raw after the conversion (as OFFTRACE_KEEP_RAW=1)"},
    {.id = OT_OPT_FORCE, .verbs = OT_VERB_CONVERT, .long_name = "force", .kind = SWITCH,
     .help = "convert a recording whose process still runs (what it wrote so far; raw/ is kept)"},
    /* The library's helper process: one line on failure only, no summary. */
    {.id = OT_OPT_QUIET, .verbs = OT_VERB_CONVERT, .long_name = "quiet", .kind = SWITCH},
    {.id = OT_OPT_FILTER, .verbs = OT_VERB_RECORD, .long_name = "filter", .kind = TEXT, .arg = "FILE",
     .help = "leave out the user regions and host OpenMP constructs the filter file FILE names, by name or source "
             "file and line (share/doc/offtrace/filters.md; a wrong file is said with its line and the program traced "
             "without a filter) (OFFTRACE_FILTER)"},
    {.id = OT_OPT_NO_CAPTURE, .verbs = OT_VERB_RECORD, .long_name = "no-capture", .kind = SWITCH,
     .help = "do not preload the map capture: data operations without variable names, map types and construct "
             "lines of their own (share/doc/offtrace/variables.md)"},
    {.id = OT_OPT_MPI, .verbs = OT_VERB_RECORD, .long_name = "mpi", .kind = SWITCH,
     .help = "preload offtrace's MPI wrappers even when the program does not load libmpi itself (a script that "
             "starts the MPI program); without it they are preloaded when the program's loader lists libmpi.so "
             "(share/doc/offtrace/mpi.md)"},
    {.id = OT_OPT_NO_MPI, .verbs = OT_VERB_RECORD, .long_name = "no-mpi", .kind = SWITCH,
     .help = "do not preload offtrace's MPI wrappers: no MPI calls and messages in the trace"},
    {.id = OT_OPT_HELP, .verbs = EVERY_VERB, .short_name = 'h', .long_name = "help", .kind = SWITCH,
     .help = "this help"},
};

#define OPTION_COUNT (sizeof options / sizeof options[0])

/* ---- help ---- */

/* "-o, --output DIR" */
static void spell(const option *o, char *buf, size_t size)
{
    int n = 0;
    if (o->short_name)
        n = snprintf(buf, size, "-%c%s", o->short_name, o->long_name ? ", " : "");
    if (o->long_name)
        n += snprintf(buf + n, size - (size_t)n, "--%s", o->long_name);
    if (o->arg)
        snprintf(buf + n, size - (size_t)n, " %s", o->arg);
}

/* What a valued option accepts, in words: for --help and for messages. */
static void accepted(const option *o, char *buf, size_t size)
{
    char low[32], high[32];
    switch (o->kind) {
    case COUNT:
        snprintf(buf, size, "a whole number from %llu to %llu", (unsigned long long)o->min,
                 (unsigned long long)o->max);
        break;
    case SIZE:
        snprintf(buf, size, "a size from %s to %s (" OT_BYTE_SIZE_FORMS ")",
                 ot_byte_size_format(o->min, low, sizeof low), ot_byte_size_format(o->max, high, sizeof high));
        break;
    case CHOICE: {
        int n = snprintf(buf, size, "one of the %s: ", o->choices_name);
        for (size_t i = 0; o->choices[i] && (size_t)n < size; i++)
            n += snprintf(buf + n, size - (size_t)n, "%s%s", i ? ", " : "", o->choices[i]);
        break;
    }
    case PARSED:
        snprintf(buf, size, "%s", o->accepted);
        break;
    default:
        buf[0] = '\0';
    }
}

/* "(default 1M)", "(default total)", or "" */
static void default_of(const option *o, char *buf, size_t size)
{
    char value[64];
    if (o->fallback_text)
        snprintf(value, sizeof value, "%s", o->fallback_text);
    else if (o->kind == COUNT)
        snprintf(value, sizeof value, "%llu", (unsigned long long)o->fallback);
    else if (o->kind == SIZE)
        ot_byte_size_format(o->fallback, value, sizeof value);
    else if (o->kind == CHOICE)
        snprintf(value, sizeof value, "%s", o->choices[o->fallback]);
    else
        value[0] = '\0';
    if (value[0])
        snprintf(buf, size, "; default %s", value);
    else
        buf[0] = '\0';
}

void ot_cli_print_help(const ot_cli_verb_info *verb, FILE *to)
{
    fprintf(to, "usage: offtrace %s [options] %s\n\n", verb->name, verb->operands);
    for (const char *line = verb->about; *line;) { /* indented, line by line */
        size_t n = strcspn(line, "\n");
        fprintf(to, "  %.*s\n", (int)n, line);
        line += n + (line[n] == '\n');
    }
    fprintf(to, "\noptions:\n");
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const option *o = &options[i];
        if (!(o->verbs & verb->verb) || !o->help)
            continue;
        char name[64], takes[256], fallback[128];
        spell(o, name, sizeof name);
        accepted(o, takes, sizeof takes);
        default_of(o, fallback, sizeof fallback);
        fprintf(to, "  %-22s %s\n", name, o->help);
        if (takes[0] || fallback[0])
            fprintf(to, "  %-22s (%s%s)\n", "", takes[0] ? takes : fallback + 2, takes[0] ? fallback : "");
    }
}

/* ---- parsing ---- */

int ot_cli_usage_error(const ot_cli_verb_info *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "offtrace %s: ", verb->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see offtrace %s --help)\n", verb->name);
    va_end(ap);
    return 2;
}

/* A usage error while parsing: one line, and ot_cli_parse's -1. */
#define REFUSE(...) (ot_cli_usage_error(__VA_ARGS__), -1)

/* The row of \p verb that \p arg spells ("-o", "--sort", "--sort=KEY");
 * *attached is set to the text after '=' when there is one. */
static const option *lookup(unsigned verb, const char *arg, const char **attached)
{
    *attached = NULL;
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const option *o = &options[i];
        if (!(o->verbs & verb))
            continue;
        if (arg[1] != '-') {
            if (o->short_name && arg[1] == o->short_name && arg[2] == '\0')
                return o;
            continue;
        }
        size_t n = o->long_name ? strlen(o->long_name) : 0;
        if (n && !strncmp(arg + 2, o->long_name, n) && (arg[2 + n] == '\0' || arg[2 + n] == '=')) {
            if (arg[2 + n] == '=')
                *attached = arg + 3 + n;
            return o;
        }
    }
    return NULL;
}

static int parse_count(const char *text, uint64_t *value)
{
    char *end;
    if (text[0] < '0' || text[0] > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (errno || *end)
        return -EINVAL;
    *value = n;
    return 0;
}

/* Check \p text against the row; \p spelled is how the user named it. */
static int take_value(const ot_cli_verb_info *verb, const option *o, const char *spelled, const char *text,
                      uint64_t *value)
{
    int bad;
    switch (o->kind) {
    case COUNT:
        bad = parse_count(text, value) != 0 || *value < o->min || *value > o->max;
        break;
    case SIZE:
        bad = ot_byte_size_parse_range(text, o->min, o->max, value) != 0;
        break;
    case CHOICE:
        bad = 1;
        for (uint64_t i = 0; bad && o->choices[i]; i++)
            if (!strcmp(text, o->choices[i])) {
                *value = i;
                bad = 0;
            }
        break;
    case PARSED:
        bad = o->parse(text, value) != 0;
        break;
    default:
        bad = 0;
    }
    if (!bad)
        return 0;
    char takes[256];
    accepted(o, takes, sizeof takes);
    return REFUSE(verb, "%s '%s' is not %s", spelled, text, takes);
}

int ot_cli_parse(const ot_cli_verb_info *verb, int argc, char **argv, ot_cli_args *out)
{
    memset(out, 0, sizeof *out);
    out->verb = verb;
    for (size_t k = 0; k < OPTION_COUNT; k++)
        if (options[k].verbs & verb->verb)
            out->value[options[k].id] = options[k].fallback;
    int i = 1, options_ended = 0;
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_ended && !strcmp(arg, "--")) {
            options_ended = 1;
            if (verb->verb == OT_VERB_RECORD) {
                i++;
                break;
            }
            continue;
        }
        if (options_ended || arg[0] != '-' || arg[1] == '\0') { /* an operand; "-" is one too */
            if (verb->verb == OT_VERB_RECORD) /* the program: the rest is its own */
                break;
            if (out->dir)
                return REFUSE(verb, "one archive at a time ('%s' and '%s')", out->dir, arg);
            out->dir = arg;
            continue;
        }
        const char *attached, *text;
        const option *o = lookup(verb->verb, arg, &attached);
        if (!o)
            return REFUSE(verb, "unknown option '%s'", arg);
        char spelled[64];
        snprintf(spelled, sizeof spelled, "%.*s", (int)(attached ? attached - 1 - arg : (long)strlen(arg)), arg);
        if (o->kind == SWITCH) {
            if (attached)
                return REFUSE(verb, "%s takes no value", spelled);
            if (o->id == OT_OPT_HELP) {
                ot_cli_print_help(verb, stdout);
                return 1;
            }
            out->text[o->id] = arg;
            out->value[o->id] = 1;
            continue;
        }
        if (attached)
            text = attached;
        else if (i + 1 < argc)
            text = argv[++i];
        else
            return REFUSE(verb, "%s needs a value (%s)", spelled, o->arg);
        if (take_value(verb, o, spelled, text, &out->value[o->id]) != 0)
            return -1;
        out->text[o->id] = text;
    }
    if (verb->verb == OT_VERB_RECORD) {
        if (i >= argc)
            return REFUSE(verb, "no program given");
        out->program = argv + i;
    } else if (!out->dir)
        return REFUSE(verb, "no %s directory given", verb->reads_archive ? "archive" : "recording");
    return 0;
}

/**
 * \file offtrace.h
 * \brief offtrace: what a traced program and its user can rely on.
 *
 * The host library `libofftrace.so` is an OMPT tool. It is loaded into an
 * unchanged program through `OMP_TOOL_LIBRARIES=/path/to/libofftrace.so`
 * (which `offtrace record` sets) and is configured only through the
 * environment:
 *
 * | variable               | values                          | default |
 * |------------------------|---------------------------------|---------|
 * | OFFTRACE_ENABLE        | 1, 0, on, off, yes, no, true, false | on  |
 * | OFFTRACE_OUTPUT        | a directory that does not exist | offtrace-<program>-<pid> |
 * | OFFTRACE_BUFFER_SIZE   | 64K .. 1G (a size: see below)   | 1M      |
 * | OFFTRACE_MEMORY_BUDGET | 256K .. 64G                     | 64M     |
 * | OFFTRACE_VERBOSE       | 0 quiet, 1 one line at exit, 2 debug | 1  |
 * | OFFTRACE_KEEP_RAW      | as OFFTRACE_ENABLE: keep `<dir>/raw` after conversion | off |
 * | OFFTRACE_BACKGROUND_WRITEBACK | as OFFTRACE_ENABLE: a helper thread writes records to disk past half the budget | on |
 * | OFFTRACE_MAX_RECORDING_SIZE | at least 1M, or `unlimited` | a tenth of the free space, >= 64M |
 * | OFFTRACE_HOST_OPENMP   | off, regions, loops, all (the program's own host OpenMP: docs/host-openmp.md) | loops |
 * | OFFTRACE_START_PAUSED  | as OFFTRACE_ENABLE: nothing recorded until omp_control_tool start (docs/measurement-control.md) | off |
 * | OFFTRACE_FILTER        | a filter file: regions left out of the trace (docs/filters.md; a wrong file is said, the run traced without it) | none |
 *
 * Device detail comes from the device collector, `libofftrace-device.so`,
 * preloaded next to the host library (`offtrace record` does both; by hand:
 * `LD_PRELOAD=.../libofftrace-device.so OMP_TOOL_LIBRARIES=.../libofftrace.so`).
 * Its variables (OFFTRACE_DEVICE_BUFFER_SIZE, and the test knob
 * OFFTRACE_TEST_DEVICE_CLOCK) are described in offtrace/collector.h.
 *
 * Sizes (4M, 4MiB, 65536) follow one grammar, written in util/byte_size.h
 * and shared with the device collector and the CLI.
 * A wrong value is reported in one line on stderr naming the variable and
 * the accepted values; the program then runs untraced. An existing output
 * directory is never reused: the library picks `<name>.1`, `<name>.2`, ...
 * and says which. OFFTRACE_BUFFER_SIZE is the size of one per-thread record
 * chunk; a thread maps a new chunk each time one fills. OFFTRACE_MEMORY_BUDGET
 * bounds the trace data held in memory by all threads together: mapped
 * chunks plus written chunks not yet on disk. Once half of it is held, a
 * background thread writes completed chunks to disk and drops them from
 * memory (OFFTRACE_BACKGROUND_WRITEBACK=off leaves that thread out). When a
 * thread's chunk switch finds the budget exceeded all the same, the thread
 * writes its records to disk at once; the trace shows that as an "offtrace:
 * buffer flush" region on the thread. Nothing is dropped.
 *
 * OFFTRACE_MAX_RECORDING_SIZE bounds the disk space of a recording: the
 * record files offtrace allocates in `<dir>/raw` (the archive written from
 * them afterwards is of similar size). The default leaves nine tenths of the
 * free space to the program and everything else on the machine, whatever
 * the run's length (a run left recording for hours cannot fill the disk);
 * 64M at least, so that a nearly full disk still gets a useful trace (the
 * disk-full path then counts what does not fit). Past the limit recording
 * stops: one line on stderr, the program goes on untouched, and the lost
 * records are counted (OFFTRACE::LOST_SIZE_LIMIT) and shown in the trace as
 * an "offtrace: size limit reached" region.
 *
 * Error rule for every offtrace_ and ot_ function that returns int: 0 on
 * success, a negative errno value on failure. Functions returning pointers
 * return NULL on failure. Nothing inside the traced process ever exits or
 * aborts: on an internal failure tracing stops, the loss is counted, and it
 * is said once.
 */
#ifndef OFFTRACE_OFFTRACE_H
#define OFFTRACE_OFFTRACE_H

#define OFFTRACE_VERSION_STRING "0.1.0"

#define OFFTRACE_DEFAULT_BUFFER_SIZE (1u << 20)
#define OFFTRACE_MIN_BUFFER_SIZE (64u << 10)
#define OFFTRACE_MAX_BUFFER_SIZE (1u << 30)

#define OFFTRACE_DEFAULT_MEMORY_BUDGET (64ull << 20)
#define OFFTRACE_MIN_MEMORY_BUDGET (256ull << 10)
#define OFFTRACE_MAX_MEMORY_BUDGET (64ull << 30)

#define OFFTRACE_MIN_RECORDING_SIZE (1ull << 20)
#define OFFTRACE_DEFAULT_MIN_RECORDING_SIZE (64ull << 20) /**< floor of the free-space default */
#define OFFTRACE_DEFAULT_RECORDING_SHARE 10 /**< percent of the free space, the default limit */

/** Name of the OTF2 archive inside the output directory (`<dir>/traces.otf2`). */
#define OFFTRACE_ARCHIVE_NAME "traces"

#endif /* OFFTRACE_OFFTRACE_H */

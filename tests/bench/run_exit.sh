#!/bin/sh
# Issue 10: what the traced program itself pays now that the conversion left
# it, against the build at BASELINE_DIR (another build tree or an installed
# copy with bin/ and lib/, e.g. one made from an older commit), in one
# interleaved run. For each configuration: the wall time of the program
# process (ms, median of ROUNDS) and its peak RSS (KiB, GNU time %M, median).
#   none       the program untraced
#   lib-only   the library as under `offtrace record` (OFFTRACE_OUTPUT_CLAIMED=1):
#              recording and ending the recording, no conversion
#   no-cli     the library without the CLI: the conversion runs in a helper
#              process the program waits for (its RSS is not the program's,
#              but GNU time adds a waited child's peak to the parent's)
#   record     the whole `offtrace record` command (program + conversion)
#   old-*      the same with the baseline (before issue 10: conversion inside the program)
#   usage: tests/bench/run_exit.sh BUILD_DIR BASELINE_DIR [REGIONS] [ROUNDS]
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); N=${3:-20000}; ROUNDS=${4:-7}
. "$(dirname "$0")/bench_lib.sh"
PROG="$BUILD/bin/hostile_many"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
timed() { # name, then the command
    name=$1; shift
    /usr/bin/time -f "%e %M" -o "$T/t" "$@" > /dev/null 2>&1 || true
    awk '{print $1 * 1000}' "$T/t" >> "$T/$name.ms"; awk '{print $2}' "$T/t" >> "$T/$name.kb"
    rm -rf "$T/out"; sync
}
i=0
while [ $i -lt "$ROUNDS" ]; do
    for c in $(rotate $i none lib-only no-cli record old-lib-only old-no-cli old-record); do
        case $c in
        none) timed none "$PROG" "$N" ;;
        lib-only) mkdir -p "$T/out"; timed lib-only env OFFTRACE_OUTPUT_CLAIMED=1 \
            OMP_TOOL_LIBRARIES="$BUILD/lib/libofftrace.so" OFFTRACE_OUTPUT="$T/out" OFFTRACE_VERBOSE=0 "$PROG" "$N" ;;
        no-cli) timed no-cli env OMP_TOOL_LIBRARIES="$BUILD/lib/libofftrace.so" OFFTRACE_OUTPUT="$T/out" \
            OFFTRACE_VERBOSE=0 "$PROG" "$N" ;;
        record) timed record "$BUILD/bin/offtrace" record --host-only -o "$T/out" -- "$PROG" "$N" ;;
        old-lib-only) mkdir -p "$T/out"; timed old-lib-only env OFFTRACE_OUTPUT_CLAIMED=1 \
            OMP_TOOL_LIBRARIES="$OLD/lib/libofftrace.so" OFFTRACE_OUTPUT="$T/out" OFFTRACE_VERBOSE=0 "$PROG" "$N" ;;
        old-no-cli) timed old-no-cli env OMP_TOOL_LIBRARIES="$OLD/lib/libofftrace.so" OFFTRACE_OUTPUT="$T/out" \
            OFFTRACE_VERBOSE=0 "$PROG" "$N" ;;
        old-record) timed old-record "$OLD/bin/offtrace" record --host-only -o "$T/out" -- "$PROG" "$N" ;;
        esac
    done
    i=$((i + 1))
done
BASE=$(median "$T/none.ms")
echo "hostile_many $N, host-only, median of $ROUNDS interleaved rounds"
echo "| configuration | wall ms | ratio to untraced | peak RSS KiB |"
echo "|---|---|---|---|"
for c in none lib-only no-cli record old-lib-only old-no-cli old-record; do
    ms=$(median "$T/$c.ms")
    echo "| $c | $ms | $(echo "scale=2; $ms / $BASE" | bc) | $(median "$T/$c.kb") |"
done

#!/bin/sh
# Per-region cost of an empty `target map(tofrom: 64 B)` region, measured in
# one run for: no tool, a do-nothing OMPT tool, offtrace, and LLVM's own
# LIBOMPTARGET_PROFILE. Configurations are interleaved round by round and the
# median of the rounds is reported, so machine noise hits all of them alike.
# offtrace's runs include writing the raw records to the page cache and the
# archive at exit (the exit part is outside the timed loop).
#   usage: tests/bench/run_overhead.sh [BUILD_DIR] [ITERATIONS] [ROUNDS]
# Prints a Markdown table (docs/performance.md holds the last one).
set -eu
BUILD=${1:-build}
ITER=${2:-100000}
ROUNDS=${3:-5}
BIN="$BUILD/bin/bench_target_loop"
NULL_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_tool.so")"
OFFTRACE_LIB="$(realpath "$BUILD/lib/libofftrace.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # name, then env assignments
    name=$1; shift
    env "$@" "$BIN" "$ITER" >> "$TMP/$name"
    sync # no run pays for the previous run's writeback
}

i=0
while [ $i -lt "$ROUNDS" ]; do
    run none OMP_TOOL=disabled
    run null OMP_TOOL_LIBRARIES="$NULL_TOOL"
    run offtrace OMP_TOOL_LIBRARIES="$OFFTRACE_LIB" OFFTRACE_OUTPUT="$TMP/trace.$i" OFFTRACE_VERBOSE=0
    rm -rf "$TMP/trace.$i"
    run profile OMP_TOOL=disabled LIBOMPTARGET_PROFILE="$TMP/profile.$i.json"
    i=$((i + 1))
done

median() { sort -n "$TMP/$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
NONE=$(median none); NULL=$(median null); OFF=$(median offtrace); PROF=$(median profile)
echo "| configuration | ns per region | added vs no tool | ratio to no tool |"
echo "|---|---|---|---|"
for c in "no tool:$NONE" "do-nothing OMPT tool:$NULL" "offtrace:$OFF" "LIBOMPTARGET_PROFILE:$PROF"; do
    name=${c%%:*}; v=${c#*:}
    awk -v n="$name" -v v="$v" -v b="$NONE" 'BEGIN {printf "| %s | %.0f | %+.0f ns | %.3f |\n", n, v, v-b, v/b}'
done
echo
echo "iterations per run: $ITER, rounds: $ROUNDS (median), machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

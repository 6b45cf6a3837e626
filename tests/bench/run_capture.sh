#!/bin/sh
# Variable names (issue 15): the added cost of the map capture per empty
# `target map(tofrom: 64 B)` region, built with -g (names passed on every
# region). Six configurations, interleaved round by round, median of the
# rounds: no tool with and without the capture preloaded (what the capture
# costs a program no recorder asks), offtrace host-only and with device
# detail, each with the capture off and on (what `record --no-capture` and
# `record` run). Environment as `offtrace record` sets it.
#   usage: tests/bench/run_capture.sh [BUILD_DIR] [ITERATIONS] [ROUNDS]
# Prints a Markdown table (docs/performance.md, "Variable names (issue 15)").
set -eu
BUILD=${1:-build}
ITER=${2:-100000}
ROUNDS=${3:-7}
BIN="$BUILD/bin/bench_target_loop_g"
LIB="$(realpath "$BUILD/lib/libofftrace.so")"
DEVICE="$(realpath "$BUILD/lib/libofftrace-device.so")"
CAPTURE="$(realpath "$BUILD/lib/libofftrace-capture.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # name, then env assignments
    name=$1; shift
    env "$@" "$BIN" "$ITER" >> "$TMP/$name"
    rm -rf "$TMP/trace"
    sync # no run pays for the previous run's writeback
}

TRACE="OMP_TOOL_LIBRARIES=$LIB OFFTRACE_OUTPUT=$TMP/trace OFFTRACE_VERBOSE=0"
i=0
while [ $i -lt "$ROUNDS" ]; do
    run none OMP_TOOL=disabled
    run none_capture OMP_TOOL=disabled LD_PRELOAD="$CAPTURE"
    run host $TRACE
    run host_capture $TRACE LD_PRELOAD="$CAPTURE"
    run device $TRACE LD_PRELOAD="$DEVICE"
    run device_capture $TRACE LD_PRELOAD="$CAPTURE:$DEVICE"
    # the capture and the recorder's look-ups alone, libomptarget replaced by a stub (capture_bench.c)
    "$BUILD/bin/bench_capture" 2000000 >> "$TMP/stub"
    LD_PRELOAD="$CAPTURE" "$BUILD/bin/bench_capture" 2000000 >> "$TMP/stub_capture"
    i=$((i + 1))
done

# The median, and the minimum: on a shared machine the fastest round is the
# one least disturbed, so the difference of minima is the steadier estimate.
median() { sort -n "$TMP/$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
minimum() { sort -n "$TMP/$1" | head -1; }
echo "| configuration | capture off, ns per region (median / min) | capture on (median / min) | added by the capture (median / min) |"
echo "|---|---|---|---|"
for c in "no tool:none" "offtrace host-only:host" "offtrace with device detail:device"; do
    name=${c%%:*}; key=${c#*:}
    awk -v n="$name" -v off="$(median "$key")" -v on="$(median "${key}_capture")" \
        -v offmin="$(minimum "$key")" -v onmin="$(minimum "${key}_capture")" \
        'BEGIN {printf "| %s | %.0f / %.0f | %.0f / %.0f | %+.0f / %+.0f ns |\n", n, off, offmin, on, onmin, on-off, onmin-offmin}'
done
awk -v off="$(median stub)" -v on="$(median stub_capture)" -v offmin="$(minimum stub)" -v onmin="$(minimum stub_capture)" \
    'BEGIN {printf "| the capture alone (bench_capture: libomptarget stubbed, recorder look-ups in) | %.1f / %.1f | %.1f / %.1f | %+.1f / %+.1f ns |\n", off, offmin, on, onmin, on-off, onmin-offmin}'
echo
echo "iterations per run: $ITER, rounds: $ROUNDS (median), machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

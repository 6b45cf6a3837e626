#!/bin/sh
# Overhead of device detail on the CG example: the solver's own time (the
# `target data` region, timed inside the program) for no tool, host-only
# tracing, and tracing with the device collector preloaded. Configurations
# are interleaved round by round; medians are reported, with ratios against
# no tool and against host-only tracing.
#   usage: tests/bench/run_device_overhead.sh [BUILD_DIR] [GRID_N] [ITERATIONS] [ROUNDS]
set -eu
BUILD=${1:-build}
GRID=${2:-64}
ITERS=${3:-200}
ROUNDS=${4:-7}
CG="$BUILD/bin/example_cg"
HOST_LIB="$(realpath "$BUILD/lib/libofftrace.so")"
DEVICE_LIB="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # name, then env assignments
    name=$1; shift
    env "$@" "$CG" "$GRID" "$ITERS" | awk '/^cg: solver/ {print $3}' >> "$TMP/$name"
    rm -rf "$TMP/trace"
    sync
}

i=0
while [ $i -lt "$ROUNDS" ]; do
    run none OMP_TOOL=disabled
    run host OMP_TOOL_LIBRARIES="$HOST_LIB" OFFTRACE_OUTPUT="$TMP/trace" OFFTRACE_VERBOSE=0
    run device OMP_TOOL_LIBRARIES="$HOST_LIB" LD_PRELOAD="$DEVICE_LIB" OFFTRACE_OUTPUT="$TMP/trace" OFFTRACE_VERBOSE=0
    i=$((i + 1))
done

median() { sort -n "$TMP/$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
NONE=$(median none); HOST=$(median host); DEV=$(median device)
KERNELS=$((ITERS * 6 + 2))
echo "| configuration | solver time (s) | ratio to no tool | ratio to host-only |"
echo "|---|---|---|---|"
for c in "no tool:$NONE" "host-only tracing:$HOST" "with device detail:$DEV"; do
    name=${c%%:*}; v=${c#*:}
    awk -v n="$name" -v v="$v" -v b="$NONE" -v h="$HOST" 'BEGIN {printf "| %s | %.4f | %.3f | %.3f |\n", n, v, v/b, v/h}'
done
echo
echo "example_cg $GRID $ITERS ($KERNELS kernels), rounds: $ROUNDS (median), machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

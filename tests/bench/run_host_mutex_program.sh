#!/bin/sh
# A lock-heavy program under offtrace (issue 13, mutual exclusion): the
# lock_histogram example's wall time with no tool and with offtrace at
# OFFTRACE_HOST_OPENMP=loops and all (device collector preloaded, as under
# `record`), interleaved round by round, medians and ratios to no tool. The
# library runs as under `record` (OFFTRACE_OUTPUT_CLAIMED=1): the archive is
# written afterwards, outside the time measured.
#   usage: tests/bench/run_host_mutex_program.sh [BUILD_DIR] [ITEMS] [HIST_ROUNDS] [ROUNDS] [THREADS]
set -eu
BUILD=${1:-build}
ITEMS=${2:-200000}
HISTS=${3:-3}
ROUNDS=${4:-7}
THREADS=${5:-2}
BIN="$BUILD/bin/example_lock_histogram"
LIB="$(realpath "$BUILD/lib/libofftrace.so")"
COLLECTOR="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # name, then env assignments
    name=$1; shift
    rm -rf "$TMP/trace"; mkdir "$TMP/trace"
    start=$(date +%s%N)
    env OMP_NUM_THREADS="$THREADS" "$@" "$BIN" "$ITEMS" "$HISTS" > /dev/null
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 )) >> "$TMP/$name"
    sync
}

i=0
while [ $i -lt "$ROUNDS" ]; do
    run none OMP_TOOL=disabled
    for level in loops all; do
        run $level OMP_TOOL_LIBRARIES="$LIB" LD_PRELOAD="$COLLECTOR" OFFTRACE_OUTPUT="$TMP/trace" \
            OFFTRACE_OUTPUT_CLAIMED=1 OFFTRACE_VERBOSE=0 OFFTRACE_HOST_OPENMP=$level
    done
    i=$((i + 1))
done

median() { sort -n "$TMP/$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
none=$(median none)
echo "| lock_histogram $ITEMS items x $HISTS, $THREADS threads | no tool | offtrace loops | offtrace all |"
echo "|---|---|---|---|"
line="| wall time (median of $ROUNDS) | $none us"
for name in loops all; do
    v=$(median $name)
    line="$line | $v us ($(echo "$v $none" | awk '{printf "%.3f", $1 / $2}'))"
done
echo "$line |"

#!/bin/sh
# A whole program's host OpenMP under offtrace (issue 13): the bucket-sort
# example's wall time with no tool, with offtrace at OFFTRACE_HOST_OPENMP=off
# and at loops (device collector preloaded in both), interleaved round by
# round, medians and ratios to no tool. The library runs as under `record`
# (OFFTRACE_OUTPUT_CLAIMED=1): the archive is written afterwards, outside the
# time measured, as `record` does.
#   usage: tests/bench/run_host_openmp_program.sh [BUILD_DIR] [KEYS] [SORT_ROUNDS] [ROUNDS] [THREADS]
set -eu
BUILD=${1:-build}
KEYS=${2:-2000000}
SORTS=${3:-3}
ROUNDS=${4:-7}
THREADS=${5:-2}
BIN="$BUILD/bin/example_bucket_sort"
LIB="$(realpath "$BUILD/lib/libofftrace.so")"
COLLECTOR="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # name, then env assignments
    name=$1; shift
    rm -rf "$TMP/trace"; mkdir "$TMP/trace"
    start=$(date +%s%N)
    env OMP_NUM_THREADS="$THREADS" "$@" "$BIN" "$KEYS" "$SORTS" > /dev/null
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 )) >> "$TMP/$name"
    sync
}

i=0
while [ $i -lt "$ROUNDS" ]; do
    run none OMP_TOOL=disabled
    for level in off loops; do
        run $level OMP_TOOL_LIBRARIES="$LIB" LD_PRELOAD="$COLLECTOR" OFFTRACE_OUTPUT="$TMP/trace" \
            OFFTRACE_OUTPUT_CLAIMED=1 OFFTRACE_VERBOSE=0 OFFTRACE_HOST_OPENMP=$level
    done
    i=$((i + 1))
done

median() { sort -n "$TMP/$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
none=$(median none)
echo "| bucket_sort $KEYS keys x $SORTS, $THREADS threads | no tool | offtrace off | offtrace loops |"
echo "|---|---|---|---|"
line="| wall time (median of $ROUNDS) | $none us"
for name in off loops; do
    v=$(median $name)
    line="$line | $v us ($(echo "$v $none" | awk '{printf "%.3f", $1 / $2}'))"
done
echo "$line |"

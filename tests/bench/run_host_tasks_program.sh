#!/bin/sh
# A task-parallel program under offtrace (issue 13, explicit tasks): the
# task_tree example's wall time with no tool and with offtrace at
# OFFTRACE_HOST_OPENMP=loops (tasks not recorded) and all (every task's
# creation and periods recorded), device collector preloaded, interleaved
# round by round, medians and ratios to no tool. The library runs as under
# `record` (OFFTRACE_OUTPUT_CLAIMED=1): the archive is written afterwards,
# outside the time measured.
#   usage: tests/bench/run_host_tasks_program.sh [BUILD_DIR] [ELEMENTS] [CUTOFF] [TREE_ROUNDS] [ROUNDS] [THREADS]
set -eu
BUILD=${1:-build}
ELEMENTS=${2:-2000000}
CUTOFF=${3:-64}
TREES=${4:-5}
ROUNDS=${5:-7}
THREADS=${6:-2}
BIN="$BUILD/bin/example_task_tree"
LIB="$(realpath "$BUILD/lib/libofftrace.so")"
COLLECTOR="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # name, then env assignments
    name=$1; shift
    rm -rf "$TMP/trace"; mkdir "$TMP/trace"
    start=$(date +%s%N)
    env OMP_NUM_THREADS="$THREADS" "$@" "$BIN" "$ELEMENTS" "$CUTOFF" "$TREES" > /dev/null
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
tasks=$(( 2 * ELEMENTS / CUTOFF * TREES ))
none=$(median none)
echo "| task_tree $ELEMENTS elements, cutoff $CUTOFF, x $TREES (about $tasks tasks), $THREADS threads | no tool | offtrace loops | offtrace all |"
echo "|---|---|---|---|"
line="| wall time (median of $ROUNDS) | $none us"
for name in loops all; do
    v=$(median $name)
    line="$line | $v us ($(echo "$v $none" | awk '{printf "%.3f", $1 / $2}'))"
done
echo "$line |"

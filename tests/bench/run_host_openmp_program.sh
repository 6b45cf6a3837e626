#!/bin/sh
# One whole program's host OpenMP under offtrace (issue 13): the example's
# wall time with no tool and with offtrace at each OFFTRACE_HOST_OPENMP level
# asked for (device collector preloaded), interleaved round by round,
# medians and ratios to no tool. The library runs as under `record`
# (OFFTRACE_OUTPUT_CLAIMED=1): the archive is written afterwards, outside the
# time measured, as `record` does. run_host_openmp_programs.sh runs every
# example at once, with minima.
#   usage: tests/bench/run_host_openmp_program.sh BUILD_DIR ROUNDS THREADS "LEVELS" EXAMPLE [ARGS...]
#   e.g.   tests/bench/run_host_openmp_program.sh build 7 2 "off loops" example_bucket_sort 2000000 3
set -eu
if [ $# -lt 5 ]; then
    echo "usage: $0 BUILD_DIR ROUNDS THREADS \"LEVELS\" EXAMPLE [ARGS...]" >&2
    exit 2
fi
BUILD=$1
ROUNDS=$2
THREADS=$3
LEVELS=$4
EXAMPLE=$5
shift 5
BIN="$BUILD/bin/$EXAMPLE"
LIB="$(realpath "$BUILD/lib/libofftrace.so")"
COLLECTOR="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # name, then env assignments; the example's arguments are "$@" of the script
    name=$1; shift
    rm -rf "$TMP/trace"; mkdir "$TMP/trace"
    start=$(date +%s%N)
    env OMP_NUM_THREADS="$THREADS" "$@" "$BIN" $ARGS > /dev/null
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 )) >> "$TMP/$name"
    sync
}

ARGS="$*"
i=0
while [ $i -lt "$ROUNDS" ]; do
    run none OMP_TOOL=disabled
    for level in $LEVELS; do
        run $level OMP_TOOL_LIBRARIES="$LIB" LD_PRELOAD="$COLLECTOR" OFFTRACE_OUTPUT="$TMP/trace" \
            OFFTRACE_OUTPUT_CLAIMED=1 OFFTRACE_VERBOSE=0 OFFTRACE_HOST_OPENMP=$level
    done
    i=$((i + 1))
done

median() { sort -n "$TMP/$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
none=$(median none)
head="| $EXAMPLE $ARGS, $THREADS threads | no tool"
rule="|---|---"
line="| wall time (median of $ROUNDS) | $none us"
for name in $LEVELS; do
    v=$(median $name)
    head="$head | offtrace $name"
    rule="$rule|---"
    line="$line | $v us ($(echo "$v $none" | awk '{printf "%.3f", $1 / $2}'))"
done
echo "$head |"
echo "$rule|"
echo "$line |"

#!/bin/sh
# Whole programs under offtrace's host OpenMP recording (issue 13, "measured,
# not assumed"): the loop-heavy, task-heavy (a realistic and a too-fine
# cutoff), lock-heavy and offload-with-a-host-phase examples, each with no
# tool and with offtrace at OFFTRACE_HOST_OPENMP=loops (the default) and all,
# device collector preloaded and the archive written afterwards (as under
# `record`, OFFTRACE_OUTPUT_CLAIMED=1).
#
# Every round runs every program at every level, the levels' order rotating
# from round to round, so that a burst of load from other work lands on all
# of them alike. The table gives the minimum and the median of the rounds and
# their ratios to the same run's no-tool minimum and median: on a shared
# machine the minimum is the run least disturbed, and the one to compare.
# The load average before and after is printed with the table.
#   usage: tests/bench/run_host_openmp_programs.sh [BUILD_DIR] [ROUNDS] [THREADS] [SCALE]
# SCALE (default 1) multiplies every program's problem size.
set -eu
BUILD=${1:-build}
ROUNDS=${2:-9}
THREADS=${3:-2}
SCALE=${4:-1}
LIB="$(realpath "$BUILD/lib/libofftrace.so")"
COLLECTOR="$(realpath "$BUILD/lib/libofftrace-device.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# name|binary|arguments
PROGRAMS="bucket_sort|example_bucket_sort|$((2000000 * SCALE)) 3
task_tree_4096|example_task_tree|$((8000000 * SCALE)) 4096 5
task_tree_64|example_task_tree|$((2000000 * SCALE)) 64 5
lock_histogram|example_lock_histogram|$((100000 * SCALE)) 3
cg_host|example_cg|$((512 * SCALE)) 100 host"

run() { # program, level, binary, arguments
    rm -rf "$TMP/trace"; mkdir "$TMP/trace"
    if [ "$2" = none ]; then
        set -- "$1" "$2" "$3" "$4" OMP_TOOL=disabled
    else
        set -- "$1" "$2" "$3" "$4" OMP_TOOL_LIBRARIES="$LIB" LD_PRELOAD="$COLLECTOR" \
            OFFTRACE_OUTPUT="$TMP/trace" OFFTRACE_OUTPUT_CLAIMED=1 OFFTRACE_VERBOSE=0 \
            OFFTRACE_HOST_OPENMP="$2"
    fi
    prog=$1 level=$2 bin=$3 args=$4; shift 4
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    env OMP_NUM_THREADS="$THREADS" "$@" "$BUILD/bin/$bin" $args > /dev/null
    end=$(date +%s%N)
    echo $(( (end - start) / 1000 )) >> "$TMP/$prog.$level"
    rm -rf "$TMP/trace"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$ROUNDS" ]; do
    case $((i % 3)) in
        0) order="none loops all" ;;
        1) order="loops all none" ;;
        *) order="all none loops" ;;
    esac
    echo "$PROGRAMS" | while IFS='|' read -r prog bin args; do
        for level in $order; do
            run "$prog" "$level" "$bin" "$args"
        done
    done
    i=$((i + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

stat() { # file -> "min median"
    sort -n "$1" | awk '{v[NR]=$1} END {print v[1], v[int((NR+1)/2)]}'
}
echo
echo "| program ($THREADS threads, $ROUNDS rounds), min / median | no tool | offtrace loops | offtrace all |"
echo "|---|---|---|---|"
echo "$PROGRAMS" | while IFS='|' read -r prog bin args; do
    set -- $(stat "$TMP/$prog.none")
    nmin=$1 nmed=$2
    line="| $prog ($args) | $nmin / $nmed us"
    for level in loops all; do
        set -- $(stat "$TMP/$prog.$level")
        line="$line | $1 / $2 us ($(echo "$1 $nmin $2 $nmed" | awk '{printf "%.3f / %.3f", $1 / $2, $3 / $4}'))"
    done
    echo "$line |"
done

#!/bin/sh
# Per-unit cost of the program's own host OpenMP (issue 13): an empty
# parallel region and a schedule(dynamic, 1) chunk, each timed in one run
# for: no tool, a do-nothing OMPT tool registering the same host callbacks,
# and offtrace at OFFTRACE_HOST_OPENMP=off, regions, loops and all.
# Configurations are interleaved round by round; the median of the rounds is
# reported, and its ratio to no tool. offtrace's runs include writing the raw
# records (the archive is written at exit, outside the timed part).
# Debian's libomp 19 is a debug build (KMP_DEBUG): its own cost per chunk is
# several thousand instructions, so ratios here are against that runtime.
# Then explicit tasks (create + run of an empty task), on 1 and 2 threads:
# no tool, the do-nothing tool, offtrace at loops (tasks not recorded) and
# at all (recorded).
# Mutual exclusion (level all): a lock pair (omp_set_lock/omp_unset_lock) and
# an empty critical section on one thread, uncontended, for: no tool, a
# do-nothing tool registering the same callbacks as offtrace at all, and
# offtrace at loops and all (LOCKS units; 0 leaves them out).
#   usage: tests/bench/run_host_openmp.sh [BUILD_DIR] [REGIONS] [CHUNKS] [ROUNDS] [THREADS] [TASKS] [LOCKS]
set -eu
BUILD=${1:-build}
REGIONS=${2:-20000}
CHUNKS=${3:-200000}
ROUNDS=${4:-7}
THREADS=${5:-2}
TASKS=${6:-200000}
LOCKS=${7:-200000}
BIN="$BUILD/bin/bench_host_openmp_units"
NULL_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_host_tool.so")"
OFFTRACE_LIB="$(realpath "$BUILD/lib/libofftrace.so")"
NULL_MUTEX_TOOL="$(realpath "$BUILD/lib/libofftrace_bench_null_mutex_tool.so")"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() { # unit, count, name, then env assignments
    unit=$1 count=$2 name=$3; shift 3
    env OMP_NUM_THREADS="$THREADS" OMP_WAIT_POLICY=active "$@" "$BIN" "$unit" "$count" |
        awk '/ns_per_unit/ {print $2}' >> "$TMP/$unit.$name"
    rm -rf "$TMP/trace"
    sync
}

i=0
while [ $i -lt "$ROUNDS" ]; do
    for unit in parallel chunk; do
        count=$REGIONS; [ $unit = chunk ] && count=$CHUNKS
        run $unit $count none OMP_TOOL=disabled
        run $unit $count null OMP_TOOL_LIBRARIES="$NULL_TOOL"
        for level in off regions loops all; do
            run $unit $count $level OMP_TOOL_LIBRARIES="$OFFTRACE_LIB" OFFTRACE_OUTPUT="$TMP/trace" \
                OFFTRACE_VERBOSE=0 OFFTRACE_HOST_OPENMP=$level
        done
    done
    # ---- mutual exclusion (level all) ----
    for unit in lock critical; do
        [ "$LOCKS" -gt 0 ] || break
        run $unit "$LOCKS" none OMP_TOOL=disabled
        run $unit "$LOCKS" null OMP_TOOL_LIBRARIES="$NULL_MUTEX_TOOL"
        for level in loops all; do
            run $unit "$LOCKS" $level OMP_TOOL_LIBRARIES="$OFFTRACE_LIB" OFFTRACE_OUTPUT="$TMP/trace" \
                OFFTRACE_VERBOSE=0 OFFTRACE_HOST_OPENMP=$level
        done
    done
    i=$((i + 1))
done

median() { sort -n "$TMP/$1" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "| unit ($THREADS threads) | no tool | do-nothing tool | offtrace off | offtrace regions | offtrace loops | offtrace all |"
echo "|---|---|---|---|---|---|---|"
for unit in parallel chunk; do
    none=$(median $unit.none)
    line="| $unit | $none ns"
    for name in null off regions loops all; do
        v=$(median $unit.$name)
        line="$line | $v ns ($(echo "$v $none" | awk '{printf "%.2f", $1 / $2}'))"
    done
    echo "$line |"
done

# ---- explicit tasks (level all) ----
run_tasks() { # threads, name, then env assignments
    threads=$1 name=$2; shift 2
    env OMP_NUM_THREADS="$threads" OMP_WAIT_POLICY=active "$@" "$BIN" task "$TASKS" |
        awk '/ns_per_unit/ {print $2}' >> "$TMP/task$threads.$name"
    rm -rf "$TMP/trace"
    sync
}
i=0
while [ $i -lt "$ROUNDS" ]; do
    for threads in 1 2; do
        run_tasks $threads none OMP_TOOL=disabled
        run_tasks $threads null OMP_TOOL_LIBRARIES="$NULL_TOOL"
        for level in loops all; do
            run_tasks $threads $level OMP_TOOL_LIBRARIES="$OFFTRACE_LIB" OFFTRACE_OUTPUT="$TMP/trace" \
                OFFTRACE_VERBOSE=0 OFFTRACE_HOST_OPENMP=$level
        done
    done
    i=$((i + 1))
done
echo
echo "| task, create + run | no tool | do-nothing tool | offtrace loops | offtrace all |"
echo "|---|---|---|---|---|"
for threads in 1 2; do
    none=$(median task$threads.none)
    line="| $threads thread(s) | $none ns"
    for name in null loops all; do
        v=$(median task$threads.$name)
        line="$line | $v ns ($(echo "$v $none" | awk '{printf "%.2f", $1 / $2}'))"
    done
    echo "$line |"
done
# ---- mutual exclusion (level all) ----
if [ "$LOCKS" -gt 0 ]; then
    echo
    echo "| unit (1 thread, uncontended) | no tool | do-nothing tool (all's callbacks) | offtrace loops | offtrace all |"
    echo "|---|---|---|---|---|"
    for unit in lock critical; do
        none=$(median $unit.none)
        line="| $unit | $none ns"
        for name in null loops all; do
            v=$(median $unit.$name)
            line="$line | $v ns ($(echo "$v $none" | awk '{printf "%.2f", $1 / $2}'))"
        done
        echo "$line |"
    done
fi

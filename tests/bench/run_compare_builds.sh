#!/bin/sh
# Two builds of offtrace against each other, in one interleaved run, as
# ratios NEW / BASE (a change must show no regression beyond noise):
#  - bench_target_loop OP N (ns per operation) for map64 (the empty mapped
#    target region), parallel and barrier (host OpenMP events, which device
#    detail has the host library forward to the collector), under host-only
#    tracing and with device detail;
#  - example_cg GRID ITERS with device detail and host-only: the solver's
#    own time (what run_device_overhead.sh measures).
# Each build runs its own program, libraries and collector. Round r runs
# the configurations in a rotated order (bench_lib.sh); medians of ROUNDS.
#   usage: tests/bench/run_compare_builds.sh BASE_BUILD NEW_BUILD [ROUNDS] [GRID] [ITERS]
set -eu
BASE=$1
NEW=$2
ROUNDS=${3:-9}
GRID=${4:-64}
ITERS=${5:-200}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/bench_lib.sh"

iters() {
    case $1 in
    map64) echo 15000 ;;
    parallel) echo 40000 ;;
    barrier) echo 100000 ;;
    esac
}

# run NAME BUILD MODE PROGRAM ARGS...: one timed run, its number appended to $TMP/NAME.
run() {
    name=$1 build=$2 mode=$3
    shift 3
    host_lib=$(realpath "$build/lib/libofftrace.so")
    device_lib=$(realpath "$build/lib/libofftrace-device.so")
    if [ "$mode" = device ]; then
        set -- env OMP_TOOL_LIBRARIES="$host_lib" LD_PRELOAD="$device_lib" OFFTRACE_OUTPUT="$TMP/trace" \
            OFFTRACE_VERBOSE=0 "$@"
    else
        set -- env OMP_TOOL_LIBRARIES="$host_lib" OFFTRACE_OUTPUT="$TMP/trace" OFFTRACE_VERBOSE=0 "$@"
    fi
    case $name in
    cg.*) "$@" | awk '/^cg: solver/ {print $3}' >> "$TMP/$name" ;;
    *) "$@" >> "$TMP/$name" ;;
    esac
    rm -rf "$TMP/trace"
    sync
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
    for c in $(rotate "$r" base new); do
        b=$BASE
        [ "$c" = new ] && b=$NEW
        for mode in device host; do
            for op in map64 parallel barrier; do
                run "$op.$mode.$c" "$b" "$mode" "$b/bin/bench_target_loop" "$op" "$(iters $op)"
            done
            run "cg.$mode.$c" "$b" "$mode" "$b/bin/example_cg" "$GRID" "$ITERS"
        done
    done
    r=$((r + 1))
done

# Medians, and the ratio of the minimums too: on a machine shared with
# other work the fastest run is the one least disturbed.
echo "| measure | base (median) | new (median) | new / base (medians) | new / base (minimums) |"
echo "|---|---|---|---|---|"
for m in map64.device parallel.device barrier.device cg.device map64.host parallel.host barrier.host cg.host; do
    b=$(median "$TMP/$m.base")
    n=$(median "$TMP/$m.new")
    bmin=$(minimum "$TMP/$m.base")
    nmin=$(minimum "$TMP/$m.new")
    unit="ns/op"
    case $m in cg.*) unit="s (solver)" ;; esac
    awk -v m="$m" -v b="$b" -v n="$n" -v u="$unit" -v bm="$bmin" -v nm="$nmin" \
        'BEGIN {printf "| %s | %s %s | %s %s | %.3f | %.3f |\n", m, b, u, n, u, n / b, nm / bm}'
done
echo
echo "base: $BASE, new: $NEW; rounds: $ROUNDS (median); example_cg $GRID $ITERS; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

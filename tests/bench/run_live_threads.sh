#!/bin/bash
# Issue 18, eighth round: the whole `offtrace record` command of host OpenMP
# programs with a parallel region per step, whose worker threads start before
# or after the live conversion (host/convert/convert_live.c) begins, against
# the same build with it off (OFFTRACE_LIVE_CONVERSION=off) and the build at
# BASELINE_DIR (which dropped the attempt for a thread started after it began),
# in one interleaved run (bench_lib.sh's rotate). Programs (bench_host_openmp_units,
# OMP_NUM_THREADS=THREADS, the default level of host OpenMP, loops):
#   parallel  `parallel 20000`: the team made before the 20,000 regions (its
#             worker streams exist when the attempt begins: kept by both builds)
#   late      `late 20000`: 10,000 regions of one thread, then 10,000 of the
#             team (its workers start after the attempt began)
# Wall and CPU ms of the command (bench_spawn_timer: user + system of record and
# its children), medians of ROUNDS, and the untraced program for the ratio. Then
# KEEP_RUNS records of each program with this build and the baseline, their
# summaries read: how often the live attempt was kept, and the seconds record
# says it wrote the archive after the program's end.
#   usage: tests/bench/run_live_threads.sh BUILD_DIR BASELINE_DIR [ROUNDS] [KEEP_RUNS] [THREADS]
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); ROUNDS=${3:-11}; KEEP_RUNS=${4:-5}; THREADS=${5:-2}
. "$(dirname "$0")/bench_lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cpu_timer_setup
export OMP_NUM_THREADS=$THREADS
PROG=$BUILD/bin/bench_host_openmp_units
PROGRAMS="parallel late"
CONFIGS=""
for p in $PROGRAMS; do
    CONFIGS="$CONFIGS none.$p live.$p off.$p old.$p"
done
run_config() {
    p=${1#*.}; how=${1%.*}
    timed_live "$1" "$how" "" "$PROG" "$p" 20000
}
live_rounds
m() { median "$T/$1"; }
table() { # suffix: "" wall, ".cpu" CPU
    echo "| program | untraced | live (this build) | live off (this build) | baseline build |"
    echo "|---|---|---|---|---|"
    for p in $PROGRAMS; do
        b=$(m none.$p$1)
        echo "| $p | $(printf %.1f "$b") | $(live_cell live.$p$1 "$b") | $(live_cell off.$p$1 "$b") | $(live_cell old.$p$1 "$b") |"
    done
}
echo "OMP_NUM_THREADS=$THREADS; median of $ROUNDS interleaved rounds; ms (ratio to untraced)"
live_tables
echo
echo "the live attempt in $KEEP_RUNS records of each program, this build and the baseline interleaved: how"
echo "often it was kept, and the median seconds record's summary says it wrote the archive after the end"
for p in $PROGRAMS; do
    for b in new old; do
        eval "kept_$b=0"; : > "$T/after.$b"
    done
    for k in $(seq "$KEEP_RUNS"); do
        for b in new old; do
            dir=$BUILD; [ $b = old ] && dir=$OLD
            rm -rf "$T/o"
            line=$("$dir/bin/offtrace" record -o "$T/o" -- "$PROG" "$p" 20000 2>&1 >/dev/null | grep "^offtrace: conversion" || true)
            echo "$line" | sed -n 's/^offtrace: conversion *\([0-9.]*\) s.*/\1/p' >> "$T/after.$b"
            case $line in *"records before, while it ran"*) eval "kept_$b=\$((kept_$b + 1))" ;; esac
        done
    done
    echo "- $p: kept $kept_new of $KEEP_RUNS (this build), $kept_old (baseline); after the end: this build" \
        "$(median "$T/after.new") s, baseline $(median "$T/after.old") s"
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"

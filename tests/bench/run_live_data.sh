#!/bin/bash
# Issue 18, seventh round: the whole `offtrace record` command of programs with
# data regions, whose conversion the live attempt (host/convert/convert_live.c)
# now does while they run, against the same build with it off
# (OFFTRACE_LIVE_CONVERSION=off) and the build at BASELINE_DIR (which dropped the
# attempt for any enter/exit data), in one interleaved run (bench_lib.sh's
# rotate). Programs (bench_target_loop, 1,000 warm-up operations each):
#   in_data    `target data` around 20,000 `target` regions (target_in_data 20000)
#   enter_exit 10,000 `target enter data` + `target exit data` pairs (20,000 constructs)
# each recorded with device detail and host-only. Wall and CPU ms of the command
# (bench_spawn_timer: user + system of record and its children), medians of
# ROUNDS, and the untraced program for the ratio. Then KEEP_RUNS records of each
# program under this build (and as many with the attempt off, interleaved), their
# summaries read: how often the live attempt was kept, its records before the
# end, and the conversion's seconds after the program's end (the attempt runs at
# SCHED_IDLE: on a loaded machine it may get no CPU before the end; it is kept
# all the same, and does its work after).
#   usage: tests/bench/run_live_data.sh BUILD_DIR BASELINE_DIR [ROUNDS] [KEEP_RUNS]
set -eu
BUILD=$(realpath "$1"); OLD=$(realpath "$2"); ROUNDS=${3:-11}; KEEP_RUNS=${4:-5}
. "$(dirname "$0")/bench_lib.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cpu_timer_setup
PROG=$BUILD/bin/bench_target_loop
args() { case $1 in in_data) echo "target_in_data 20000" ;; enter_exit) echo "enter_exit 10000" ;; esac; }
CONFIGS=""
for p in in_data enter_exit; do
    CONFIGS="$CONFIGS none.$p"
    for mode in dev host; do
        CONFIGS="$CONFIGS live-$mode.$p off-$mode.$p old-$mode.$p"
    done
done
run_config() {
    p=${1#*.}; how=${1%.*}
    flag=; [ "${how#*-}" = host ] && flag=--host-only
    timed_live "$1" "${how%-*}" "$flag" "$PROG" $(args "$p")
}
live_rounds
m() { median "$T/$1"; }
table() { # suffix: "" wall, ".cpu" CPU
    echo "| program | untraced | mode | live (this build) | live off (this build) | baseline build |"
    echo "|---|---|---|---|---|---|"
    for p in in_data enter_exit; do
        b=$(m none.$p$1)
        for mode in dev host; do
            echo "| $p | $(printf %.1f "$b") | $mode | $(live_cell live-$mode.$p$1 "$b") | $(live_cell off-$mode.$p$1 "$b") |" \
                "$(live_cell old-$mode.$p$1 "$b") |"
        done
    done
}
echo "median of $ROUNDS interleaved rounds; ms (ratio to untraced)"
live_tables
echo
echo "the live attempt in $KEEP_RUNS records of each program (device detail), this build, interleaved with"
echo "as many with it off: how often it was kept, its records converted before the end, and the median"
echo "seconds record's summary says it wrote the archive after the program's end (what the user waits for)"
for p in in_data enter_exit; do
    kept=0; records=""; : > "$T/after.live"; : > "$T/after.off"
    for k in $(seq "$KEEP_RUNS"); do
        for knob in on off; do
            rm -rf "$T/o"
            line=$(OFFTRACE_LIVE_CONVERSION=$knob "$BUILD/bin/offtrace" record -o "$T/o" -- "$PROG" $(args "$p") 2>&1 \
                >/dev/null | grep "^offtrace: conversion" || true)
            secs=$(echo "$line" | sed -n 's/^offtrace: conversion *\([0-9.]*\) s.*/\1/p')
            case $knob in
            on) echo "$secs" >> "$T/after.live"
                case $line in *"records before, while it ran"*)
                    kept=$((kept + 1))
                    records="$records $(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) records before.*/\1/p')" ;;
                esac ;;
            off) echo "$secs" >> "$T/after.off" ;;
            esac
        done
    done
    echo "- $p: kept $kept of $KEEP_RUNS; records converted before the end:${records:- none};" \
        "after the end: live $(median "$T/after.live") s, off $(median "$T/after.off") s"
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
